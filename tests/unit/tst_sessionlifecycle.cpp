// Launch, rollback, restart, terminate and the exit policies over in-memory Docker hosts
// (tests/support/fakedockerhost.h) and the real SQLite store in a temporary directory: what the
// provisioner, the session controller and the controller's applier do to hosts and store,
// without the lab. What only a real daemon shows stays in tests/integration.

#include "common/boundedexecutor.h"
#include "common/labels.h"
#include "control/actionapplier.h"
#include "control/controller.h"
#include "control/exitpolicy.h"
#include "fakedockerhost.h"
#include "host/hostregistry.h"
#include "network/networksettings.h"
#include "provision/provisioner.h"
#include "provision/sessioncontroller.h"
#include "provision/sessionexec.h"
#include "store/recordjson.h"
#include "store/statestore.h"
#include "store/storefactory.h"
#include "template/templateloader.h"
#include "template/templatevalues.h"

#include <QDateTime>
#include <QElapsedTimer>
#include <QJsonArray>
#include <QJsonObject>
#include <QSet>
#include <QTemporaryDir>
#include <QTest>
#include <QUuid>
#include <algorithm>
#include <atomic>
#include <sqlite3.h>
#include <thread>

using namespace ClusterDeck;
using namespace ClusterDeck::TestSupport;
using namespace std::chrono_literals;

namespace {

// What the event intake hands the applier when `kernel`'s container exits with `code`.
KernelExit exitOf(const KernelRecord &kernel, int code)
{
    KernelExit exit;
    exit.kernelId = kernel.id;
    exit.containerId = kernel.containerId;
    exit.exitCode = code;
    exit.host = kernel.host;
    return exit;
}

QString templateText(const QString &name, const QString &mode, int workers,
                     const QString &failurePolicy = QStringLiteral("terminate-session"),
                     const QString &successPolicy = {})
{
    return QStringLiteral(R"(apiVersion: clusterdeck/v1
kind: Cluster
name: %1
mode: %2
failurePolicy:
  action: %4%5
roles:
  - name: master
    count: 1
    task:
      image: clusterdeck/lab:latest
      command: [sleep, "3600"]
      resources: {cpus: 0.1, memory: 32m}
  - name: worker
    count: %3
    max: 10000
    task:
      image: clusterdeck/lab:latest
      command: [sleep, "3600"]
      resources: {cpus: 0.1, memory: 32m}
)")
        .arg(name, mode)
        .arg(workers)
        .arg(failurePolicy,
             (failurePolicy == QLatin1String("restart-session")
                  ? QStringLiteral("\n  maxRestarts: 2")
                  : QString()) +
                 (successPolicy.isEmpty() ? QString()
                                          : QStringLiteral("\nsuccessPolicy: ") + successPolicy));
}

} // namespace

class TestSessionLifecycle : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void init();
    void cleanup();

    void launch_data();
    void launch();
    void launchFailureRollsBack_data();
    void launchFailureRollsBack();
    void launchWithHostDown();
    void startRetriesAnAttachmentTimeout_data();
    void startRetriesAnAttachmentTimeout();
    void restartStartAfterAnAttachmentTimeout_data();
    void restartStartAfterAnAttachmentTimeout();
    void launchStartAfterAnAttachmentTimeout_data();
    void launchStartAfterAnAttachmentTimeout();
    void storedSpecRoundTrips();
    void restart();
    void restartWaitsForNetworkTeardown_data();
    void restartWaitsForNetworkTeardown();
    void interruptedRestartIsDoneAnew();
    void terminate();
    void exitPolicy_data();
    void exitPolicy();
    void exitBurst_data();
    void exitBurst();
    void policyRestartWaitsForAHostThatDoesNotAnswer_data();
    void policyRestartWaitsForAHostThatDoesNotAnswer();
    void lostLeadershipNeverRollsBack();
    void execAndLogsOnlyInTheKernelsOwnContainer();
    void rollbackRemovesOnlyItsOwnVolumes_data();
    void rollbackRemovesOnlyItsOwnVolumes();
    void tamperedSpecIsNotRestartedFrom();
    void eventIntakeOverflowFallsBackToAPass();

private:
    Result<SessionRecord> launch(const QString &name, const QString &mode, int workers,
                                 const QString &failurePolicy = QStringLiteral("terminate-session"),
                                 const QString &successPolicy = {},
                                 const QList<Mount> &mounts = {});
    // Containers of a session on every fake host, host → container names.
    QMap<QString, QStringList> containersOf(const QString &sessionId) const;
    int countOf(const QString &sessionId) const;
    std::shared_ptr<FakeDockerHost> hostOf(const KernelRecord &k) { return m_fleet->host(k.host); }
    // One reconcile action for session `id`, applied as the controller's pass applies it.
    ReconcileReport applyOne(ActionApplier &applier, ReconcileAction::Kind kind, const QString &id);

    std::unique_ptr<QTemporaryDir> m_dir;
    std::unique_ptr<StateStore> m_store;
    std::unique_ptr<HostRegistry> m_registry;
    std::unique_ptr<FakeDockerFleet> m_fleet;
};

void TestSessionLifecycle::init()
{
    m_dir = std::make_unique<QTemporaryDir>();
    QVERIFY(m_dir->isValid());
    auto store = openStore(QStringLiteral("sqlite://") + m_dir->filePath(QStringLiteral("s.db")));
    QVERIFY2(store, qPrintable(store ? QString() : store.error().toString()));
    m_store = std::move(*store);
    // The fake hosts are one swarm and run no helper container: these are the Swarm path's cases
    // (a new store's default, vxlan, is tst_vxlannetwork's, on the lab).
    auto swarm = NetworkSettings::setDriver(*m_store, NetworkDriver::Swarm);
    QVERIFY2(swarm, qPrintable(swarm ? QString() : swarm.error().toString()));
    m_registry = std::make_unique<HostRegistry>(m_store.get());
    m_fleet = std::make_unique<FakeDockerFleet>();
    auto installed = m_fleet->install(*m_registry, 3);
    QVERIFY2(installed, qPrintable(installed ? QString() : installed.error().toString()));
}

void TestSessionLifecycle::cleanup()
{
    m_registry.reset();
    m_store.reset();
    m_fleet.reset();
    m_dir.reset();
}

Result<SessionRecord> TestSessionLifecycle::launch(const QString &name, const QString &mode,
                                                   int workers, const QString &failurePolicy,
                                                   const QString &successPolicy,
                                                   const QList<Mount> &mounts)
{
    TemplateLoader loader;
    const QString text = templateText(name, mode, workers, failurePolicy, successPolicy);
    auto t = loader.loadClusterFromData(text.toUtf8(), name + QStringLiteral(".yaml"));
    if (!t)
        return fail(t.error());
    LaunchRequest request;
    request.clusterTemplate = *t;
    request.templateSource = text;
    request.actor = QStringLiteral("tst_sessionlifecycle");
    request.options.sessionId = QUuid::createUuid().toString(QUuid::WithoutBraces);
    request.options.mounts = mounts;
    Provisioner provisioner(m_store.get(), m_registry.get());
    provisioner.setSettlePeriod(0ms);
    provisioner.setCallTimeout(5s);
    provisioner.setRollbackTimeout(5s);
    provisioner.setHungHostDetection(300ms, 2);
    return provisioner.launch(request);
}

QMap<QString, QStringList> TestSessionLifecycle::containersOf(const QString &sessionId) const
{
    QMap<QString, QStringList> out;
    for (const auto &h : m_fleet->hosts()) {
        for (const FakeDockerHost::Container &c : h->containers()) {
            if (c.spec.labels.value(Labels::session()) == sessionId)
                out[h->hostName()].append(c.spec.name);
        }
    }
    return out;
}

int TestSessionLifecycle::countOf(const QString &sessionId) const
{
    int n = 0;
    for (const QStringList &l : containersOf(sessionId))
        n += int(l.size());
    return n;
}

void TestSessionLifecycle::launch_data()
{
    QTest::addColumn<QString>("mode");
    QTest::addColumn<int>("workers");
    QTest::addColumn<int>("hostsUsed");
    QTest::newRow("single-node, 1+2 kernels on one host") << "single-node" << 2 << 1;
    QTest::newRow("multi-node, 1+5 kernels spread over 3 hosts") << "multi-node" << 5 << 3;
}

void TestSessionLifecycle::launch()
{
    QFETCH(QString, mode);
    QFETCH(int, workers);
    QFETCH(int, hostsUsed);
    auto s = launch(QStringLiteral("lc"), mode, workers);
    QVERIFY2(s, qPrintable(s ? QString() : s.error().toString()));
    QCOMPARE(toString(s->status), toString(SessionStatus::Running));
    QCOMPARE(RecordJson::sessionModeToText(s->mode), mode);

    auto stored = m_store->session(s->id);
    QVERIFY(stored);
    QCOMPARE(toString(stored->status), toString(SessionStatus::Running));
    QCOMPARE(toString(stored->desired), toString(DesiredState::Running));
    auto kernels = m_store->kernels(s->id);
    QVERIFY(kernels);
    QCOMPARE(kernels->size(), workers + 1);
    QSet<QString> hosts;
    for (const KernelRecord &k : std::as_const(*kernels)) {
        QCOMPARE(toString(k.status), toString(KernelStatus::Running));
        QVERIFY2(!k.containerId.isEmpty(), qPrintable(k.hostname));
        const auto c = hostOf(k)->container(k.containerId);
        QVERIFY2(c, qPrintable(k.hostname + QStringLiteral(" has no container on ") + k.host));
        QCOMPARE(c->state, QStringLiteral("running"));
        QCOMPARE(c->spec.hostname, k.hostname);
        QCOMPARE(c->spec.labels.value(Labels::session()), s->id);
        QCOMPARE(c->spec.labels.value(Labels::store()), m_store->storeId());
        hosts.insert(k.host);
    }
    QCOMPARE(hosts.size(), hostsUsed);
    QCOMPARE(countOf(s->id), workers + 1);
    // The session's network exists where the store says.
    QVERIFY(!stored->networkName.isEmpty());
    QVERIFY2(m_fleet->host(stored->networkHost)->networkNames().contains(stored->networkName),
             qPrintable(stored->networkHost + QStringLiteral(": ") + stored->networkName));
}

void TestSessionLifecycle::launchFailureRollsBack_data()
{
    QTest::addColumn<QString>("host");
    QTest::addColumn<QString>("call");
    QTest::addColumn<int>("nth");
    QTest::addColumn<bool>("madeContainers"); // the launch got as far as creating some
    QTest::addColumn<int>("createMs");        // how long a create takes in the daemons
    QTest::newRow("the 2nd create on h2 fails") << "h2"
                                                << "createContainer" << 2 << true << 0;
    QTest::newRow("the 1st create on h3 fails") << "h3"
                                                << "createContainer" << 1 << true << 0;
    // The other hosts' creates are under way when it fails: a create the launch aborted would
    // still be made by the daemon after the rollback looked (a clean-clone CI run left two).
    QTest::newRow("the 1st create on h3 fails, others under way")
        << "h3"
        << "createContainer" << 1 << true << 300;
    QTest::newRow("the 2nd start on h1 fails") << "h1"
                                               << "startContainer" << 2 << true << 0;
    QTest::newRow("the network cannot be made") << "h1"
                                                << "createNetwork" << 1 << false << 0;
}

void TestSessionLifecycle::launchFailureRollsBack()
{
    // A session of someone else runs on every host: the rollback must not touch it.
    auto bystander = launch(QStringLiteral("keep"), QStringLiteral("multi-node"), 5);
    QVERIFY2(bystander, qPrintable(bystander ? QString() : bystander.error().toString()));
    QCOMPARE(countOf(bystander->id), 6);
    QMap<QString, QStringList> kept = containersOf(bystander->id);

    QFETCH(QString, host);
    QFETCH(QString, call);
    QFETCH(int, nth);
    QFETCH(bool, madeContainers);
    QFETCH(int, createMs);
    for (const auto &h : m_fleet->hosts())
        h->setCreateTime(std::chrono::milliseconds(createMs));
    auto creates = [this] {
        int n = 0;
        for (const auto &h : m_fleet->hosts())
            n += h->calls(QStringLiteral("createContainer"));
        return n;
    };
    const int createsBefore = creates();
    m_fleet->host(host)->failNth(call, nth);
    QElapsedTimer timer;
    timer.start();
    auto failed = launch(QStringLiteral("doomed"), QStringLiteral("multi-node"), 8);
    QVERIFY(!failed);
    QVERIFY2(failed.error().toString().contains(QStringLiteral("injected failure")),
             qPrintable(failed.error().toString()));
    qInfo() << "launch failed and rolled back in" << timer.elapsed() << "ms";
    // The rollback had something to remove (or, when the network failed, nothing was made).
    QCOMPARE(creates() > createsBefore, madeContainers);
    // Every create the daemons had under way is done by now.
    QTest::qWait(createMs + 100);

    auto sessions = m_store->listSessions();
    QVERIFY(sessions);
    QString doomedId;
    for (const SessionRecord &s : std::as_const(sessions->sessions)) {
        if (s.id != bystander->id)
            doomedId = s.id;
    }
    QVERIFY(!doomedId.isEmpty());
    auto doomed = m_store->session(doomedId);
    QVERIFY(doomed);
    QCOMPARE(toString(doomed->status), toString(SessionStatus::Error));
    QCOMPARE(toString(doomed->desired), toString(DesiredState::Terminated));
    // Nothing of the failed session is left on any host, its network included…
    QCOMPARE(containersOf(doomedId), (QMap<QString, QStringList>{}));
    for (const auto &h : m_fleet->hosts())
        QVERIFY2(!h->networkNames().contains(doomed->networkName) ||
                     doomed->networkName == bystander->networkName,
                 qPrintable(h->hostName()));
    // …and the bystander is exactly as it was, every container running.
    QCOMPARE(containersOf(bystander->id), kept);
    auto keptKernels = m_store->kernels(bystander->id);
    QVERIFY(keptKernels);
    for (const KernelRecord &k : std::as_const(*keptKernels))
        QCOMPARE(hostOf(k)->container(k.containerId)->state, QStringLiteral("running"));
    QCOMPARE(toString(m_store->session(bystander->id)->status), toString(SessionStatus::Running));
}

void TestSessionLifecycle::launchWithHostDown()
{
    // h3 does not answer: placement leaves it out and the launch runs on h1 and h2.
    m_fleet->host(QStringLiteral("h3"))->setDown(true);
    auto s = launch(QStringLiteral("two"), QStringLiteral("multi-node"), 3);
    QVERIFY2(s, qPrintable(s ? QString() : s.error().toString()));
    const auto placed = containersOf(s->id);
    QCOMPARE(placed.keys(), (QStringList{QStringLiteral("h1"), QStringLiteral("h2")}));
    QCOMPARE(m_fleet->host(QStringLiteral("h3"))->containerCount(), 0);
}

void TestSessionLifecycle::storedSpecRoundTrips()
{
    // The spec kept in the store gives every kernel the environment its container got, and
    // keeps what all kernels share (the host lists) once, not once per kernel.
    auto s = launch(QStringLiteral("spec"), QStringLiteral("multi-node"), 6);
    QVERIFY2(s, qPrintable(s ? QString() : s.error().toString()));
    auto stored = m_store->session(s->id);
    QVERIFY(stored);
    const QJsonObject json = stored->launch.spec;
    QVERIFY(json.value(QStringLiteral("common_env"))
                .toObject()
                .contains(QStringLiteral("BACKEND_CLUSTER_HOSTS")));
    for (const QJsonValue &v : json.value(QStringLiteral("kernels")).toArray())
        QVERIFY(!v.toObject()
                     .value(QStringLiteral("env"))
                     .toObject()
                     .contains(QStringLiteral("BACKEND_CLUSTER_HOSTS")));
    // The file listing every kernel is kept once too.
    const QJsonArray sharedFiles = json.value(QStringLiteral("common_files")).toArray();
    QStringList sharedPaths;
    for (const QJsonValue &f : sharedFiles)
        sharedPaths.append(f.toObject().value(QStringLiteral("path")).toString());
    QVERIFY2(sharedPaths.contains(QStringLiteral("/etc/cluster/hosts")),
             qPrintable(sharedPaths.join(QLatin1Char(' '))));
    auto spec = SessionSpec::fromRecord(*stored, *m_store);
    QVERIFY2(spec, qPrintable(spec ? QString() : spec.error().toString()));
    QCOMPARE(spec->plan.kernels.size(), 7);
    auto kernels = m_store->kernels(s->id);
    QVERIFY(kernels);
    for (const KernelSpec &k : std::as_const(spec->plan.kernels)) {
        QVERIFY(k.env.value(QStringLiteral("BACKEND_CLUSTER_HOSTS")).contains(k.hostname));
        const auto hosts = std::find_if(k.files.cbegin(), k.files.cend(), [](const PlannedFile &f) {
            return f.path == QLatin1String("/etc/cluster/hosts");
        });
        QVERIFY2(hosts != k.files.cend(), qPrintable(k.hostname));
        QVERIFY(hosts->content.contains(QByteArray(k.hostname.toUtf8() + '\n')));
        const auto record =
            std::find_if(kernels->cbegin(), kernels->cend(),
                         [&](const KernelRecord &r) { return r.hostname == k.hostname; });
        QVERIFY(record != kernels->cend());
        const auto c = hostOf(*record)->container(record->containerId);
        QVERIFY(c);
        for (auto it = k.env.cbegin(); it != k.env.cend(); ++it)
            QVERIFY2(c->spec.env.contains(it.key() + QLatin1Char('=') + it.value()),
                     qPrintable(k.hostname + QStringLiteral(": ") + it.key()));
    }
}

void TestSessionLifecycle::restart()
{
    auto s = launch(QStringLiteral("rs"), QStringLiteral("single-node"), 3);
    QVERIFY2(s, qPrintable(s ? QString() : s.error().toString()));
    auto before = m_store->kernels(s->id);
    QVERIFY(before);
    SessionController sessions(m_store.get(), m_registry.get());
    sessions.setStopTimeout(1);
    auto restarted = sessions.restart(s->id, QStringLiteral("test"));
    QVERIFY2(restarted, qPrintable(restarted ? QString() : restarted.error().toString()));
    QCOMPARE(toString(restarted->status), toString(SessionStatus::Running));
    auto after = m_store->kernels(s->id);
    QVERIFY(after);
    QCOMPARE(after->size(), before->size());
    for (const KernelRecord &k : std::as_const(*after)) {
        QCOMPARE(toString(k.status), toString(KernelStatus::Running));
        const auto c = hostOf(k)->container(k.containerId);
        QVERIFY2(c, qPrintable(k.hostname));
        QCOMPARE(c->state, QStringLiteral("running"));
        QCOMPARE(c->restarts, 1);
    }
    QCOMPARE(countOf(s->id), 4);
}

void TestSessionLifecycle::startRetriesAnAttachmentTimeout_data()
{
    QTest::addColumn<int>("timeouts");  // starts in a row on h1 that miss the attachment deadline
    QTest::addColumn<bool>("notFound"); // "network … not found" (the node lags) instead
    QTest::addColumn<bool>("runs");
    QTest::newRow("one timeout: the second start attaches") << 1 << false << true;
    QTest::newRow("two timeouts: the third start attaches") << 2 << false << true;
    QTest::newRow("three timeouts: the launch fails and rolls back") << 3 << false << false;
    QTest::newRow("new overlay not found once: the second start attaches") << 1 << true << true;
    QTest::newRow("new overlay not found three times: fails and rolls back") << 3 << true << false;
}

// "attaching to network failed … context deadline exceeded" is a busy swarm manager, not a bad
// request: the start is tried up to three times.
void TestSessionLifecycle::startRetriesAnAttachmentTimeout()
{
    QFETCH(int, timeouts);
    QFETCH(bool, notFound);
    QFETCH(bool, runs);
    const Error timeout =
        notFound ? Error::make(Error::Kind::NotFound, QStringLiteral("host h1 (fake)"),
                               QStringLiteral("network r7f9hfbqqy898l8nppite8zqf not found"), 404)
                 : Error::make(Error::Kind::Http, QStringLiteral("host h1 (fake)"),
                               QStringLiteral("attaching to network failed, make sure your network "
                                              "options are correct and check manager logs: context "
                                              "deadline exceeded"),
                               500);
    for (int i = 0; i < timeouts; ++i)
        m_fleet->host(QStringLiteral("h1"))
            ->addFault({QStringLiteral("startContainer"), 1, timeout});
    auto s = launch(QStringLiteral("att"), QStringLiteral("multi-node"), 2);
    QCOMPARE(bool(s), runs);
    if (runs) {
        QCOMPARE(countOf(s->id), 3);
        QCOMPARE(toString(m_store->session(s->id)->status), toString(SessionStatus::Running));
    } else {
        QVERIFY2(s.error().toString().contains(notFound ? QStringLiteral("not found")
                                                        : QStringLiteral("deadline exceeded")),
                 qPrintable(s.error().toString()));
        for (const auto &h : m_fleet->hosts())
            QCOMPARE(h->containerCount(), 0);
    }
}

void TestSessionLifecycle::restartStartAfterAnAttachmentTimeout_data()
{
    QTest::addColumn<QStringList>("errors"); // what the kernel's starts answer, in order
    QTest::addColumn<bool>("runs");
    QTest::newRow("attachment timeout, then the dropped network not found: the third start runs")
        << QStringList{QStringLiteral("timeout"), QStringLiteral("not found")} << true;
    QTest::newRow("attachment timeout twice: the third start runs")
        << QStringList{QStringLiteral("timeout"), QStringLiteral("timeout")} << true;
    QTest::newRow("timeout, not found, not found: three starts, the restart fails")
        << QStringList{QStringLiteral("timeout"), QStringLiteral("not found"),
                       QStringLiteral("not found")}
        << false;
    QTest::newRow("not found without an attachment failure: the teardown wait's, not retried")
        << QStringList{QStringLiteral("not found")} << false;
}

// The lab flake of tst_controller leaderFrozenMidRestartTouchesNothing: on a busy swarm the first
// start of a restarted kernel on a reused overlay missed the attachment deadline (HTTP 500); the
// daemon undid the attachment, the node dropped its instance of the overlay, and the second start
// found "network … not found" (HTTP 404), which on a reused overlay ended the restart: the whole
// session was rolled back to ERROR, for good. After an attachment failure the start waits for the
// node's teardown and that "not found" is tried again (three starts in all, as for a timeout).
void TestSessionLifecycle::restartStartAfterAnAttachmentTimeout()
{
    QFETCH(QStringList, errors);
    QFETCH(bool, runs);
    auto s = launch(QStringLiteral("rat"), QStringLiteral("multi-node"), 2);
    QVERIFY2(s, qPrintable(s ? QString() : s.error().toString()));
    auto kernels = m_store->kernels(s->id);
    QVERIFY(kernels);
    // A host with one kernel of the session: the nth start there is that kernel's.
    QMap<QString, int> perHost;
    for (const KernelRecord &k : std::as_const(*kernels))
        ++perHost[k.host];
    const QString host = perHost.key(1);
    QVERIFY2(!host.isEmpty(), "no host holds exactly one kernel");
    for (int i = 0; i < errors.size(); ++i) {
        const Error e =
            errors.at(i) == u"timeout"
                ? Error::make(Error::Kind::Http, host,
                              QStringLiteral("attaching to network failed, make sure your network "
                                             "options are correct and check manager logs: context "
                                             "deadline exceeded"),
                              500)
                : Error::make(Error::Kind::NotFound, host,
                              QStringLiteral("network wxp2qngpxrqtwg2lvsa2fvv3b not found"), 404);
        m_fleet->host(host)->addFault({QStringLiteral("startContainer"), 1, e}); // in turn
    }
    SessionController sessions(m_store.get(), m_registry.get());
    sessions.setStopTimeout(1);
    auto restarted = sessions.restart(s->id, QStringLiteral("test"));
    QCOMPARE(bool(restarted), runs);
    if (runs) {
        QCOMPARE(toString(m_store->session(s->id)->status), toString(SessionStatus::Running));
        auto after = m_store->kernels(s->id);
        QVERIFY(after);
        for (const KernelRecord &k : std::as_const(*after))
            QCOMPARE(toString(k.status), toString(KernelStatus::Running));
        QCOMPARE(countOf(s->id), 3);
    } else {
        QVERIFY2(restarted.error().toString().contains(QStringLiteral("not found")),
                 qPrintable(restarted.error().toString()));
    }
}

void TestSessionLifecycle::launchStartAfterAnAttachmentTimeout_data()
{
    QTest::addColumn<int>("teardownInspects");
    QTest::newRow("instance dropped after 1 inspection") << 1;
    QTest::newRow("instance dropped after 8 inspections") << 8;
}

// The chaos suite's console-and-cli flake: on an overlay this launch had just made, a kernel's
// first start missed the attachment deadline (HTTP 500); the node then dropped the instance it had
// made for that attachment, and both later starts found "network … not found" (HTTP 404): the
// launch was rolled back. The wait for that node's teardown now comes after an attachment failure
// on any overlay, not only on a reused one.
void TestSessionLifecycle::launchStartAfterAnAttachmentTimeout()
{
    QFETCH(int, teardownInspects);
    const Error timeout = Error::make(
        Error::Kind::Http, QStringLiteral("h"),
        QStringLiteral("attaching to network failed, make sure your network options are correct "
                       "and check manager logs: context deadline exceeded"),
        500);
    for (const auto &h : m_fleet->hosts()) {
        h->setNetworkTeardownInspects(teardownInspects);
        h->addFault({QStringLiteral("startContainer"), 1, timeout});
    }
    auto s = launch(QStringLiteral("lat"), QStringLiteral("multi-node"), 2);
    QVERIFY2(s, qPrintable(s ? QString() : s.error().toString()));
    QCOMPARE(toString(s->status), toString(SessionStatus::Running));
    const auto manager = m_fleet->host(s->networkHost);
    // The network lives on its manager in the fake fleet: only there is an instance dropped.
    auto kernels = m_store->kernels(s->id);
    QVERIFY(kernels);
    QVERIFY2(std::any_of(kernels->cbegin(), kernels->cend(),
                         [&](const KernelRecord &k) { return k.host == s->networkHost; }),
             "no kernel on the network's host: the case would not test the wait");
    for (const auto &h : m_fleet->hosts())
        QCOMPARE(h->stuckAttachments(), 0);
    QCOMPARE(manager->calls(QStringLiteral("startContainer")) >= 2, true);
    for (const KernelRecord &k : std::as_const(*kernels))
        QCOMPARE(toString(k.status), toString(KernelStatus::Running));
    QCOMPARE(countOf(s->id), 3);
}

void TestSessionLifecycle::restartWaitsForNetworkTeardown_data()
{
    QTest::addColumn<int>("teardownInspects");
    QTest::newRow("dropped at once") << 0;
    QTest::newRow("dropped after 3 inspections") << 3;
    QTest::newRow("dropped after 12 inspections") << 12;
}

// A multi-node restart removes every container and starts new ones on the same overlay: a start
// on a node still dropping its instance of the network would fail and leave a stuck swarm
// attachment. The provisioner waits until no node holds an instance without containers.
void TestSessionLifecycle::restartWaitsForNetworkTeardown()
{
    QFETCH(int, teardownInspects);
    auto s = launch(QStringLiteral("rsn"), QStringLiteral("multi-node"), 5);
    QVERIFY2(s, qPrintable(s ? QString() : s.error().toString()));
    const QString networkHost = m_store->session(s->id)->networkHost;
    const auto manager = m_fleet->host(networkHost);
    auto kernels = m_store->kernels(s->id);
    QVERIFY(kernels);
    QVERIFY2(std::any_of(kernels->cbegin(), kernels->cend(),
                         [&](const KernelRecord &k) { return k.host == networkHost; }),
             "no kernel on the network's host: the case would not test the wait");
    manager->setNetworkTeardownInspects(teardownInspects);
    const int inspectsBefore = manager->calls(QStringLiteral("inspectNetwork"));

    SessionController sessions(m_store.get(), m_registry.get());
    sessions.setStopTimeout(1);
    auto restarted = sessions.restart(s->id, QStringLiteral("test"));
    QVERIFY2(restarted, qPrintable(restarted ? QString() : restarted.error().toString()));
    QCOMPARE(toString(restarted->status), toString(SessionStatus::Running));
    QCOMPARE(manager->stuckAttachments(), 0);
    // The adopted network is inspected once, then once more per inspection of the teardown.
    QVERIFY2(
        manager->calls(QStringLiteral("inspectNetwork")) - inspectsBefore >= teardownInspects + 1,
        qPrintable(
            QString::number(manager->calls(QStringLiteral("inspectNetwork")) - inspectsBefore)));
    kernels = m_store->kernels(s->id);
    QVERIFY(kernels);
    for (const KernelRecord &k : std::as_const(*kernels))
        QCOMPARE(toString(k.status), toString(KernelStatus::Running));
    QCOMPARE(countOf(s->id), 6);
}

// A controller killed in the middle of a whole-session restart leaves the session RESTARTING,
// with containers of the old generation still there (their stops may still run in the daemons).
// The next controller does the restart again from its start: every old container removed, the
// overlay's teardown awaited, then new containers; none started during the teardown.
void TestSessionLifecycle::interruptedRestartIsDoneAnew()
{
    auto s = launch(QStringLiteral("irs"), QStringLiteral("multi-node"), 5);
    QVERIFY2(s, qPrintable(s ? QString() : s.error().toString()));
    auto before = m_store->kernels(s->id);
    QVERIFY(before);
    QSet<QString> oldIds;
    for (const KernelRecord &k : std::as_const(*before))
        oldIds.insert(k.containerId);
    auto session = m_store->session(s->id);
    QVERIFY(session);
    session->changeStatus(SessionStatus::Restarting, QDateTime::currentDateTimeUtc(),
                          QStringLiteral("a restart, then kill -9"));
    QVERIFY(m_store->updateSession(*session));
    const auto manager = m_fleet->host(session->networkHost);
    manager->setNetworkTeardownInspects(5);

    ActionApplier applier(m_store.get(), m_registry.get(), m_store->identity(),
                          QStringLiteral("tst_sessionlifecycle"));
    applier.setStopTimeout(1);
    ReconcilePlan plan;
    plan.actions.append({ReconcileAction::Kind::CompleteSession, s->id, QString(), QString(),
                         QString(), s->name, std::nullopt, QStringLiteral("a restart")});
    auto hosts = m_registry->list();
    QVERIFY(hosts);
    const ReconcileReport report = applier.apply(plan, *hosts);
    QVERIFY2(!report.applied.isEmpty() && report.applied.constFirst().done,
             qPrintable(report.applied.isEmpty() ? report.warnings.join(QStringLiteral("; "))
                                                 : report.applied.constFirst().outcome));
    QCOMPARE(toString(m_store->session(s->id)->status), toString(SessionStatus::Running));
    QCOMPARE(manager->stuckAttachments(), 0);
    auto after = m_store->kernels(s->id);
    QVERIFY(after);
    for (const KernelRecord &k : std::as_const(*after)) {
        QCOMPARE(toString(k.status), toString(KernelStatus::Running));
        QVERIFY2(!oldIds.contains(k.containerId), qPrintable(k.hostname + u" kept its container"));
    }
    QCOMPARE(countOf(s->id), 6);
}

void TestSessionLifecycle::terminate()
{
    auto keep = launch(QStringLiteral("keep"), QStringLiteral("multi-node"), 4);
    QVERIFY2(keep, qPrintable(keep ? QString() : keep.error().toString()));
    auto gone = launch(QStringLiteral("gone"), QStringLiteral("multi-node"), 4);
    QVERIFY2(gone, qPrintable(gone ? QString() : gone.error().toString()));
    const QString network = m_store->session(gone->id)->networkName;
    const QString networkHost = m_store->session(gone->id)->networkHost;
    QVERIFY(m_fleet->host(networkHost)->networkNames().contains(network));
    const auto kept = containersOf(keep->id);

    SessionController sessions(m_store.get(), m_registry.get());
    auto t = sessions.terminate(gone->id, QStringLiteral("test"));
    QVERIFY2(t, qPrintable(t ? QString() : t.error().toString()));
    QCOMPARE(toString(t->status), toString(SessionStatus::Terminated));
    QCOMPARE(toString(m_store->session(gone->id)->status), toString(SessionStatus::Terminated));
    QCOMPARE(toString(m_store->session(gone->id)->desired), toString(DesiredState::Terminated));
    QCOMPARE(countOf(gone->id), 0);
    QVERIFY(!m_fleet->host(networkHost)->networkNames().contains(network));
    auto goneKernels = m_store->kernels(gone->id);
    QVERIFY(goneKernels);
    for (const KernelRecord &k : std::as_const(*goneKernels))
        QCOMPARE(toString(k.status), toString(KernelStatus::Terminated));
    QCOMPARE(containersOf(keep->id), kept);
    QCOMPARE(toString(m_store->session(keep->id)->status), toString(SessionStatus::Running));
}

void TestSessionLifecycle::exitPolicy_data()
{
    QTest::addColumn<QString>("failurePolicy");
    QTest::addColumn<QString>("successPolicy");
    QTest::addColumn<QString>("exiting"); // kernel hostname
    QTest::addColumn<int>("exitCode");
    QTest::addColumn<int>("outcome"); // ExitDecision::Outcome
    QTest::addColumn<int>("status");  // SessionStatus
    QTest::addColumn<int>("containersLeft");
    QTest::addColumn<int>("running");
    QTest::addColumn<QString>("mode");

    using O = ExitDecision::Outcome;
    QTest::newRow("ignore: worker exits 1 → DEGRADED, the rest runs")
        << "ignore"
        << ""
        << "worker2" << 1 << int(O::Ignore) << int(SessionStatus::Degraded) << 4 << 3
        << "single-node";
    QTest::newRow("terminate-session: worker exits 137 → all removed")
        << "terminate-session"
        << ""
        << "worker1" << 137 << int(O::TerminateSession) << int(SessionStatus::Terminated) << 0 << 0
        << "single-node";
    QTest::newRow("restart-session: worker exits 1 → every kernel runs again")
        << "restart-session"
        << ""
        << "worker3" << 1 << int(O::RestartSession) << int(SessionStatus::Running) << 4 << 4
        << "single-node";
    QTest::newRow("primary-exits: master exits 0 → COMPLETED, the others stopped")
        << "terminate-session"
        << "primary-exits"
        << "master1" << 0 << int(O::SessionCompleted) << int(SessionStatus::Completed) << 4 << 0
        << "single-node";
    QTest::newRow("primary-exits: master exits 2 → the failure policy")
        << "terminate-session"
        << "primary-exits"
        << "master1" << 2 << int(O::TerminateSession) << int(SessionStatus::Terminated) << 0 << 0
        << "single-node";
    // The fake hosts' multi-node sessions are on a Swarm overlay, which may release its
    // endpoints all at once: the others are stopped where they are.
    QTest::newRow("primary-exits on an overlay: master exits 0 → COMPLETED, the others stopped")
        << "terminate-session"
        << "primary-exits"
        << "master1" << 0 << int(O::SessionCompleted) << int(SessionStatus::Completed) << 4 << 0
        << "multi-node";
}

void TestSessionLifecycle::exitPolicy()
{
    QFETCH(QString, failurePolicy);
    QFETCH(QString, successPolicy);
    QFETCH(QString, exiting);
    QFETCH(int, exitCode);
    QFETCH(int, outcome);
    QFETCH(int, status);
    QFETCH(int, containersLeft);
    QFETCH(int, running);
    QFETCH(QString, mode);

    auto s = launch(QStringLiteral("pol"), mode, 3, failurePolicy, successPolicy);
    QVERIFY2(s, qPrintable(s ? QString() : s.error().toString()));
    auto kernels = m_store->kernels(s->id);
    QVERIFY(kernels);
    const auto it = std::find_if(kernels->cbegin(), kernels->cend(),
                                 [&](const KernelRecord &k) { return k.hostname == exiting; });
    QVERIFY2(it != kernels->cend(), qPrintable(exiting));
    const KernelRecord k = *it;
    QVERIFY(hostOf(k)->exitContainer(k.containerId, exitCode));

    ActionApplier applier(m_store.get(), m_registry.get(), m_store->identity(),
                          QStringLiteral("tst_sessionlifecycle"));
    applier.setStopTimeout(1);
    auto decided = applier.handleExit(s->id, exitOf(k, exitCode));
    QVERIFY2(decided, qPrintable(decided ? QString() : decided.error().toString()));
    QVERIFY(decided->has_value());
    QCOMPARE(ExitDecision::name(ExitDecision::Outcome((*decided)->outcome)),
             ExitDecision::name(ExitDecision::Outcome(outcome)));

    auto after = m_store->session(s->id);
    QVERIFY(after);
    QCOMPARE(toString(after->status), toString(SessionStatus(status)));
    QCOMPARE(countOf(s->id), containersLeft);
    QCOMPARE(hostOf(k)->runningCount(), running);
    if (outcome == int(ExitDecision::Outcome::RestartSession))
        QCOMPARE(after->restartCount, 1);
    auto exited = m_store->kernel(s->id, k.id);
    if (exited && outcome == int(ExitDecision::Outcome::Ignore))
        QCOMPARE(toString(exited->status), toString(KernelStatus::Error));
    if (outcome == int(ExitDecision::Outcome::SessionCompleted)) {
        // On a host-local bridge the others left the session's network one at a time before
        // they were stopped together (dockerd 20.10 can miscount endpoints released at once);
        // on an overlay they were stopped where they were.
        const bool leftFirst = mode == u"single-node";
        auto all = m_store->kernels(s->id);
        QVERIFY(all);
        for (const KernelRecord &r : std::as_const(*all)) {
            if (r.id == k.id)
                continue;
            const auto c = hostOf(r)->container(r.containerId);
            QVERIFY2(c, qPrintable(r.hostname));
            QCOMPARE(c->state, QStringLiteral("exited"));
            QVERIFY2(c->spec.endpoints.contains(after->networkName) != leftFirst,
                     qPrintable(
                         r.hostname +
                         (leftFirst ? QStringLiteral(" is still on ") : QStringLiteral(" left ")) +
                         after->networkName));
        }
    }
}

void TestSessionLifecycle::exitBurst_data()
{
    QTest::addColumn<QString>("failurePolicy");
    QTest::addColumn<QString>("successPolicy");
    QTest::addColumn<QStringList>("exiting");  // kernel hostname=exit code, in the order they died
    QTest::addColumn<QStringList>("outcomes"); // the decisions made, in order
    QTest::addColumn<int>("status");           // SessionStatus
    QTest::addColumn<int>("restarts");
    QTest::addColumn<int>("running");

    const QString ignore = ExitDecision::name(ExitDecision::Outcome::Ignore);
    QTest::newRow("ignore: three workers at once → three decisions, DEGRADED")
        << "ignore"
        << "" << QStringList{"worker1=1", "worker2=137", "worker3=2"}
        << QStringList{ignore, ignore, ignore} << int(SessionStatus::Degraded) << 0 << 1;
    QTest::newRow("restart-session: three workers at once → one restart")
        << "restart-session"
        << "" << QStringList{"worker1=1", "worker2=1", "worker3=1"}
        << QStringList{ExitDecision::name(ExitDecision::Outcome::RestartSession)}
        << int(SessionStatus::Running) << 1 << 4;
    QTest::newRow("terminate-session: two at once → one terminate")
        << "terminate-session"
        << "" << QStringList{"worker2=1", "worker3=1"}
        << QStringList{ExitDecision::name(ExitDecision::Outcome::TerminateSession)}
        << int(SessionStatus::Terminated) << 0 << 0;
    QTest::newRow("ignore, then the primary succeeds → recorded, then COMPLETED")
        << "ignore"
        << "primary-exits" << QStringList{"worker2=1", "master1=0"}
        << QStringList{ignore, ExitDecision::name(ExitDecision::Outcome::SessionCompleted)}
        << int(SessionStatus::Completed) << 0 << 0;
    QTest::newRow("the same kernel twice → decided once")
        << "ignore"
        << "" << QStringList{"worker1=1", "worker1=1"} << QStringList{ignore}
        << int(SessionStatus::Degraded) << 0 << 3;
}

void TestSessionLifecycle::exitBurst()
{
    // A burst of one session's deaths is decided under one lock (ActionApplier::handleExits):
    // each decided on what the ones before it left, the recorded ones written together.
    QFETCH(QString, failurePolicy);
    QFETCH(QString, successPolicy);
    QFETCH(QStringList, exiting);
    QFETCH(QStringList, outcomes);
    QFETCH(int, status);
    QFETCH(int, restarts);
    QFETCH(int, running);

    auto s = launch(QStringLiteral("burst"), QStringLiteral("single-node"), 3, failurePolicy,
                    successPolicy);
    QVERIFY2(s, qPrintable(s ? QString() : s.error().toString()));
    auto kernels = m_store->kernels(s->id);
    QVERIFY(kernels);
    auto before = m_store->session(s->id);
    QVERIFY(before);
    QList<KernelExit> exits;
    QSet<QString> failed;
    for (const QString &e : std::as_const(exiting)) {
        const QString name = e.section(u'=', 0, 0);
        const int code = e.section(u'=', 1).toInt();
        const auto it = std::find_if(kernels->cbegin(), kernels->cend(),
                                     [&](const KernelRecord &k) { return k.hostname == name; });
        QVERIFY2(it != kernels->cend(), qPrintable(name));
        hostOf(*it)->exitContainer(it->containerId, code);
        exits.append(exitOf(*it, code));
        if (code != 0)
            failed.insert(it->id);
    }

    ActionApplier applier(m_store.get(), m_registry.get(), m_store->identity(),
                          QStringLiteral("tst_sessionlifecycle"));
    applier.setStopTimeout(1);
    auto decided = applier.handleExits(s->id, exits);
    QVERIFY2(decided, qPrintable(decided ? QString() : decided.error().toString()));
    QStringList names;
    for (const ExitDecision &d : std::as_const(*decided))
        names.append(ExitDecision::name(d.outcome));
    QCOMPARE(names, outcomes);

    auto after = m_store->session(s->id);
    QVERIFY(after);
    QCOMPARE(toString(after->status), toString(SessionStatus(status)));
    QCOMPARE(after->restartCount, restarts);
    QCOMPARE(hostOf(kernels->first())->runningCount(), running);
    if (status == int(SessionStatus::Degraded)) {
        // Every ignored exit is in the history and its kernel is ERROR.
        QCOMPARE(after->history.size() - before->history.size(), qsizetype(outcomes.size()));
        for (const QString &id : std::as_const(failed))
            QCOMPARE(toString(m_store->kernel(s->id, id)->status), toString(KernelStatus::Error));
    }
}

ReconcileReport TestSessionLifecycle::applyOne(ActionApplier &applier, ReconcileAction::Kind kind,
                                               const QString &id)
{
    ReconcilePlan plan;
    plan.actions.append({kind, id, QString(), QString(), QString(), id.left(8), std::nullopt,
                         QStringLiteral("test")});
    auto hosts = m_registry->list();
    return applier.apply(plan, hosts ? *hosts : QList<HostRecord>{});
}

void TestSessionLifecycle::policyRestartWaitsForAHostThatDoesNotAnswer_data()
{
    QTest::addColumn<bool>("downBefore");
    QTest::newRow("down before the restart begins") << true;
    QTest::newRow("goes down while the kernels are made anew") << false;
}

void TestSessionLifecycle::policyRestartWaitsForAHostThatDoesNotAnswer()
{
    // Issue 24 B: a kernel dies with its host (a reboot). The restart-session policy waits for
    // the host — RESTARTING, desired running, its kernels UNKNOWN, the error naming it — and is
    // done once it answers; the session never ends and nothing is left twice.
    QFETCH(bool, downBefore);
    auto s = launch(QStringLiteral("reboot"), QStringLiteral("multi-node"), 4,
                    QStringLiteral("restart-session"));
    QVERIFY2(s, qPrintable(s ? QString() : s.error().toString()));
    auto kernels = m_store->kernels(s->id);
    QVERIFY(kernels);
    const auto it = std::find_if(kernels->cbegin(), kernels->cend(),
                                 [&](const KernelRecord &k) { return k.host != s->networkHost; });
    QVERIFY(it != kernels->cend());
    const KernelRecord k = *it;
    const auto rebooting = hostOf(k);
    QVERIFY(rebooting->exitContainer(k.containerId, 137));
    if (downBefore)
        rebooting->setDown(true);
    else
        rebooting->addFault({QStringLiteral("createContainer"), 1,
                             Error::make(Error::Kind::Transport, rebooting->displayName(),
                                         QStringLiteral("connection reset by peer")),
                             true});

    ActionApplier applier(m_store.get(), m_registry.get(), m_store->identity(),
                          QStringLiteral("tst_sessionlifecycle"));
    applier.setStopTimeout(1);
    auto decided = applier.handleExit(s->id, exitOf(k, 137));
    QVERIFY2(decided, qPrintable(decided ? QString() : decided.error().toString()));
    QVERIFY(decided->has_value());
    QCOMPARE(ExitDecision::name((*decided)->outcome),
             ExitDecision::name(ExitDecision::Outcome::RestartSession));
    QVERIFY2((*decided)->reason.contains(QStringLiteral("the restart waits: host ") + k.host),
             qPrintable((*decided)->reason));

    auto waiting = [&] {
        auto session = m_store->session(s->id);
        QVERIFY(session);
        QCOMPARE(toString(session->status), toString(SessionStatus::Restarting));
        QCOMPARE(toString(session->desired), toString(DesiredState::Running));
        QVERIFY2(
            session->lastError.startsWith(QStringLiteral("host %1: does not answer").arg(k.host)),
            qPrintable(session->lastError));
        QCOMPARE(session->restartCount, 1);
        auto now = m_store->kernels(s->id);
        QVERIFY(now);
        for (const KernelRecord &r : std::as_const(*now)) {
            if (r.host == k.host && r.id != k.id)
                QCOMPARE(toString(r.status), toString(KernelStatus::Unknown));
            else if (r.host != k.host)
                QCOMPARE(toString(r.status), toString(KernelStatus::Restarting));
        }
    };
    waiting();
    if (QTest::currentTestFailed())
        return;
    if (downBefore) // nothing was stopped before the host was seen down
        QCOMPARE(countOf(s->id), 5);

    // Passes while the host is still down change nothing and say so once.
    for (int pass = 0; pass < 2; ++pass) {
        const ReconcileReport report =
            applyOne(applier, ReconcileAction::Kind::CompleteSession, s->id);
        QVERIFY(!report.applied.isEmpty());
        QVERIFY(!report.applied.constFirst().done);
        QVERIFY2(report.applied.constFirst().outcome.contains(QStringLiteral("does not answer")),
                 qPrintable(report.applied.constFirst().outcome));
        waiting();
        if (QTest::currentTestFailed())
            return;
    }
    auto events = m_store->events(0, 1000);
    QVERIFY(events);
    QCOMPARE(std::count_if(events->cbegin(), events->cend(),
                           [](const EventRecord &e) { return e.action == u"restart-waits"; }),
             1);

    // The host answers: the next pass restarts the session, one container per kernel.
    rebooting->setDown(false);
    const ReconcileReport report = applyOne(applier, ReconcileAction::Kind::CompleteSession, s->id);
    QVERIFY2(!report.applied.isEmpty() && report.applied.constFirst().done,
             qPrintable(report.applied.isEmpty() ? report.warnings.join(u"; ")
                                                 : report.applied.constFirst().outcome));
    QCOMPARE(toString(m_store->session(s->id)->status), toString(SessionStatus::Running));
    QCOMPARE(m_store->session(s->id)->restartCount, 1);
    auto after = m_store->kernels(s->id);
    QVERIFY(after);
    for (const KernelRecord &r : std::as_const(*after)) {
        QCOMPARE(toString(r.status), toString(KernelStatus::Running));
        const auto c = hostOf(r)->container(r.containerId);
        QVERIFY2(c && c->state == u"running", qPrintable(r.hostname));
    }
    QCOMPARE(countOf(s->id), 5);
}

void TestSessionLifecycle::lostLeadershipNeverRollsBack()
{
    // Issue 24 D.2: the controller completes an interrupted launch and loses its lease in the
    // middle. It stops where it is: the session stays wanted, nothing is removed, no final
    // status — the next leader finishes it. (Before: the lease's token was the launch's cancel,
    // and the session was rolled back: desired TERMINATED, every container removed.)
    TemplateLoader loader;
    const QString text = templateText(QStringLiteral("lease"), QStringLiteral("multi-node"), 11);
    auto t = loader.loadClusterFromData(text.toUtf8(), QStringLiteral("lease.yaml"));
    QVERIFY(t);
    LaunchRequest request;
    request.clusterTemplate = *t;
    request.templateSource = text;
    Provisioner provisioner(m_store.get(), m_registry.get());
    auto spec = provisioner.prepare(request); // stored, nothing made: an interrupted launch
    QVERIFY2(spec, qPrintable(spec ? QString() : spec.error().toString()));
    const QString id = spec->plan.sessionId;
    for (const auto &h : m_fleet->hosts())
        h->setCallDelay(20ms);

    ActionApplier applier(m_store.get(), m_registry.get(), m_store->identity(),
                          QStringLiteral("tst_sessionlifecycle"));
    const CancelToken lease;
    applier.setCancel(lease);
    std::thread loses([&] {
        QElapsedTimer t;
        t.start();
        while (countOf(id) < 3 && t.elapsed() < 10000)
            std::this_thread::sleep_for(1ms);
        lease.cancel();
    });
    const ReconcileReport report = applyOne(applier, ReconcileAction::Kind::CompleteSession, id);
    loses.join();
    QVERIFY(!report.applied.isEmpty());
    QVERIFY(!report.applied.constFirst().done);
    qInfo().noquote() << "lease lost mid-launch:" << report.applied.constFirst().outcome;
    auto session = m_store->session(id);
    QVERIFY(session);
    QCOMPARE(toString(session->desired), toString(DesiredState::Running));
    QVERIFY2(!isFinal(session->status), qPrintable(toString(session->status)));
    int removals = 0;
    for (const auto &h : m_fleet->hosts())
        removals += h->calls(QStringLiteral("removeContainer"));
    QCOMPARE(removals, 0);
    QVERIFY(countOf(id) >= 3);

    // The next leader finishes it.
    for (const auto &h : m_fleet->hosts())
        h->setCallDelay(0ms);
    ActionApplier next(m_store.get(), m_registry.get(), m_store->identity(),
                       QStringLiteral("tst_sessionlifecycle (next leader)"));
    const ReconcileReport finished = applyOne(next, ReconcileAction::Kind::CompleteSession, id);
    QVERIFY2(!finished.applied.isEmpty() && finished.applied.constFirst().done,
             qPrintable(finished.applied.isEmpty() ? finished.warnings.join(u"; ")
                                                   : finished.applied.constFirst().outcome));
    QCOMPARE(toString(m_store->session(id)->status), toString(SessionStatus::Running));
    QCOMPARE(countOf(id), 12);
}

// Issue 24 D.8 and D.10: exec and logs reach a kernel only through its own container (labels
// and name checked), never a same-named container of another owner; exec over many kernels runs
// on the bounded executor, not a thread per kernel.
void TestSessionLifecycle::execAndLogsOnlyInTheKernelsOwnContainer()
{
    auto s = launch(QStringLiteral("ex"), QStringLiteral("multi-node"), 59);
    QVERIFY2(s, qPrintable(s ? QString() : s.error().toString()));
    auto kernels = m_store->kernels(s->id);
    QVERIFY(kernels);
    const auto it = std::find_if(kernels->cbegin(), kernels->cend(),
                                 [](const KernelRecord &k) { return k.hostname == u"worker1"; });
    QVERIFY(it != kernels->cend());
    const KernelRecord w1 = *it;
    const auto host = hostOf(w1);
    // worker1's container is replaced behind ClusterDeck's back by one of another owner with the
    // same name (and labels that claim the kernel, but not this store).
    Docker::RemoveContainerOptions rm;
    rm.force = true;
    QVERIFY(host->removeContainer(w1.containerId, rm));
    Docker::ContainerSpec foreign;
    foreign.name = w1.containerName;
    foreign.image = QStringLiteral("someone/else:latest");
    foreign.labels = {{Labels::session(), s->id},
                      {Labels::kernel(), w1.id},
                      {Labels::hostname(), w1.hostname},
                      {Labels::store(), QStringLiteral("another-store")}};
    auto made = host->createContainer(foreign);
    QVERIFY(made);
    QVERIFY(host->startContainer(made->id));
    const int execsBefore = host->calls(QStringLiteral("runExec"));

    SessionExec exec(m_registry.get());
    const QList<KernelExecResult> results = exec.run(*kernels, {QStringLiteral("true")}, 0, {});
    QCOMPARE(results.size(), 60);
    int ran = 0;
    for (const KernelExecResult &r : results) {
        if (r.kernel.hostname == u"worker1") {
            QVERIFY(r.error);
            QVERIFY2(r.error->message.contains(QStringLiteral("left alone")),
                     qPrintable(r.error->toString()));
        } else {
            QVERIFY2(!r.error, qPrintable(r.error ? r.error->toString() : QString()));
            QCOMPARE(r.exitCode, 0);
            ++ran;
        }
    }
    QCOMPARE(ran, 59);
    const int onHost = int(std::count_if(kernels->cbegin(), kernels->cend(),
                                         [&](const auto &k) { return k.host == w1.host; }));
    QCOMPARE(host->calls(QStringLiteral("runExec")) - execsBefore, onHost - 1);
    QVERIFY2(BoundedExecutor::shared().peakThreads() <=
                 BoundedExecutor::shared().limits().maxThreads,
             qPrintable(QString::number(BoundedExecutor::shared().peakThreads())));

    SessionController sessions(m_store.get(), m_registry.get());
    auto logs = sessions.logs(s->id, QStringLiteral("worker1"), false,
                              [](const QString &, const QByteArray &, bool) {});
    QVERIFY(!logs);
    QVERIFY2(logs.error().message.contains(QStringLiteral("left alone")),
             qPrintable(logs.error().toString()));
}

void TestSessionLifecycle::rollbackRemovesOnlyItsOwnVolumes_data()
{
    QTest::addColumn<bool>("existsAlready");
    QTest::newRow("made by the launch: removed by its rollback") << false;
    QTest::newRow("the admin's, made while the launch looked: kept") << true;
}

void TestSessionLifecycle::rollbackRemovesOnlyItsOwnVolumes()
{
    // Issue 24 D.4: Docker's volume create returns an existing volume of the name. A launch that
    // found none, then "created" one the admin made meanwhile, must not remove it when it rolls
    // back; a volume it did make goes with the rollback.
    QFETCH(bool, existsAlready);
    const QString volume = QStringLiteral("shared-data");
    for (const auto &h : m_fleet->hosts()) {
        if (existsAlready) {
            Docker::VolumeSpec admins;
            admins.name = volume;
            admins.labels = {{QStringLiteral("owner"), QStringLiteral("admin")}};
            QVERIFY(h->createVolume(admins));
            // The launch's look finds nothing: the admin's create comes just after it.
            h->failNth(QStringLiteral("inspectVolume"), 1, Error::Kind::NotFound, 404);
        }
        h->failNth(QStringLiteral("startContainer"), 2);
    }
    auto mount = TemplateValues::parseMountSpec(volume + QStringLiteral(":/data"));
    QVERIFY(mount);
    auto s = launch(QStringLiteral("vol"), QStringLiteral("multi-node"), 5,
                    QStringLiteral("terminate-session"), {}, {*mount});
    QVERIFY(!s);
    for (const auto &h : m_fleet->hosts()) {
        QCOMPARE(h->volumeNames().contains(volume), existsAlready);
        if (existsAlready)
            QCOMPARE(h->calls(QStringLiteral("removeVolume")), 0);
    }
}

// Whoever can write the store must not make the controller's next restart mount the host: a spec
// changed to bind the Docker socket is refused when read, before anything is stopped, and no
// container on any host mounts it (issue 24 D.6).
void TestSessionLifecycle::tamperedSpecIsNotRestartedFrom()
{
    auto s = launch(QStringLiteral("tamper"), QStringLiteral("multi-node"), 2);
    QVERIFY2(s, qPrintable(s ? QString() : s.error().toString()));
    auto before = m_store->kernels(s->id);
    QVERIFY(before);

    auto session = m_store->session(s->id);
    QVERIFY(session);
    QJsonObject spec = session->launch.spec;
    QJsonArray kernels = spec.value(QStringLiteral("kernels")).toArray();
    for (qsizetype i = 0; i < kernels.size(); ++i) {
        QJsonObject k = kernels.at(i).toObject();
        k.insert(QStringLiteral("mounts"),
                 QJsonArray{
                     QJsonObject{{QStringLiteral("type"), QStringLiteral("bind")},
                                 {QStringLiteral("source"), QStringLiteral("/var/run/docker.sock")},
                                 {QStringLiteral("target"), QStringLiteral("/sock")}}});
        kernels.replace(i, k);
    }
    spec.insert(QStringLiteral("kernels"), kernels);
    session->launch.spec = spec;
    QVERIFY(m_store->updateSession(*session));

    SessionController sessions(m_store.get(), m_registry.get());
    sessions.setStopTimeout(1);
    auto restarted = sessions.restart(s->id, QStringLiteral("test"));
    QVERIFY(!restarted);
    const QString error = restarted.error().toString();
    QVERIFY2(error.contains(QStringLiteral("the stored session spec breaks a template rule")) &&
                 error.contains(QStringLiteral("'/var/run/docker.sock' is a path on the host")),
             qPrintable(error));
    // Nothing was stopped or made: the same containers run, none mounts the socket.
    auto after = m_store->kernels(s->id);
    QVERIFY(after);
    for (const KernelRecord &k : std::as_const(*after)) {
        const auto was = std::find_if(before->cbegin(), before->cend(),
                                      [&](const KernelRecord &b) { return b.id == k.id; });
        QVERIFY(was != before->cend());
        QCOMPARE(k.containerId, was->containerId);
        const auto c = hostOf(k)->container(k.containerId);
        QVERIFY2(c, qPrintable(k.hostname));
        QCOMPARE(c->state, QStringLiteral("running"));
        QCOMPARE(c->restarts, 0);
    }
    for (const auto &h : m_fleet->hosts()) {
        for (const FakeDockerHost::Container &c : h->containers()) {
            for (const Docker::MountSpec &m : c.spec.mounts)
                QVERIFY2(m.source != u"/var/run/docker.sock", qPrintable(c.spec.name));
        }
    }
    QCOMPARE(countOf(s->id), 3);
}

// The controller's event intake is bounded (issue 24 D.9): while the store is held by another
// connection, 31 kernels die at once; the intake (capacity 4) drops what it cannot hold and asks
// for a full pass, which records every exit (the kernels leave RUNNING) once the store is free.
void TestSessionLifecycle::eventIntakeOverflowFallsBackToAPass()
{
    auto s =
        launch(QStringLiteral("burst"), QStringLiteral("multi-node"), 30, QStringLiteral("ignore"));
    QVERIFY2(s, qPrintable(s ? QString() : s.error().toString()));
    auto kernels = m_store->kernels(s->id);
    QVERIFY(kernels);
    QCOMPARE(kernels->size(), 31);

    ControllerOptions options;
    options.intakeCapacity = 4;
    options.resyncInterval = std::chrono::hours(1); // only events and requested passes
    options.actor = QStringLiteral("tst_sessionlifecycle");
    // Counted on the controller's thread (a QSignalSpy's list would be shared unguarded); it
    // outlives the controller.
    std::atomic_int passes{0};
    Controller controller(m_store.get(), m_registry.get(), options);
    connect(
        &controller, &Controller::passFinished, this, [&](int, int) { ++passes; },
        Qt::DirectConnection);
    controller.start();
    QTRY_VERIFY_WITH_TIMEOUT(controller.isLeading(), 15000);
    QTRY_VERIFY_WITH_TIMEOUT(passes.load() >= 1, 15000);
    for (const auto &h : m_fleet->hosts())
        QTRY_VERIFY_WITH_TIMEOUT(h->calls(QStringLiteral("streamEvents")) >= 1, 5000);
    QTest::qWait(200); // the streams read from "now": let them get there

    sqlite3 *blocker = nullptr;
    QCOMPARE(sqlite3_open_v2(qPrintable(m_dir->filePath(QStringLiteral("s.db"))), &blocker,
                             SQLITE_OPEN_READWRITE, nullptr),
             SQLITE_OK);
    QCOMPARE(sqlite3_exec(blocker, "BEGIN IMMEDIATE", nullptr, nullptr, nullptr), SQLITE_OK);
    const int passesBefore = passes.load();
    for (const KernelRecord &k : std::as_const(*kernels))
        QVERIFY(hostOf(k)->killContainer(k.containerId));
    QTRY_VERIFY_WITH_TIMEOUT(controller.intakeOverflows() >= 1, 5000);
    QCOMPARE(sqlite3_exec(blocker, "ROLLBACK", nullptr, nullptr, nullptr), SQLITE_OK);
    sqlite3_close(blocker);

    auto allExited = [&] {
        auto now = m_store->kernels(s->id);
        // An event marks its kernel's exit; a dropped one leaves that to the pass.
        return now && std::all_of(now->cbegin(), now->cend(), [](const KernelRecord &k) {
                   return k.status != KernelStatus::Running;
               });
    };
    if (!QTest::qWaitFor(allExited, 30000)) {
        QStringList states;
        const auto now = m_store->kernels(s->id);
        QVERIFY(now);
        for (const KernelRecord &k : *now)
            states << k.hostname + u'=' + containerStatusName(k.observed.state) + u'/' +
                          toString(k.status);
        QFAIL(qPrintable(states.join(u' ')));
    }
    QTRY_VERIFY_WITH_TIMEOUT(passes.load() > passesBefore, 10000);
    qInfo() << "intake overflows" << controller.intakeOverflows() << "peak"
            << controller.intakePeak() << "of 31 events";
    QVERIFY(controller.intakePeak() <= options.intakeCapacity);
    controller.stop();
}

QTEST_GUILESS_MAIN(TestSessionLifecycle)
#include "tst_sessionlifecycle.moc"
