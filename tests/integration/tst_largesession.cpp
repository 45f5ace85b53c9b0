// A session of more than 127 kernels on etcd (issue 24, item D.3): etcd refuses a transaction of
// more than 128 operations, and launch, the status batcher, a policy's restart, completion and
// removal all change whole sessions. A 1+140 session on the lab's etcd is launched (on simulated
// hosts also scaled to 1+5 and back), restarted by its policy after a kernel dies, completed by its
// primary's zero exit, and removed, each step checked against the hosts (the 300-kernel store
// contract rows test the store calls alone):
//  - onSimulatedHosts: the provisioner, the controller's exit handling and the session
//    controller over three simulated hosts (tests/support/fakedockerhost.h), in seconds;
//  - onTheLab: the same through clusterdeckctl and its controller on the lab's h1 (141 real
//    containers, about two minutes on the lab's two cores). It runs when CLUSTERDECK_TEST_LARGE=1
//    (`CLUSTERDECK_TEST_LARGE=1 scripts/test.sh -R tst_largesession`); CI runs the first only.
// Endpoints come from `eval "$(scripts/lab.sh env)"`.

#include "control/actionapplier.h"
#include "control/exitpolicy.h"
#include "fakedockerhost.h"
#include "host/hostregistry.h"
#include "labcli.h"
#include "provision/provisioner.h"
#include "provision/sessioncontroller.h"
#include "provision/sessionscaler.h"
#include "store/statestore.h"
#include "store/storefactory.h"
#include "template/templateloader.h"

#include <QElapsedTimer>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>
#include <QThread>
#include <QUrl>
#include <QUuid>

#ifndef CLUSTERDECKCTL
#error "CLUSTERDECKCTL must name the clusterdeckctl binary"
#endif

using namespace ClusterDeck;
using namespace ClusterDeck::TestSupport;
using namespace std::chrono_literals;

namespace {

constexpr int kWorkers = 140;

// Workers and the primary end on SIGTERM at once (a shell as PID 1 ignores it otherwise, and
// every stop would wait out its timeout); the primary exits 0 once /tmp/done exists.
QString largeTemplate()
{
    return QStringLiteral(R"(apiVersion: clusterdeck/v1
kind: Cluster
name: large
mode: single-node
failurePolicy:
  action: restart-session
  maxRestarts: 2
successPolicy: primary-exits
roles:
  - name: master
    count: 1
    task:
      image: clusterdeck/lab:latest
      command: [/bin/sh, -c, "trap 'exit 0' TERM; while [ ! -e /tmp/done ]; do sleep 1; done"]
      resources: {cpus: 0.01, memory: 8m}
  - name: worker
    count: %1
    min: 1
    max: %1
    task:
      image: clusterdeck/lab:latest
      command: [/bin/sh, -c, "trap 'exit 0' TERM; while true; do sleep 1; done"]
      resources: {cpus: 0.01, memory: 8m}
)")
        .arg(kWorkers);
}

} // namespace

class TestLargeSession : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void onSimulatedHosts();
    void onTheLab();
    void cleanup();

private:
    Proc cli(const QStringList &args, int timeoutMs = 300000) const
    {
        return storeCli(QStringLiteral(CLUSTERDECKCTL), m_storeUrl, args, timeoutMs);
    }
    QJsonObject show() const
    {
        return showSession(QStringLiteral(CLUSTERDECKCTL), m_storeUrl, m_sessionId);
    }
    // status → number of kernels with it.
    static QMap<QString, int> kernelStatuses(const QJsonObject &shown)
    {
        QMap<QString, int> count;
        for (const QJsonValue &k : shown.value(QStringLiteral("kernels")).toArray())
            ++count[k[QStringLiteral("status")].toString()];
        return count;
    }
    // container id → running?, of every container of this session on h1.
    QMap<QString, bool> liveContainers() const
    {
        QMap<QString, bool> live;
        const Proc p =
            m_lab.docker(QStringLiteral("h1"),
                         {QStringLiteral("ps"), QStringLiteral("-a"), QStringLiteral("--no-trunc"),
                          QStringLiteral("--filter"),
                          QStringLiteral("label=io.clusterdeck.session=") + m_sessionId,
                          QStringLiteral("--format"), QStringLiteral("{{.ID}} {{.State}}")});
        for (const QString &line : QString::fromUtf8(p.out).split(u'\n', Qt::SkipEmptyParts))
            live.insert(line.section(u' ', 0, 0), line.section(u' ', 1) == u"running");
        return live;
    }
    // Every kernel RUNNING in a live container its record names; none other of the session.
    bool allRunning(const QJsonObject &shown, QString *why) const
    {
        const QJsonArray kernels = shown.value(QStringLiteral("kernels")).toArray();
        const QMap<QString, bool> live = liveContainers();
        int running = 0;
        for (const QJsonValue &k : kernels)
            running += k[QStringLiteral("status")].toString() == u"RUNNING" &&
                       live.value(k[QStringLiteral("container_id")].toString());
        *why = QStringLiteral("session %1: %2 of %3 kernels running in their recorded container, "
                              "%4 containers on h1; %5")
                   .arg(shown.value(QStringLiteral("status")).toString())
                   .arg(running)
                   .arg(kernels.size())
                   .arg(live.size())
                   .arg(shown.value(QStringLiteral("last_error")).toString());
        return shown.value(QStringLiteral("status")).toString() == u"RUNNING" &&
               kernels.size() == kWorkers + 1 && running == kernels.size() &&
               live.size() == kernels.size();
    }

    LabHosts m_lab;
    QTemporaryDir m_dir;
    QString m_storeUrl;
    QString m_sessionId;
};

void TestLargeSession::initTestCase()
{
    m_lab = LabHosts::fromEnvironment();
    if (m_lab.names().isEmpty())
        QFAIL(qPrintable(LabHosts::error()));
    QVERIFY(m_dir.isValid());
}

void TestLargeSession::onSimulatedHosts()
{
    auto opened = openStore(QStringLiteral("etcd://%1/cdlarge-%2")
                                .arg(QUrl(qEnvironmentVariable("CLUSTERDECK_LAB_ETCD")).authority(),
                                     QUuid::createUuid().toString(QUuid::Id128).left(12)));
    QVERIFY2(opened, qPrintable(opened ? QString() : opened.error().toString()));
    StateStore &store = **opened;
    FakeDockerFleet fleet; // outlives the registry it is installed in
    HostRegistry registry(&store);
    auto installed = fleet.install(registry, 3);
    QVERIFY2(installed, qPrintable(installed ? QString() : installed.error().toString()));
    auto hostOf = [&](const KernelRecord &k) {
        return fleet.host(k.host);
    };
    // Every kernel RUNNING in the container its record names, and no other container.
    auto allRunning = [&](const QString &id, QString *why) {
        auto kernels = store.kernels(id);
        if (!kernels) {
            *why = kernels.error().toString();
            return false;
        }
        int running = 0;
        for (const KernelRecord &k : std::as_const(*kernels)) {
            const auto c = hostOf(k)->container(k.containerId);
            running += k.status == KernelStatus::Running && c && c->state == u"running";
        }
        *why = QStringLiteral("%1 of %2 kernels running in their container, %3 containers")
                   .arg(running)
                   .arg(kernels->size())
                   .arg(fleet.containerCount());
        return kernels->size() == kWorkers + 1 && running == kWorkers + 1 &&
               fleet.containerCount() == kWorkers + 1;
    };

    TemplateLoader loader;
    auto parsed =
        loader.loadClusterFromData(largeTemplate().toUtf8(), QStringLiteral("large.yaml"));
    QVERIFY2(parsed, qPrintable(parsed ? QString() : parsed.error().toString()));
    LaunchRequest request;
    request.clusterTemplate = *parsed;
    request.templateSource = largeTemplate();
    request.actor = QStringLiteral("tst_largesession");
    Provisioner provisioner(&store, &registry);
    provisioner.setSettlePeriod(0ms);
    auto launched = provisioner.launch(request);
    QVERIFY2(launched, qPrintable(launched ? QString() : launched.error().toString()));
    const QString id = launched->id;
    QString why;
    QVERIFY2(allRunning(id, &why), qPrintable(why));
    QCOMPARE(toString(store.session(id)->status), toString(SessionStatus::Running));

    // Scaled down by 135 workers and up again: a resize of more kernels than one txn takes.
    SessionScaler scaler(&store, &registry);
    scaler.setSettlePeriod(0ms);
    for (const int workers : {5, kWorkers}) {
        auto scaled = scaler.scale(id, {{QStringLiteral("worker"), workers}});
        QVERIFY2(scaled, qPrintable(scaled ? QString() : scaled.error().toString()));
        QCOMPARE(store.kernels(id)->size(), workers + 1);
        QCOMPARE(fleet.containerCount(), workers + 1);
    }
    QVERIFY2(allRunning(id, &why), qPrintable(why));

    // A worker dies: the policy restarts all 141 kernels.
    ActionApplier applier(&store, &registry, store.identity(), QStringLiteral("tst_largesession"));
    applier.setStopTimeout(1);
    auto exitOf = [&](const QString &hostname, int code) -> Result<std::optional<ExitDecision>> {
        auto kernels = store.kernels(id);
        if (!kernels)
            return fail(kernels.error());
        for (const KernelRecord &k : std::as_const(*kernels)) {
            if (k.hostname != hostname)
                continue;
            if (!hostOf(k)->exitContainer(k.containerId, code))
                return fail(Error::Kind::NotFound, k.host, QStringLiteral("no container"));
            KernelExit exit;
            exit.kernelId = k.id;
            exit.containerId = k.containerId;
            exit.exitCode = code;
            exit.host = k.host;
            return applier.handleExit(id, exit);
        }
        return fail(Error::Kind::NotFound, hostname, QStringLiteral("no such kernel"));
    };
    auto decided = exitOf(QStringLiteral("worker3"), 137);
    QVERIFY2(decided, qPrintable(decided ? QString() : decided.error().toString()));
    QVERIFY(decided->has_value());
    QCOMPARE(ExitDecision::name((*decided)->outcome),
             ExitDecision::name(ExitDecision::Outcome::RestartSession));
    QCOMPARE(toString(store.session(id)->status), toString(SessionStatus::Running));
    QCOMPARE(store.session(id)->restartCount, 1);
    QVERIFY2(allRunning(id, &why), qPrintable(why));
    // A single-node session restarts in place: each container once (the killed one too).
    const auto after = store.kernels(id);
    QVERIFY(after);
    for (const KernelRecord &k : std::as_const(*after)) {
        const auto c = hostOf(k)->container(k.containerId);
        QVERIFY2(c && c->restarts == 1,
                 qPrintable(k.hostname +
                            QStringLiteral(" restarted %1 times").arg(c ? c->restarts : -1)));
    }

    // The primary's zero exit completes it: the other kernels stopped, every kernel final.
    decided = exitOf(QStringLiteral("master1"), 0);
    QVERIFY2(decided, qPrintable(decided ? QString() : decided.error().toString()));
    QVERIFY(decided->has_value());
    QCOMPARE(ExitDecision::name((*decided)->outcome),
             ExitDecision::name(ExitDecision::Outcome::SessionCompleted));
    QCOMPARE(toString(store.session(id)->status), toString(SessionStatus::Completed));
    int running = 0;
    for (const auto &h : fleet.hosts())
        running += h->runningCount();
    QCOMPARE(running, 0);
    const auto completed = store.kernels(id);
    QVERIFY(completed);
    for (const KernelRecord &k : std::as_const(*completed))
        QVERIFY2(isFinal(k.status), qPrintable(k.hostname + u' ' + toString(k.status)));

    // Removed: nothing left on any host.
    SessionController sessions(&store, &registry);
    auto removed = sessions.terminate(id, QStringLiteral("test"));
    QVERIFY2(removed, qPrintable(removed ? QString() : removed.error().toString()));
    QCOMPARE(toString(store.session(id)->desired), toString(DesiredState::Terminated));
    QCOMPARE(fleet.containerCount(), 0);
}

void TestLargeSession::onTheLab()
{
    if (qEnvironmentVariable("CLUSTERDECK_TEST_LARGE") != u"1")
        QSKIP("141 containers on the lab take about two minutes: CLUSTERDECK_TEST_LARGE=1 runs it");
    m_storeUrl = QStringLiteral("etcd://%1/cdlarge-%2")
                     .arg(QUrl(qEnvironmentVariable("CLUSTERDECK_LAB_ETCD")).authority(),
                          QUuid::createUuid().toString(QUuid::Id128).left(12));
    // One host: the session is single-node, and the test counts containers on h1 alone.
    const Proc added = cli({QStringLiteral("host"), QStringLiteral("add"), QStringLiteral("h1"),
                            QStringLiteral("--docker"), m_lab.unixEndpoint(QStringLiteral("h1"))});
    QVERIFY2(added.exitCode == 0, added.err.constData());

    const QString file = m_dir.filePath(QStringLiteral("large.yaml"));
    QVERIFY(writeTextFile(file, largeTemplate()));
    QElapsedTimer step;
    step.start();
    const Proc launched = cli({QStringLiteral("launch"), file, QStringLiteral("--settle"),
                               QStringLiteral("0"), QStringLiteral("--json")});
    QVERIFY2(launched.exitCode == 0, launched.err.constData());
    m_sessionId = QJsonDocument::fromJson(launched.out)[QStringLiteral("id")].toString();
    QVERIFY(!m_sessionId.isEmpty());
    QString why;
    QVERIFY2(allRunning(show(), &why), qPrintable(why));
    qInfo("1+%d launched in %.1f s", kWorkers, double(step.elapsed()) / 1000);

    // A killed worker: the policy restarts all 141 kernels in place.
    ControllerProcess controller(QStringLiteral(CLUSTERDECKCTL));
    controller.start(m_storeUrl, {});
    QVERIFY2(controller.waitFor(" leads", 20000), controller.err().constData());
    const QJsonObject before = show();
    const Proc killed = m_lab.docker(
        QStringLiteral("h1"),
        {QStringLiteral("kill"), QStringLiteral("cd-%1-worker77").arg(m_sessionId.left(8))});
    QVERIFY2(killed.exitCode == 0, killed.err.constData());
    step.restart();
    QVERIFY2(waitUntil(
                 [&] {
                     const QJsonObject now = show();
                     return now.value(QStringLiteral("restart_count")).toInt() == 1 &&
                            allRunning(now, &why);
                 },
                 180000),
             qPrintable(why + u'\n' + QString::fromUtf8(controller.err())));
    qInfo("restarted by its policy in %.1f s", double(step.elapsed()) / 1000);
    const QString master1 = QStringLiteral("cd-%1-master1").arg(m_sessionId.left(8));
    QCOMPARE(show().value(QStringLiteral("kernels")).toArray().size(),
             before.value(QStringLiteral("kernels")).toArray().size());

    // The primary's zero exit completes it: every kernel final, no container left running.
    step.restart();
    const Proc done =
        m_lab.docker(QStringLiteral("h1"), {QStringLiteral("exec"), master1,
                                            QStringLiteral("touch"), QStringLiteral("/tmp/done")});
    QVERIFY2(done.exitCode == 0, done.err.constData());
    QVERIFY2(waitUntil(
                 [&] {
                     const QJsonObject now = show();
                     const QMap<QString, int> statuses = kernelStatuses(now);
                     why = now.value(QStringLiteral("status")).toString();
                     for (auto it = statuses.cbegin(); it != statuses.cend(); ++it)
                         why += QStringLiteral(" %1=%2").arg(it.key()).arg(it.value());
                     return now.value(QStringLiteral("status")).toString() == u"COMPLETED" &&
                            statuses.value(QStringLiteral("RUNNING")) == 0 &&
                            statuses.value(QStringLiteral("RESTARTING")) == 0;
                 },
                 120000),
             qPrintable(why));
    const QMap<QString, bool> stopped = liveContainers();
    QVERIFY2(std::none_of(stopped.cbegin(), stopped.cend(), [](bool running) { return running; }),
             "a kernel still runs after the session completed");
    qInfo("completed in %.1f s", double(step.elapsed()) / 1000);
    QVERIFY(controller.stop());

    step.restart();
    const Proc removed = cli({QStringLiteral("rm"), m_sessionId});
    QVERIFY2(removed.exitCode == 0, removed.err.constData());
    QCOMPARE(show().value(QStringLiteral("desired")).toString(), QStringLiteral("terminated"));
    QCOMPARE(liveContainers().size(), 0);
    qInfo("removed in %.1f s", double(step.elapsed()) / 1000);
}

void TestLargeSession::cleanup()
{
    if (!m_sessionId.isEmpty() && QTest::currentTestFailed())
        cli({QStringLiteral("rm"), m_sessionId});
}

QTEST_GUILESS_MAIN(TestLargeSession)
#include "tst_largesession.moc"
