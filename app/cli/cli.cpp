#include "cli.h"

#include "clicontext.h"
#include "common/version.h"
#include "controllercommands.h"
#include "execcommands.h"
#include "hostcommands.h"
#include "imagecommands.h"
#include "networkcommands.h"
#include "prunecommands.h"
#include "sessioncommands.h"
#include "storecommands.h"
#include "templatecommands.h"
#include "topcommand.h"

#include <QCoreApplication>

#include <utility>

namespace ClusterDeck::Cli {

namespace {

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
              [--strategy spread|pack] [--per-host-limit N] [--settle SECONDS]
              [--no-wait] [--dry-run] [--json]
                                      RUNNING once every kernel stayed up SECONDS
                                      after its start (default 2); --dry-run: the
                                      placement (and why a host is not used) only
  ls [--json]
  show SESSION [--json]               SESSION = id, short id or name
  restart SESSION [--kernel HOSTNAME] always the whole session
  rm SESSION [--kernel HOSTNAME]      terminate: always the whole session
  scale SESSION ROLE=N [ROLE=N]... [--settle SECONDS] [--json]
                                      grow or shrink roles of a running session within the
                                      template's min/max (new kernels take the next indices;
                                      the highest go first; the primary never goes)
  logs SESSION [--kernel HOSTNAME] [--follow] [--tail N|all]
                                      the last N lines of each kernel (default
                                      1000), streamed as they arrive
  reconcile [--json] [--timeout S]    one controller pass: here if no controller leads,
                                      else by the leader (waits for its report)
  controller [--resync S] [--lease-ttl S] [--grace S]
                                      run the controller in the foreground (leader election;
                                      SIGTERM resigns and exits)
  watch                               follow the store's changes (statuses, events, leader)
  prune [--older-than DURATION] [--dry-run]
                                      forget ended sessions (never running ones); DURATION
                                      like 90s, 30m, 12h, 7d, 2w
  image ls [--hosts H,...] [--json]   which images are on which host (a host x image matrix)
  image pull IMAGE [--hosts H,...] [--if-not-present] [--json]
                                      pull onto every (or the given) host at once, with progress
  image rm IMAGE [--hosts H,...] [--force]
  registry login [SERVER] -u USER [--password-stdin | -p PASSWORD] [--no-verify]
  registry logout [SERVER] | registry ls [--json]
                                      logins shared with the docker CLI (~/.docker/config.json)
  exec SESSION [--kernel H | --role R | --all] [--parallel N] [--timeout S] [--json] -- CMD...
                                      run CMD in every selected kernel at once (default: all);
                                      lines prefixed with the hostname; exit = worst exit code
  shell SESSION [--kernel H] [--user U] [-- CMD...]
                                      interactive terminal in one kernel (default: the primary;
                                      bash, else sh)
  top SESSION [--no-stream] [--json]  live CPU, memory, net and block I/O per kernel, role and
                                      session (--no-stream: one sample)
  store key export [--output FILE]    print (or write, 0600) the key that encrypts an etcd
                                      store's secrets (made on first use), to share it
  store key import [FILE | -]         keep that key for this console in
                                      $XDG_CONFIG_HOME/clusterdeck/store-keys/<store id>.key

Options:
  --store URL     sqlite:///path/state.db or etcd://host:2379[,host2:2379]/prefix
                  (default: $CLUSTERDECK_STORE, then $XDG_CONFIG_HOME/clusterdeck/config.yaml,
                  then $XDG_DATA_HOME/clusterdeck/state.db)
  -h, --help      show this help
  --version       show the version
)";

// Command groups register here; each lives in its own file.
struct CommandEntry
{
    const char *name;
    CommandFunction run;
};

const CommandEntry kCommands[] = {
    {"", nullptr}, // keeps the array non-empty while groups are added
    {"template", templateCommand},
    {"host", runHostCommand},
    {"network", runNetworkCommand},
    {"launch", launchCommand},
    {"ls", lsCommand},
    {"show", showCommand},
    {"restart", restartCommand},
    {"rm", rmCommand},
    {"scale", scaleCommand},
    {"logs", logsCommand},
    {"reconcile", reconcileCommand},
    {"controller", controllerCommand},
    {"watch", watchCommand},
    {"prune", pruneCommand},
    {"image", imageCommand},
    {"registry", registryCommand},
    {"exec", execCommand},
    {"shell", shellCommand},
    {"top", topCommand},
    {"store", storeCommand},
};

} // namespace

int run(const QStringList &arguments)
{
    QStringList args = arguments.mid(1);
    QString storeOption;
    // Global options come before the command.
    while (!args.isEmpty() && args.first().startsWith(QLatin1Char('-'))) {
        const QString opt = args.takeFirst();
        if (opt == QLatin1String("--help") || opt == QLatin1String("-h")) {
            Context(QString()).out() << kUsage;
            return 0;
        }
        if (opt == QLatin1String("--version")) {
            Context(QString()).out() << "clusterdeckctl " << versionString() << '\n';
            return 0;
        }
        if (opt == QLatin1String("--store")) {
            if (args.isEmpty())
                return Context(QString()).usage(QStringLiteral("--store needs a URL"));
            storeOption = args.takeFirst();
        } else if (opt.startsWith(QLatin1String("--store="))) {
            storeOption = opt.mid(8);
        } else {
            return Context(QString()).usage(
                QStringLiteral("unknown option '%1' (see clusterdeckctl --help)").arg(opt));
        }
    }
    Context context(storeOption);
    if (args.isEmpty()) {
        context.err() << kUsage;
        return 2;
    }
    const QString command = args.takeFirst();
    if (command == QLatin1String("help")) {
        context.out() << kUsage;
        return 0;
    }
    if (command == QLatin1String("version")) {
        context.out() << "clusterdeckctl " << versionString() << '\n';
        return 0;
    }
    for (const CommandEntry &entry : kCommands) {
        if (entry.run && command == QLatin1String(entry.name))
            return entry.run(context, args);
    }
    return context.usage(
        QStringLiteral("unknown command '%1' (see clusterdeckctl --help)").arg(command));
}

} // namespace ClusterDeck::Cli
