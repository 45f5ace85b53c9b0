// A 3-member etcd cluster (`scripts/lab.sh up --etcd-members 3`) losing its leader member while
// ClusterDeck works on it: during a 1+12 launch and during the controller's resyncs. The launch
// completes or rolls back cleanly, the controller keeps or takes back leadership, nothing is left.
// Without the lab's environment (three members) the test FAILS, never skips.

#include "labcli.h"
#include "store/statestore.h"
#include "store/storefactory.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>
#include <QThread>
#include <QUrl>
#include <QUuid>

using namespace ClusterDeck;

#ifndef CLUSTERDECKCTL
#error "CLUSTERDECKCTL must name the clusterdeckctl binary"
#endif

namespace {

const QString kTemplate = QStringLiteral(R"(apiVersion: clusterdeck/v1
kind: Cluster
name: etcdmembers
mode: multi-node
failurePolicy:
  action: restart-session
  maxRestarts: 2
roles:
  - name: master
    count: 1
    task:
      image: clusterdeck/lab:latest
      command: [sleep, "3600"]
      resources: {cpus: 0.05, memory: 32m}
  - name: worker
    count: 2
    max: 12
    task:
      image: clusterdeck/lab:latest
      command: [sleep, "3600"]
      resources: {cpus: 0.05, memory: 32m}
)");

} // namespace

class TestEtcdMembers : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void cleanupTestCase();
    void leaderMemberDiesDuringLaunch();
    void leaderMemberDiesDuringResync();

private:
    Proc cli(const QStringList &args, int timeoutMs = 240000) const
    {
        return runProcess(QStringLiteral(CLUSTERDECKCTL),
                          QStringList{QStringLiteral("--store"), m_storeUrl} + args, timeoutMs);
    }
    Proc lab(const QStringList &args) const { return runProcess(m_labScript, args, 60000); }
    // Kills the member that leads; returns its number (to start it again), 0 on failure.
    int killLeaderMember()
    {
        const Proc leader = lab({QStringLiteral("etcd-member"), QStringLiteral("leader")});
        const int member = QString::fromUtf8(leader.out).trimmed().toInt();
        if (member < 1)
            return 0;
        if (lab({QStringLiteral("etcd-member"), QStringLiteral("kill"), QString::number(member)})
                .exitCode != 0)
            return 0;
        return member;
    }
    bool startMember(int member)
    {
        return lab({QStringLiteral("etcd-member"), QStringLiteral("start"),
                    QString::number(member)})
                   .exitCode == 0;
    }
    // Objects of this store whose session is not RUNNING (after everything settled: none).
    int strayObjects();

    LabHosts m_lab;
    QTemporaryDir m_dir;
    QString m_labScript;
    QString m_storeUrl;
    QString m_template;
    std::unique_ptr<StateStore> m_store;
    QStringList m_sessions;
};

void TestEtcdMembers::initTestCase()
{
    m_lab = LabHosts::fromEnvironment();
    if (m_lab.names().size() < 2)
        QFAIL(qPrintable(LabHosts::error()));
    const QStringList members = qEnvironmentVariable("CLUSTERDECK_LAB_ETCD_MEMBERS")
                                    .split(QLatin1Char(','), Qt::SkipEmptyParts);
    QVERIFY2(members.size() == 3,
             "the lab's etcd must have 3 members: scripts/lab.sh up --etcd-members 3");
    m_labScript =
        qEnvironmentVariable("CLUSTERDECK_SOURCE_DIR") + QStringLiteral("/scripts/lab.sh");
    QStringList authorities;
    for (const QString &m : members)
        authorities.append(QUrl(m).authority());
    m_storeUrl = QStringLiteral("etcd://") + authorities.join(u',') +
                 QStringLiteral("/cdtest-members/") +
                 QUuid::createUuid().toString(QUuid::Id128).left(12);
    auto store = openStore(m_storeUrl);
    QVERIFY2(store, qPrintable(store ? QString() : store.error().toString()));
    m_store = std::move(*store);
    QVERIFY(m_dir.isValid());
    m_template = m_dir.filePath(QStringLiteral("members.yaml"));
    QVERIFY(writeTextFile(m_template, kTemplate));
    for (const QString &h : m_lab.names()) {
        const Proc added =
            cli({QStringLiteral("host"), QStringLiteral("add"), h, QStringLiteral("--docker"),
                 m_lab.unixEndpoint(h), QStringLiteral("--address"), m_lab.address(h)});
        QVERIFY2(added.exitCode == 0, added.err.constData());
    }
}

void TestEtcdMembers::cleanupTestCase()
{
    for (const QString &id : std::as_const(m_sessions))
        cli({QStringLiteral("rm"), id});
    const QString label = QStringLiteral("io.clusterdeck.store=") + m_store->storeId();
    QTRY_COMPARE_WITH_TIMEOUT(LabHosts::count(m_lab.containersWith(label)), 0, 20000);
}

int TestEtcdMembers::strayObjects()
{
    auto sessions = m_store->sessions();
    if (!sessions)
        return -1;
    int stray = 0;
    for (const QString &h : m_lab.names()) {
        const Proc p =
            m_lab.docker(h, {QStringLiteral("ps"), QStringLiteral("-a"), QStringLiteral("--filter"),
                             QStringLiteral("label=io.clusterdeck.store=") + m_store->storeId(),
                             QStringLiteral("--format"),
                             QStringLiteral("{{.Label \"io.clusterdeck.session\"}}")});
        for (const QString &sid : QString::fromUtf8(p.out).split(u'\n', Qt::SkipEmptyParts)) {
            const auto s = std::find_if(sessions->cbegin(), sessions->cend(),
                                        [&](const SessionRecord &r) { return r.id == sid; });
            if (s == sessions->cend() || s->status != SessionStatus::Running)
                ++stray;
        }
    }
    return stray;
}

void TestEtcdMembers::leaderMemberDiesDuringLaunch()
{
    ControllerProcess controller(QStringLiteral(CLUSTERDECKCTL));
    controller.start(m_storeUrl, {QStringLiteral("--lease-ttl"), QStringLiteral("5")});
    QVERIFY2(controller.waitFor(" leads", 20000), controller.err().constData());

    QProcess launch;
    launch.start(QStringLiteral(CLUSTERDECKCTL),
                 {QStringLiteral("--store"), m_storeUrl, QStringLiteral("launch"), m_template,
                  QStringLiteral("--count"), QStringLiteral("worker=12"),
                  QStringLiteral("--json")});
    QVERIFY(launch.waitForStarted());
    QThread::msleep(1500); // kernels are being created
    const int member = killLeaderMember();
    QVERIFY2(member > 0, "found and killed the etcd leader member");
    QVERIFY2(launch.waitForFinished(180000), "the launch ends (bounded) without the old leader");
    const QJsonObject o = QJsonDocument::fromJson(launch.readAllStandardOutput()).object();
    const QByteArray err = launch.readAllStandardError();
    QVERIFY(startMember(member));
    const QString id = o.value(QStringLiteral("id")).toString();
    qInfo() << "launch with etcd member" << member << "killed after 1.5 s: exit"
            << launch.exitCode() << (id.isEmpty() ? err.trimmed().right(200) : id.toUtf8());
    if (!id.isEmpty())
        m_sessions.append(id);

    // A controller leads again within its lease, and every object belongs to a running session.
    QTRY_VERIFY_WITH_TIMEOUT(m_store->leader().value_or(std::nullopt).has_value(), 15000);
    QCOMPARE(m_store->leader().value_or(std::nullopt)->pid, controller.pid());
    QTRY_COMPARE_WITH_TIMEOUT(strayObjects(), 0, 60000);
    if (launch.exitCode() == 0) {
        auto s = m_store->session(id);
        QVERIFY(s);
        QCOMPARE(toString(s->status), toString(SessionStatus::Running));
        QCOMPARE(LabHosts::count(m_lab.containersOf(id)), 13);
    }
    QVERIFY(controller.stop());
}

void TestEtcdMembers::leaderMemberDiesDuringResync()
{
    const Proc launched = cli({QStringLiteral("launch"), m_template, QStringLiteral("--json")});
    QVERIFY2(launched.exitCode == 0, launched.err.constData());
    const QString id =
        QJsonDocument::fromJson(launched.out).object().value(QStringLiteral("id")).toString();
    m_sessions.append(id);
    ControllerProcess controller(QStringLiteral(CLUSTERDECKCTL));
    controller.start(m_storeUrl, {QStringLiteral("--lease-ttl"), QStringLiteral("5"),
                                  QStringLiteral("--resync"), QStringLiteral("1")});
    QVERIFY2(controller.waitFor(" leads", 20000), controller.err().constData());
    QThread::sleep(2);
    const int member = killLeaderMember();
    QVERIFY(member > 0);
    QThread::sleep(6); // resyncs run against the remaining two members
    QVERIFY(startMember(member));
    QTRY_VERIFY_WITH_TIMEOUT(m_store->leader().value_or(std::nullopt).has_value(), 15000);
    QCOMPARE(m_store->leader().value_or(std::nullopt)->pid, controller.pid());
    QTRY_COMPARE_WITH_TIMEOUT(strayObjects(), 0, 30000);
    auto s = m_store->session(id);
    QVERIFY(s);
    QCOMPARE(toString(s->status), toString(SessionStatus::Running));
    QCOMPARE(LabHosts::count(m_lab.containersOf(id)), 3);
    qInfo().noquote() << "controller log:" << controller.err().right(600);
    QVERIFY(controller.stop());
}

QTEST_GUILESS_MAIN(TestEtcdMembers)
#include "tst_etcdmembers.moc"
