// Faults against the lab (scripts/lab.sh): a Docker host that stops answering in the middle of a
// launch (SIGSTOP of its dockerd), a host whose daemon is down before a launch and during a
// terminate, and an interrupted launch (one and two SIGTERMs). Real dockerd hosts, a real store.
// Endpoints come from `eval "$(scripts/lab.sh env)"`; without them the test FAILS, never skips.

#include "labcli.h"
#include "store/statestore.h"
#include "store/storefactory.h"

#include <QElapsedTimer>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>
#include <QThread>
#include <QUuid>

#include <csignal>
#include <memory>

using namespace ClusterDeck;
using namespace std::chrono_literals;

#ifndef CLUSTERDECKCTL
#error "CLUSTERDECKCTL must name the clusterdeckctl binary"
#endif

namespace {

QString clusterTemplate(const QString &name, int workers, const QString &extra = {})
{
    return QStringLiteral(R"(apiVersion: clusterdeck/v1
kind: Cluster
name: %1
mode: multi-node
%3roles:
  - name: master
    count: 1
    task:
      image: clusterdeck/lab:latest
      command: [sleep, "3600"]
      resources: {cpus: 0.05, memory: 16m}
  - name: worker
    count: %2
    max: 16
    task:
      image: clusterdeck/lab:latest
      command: [sleep, "3600"]
      resources: {cpus: 0.05, memory: 16m}
)")
        .arg(name)
        .arg(workers)
        .arg(extra);
}

QString labScript()
{
    return qEnvironmentVariable("CLUSTERDECK_SOURCE_DIR") + QStringLiteral("/scripts/lab.sh");
}

// scripts/lab.sh dockerd stop|start|pid I
Proc labDockerd(const QString &what, const QString &host)
{
    return runProcess(labScript(), {QStringLiteral("dockerd"), what, host.mid(1)}, 120000);
}

pid_t dockerdPid(const QString &host)
{
    return pid_t(
        QString::fromUtf8(labDockerd(QStringLiteral("pid"), host).out).trimmed().toLongLong());
}

} // namespace

namespace {

// Whether a process is stopped (state T in /proc/<pid>/stat: a fail point's SIGSTOP).
bool isStopped(pid_t pid)
{
    QFile stat(QStringLiteral("/proc/%1/stat").arg(pid));
    if (!stat.open(QIODevice::ReadOnly))
        return false;
    const QByteArray text = stat.readAll();
    // "pid (comm) S …": the state follows the last ')'.
    const qsizetype close = text.lastIndexOf(')');
    return close >= 0 && close + 2 < text.size() && text.at(close + 2) == 'T';
}

} // namespace

class TestFaults : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void init();
    void cleanup();

    void hungHostFailsTheLaunch();
    void deadHostIsLeftOut();
    void unreachableHostKeepsTerminating();
    void hostRestartUnderRunningSession();
    void interruptedLaunch_data();
    void interruptedLaunch();

private:
    Proc cli(const QStringList &args, int timeoutMs = 240000) const
    {
        return runProcess(QStringLiteral(CLUSTERDECKCTL),
                          QStringList{QStringLiteral("--store"), m_storeUrl} + args, timeoutMs);
    }
    QJsonObject show(const QString &id) const
    {
        return QJsonDocument::fromJson(
                   cli({QStringLiteral("show"), id, QStringLiteral("--json")}).out)
            .object();
    }
    QString writeTemplate(const QString &name, int workers, const QString &extra = {})
    {
        const QString file = m_dir.filePath(name + QStringLiteral(".yaml"));
        return writeTextFile(file, clusterTemplate(name, workers, extra)) ? file : QString();
    }
    // The id of the one session of this store, once prepare() has written it.
    QString waitForSession(int timeoutMs)
    {
        QElapsedTimer t;
        t.start();
        while (t.elapsed() < timeoutMs) {
            if (auto sessions = m_store->sessions(); sessions && !sessions->isEmpty())
                return sessions->first().id;
            QThread::msleep(50);
        }
        return {};
    }

    LabHosts m_lab;
    QTemporaryDir m_dir;
    QString m_storeUrl;
    std::unique_ptr<StateStore> m_store;
    QStringList m_stopped; // hosts whose dockerd a test stopped or froze
};

void TestFaults::initTestCase()
{
    m_lab = LabHosts::fromEnvironment();
    if (m_lab.names().size() < 3)
        QFAIL(qPrintable(LabHosts::error()));
    QVERIFY(m_dir.isValid());
    QVERIFY2(QFile::exists(labScript()), "CLUSTERDECK_SOURCE_DIR must name the source tree");
}

void TestFaults::init()
{
    m_stopped.clear();
    m_storeUrl =
        QStringLiteral("sqlite://") +
        m_dir.filePath(QUuid::createUuid().toString(QUuid::Id128).left(12) + QStringLiteral(".db"));
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

void TestFaults::cleanup()
{
    // Whatever happened: every daemon answers again and nothing of this store stays behind.
    for (const QString &h : std::as_const(m_stopped)) {
        ::kill(dockerdPid(h), SIGCONT);
        labDockerd(QStringLiteral("start"), h);
    }
    if (m_store) {
        if (auto sessions = m_store->sessions(); sessions) {
            for (const SessionRecord &s : std::as_const(*sessions)) {
                if (s.desired == DesiredState::Running)
                    cli({QStringLiteral("rm"), s.id});
            }
        }
        cli({QStringLiteral("reconcile")});
        const QString label = QStringLiteral("io.clusterdeck.store=") + m_store->storeId();
        QTRY_COMPARE_WITH_TIMEOUT(LabHosts::count(m_lab.containersWith(label)), 0, 30000);
        // Nor a VXLAN device (outside Docker): removed with the session's network on each host.
        QTRY_COMPARE_WITH_TIMEOUT(m_lab.vxlanDevicesOf(m_store->storeId()).join(u' '), QString(),
                                  30000);
    }
    m_store.reset();
}

void TestFaults::hungHostFailsTheLaunch()
{
    // A 1+12 launch over h1..h3, and h3's dockerd frozen (SIGSTOP) one second into it: the
    // launch fails within 60 s, its error leads with h3, h1 and h2 keep nothing, and what h3 may
    // hold is recorded (TERMINATING kernels) and removed by `reconcile` once h3 answers again.
    const QString file = writeTemplate(QStringLiteral("hung"), 12);
    QVERIFY(!file.isEmpty());
    const pid_t h3 = dockerdPid(QStringLiteral("h3"));
    QVERIFY(h3 > 0);

    QProcess launch;
    QElapsedTimer sinceStart;
    sinceStart.start();
    launch.start(QStringLiteral(CLUSTERDECKCTL),
                 {QStringLiteral("--store"), m_storeUrl, QStringLiteral("launch"), file});
    // "One second into the launch": one second after the session (and its placement) is stored,
    // so the frozen host is one the launch uses.
    const QString id = waitForSession(60000);
    QVERIFY2(!id.isEmpty(), "the launch never stored its session");
    QThread::msleep(1000);
    m_stopped.append(QStringLiteral("h3"));
    QCOMPARE(::kill(h3, SIGSTOP), 0);
    QElapsedTimer sinceFreeze;
    sinceFreeze.start();
    const Proc p = finishProcess(launch, 120000);
    const double failSeconds = double(sinceFreeze.elapsed()) / 1000.0;
    const double totalSeconds = double(sinceStart.elapsed()) / 1000.0;
    qInfo().noquote() << QStringLiteral("hung host: the launch failed %1 s after h3 froze (%2 s "
                                        "after it started); its error: %3")
                             .arg(failSeconds, 0, 'f', 1)
                             .arg(totalSeconds, 0, 'f', 1)
                             .arg(QString::fromUtf8(p.err).trimmed());
    QVERIFY2(p.exitCode != 0, "a launch with a frozen host must fail");
    QVERIFY2(failSeconds < 60.0, qPrintable(QStringLiteral("took %1 s").arg(failSeconds)));
    QString error;
    for (const QString &line : QString::fromUtf8(p.err).split(QLatin1Char('\n'))) {
        if (line.startsWith(QStringLiteral("error: ")))
            error = line;
    }
    QVERIFY2(error.startsWith(QStringLiteral("error: host h3")), qPrintable(error));
    QVERIFY2(error.contains(QStringLiteral("stopped answering")), qPrintable(error));

    if (auto events = m_store->events(0, 1000); events) {
        for (const EventRecord &e : std::as_const(*events))
            qInfo().noquote() << e.at.toString(Qt::ISODateWithMs) << e.action << e.detail.left(300);
    }
    // No container on the hosts that answer. The overlay on the manager (h1) is the one
    // exception: the swarm keeps h3's attachment to it until h3 answers (there is no API to drop
    // a frozen node's attachment short of removing the node from the swarm), and the error says so.
    // Only h1 and h2 are asked while h3 is frozen (a question to h3 would wait out its timeout).
    const QStringList answering{QStringLiteral("h1"), QStringLiteral("h2")};
    QCOMPARE(LabHosts::count(m_lab.containersOf(id, answering)), 0);
    const auto networks = m_lab.networksOf(id, answering);
    QCOMPARE(networks.value(QStringLiteral("h2")), QStringList());
    if (!networks.value(QStringLiteral("h1")).isEmpty()) {
        auto events = m_store->events(0, 1000);
        QVERIFY(events);
        bool explained = false;
        for (const EventRecord &e : std::as_const(*events))
            explained =
                explained || e.detail.contains(u"the swarm keeps the attachment of host(s) h3");
        QVERIFY2(explained, "a network left on h1 is explained in the session's events");
        qInfo() << "the overlay stays on h1 until h3 answers (its swarm attachment holds it)";
    }
    // The store says what waits for h3, and h3 cannot be removed meanwhile.
    auto session = m_store->session(id);
    QVERIFY(session);
    QCOMPARE(toString(session->desired), toString(DesiredState::Terminated));
    QCOMPARE(toString(session->status), toString(SessionStatus::Error));
    auto kernels = m_store->kernels(id);
    QVERIFY(kernels);
    int waiting = 0;
    for (const KernelRecord &k : std::as_const(*kernels)) {
        if (k.host == u"h3") {
            QCOMPARE(toString(k.status), toString(KernelStatus::Terminating));
            ++waiting;
        } else {
            QVERIFY2(isFinal(k.status),
                     qPrintable(k.hostname + QLatin1Char(' ') + toString(k.status)));
        }
    }
    QVERIFY(waiting > 0);
    const Proc refused = cli({QStringLiteral("host"), QStringLiteral("rm"), QStringLiteral("h3")});
    QVERIFY2(refused.exitCode != 0, "host rm must refuse while h3 holds a session's objects");
    QVERIFY2(refused.err.contains("TERMINATING"), refused.err.constData());

    // h3 answers again: one reconcile removes what it holds.
    QCOMPARE(::kill(h3, SIGCONT), 0);
    m_stopped.removeAll(QStringLiteral("h3"));
    // By wall time: a QTRY counts only its sleeps, not the reconcile and docker calls.
    QVERIFY(waitUntil(
        [&] {
            cli({QStringLiteral("reconcile")});
            return LabHosts::count(m_lab.containersOf(id)) == 0 &&
                   LabHosts::count(m_lab.networksOf(id)) == 0;
        },
        60000));
    QVERIFY(waitUntil(
        [&] {
            cli({QStringLiteral("reconcile")});
            auto after = m_store->kernels(id);
            if (!after)
                return false;
            for (const KernelRecord &k : std::as_const(*after)) {
                if (!isFinal(k.status))
                    return false;
            }
            return true;
        },
        30000));
}

void TestFaults::deadHostIsLeftOut()
{
    // h2's daemon is down before the launch: the dry run says why h2 is not used, and the launch
    // runs on h1 and h3 only.
    m_stopped.append(QStringLiteral("h2"));
    QCOMPARE(labDockerd(QStringLiteral("stop"), QStringLiteral("h2")).exitCode, 0);
    const QString file = writeTemplate(QStringLiteral("dead"), 4);
    QVERIFY(!file.isEmpty());

    const Proc dry = cli({QStringLiteral("launch"), file, QStringLiteral("--dry-run")});
    QVERIFY2(dry.exitCode == 0, dry.err.constData());
    const QString plan = QString::fromUtf8(dry.out);
    QVERIFY2(plan.contains(QStringLiteral("not used: h2: unreachable")), qPrintable(plan));
    QVERIFY(m_store->sessions()->isEmpty()); // a dry run writes nothing

    QElapsedTimer t;
    t.start();
    const Proc p = cli({QStringLiteral("launch"), file, QStringLiteral("--json")});
    QVERIFY2(p.exitCode == 0, p.err.constData());
    qInfo() << "dead host: the launch on the other hosts took" << t.elapsed() << "ms";
    const QJsonObject s = QJsonDocument::fromJson(p.out).object();
    QCOMPARE(s.value(QStringLiteral("status")).toString(), QStringLiteral("RUNNING"));
    for (const QJsonValue &v : s.value(QStringLiteral("kernels")).toArray())
        QVERIFY(v.toObject().value(QStringLiteral("host")).toString() != u"h2");
    auto events = m_store->events(0, 1000);
    QVERIFY(events);
    bool explained = false;
    for (const EventRecord &e : std::as_const(*events))
        explained = explained || (e.action == u"launch" && e.detail.contains(u"h2: unreachable"));
    QVERIFY2(explained, "the launch event says why h2 is not used");
}

void TestFaults::unreachableHostKeepsTerminating()
{
    // A session over h1..h3, then h2's daemon goes down and the session is removed: it stays
    // TERMINATING (h2's kernels too) and `host rm h2` refuses, until h2 answers and the
    // controller's pass removes what it holds; then TERMINATED.
    const QString file = writeTemplate(QStringLiteral("term"), 5);
    QVERIFY(!file.isEmpty());
    const Proc p = cli({QStringLiteral("launch"), file, QStringLiteral("--json")});
    QVERIFY2(p.exitCode == 0, p.err.constData());
    const QString id =
        QJsonDocument::fromJson(p.out).object().value(QStringLiteral("id")).toString();
    QVERIFY(!id.isEmpty());
    QVERIFY(m_lab.containersOf(id).value(QStringLiteral("h2")).size() > 0);

    m_stopped.append(QStringLiteral("h2"));
    QCOMPARE(labDockerd(QStringLiteral("stop"), QStringLiteral("h2")).exitCode, 0);
    QElapsedTimer t;
    t.start();
    const Proc rm = cli({QStringLiteral("rm"), id}, 120000);
    qInfo() << "rm with h2 down took" << t.elapsed() << "ms:" << rm.err.trimmed();
    QVERIFY2(rm.exitCode != 0, "the terminate is not complete while h2 holds objects");
    QVERIFY(t.elapsed() < 45000);
    QCOMPARE(show(id).value(QStringLiteral("status")).toString(), QStringLiteral("TERMINATING"));
    for (const QString &h : {QStringLiteral("h1"), QStringLiteral("h3")})
        QCOMPARE(m_lab.containersOf(id).value(h), QStringList());
    for (const QJsonValue &v : show(id).value(QStringLiteral("kernels")).toArray()) {
        const QJsonObject k = v.toObject();
        QCOMPARE(k.value(QStringLiteral("status")).toString(),
                 k.value(QStringLiteral("host")).toString() == u"h2"
                     ? QStringLiteral("TERMINATING")
                     : QStringLiteral("TERMINATED"));
    }
    // A reconcile while h2 is down changes nothing.
    cli({QStringLiteral("reconcile")});
    QCOMPARE(show(id).value(QStringLiteral("status")).toString(), QStringLiteral("TERMINATING"));
    const Proc refused = cli({QStringLiteral("host"), QStringLiteral("rm"), QStringLiteral("h2")});
    QVERIFY2(refused.exitCode != 0, "host rm must refuse while h2 holds a session's objects");

    QCOMPARE(labDockerd(QStringLiteral("start"), QStringLiteral("h2")).exitCode, 0);
    m_stopped.removeAll(QStringLiteral("h2"));
    QTRY_VERIFY_WITH_TIMEOUT(
        [&] {
            cli({QStringLiteral("reconcile")});
            return show(id).value(QStringLiteral("status")).toString() == u"TERMINATED";
        }(),
        60000);
    QCOMPARE(LabHosts::count(m_lab.containersOf(id)), 0);
    QCOMPARE(LabHosts::count(m_lab.networksOf(id)), 0);
    const Proc removed = cli({QStringLiteral("host"), QStringLiteral("rm"), QStringLiteral("h2")});
    QVERIFY2(removed.exitCode == 0, removed.err.constData());
}

void TestFaults::hostRestartUnderRunningSession()
{
    // Issue 24 B: a 1+4 session with restart-session (3 restarts), only a headless controller
    // running; h2's dockerd stopped (its containers die with it) and started again 10 s after
    // it is gone (several passes and probes find it down meanwhile).
    // The session waits for h2 — RESTARTING, desired running, h2's kernels UNKNOWN, the error
    // naming h2 and why — and runs again within 60 s of h2 answering, on live containers, one
    // per kernel. (Before: the restart failed at once, the session went to ERROR and every
    // container was removed.)
    const QString file = writeTemplate(QStringLiteral("reboot"), 4,
                                       QStringLiteral("failurePolicy:\n  action: restart-session\n"
                                                      "  maxRestarts: 3\n"));
    QVERIFY(!file.isEmpty());
    const Proc p = cli({QStringLiteral("launch"), file, QStringLiteral("--json")});
    QVERIFY2(p.exitCode == 0, p.err.constData());
    const QString id =
        QJsonDocument::fromJson(p.out).object().value(QStringLiteral("id")).toString();
    QVERIFY(!id.isEmpty());
    QVERIFY2(m_lab.containersOf(id).value(QStringLiteral("h2")).size() > 0, "h2 runs a kernel");

    ControllerProcess controller(QStringLiteral(CLUSTERDECKCTL));
    controller.start(m_storeUrl, {});
    QVERIFY2(controller.waitFor(" leads", 20000), controller.err().constData());

    m_stopped.append(QStringLiteral("h2"));
    QCOMPARE(labDockerd(QStringLiteral("stop"), QStringLiteral("h2")).exitCode, 0);
    QElapsedTimer down; // from when the daemon is gone (stopping it took its containers' time)
    down.start();
    auto waiting = [&] {
        auto s = m_store->session(id);
        return s && s->status == SessionStatus::Restarting &&
               s->lastError.startsWith(QStringLiteral("host h2: does not answer"));
    };
    QTRY_VERIFY2_WITH_TIMEOUT(waiting(), qPrintable(m_store->session(id)->lastError), 30000);
    QThread::msleep(uint(std::max<qint64>(0, 10000 - down.elapsed())));
    // Still waiting, 10 s on: never given up.
    auto session = m_store->session(id);
    QVERIFY(session);
    QCOMPARE(toString(session->desired), toString(DesiredState::Running));
    QVERIFY2(waiting(), qPrintable(toString(session->status) + u' ' + session->lastError));
    QVERIFY2(session->lastError.contains(QStringLiteral("docker.sock does not exist")),
             qPrintable(session->lastError));
    auto kernels = m_store->kernels(id);
    QVERIFY(kernels);
    for (const KernelRecord &k : std::as_const(*kernels))
        if (k.host == u"h2")
            QVERIFY2(k.status == KernelStatus::Unknown || k.status == KernelStatus::Error,
                     qPrintable(k.hostname + u' ' + toString(k.status)));
    qInfo().noquote() << "while h2 is down:" << session->lastError;

    QCOMPARE(labDockerd(QStringLiteral("start"), QStringLiteral("h2")).exitCode, 0);
    m_stopped.removeAll(QStringLiteral("h2"));
    QElapsedTimer up;
    up.start();
    QTRY_VERIFY_WITH_TIMEOUT(m_store->session(id)->status == SessionStatus::Running, 60000);
    qInfo() << "RUNNING again" << up.elapsed() << "ms after h2 answered";

    // On live containers, exactly one per kernel, each the one its record names.
    session = m_store->session(id);
    QVERIFY(session->restartCount >= 1);
    const QMap<QString, QStringList> containers = m_lab.containersOf(id);
    QCOMPARE(LabHosts::count(containers), 5);
    kernels = m_store->kernels(id);
    QVERIFY(kernels);
    for (const KernelRecord &k : std::as_const(*kernels)) {
        QCOMPARE(toString(k.status), toString(KernelStatus::Running));
        QCOMPARE(containers.value(k.host).count(k.containerName), 1);
        const Proc state =
            m_lab.docker(k.host, {QStringLiteral("inspect"), QStringLiteral("-f"),
                                  QStringLiteral("{{.Id}} {{.State.Running}}"), k.containerName});
        QCOMPARE(QString::fromUtf8(state.out).trimmed(), k.containerId + QStringLiteral(" true"));
    }
    QVERIFY(controller.stop());
}

void TestFaults::interruptedLaunch_data()
{
    QTest::addColumn<int>("signals");
    QTest::newRow("one SIGTERM: rolled back by the launch") << 1;
    QTest::newRow("two SIGTERMs: exits at once, the controller finishes") << 2;
}

void TestFaults::interruptedLaunch()
{
    QFETCH(int, signals);
    const QString file = writeTemplate(QStringLiteral("intr"), 8);
    QVERIFY(!file.isEmpty());
    QProcess launch;
    if (signals == 2) {
        // The second signal must come while the rollback runs. A rollback can finish within
        // the 300 ms an impatient admin waits (a clean-clone CI run: the launch exited 300 ms
        // after the first signal, rolled back, before the second arrived), so the launch stops
        // itself where the rollback is stored and about to remove what it made.
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("CLUSTERDECK_FAILPOINT"),
                   QStringLiteral("rollback-before-removal"));
        launch.setProcessEnvironment(env);
    }
    launch.start(QStringLiteral(CLUSTERDECKCTL),
                 {QStringLiteral("--store"), m_storeUrl, QStringLiteral("launch"), file});
    const QString id = waitForSession(60000);
    QVERIFY(!id.isEmpty());
    // Once containers are being made.
    QTRY_VERIFY_WITH_TIMEOUT(LabHosts::count(m_lab.containersOf(id)) > 0, 30000);
    QElapsedTimer t;
    QElapsedTimer second;
    t.start();
    ::kill(pid_t(launch.processId()), SIGTERM);
    if (signals == 2) {
        QThread::msleep(300); // an impatient admin
        const pid_t pid = pid_t(launch.processId());
        QTRY_VERIFY_WITH_TIMEOUT(isStopped(pid), 20000); // at the fail point: rolling back
        ::kill(pid, SIGTERM); // pending while stopped, handled once it goes on
        second.start();
        ::kill(pid, SIGCONT);
    }
    const Proc p = finishProcess(launch, 90000);
    qInfo() << signals << "SIGTERM(s): the launch exited after" << t.elapsed()
            << "ms:" << p.err.trimmed();
    QVERIFY(p.exitCode != 0);
    auto session = m_store->session(id);
    QVERIFY(session);
    // The desired state is stored before any rollback.
    QCOMPARE(toString(session->desired), toString(DesiredState::Terminated));
    if (signals == 1) {
        QCOMPARE(toString(session->status), toString(SessionStatus::Cancelled));
        QCOMPARE(LabHosts::count(m_lab.containersOf(id)), 0);
        // Known open problem (issue 14): on a loaded machine the rollback can give up on the
        // overlay while the swarm still holds an attachment (seen in a clean-clone CI run). The
        // contract then rests on the controller: the next reconcile must remove it.
        if (const int left = LabHosts::count(m_lab.networksOf(id)); left != 0) {
            qWarning("the rollback left %d network(s); reconcile must remove them", left);
            QTRY_VERIFY_WITH_TIMEOUT(
                (cli({QStringLiteral("reconcile")}), LabHosts::count(m_lab.networksOf(id)) == 0),
                60000);
        }
    } else {
        QVERIFY2(second.elapsed() < 3000, "a second signal exits at once");
        QVERIFY2(p.err.contains("the controller will finish"), p.err.constData());
        QTRY_VERIFY_WITH_TIMEOUT(
            [&] {
                cli({QStringLiteral("reconcile")});
                return LabHosts::count(m_lab.containersOf(id)) == 0 &&
                       LabHosts::count(m_lab.networksOf(id)) == 0;
            }(),
            60000);
    }
}

QTEST_GUILESS_MAIN(TestFaults)
#include "tst_faults.moc"
