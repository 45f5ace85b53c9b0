#include "networkcommands.h"

#include "commandspec.h"
#include "commandsupport.h"
#include "host/hostregistry.h"
#include "host/swarmsetup.h"
#include "network/networksettings.h"
#include "store/statestore.h"

#include <QElapsedTimer>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <optional>

namespace ClusterDeck::Cli {

namespace {

int usage(Context &context, const QString &message)
{
    return context.usage(message + QStringLiteral(" (see clusterdeckctl network --help)"));
}

// The swarm driver's setup, as `network setup` always did: every registered host in one swarm.
int swarmSetup(Context &context, StateStore *store, bool json)
{
    HostRegistry registry(store);
    SwarmSetup setup(&registry);
    QElapsedTimer timer;
    timer.start();
    auto report = setup.run();
    if (!report)
        return context.fail(report.error());

    if (json) {
        QJsonArray hosts;
        for (const SwarmSetup::Entry &e : std::as_const(report->entries))
            hosts.append(QJsonObject{{QStringLiteral("host"), e.host},
                                     {QStringLiteral("action"), SwarmSetup::actionName(e.action)},
                                     {QStringLiteral("detail"), e.detail}});
        const QJsonObject object{
            {QStringLiteral("driver"), networkDriverName(NetworkDriver::Swarm)},
            {QStringLiteral("manager"), report->managerHost},
            {QStringLiteral("cluster_id"), report->clusterId},
            {QStringLiteral("changed"), report->changed()},
            {QStringLiteral("one_swarm"), report->oneSwarm()},
            {QStringLiteral("hosts"), hosts}};
        context.out() << QJsonDocument(object).toJson(QJsonDocument::Indented);
    } else {
        qsizetype nameWidth = 4;
        for (const SwarmSetup::Entry &e : std::as_const(report->entries))
            nameWidth = std::max(nameWidth, e.host.size());
        for (const SwarmSetup::Entry &e : std::as_const(report->entries)) {
            context.out() << e.host.leftJustified(nameWidth + 2)
                          << SwarmSetup::actionName(e.action).leftJustified(17);
            QString detail = e.detail;
            detail.replace(QLatin1Char('\n'), QStringLiteral("; "));
            context.out() << detail << '\n';
        }
        if (!report->managerHost.isEmpty())
            context.out() << "swarm " << report->clusterId.left(12) << " managed by "
                          << report->managerHost << ": "
                          << (report->changed() ? QStringLiteral("changed")
                                                : QStringLiteral("no change"))
                          << " (" << timer.elapsed() << " ms)\n";
    }
    context.out().flush();
    if (!report->oneSwarm()) {
        QStringList problems;
        for (const SwarmSetup::Entry &e : std::as_const(report->entries)) {
            if (e.action == SwarmSetup::Action::DifferentSwarm ||
                e.action == SwarmSetup::Action::Failed)
                problems.append(e.host + QStringLiteral(" ") + SwarmSetup::actionName(e.action));
        }
        return context.fail(QStringLiteral("not all reachable hosts are in one swarm (%1)")
                                .arg(problems.join(QStringLiteral(", "))));
    }
    return 0;
}

// The raw values of the network settings, to tell whether `network setup` changed any.
Result<QStringList> rawSettings(StateStore &store)
{
    QStringList values;
    for (const char *key : {NetworkSettings::kDriverKey, NetworkSettings::kPoolKey,
                            NetworkSettings::kVnisKey, NetworkSettings::kVxlanPortKey}) {
        auto value = store.setting(QString::fromLatin1(key));
        if (!value)
            return fail(value.error());
        values.append(*value);
    }
    return values;
}

// What the store uses now: the driver, the pool, the VNIs and the port, and what the hosts need.
int printSettings(Context &context, const NetworkSettings::Values &v, bool json,
                  std::optional<bool> changed = {})
{
    const OverlayPool defaults = OverlayPool::defaults();
    const QString vnis = QStringLiteral("%1-%2").arg(v.pool.firstVni()).arg(v.pool.lastVni());
    if (json) {
        QJsonObject object{{QStringLiteral("driver"), networkDriverName(v.driver)},
                           {QStringLiteral("pool"), v.pool.range().toString()},
                           {QStringLiteral("vnis"), vnis},
                           {QStringLiteral("vxlan_port"), v.vxlanPort}};
        if (changed)
            object.insert(QStringLiteral("changed"), *changed);
        context.out() << QJsonDocument(object).toJson(QJsonDocument::Indented);
        context.out().flush();
        return 0;
    }
    auto line = [&](const char *name, const QString &value, bool isDefault) {
        context.out() << QString::fromLatin1(name).leftJustified(12) << value
                      << (isDefault ? QStringLiteral(" (default)") : QString()) << '\n';
    };
    line("driver", networkDriverName(v.driver), v.driver == NetworkDriver::Vxlan);
    line("pool",
         QStringLiteral("%1 (%2 subnets of /24, one per multi-node session)")
             .arg(v.pool.range().toString())
             .arg(v.pool.subnetCount()),
         v.pool.range() == defaults.range());
    line("vnis", vnis,
         v.pool.firstVni() == defaults.firstVni() && v.pool.lastVni() == defaults.lastVni());
    line("vxlan-port", QStringLiteral("%1/udp").arg(v.vxlanPort),
         v.vxlanPort == NetworkSettings::kDefaultVxlanPort);
    if (v.driver == NetworkDriver::Vxlan)
        context.out() << "Multi-node sessions use ClusterDeck's VXLAN overlay: no swarm, nothing "
                         "to set up on the hosts. The hosts need UDP port "
                      << v.vxlanPort << " open between them.\n";
    else
        context.out() << "Multi-node sessions use a Docker Swarm overlay: run clusterdeckctl "
                         "network setup after adding hosts (idempotent).\n";
    if (changed)
        context.out() << (*changed ? "Settings saved.\n" : "No change.\n");
    context.out().flush();
    return 0;
}

int setup(Context &context, const QStringList &args)
{
    Args a;
    if (const auto stop = parseArgs(context, args, QStringLiteral("network setup"), &a))
        return *stop;
    if (!a.positional.isEmpty())
        return usage(context, QStringLiteral("unexpected argument '%1'").arg(a.positional.first()));
    const bool json = a.has(QStringLiteral("--json"));
    const QString driverOption = QStringLiteral("--driver");
    const QString poolOption = QStringLiteral("--pool");
    const QString vnisOption = QStringLiteral("--vnis");
    const QString portOption = QStringLiteral("--vxlan-port");

    // Every value is checked before anything is written.
    std::optional<NetworkDriver> driver;
    if (a.values.contains(driverOption)) {
        auto parsed = NetworkSettings::parseDriver(a.value(driverOption), driverOption);
        if (!parsed)
            return usage(context, parsed.error().toString());
        driver = *parsed;
    }
    const bool poolGiven = a.values.contains(poolOption);
    const bool vnisGiven = a.values.contains(vnisOption);
    if (poolGiven) {
        if (a.value(poolOption).trimmed().isEmpty())
            return usage(context, QStringLiteral("--pool needs an IPv4 range (like %1)")
                                      .arg(QLatin1StringView(OverlayPool::kDefaultSubnets)));
        if (auto ok = OverlayPool::parse(a.value(poolOption), QString()); !ok)
            return usage(context, QStringLiteral("--pool: ") + ok.error().message);
    }
    if (vnisGiven) {
        if (a.value(vnisOption).trimmed().isEmpty())
            return usage(context, QStringLiteral("--vnis needs a VXLAN id range (like %1-%2)")
                                      .arg(OverlayPool::kDefaultFirstVni)
                                      .arg(OverlayPool::kMaxVni));
        if (auto ok = OverlayPool::parse(QString(), a.value(vnisOption)); !ok)
            return usage(context, QStringLiteral("--vnis: ") + ok.error().message);
    }
    std::optional<int> port;
    if (a.values.contains(portOption)) {
        auto parsed = NetworkSettings::parseVxlanPort(a.value(portOption), portOption);
        if (!parsed)
            return usage(context, parsed.error().toString());
        port = *parsed;
    }

    auto store = context.store();
    if (!store)
        return context.fail(store.error());
    StateStore &s = **store;
    // What the store says where no option does (a stored value that does not parse stops here,
    // before anything is written, unless this very call replaces it).
    if (!driver) {
        auto current = NetworkSettings::driver(s);
        if (!current)
            return context.fail(current.error());
        driver = *current;
    }
    QString subnets;
    QString vnis;
    if (poolGiven || vnisGiven) {
        auto storedPool = s.setting(QString::fromLatin1(NetworkSettings::kPoolKey));
        auto storedVnis = s.setting(QString::fromLatin1(NetworkSettings::kVnisKey));
        if (!storedPool)
            return context.fail(storedPool.error());
        if (!storedVnis)
            return context.fail(storedVnis.error());
        subnets = poolGiven ? a.value(poolOption) : *storedPool;
        vnis = vnisGiven ? a.value(vnisOption) : *storedVnis;
        if (auto ok = OverlayPool::parse(subnets, vnis); !ok)
            return context.fail(ok.error().withContext(
                QStringLiteral("with the stored %1")
                    .arg(QString::fromLatin1(poolGiven ? NetworkSettings::kVnisKey
                                                       : NetworkSettings::kPoolKey))));
    }
    auto before = rawSettings(s);
    if (!before)
        return context.fail(before.error());

    if (a.values.contains(driverOption)) {
        if (auto ok = NetworkSettings::setDriver(s, *driver); !ok)
            return context.fail(ok.error());
    }
    if (poolGiven || vnisGiven) {
        if (auto ok = NetworkSettings::setPool(s, subnets, vnis); !ok)
            return context.fail(ok.error());
    }
    if (port) {
        if (auto ok = NetworkSettings::setVxlanPort(s, *port); !ok)
            return context.fail(ok.error());
    }

    if (*driver == NetworkDriver::Swarm)
        return swarmSetup(context, &s, json);
    auto after = rawSettings(s);
    if (!after)
        return context.fail(after.error());
    auto values = NetworkSettings::read(s);
    if (!values)
        return context.fail(values.error());
    return printSettings(context, *values, json, *before != *after);
}

int show(Context &context, const QStringList &args)
{
    Args a;
    if (const auto stop = parseArgs(context, args, QStringLiteral("network show"), &a))
        return *stop;
    if (!a.positional.isEmpty())
        return usage(context, QStringLiteral("unexpected argument '%1'").arg(a.positional.first()));
    auto store = context.store();
    if (!store)
        return context.fail(store.error());
    auto values = NetworkSettings::read(**store);
    if (!values)
        return context.fail(values.error());
    return printSettings(context, *values, a.has(QStringLiteral("--json")));
}

} // namespace

int runNetworkCommand(Context &context, const QStringList &args)
{
    if (args.isEmpty())
        return usage(context, QStringLiteral("network needs a subcommand: setup or show"));
    if (args.first() == QLatin1String("setup"))
        return setup(context, args.mid(1));
    if (args.first() == QLatin1String("show"))
        return show(context, args.mid(1));
    if (args.first() == QLatin1String("--help") || args.first() == QLatin1String("-h")) {
        context.out() << groupHelpText(QStringLiteral("network"));
        return 0;
    }
    return usage(context, QStringLiteral("unknown network subcommand '%1'").arg(args.first()));
}

} // namespace ClusterDeck::Cli
