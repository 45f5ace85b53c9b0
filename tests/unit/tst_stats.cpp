// `docker stats` arithmetic over recorded daemon bodies (cgroup v1 from the lab's daemon, and the
// cgroup v2 layout), and the per-role / per-session sums.

#include "docker/dockerjson.h"
#include "docker/statstypes.h"
#include "stats/usageaggregator.h"

#include <QFile>
#include <QTest>

using namespace ClusterDeck;
using namespace ClusterDeck::Docker;

namespace {

QByteArray load(const QString &name)
{
    QFile file(qEnvironmentVariable("CLUSTERDECK_TEST_DATA") + QStringLiteral("/docker/") + name);
    if (!file.open(QIODevice::ReadOnly))
        qFatal("cannot read test data %s", qPrintable(file.fileName()));
    return file.readAll();
}

ResourceUsage usage(double cpu, quint64 mem, quint64 limit)
{
    ResourceUsage u;
    u.cpuPercent = cpu;
    u.memoryUsed = mem;
    u.memoryLimit = limit;
    u.kernels = 1;
    return u;
}

} // namespace

class TestStats : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void decodesRecorded_data();
    void decodesRecorded();
    void cpuPercent_data();
    void cpuPercent();
    void memoryWithoutPageCache();
    void rejectsGarbage();
    void sums();
    void sumsPerHost();
};

void TestStats::decodesRecorded_data()
{
    QTest::addColumn<QString>("file");
    QTest::addColumn<double>("cpuPercent");
    QTest::addColumn<quint64>("memoryUsed");
    QTest::addColumn<quint64>("memoryLimit");
    QTest::addColumn<quint64>("rx");
    QTest::addColumn<quint64>("tx");
    QTest::addColumn<quint64>("blockRead");
    QTest::addColumn<quint64>("blockWrite");
    QTest::addColumn<int>("pids");
    // (1143602531 - 840154169) / (88423690000000 - 88421580000000) * 2 * 100
    QTest::newRow("cgroup v1, busy loop on a loaded 2-core host")
        << QStringLiteral("stats-cgroup1-busy.json") << 28.7628778 << quint64(712704 - 307200)
        << quint64(134217728) << quint64(736) << quint64(0) << quint64(0) << quint64(0) << 1;
    // 1e9 / 4e9 * 4 * 100; 80 MiB - 6 MiB inactive file; two interfaces, two devices.
    QTest::newRow("cgroup v2") << QStringLiteral("stats-cgroup2.json") << 100.0
                               << quint64(74 * 1024 * 1024) << quint64(256 * 1024 * 1024)
                               << quint64(1030) << quint64(2040) << quint64(5096) << quint64(8192)
                               << 7;
}

void TestStats::decodesRecorded()
{
    QFETCH(QString, file);
    QFETCH(double, cpuPercent);
    QFETCH(quint64, memoryUsed);
    QFETCH(quint64, memoryLimit);
    QFETCH(quint64, rx);
    QFETCH(quint64, tx);
    QFETCH(quint64, blockRead);
    QFETCH(quint64, blockWrite);
    QFETCH(int, pids);
    auto stats = Json::decodeContainerStats(load(file));
    QVERIFY2(stats, qPrintable(stats ? QString() : stats.error().toString()));
    QVERIFY(stats->readMsecs > 0);
    const ResourceUsage u = usageOf(*stats);
    QVERIFY2(qAbs(u.cpuPercent - cpuPercent) < 1e-4,
             qPrintable(QString::number(u.cpuPercent, 'f', 7)));
    QCOMPARE(u.memoryUsed, memoryUsed);
    QCOMPARE(u.memoryLimit, memoryLimit);
    QCOMPARE(u.rxBytes, rx);
    QCOMPARE(u.txBytes, tx);
    QCOMPARE(u.blockRead, blockRead);
    QCOMPARE(u.blockWrite, blockWrite);
    QCOMPARE(u.pids, pids);
    QCOMPARE(u.kernels, 1);
}

void TestStats::cpuPercent_data()
{
    QTest::addColumn<quint64>("cpu");
    QTest::addColumn<quint64>("preCpu");
    QTest::addColumn<quint64>("system");
    QTest::addColumn<quint64>("preSystem");
    QTest::addColumn<int>("cpus");
    QTest::addColumn<double>("expected");
    QTest::newRow("one core busy of 2")
        << quint64(2000) << quint64(1000) << quint64(12000) << quint64(10000) << 2 << 100.0;
    QTest::newRow("two cores busy of 2")
        << quint64(3000) << quint64(1000) << quint64(12000) << quint64(10000) << 2 << 200.0;
    QTest::newRow("idle") << quint64(1000) << quint64(1000) << quint64(12000) << quint64(10000) << 8
                          << 0.0;
    QTest::newRow("first sample: no previous")
        << quint64(5000) << quint64(0) << quint64(12000) << quint64(0) << 2 << 0.0;
    QTest::newRow("counter reset after restart")
        << quint64(100) << quint64(5000) << quint64(12000) << quint64(10000) << 2 << 0.0;
    QTest::newRow("online cpus unknown counts 1")
        << quint64(2000) << quint64(1000) << quint64(12000) << quint64(10000) << 0 << 50.0;
}

void TestStats::cpuPercent()
{
    QFETCH(quint64, cpu);
    QFETCH(quint64, preCpu);
    QFETCH(quint64, system);
    QFETCH(quint64, preSystem);
    QFETCH(int, cpus);
    QFETCH(double, expected);
    ContainerStats s;
    s.cpuTotal = cpu;
    s.preCpuTotal = preCpu;
    s.systemCpu = system;
    s.preSystemCpu = preSystem;
    s.onlineCpus = cpus;
    QCOMPARE(usageOf(s).cpuPercent, expected);
}

void TestStats::memoryWithoutPageCache()
{
    ContainerStats s;
    s.memoryUsage = 100;
    s.inactiveFile = 30;
    s.memoryLimit = 400;
    QCOMPARE(usageOf(s).memoryUsed, quint64(70));
    QCOMPARE(usageOf(s).memoryPercent(), 17.5);
    s.inactiveFile = 200; // never below zero
    QCOMPARE(usageOf(s).memoryUsed, quint64(100));
}

void TestStats::rejectsGarbage()
{
    QVERIFY(!Json::decodeContainerStats("not json"));
    QVERIFY(!Json::decodeContainerStats("[1,2]"));
}

void TestStats::sums()
{
    UsageAggregator a;
    a.set({QStringLiteral("s1"), QStringLiteral("master"), QStringLiteral("k1"), {}},
          usage(50, 100, 1000));
    a.set({QStringLiteral("s1"), QStringLiteral("worker"), QStringLiteral("k2"), {}},
          usage(25, 200, 1000));
    a.set({QStringLiteral("s1"), QStringLiteral("worker"), QStringLiteral("k3"), {}},
          usage(10, 300, 1000));
    a.set({QStringLiteral("s2"), QStringLiteral("worker"), QStringLiteral("k4"), {}},
          usage(99, 999, 1000));
    QCOMPARE(a.role(QStringLiteral("s1"), QStringLiteral("worker")).cpuPercent, 35.0);
    QCOMPARE(a.role(QStringLiteral("s1"), QStringLiteral("worker")).memoryUsed, quint64(500));
    QCOMPARE(a.role(QStringLiteral("s1"), QStringLiteral("worker")).kernels, 2);
    QCOMPARE(a.session(QStringLiteral("s1")).cpuPercent, 85.0);
    QCOMPARE(a.session(QStringLiteral("s1")).memoryLimit, quint64(3000));
    QCOMPARE(a.session(QStringLiteral("s1")).kernels, 3);
    // A newer sample replaces the kernel's; a removed kernel leaves the sums.
    a.set({QStringLiteral("s1"), QStringLiteral("worker"), QStringLiteral("k3"), {}},
          usage(20, 300, 1000));
    QCOMPARE(a.session(QStringLiteral("s1")).cpuPercent, 95.0);
    a.remove(QStringLiteral("k2"));
    QCOMPARE(a.role(QStringLiteral("s1"), QStringLiteral("worker")).cpuPercent, 20.0);
    QCOMPARE(a.session(QStringLiteral("s2")).kernels, 1);
    QVERIFY(!a.kernel(QStringLiteral("k2")));
    QCOMPARE(a.session(QStringLiteral("none")), ResourceUsage{});
}

void TestStats::sumsPerHost()
{
    UsageAggregator a;
    QVERIFY(a.byHost().isEmpty());
    a.set({QStringLiteral("s1"), QStringLiteral("master"), QStringLiteral("k1"),
           QStringLiteral("h1")},
          usage(50, 100, 1000));
    a.set({QStringLiteral("s1"), QStringLiteral("worker"), QStringLiteral("k2"),
           QStringLiteral("h2")},
          usage(25, 200, 1000));
    a.set({QStringLiteral("s2"), QStringLiteral("worker"), QStringLiteral("k3"),
           QStringLiteral("h1")},
          usage(10, 300, 1000));
    a.set({QStringLiteral("s2"), QStringLiteral("worker"), QStringLiteral("k4"), {}}, // no host
          usage(99, 999, 1000));
    QHash<QString, ResourceUsage> hosts = a.byHost();
    QCOMPARE(hosts.size(), 2);
    QCOMPARE(hosts.value(QStringLiteral("h1")).cpuPercent, 60.0);
    QCOMPARE(hosts.value(QStringLiteral("h1")).memoryUsed, quint64(400));
    QCOMPARE(hosts.value(QStringLiteral("h1")).kernels, 2);
    QCOMPARE(hosts.value(QStringLiteral("h2")).kernels, 1);
    a.remove(QStringLiteral("k2"));
    hosts = a.byHost();
    QVERIFY(!hosts.contains(QStringLiteral("h2")));
    QCOMPARE(hosts.value(QStringLiteral("h1")).kernels, 2);
}

QTEST_GUILESS_MAIN(TestStats)
#include "tst_stats.moc"
