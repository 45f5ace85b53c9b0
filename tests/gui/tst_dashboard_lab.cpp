// The session dashboard against kernels in the lab: streams open while it is visible and close
// when it is hidden, samples fill its table and its Qt Charts (CPU per kernel, memory per role).
// h1 is reached over ssh:// (the lab's sshd, issue 27), the other hosts over tcp+tls://, so the
// busy master's stats stream through an SSH tunnel.
// With CLUSTERDECK_SCREENSHOT_DIR set, a picture of it is saved there.

#include "docker/dockerclient.h"
#include "dashboard/sessiondashboard.h"
#include "stats/statsmonitor.h"
#include "models/usagehistorymodel.h"

#include <QAbstractItemModelTester>
#include <QChart>
#include <QDir>
#include <QLineSeries>
#include <QTest>
#include <QUuid>

using namespace ClusterDeck;
using namespace ClusterDeck::Docker;
using namespace ClusterDeck::Ui;

class TestDashboardLab : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void cleanupTestCase();
    void streamsWhileVisible();

private:
    QMap<QString, std::shared_ptr<DockerClient>> m_clients;
    QList<KernelRecord> m_kernels;
};

void TestDashboardLab::initTestCase()
{
    const QStringList hosts =
        qEnvironmentVariable("CLUSTERDECK_LAB_HOSTS").split(u' ', Qt::SkipEmptyParts);
    if (hosts.isEmpty())
        QFAIL(
            "the lab environment is missing: run `eval \"$(scripts/lab.sh env)\"` with the lab up");
    const TlsFiles tls{qEnvironmentVariable("CLUSTERDECK_LAB_TLS_CA"),
                       qEnvironmentVariable("CLUSTERDECK_LAB_TLS_CERT"),
                       qEnvironmentVariable("CLUSTERDECK_LAB_TLS_KEY")};
    qputenv("CLUSTERDECK_SSH_CONFIG", qgetenv("CLUSTERDECK_LAB_SSH_CONFIG"));
    for (const QString &h : hosts) {
        const QByteArray kind = h == QLatin1String("h1") ? "_DOCKER_SSH" : "_DOCKER_TLS";
        auto endpoint = DockerEndpoint::parse(
            qEnvironmentVariable(
                QByteArray("CLUSTERDECK_LAB_" + h.toUpper().toLatin1() + kind).constData()),
            tls);
        QVERIFY(endpoint);
        m_clients.insert(h, std::make_shared<DockerClient>(*endpoint, h));
    }
    const QString session = QUuid::createUuid().toString(QUuid::WithoutBraces);
    // master1 busy, worker1..3 holding 8, 16, 24 MiB in a tmpfs.
    for (int rank = 0; rank < 4; ++rank) {
        KernelRecord k;
        k.id = session + QStringLiteral("-k%1").arg(rank);
        k.sessionId = session;
        k.role = rank == 0 ? QStringLiteral("master") : QStringLiteral("worker");
        k.roleIdx = rank == 0 ? 1 : rank;
        k.localRank = rank;
        k.hostname = k.role + QString::number(k.roleIdx);
        k.host = hosts.at(rank % hosts.size());
        k.status = KernelStatus::Running;
        ContainerSpec spec;
        spec.name = QStringLiteral("cdtest-%1-%2").arg(session.left(8), k.hostname);
        spec.image = QStringLiteral("clusterdeck/lab:latest");
        spec.labels = {{QStringLiteral("io.clusterdeck.session"), session}};
        spec.memory = 128LL << 20;
        spec.shmSize = 64LL << 20;
        spec.cmd = {QStringLiteral("sh"), QStringLiteral("-c"),
                    rank == 0 ? QStringLiteral("while :; do :; done")
                              : QStringLiteral("dd if=/dev/zero of=/dev/shm/f bs=1048576 count=%1; "
                                               "sleep 3600")
                                    .arg(8 * rank)};
        auto created = m_clients.value(k.host)->createContainer(spec);
        QVERIFY2(created, qPrintable(created ? QString() : created.error().toString()));
        k.containerId = created->id;
        QVERIFY(m_clients.value(k.host)->startContainer(k.containerId));
        m_kernels.append(k);
    }
}

void TestDashboardLab::cleanupTestCase()
{
    for (const KernelRecord &k : std::as_const(m_kernels))
        (void)m_clients.value(k.host)->removeContainer(k.containerId, {true, true});
}

void TestDashboardLab::streamsWhileVisible()
{
    SessionDashboard dashboard;
    QAbstractItemModelTester tester(dashboard.model(),
                                    QAbstractItemModelTester::FailureReportingMode::Fatal);
    dashboard.setClientProvider([this](const QString &host) -> std::shared_ptr<const DockerClient> {
        return m_clients.value(host);
    });
    dashboard.resize(1200, 700);
    dashboard.showSession(QStringLiteral("lab-dashboard"), m_kernels);
    QCOMPARE(dashboard.monitor()->streamCount(), 0); // not visible yet: nothing streams
    dashboard.show();
    QVERIFY(QTest::qWaitForWindowExposed(&dashboard));
    QTRY_COMPARE_WITH_TIMEOUT(dashboard.monitor()->streamCount(), 4, 5000);
    for (const KernelRecord &k : std::as_const(m_kernels))
        QTRY_VERIFY_WITH_TIMEOUT(dashboard.model()->history(k.id).size() >= 4, 10000);
    dashboard.refreshCharts();
    QCOMPARE(dashboard.cpuChart()->series().size(), 4);
    QCOMPARE(dashboard.memoryChart()->series().size(), 2);
    auto *master = static_cast<QLineSeries *>(dashboard.cpuChart()->series().first());
    QVERIFY(master->name().startsWith(QLatin1String("master1 (")));
    QVERIFY(master->count() >= 4);
    double busiest = 0;
    for (const QPointF &p : master->points())
        busiest = std::max(busiest, p.y());
    QVERIFY2(busiest > 20, qPrintable(QString::number(busiest))); // the busy loop shows
    QCOMPARE(m_kernels.first().host, QStringLiteral("h1"));       // ... through the SSH tunnel
    QCOMPARE(m_clients.value(QStringLiteral("h1"))->endpoint().kind(), DockerEndpoint::Kind::Ssh);
    auto *workers = static_cast<QLineSeries *>(dashboard.memoryChart()->series().at(1));
    QCOMPARE(workers->name(), QStringLiteral("worker"));
    QVERIFY2(workers->points().last().y() > 8 + 16 + 24 - 2,
             qPrintable(QString::number(workers->points().last().y())));
    QCOMPARE(dashboard.model()->index(0, UsageHistoryModel::HostColumn).data().toString(),
             m_kernels.first().host);
    if (const QString dir = qEnvironmentVariable("CLUSTERDECK_SCREENSHOT_DIR"); !dir.isEmpty()) {
        QTest::qWait(8000); // a few more points on the lines
        dashboard.refreshCharts();
        QDir().mkpath(dir);
        QVERIFY(dashboard.grab().save(dir + QStringLiteral("/dashboard.png")));
    }
    dashboard.hide();
    QCOMPARE(dashboard.monitor()->streamCount(), 0); // hidden: every stream closed
}

QTEST_MAIN(TestDashboardLab)
#include "tst_dashboard_lab.moc"
