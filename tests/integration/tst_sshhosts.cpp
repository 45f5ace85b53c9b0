// ssh:// endpoints (issue 27, item 1) against the lab's real sshd and dockerd: h1 registered as
// ssh://, h2 as tcp+tls://, h3 as unix://. A 1+12 multi-node session over the three; exec, logs,
// logs -f, top, shell (on a pseudo-terminal) and rm through the SSH host (the console's terminal
// over ssh:// is in tst_terminal_lab); the controller's event intake over it (a `docker kill` there
// is handled by the policy); a connection dropped mid-exec fails naming the host and the next
// call connects again; an unknown host key is refused with its fingerprint and `host trust`
// accepts it; a kill -9'd clusterdeckctl leaves no ssh process. Endpoints come from
// `eval "$(scripts/lab.sh env)"`; without them the test FAILS.

#include "labcli.h"
#include "ptychild.h"

#include <QDateTime>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QRegularExpression>
#include <QScopeGuard>
#include <QTemporaryDir>
#include <QTest>
#include <QThread>

#include <csignal>

#ifndef CLUSTERDECKCTL
#error "CLUSTERDECKCTL must name the clusterdeckctl binary"
#endif

class TestSshHosts : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void cleanupTestCase();
    void mixedMultiNodeSession();
    void controllerHandlesAKillOnTheSshHost();
    void droppedConnectionNamesTheHost();
    void connectionKilledMidLaunch();
    void unknownHostKeyIsRefusedWithItsFingerprint();
    void killedCliLeavesNoSsh();

private:
    Proc cli(const QStringList &args, int timeoutMs = 240000) const
    {
        return storeCli(QStringLiteral(CLUSTERDECKCTL), m_storeUrl, args, timeoutMs);
    }
    QJsonObject launch(const QString &name, int workers, const QString &policy);
    // The hostname of a kernel of `session` on `host` (empty: none there).
    static QString kernelOn(const QJsonObject &session, const QString &host);
    // `exec … -- sleep 30` in `kernel`: a call that holds its connection.
    void startSleepingExec(QProcess &exec, const QString &sessionId, const QString &kernel) const;
    // ssh client processes using the lab's config: ClusterDeck's tunnels.
    static QStringList sshClients();
    // pids of the sshd processes serving connections on the host (not its listener).
    QStringList sshdConnections(const QString &host) const;

    LabHosts m_lab;
    QTemporaryDir m_dir;
    QString m_storeUrl;
    QString m_sshHost; // h1
    QStringList m_sessions;
};

void TestSshHosts::initTestCase()
{
    m_lab = LabHosts::fromEnvironment();
    if (m_lab.names().size() < 3)
        QFAIL(qPrintable(LabHosts::error()));
    const QString config = qEnvironmentVariable("CLUSTERDECK_LAB_SSH_CONFIG");
    if (config.isEmpty() || m_lab.sshEndpoint(m_lab.names().first()).isEmpty())
        QFAIL("the lab has no sshd (CLUSTERDECK_LAB_SSH_CONFIG): scripts/lab.sh up starts one");
    qputenv("CLUSTERDECK_SSH_CONFIG", config.toLocal8Bit());
    QVERIFY(m_dir.isValid());
    m_storeUrl = QStringLiteral("sqlite://") + m_dir.filePath(QStringLiteral("state.db"));
    const QStringList &h = m_lab.names();
    m_sshHost = h.at(0);
    const QString ca = qEnvironmentVariable("CLUSTERDECK_LAB_TLS_CA");
    const QString cert = qEnvironmentVariable("CLUSTERDECK_LAB_TLS_CERT");
    const QString key = qEnvironmentVariable("CLUSTERDECK_LAB_TLS_KEY");
    const QList<QStringList> adds{{h.at(0), QStringLiteral("--docker"), m_lab.sshEndpoint(h.at(0))},
                                  {h.at(1), QStringLiteral("--docker"), m_lab.tlsEndpoint(h.at(1)),
                                   QStringLiteral("--tls-ca"), ca, QStringLiteral("--tls-cert"),
                                   cert, QStringLiteral("--tls-key"), key},
                                  {h.at(2), QStringLiteral("--docker"), m_lab.unixEndpoint(h.at(2)),
                                   QStringLiteral("--address"), m_lab.address(h.at(2))}};
    for (const QStringList &a : adds) {
        const Proc added = cli(QStringList{QStringLiteral("host"), QStringLiteral("add")} + a);
        QVERIFY2(added.exitCode == 0, added.err.constData());
    }
    const Proc listed =
        cli({QStringLiteral("host"), QStringLiteral("ls"), QStringLiteral("--json")});
    QVERIFY2(listed.exitCode == 0, listed.err.constData());
    for (const QJsonValue &v : QJsonDocument::fromJson(listed.out).array()) {
        const QJsonObject o = v.toObject();
        QVERIFY2(o.value(QStringLiteral("reachable")).toBool(),
                 qPrintable(QString::fromUtf8(QJsonDocument(o).toJson(QJsonDocument::Compact))));
    }
}

void TestSshHosts::cleanupTestCase()
{
    for (const QString &id : std::as_const(m_sessions))
        cli({QStringLiteral("rm"), id});
}

QJsonObject TestSshHosts::launch(const QString &name, int workers, const QString &policy)
{
    const QString file = m_dir.filePath(name + QStringLiteral(".yaml"));
    const QString yaml =
        QStringLiteral("apiVersion: clusterdeck/v1\nkind: Cluster\nname: %1\nmode: multi-node\n"
                       "failurePolicy:\n  action: %2\n%4"
                       "roles:\n"
                       "  - name: master\n    count: 1\n    task:\n"
                       "      image: clusterdeck/lab:latest\n"
                       "      command: [/bin/sh, -c, 'echo master up; exec sleep 100000']\n"
                       "  - name: worker\n    count: %3\n    task:\n"
                       "      image: clusterdeck/lab:latest\n"
                       "      command: [/bin/sh, -c, 'echo worker up; exec sleep 100000']\n")
            .arg(name, policy)
            .arg(workers)
            .arg(policy == QLatin1String("restart-session") ? QStringLiteral("  maxRestarts: 3\n")
                                                            : QString());
    if (!writeTextFile(file, yaml))
        return {};
    const Proc launched =
        cli({QStringLiteral("launch"), file, QStringLiteral("--name"), name,
             QStringLiteral("--settle"), QStringLiteral("0"), QStringLiteral("--json")});
    if (launched.exitCode != 0) {
        qWarning().noquote() << "launch failed:" << launched.err;
        return {};
    }
    QJsonObject o = QJsonDocument::fromJson(launched.out).object();
    m_sessions.append(o.value(QStringLiteral("id")).toString());
    return o;
}

QString TestSshHosts::kernelOn(const QJsonObject &session, const QString &host)
{
    for (const QJsonValue &v : session.value(QStringLiteral("kernels")).toArray()) {
        const QJsonObject k = v.toObject();
        if (k.value(QStringLiteral("host")).toString() == host)
            return k.value(QStringLiteral("hostname")).toString();
    }
    return {};
}

void TestSshHosts::startSleepingExec(QProcess &exec, const QString &sessionId,
                                     const QString &kernel) const
{
    exec.start(QStringLiteral(CLUSTERDECKCTL),
               {QStringLiteral("--store"), m_storeUrl, QStringLiteral("exec"), sessionId,
                QStringLiteral("--kernel"), kernel, QStringLiteral("--"), QStringLiteral("sleep"),
                QStringLiteral("30")});
    QVERIFY(exec.waitForStarted());
}

QStringList TestSshHosts::sshClients()
{
    const QString config = qEnvironmentVariable("CLUSTERDECK_LAB_SSH_CONFIG");
    const Proc p = runProcess(QStringLiteral("pgrep"),
                              {QStringLiteral("-a"), QStringLiteral("-f"),
                               QStringLiteral("^ssh -F ") + config + QStringLiteral(" ")});
    return QString::fromUtf8(p.out).split(u'\n', Qt::SkipEmptyParts);
}

QStringList TestSshHosts::sshdConnections(const QString &host) const
{
    const QString dir = QFileInfo(qEnvironmentVariable("CLUSTERDECK_LAB_SSH_CONFIG")).dir().path();
    QFile pidFile(dir + QStringLiteral("/../") + host + QStringLiteral("/sshd.pid"));
    if (!pidFile.open(QIODevice::ReadOnly))
        return {};
    const QString listener = QString::fromLatin1(pidFile.readAll()).trimmed();
    const Proc pids =
        runProcess(QStringLiteral("ip"),
                   {QStringLiteral("netns"), QStringLiteral("pids"), LabHosts::netns(host)});
    QStringList found;
    for (const QString &pid : QString::fromUtf8(pids.out).split(u'\n', Qt::SkipEmptyParts)) {
        QFile comm(QStringLiteral("/proc/%1/comm").arg(pid));
        if (pid != listener && comm.open(QIODevice::ReadOnly) && comm.readAll().trimmed() == "sshd")
            found.append(pid);
    }
    return found;
}

void TestSshHosts::mixedMultiNodeSession()
{
    const QJsonObject session = launch(QStringLiteral("sshmix"), 12, QStringLiteral("ignore"));
    QVERIFY(!session.isEmpty());
    const QString id = session.value(QStringLiteral("id")).toString();
    QMap<QString, QStringList> byHost; // host → hostnames of its kernels
    for (const QJsonValue &v : session.value(QStringLiteral("kernels")).toArray()) {
        const QJsonObject k = v.toObject();
        QCOMPARE(k.value(QStringLiteral("status")).toString(), QStringLiteral("RUNNING"));
        byHost[k.value(QStringLiteral("host")).toString()].append(
            k.value(QStringLiteral("hostname")).toString());
    }
    QCOMPARE(byHost.size(), 3); // spread: kernels on the ssh, tls and unix hosts alike
    const QString onSsh = byHost.value(m_sshHost).constFirst();

    // exec --all reaches all 13, those behind SSH included.
    const Proc all = cli({QStringLiteral("exec"), id, QStringLiteral("--all"), QStringLiteral("--"),
                          QStringLiteral("hostname")});
    QVERIFY2(all.exitCode == 0, all.err.constData());
    QCOMPARE(QString::fromUtf8(all.out).split(u'\n', Qt::SkipEmptyParts).size(), 13);
    // The overlay joins a kernel on the SSH host to the others by name.
    const Proc ping = cli({QStringLiteral("exec"), id, QStringLiteral("--kernel"), onSsh,
                           QStringLiteral("--"), QStringLiteral("sh"), QStringLiteral("-c"),
                           QStringLiteral("for h in master1 worker1 worker2; do ping -c1 -W3 $h "
                                          ">/dev/null || echo unreachable $h; done; echo done")});
    QVERIFY2(ping.exitCode == 0, ping.err.constData());
    QCOMPARE(QString::fromUtf8(ping.out).trimmed(), onSsh + QStringLiteral(" | done"));
    // logs and top through the tunnel.
    const Proc logs = cli({QStringLiteral("logs"), id, QStringLiteral("--kernel"), onSsh});
    QVERIFY2(logs.exitCode == 0, logs.err.constData());
    QVERIFY2(logs.out.contains(" up"), logs.out.constData());
    // logs -f: a line the kernel prints later arrives through the open stream.
    QProcess follow;
    follow.start(QStringLiteral(CLUSTERDECKCTL),
                 {QStringLiteral("--store"), m_storeUrl, QStringLiteral("logs"), id,
                  QStringLiteral("--kernel"), onSsh, QStringLiteral("--follow")});
    QVERIFY(follow.waitForStarted());
    QByteArray followed;
    auto followedContains = [&](const QByteArray &text) {
        return waitUntil(
            [&] {
                follow.waitForReadyRead(200);
                followed += follow.readAllStandardOutput();
                return followed.contains(text);
            },
            15000);
    };
    QVERIFY2(followedContains(" up"), followed.constData());
    const Proc said = cli({QStringLiteral("exec"), id, QStringLiteral("--kernel"), onSsh,
                           QStringLiteral("--"), QStringLiteral("sh"), QStringLiteral("-c"),
                           QStringLiteral("echo later-line >/proc/1/fd/1")});
    QVERIFY2(said.exitCode == 0, said.err.constData());
    QVERIFY2(followedContains("later-line"), followed.constData());
    follow.terminate();
    QVERIFY(follow.waitForFinished(10000));
    const Proc top =
        cli({QStringLiteral("top"), id, QStringLiteral("--no-stream"), QStringLiteral("--json")});
    QVERIFY2(top.exitCode == 0, top.err.constData());
    QVERIFY2(top.out.contains(onSsh.toUtf8()), top.out.constData());
    // shell: an interactive TTY exec through the tunnel, its window size and exit code.
    {
        PtyChild shell;
        QVERIFY(shell.start(CLUSTERDECKCTL,
                            {QStringLiteral("--store"), m_storeUrl, QStringLiteral("shell"), id,
                             QStringLiteral("--kernel"), onSsh},
                            30, 100));
        QVERIFY2(shell.waitFor("# "), shell.seen.constData());
        QTest::qWait(300); // ash's cursor query
        shell.send("echo on-$BACKEND_CLUSTER_HOST; stty size\r");
        QVERIFY2(shell.waitFor("30 100"), shell.seen.constData());
        QVERIFY2(shell.seen.contains(QByteArray(QByteArray("on-") + onSsh.toUtf8())),
                 shell.seen.constData());
        shell.send("exit 4\r");
        QCOMPARE(shell.wait(), 4);
    }

    // Each CLI call above ended its tunnel with itself.
    QVERIFY2(sshClients().isEmpty(), qPrintable(sshClients().join(u'\n')));

    const Proc rm = cli({QStringLiteral("rm"), id});
    QVERIFY2(rm.exitCode == 0, rm.err.constData());
    QCOMPARE(LabHosts::count(m_lab.containersOf(id)), 0);
    QCOMPARE(LabHosts::count(m_lab.networksOf(id)), 0);
    m_sessions.removeAll(id);
}

void TestSshHosts::controllerHandlesAKillOnTheSshHost()
{
    const QJsonObject session =
        launch(QStringLiteral("sshpolicy"), 2, QStringLiteral("restart-session"));
    QVERIFY(!session.isEmpty());
    const QString id = session.value(QStringLiteral("id")).toString();
    QString victim, victimHost;
    for (const QJsonValue &v : session.value(QStringLiteral("kernels")).toArray()) {
        const QJsonObject k = v.toObject();
        if (k.value(QStringLiteral("host")).toString() == m_sshHost) {
            victim = k.value(QStringLiteral("container_name")).toString();
            victimHost = m_sshHost;
        }
    }
    QVERIFY2(!victim.isEmpty(), "spread placed no kernel on the SSH host");
    const QString before = m_lab.startedAt(victimHost, victim);

    ControllerProcess controller(QStringLiteral(CLUSTERDECKCTL));
    controller.start(m_storeUrl, {QStringLiteral("--lease-ttl"), QStringLiteral("3")});
    QVERIFY2(controller.waitFor(" leads", 30000), controller.err().constData());
    QThread::msleep(1500); // its event streams (the SSH host's over the tunnel) are open
    QCOMPARE(m_lab.docker(victimHost, {QStringLiteral("kill"), victim}).exitCode, 0);
    // The kill is seen through the SSH host's event stream and the session restarted.
    const bool restarted = waitUntil(
        [&] {
            const QString now = m_lab.startedAt(victimHost, victim);
            return !now.isEmpty() && now != before &&
                   showSession(QStringLiteral(CLUSTERDECKCTL), m_storeUrl, id, 60000)
                           .value(QStringLiteral("status"))
                           .toString() == u"RUNNING";
        },
        60000);
    QVERIFY2(restarted, controller.err().right(3000).constData());
    QVERIFY2(controller.stop(), "the controller did not stop on SIGTERM");
    QVERIFY2(sshClients().isEmpty(), qPrintable(sshClients().join(u'\n')));
    QCOMPARE(cli({QStringLiteral("rm"), id}).exitCode, 0);
    m_sessions.removeAll(id);
}

void TestSshHosts::droppedConnectionNamesTheHost()
{
    const QJsonObject session = launch(QStringLiteral("sshdrop"), 2, QStringLiteral("ignore"));
    QVERIFY(!session.isEmpty());
    const QString id = session.value(QStringLiteral("id")).toString();
    const QString onSsh = kernelOn(session, m_sshHost);
    QVERIFY(!onSsh.isEmpty());
    const QStringList before = sshdConnections(m_sshHost);
    QProcess exec;
    startSleepingExec(exec, id, onSsh);
    // The connection of this exec: the sshd process that appears for it on the host.
    QStringList ours;
    QVERIFY(waitUntil(
        [&] {
            ours = sshdConnections(m_sshHost);
            for (const QString &p : before)
                ours.removeAll(p);
            return !ours.isEmpty();
        },
        15000));
    QThread::msleep(1000); // the exec runs
    // Again now that it runs: the connection's sshd processes (a pre-auth one has gone).
    ours = sshdConnections(m_sshHost);
    for (const QString &p : before)
        ours.removeAll(p);
    QElapsedTimer dropped;
    dropped.start();
    // One by one: a process of the list may have ended meanwhile (sshd's short-lived
    // per-connection helpers); the connection's own sshd must be among those killed.
    int killed = 0;
    for (const QString &pid : std::as_const(ours))
        killed += ::kill(pid_t(pid.toInt()), SIGKILL) == 0 ? 1 : 0;
    QVERIFY2(killed > 0, qPrintable(ours.join(u' ')));
    QVERIFY2(exec.waitForFinished(20000), "exec did not end when its SSH connection dropped");
    const QByteArray err = exec.readAllStandardError();
    qInfo().noquote() << "exec ended" << dropped.elapsed() << "ms after its SSH connection was "
                      << "killed:" << err.trimmed();
    QVERIFY(exec.exitCode() != 0);
    QVERIFY2(err.contains(QByteArray(QByteArray("host ") + m_sshHost.toUtf8())), err.constData());
    QVERIFY2(dropped.elapsed() < 15000, "more than 15 s to notice the dropped connection");
    // The next call connects again.
    const Proc again = cli({QStringLiteral("exec"), id, QStringLiteral("--kernel"), onSsh,
                            QStringLiteral("--"), QStringLiteral("echo"), QStringLiteral("back")});
    QVERIFY2(again.exitCode == 0, again.err.constData());
    QCOMPARE(QString::fromUtf8(again.out).trimmed(), onSsh + QStringLiteral(" | back"));
    QCOMPARE(cli({QStringLiteral("rm"), id}).exitCode, 0);
    m_sessions.removeAll(id);
}

void TestSshHosts::connectionKilledMidLaunch()
{
    // A name of its own: the compose project label finds this session's kernels on every host.
    const QString name = QStringLiteral("midlaunch-%1").arg(QDateTime::currentMSecsSinceEpoch());
    const QString file = m_dir.filePath(QStringLiteral("midlaunch.yaml"));
    QVERIFY(writeTextFile(
        file, QStringLiteral("apiVersion: clusterdeck/v1\nkind: Cluster\nname: midlaunch\n"
                             "mode: multi-node\nroles:\n"
                             "  - name: master\n    count: 1\n    task:\n"
                             "      image: clusterdeck/lab:latest\n"
                             "      command: [sleep, '100000']\n"
                             "  - name: worker\n    count: 12\n    task:\n"
                             "      image: clusterdeck/lab:latest\n"
                             "      command: [sleep, '100000']\n")));
    QProcess launch;
    launch.start(QStringLiteral(CLUSTERDECKCTL),
                 {QStringLiteral("--store"), m_storeUrl, QStringLiteral("launch"), file,
                  QStringLiteral("--name"), name, QStringLiteral("--settle"), QStringLiteral("0")});
    QVERIFY(launch.waitForStarted());
    // Its SSH connection to h1, and every one it makes again, killed every 50 ms from the moment
    // the first kernel container exists on h1 (its starts are still to come) until the launch
    // ends; a new connection needs ~0.15 s to log in, so the launch cannot finish on h1, nor can
    // its rollback reach h1.
    QElapsedTimer sinceStart;
    sinceStart.start();
    QVERIFY2(
        waitUntil(
            [&] {
                return launch.state() == QProcess::NotRunning ||
                       LabHosts::count(m_lab.containersWith(
                           QStringLiteral("com.docker.compose.project=") + name, {m_sshHost})) > 0;
            },
            60000),
        "no kernel container appeared on the SSH host");
    const qint64 firstKillAt = sinceStart.elapsed();
    int kills = 0;
    while (launch.state() != QProcess::NotRunning && sinceStart.elapsed() < 120000) {
        for (const QString &line : sshClients()) {
            ::kill(pid_t(line.section(u' ', 0, 0).toInt()), SIGKILL);
            ++kills;
        }
        launch.waitForFinished(50);
    }
    // (waitForFinished() is false for a process that ended already.)
    QVERIFY2(launch.state() == QProcess::NotRunning || launch.waitForFinished(10000),
             "the launch did not end");
    const QByteArray err = launch.readAllStandardError();
    qInfo().noquote() << kills << "ssh connection(s) killed from" << firstKillAt
                      << "ms; the launch ended after" << sinceStart.elapsed()
                      << "ms:" << err.right(600);
    QVERIFY(kills > 0);
    QVERIFY2(launch.exitCode() != 0, "the launch succeeded with its SSH host cut off");
    QVERIFY2(err.contains(QByteArray(QByteArray("host ") + m_sshHost.toUtf8())), err.constData());
    // Whatever the rollback could not reach while the connection was down, rm removes now.
    const Proc shown = cli({QStringLiteral("show"), name, QStringLiteral("--json")});
    const QString id =
        QJsonDocument::fromJson(shown.out).object().value(QStringLiteral("id")).toString();
    if (!id.isEmpty()) {
        const Proc rm = cli({QStringLiteral("rm"), id});
        QVERIFY2(rm.exitCode == 0, rm.err.constData());
        QCOMPARE(LabHosts::count(m_lab.containersOf(id)), 0);
        QCOMPARE(LabHosts::count(m_lab.networksOf(id)), 0);
    }
    // Kernels carry the session's name as their compose project: none is left on any host.
    QCOMPARE(
        LabHosts::count(m_lab.containersWith(QStringLiteral("com.docker.compose.project=") + name)),
        0);
}

void TestSshHosts::unknownHostKeyIsRefusedWithItsFingerprint()
{
    // The lab's ssh_config with a known_hosts of our own, empty at first.
    const QString labConfig = qEnvironmentVariable("CLUSTERDECK_LAB_SSH_CONFIG");
    QFile in(labConfig);
    QVERIFY(in.open(QIODevice::ReadOnly));
    const QString knownHosts = m_dir.filePath(QStringLiteral("known_hosts"));
    QVERIFY(writeTextFile(knownHosts, QString()));
    QString config = QString::fromUtf8(in.readAll());
    config.replace(QRegularExpression(QStringLiteral("UserKnownHostsFile .*")),
                   QStringLiteral("UserKnownHostsFile ") + knownHosts);
    const QString configFile = m_dir.filePath(QStringLiteral("ssh_config"));
    QVERIFY(writeTextFile(configFile, config));
    const QByteArray saved = qgetenv("CLUSTERDECK_SSH_CONFIG");
    qputenv("CLUSTERDECK_SSH_CONFIG", configFile.toLocal8Bit());
    auto restore = qScopeGuard([&] { qputenv("CLUSTERDECK_SSH_CONFIG", saved); });

    // A host not registered over SSH yet (h2 is registered through its TLS port), and the
    // fingerprint of the key the lab made for it.
    const QString host = m_lab.names().at(1);
    const QString pub = QFileInfo(labConfig).dir().path() + QStringLiteral("/../") + host +
                        QStringLiteral("/ssh_host_ed25519_key.pub");
    const Proc keygen = runProcess(QStringLiteral("ssh-keygen"), {QStringLiteral("-lf"), pub});
    QCOMPARE(keygen.exitCode, 0);
    const QString fingerprint = QString::fromUtf8(keygen.out).section(u' ', 1, 1);
    QVERIFY(fingerprint.startsWith(QLatin1String("SHA256:")));

    const QString endpoint = m_lab.sshEndpoint(host);
    const Proc refused = cli({QStringLiteral("host"), QStringLiteral("add"),
                              QStringLiteral("untrusted"), QStringLiteral("--docker"), endpoint});
    QCOMPARE(refused.exitCode, 1);
    QVERIFY2(refused.err.contains("host key is not known"), refused.err.constData());
    QVERIFY2(refused.err.contains(fingerprint.toUtf8()), refused.err.constData());
    QVERIFY2(refused.err.contains("host trust"), refused.err.constData());

    // `host trust` shows the same fingerprint, and adds nothing without --yes.
    const Proc shown = cli({QStringLiteral("host"), QStringLiteral("trust"), endpoint});
    QVERIFY2(shown.exitCode == 0, shown.err.constData());
    QVERIFY2(shown.out.contains(fingerprint.toUtf8()), shown.out.constData());
    QCOMPARE(QFileInfo(knownHosts).size(), 0);
    const Proc trusted =
        cli({QStringLiteral("host"), QStringLiteral("trust"), endpoint, QStringLiteral("--yes")});
    QVERIFY2(trusted.exitCode == 0, trusted.err.constData());
    QVERIFY(QFileInfo(knownHosts).size() > 0);
    const Proc added = cli({QStringLiteral("host"), QStringLiteral("add"),
                            QStringLiteral("trusted"), QStringLiteral("--docker"), endpoint});
    QVERIFY2(added.exitCode == 0, added.err.constData());
    QCOMPARE(
        cli({QStringLiteral("host"), QStringLiteral("rm"), QStringLiteral("trusted")}).exitCode, 0);
}

void TestSshHosts::killedCliLeavesNoSsh()
{
    const QJsonObject session = launch(QStringLiteral("sshkill"), 2, QStringLiteral("ignore"));
    QVERIFY(!session.isEmpty());
    const QString id = session.value(QStringLiteral("id")).toString();
    const QString onSsh = kernelOn(session, m_sshHost);
    QVERIFY(!onSsh.isEmpty());
    QProcess exec;
    startSleepingExec(exec, id, onSsh);
    QVERIFY2(waitUntil([] { return !sshClients().isEmpty(); }, 15000), "no ssh was started");
    QThread::msleep(500);
    ::kill(pid_t(exec.processId()), SIGKILL);
    QVERIFY(exec.waitForFinished(5000));
    QElapsedTimer t;
    t.start();
    const bool gone = waitUntil([] { return sshClients().isEmpty(); }, 5000);
    QVERIFY2(gone, qPrintable(sshClients().join(u'\n')));
    qInfo() << "the ssh of a kill -9'd clusterdeckctl ended" << t.elapsed() << "ms after it";
    QCOMPARE(cli({QStringLiteral("rm"), id}).exitCode, 0);
    m_sessions.removeAll(id);
}

QTEST_GUILESS_MAIN(TestSshHosts)
#include "tst_sshhosts.moc"
