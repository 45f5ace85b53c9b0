// The controller against the lab (scripts/lab.sh): real dockerd hosts, real etcd. Policies applied
// after a `docker kill` with nobody running a command, leader election and fencing between
// controller processes, and the launch/remove race that the old reconciler lost.
// Endpoints come from `eval "$(scripts/lab.sh env)"`; without them the test FAILS, never skips.

#include "labcli.h"
#include "store/statestore.h"
#include "store/storefactory.h"

#include <QDateTime>
#include <QElapsedTimer>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QMutex>
#include <QProcess>
#include <QScopeGuard>
#include <QSet>
#include <QTemporaryDir>
#include <QTest>
#include <QThread>
#include <QUrl>
#include <QUuid>
#include <QtConcurrent/QtConcurrentRun>

#include <algorithm>
#include <csignal>
#include <memory>

using namespace ClusterDeck;
using namespace std::chrono_literals;

#ifndef CLUSTERDECKCTL
#error "CLUSTERDECKCTL must name the clusterdeckctl binary"
#endif

namespace {

QString policyTemplate(const QString &name, const QString &policy, int maxRestarts)
{
    return QStringLiteral(R"(apiVersion: clusterdeck/v1
kind: Cluster
name: %1
mode: multi-node
failurePolicy:
  action: %2%3
roles:
  - name: master
    count: 1
    task:
      image: clusterdeck/lab:latest
      command: [sleep, "3600"]
      resources: {cpus: 0.1, memory: 32m}
  - name: worker
    count: 4
    max: 12
    task:
      image: clusterdeck/lab:latest
      command: [sleep, "3600"]
      resources: {cpus: 0.1, memory: 32m}
)")
        .arg(name, policy,
             policy == QLatin1String("restart-session")
                 ? QStringLiteral("\n  maxRestarts: %1").arg(maxRestarts)
                 : QString());
}

} // namespace

class TestController : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void cleanupTestCase();
    void init();
    void cleanup();

    void policyAfterKill_data();
    void policyAfterKill();
    void restartLimitTerminates();
    void vanishedKernelIsAFailure();
    void successPolicy_data();
    void successPolicy();
    void failoverAfterKill9();
    void pausedLeaderIsFenced();
    void leaderFrozenMidRestartTouchesNothing();
    void launchRemoveRace();

private:
    Proc cli(const QStringList &args, int timeoutMs = 240000) const
    {
        return storeCli(QStringLiteral(CLUSTERDECKCTL), m_storeUrl, args, timeoutMs);
    }
    QJsonObject show(const QString &id) const
    {
        return showSession(QStringLiteral(CLUSTERDECKCTL), m_storeUrl, id, 240000);
    }
    void useStore(const QString &backend);
    QJsonObject launch(const QString &templateName, const QString &policy, int maxRestarts);
    // The first event of `action` for the session after `seq`, if any.
    std::optional<EventRecord> eventOf(const QString &sessionId, const QString &action,
                                       qint64 afterSeq = 0) const;
    qint64 lastSeq() const;
    std::optional<LeaderRecord> leader() const
    {
        auto l = m_store->leader();
        return l ? *l : std::nullopt;
    }
    void expectGone(const QString &sessionId)
    {
        QTRY_COMPARE_WITH_TIMEOUT(LabHosts::count(m_lab.containersOf(sessionId)), 0, 20000);
        QTRY_COMPARE_WITH_TIMEOUT(LabHosts::count(m_lab.networksOf(sessionId)), 0, 20000);
    }

    LabHosts m_lab;
    QTemporaryDir m_dir;
    QString m_storeUrl;
    std::unique_ptr<StateStore> m_store;
    QStringList m_sessions;
    QList<double> m_killToPolicyMs; // for the summary line
};

void TestController::initTestCase()
{
    m_lab = LabHosts::fromEnvironment();
    if (m_lab.names().size() < 2)
        QFAIL(qPrintable(LabHosts::error()));
    QVERIFY(m_dir.isValid());
    QVERIFY2(!qEnvironmentVariableIsEmpty("CLUSTERDECK_LAB_ETCD"), "CLUSTERDECK_LAB_ETCD unset");
}

void TestController::cleanupTestCase()
{
    if (!m_killToPolicyMs.isEmpty()) {
        std::sort(m_killToPolicyMs.begin(), m_killToPolicyMs.end());
        qInfo().noquote() << QStringLiteral("docker kill → policy decision in the store: %1 runs, "
                                            "median %2 ms, max %3 ms")
                                 .arg(m_killToPolicyMs.size())
                                 .arg(m_killToPolicyMs.at(m_killToPolicyMs.size() / 2))
                                 .arg(m_killToPolicyMs.last());
    }
}

void TestController::init()
{
    m_sessions.clear();
}

void TestController::cleanup()
{
    for (const QString &id : std::as_const(m_sessions))
        cli({QStringLiteral("rm"), id});
    for (const QString &id : std::as_const(m_sessions))
        QVERIFY2(LabHosts::count(m_lab.containersOf(id)) == 0,
                 qPrintable(QStringLiteral("left behind: %1").arg(id)));
    m_store.reset();
}

void TestController::useStore(const QString &backend)
{
    const QString tag = QUuid::createUuid().toString(QUuid::Id128).left(12);
    if (backend == QLatin1String("sqlite"))
        m_storeUrl = QStringLiteral("sqlite://") + m_dir.filePath(tag + QStringLiteral(".db"));
    else
        m_storeUrl = QStringLiteral("etcd://") +
                     QUrl(qEnvironmentVariable("CLUSTERDECK_LAB_ETCD")).authority() +
                     QStringLiteral("/cdtest-controller/") + tag;
    auto store = openStore(m_storeUrl);
    QVERIFY2(store, qPrintable(store ? QString() : store.error().toString()));
    m_store = std::move(*store);
    for (const QString &h : m_lab.names()) {
        const Proc added =
            cli({QStringLiteral("host"), QStringLiteral("add"), h, QStringLiteral("--docker"),
                 m_lab.unixEndpoint(h), QStringLiteral("--address"), m_lab.address(h)});
        QVERIFY2(added.exitCode == 0, added.err.constData());
    }
}

QJsonObject TestController::launch(const QString &templateName, const QString &policy,
                                   int maxRestarts)
{
    const QString file = m_dir.filePath(templateName + QStringLiteral(".yaml"));
    if (!writeTextFile(file, policyTemplate(templateName, policy, maxRestarts)))
        return {};
    const Proc p = cli({QStringLiteral("launch"), file, QStringLiteral("--json")});
    const QJsonObject o = QJsonDocument::fromJson(p.out).object();
    const QString id = o.value(QStringLiteral("id")).toString();
    if (!id.isEmpty())
        m_sessions.append(id);
    else
        qWarning() << "launch failed:" << p.err;
    return o;
}

std::optional<EventRecord> TestController::eventOf(const QString &sessionId, const QString &action,
                                                   qint64 afterSeq) const
{
    auto events = m_store->events(afterSeq, 100000);
    if (!events)
        return std::nullopt;
    for (const EventRecord &e : std::as_const(*events)) {
        if (e.sessionId == sessionId && e.action == action)
            return e;
    }
    return std::nullopt;
}

qint64 TestController::lastSeq() const
{
    auto events = m_store->events(0, 100000);
    return events && !events->isEmpty() ? events->last().seq : 0;
}

void TestController::policyAfterKill_data()
{
    QTest::addColumn<QString>("backend");
    QTest::addColumn<QString>("policy");
    QTest::newRow("sqlite restart-session") << "sqlite"
                                            << "restart-session";
    QTest::newRow("etcd restart-session") << "etcd"
                                          << "restart-session";
    QTest::newRow("sqlite terminate-session") << "sqlite"
                                              << "terminate-session";
    QTest::newRow("etcd terminate-session") << "etcd"
                                            << "terminate-session";
}

void TestController::policyAfterKill()
{
    // A 1+4 session, a controller leading, and `docker kill` of worker2 with nobody running a
    // command: the policy is decided within 2 s and applied to the whole session.
    QFETCH(QString, backend);
    QFETCH(QString, policy);
    useStore(backend);
    const QJsonObject s = launch(QStringLiteral("ctlkill"), policy, 3);
    const QString id = s.value(QStringLiteral("id")).toString();
    QVERIFY(!id.isEmpty());
    QCOMPARE(s.value(QStringLiteral("status")).toString(), QStringLiteral("RUNNING"));
    QMap<QString, QString> before; // container name → host
    QString victim, victimHost;
    for (const QJsonValue &v : s.value(QStringLiteral("kernels")).toArray()) {
        const QJsonObject k = v.toObject();
        before.insert(k.value(QStringLiteral("container_name")).toString(),
                      k.value(QStringLiteral("host")).toString());
        if (k.value(QStringLiteral("hostname")).toString() == u"worker2") {
            victim = k.value(QStringLiteral("container_name")).toString();
            victimHost = k.value(QStringLiteral("host")).toString();
        }
    }
    QCOMPARE(before.size(), 5);
    QMap<QString, QString> startedBefore;
    for (auto it = before.cbegin(); it != before.cend(); ++it)
        startedBefore.insert(it.key(), m_lab.startedAt(it.value(), it.key()));

    ControllerProcess controller(QStringLiteral(CLUSTERDECKCTL));
    controller.start(m_storeUrl, {QStringLiteral("--lease-ttl"), QStringLiteral("5")});
    QVERIFY2(controller.waitFor(" leads", 20000), controller.err().constData());
    const qint64 seq = lastSeq();

    const QDateTime killedAt = QDateTime::currentDateTimeUtc();
    QElapsedTimer sinceKill;
    sinceKill.start();
    QCOMPARE(m_lab.docker(victimHost, {QStringLiteral("kill"), victim}).exitCode, 0);

    // The decision is in the store within 2 s of the kill.
    QTRY_VERIFY_WITH_TIMEOUT(eventOf(id, QStringLiteral("policy"), seq).has_value(), 2000);
    const EventRecord decision = *eventOf(id, QStringLiteral("policy"), seq);
    const double lagMs = double(killedAt.msecsTo(decision.at));
    m_killToPolicyMs.append(lagMs);
    qInfo() << backend << policy << "kill → policy event" << lagMs << "ms:" << decision.detail;
    QVERIFY2(decision.detail.contains(policy), qPrintable(decision.detail));
    QVERIFY2(decision.detail.contains(QStringLiteral("worker2")), qPrintable(decision.detail));
    QVERIFY(eventOf(id, QStringLiteral("kernel-exit"), seq).has_value());

    if (policy == u"restart-session") {
        // Every kernel (not only the dead one) runs again with a new start time within 20 s.
        QTRY_VERIFY_WITH_TIMEOUT(
            [&] {
                for (auto it = before.cbegin(); it != before.cend(); ++it) {
                    const QString now = m_lab.startedAt(it.value(), it.key());
                    if (now.isEmpty() || now == startedBefore.value(it.key()))
                        return false;
                }
                return show(id).value(QStringLiteral("status")).toString() == u"RUNNING";
            }(),
            20000);
        qInfo() << backend << "whole session running again" << sinceKill.elapsed()
                << "ms after the kill";
        const QJsonObject after = show(id);
        QCOMPARE(after.value(QStringLiteral("restart_count")).toInt(), 1);
        for (const QJsonValue &v : after.value(QStringLiteral("kernels")).toArray())
            QCOMPARE(v.toObject().value(QStringLiteral("status")).toString(),
                     QStringLiteral("RUNNING"));
        QCOMPARE(LabHosts::count(m_lab.containersOf(id)), 5);
    } else {
        QTRY_COMPARE_WITH_TIMEOUT(LabHosts::count(m_lab.containersOf(id)), 0, 10000);
        qInfo() << backend << "every container gone" << sinceKill.elapsed() << "ms after the kill";
        QTRY_COMPARE_WITH_TIMEOUT(show(id).value(QStringLiteral("status")).toString(),
                                  QStringLiteral("TERMINATED"), 10000);
        expectGone(id);
    }
    QVERIFY(controller.stop());
}

void TestController::restartLimitTerminates()
{
    // maxRestarts 1: the first kill restarts, the second terminates; nothing is left.
    useStore(QStringLiteral("sqlite"));
    const QJsonObject s = launch(QStringLiteral("ctllimit"), QStringLiteral("restart-session"), 1);
    const QString id = s.value(QStringLiteral("id")).toString();
    QVERIFY(!id.isEmpty());
    ControllerProcess controller(QStringLiteral(CLUSTERDECKCTL));
    controller.start(m_storeUrl, {});
    QVERIFY2(controller.waitFor(" leads", 20000), controller.err().constData());
    auto killWorker = [&](const QJsonObject &session) {
        for (const QJsonValue &v : session.value(QStringLiteral("kernels")).toArray()) {
            const QJsonObject k = v.toObject();
            if (k.value(QStringLiteral("hostname")).toString() == u"worker1")
                return m_lab
                           .docker(k.value(QStringLiteral("host")).toString(),
                                   {QStringLiteral("kill"),
                                    k.value(QStringLiteral("container_name")).toString()})
                           .exitCode == 0;
        }
        return false;
    };
    QVERIFY(killWorker(s));
    QTRY_COMPARE_WITH_TIMEOUT(show(id).value(QStringLiteral("restart_count")).toInt(), 1, 5000);
    QTRY_COMPARE_WITH_TIMEOUT(show(id).value(QStringLiteral("status")).toString(),
                              QStringLiteral("RUNNING"), 30000);
    QVERIFY(killWorker(show(id)));
    QTRY_COMPARE_WITH_TIMEOUT(show(id).value(QStringLiteral("status")).toString(),
                              QStringLiteral("TERMINATED"), 20000);
    expectGone(id);
    const auto decision = eventOf(id, QStringLiteral("policy"), 0);
    QVERIFY(decision);
    auto events = m_store->events(0, 100000);
    QVERIFY(events);
    bool limitLogged = false;
    for (const EventRecord &e : std::as_const(*events))
        limitLogged = limitLogged || (e.sessionId == id && e.detail.contains(u"restart limit"));
    QVERIFY2(limitLogged, "the second exit is logged as the restart limit");
    QVERIFY(controller.stop());
}

void TestController::vanishedKernelIsAFailure()
{
    // `docker rm -f` of a worker behind ClusterDeck's back, policy ignore: the kernel is not
    // silently recreated; it is marked and the session DEGRADED (the tree shows it within 2 s).
    useStore(QStringLiteral("sqlite"));
    const QJsonObject s = launch(QStringLiteral("ctlvanish"), QStringLiteral("ignore"), 0);
    const QString id = s.value(QStringLiteral("id")).toString();
    QVERIFY(!id.isEmpty());
    ControllerProcess controller(QStringLiteral(CLUSTERDECKCTL));
    controller.start(m_storeUrl, {QStringLiteral("--resync"), QStringLiteral("2")});
    QVERIFY2(controller.waitFor(" leads", 20000), controller.err().constData());
    QString victim, host;
    for (const QJsonValue &v : s.value(QStringLiteral("kernels")).toArray()) {
        const QJsonObject k = v.toObject();
        if (k.value(QStringLiteral("hostname")).toString() == u"worker3") {
            victim = k.value(QStringLiteral("container_name")).toString();
            host = k.value(QStringLiteral("host")).toString();
        }
    }
    QCOMPARE(m_lab.docker(host, {QStringLiteral("rm"), QStringLiteral("-f"), victim}).exitCode, 0);
    QTRY_COMPARE_WITH_TIMEOUT(show(id).value(QStringLiteral("status")).toString(),
                              QStringLiteral("DEGRADED"), 2000);
    QThread::sleep(5); // two resyncs: nothing may bring worker3 back on its own
    const QJsonObject after = show(id);
    QCOMPARE(after.value(QStringLiteral("status")).toString(), QStringLiteral("DEGRADED"));
    QCOMPARE(LabHosts::count(m_lab.containersOf(id)), 4);
    QVERIFY(controller.stop());
}

void TestController::successPolicy_data()
{
    QTest::addColumn<int>("launcherExit");
    QTest::newRow("launcher exits 0: COMPLETED") << 0;
    QTest::newRow("launcher exits 1: the failure policy") << 1;
}

void TestController::successPolicy()
{
    // A batch job: the launcher runs `sleep 2; exit N`, workers serve. primary-exits with a zero
    // exit → COMPLETED, the workers stopped, and ttlAfterFinished removes the containers; a
    // non-zero exit is a failure for terminate-session.
    QFETCH(int, launcherExit);
    useStore(QStringLiteral("sqlite"));
    const QString file = m_dir.filePath(QStringLiteral("batch.yaml"));
    QVERIFY(writeTextFile(file, QStringLiteral(R"(apiVersion: clusterdeck/v1
kind: Cluster
name: ctlbatch
mode: multi-node
failurePolicy:
  action: terminate-session
successPolicy: primary-exits
ttlAfterFinished: 4s
roles:
  - name: launcher
    count: 1
    task:
      image: clusterdeck/lab:latest
      command: [sh, -c, "sleep 2; exit %1"]
      resources: {cpus: 0.1, memory: 32m}
  - name: worker
    count: 3
    max: 4
    task:
      image: clusterdeck/lab:latest
      command: [sleep, "3600"]
      resources: {cpus: 0.1, memory: 32m}
)")
                                    .arg(launcherExit)));
    ControllerProcess controller(QStringLiteral(CLUSTERDECKCTL));
    controller.start(m_storeUrl, {QStringLiteral("--resync"), QStringLiteral("1")});
    QVERIFY2(controller.waitFor(" leads", 20000), controller.err().constData());
    // Settle shorter than the job, so that the launch reports RUNNING before the launcher ends.
    const Proc p = cli({QStringLiteral("launch"), file, QStringLiteral("--settle"),
                        QStringLiteral("0.5"), QStringLiteral("--json")});
    QVERIFY2(p.exitCode == 0, p.err.constData());
    const QString id =
        QJsonDocument::fromJson(p.out).object().value(QStringLiteral("id")).toString();
    QVERIFY(!id.isEmpty());
    m_sessions.append(id);
    QElapsedTimer t;
    t.start();
    if (launcherExit == 0) {
        QTRY_COMPARE_WITH_TIMEOUT(show(id).value(QStringLiteral("status")).toString(),
                                  QStringLiteral("COMPLETED"), 15000);
        qInfo() << "COMPLETED" << t.elapsed() << "ms after the launch returned";
        // Every worker stopped, the containers kept until the TTL, then removed.
        const QJsonObject done = show(id);
        for (const QJsonValue &v : done.value(QStringLiteral("kernels")).toArray()) {
            const QJsonObject k = v.toObject();
            QVERIFY2(k.value(QStringLiteral("status")).toString() != u"RUNNING",
                     qPrintable(k.value(QStringLiteral("hostname")).toString()));
        }
        const auto completed = eventOf(id, QStringLiteral("completed"), 0);
        QVERIFY(completed);
        QVERIFY2(completed->detail.contains(u"launcher1 exited with code 0"),
                 qPrintable(completed->detail));
        QTRY_COMPARE_WITH_TIMEOUT(LabHosts::count(m_lab.containersOf(id)), 0, 20000);
        qInfo() << "containers removed" << t.elapsed() << "ms after the launch (ttl 4 s)";
        QCOMPARE(show(id).value(QStringLiteral("status")).toString(), QStringLiteral("COMPLETED"));
    } else {
        QTRY_COMPARE_WITH_TIMEOUT(show(id).value(QStringLiteral("status")).toString(),
                                  QStringLiteral("TERMINATED"), 20000);
        const auto decision = eventOf(id, QStringLiteral("policy"), 0);
        QVERIFY(decision);
        QVERIFY2(decision->detail.contains(u"exited with code 1"), qPrintable(decision->detail));
        QVERIFY2(decision->detail.contains(u"terminate-session"), qPrintable(decision->detail));
        expectGone(id);
    }
    QVERIFY(controller.stop());
}

void TestController::failoverAfterKill9()
{
    // Two controllers on one etcd store: one leads; kill -9 of the leader → the other leads
    // within the lease TTL + 2 s. Five failovers, for the median.
    useStore(QStringLiteral("etcd"));
    const int ttl = 3;
    const QStringList args{QStringLiteral("--lease-ttl"), QString::number(ttl)};
    auto a = std::make_unique<ControllerProcess>(QStringLiteral(CLUSTERDECKCTL));
    a->start(m_storeUrl, args);
    QVERIFY2(a->waitFor(" leads", 20000), a->err().constData());
    QList<qint64> failovers;
    for (int round = 0; round < 5; ++round) {
        auto b = std::make_unique<ControllerProcess>(QStringLiteral(CLUSTERDECKCTL));
        b->start(m_storeUrl, args);
        QVERIFY2(b->waitFor("campaigning", 20000), b->err().constData());
        const auto before = leader();
        QVERIFY(before);
        QCOMPARE(before->pid, a->pid());
        a->signal(SIGKILL);
        QElapsedTimer t;
        t.start();
        QVERIFY2(b->waitFor(" leads", (ttl + 2) * 1000), b->err().constData());
        failovers.append(t.elapsed());
        const auto after = leader();
        QVERIFY(after);
        QCOMPARE(after->pid, b->pid());
        QVERIFY(after->term > before->term);
        a = std::move(b);
    }
    std::sort(failovers.begin(), failovers.end());
    qInfo().noquote() << QStringLiteral("leader failover after kill -9 (lease %1 s): median %2 ms, "
                                        "all %3")
                             .arg(ttl)
                             .arg(failovers.at(2))
                             .arg([&] {
                                 QStringList l;
                                 for (qint64 ms : failovers)
                                     l.append(QString::number(ms));
                                 return l.join(u' ');
                             }());
    QVERIFY(a->stop());
}

void TestController::pausedLeaderIsFenced()
{
    // SIGSTOP the leader past its lease, let the other take over, and make the paused one have
    // work to do (a kernel dies while it sleeps; its event stream buffers the event). After
    // SIGCONT it must write nothing — the etcd history from the takeover on has no write of
    // its — and it must say it does not lead any more.
    useStore(QStringLiteral("etcd"));
    const QJsonObject s = launch(QStringLiteral("ctlfence"), QStringLiteral("ignore"), 0);
    const QString id = s.value(QStringLiteral("id")).toString();
    QVERIFY(!id.isEmpty());
    const int ttl = 3;
    const QStringList args{QStringLiteral("--lease-ttl"), QString::number(ttl),
                           QStringLiteral("--resync"), QStringLiteral("1")};
    ControllerProcess a(QStringLiteral(CLUSTERDECKCTL)), b(QStringLiteral(CLUSTERDECKCTL));
    a.start(m_storeUrl, args);
    QVERIFY2(a.waitFor(" leads", 20000), a.err().constData());
    b.start(m_storeUrl, args);
    QVERIFY2(b.waitFor("campaigning", 20000), b.err().constData());
    const auto old = leader();
    QVERIFY(old && old->pid == a.pid());

    a.signal(SIGSTOP);
    QVERIFY2(b.waitFor(" leads", (ttl + 3) * 1000), b.err().constData());
    const auto now = leader();
    QVERIFY(now && now->pid == b.pid());
    // The revision from which every write must be b's.
    const QString endpoint = qEnvironmentVariable("CLUSTERDECK_LAB_ETCD");
    const QString prefix = QUrl(m_storeUrl).path();
    auto revision = [&] {
        const Proc p = runProcess(QStringLiteral("etcdctl"),
                                  {QStringLiteral("--endpoints"), endpoint, QStringLiteral("get"),
                                   prefix, QStringLiteral("--prefix"), QStringLiteral("--limit=1"),
                                   QStringLiteral("-w"), QStringLiteral("json")});
        return QJsonDocument::fromJson(p.out)
            .object()
            .value(QStringLiteral("header"))
            .toObject()
            .value(QStringLiteral("revision"))
            .toInteger();
    };
    const qint64 takeover = revision();
    QVERIFY(takeover > 0);

    // Work for both: worker1 dies. b (leading) records it; a is paused with the event queued.
    for (const QJsonValue &v : s.value(QStringLiteral("kernels")).toArray()) {
        const QJsonObject k = v.toObject();
        if (k.value(QStringLiteral("hostname")).toString() == u"worker1")
            QCOMPARE(m_lab
                         .docker(k.value(QStringLiteral("host")).toString(),
                                 {QStringLiteral("kill"),
                                  k.value(QStringLiteral("container_name")).toString()})
                         .exitCode,
                     0);
    }
    QTRY_COMPARE_WITH_TIMEOUT(show(id).value(QStringLiteral("status")).toString(),
                              QStringLiteral("DEGRADED"), 5000);
    a.signal(SIGCONT);
    QVERIFY2(a.waitFor("does not lead any more", 10000), a.err().constData());
    QThread::sleep(3); // let a do whatever it still would

    // Every change under the prefix since the takeover, with its value: none is a's.
    const Proc history =
        runProcess(QStringLiteral("timeout"),
                   {QStringLiteral("3"), QStringLiteral("etcdctl"), QStringLiteral("--endpoints"),
                    endpoint, QStringLiteral("watch"), prefix, QStringLiteral("--prefix"),
                    QStringLiteral("--rev=%1").arg(takeover + 1), QStringLiteral("-w"),
                    QStringLiteral("json")});
    QVERIFY2(!history.out.isEmpty(), "the history since the takeover is not empty (b wrote)");
    const QByteArray aOwner = old->ownerId.toUtf8();
    const QByteArray aActor = old->actor.toUtf8();
    int changes = 0;
    for (const QByteArray &line : history.out.split('\n')) {
        const QJsonObject w = QJsonDocument::fromJson(line).object();
        for (const QJsonValue &ev : w.value(QStringLiteral("Events")).toArray()) {
            const QJsonObject kv = ev.toObject().value(QStringLiteral("kv")).toObject();
            const QByteArray key =
                QByteArray::fromBase64(kv.value(QStringLiteral("key")).toString().toLatin1());
            const QByteArray value =
                QByteArray::fromBase64(kv.value(QStringLiteral("value")).toString().toLatin1());
            // Campaigning again is allowed: a candidate key under controller/leader/ is not an
            // act of leadership (it waits behind the leader's older key).
            if (key.contains("/controller/leader/"))
                continue;
            ++changes;
            QVERIFY2(
                !value.contains(aOwner) && !value.contains(aActor),
                qPrintable(QStringLiteral("the deposed leader wrote %1 after the takeover: %2")
                               .arg(QString::fromUtf8(key), QString::fromUtf8(value.left(300)))));
        }
    }
    qInfo() << changes << "changes under the prefix after the takeover, none by the paused leader";
    QVERIFY(changes > 0);
    const auto still = leader();
    QVERIFY(still && still->pid == b.pid());
    QVERIFY(a.stop());
    QVERIFY(b.stop());
}

// Issue 24 D.1: leader A is frozen (SIGSTOP, at the fail point where its whole-session restart
// has read the kernels and is about to stop them); B takes over and finishes it; A is resumed. A
// must touch nothing of B's: 30 s later every kernel still runs in the container, started at the
// time, B gave it, and no container of B's generation was destroyed (the daemons' event streams
// say). Before the local lease deadline, A woke up still believing it led, found B's containers by
// name and removed them. On etcd and on SQLite at once (two stores, two sessions, four
// controllers), so that both share the 30 s.
void TestController::leaderFrozenMidRestartTouchesNothing()
{
    struct Trial
    {
        QString backend;
        QString url;
        QString id;
        QJsonObject launched;
        std::unique_ptr<ControllerProcess> a, b;
        QMap<QString, QPair<QString, QString>> generation; // hostname → B's container, start
    };
    const int ttl = 3;
    const QStringList args{QStringLiteral("--lease-ttl"), QString::number(ttl)};
    auto cliOn = [](const QString &url, const QStringList &a) {
        return storeCli(QStringLiteral(CLUSTERDECKCTL), url, a, 240000);
    };
    auto showOn = [](const QString &url, const QString &id) {
        return showSession(QStringLiteral(CLUSTERDECKCTL), url, id, 240000);
    };
    std::vector<Trial> trials(2);
    trials[0].backend = QStringLiteral("etcd");
    trials[1].backend = QStringLiteral("sqlite");
    auto removeAll = qScopeGuard([&] {
        for (Trial &t : trials) {
            if (t.a)
                t.a->stop();
            if (t.b)
                t.b->stop();
            if (!t.id.isEmpty())
                cliOn(t.url, {QStringLiteral("rm"), t.id});
        }
    });
    for (Trial &t : trials) {
        useStore(t.backend);
        t.url = m_storeUrl;
        t.launched = launch(QStringLiteral("ctlfrozen"), QStringLiteral("restart-session"), 3);
        t.id = t.launched.value(QStringLiteral("id")).toString();
        QVERIFY(!t.id.isEmpty());
        m_sessions.removeAll(t.id); // removed below, with the store it belongs to
        t.a = std::make_unique<ControllerProcess>(QStringLiteral(CLUSTERDECKCTL));
        t.b = std::make_unique<ControllerProcess>(QStringLiteral(CLUSTERDECKCTL));
        // A freezes itself where its restart has read the kernels and is about to stop them.
        t.a->setEnvironmentVariable(QStringLiteral("CLUSTERDECK_FAILPOINT"),
                                    QStringLiteral("restart-before-stop"));
        // A failure shows when each controller did what, the provisioner's steps included.
        for (ControllerProcess *c : {t.a.get(), t.b.get()}) {
            c->setEnvironmentVariable(
                QStringLiteral("QT_MESSAGE_PATTERN"),
                QStringLiteral(
                    "%{time hh:mm:ss.zzz} %{if-category}%{category}: %{endif}%{message}"));
            c->setEnvironmentVariable(QStringLiteral("QT_LOGGING_RULES"),
                                      QStringLiteral("clusterdeck.*.debug=false\n"
                                                     "clusterdeck.*.info=false\n"
                                                     "clusterdeck.control.info=true\n"
                                                     "clusterdeck.provision.info=true"));
        }
        t.a->start(t.url, args);
        QVERIFY2(t.a->waitFor(" leads", 20000), t.a->err().constData());
        t.b->start(t.url, args);
        QVERIFY2(t.b->waitFor("campaigning", 20000), t.b->err().constData());
    }

    // worker1 dies: A restarts the whole session, and is frozen once it has begun.
    for (Trial &t : trials) {
        for (const QJsonValue &v : t.launched.value(QStringLiteral("kernels")).toArray()) {
            const QJsonObject k = v.toObject();
            if (k.value(QStringLiteral("hostname")).toString() != u"worker1")
                continue;
            QCOMPARE(m_lab
                         .docker(k.value(QStringLiteral("host")).toString(),
                                 {QStringLiteral("kill"),
                                  k.value(QStringLiteral("container_name")).toString()})
                         .exitCode,
                     0);
        }
    }
    for (Trial &t : trials)
        QVERIFY2(t.a->waitFor("fail point restart-before-stop reached", 20000),
                 t.a->err().constData());

    // B leads and finishes the restart; its generation is recorded.
    for (Trial &t : trials) {
        QVERIFY2(t.b->waitFor(" leads", (ttl + 5) * 1000), t.b->err().constData());
        QJsonObject shown;
        // By wall time (a QTRY over CLI calls stretched this 90 s wait to 7 minutes), and a
        // failure says what B and the store saw: 1 run in 20 did not finish here.
        const bool finished = waitUntil(
            [&] {
                t.generation.clear();
                shown = showOn(t.url, t.id);
                if (shown.value(QStringLiteral("status")).toString() != u"RUNNING")
                    return false;
                for (const QJsonValue &v : shown.value(QStringLiteral("kernels")).toArray()) {
                    const QJsonObject k = v.toObject();
                    const QString container = k.value(QStringLiteral("container_id")).toString();
                    if (k.value(QStringLiteral("status")).toString() != u"RUNNING")
                        return false;
                    t.generation.insert(
                        k.value(QStringLiteral("hostname")).toString(),
                        {container,
                         m_lab.startedAt(k.value(QStringLiteral("host")).toString(), container)});
                }
                return t.generation.size() == 5;
            },
            90000);
        auto eventsOf = [&] {
            QStringList lines;
            auto store = openStore(t.url);
            if (!store)
                return store.error().toString();
            auto events = (*store)->events(0, 100000);
            if (!events)
                return events.error().toString();
            for (const EventRecord &e : std::as_const(*events)) {
                if (e.sessionId == t.id || e.sessionId.isEmpty())
                    lines.append(QStringLiteral("%1 %2 [%3] %4: %5")
                                     .arg(e.at.toString(QStringLiteral("hh:mm:ss.zzz")), e.actor,
                                          e.kernelId.left(8), e.action, e.detail.left(400)));
            }
            return lines.join(u'\n');
        };
        // Printed apart: QtTest cuts a failure message at 1 KiB, before the controllers' output.
        if (!finished)
            qWarning().noquote() << t.backend << ": B did not finish the restart in 90 s;"
                                 << QJsonDocument(shown).toJson(QJsonDocument::Compact)
                                 << "\nevents:\n"
                                 << eventsOf()
                                 << "\nB:" << QString::fromUtf8(t.b->err().right(4000))
                                 << "\nA:" << QString::fromUtf8(t.a->err().right(2000));
        QVERIFY2(finished,
                 qPrintable(t.backend + QStringLiteral(": B did not finish the restart in "
                                                       "90 s (the session, its events "
                                                       "and both controllers' output "
                                                       "are above)")));
    }
    const QDateTime resumedAt = QDateTime::currentDateTimeUtc();
    for (Trial &t : trials)
        t.a->signal(SIGCONT);
    QElapsedTimer sinceResume;
    sinceResume.start();
    for (Trial &t : trials) {
        if (t.a->waitFor("does not lead any more", 15000)) {
            // How close a run comes to the 15 s: the failure's cause is still open.
            qInfo().noquote()
                << t.backend << ": A said it does not lead any more" << sinceResume.elapsed()
                << "ms after SIGCONT (waited from"
                << "the first SIGCONT); its output since the fail point:\n"
                << QString::fromUtf8(
                       t.a->err().mid(t.a->err().lastIndexOf("fail point")).left(3000));
            continue;
        }
        // 1 run in 20 (under load) printed nothing in these 15 s, not even the lost lease: what
        // A does next, and when, says where it was held up; so does where its threads are.
        const QString held = t.a->report();
        t.a->waitFor("does not lead any more", 45000);
        qWarning().noquote() << t.backend << ": A, resumed at"
                             << resumedAt.toLocalTime().toString(QStringLiteral("hh:mm:ss.zzz"))
                             << ", said nothing of its lost leadership for 15 s; its output "
                                "until 60 s after:\n"
                             << QString::fromUtf8(t.a->err().right(6000))
                             << "\nA's threads 15 s after SIGCONT:\n"
                             << held << "\nand 60 s after:\n"
                             << t.a->report();
        QFAIL(qPrintable(t.backend + QStringLiteral(": A did not notice its lost leadership "
                                                    "within 15 s of being resumed (its output "
                                                    "is above)")));
    }
    QThread::sleep(30);

    for (Trial &t : trials) {
        const QJsonObject after = showOn(t.url, t.id);
        QCOMPARE(after.value(QStringLiteral("status")).toString(), QStringLiteral("RUNNING"));
        QSet<QString> ours;
        for (const QJsonValue &v : after.value(QStringLiteral("kernels")).toArray()) {
            const QJsonObject k = v.toObject();
            const QString hostname = k.value(QStringLiteral("hostname")).toString();
            const QString container = k.value(QStringLiteral("container_id")).toString();
            QCOMPARE(container, t.generation.value(hostname).first);
            QCOMPARE(m_lab.startedAt(k.value(QStringLiteral("host")).toString(), container),
                     t.generation.value(hostname).second);
            ours.insert(container);
        }
        // The daemons' own record: no container of B's generation was destroyed.
        int destroyed = 0;
        for (const QString &h : m_lab.names()) {
            const Proc events = m_lab.docker(
                h, {QStringLiteral("events"), QStringLiteral("--since"),
                    QString::number(resumedAt.toSecsSinceEpoch() - 1), QStringLiteral("--until"),
                    QString::number(QDateTime::currentSecsSinceEpoch()), QStringLiteral("--filter"),
                    QStringLiteral("event=destroy"), QStringLiteral("--filter"),
                    QStringLiteral("label=io.clusterdeck.session=") + t.id,
                    QStringLiteral("--format"), QStringLiteral("{{.ID}}")});
            for (const QString &c :
                 QString::fromUtf8(events.out).split(u'\n', Qt::SkipEmptyParts)) {
                ++destroyed;
                QVERIFY2(!ours.contains(c),
                         qPrintable(QStringLiteral("%1: the resumed leader destroyed %2 on %3")
                                        .arg(t.backend, c, h)));
            }
        }
        qInfo().noquote() << t.backend
                          << ": B finished the restart; 30 s after A resumed, 5 kernels run in "
                             "B's containers with B's start times;"
                          << destroyed << "destroy event(s) of the session since";
    }
}

void TestController::launchRemoveRace()
{
    // The race the old reconciler lost: three processes launch and remove sessions on one etcd
    // store while a controller resyncs every second with no orphan grace. No launched session
    // may lose a container, and nothing may be left at the end.
    useStore(QStringLiteral("etcd"));
    const int seconds = qEnvironmentVariableIntValue("CLUSTERDECK_RACE_SECONDS") > 0
                            ? qEnvironmentVariableIntValue("CLUSTERDECK_RACE_SECONDS")
                            : 60;
    const QString file = m_dir.filePath(QStringLiteral("race.yaml"));
    QVERIFY(writeTextFile(file,
                          policyTemplate(QStringLiteral("ctlrace"), QStringLiteral("ignore"), 0)));
    ControllerProcess controller(QStringLiteral(CLUSTERDECKCTL));
    controller.start(m_storeUrl, {QStringLiteral("--resync"), QStringLiteral("1"),
                                  QStringLiteral("--grace"), QStringLiteral("1")});
    QVERIFY2(controller.waitFor(" leads", 20000), controller.err().constData());

    struct Lane
    {
        int launched = 0, failed = 0, lost = 0, removed = 0;
        QStringList problems;
        QStringList sessions;
    };
    QElapsedTimer clock;
    clock.start();
    auto lane = [&](int n) {
        Lane l;
        while (clock.elapsed() < seconds * 1000) {
            const Proc p = cli({QStringLiteral("launch"), file, QStringLiteral("--name"),
                                QStringLiteral("race%1-%2").arg(n).arg(l.launched + l.failed),
                                QStringLiteral("--count"), QStringLiteral("worker=1"),
                                QStringLiteral("--json")});
            const QJsonObject o = QJsonDocument::fromJson(p.out).object();
            const QString id = o.value(QStringLiteral("id")).toString();
            if (p.exitCode != 0 || id.isEmpty()) {
                ++l.failed;
                l.problems.append(QString::fromUtf8(p.err.trimmed().right(200)));
                if (!id.isEmpty())
                    l.sessions.append(id);
                if (l.failed >= 5)
                    break; // something is wrong, not racy: report it rather than spin
                continue;
            }
            ++l.launched;
            l.sessions.append(id);
            // Held across at least one resync: every kernel's container must stay.
            QThread::msleep(1500);
            const int have = LabHosts::count(m_lab.containersOf(id));
            if (have != 2) {
                ++l.lost;
                l.problems.append(QStringLiteral("%1 has %2 of 2 containers").arg(id).arg(have));
            }
            if (cli({QStringLiteral("rm"), id}).exitCode == 0)
                ++l.removed;
        }
        return l;
    };
    QList<QFuture<Lane>> lanes;
    for (int n = 0; n < 3; ++n)
        lanes.append(QtConcurrent::run(lane, n));
    Lane total;
    for (QFuture<Lane> &f : lanes) {
        const Lane l = f.result();
        total.launched += l.launched;
        total.failed += l.failed;
        total.lost += l.lost;
        total.removed += l.removed;
        total.problems += l.problems;
        m_sessions += l.sessions;
    }
    QVERIFY(controller.stop());
    // Whatever a failed launch may have left is the rollback's and the controller's to clean.
    for (const QString &id : std::as_const(m_sessions))
        cli({QStringLiteral("rm"), id});
    // Everything of this store on every host, whether or not a session id was ever printed.
    const QString storeLabel = QStringLiteral("io.clusterdeck.store=") + m_store->storeId();
    QTRY_COMPARE_WITH_TIMEOUT(LabHosts::count(m_lab.containersWith(storeLabel)), 0, 20000);
    QTRY_COMPARE_WITH_TIMEOUT(LabHosts::count(m_lab.networksWith(storeLabel)), 0, 20000);
    const int orphans = LabHosts::count(m_lab.containersWith(storeLabel)) +
                        LabHosts::count(m_lab.networksWith(storeLabel));
    qInfo().noquote() << QStringLiteral("race: %1 s, 3 lanes: %2 launched, %3 failed, %4 removed, "
                                        "%5 lost a container, %6 objects left")
                             .arg(seconds)
                             .arg(total.launched)
                             .arg(total.failed)
                             .arg(total.removed)
                             .arg(total.lost)
                             .arg(orphans);
    QVERIFY2(total.lost == 0, qPrintable(total.problems.join(u'\n')));
    QVERIFY2(total.failed == 0, qPrintable(total.problems.join(u'\n')));
    QVERIFY(total.launched >= 3);
    QCOMPARE(total.removed, total.launched);
    QCOMPARE(orphans, 0);
}

QTEST_GUILESS_MAIN(TestController)
#include "tst_controller.moc"
