#include "placement/placement.h"
#include "template/templatevalues.h"

#include <QTest>

#include <limits>

using namespace ClusterDeck;

using HostCounts = QMap<QString, int>;
Q_DECLARE_METATYPE(HostCapacity)

namespace {

constexpr qint64 GiB = 1024LL * 1024 * 1024;

// A plan of `counts` kernels per role, each asking for `cpus` and `mem`.
ClusterPlan makePlan(ClusterMode mode, const QList<QPair<QString, int>> &counts, double cpus,
                     qint64 mem, const QMap<QString, QMap<QString, QString>> &roleLabels = {})
{
    ClusterPlan plan;
    plan.mode = mode;
    int rank = 0;
    for (const auto &[role, count] : counts) {
        plan.roles.append({role, count});
        for (int i = 1; i <= count; ++i) {
            KernelSpec k;
            k.role = role;
            k.roleIdx = i;
            k.localRank = rank++;
            k.hostname = role + QString::number(i);
            k.resources.cpus = cpus;
            k.resources.memoryBytes = mem;
            k.hostLabels = roleLabels.value(role);
            plan.kernels.append(k);
        }
    }
    plan.kernels.first().primary = true;
    return plan;
}

HostCapacity host(const QString &name, int ncpu, qint64 mem, double usedCpu = 0,
                  bool manager = false, const QString &swarm = QStringLiteral("S1"))
{
    HostCapacity h;
    h.name = name;
    h.ncpu = ncpu;
    h.memTotal = mem;
    h.cpusAllocated = usedCpu;
    h.swarmActive = !swarm.isEmpty();
    h.swarmClusterId = swarm;
    h.swarmManager = manager;
    return h;
}

QList<HostCapacity> lab3()
{
    return {host(QStringLiteral("h1"), 8, 16 * GiB, 0, true),
            host(QStringLiteral("h2"), 8, 16 * GiB), host(QStringLiteral("h3"), 8, 16 * GiB)};
}

QMap<QString, int> perHost(const Placement &p)
{
    QMap<QString, int> n;
    for (const QString &h : p.hostOf)
        ++n[h];
    return n;
}

} // namespace

class TestPlacement : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void distribution_data();
    void distribution();
    void doesNotFit_data();
    void doesNotFit();
    void labelsAreHonoured();
    void networkHostIsAManagerInUse();
    void deterministic();
    void strategyNames();
    void multiNodeSwarm_data();
    void multiNodeSwarm();
    void unusedHostsSayWhy_data();
    void unusedHostsSayWhy();
    void vxlanNeedsNoSwarm_data();
    void vxlanNeedsNoSwarm();
};

void TestPlacement::distribution_data()
{
    QTest::addColumn<int>("mode");
    QTest::addColumn<int>("strategy");
    QTest::addColumn<int>("workers");
    QTest::addColumn<double>("cpus");
    QTest::addColumn<QList<HostCapacity>>("hosts");
    QTest::addColumn<QString>("expectedMode");
    QTest::addColumn<HostCounts>("expected");

    const int single = int(ClusterMode::SingleNode), multi = int(ClusterMode::MultiNode),
              autoMode = int(ClusterMode::Auto);
    const int spread = int(PlacementStrategy::Spread), pack = int(PlacementStrategy::Pack);

    QTest::newRow("single-node on the host with most room")
        << single << spread << 2 << 1.0
        << QList<HostCapacity>{host("h1", 8, 16 * GiB, 6), host("h2", 8, 16 * GiB, 1),
                               host("h3", 8, 16 * GiB, 3)}
        << "single-node" << HostCounts{{"h2", 3}};
    QTest::newRow("single-node pack takes the fullest that fits")
        << single << pack << 2 << 1.0
        << QList<HostCapacity>{host("h1", 8, 16 * GiB, 6), host("h2", 8, 16 * GiB, 1),
                               host("h3", 8, 16 * GiB, 4)}
        << "single-node" << HostCounts{{"h3", 3}};
    QTest::newRow("multi-node spread 1+12 over 3 hosts")
        << multi << spread << 12 << 0.5 << lab3() << "multi-node"
        << HostCounts{{"h1", 5}, {"h2", 4}, {"h3", 4}};
    QTest::newRow("multi-node pack fills h1 first")
        << multi << pack << 12 << 1.0 << lab3() << "multi-node" << HostCounts{{"h1", 8}, {"h2", 5}};
    QTest::newRow("multi-node skips unreachable host")
        << multi << spread << 3 << 1.0
        << QList<HostCapacity>{host("h1", 8, 16 * GiB, 0, true),
                               [] {
                                   HostCapacity h = host("h2", 8, 16 * GiB);
                                   h.reachable = false;
                                   return h;
                               }(),
                               host("h3", 8, 16 * GiB)}
        << "multi-node" << HostCounts{{"h1", 2}, {"h3", 2}};
    QTest::newRow("multi-node skips a host of another swarm")
        << multi << spread << 3 << 1.0
        << QList<HostCapacity>{host("h1", 8, 16 * GiB, 0, true),
                               host("h2", 8, 16 * GiB, 0, true, "S2"), host("h3", 8, 16 * GiB)}
        << "multi-node" << HostCounts{{"h1", 2}, {"h3", 2}};
    QTest::newRow("auto picks single-node when one host fits")
        << autoMode << spread << 3 << 1.0 << lab3() << "single-node" << HostCounts{{"h1", 4}};
    QTest::newRow("auto goes multi-node when no host fits")
        << autoMode << spread << 11 << 1.0 << lab3() << "multi-node"
        << HostCounts{{"h1", 4}, {"h2", 4}, {"h3", 4}};
    QTest::newRow("no resources asked: spread evenly")
        << multi << spread << 5 << 0.0 << lab3() << "multi-node"
        << HostCounts{{"h1", 2}, {"h2", 2}, {"h3", 2}};
}

void TestPlacement::distribution()
{
    QFETCH(int, mode);
    QFETCH(int, strategy);
    QFETCH(int, workers);
    QFETCH(double, cpus);
    QFETCH(QList<HostCapacity>, hosts);
    QFETCH(QString, expectedMode);
    QFETCH(HostCounts, expected);

    const ClusterPlan plan =
        makePlan(ClusterMode(mode), {{"master", 1}, {"worker", workers}}, cpus, GiB);
    const auto p = place(plan, hosts, PlacementStrategy(strategy));
    QVERIFY2(p.has_value(), qPrintable(p ? QString() : p.error().toString()));
    QCOMPARE(modeName(p->mode), expectedMode);
    QCOMPARE(perHost(*p), expected);
    QCOMPARE(p->hostOf.size(), plan.kernels.size());
    QVERIFY(!p->networkHost.isEmpty());
}

void TestPlacement::vxlanNeedsNoSwarm_data()
{
    QTest::addColumn<QList<HostCapacity>>("hosts");
    QTest::addColumn<HostCounts>("expected"); // empty: does not fit
    QTest::addColumn<QString>("error");

    QTest::newRow("no host in a swarm")
        << QList<HostCapacity>{host("h1", 8, 16 * GiB, 0, false, ""),
                               host("h2", 8, 16 * GiB, 0, false, ""),
                               host("h3", 8, 16 * GiB, 0, false, "")}
        << HostCounts{{"h1", 2}, {"h2", 2}, {"h3", 1}} << QString();
    QTest::newRow("hosts of two swarms are one pool")
        << QList<HostCapacity>{host("h1", 8, 16 * GiB, 0, true, "S1"),
                               host("h2", 8, 16 * GiB, 0, true, "S2"),
                               host("h3", 8, 16 * GiB, 0, false, "")}
        << HostCounts{{"h1", 2}, {"h2", 2}, {"h3", 1}} << QString();
    QTest::newRow("the first host gone (the swarm manager once)")
        << QList<HostCapacity>{[] {
                                   HostCapacity h = host("h1", 8, 16 * GiB, 0, true);
                                   h.reachable = false;
                                   return h;
                               }(),
                               host("h2", 8, 16 * GiB), host("h3", 8, 16 * GiB)}
        << HostCounts{{"h2", 3}, {"h3", 2}} << QString();
    QTest::newRow("every host gone") << QList<HostCapacity>{[] {
        HostCapacity h = host("h1", 8, 16 * GiB, 0, true);
        h.reachable = false;
        return h;
    }()} << HostCounts{} << QStringLiteral("unreachable: h1");
}

void TestPlacement::vxlanNeedsNoSwarm()
{
    QFETCH(QList<HostCapacity>, hosts);
    QFETCH(HostCounts, expected);
    QFETCH(QString, error);

    const ClusterPlan plan =
        makePlan(ClusterMode::MultiNode, {{"master", 1}, {"worker", 4}}, 1.0, GiB);
    const auto p = place(plan, hosts, PlacementStrategy::Spread, NetworkDriver::Vxlan);
    if (expected.isEmpty()) {
        QVERIFY(!p);
        QVERIFY2(p.error().message.contains(error), qPrintable(p.error().toString()));
        QVERIFY(!p.error().message.contains(QLatin1String("swarm")));
        return;
    }
    QVERIFY2(p.has_value(), qPrintable(p ? QString() : p.error().toString()));
    QCOMPARE(perHost(*p), expected);
    QCOMPARE(p->driver, NetworkDriver::Vxlan);
    QVERIFY(p->networkHost.isEmpty()); // no host apart: the network is on every host
    // The Swarm driver refuses the same hosts when they are not one swarm with a manager.
    const auto swarm = place(plan, hosts, PlacementStrategy::Spread, NetworkDriver::Swarm);
    if (swarm)
        QCOMPARE(swarm->driver, NetworkDriver::Swarm);
}

void TestPlacement::doesNotFit_data()
{
    QTest::addColumn<int>("mode");
    QTest::addColumn<int>("workers");
    QTest::addColumn<double>("cpus");
    QTest::addColumn<qint64>("mem");
    QTest::addColumn<QList<HostCapacity>>("hosts");
    QTest::addColumn<QStringList>("mustMention");

    QTest::newRow("single-node too big")
        << int(ClusterMode::SingleNode) << 12 << 1.0 << GiB << lab3()
        << QStringList{"fits on no single host", "h1: 8 CPUs free, short by 5", "h3:"};
    QTest::newRow("single-node memory") << int(ClusterMode::SingleNode) << 1 << 0.5 << 10 * GiB
                                        << lab3() << QStringList{"short by 4.0 GiB"};
    QTest::newRow("multi-node role too big")
        << int(ClusterMode::MultiNode) << 30 << 1.0 << GiB << lab3()
        << QStringList{"role worker does not fit", "24 of 30", "h2: 0 CPUs free, short by 1"};
    QTest::newRow("multi-node without a swarm")
        << int(ClusterMode::MultiNode) << 2 << 1.0 << GiB
        << QList<HostCapacity>{host("h1", 8, 16 * GiB, 0, false, QString()),
                               host("h2", 8, 16 * GiB, 0, false, QString())}
        << QStringList{"one swarm", "clusterdeckctl network setup"};
    QTest::newRow("auto, neither way")
        << int(ClusterMode::Auto) << 40 << 1.0 << GiB << lab3()
        << QStringList{"fits on no single host, and as multi-node", "role worker does not fit"};
    QTest::newRow("no hosts at all") << int(ClusterMode::SingleNode) << 1 << 1.0 << GiB
                                     << QList<HostCapacity>{} << QStringList{"no hosts registered"};
    // Issue 24 D.13: requests that add up past qint64 (a stored spec is input too) fit nowhere;
    // a wrapped sum was negative and "fit".
    const qint64 half = std::numeric_limits<qint64>::max() / 2;
    QTest::newRow("single-node: memory adding up past qint64")
        << int(ClusterMode::SingleNode) << 2 << 0.1 << half
        << QList<HostCapacity>{host("h1", 64, qint64(1) << 60, 0, true)}
        << QStringList{"fits on no single host", "memory free, short by"};
}

void TestPlacement::doesNotFit()
{
    QFETCH(int, mode);
    QFETCH(int, workers);
    QFETCH(double, cpus);
    QFETCH(qint64, mem);
    QFETCH(QList<HostCapacity>, hosts);
    QFETCH(QStringList, mustMention);

    const auto p =
        place(makePlan(ClusterMode(mode), {{"master", 1}, {"worker", workers}}, cpus, mem), hosts);
    QVERIFY(!p.has_value());
    QCOMPARE(p.error().kind, Error::Kind::Invalid);
    for (const QString &needle : mustMention)
        QVERIFY2(p.error().message.contains(needle),
                 qPrintable(p.error().message + " lacks: " + needle));
}

void TestPlacement::labelsAreHonoured()
{
    QList<HostCapacity> hosts = lab3();
    hosts[2].labels.insert(QStringLiteral("gpu"), QStringLiteral("yes"));
    const ClusterPlan plan = makePlan(ClusterMode::MultiNode, {{"master", 1}, {"trainer", 3}}, 1.0,
                                      GiB, {{"trainer", {{"gpu", "yes"}}}});
    const auto p = place(plan, hosts);
    QVERIFY(p.has_value());
    for (int i = 1; i <= 3; ++i)
        QCOMPARE(p->hostOf.value(QStringLiteral("trainer%1").arg(i)), QStringLiteral("h3"));

    hosts[2].labels.clear();
    const auto none = place(plan, hosts);
    QVERIFY(!none.has_value());
    QVERIFY(none.error().message.contains(QStringLiteral("lacks labels gpu=yes")));
}

void TestPlacement::networkHostIsAManagerInUse()
{
    QList<HostCapacity> hosts = lab3();
    hosts[0].ncpu = 0; // the manager runs nothing, but still hosts the overlay
    const auto p =
        place(makePlan(ClusterMode::MultiNode, {{"master", 1}, {"worker", 2}}, 1.0, GiB), hosts);
    QVERIFY(p.has_value());
    QVERIFY(!p->hostsUsed.contains(QStringLiteral("h1")));
    QCOMPARE(p->networkHost, QStringLiteral("h1"));

    hosts[0].ncpu = 8;
    hosts[1].swarmManager = true;
    const auto q = place(makePlan(ClusterMode::MultiNode, {{"master", 1}}, 1.0, GiB), hosts);
    QVERIFY(q.has_value());
    QCOMPARE(q->hostsUsed, QStringList{QStringLiteral("h1")});
    QCOMPARE(q->networkHost, QStringLiteral("h1"));
}

void TestPlacement::deterministic()
{
    QList<HostCapacity> hosts = lab3();
    std::reverse(hosts.begin(), hosts.end());
    const ClusterPlan plan =
        makePlan(ClusterMode::MultiNode, {{"master", 2}, {"worker", 12}}, 0.25, GiB);
    const auto a = place(plan, hosts);
    const auto b = place(plan, lab3());
    QVERIFY(a && b);
    QCOMPARE(a->hostOf, b->hostOf);
    QCOMPARE(a->hostOf.value(QStringLiteral("master1")), QStringLiteral("h1"));
}

void TestPlacement::strategyNames()
{
    QVERIFY(placementStrategyFromString(QStringLiteral("pack")) == PlacementStrategy::Pack);
    QVERIFY(placementStrategyFromString(QStringLiteral("spread")) == PlacementStrategy::Spread);
    QVERIFY(!placementStrategyFromString(QStringLiteral("random")));
    QCOMPARE(toString(PlacementStrategy::Pack), QStringLiteral("pack"));
}

void TestPlacement::multiNodeSwarm_data()
{
    QTest::addColumn<QList<HostCapacity>>("hosts");
    QTest::addColumn<QString>("swarm");
    auto down = [](HostCapacity h) {
        h.reachable = false;
        return h;
    };
    QTest::newRow("no hosts") << QList<HostCapacity>{} << QString();
    QTest::newRow("the lab's one swarm") << lab3() << QStringLiteral("S1");
    QTest::newRow("no swarm anywhere")
        << QList<HostCapacity>{host(QStringLiteral("h1"), 8, GiB, 0, false, {}),
                               host(QStringLiteral("h2"), 8, GiB, 0, false, {})}
        << QString();
    QTest::newRow("a swarm without a manager")
        << QList<HostCapacity>{host(QStringLiteral("h1"), 8, GiB),
                               host(QStringLiteral("h2"), 8, GiB)}
        << QString();
    QTest::newRow("the manager is down")
        << QList<HostCapacity>{down(host(QStringLiteral("h1"), 8, GiB, 0, true)),
                               host(QStringLiteral("h2"), 8, GiB)}
        << QString();
    QTest::newRow("the bigger of two swarms")
        << QList<HostCapacity>{host(QStringLiteral("a1"), 8, GiB, 0, true, QStringLiteral("A")),
                               host(QStringLiteral("b1"), 8, GiB, 0, true, QStringLiteral("B")),
                               host(QStringLiteral("b2"), 8, GiB, 0, false, QStringLiteral("B"))}
        << QStringLiteral("B");
    QTest::newRow("a tie goes to the first id")
        << QList<HostCapacity>{host(QStringLiteral("b1"), 8, GiB, 0, true, QStringLiteral("B")),
                               host(QStringLiteral("a1"), 8, GiB, 0, true, QStringLiteral("A"))}
        << QStringLiteral("A");
}

void TestPlacement::multiNodeSwarm()
{
    QFETCH(QList<HostCapacity>, hosts);
    QFETCH(QString, swarm);
    QCOMPARE(ClusterDeck::multiNodeSwarm(hosts), swarm);
}

void TestPlacement::unusedHostsSayWhy_data()
{
    QTest::addColumn<int>("mode");
    QTest::addColumn<QString>("change"); // what is wrong with h2
    QTest::addColumn<QString>("expected");
    QTest::newRow("dead daemon") << int(ClusterMode::MultiNode) << "unreachable"
                                 << "unreachable (connection refused)";
    QTest::newRow("outside the swarm") << int(ClusterMode::MultiNode) << "noswarm"
                                       << "not in the session's swarm";
    QTest::newRow("full") << int(ClusterMode::MultiNode) << "full"
                          << "CPUs free, short by";
    QTest::newRow("single-node") << int(ClusterMode::SingleNode) << ""
                                 << "single-node: the session runs on";
}

void TestPlacement::unusedHostsSayWhy()
{
    // A host a launch leaves out is named with the reason (the preview and `launch --dry-run`
    // show it), and a dead one is never placed on.
    QFETCH(int, mode);
    QFETCH(QString, change);
    QFETCH(QString, expected);
    QList<HostCapacity> hosts = lab3();
    if (change == u"unreachable") {
        hosts[1].reachable = false;
        hosts[1].unreachableWhy = QStringLiteral("connection refused");
    } else if (change == u"noswarm") {
        hosts[1].swarmActive = false;
        hosts[1].swarmClusterId.clear();
    } else if (change == u"full") {
        hosts[1].cpusAllocated = 8;
    }
    const auto p =
        place(makePlan(ClusterMode(mode), {{"master", 1}, {"worker", 12}}, 0.25, GiB / 8), hosts);
    QVERIFY(p.has_value());
    QVERIFY(!p->hostsUsed.contains(QStringLiteral("h2")));
    QVERIFY(!p->hostOf.values().contains(QStringLiteral("h2")));
    QVERIFY2(p->unused.value(QStringLiteral("h2")).contains(expected),
             qPrintable(p->unused.value(QStringLiteral("h2"))));
    for (const QString &used : p->hostsUsed)
        QVERIFY(!p->unused.contains(used));
}

QTEST_GUILESS_MAIN(TestPlacement)
#include "tst_placement.moc"
