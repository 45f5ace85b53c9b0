#include "hostcommands.h"
#include "common/bytesize.h"

#include "columns.h"
#include "commandspec.h"
#include "commandsupport.h"
#include "docker/dockerendpoint.h"
#include "host/dockercontexts.h"
#include "host/hostinspector.h"
#include "host/hostregistry.h"
#include "host/hoststatus.h"
#include "host/hoststatusjson.h"
#include "store/statestore.h"

#include <algorithm>

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

namespace ClusterDeck::Cli {

namespace {

int usage(Context &context, const QString &message)
{
    return context.usage(message);
}

QString cpus(double value)
{
    return QString::number(value, 'g', 4);
}

// `--timeout SECONDS`: each host's budget for answering (default 5 s).
bool parseTimeout(const Args &options, std::chrono::milliseconds &timeout, QString &error)
{
    const QString text = options.value(QStringLiteral("--timeout"));
    if (text.isEmpty())
        return true;
    bool ok = false;
    const double seconds = text.toDouble(&ok);
    if (!ok || seconds <= 0 || seconds > 3600) {
        error = QStringLiteral("--timeout needs a number of seconds, not '%1'").arg(text);
        return false;
    }
    timeout = std::chrono::milliseconds(qint64(seconds * 1000));
    return true;
}

QString swarmText(const HostStatus &s)
{
    if (!s.reachable)
        return QStringLiteral("-");
    if (s.swarmState == QLatin1String("active"))
        return s.swarmRole;
    return s.swarmState;
}

int add(Context &context, const QStringList &args)
{
    Args options;
    if (const auto stop = parseArgs(context, args, QStringLiteral("host add"), &options))
        return *stop;
    HostRecord host;
    const QString contextName = options.value(QStringLiteral("--context"));
    if (!contextName.isEmpty()) {
        const QStringList excluded = {QStringLiteral("--docker"), QStringLiteral("--tls-ca"),
                                      QStringLiteral("--tls-cert"), QStringLiteral("--tls-key")};
        if (std::any_of(excluded.cbegin(), excluded.cend(),
                        [&](const QString &key) { return !options.value(key).isEmpty(); }))
            return usage(context, QStringLiteral("host add takes --context or --docker and TLS "
                                                 "files, not both"));
        auto found = DockerContexts::find(DockerContexts::configDir(), contextName);
        if (!found)
            return context.fail(found.error());
        auto record = DockerContexts::hostRecord(*found, QString());
        if (!record)
            return context.fail(record.error());
        host = *record;
    } else {
        host.endpoint = options.value(QStringLiteral("--docker"));
        host.tlsCa = options.value(QStringLiteral("--tls-ca"));
        host.tlsCert = options.value(QStringLiteral("--tls-cert"));
        host.tlsKey = options.value(QStringLiteral("--tls-key"));
    }
    host.publicAddress = options.value(QStringLiteral("--address"));
    const QStringList labels = options.all(QStringLiteral("--label"));
    const bool noCheck = options.has(QStringLiteral("--no-check"));
    const QStringList words = options.positional;
    if (words.size() != 1)
        return usage(context, words.isEmpty() ? QStringLiteral("host add needs a NAME")
                                              : QStringLiteral("host add takes one NAME"));
    if (host.endpoint.isEmpty())
        return usage(context, QStringLiteral("host add needs --docker ENDPOINT or --context CTX"));
    host.name = words.first();
    for (const QString &text : std::as_const(labels)) {
        auto label = HostRegistry::parseLabel(text);
        if (!label)
            return context.fail(label.error());
        host.labels.insert(label->first, label->second);
    }
    // Validate before opening the store, so a typo is reported as such.
    if (auto valid = HostRegistry::validate(host); !valid)
        return context.fail(valid.error());

    auto store = context.store();
    if (!store)
        return context.fail(store.error());
    HostRegistry registry(*store);
    HostRegistry::AddOptions addOptions;
    addOptions.testConnection = !noCheck;
    auto added = registry.add(host, addOptions);
    if (!added)
        return context.fail(added.error());
    context.out() << "added host " << added->name << " (" << added->endpoint << ")\n";
    return 0;
}

// Every docker CLI context as a host of its name: added, or skipped with the reason (registered
// already, an endpoint ClusterDeck cannot use, a daemon that does not answer). Exit 1 when one
// could have been added and was not.
int importContexts(Context &context, const QStringList &args)
{
    Args options;
    if (const auto stop =
            parseArgs(context, args, QStringLiteral("host import-contexts"), &options))
        return *stop;
    if (!options.positional.isEmpty())
        return usage(context, QStringLiteral("host import-contexts takes no arguments"));
    const QString dir = DockerContexts::configDir();
    auto contexts = DockerContexts::list(dir);
    if (!contexts)
        return context.fail(contexts.error());
    if (contexts->isEmpty()) {
        context.out() << "no docker contexts in " << dir << "\n";
        return 0;
    }
    auto store = context.store();
    if (!store)
        return context.fail(store.error());
    HostRegistry registry(*store);
    auto known = registry.list();
    if (!known)
        return context.fail(known.error());
    HostRegistry::AddOptions addOptions;
    addOptions.testConnection = !options.has(QStringLiteral("--no-check"));
    int failed = 0;
    for (const DockerContexts::Context &c : std::as_const(*contexts)) {
        const auto same = std::find_if(known->cbegin(), known->cend(),
                                       [&](const HostRecord &h) { return h.name == c.name; });
        if (same != known->cend()) {
            context.out() << "skipped " << c.name << ": registered already (" << same->endpoint
                          << ")\n";
            continue;
        }
        if (auto name = HostRegistry::validateName(c.name); !name) {
            context.out() << "skipped " << c.name << ": " << name.error().message << "\n";
            continue;
        }
        auto record = DockerContexts::hostRecord(c, c.name);
        if (record)
            record = HostRegistry::validate(*record); // the canonical endpoint, as stored
        if (!record) {
            context.out() << "skipped " << c.name << ": " << record.error().message << "\n";
            continue;
        }
        const auto sameEndpoint =
            std::find_if(known->cbegin(), known->cend(),
                         [&](const HostRecord &h) { return h.endpoint == record->endpoint; });
        if (sameEndpoint != known->cend()) {
            context.out() << "skipped " << c.name << ": " << record->endpoint
                          << " is registered already as " << sameEndpoint->name << "\n";
            continue;
        }
        auto added = registry.add(*record, addOptions);
        if (!added) {
            context.out() << "failed " << c.name << ": " << added.error().toString() << "\n";
            ++failed;
            continue;
        }
        context.out() << "added host " << added->name << " (" << added->endpoint << ")\n";
        known->append(*added);
    }
    return failed == 0 ? 0 : 1;
}

int list(Context &context, const QStringList &args)
{
    Args options;
    if (const auto stop = parseArgs(context, args, QStringLiteral("host ls"), &options))
        return *stop;
    const bool json = options.has(QStringLiteral("--json"));
    const QStringList words = options.positional;
    QString error;
    std::chrono::milliseconds timeout{5000};
    if (!parseTimeout(options, timeout, error))
        return usage(context, error);
    if (!words.isEmpty())
        return usage(context, QStringLiteral("host ls takes no arguments"));
    auto store = context.store();
    if (!store)
        return context.fail(store.error());
    HostRegistry registry(*store);
    HostInspector inspector(&registry, timeout);
    inspector.setListImages(json);

    auto statuses = inspector.inspectAll();
    if (!statuses)
        return context.fail(statuses.error());

    // What the controller has seen of each host (up/down and since when), if one ever ran.
    QMap<QString, HostHealth> health;
    if (auto status = (*store)->controllerStatus(); status && *status)
        health = (*status)->hosts;
    // One word per cell, so that scripts can split the table on blanks; `--json` has the time.
    auto healthText = [&](const QString &host) {
        if (!health.contains(host))
            return QStringLiteral("-");
        return health.value(host).up ? QStringLiteral("up") : QStringLiteral("down");
    };

    if (json) {
        QJsonArray array;
        for (const HostStatus &s : std::as_const(*statuses)) {
            QJsonObject o = HostStatusJson::toJson(s);
            if (health.contains(s.host.name)) {
                const HostHealth h = health.value(s.host.name);
                QJsonObject c{{QStringLiteral("up"), h.up},
                              {QStringLiteral("since"), h.since.toString(Qt::ISODateWithMs)}};
                if (!h.reason.isEmpty())
                    c.insert(QStringLiteral("reason"), h.reason);
                o.insert(QStringLiteral("controller"), c);
            }
            array.append(o);
        }
        context.out() << QJsonDocument(array).toJson(QJsonDocument::Indented);
        return 0;
    }
    const QStringList header{
        QStringLiteral("NAME"),    QStringLiteral("ENDPOINT"), QStringLiteral("REACHABLE"),
        QStringLiteral("VERSION"), QStringLiteral("SWARM"),    QStringLiteral("CPUS"),
        QStringLiteral("MEMORY"),  QStringLiteral("KERNELS"),  QStringLiteral("CONTROLLER")};
    QList<QStringList> rows{header};
    for (const HostStatus &s : std::as_const(*statuses)) {
        rows.append({s.host.name, s.host.endpoint,
                     s.reachable ? QStringLiteral("yes") : QStringLiteral("no"),
                     s.reachable ? s.dockerVersion : QStringLiteral("-"), swarmText(s),
                     cpus(s.allocated.cpus) + u'/' +
                         (s.reachable ? QString::number(s.ncpu) : QStringLiteral("-")),
                     formatBytesCompact(s.allocated.memoryBytes) + u'/' +
                         (s.reachable ? formatBytesCompact(s.memTotal) : QStringLiteral("-")),
                     QString::number(s.allocated.kernels), healthText(s.host.name)});
    }
    for (const QString &line : alignColumns(rows))
        context.out() << line << '\n';
    // Why a host is unreachable belongs next to the table, not squeezed into it.
    for (const HostStatus &s : std::as_const(*statuses)) {
        if (!s.reachable)
            context.out() << s.host.name << ": unreachable: " << s.error << '\n';
        else if (health.contains(s.host.name) && !health.value(s.host.name).up)
            context.out() << s.host.name << ": the controller saw it down since "
                          << health.value(s.host.name)
                                 .since.toLocalTime()
                                 .toString(QStringLiteral("yyyy-MM-dd HH:mm:ss"))
                          << ": " << health.value(s.host.name).reason << '\n';
    }
    return 0;
}

int remove(Context &context, const QStringList &args)
{
    Args options;
    if (const auto stop = parseArgs(context, args, QStringLiteral("host rm"), &options))
        return *stop;
    const QStringList words = options.positional;
    if (words.size() != 1)
        return usage(context, QStringLiteral("host rm takes one NAME"));
    auto store = context.store();
    if (!store)
        return context.fail(store.error());
    HostRegistry registry(*store);
    if (auto removed = registry.remove(words.first()); !removed)
        return context.fail(removed.error());
    context.out() << "removed host " << words.first() << '\n';
    return 0;
}

int inspect(Context &context, const QStringList &args)
{
    Args options;
    if (const auto stop = parseArgs(context, args, QStringLiteral("host inspect"), &options))
        return *stop;
    const bool json = options.has(QStringLiteral("--json"));
    QString error;
    std::chrono::milliseconds timeout{5000};
    if (!parseTimeout(options, timeout, error))
        return usage(context, error);
    const QStringList words = options.positional;
    if (words.size() != 1)
        return usage(context, QStringLiteral("host inspect takes one NAME"));
    auto store = context.store();
    if (!store)
        return context.fail(store.error());
    HostRegistry registry(*store);
    HostInspector inspector(&registry, timeout);
    auto status = inspector.inspect(words.first());
    if (!status)
        return context.fail(status.error());
    if (json) {
        context.out()
            << QJsonDocument(HostStatusJson::toJson(*status)).toJson(QJsonDocument::Indented);
        return 0;
    }
    const HostStatus &s = *status;
    QTextStream &out = context.out();
    auto line = [&out](const char *key, const QString &value) {
        out << QString::fromLatin1(key).leftJustified(16) << value << '\n';
    };
    line("name:", s.host.name);
    line("endpoint:", s.host.endpoint);
    if (!s.host.tlsCa.isEmpty() || !s.host.tlsCert.isEmpty())
        line("tls:", QStringLiteral("ca %1, cert %2, key %3")
                         .arg(s.host.tlsCa, s.host.tlsCert, s.host.tlsKey));
    line("address:", s.host.publicAddress.isEmpty() ? QStringLiteral("-") : s.host.publicAddress);
    QStringList labels;
    for (auto it = s.host.labels.cbegin(); it != s.host.labels.cend(); ++it)
        labels.append(it.key() + u'=' + it.value());
    line("labels:", labels.isEmpty() ? QStringLiteral("-") : labels.join(QStringLiteral(", ")));
    line("added:", s.host.addedAt.toUTC().toString(Qt::ISODate));
    line("reachable:", s.reachable ? QStringLiteral("yes") : QStringLiteral("no: %1").arg(s.error));
    if (s.reachable) {
        line("docker:", s.dockerVersion);
        line("api:", QStringLiteral("%1 (daemon %2)").arg(s.apiVersion, s.daemonApiVersion));
        line("os:", s.operatingSystem);
        QString swarm = s.swarmState;
        if (!s.swarmRole.isEmpty())
            swarm += QStringLiteral(", %1, node %2 (%3)")
                         .arg(s.swarmRole, s.swarmNodeId, s.swarmNodeAddr);
        if (!s.swarmClusterId.isEmpty())
            swarm += QStringLiteral(", cluster %1").arg(s.swarmClusterId);
        line("swarm:", swarm);
        line("cpus:", QString::number(s.ncpu));
        line("memory:",
             QStringLiteral("%1 (%2 bytes)").arg(formatBytes(s.memTotal)).arg(s.memTotal));
    }
    line("allocated:", QStringLiteral("%1 kernels, %2 cpus, %3 memory")
                           .arg(s.allocated.kernels)
                           .arg(cpus(s.allocated.cpus), formatBytes(s.allocated.memoryBytes)));
    if (s.reachable) {
        line("images:",
             s.images.isEmpty() ? QStringLiteral("-") : s.images.join(QStringLiteral(", ")));
        if (!s.error.isEmpty())
            line("warning:", s.error);
    }
    return 0;
}

// The SSH host keys an ssh:// endpoint's host presents, with fingerprints; --yes adds them to the
// known_hosts file ssh uses for it (what the Add Host dialog's "Trust" does).
int trust(Context &context, const QStringList &args)
{
    Args options;
    if (const auto stop = parseArgs(context, args, QStringLiteral("host trust"), &options))
        return *stop;
    if (options.positional.size() != 1)
        return usage(context, QStringLiteral("host trust takes one ssh:// endpoint"));
    auto endpoint = Docker::DockerEndpoint::parse(options.positional.constFirst());
    if (!endpoint)
        return context.fail(endpoint.error());
    if (endpoint->kind() != Docker::DockerEndpoint::Kind::Ssh)
        return usage(context, QStringLiteral("host trust is for ssh:// endpoints"));
    const Http::SshTarget target = endpoint->sshTarget();
    auto keys = Http::SshTunnel::scanHostKeys(target);
    if (!keys)
        return context.fail(keys.error());
    for (const Http::SshTunnel::HostKey &k : std::as_const(*keys))
        context.out() << target.host << " presents " << k.type << ' ' << k.fingerprint << '\n';
    if (!options.has(QStringLiteral("--yes"))) {
        context.out() << "compare with the host's own (ssh-keygen -lf "
                         "/etc/ssh/ssh_host_ed25519_key.pub there); to trust: clusterdeckctl "
                         "host trust "
                      << endpoint->url() << " --yes\n";
        return 0;
    }
    auto file = Http::SshTunnel::trustHostKeys(target, *keys);
    if (!file)
        return context.fail(file.error());
    context.out() << "added " << keys->size() << " key(s) to " << *file << '\n';
    return 0;
}

} // namespace

int runHostCommand(Context &context, const QStringList &args)
{
    if (args.isEmpty())
        return usage(context, QStringLiteral("host needs a subcommand: add, import-contexts, "
                                             "trust, ls, rm or inspect"));
    const QString sub = args.first();
    const QStringList rest = args.mid(1);
    if (sub == QLatin1String("add"))
        return add(context, rest);
    if (sub == QLatin1String("import-contexts"))
        return importContexts(context, rest);
    if (sub == QLatin1String("trust"))
        return trust(context, rest);
    if (sub == QLatin1String("ls") || sub == QLatin1String("list"))
        return list(context, rest);
    if (sub == QLatin1String("rm") || sub == QLatin1String("remove"))
        return remove(context, rest);
    if (sub == QLatin1String("inspect"))
        return inspect(context, rest);
    if (sub == QLatin1String("--help") || sub == QLatin1String("-h")) {
        context.out() << groupHelpText(QStringLiteral("host"));
        return 0;
    }
    return usage(
        context,
        QStringLiteral("unknown host subcommand '%1' (see clusterdeckctl host --help)").arg(sub));
}

} // namespace ClusterDeck::Cli
