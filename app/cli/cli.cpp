#include "cli.h"

#include "common/version.h"

#include <QCoreApplication>
#include <QTextStream>

namespace ClusterDeck::Cli {

namespace {

QTextStream &out()
{
    static QTextStream s(stdout);
    return s;
}

QTextStream &err()
{
    static QTextStream s(stderr);
    return s;
}

const char *const kUsage = R"(Usage: clusterdeckctl [--store URL] COMMAND [ARGS...]

Launch, watch and tear down cluster sessions across Docker hosts.

Commands:
  host add NAME --docker ENDPOINT [--tls-ca F --tls-cert F --tls-key F]
                [--address PUBLIC_ADDR] [--label K=V]...
  host ls [--json] | host rm NAME | host inspect NAME [--json]
  network setup                       make all registered hosts one swarm
  template validate FILE...
  template render FILE [--count ROLE=N]... [--env K=V]... [--json]
  launch FILE [--name NAME] [--count ROLE=N]... [--env K=V]...
              [--mount SRC:DST[:ro]]... [--mode single-node|multi-node|auto]
              [--no-wait] [--json]
  ls [--json]
  show SESSION [--json]
  restart SESSION [--kernel HOSTNAME]
  rm SESSION [--kernel HOSTNAME]
  logs SESSION [--kernel HOSTNAME] [--follow]
  reconcile [--json]
  watch

Options:
  --store URL     sqlite:///path/state.db or etcd://host:2379/prefix
                  (default: $CLUSTERDECK_STORE, then the config file)
  -h, --help      show this help
  --version       show the version
)";

} // namespace

int run(const QStringList &arguments)
{
    const QStringList args = arguments.mid(1);
    if (args.isEmpty() || args.contains(QStringLiteral("--help"))
        || args.contains(QStringLiteral("-h")) || args.first() == QStringLiteral("help")) {
        out() << kUsage;
        out().flush();
        return args.isEmpty() ? 2 : 0;
    }
    if (args.first() == QStringLiteral("--version") || args.first() == QStringLiteral("version")) {
        out() << "clusterdeckctl " << versionString() << '\n';
        out().flush();
        return 0;
    }
    err() << "error: unknown command '" << args.first()
          << "' (see clusterdeckctl --help)\n";
    err().flush();
    return 2;
}

} // namespace ClusterDeck::Cli
