#include "hostcommands.h"

#include "columns.h"
#include "host/hostinspector.h"
#include "host/hostregistry.h"
#include "host/hoststatus.h"
#include "store/statestore.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLoggingCategory>

namespace ClusterDeck::Cli {

namespace {

const char *const kHostUsage =
    "Usage: clusterdeckctl host add NAME --docker ENDPOINT [--tls-ca F --tls-cert F --tls-key F]\n"
    "                               [--address PUBLIC_ADDR] [--label K=V]... [--no-check]\n"
    "       clusterdeckctl host ls [--json] [--timeout SECONDS]\n"
    "       clusterdeckctl host rm NAME\n"
    "       clusterdeckctl host inspect NAME [--json] [--timeout SECONDS]\n";

// A small option reader: `--name value` and `--name=value`, flags, and positional words.
class Options
{
public:
    explicit Options(QStringList args)
        : m_args(std::move(args))
    {}

    // Takes the value of `name`; false when the option is present without a value.
    bool take(const QString &name, QStringList &values)
    {
        for (qsizetype i = 0; i < m_args.size();) {
            const QString &arg = m_args.at(i);
            if (arg == name) {
                if (i + 1 >= m_args.size()) {
                    m_error = QStringLiteral("%1 needs a value").arg(name);
                    return false;
                }
                values.append(m_args.at(i + 1));
                m_args.remove(i, 2);
            } else if (arg.startsWith(name + QLatin1Char('='))) {
                values.append(arg.mid(name.size() + 1));
                m_args.remove(i);
            } else {
                ++i;
            }
        }
        return true;
    }
    bool takeOne(const QString &name, QString &value)
    {
        QStringList values;
        if (!take(name, values))
            return false;
        if (values.size() > 1) {
            m_error = QStringLiteral("%1 given more than once").arg(name);
            return false;
        }
        value = values.value(0);
        return true;
    }
    bool flag(const QString &name) { return m_args.removeAll(name) > 0; }
    // What is left must be positional words: none starting with '-'.
    bool positional(QStringList &words)
    {
        for (const QString &arg : std::as_const(m_args)) {
            if (arg.startsWith(QLatin1Char('-')) && arg.size() > 1) {
                m_error = QStringLiteral("unknown option '%1'").arg(arg);
                return false;
            }
        }
        words = m_args;
        return true;
    }
    QString error() const { return m_error; }

private:
    QStringList m_args;
    QString m_error;
};

int usage(Context &context, const QString &message)
{
    context.err() << "error: " << message << '\n' << kHostUsage;
    context.err().flush();
    return 2;
}

QString humanBytes(qint64 bytes)
{
    if (bytes <= 0)
        return QStringLiteral("0");
    const char *const units[] = {"B", "K", "M", "G", "T"};
    double value = double(bytes);
    int unit = 0;
    while (value >= 1024 && unit < 4) {
        value /= 1024;
        ++unit;
    }
    return unit == 0 ? QStringLiteral("%1B").arg(bytes)
                     : QString::number(value, 'f', value < 10 ? 1 : 0) + QLatin1String(units[unit]);
}

QString cpus(double value)
{
    return QString::number(value, 'g', 4);
}

// `--timeout SECONDS`: each host's budget for answering (default 5 s).
bool parseTimeout(Options &options, std::chrono::milliseconds &timeout, QString &error)
{
    QString text;
    if (!options.takeOne(QStringLiteral("--timeout"), text)) {
        error = options.error();
        return false;
    }
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
    Options options(args);
    HostRecord host;
    QStringList labels;
    if (!options.takeOne(QStringLiteral("--docker"), host.endpoint) ||
        !options.takeOne(QStringLiteral("--tls-ca"), host.tlsCa) ||
        !options.takeOne(QStringLiteral("--tls-cert"), host.tlsCert) ||
        !options.takeOne(QStringLiteral("--tls-key"), host.tlsKey) ||
        !options.takeOne(QStringLiteral("--address"), host.publicAddress) ||
        !options.take(QStringLiteral("--label"), labels))
        return usage(context, options.error());
    const bool noCheck = options.flag(QStringLiteral("--no-check"));
    QStringList words;
    if (!options.positional(words))
        return usage(context, options.error());
    if (words.size() != 1)
        return usage(context, words.isEmpty() ? QStringLiteral("host add needs a NAME")
                                              : QStringLiteral("host add takes one NAME"));
    if (host.endpoint.isEmpty())
        return usage(context, QStringLiteral("host add needs --docker ENDPOINT"));
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

int list(Context &context, const QStringList &args)
{
    Options options(args);
    const bool json = options.flag(QStringLiteral("--json"));
    QStringList words;
    QString error;
    std::chrono::milliseconds timeout{5000};
    if (!parseTimeout(options, timeout, error))
        return usage(context, error);
    if (!options.positional(words))
        return usage(context, options.error());
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
    auto healthText = [&](const QString &host) {
        if (!health.contains(host))
            return QStringLiteral("-");
        const HostHealth h = health.value(host);
        return QString((h.up ? QStringLiteral("up since ") : QStringLiteral("down since ")) +
                       h.since.toLocalTime().toString(QStringLiteral("yyyy-MM-dd HH:mm:ss")));
    };

    if (json) {
        QJsonArray array;
        for (const HostStatus &s : std::as_const(*statuses)) {
            QJsonObject o = hostStatusToJson(s);
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
        QStringLiteral("MEMORY"),  QStringLiteral("KERNELS"),  QStringLiteral("CONTROLLER SEES")};
    QList<QStringList> rows{header};
    for (const HostStatus &s : std::as_const(*statuses)) {
        rows.append({s.host.name, s.host.endpoint,
                     s.reachable ? QStringLiteral("yes") : QStringLiteral("no"),
                     s.reachable ? s.dockerVersion : QStringLiteral("-"), swarmText(s),
                     cpus(s.allocated.cpus) + u'/' +
                         (s.reachable ? QString::number(s.ncpu) : QStringLiteral("-")),
                     humanBytes(s.allocated.memoryBytes) + u'/' +
                         (s.reachable ? humanBytes(s.memTotal) : QStringLiteral("-")),
                     QString::number(s.allocated.kernels), healthText(s.host.name)});
    }
    for (const QString &line : alignColumns(rows))
        context.out() << line << '\n';
    // Why a host is unreachable belongs next to the table, not squeezed into it.
    for (const HostStatus &s : std::as_const(*statuses)) {
        if (!s.reachable)
            context.out() << s.host.name << ": unreachable: " << s.error << '\n';
        else if (health.contains(s.host.name) && !health.value(s.host.name).up)
            context.out() << s.host.name << ": the controller last saw it down: "
                          << health.value(s.host.name).reason << '\n';
    }
    return 0;
}

int remove(Context &context, const QStringList &args)
{
    Options options(args);
    QStringList words;
    if (!options.positional(words))
        return usage(context, options.error());
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
    Options options(args);
    const bool json = options.flag(QStringLiteral("--json"));
    QString error;
    std::chrono::milliseconds timeout{5000};
    if (!parseTimeout(options, timeout, error))
        return usage(context, error);
    QStringList words;
    if (!options.positional(words))
        return usage(context, options.error());
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
        context.out() << QJsonDocument(hostStatusToJson(*status)).toJson(QJsonDocument::Indented);
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
             QStringLiteral("%1 (%2 bytes)").arg(humanBytes(s.memTotal)).arg(s.memTotal));
    }
    line("allocated:", QStringLiteral("%1 kernels, %2 cpus, %3 memory")
                           .arg(s.allocated.kernels)
                           .arg(cpus(s.allocated.cpus), humanBytes(s.allocated.memoryBytes)));
    if (s.reachable) {
        line("images:",
             s.images.isEmpty() ? QStringLiteral("-") : s.images.join(QStringLiteral(", ")));
        if (!s.error.isEmpty())
            line("warning:", s.error);
    }
    return 0;
}

} // namespace

QJsonObject hostStatusToJson(const HostStatus &s)
{
    QJsonObject labels;
    for (auto it = s.host.labels.cbegin(); it != s.host.labels.cend(); ++it)
        labels.insert(it.key(), it.value());
    QJsonObject object{
        {QStringLiteral("name"), s.host.name},
        {QStringLiteral("endpoint"), s.host.endpoint},
        {QStringLiteral("address"), s.host.publicAddress},
        {QStringLiteral("labels"), labels},
        {QStringLiteral("added_at"), s.host.addedAt.toUTC().toString(Qt::ISODateWithMs)},
        {QStringLiteral("reachable"), s.reachable},
        {QStringLiteral("error"), s.error},
        {QStringLiteral("allocated"),
         QJsonObject{{QStringLiteral("kernels"), s.allocated.kernels},
                     {QStringLiteral("cpus"), s.allocated.cpus},
                     {QStringLiteral("memory"), double(s.allocated.memoryBytes)}}},
    };
    if (!s.host.tlsCa.isEmpty() || !s.host.tlsCert.isEmpty() || !s.host.tlsKey.isEmpty())
        object.insert(QStringLiteral("tls"), QJsonObject{{QStringLiteral("ca"), s.host.tlsCa},
                                                         {QStringLiteral("cert"), s.host.tlsCert},
                                                         {QStringLiteral("key"), s.host.tlsKey}});
    if (s.reachable) {
        object.insert(QStringLiteral("docker_version"), s.dockerVersion);
        object.insert(QStringLiteral("api_version"), s.apiVersion);
        object.insert(QStringLiteral("daemon_api_version"), s.daemonApiVersion);
        object.insert(QStringLiteral("os"), s.operatingSystem);
        object.insert(QStringLiteral("ncpu"), s.ncpu);
        object.insert(QStringLiteral("mem_total"), double(s.memTotal));
        object.insert(QStringLiteral("swarm"),
                      QJsonObject{{QStringLiteral("state"), s.swarmState},
                                  {QStringLiteral("role"), s.swarmRole},
                                  {QStringLiteral("node_id"), s.swarmNodeId},
                                  {QStringLiteral("node_addr"), s.swarmNodeAddr},
                                  {QStringLiteral("cluster_id"), s.swarmClusterId}});
        object.insert(QStringLiteral("images"), QJsonArray::fromStringList(s.images));
    }
    object.insert(QStringLiteral("elapsed_ms"), double(s.elapsedMs));
    return object;
}

int runHostCommand(Context &context, const QStringList &args)
{
    // Progress goes to debug logging; scripts read stdout/stderr (QT_LOGGING_RULES still wins).
    QLoggingCategory::setFilterRules(QStringLiteral("clusterdeck.*.debug=false"));
    if (args.isEmpty())
        return usage(context, QStringLiteral("host needs a subcommand: add, ls, rm or inspect"));
    const QString sub = args.first();
    const QStringList rest = args.mid(1);
    if (sub == QLatin1String("add"))
        return add(context, rest);
    if (sub == QLatin1String("ls") || sub == QLatin1String("list"))
        return list(context, rest);
    if (sub == QLatin1String("rm") || sub == QLatin1String("remove"))
        return remove(context, rest);
    if (sub == QLatin1String("inspect"))
        return inspect(context, rest);
    if (sub == QLatin1String("--help") || sub == QLatin1String("-h")) {
        context.out() << kHostUsage;
        return 0;
    }
    return usage(context, QStringLiteral("unknown host subcommand '%1'").arg(sub));
}

} // namespace ClusterDeck::Cli
