// `clusterdeckctl scale` against the 3-host lab (issue 17): grow and shrink a running session
// within min/max, the membership files rewritten in every kernel, bounds, kill -9 of a scale at
// known and random points repaired by `reconcile`, the MPI hostfile, and the time of 2 → 12
// workers next to a fresh 1+12 launch. Endpoints come from `eval "$(scripts/lab.sh env)"`;
// without them the test FAILS, never skips.

#include "labcli.h"
#include "store/statestore.h"
#include "store/storefactory.h"

#include <QElapsedTimer>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QSet>
#include <QTemporaryDir>
#include <QTest>
#include <QUrl>
#include <QUuid>

#include <csignal>
#include <memory>

using namespace ClusterDeck;

#ifndef CLUSTERDECKCTL
#error "CLUSTERDECKCTL must name the clusterdeckctl binary"
#endif

namespace {

QString elasticTemplate(const QString &name, int workers, const QString &presets = {},
                        const QString &command = QStringLiteral("[sleep, \"3600\"]"))
{
    return QStringLiteral(R"(apiVersion: clusterdeck/v1
kind: Cluster
name: %1
mode: multi-node
%4roles:
  - name: master
    count: 1
    min: 1
    max: 2
    task:
      image: clusterdeck/lab:latest
      command: %3
      resources: {cpus: 0.05, memory: 16m}
  - name: worker
    count: %2
    min: 1
    max: 12
    task:
      image: clusterdeck/lab:latest
      command: %3
      resources: {cpus: 0.05, memory: 16m}
)")
        .arg(name)
        .arg(workers)
        .arg(command,
             presets.isEmpty() ? QString() : QStringLiteral("presets: [%1]\n").arg(presets));
}

QStringList hostnamesOf(const QJsonObject &session)
{
    QStringList names;
    for (const QJsonValue &v : session.value(QStringLiteral("kernels")).toArray())
        names.append(v.toObject().value(QStringLiteral("hostname")).toString());
    return names;
}

} // namespace

class TestScale : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void cleanupTestCase();
    void init();
    void cleanup();

    void growAndShrink_data();
    void growAndShrink();
    void bounds();
    void killedScaleIsRepaired_data();
    void killedScaleIsRepaired();
    void mpiHostfileFollows();
    void mpirunAfterScale();
    void onScaleHookRuns();
    void timing();
    void composeSeesTheSession();

private:
    Proc cli(const QStringList &args, int timeoutMs = 300000) const
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
    void useStore(const QString &backend);
    QJsonObject launch(const QString &name, const QString &yaml, qint64 *elapsedMs = nullptr);
    // Every kernel's /etc/cluster/<file>, by hostname (exec --json).
    QMap<QString, QString> fileInEveryKernel(const QString &id, const QString &file) const;
    // The session's containers on the hosts are exactly its kernels', each running.
    void expectConsistent(const QString &id, const QStringList &hostnames);
    bool scaleIntentStored(const QString &id) const
    {
        auto s = m_store->session(id);
        return s && s->launch.scale.has_value();
    }
    QStringList eventActions(const QString &id) const
    {
        QStringList actions;
        auto events = m_store->events(0, 100000);
        if (events) {
            for (const EventRecord &e : std::as_const(*events)) {
                if (e.sessionId == id)
                    actions.append(e.action);
            }
        }
        return actions;
    }

    LabHosts m_lab;
    QTemporaryDir m_dir;
    QString m_storeUrl;
    std::unique_ptr<StateStore> m_store;
    QStringList m_sessions;
    QStringList m_summary;
};

void TestScale::initTestCase()
{
    m_lab = LabHosts::fromEnvironment();
    if (m_lab.names().size() < 3)
        QFAIL(qPrintable(LabHosts::error()));
    QVERIFY(m_dir.isValid());
    QVERIFY2(!qEnvironmentVariableIsEmpty("CLUSTERDECK_LAB_ETCD"), "CLUSTERDECK_LAB_ETCD unset");
}

void TestScale::cleanupTestCase()
{
    for (const QString &line : std::as_const(m_summary))
        qInfo().noquote() << line;
}

void TestScale::init()
{
    m_sessions.clear();
    useStore(QStringLiteral("sqlite"));
}

void TestScale::cleanup()
{
    for (const QString &id : std::as_const(m_sessions))
        cli({QStringLiteral("rm"), id});
    for (const QString &id : std::as_const(m_sessions))
        QVERIFY2(LabHosts::count(m_lab.containersOf(id)) == 0,
                 qPrintable(QStringLiteral("left behind: %1").arg(id)));
    m_store.reset();
}

void TestScale::useStore(const QString &backend)
{
    m_store.reset();
    const QString tag = QUuid::createUuid().toString(QUuid::Id128).left(12);
    if (backend == QLatin1String("sqlite"))
        m_storeUrl = QStringLiteral("sqlite://") + m_dir.filePath(tag + QStringLiteral(".db"));
    else
        m_storeUrl = QStringLiteral("etcd://") +
                     QUrl(qEnvironmentVariable("CLUSTERDECK_LAB_ETCD")).authority() +
                     QStringLiteral("/cdtest-scale/") + tag;
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

QJsonObject TestScale::launch(const QString &name, const QString &yaml, qint64 *elapsedMs)
{
    const QString file = m_dir.filePath(name + QStringLiteral(".yaml"));
    if (!writeTextFile(file, yaml))
        return {};
    QElapsedTimer t;
    t.start();
    const Proc p = cli({QStringLiteral("launch"), file, QStringLiteral("--json")});
    if (elapsedMs)
        *elapsedMs = t.elapsed();
    const QJsonObject o = QJsonDocument::fromJson(p.out).object();
    const QString id = o.value(QStringLiteral("id")).toString();
    if (!id.isEmpty())
        m_sessions.append(id);
    else
        qWarning() << "launch failed:" << p.err;
    return o;
}

QMap<QString, QString> TestScale::fileInEveryKernel(const QString &id, const QString &file) const
{
    const Proc p =
        cli({QStringLiteral("exec"), id, QStringLiteral("--all"), QStringLiteral("--json"),
             QStringLiteral("--"), QStringLiteral("cat"), file});
    QMap<QString, QString> result;
    for (const QJsonValue &v :
         QJsonDocument::fromJson(p.out).object().value(QStringLiteral("kernels")).toArray()) {
        const QJsonObject k = v.toObject();
        result.insert(k.value(QStringLiteral("hostname")).toString(),
                      k.value(QStringLiteral("exit_code")).toInt() == 0
                          ? k.value(QStringLiteral("stdout")).toString()
                          : QStringLiteral("<exit %1: %2>")
                                .arg(k.value(QStringLiteral("exit_code")).toInt())
                                .arg(k.value(QStringLiteral("stderr")).toString()));
    }
    return result;
}

void TestScale::expectConsistent(const QString &id, const QStringList &hostnames)
{
    const QJsonObject s = show(id);
    QCOMPARE(s.value(QStringLiteral("status")).toString(), QStringLiteral("RUNNING"));
    QStringList names = hostnamesOf(s);
    names.sort();
    QStringList expected = hostnames;
    expected.sort();
    QCOMPARE(names, expected);
    QVERIFY(!scaleIntentStored(id));
    // 0 orphans: on the hosts, exactly the kernels' containers, all running.
    QStringList containers;
    const auto listed = m_lab.containersOf(id);
    for (const QStringList &l : listed)
        containers += l;
    containers.sort();
    QStringList wanted;
    for (const QJsonValue &v : s.value(QStringLiteral("kernels")).toArray()) {
        const QJsonObject k = v.toObject();
        wanted.append(QStringLiteral("cd-%1-%2")
                          .arg(id.left(8), k.value(QStringLiteral("hostname")).toString()));
        QCOMPARE(k.value(QStringLiteral("status")).toString(), QStringLiteral("RUNNING"));
        const QString state =
            QString::fromUtf8(m_lab
                                  .docker(k.value(QStringLiteral("host")).toString(),
                                          {QStringLiteral("inspect"), QStringLiteral("-f"),
                                           QStringLiteral("{{.State.Status}}"), wanted.last()})
                                  .out)
                .trimmed();
        QCOMPARE(state, QStringLiteral("running"));
    }
    wanted.sort();
    QCOMPARE(containers, wanted);
    // Every kernel's view of the session says the same.
    const QString hostsFile = expected.isEmpty() ? QString() : [&] {
        QString text;
        for (const QJsonValue &v : s.value(QStringLiteral("kernels")).toArray())
            text += v.toObject().value(QStringLiteral("hostname")).toString() + u'\n';
        return text;
    }();
    const auto files = fileInEveryKernel(id, QStringLiteral("/etc/cluster/hosts"));
    QCOMPARE(files.size(), hostnames.size());
    for (auto it = files.cbegin(); it != files.cend(); ++it)
        QVERIFY2(it.value() == hostsFile,
                 qPrintable(QStringLiteral("%1: %2").arg(it.key(), it.value())));
}

void TestScale::growAndShrink_data()
{
    QTest::addColumn<QString>("backend");
    QTest::newRow("sqlite") << "sqlite";
    QTest::newRow("etcd") << "etcd";
}

void TestScale::growAndShrink()
{
    QFETCH(QString, backend);
    useStore(backend);
    const QJsonObject s =
        launch(QStringLiteral("elastic"), elasticTemplate(QStringLiteral("elastic"), 2));
    const QString id = s.value(QStringLiteral("id")).toString();
    QVERIFY(!id.isEmpty());
    QCOMPARE(hostnamesOf(s), (QStringList{"master1", "worker1", "worker2"}));
    QString masterHost;
    for (const QJsonValue &v : s.value(QStringLiteral("kernels")).toArray()) {
        if (v.toObject().value(QStringLiteral("hostname")).toString() == u"master1")
            masterHost = v.toObject().value(QStringLiteral("host")).toString();
    }
    const QString masterContainer = QStringLiteral("cd-%1-master1").arg(id.left(8));
    const QString masterStarted = m_lab.startedAt(masterHost, masterContainer);
    QVERIFY(!masterStarted.isEmpty());
    // The launch wrote the files and told every kernel where they are.
    const auto atLaunch = fileInEveryKernel(id, QStringLiteral("/etc/cluster/replicas"));
    QCOMPARE(atLaunch.value(QStringLiteral("worker2")), QStringLiteral("master 1\nworker 2\n"));

    // Grow: 1+2 → 1+6.
    const Proc up = cli({QStringLiteral("scale"), id, QStringLiteral("worker=6")});
    QVERIFY2(up.exitCode == 0, up.err.constData());
    QVERIFY2(up.out.contains("added worker3, worker4, worker5, worker6"), up.out.constData());
    QJsonObject after = show(id);
    QCOMPARE(hostnamesOf(after), (QStringList{"master1", "worker1", "worker2", "worker3", "worker4",
                                              "worker5", "worker6"}));
    QSet<QString> hostsUsed;
    QString farWorker; // a new kernel on another host than master1
    for (const QJsonValue &v : after.value(QStringLiteral("kernels")).toArray()) {
        const QJsonObject k = v.toObject();
        hostsUsed.insert(k.value(QStringLiteral("host")).toString());
        const int idx = k.value(QStringLiteral("role_idx")).toInt();
        if (idx >= 3) {
            QCOMPARE(k.value(QStringLiteral("local_rank")).toInt(), idx); // next ranks
            if (k.value(QStringLiteral("host")).toString() != masterHost)
                farWorker = k.value(QStringLiteral("hostname")).toString();
        }
    }
    QCOMPARE(hostsUsed.size(), 3);
    QVERIFY(!farWorker.isEmpty());
    expectConsistent(id, hostnamesOf(after));
    const auto replicas = fileInEveryKernel(id, QStringLiteral("/etc/cluster/replicas"));
    for (auto it = replicas.cbegin(); it != replicas.cend(); ++it)
        QCOMPARE(it.value(), QStringLiteral("master 1\nworker 6\n"));
    // Reachable by name from master1 on another host.
    for (const QString &name : {farWorker, QStringLiteral("worker6")}) {
        const Proc ping =
            cli({QStringLiteral("exec"), id, QStringLiteral("--kernel"), QStringLiteral("master1"),
                 QStringLiteral("--"), QStringLiteral("ping"), QStringLiteral("-c"),
                 QStringLiteral("1"), QStringLiteral("-W"), QStringLiteral("5"), name});
        QVERIFY2(ping.exitCode == 0, QByteArray(ping.out + ping.err).constData());
    }
    // A new kernel knows the session as it was when it started; old ones keep theirs.
    const Proc env =
        cli({QStringLiteral("exec"), id, QStringLiteral("--kernel"), QStringLiteral("worker6"),
             QStringLiteral("--"), QStringLiteral("sh"), QStringLiteral("-c"),
             QStringLiteral("echo $BACKEND_CLUSTER_SIZE $BACKEND_CLUSTER_HOSTS_FILE")});
    QVERIFY2(env.out.contains("7 /etc/cluster/hosts"), env.out.constData());

    // Shrink: 1+6 → 1+1.
    const Proc down = cli({QStringLiteral("scale"), id, QStringLiteral("worker=1")});
    QVERIFY2(down.exitCode == 0, down.err.constData());
    QVERIFY2(down.out.contains("removed worker6, worker5, worker4, worker3, worker2"),
             down.out.constData());
    after = show(id);
    expectConsistent(id, {QStringLiteral("master1"), QStringLiteral("worker1")});
    QCOMPARE(m_lab.startedAt(masterHost, masterContainer), masterStarted); // untouched
    const auto shrunk = fileInEveryKernel(id, QStringLiteral("/etc/cluster/replicas"));
    for (auto it = shrunk.cbegin(); it != shrunk.cend(); ++it)
        QCOMPARE(it.value(), QStringLiteral("master 1\nworker 1\n"));

    // Indices are never reused while the session lives.
    const Proc again = cli({QStringLiteral("scale"), id, QStringLiteral("worker=2")});
    QVERIFY2(again.exitCode == 0, again.err.constData());
    QCOMPARE(hostnamesOf(show(id)), (QStringList{"master1", "worker1", "worker7"}));
    expectConsistent(
        id, {QStringLiteral("master1"), QStringLiteral("worker1"), QStringLiteral("worker7")});
    const QStringList actions = eventActions(id);
    QCOMPARE(actions.count(QStringLiteral("scale")), 3);
    QCOMPARE(actions.count(QStringLiteral("scaled")), 3);
}

void TestScale::bounds()
{
    const QJsonObject s =
        launch(QStringLiteral("bounds"), elasticTemplate(QStringLiteral("bounds"), 2));
    const QString id = s.value(QStringLiteral("id")).toString();
    QVERIFY(!id.isEmpty());
    const int containers = LabHosts::count(m_lab.containersOf(id));
    QCOMPARE(containers, 3);
    const struct
    {
        QStringList request;
        QByteArray message;
    } cases[] = {
        {{QStringLiteral("worker=13")}, "worker=13 is outside 1-12"},
        {{QStringLiteral("worker=0")}, "worker=0 is outside 1-12"},
        {{QStringLiteral("master=0")}, "master=0 is outside 1-2"},
        {{QStringLiteral("master=3")}, "master=3 is outside 1-2"},
        {{QStringLiteral("ps=1")}, "has no role 'ps'"},
        {{QStringLiteral("worker=4"), QStringLiteral("master=0")}, "master=0 is outside"},
        {{QStringLiteral("worker")}, "is not ROLE=N"},
    };
    for (const auto &c : cases) {
        const Proc p = cli(QStringList{QStringLiteral("scale"), id} + c.request);
        QVERIFY2(p.exitCode != 0, qPrintable(c.request.join(u' ')));
        QVERIFY2(p.err.startsWith("error: ") || p.err.contains("usage") || p.err.contains("Usage"),
                 p.err.constData());
        QVERIFY2(p.err.contains(c.message), p.err.constData());
        QCOMPARE(p.err.count('\n') >= 1, true);
    }
    expectConsistent(
        id, {QStringLiteral("master1"), QStringLiteral("worker1"), QStringLiteral("worker2")});
    QVERIFY(!eventActions(id).contains(QStringLiteral("scale")));
}

void TestScale::killedScaleIsRepaired_data()
{
    QTest::addColumn<QString>("backend");
    QTest::addColumn<QString>("pauseAt"); // "": kill at a random moment
    QTest::addColumn<int>("to");
    QTest::addColumn<QStringList>("expected"); // empty: either before or after is fine
    const QStringList before{"master1", "worker1", "worker2"};
    QTest::newRow("sqlite grown, not finished: undone") << "sqlite"
                                                        << "grow" << 4 << before;
    QTest::newRow("etcd grown, not finished: undone") << "etcd"
                                                      << "grow" << 4 << before;
    QTest::newRow("sqlite shrinking: finished")
        << "sqlite"
        << "shrink" << 1 << QStringList{"master1", "worker1"};
    QTest::newRow("etcd shrinking: finished") << "etcd"
                                              << "shrink" << 1 << QStringList{"master1", "worker1"};
    QTest::newRow("sqlite random moment") << "sqlite"
                                          << "" << 6 << QStringList{};
}

void TestScale::killedScaleIsRepaired()
{
    QFETCH(QString, backend);
    QFETCH(QString, pauseAt);
    QFETCH(int, to);
    QFETCH(QStringList, expected);
    useStore(backend);
    const QJsonObject s =
        launch(QStringLiteral("killed"), elasticTemplate(QStringLiteral("killed"), 2));
    const QString id = s.value(QStringLiteral("id")).toString();
    QVERIFY(!id.isEmpty());

    QProcess scale;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    if (!pauseAt.isEmpty())
        env.insert(QStringLiteral("CLUSTERDECK_TEST_SCALE_PAUSE"), pauseAt);
    scale.setProcessEnvironment(env);
    scale.start(QStringLiteral(CLUSTERDECKCTL),
                {QStringLiteral("--store"), m_storeUrl, QStringLiteral("scale"), id,
                 QStringLiteral("worker=%1").arg(to)});
    QVERIFY(scale.waitForStarted());
    if (pauseAt == QLatin1String("grow")) {
        // Paused with all new kernels running and the intent still stored.
        QTRY_VERIFY_WITH_TIMEOUT(LabHosts::count(m_lab.containersOf(id)) == 3 + (to - 2), 60000);
        QTRY_VERIFY_WITH_TIMEOUT(
            [&] {
                auto ks = m_store->kernels(id);
                if (!ks || ks->size() != 3 + (to - 2))
                    return false;
                for (const KernelRecord &k : *ks) {
                    if (k.status != KernelStatus::Running)
                        return false;
                }
                return true;
            }(),
            60000);
    } else if (pauseAt == QLatin1String("shrink")) {
        QTRY_VERIFY_WITH_TIMEOUT(
            [&] {
                auto ks = m_store->kernels(id);
                if (!ks)
                    return false;
                for (const KernelRecord &k : *ks) {
                    if (k.status == KernelStatus::Terminating)
                        return true;
                }
                return false;
            }(),
            60000);
    } else {
        QTRY_VERIFY_WITH_TIMEOUT(scaleIntentStored(id), 30000);
        QTest::qWait(700 + int(QDateTime::currentMSecsSinceEpoch() % 1500));
    }
    QVERIFY(scale.state() == QProcess::Running);
    ::kill(pid_t(scale.processId()), SIGKILL);
    scale.waitForFinished();
    QVERIFY(scaleIntentStored(id));

    // Nobody but `reconcile` repairs it; nothing of it is taken for a failure or an orphan.
    // (On etcd the dead command's lock lease runs out first: up to 15 s.)
    QByteArray passes;
    QElapsedTimer waited;
    waited.start();
    for (;;) {
        const Proc r = cli({QStringLiteral("reconcile"), QStringLiteral("--json")});
        QVERIFY2(r.exitCode == 0, QByteArray(r.out + r.err).constData());
        passes += r.out;
        if (!scaleIntentStored(id) || waited.elapsed() > 60000)
            break;
        QTest::qWait(2000);
    }
    QVERIFY2(!scaleIntentStored(id), passes.constData());
    QVERIFY2(passes.contains("finish-scale"), passes.constData());
    QVERIFY2(!passes.contains("kernel-exited") && !passes.contains("kernel-vanished") &&
                 !passes.contains("remove-stray") && !passes.contains("remove-orphan"),
             passes.constData());
    const QStringList now = hostnamesOf(show(id));
    if (expected.isEmpty()) {
        QStringList scaled{QStringLiteral("master1")};
        for (int i = 1; i <= to; ++i)
            scaled.append(QStringLiteral("worker%1").arg(i));
        QVERIFY2(now == QStringList({"master1", "worker1", "worker2"}) || now == scaled,
                 qPrintable(now.join(u',')));
        m_summary.append(
            QStringLiteral("kill -9 at a random moment of scale worker=%1: %2")
                .arg(to)
                .arg(now.size() == 3 ? QStringLiteral("undone") : QStringLiteral("finished")));
        expectConsistent(id, now);
    } else {
        expectConsistent(id, expected);
    }
    // A second pass finds nothing to do for it, and the session scales again normally.
    const Proc second = cli({QStringLiteral("reconcile"), QStringLiteral("--json")});
    QVERIFY2(!second.out.contains(id.toUtf8()), second.out.constData());
    const Proc again = cli({QStringLiteral("scale"), id, QStringLiteral("worker=3")});
    QVERIFY2(again.exitCode == 0, again.err.constData());
    QCOMPARE(hostnamesOf(show(id)).size(), 4);
    QVERIFY(eventActions(id).contains(QStringLiteral("scale-repaired")));
}

void TestScale::mpiHostfileFollows()
{
    // The mpi preset's hostfile, rewritten by scale: the launcher reaches every host it lists.
    // (The lab has no Open MPI image; each hostfile line is checked by name from launcher1 the way
    // mpirun's rsh agent would reach it.)
    const QJsonObject s = launch(QStringLiteral("mpi"),
                                 elasticTemplate(QStringLiteral("mpi"), 2, QStringLiteral("mpi")));
    const QString id = s.value(QStringLiteral("id")).toString();
    QVERIFY(!id.isEmpty());
    const Proc up = cli({QStringLiteral("scale"), id, QStringLiteral("worker=4")});
    QVERIFY2(up.exitCode == 0, up.err.constData());
    const auto hostfiles = fileInEveryKernel(id, QStringLiteral("/etc/cluster/hostfile"));
    QCOMPARE(hostfiles.size(), 5);
    for (auto it = hostfiles.cbegin(); it != hostfiles.cend(); ++it)
        QVERIFY2(it.value().contains(QStringLiteral("worker4 slots=1\n")),
                 qPrintable(it.key() + u": " + it.value()));
    const Proc reach = cli(
        {QStringLiteral("exec"), id, QStringLiteral("--kernel"), QStringLiteral("master1"),
         QStringLiteral("--"), QStringLiteral("sh"), QStringLiteral("-c"),
         QStringLiteral("grep -v '^#' \"$OMPI_MCA_orte_default_hostfile\" | cut -d' ' -f1 | "
                        "while read h; do ping -c1 -W5 \"$h\" >/dev/null && echo \"$h\"; done")});
    QVERIFY2(reach.exitCode == 0, reach.err.constData());
    QStringList names;
    for (const QString &line : QString::fromUtf8(reach.out).split(u'\n', Qt::SkipEmptyParts))
        names.append(line.section(QStringLiteral(" | "), 1).trimmed());
    QCOMPARE(QSet<QString>(names.cbegin(), names.cend()).size(), 5);
    QCOMPARE(names, (QStringList{"master1", "worker1", "worker2", "worker3", "worker4"}));
}

void TestScale::mpirunAfterScale()
{
    // The mpi sample's promise, on a real Open MPI (the lab's lab-mpi image: Debian's mpirun and
    // orted): after scaling the workers 2 -> 4, `mpirun -np 5 hostname` from the launcher starts one
    // process on each of the five kernels over ssh, with the hostfile scale rewrote.
    const QString image = qEnvironmentVariable("CLUSTERDECK_LAB_MPI_IMAGE");
    QVERIFY2(!image.isEmpty(), "the lab has no Open MPI image: run scripts/setup.sh (openmpi-bin), "
                               "then scripts/lab.sh up");
    QString yaml = elasticTemplate(QStringLiteral("mpirun"), 2, QStringLiteral("mpi"),
                                   QStringLiteral("[/bin/sh, -c, \"dropbearkey -t ed25519 -f "
                                                  "/tmp/hostkey >/dev/null 2>&1 && exec dropbear "
                                                  "-r /tmp/hostkey -F -E -s -p 22\"]"));
    yaml.replace(QStringLiteral("clusterdeck/lab:latest"), image);
    yaml.replace(QStringLiteral("memory: 16m"), QStringLiteral("memory: 128m"));
    const QJsonObject s = launch(QStringLiteral("mpirun"), yaml);
    const QString id = s.value(QStringLiteral("id")).toString();
    QVERIFY(!id.isEmpty());
    const Proc up = cli({QStringLiteral("scale"), id, QStringLiteral("worker=4")});
    QVERIFY2(up.exitCode == 0, up.err.constData());
    QElapsedTimer timer;
    timer.start();
    const Proc run = cli({QStringLiteral("exec"), id, QStringLiteral("--kernel"),
                          QStringLiteral("master1"), QStringLiteral("--"), QStringLiteral("timeout"),
                          QStringLiteral("120"), QStringLiteral("mpirun"), QStringLiteral("-np"),
                          QStringLiteral("5"), QStringLiteral("hostname")});
    QVERIFY2(run.exitCode == 0, QByteArray(run.out + run.err).constData());
    QStringList names;
    for (const QString &line : QString::fromUtf8(run.out).split(u'\n', Qt::SkipEmptyParts))
        names.append(line.section(QStringLiteral(" | "), 1).trimmed());
    names.sort();
    QCOMPARE(names, (QStringList{"master1", "worker1", "worker2", "worker3", "worker4"}));
    m_summary.append(QStringLiteral("mpirun -np 5 hostname after scale 2->4: %1 ms")
                         .arg(timer.elapsed()));
    const Proc rm = cli({QStringLiteral("rm"), id});
    QVERIFY2(rm.exitCode == 0, rm.err.constData());
}

void TestScale::onScaleHookRuns()
{
    // The template's onScale hook runs in every kernel (old and new) after the files changed.
    QString yaml = elasticTemplate(QStringLiteral("hook"), 2);
    yaml.replace(QStringLiteral("      command: [sleep, \"3600\"]\n"),
                 QStringLiteral("      command: [sleep, \"3600\"]\n"
                                "      onScale: /hook.sh\n"
                                "      bootstrap: |\n"
                                "        #!/bin/sh\n"
                                "        printf '#!/bin/sh\\ncat /etc/cluster/replicas >> "
                                "/tmp/hooked\\n' > /hook.sh\n"
                                "        chmod +x /hook.sh\n"));
    const QJsonObject s = launch(QStringLiteral("hook"), yaml);
    const QString id = s.value(QStringLiteral("id")).toString();
    QVERIFY2(!id.isEmpty(), qPrintable(yaml));
    const Proc up = cli({QStringLiteral("scale"), id, QStringLiteral("worker=3")});
    QVERIFY2(up.exitCode == 0, up.err.constData());
    QVERIFY2(!up.err.contains("warning"), up.err.constData());
    const auto hooked = fileInEveryKernel(id, QStringLiteral("/tmp/hooked"));
    QCOMPARE(hooked.size(), 4);
    for (auto it = hooked.cbegin(); it != hooked.cend(); ++it)
        QCOMPARE(it.value(), QStringLiteral("master 1\nworker 3\n"));
}

void TestScale::timing()
{
    // The closing note of issue 17: scaling 2 → 12 workers next to a fresh 1+12 launch.
    const QJsonObject s =
        launch(QStringLiteral("grow12"), elasticTemplate(QStringLiteral("grow12"), 2));
    const QString id = s.value(QStringLiteral("id")).toString();
    QVERIFY(!id.isEmpty());
    QElapsedTimer t;
    t.start();
    const Proc up = cli({QStringLiteral("scale"), id, QStringLiteral("worker=12")});
    const qint64 scaleMs = t.elapsed();
    QVERIFY2(up.exitCode == 0, up.err.constData());
    expectConsistent(id, hostnamesOf(show(id)));
    QCOMPARE(hostnamesOf(show(id)).size(), 13);
    qint64 launchMs = 0;
    const QJsonObject fresh = launch(QStringLiteral("fresh12"),
                                     elasticTemplate(QStringLiteral("fresh12"), 12), &launchMs);
    QCOMPARE(fresh.value(QStringLiteral("status")).toString(), QStringLiteral("RUNNING"));
    QCOMPARE(hostnamesOf(fresh).size(), 13);
    m_summary.append(QStringLiteral("scale 2 -> 12 workers: %1 s; fresh launch of 1+12: %2 s "
                                    "(both with the default 2 s settle period)")
                         .arg(double(scaleMs) / 1000.0, 0, 'f', 2)
                         .arg(double(launchMs) / 1000.0, 0, 'f', 2));
}

// Issue 27, item 3: a session is one compose project to the tools that group containers by
// compose's labels. The docker CLI is asked with the filters compose itself uses — `compose ls`
// lists containers with the project and config-hash labels, `compose ps/down -p NAME` those with
// project=NAME, a config hash and oneoff=False — and, when the compose plugin is installed,
// `docker compose ls --format json` is run for real. Launch, scale and restart all label alike.
void TestScale::composeSeesTheSession()
{
    const QString tag = QUuid::createUuid().toString(QUuid::Id128).left(6);
    const QString file = m_dir.filePath(QStringLiteral("compose.yaml"));
    QVERIFY(writeTextFile(file, elasticTemplate(QStringLiteral("compose"), 3)));
    // A name compose would refuse: upper case, a space and a '#'.
    const QString name = QStringLiteral("Compose Lab #") + tag;
    const QString project = QStringLiteral("compose-lab-") + tag;
    const Proc p = cli(
        {QStringLiteral("launch"), file, QStringLiteral("--name"), name, QStringLiteral("--json")});
    const QString id =
        QJsonDocument::fromJson(p.out).object().value(QStringLiteral("id")).toString();
    QVERIFY2(!id.isEmpty(), p.err.constData());
    m_sessions.append(id);
    const Proc up = cli({QStringLiteral("scale"), id, QStringLiteral("worker=4")});
    QVERIFY2(up.exitCode == 0, up.err.constData());

    // "<container> <service> <number>" of every running container compose would take for the
    // project's, on every host.
    const auto composeView = [&] {
        QStringList seen;
        for (const QString &h : m_lab.names()) {
            const Proc ps = m_lab.docker(
                h,
                {QStringLiteral("ps"), QStringLiteral("--filter"),
                 QStringLiteral("label=com.docker.compose.project=") + project,
                 QStringLiteral("--filter"), QStringLiteral("label=com.docker.compose.config-hash"),
                 QStringLiteral("--filter"),
                 QStringLiteral("label=com.docker.compose.oneoff=False"),
                 // What `compose ls` of compose 2.3 to 2.16 needs on every container.
                 QStringLiteral("--filter"),
                 QStringLiteral("label=com.docker.compose.project.config_files"),
                 QStringLiteral("--format"),
                 QStringLiteral("{{.Names}} {{.Label \"com.docker.compose.service\"}} "
                                "{{.Label \"com.docker.compose.container-number\"}}")});
            if (ps.exitCode != 0)
                seen.append(QString::fromUtf8(ps.err));
            seen += QString::fromUtf8(ps.out).split(u'\n', Qt::SkipEmptyParts);
        }
        seen.sort();
        return seen;
    };
    const QString sid8 = id.left(8);
    QStringList expected;
    for (const QString &k : {QStringLiteral("master1 master 1"), QStringLiteral("worker1 worker 1"),
                             QStringLiteral("worker2 worker 2"), QStringLiteral("worker3 worker 3"),
                             QStringLiteral("worker4 worker 4")})
        expected.append(QStringLiteral("cd-%1-%2").arg(sid8, k));
    expected.sort();
    QCOMPARE(composeView(), expected);
    // A multi-node restart makes every kernel anew from the stored spec: labels included.
    const Proc restarted = cli({QStringLiteral("restart"), id});
    QVERIFY2(restarted.exitCode == 0, restarted.err.constData());
    QCOMPARE(composeView(), expected);

    if (runProcess(QStringLiteral("docker"), {QStringLiteral("compose"), QStringLiteral("version")})
            .exitCode != 0) {
        qInfo("the docker compose plugin is not installed: `docker compose ls` not run");
        return;
    }
    bool listed = false;
    for (const QString &h : m_lab.names()) {
        const Proc ls = m_lab.docker(h, {QStringLiteral("compose"), QStringLiteral("ls"),
                                         QStringLiteral("--format"), QStringLiteral("json")});
        QVERIFY2(ls.exitCode == 0, ls.err.constData());
        for (const QJsonValue &v : QJsonDocument::fromJson(ls.out).array())
            listed = listed || v.toObject().value(QStringLiteral("Name")).toString() == project;
    }
    QVERIFY(listed);
}

QTEST_GUILESS_MAIN(TestScale)
#include "tst_scale.moc"
