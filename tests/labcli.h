#pragma once

// What the lab tests share: running clusterdeckctl and the docker CLI against the lab's hosts
// (endpoints from `scripts/lab.sh env`), and looking at what a session left on them.

#include <QByteArray>
#include <QCoreApplication>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QMap>
#include <QProcess>
#include <QString>
#include <QStringList>
#include <QThread>

#include <csignal>

struct Proc
{
    int exitCode = -1;
    QByteArray out;
    QByteArray err;
};

// Waits for a started process (killing it after `timeoutMs`) and collects what it printed.
inline Proc finishProcess(QProcess &p, int timeoutMs)
{
    Proc r;
    if (!p.waitForFinished(timeoutMs)) {
        p.kill();
        p.waitForFinished();
        r.err = "timed out";
        return r;
    }
    r.exitCode = p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1;
    r.out = p.readAllStandardOutput();
    r.err = p.readAllStandardError();
    return r;
}

// Polls `done` every 250 ms, processing events, until it holds or `timeoutMs` of wall time have
// passed. QTRY_* count only their own sleeps: with a predicate that runs processes (the CLI,
// docker) their timeout stretches many times over, and a failing wait outlasts ctest's timeout.
template<typename Predicate>
bool waitUntil(Predicate done, int timeoutMs)
{
    QElapsedTimer t;
    t.start();
    while (!done()) {
        if (t.elapsed() > timeoutMs)
            return false;
        QCoreApplication::processEvents(QEventLoop::AllEvents, 50);
        QThread::msleep(250);
    }
    return true;
}

inline Proc runProcess(const QString &program, const QStringList &args, int timeoutMs = 180000)
{
    QProcess p;
    p.start(program, args);
    return finishProcess(p, timeoutMs);
}

// `clusterdeckctl --store URL ARGS…` (the binary at `program`), and its `show SESSION --json`.
inline Proc storeCli(const QString &program, const QString &storeUrl, const QStringList &args,
                     int timeoutMs = 180000)
{
    return runProcess(program, QStringList{QStringLiteral("--store"), storeUrl} + args, timeoutMs);
}
inline QJsonObject showSession(const QString &program, const QString &storeUrl,
                               const QString &session, int timeoutMs = 180000)
{
    return QJsonDocument::fromJson(
               storeCli(program, storeUrl,
                        {QStringLiteral("show"), session, QStringLiteral("--json")}, timeoutMs)
                   .out)
        .object();
}

class LabHosts
{
public:
    // Empty when the lab's environment is missing (the caller fails with `error()`).
    static LabHosts fromEnvironment()
    {
        LabHosts lab;
        lab.m_names = qEnvironmentVariable("CLUSTERDECK_LAB_HOSTS")
                          .split(QLatin1Char(' '), Qt::SkipEmptyParts);
        for (const QString &h : std::as_const(lab.m_names)) {
            const QByteArray prefix = "CLUSTERDECK_LAB_" + h.toUpper().toLatin1();
            lab.m_unix.insert(h, qEnvironmentVariable(QByteArray(prefix + "_DOCKER").constData()));
            lab.m_tls.insert(h,
                             qEnvironmentVariable(QByteArray(prefix + "_DOCKER_TLS").constData()));
            lab.m_addr.insert(h, qEnvironmentVariable(QByteArray(prefix + "_ADDR").constData()));
            lab.m_ssh.insert(h,
                             qEnvironmentVariable(QByteArray(prefix + "_DOCKER_SSH").constData()));
        }
        return lab;
    }
    static QString error()
    {
        return QStringLiteral("CLUSTERDECK_LAB_HOSTS is not set: start the lab and eval "
                              "\"$(scripts/lab.sh env)\"");
    }

    const QStringList &names() const { return m_names; }
    QString unixEndpoint(const QString &host) const { return m_unix.value(host); }
    QString tlsEndpoint(const QString &host) const { return m_tls.value(host); }
    QString address(const QString &host) const { return m_addr.value(host); }
    // ssh://root@<address><socket>: the host's sshd (scripts/lab.sh), reached with the lab's
    // ssh_config (CLUSTERDECK_LAB_SSH_CONFIG as CLUSTERDECK_SSH_CONFIG).
    QString sshEndpoint(const QString &host) const { return m_ssh.value(host); }

    Proc docker(const QString &host, const QStringList &args, int timeoutMs = 60000) const
    {
        return runProcess(QStringLiteral("docker"),
                          QStringList{QStringLiteral("-H"), m_unix.value(host)} + args, timeoutMs);
    }

    // host → names of the containers (all states) / networks carrying `label` (K or K=V), on
    // `hosts` (default: every lab host). A test that froze a host names the others: the docker
    // CLI waits its whole timeout (60 s) on a frozen daemon.
    QMap<QString, QStringList> containersWith(const QString &label,
                                              const QStringList &hosts = {}) const
    {
        return listWith({QStringLiteral("ps"), QStringLiteral("-a")}, label,
                        QStringLiteral("{{.Names}}"), hosts);
    }
    QMap<QString, QStringList> networksWith(const QString &label,
                                            const QStringList &hosts = {}) const
    {
        return listWith({QStringLiteral("network"), QStringLiteral("ls")}, label,
                        QStringLiteral("{{.Name}}"), hosts);
    }
    // The session's containers but its network helpers' (`cd-<sid8>-nethelper`, made and
    // removed by one VXLAN host step while a network is set up or torn down).
    QMap<QString, QStringList> containersOf(const QString &sessionId,
                                            const QStringList &hosts = {}) const
    {
        QMap<QString, QStringList> found =
            containersWith(QStringLiteral("io.clusterdeck.session=") + sessionId, hosts);
        for (QStringList &names : found)
            names.removeIf(
                [](const QString &n) { return n.endsWith(QLatin1String("-nethelper")); });
        return found;
    }
    QMap<QString, QStringList> networksOf(const QString &sessionId,
                                          const QStringList &hosts = {}) const
    {
        return networksWith(QStringLiteral("io.clusterdeck.session=") + sessionId, hosts);
    }
    // The host's network namespace (scripts/lab.sh): cdlab-h1 in lab 0, cdl1-h1 in lab 1, …
    static QString netns(const QString &host)
    {
        const QString labId = qEnvironmentVariable("CLUSTERDECK_LAB_ID", QStringLiteral("0"));
        return (labId == QLatin1String("0") ? QStringLiteral("cdlab-")
                                            : QStringLiteral("cdl%1-").arg(labId)) +
               host;
    }
    // The VXLAN devices in the hosts' namespaces whose alias names `storeId` ("h2: cdvx1048576"):
    // they live outside Docker, so no listing above shows them.
    QStringList vxlanDevicesOf(const QString &storeId) const
    {
        QStringList found;
        for (const QString &h : std::as_const(m_names)) {
            QProcess ip;
            ip.start(QStringLiteral("ip"),
                     {QStringLiteral("-n"), netns(h), QStringLiteral("-o"), QStringLiteral("-d"),
                      QStringLiteral("link"), QStringLiteral("show"), QStringLiteral("type"),
                      QStringLiteral("vxlan")});
            ip.waitForFinished(10000);
            for (const QByteArray &line : ip.readAllStandardOutput().split('\n')) {
                if (line.contains(QByteArray("io.clusterdeck.store=" + storeId.toUtf8())))
                    found.append(h + QStringLiteral(": ") +
                                 QString::fromUtf8(line.simplified().split(' ').value(1))
                                     .section(u'@', 0, 0)
                                     .remove(u':'));
            }
        }
        return found;
    }
    static int count(const QMap<QString, QStringList> &m)
    {
        int n = 0;
        for (const QStringList &l : m)
            n += l.size();
        return n;
    }

    // "2026-12-03T07:23:58.597Z" of a container's start, empty when it does not exist.
    QString startedAt(const QString &host, const QString &container) const
    {
        return QString::fromUtf8(docker(host, {QStringLiteral("inspect"), QStringLiteral("-f"),
                                               QStringLiteral("{{.State.StartedAt}}"), container})
                                     .out)
            .trimmed();
    }

private:
    QMap<QString, QStringList> listWith(const QStringList &command, const QString &label,
                                        const QString &format, const QStringList &hosts) const
    {
        QMap<QString, QStringList> result;
        for (const QString &h : hosts.isEmpty() ? m_names : hosts) {
            const Proc p = docker(h, command + QStringList{QStringLiteral("--filter"),
                                                           QStringLiteral("label=") + label,
                                                           QStringLiteral("--format"), format});
            const QStringList names =
                QString::fromUtf8(p.out).split(QLatin1Char('\n'), Qt::SkipEmptyParts);
            if (!names.isEmpty())
                result.insert(h, names);
        }
        return result;
    }

    QStringList m_names;
    QMap<QString, QString> m_unix, m_tls, m_addr, m_ssh;
};

inline bool writeTextFile(const QString &path, const QString &text)
{
    QFile f(path);
    return f.open(QIODevice::WriteOnly | QIODevice::Truncate) && f.write(text.toUtf8()) >= 0;
}

// A controller process; its stderr is collected so the test can wait for what it says.
class ControllerProcess
{
public:
    explicit ControllerProcess(const QString &clusterdeckctl)
        : m_program(clusterdeckctl)
    {}
    // Added to the controller's environment (e.g. CLUSTERDECK_FAILPOINT); before start().
    void setEnvironmentVariable(const QString &name, const QString &value)
    {
        // On top of those set before: each call used to start again from the system's.
        QProcessEnvironment env = m_process.processEnvironment();
        if (env.isEmpty())
            env = QProcessEnvironment::systemEnvironment();
        env.insert(name, value);
        m_process.setProcessEnvironment(env);
    }
    void start(const QString &storeUrl, const QStringList &extra)
    {
        m_process.setProcessChannelMode(QProcess::SeparateChannels);
        m_process.start(
            m_program,
            QStringList{QStringLiteral("--store"), storeUrl, QStringLiteral("controller")} + extra);
    }
    bool waitFor(const QByteArray &text, int timeoutMs)
    {
        QElapsedTimer t;
        t.start();
        while (!m_err.contains(text) && t.elapsed() < timeoutMs) {
            m_process.waitForReadyRead(100);
            m_err += m_process.readAllStandardError();
        }
        return m_err.contains(text);
    }
    QByteArray err()
    {
        m_err += m_process.readAllStandardError();
        return m_err;
    }
    qint64 pid() const { return m_process.processId(); }
    // Only to the controller while it runs. Its pid is freed the moment it exits (Qt reaps it
    // at once), and this machine reuses pids within minutes (pid_max 32768): a signal by a
    // stale pid would reach whatever process got it since, and pid 0 is the test's own group.
    void signal(int sig)
    {
        if (m_process.state() == QProcess::NotRunning || m_process.waitForFinished(0))
            return;
        if (const qint64 pid = m_process.processId(); pid > 0)
            ::kill(pid_t(pid), sig);
    }
    // For a failure message: whether the process still runs, and where each of its threads is
    // (state, kernel wait channel, system call), with gdb's backtraces when gdb is installed.
    QString report()
    {
        if (m_process.state() == QProcess::NotRunning)
            return QStringLiteral("exited: %1 %2")
                .arg(m_process.exitStatus() == QProcess::CrashExit ? QStringLiteral("crashed")
                                                                   : QStringLiteral("status"))
                .arg(m_process.exitCode());
        const QString proc = QStringLiteral("/proc/%1").arg(m_process.processId());
        auto read = [](const QString &file) {
            QFile f(file);
            return f.open(QIODevice::ReadOnly) ? QString::fromUtf8(f.readAll()).trimmed()
                                               : QString();
        };
        QStringList lines;
        for (const QString &line : read(proc + QStringLiteral("/status")).split(u'\n')) {
            if (line.startsWith(u"State:") || line.startsWith(u"SigPnd:") ||
                line.startsWith(u"ShdPnd:") || line.startsWith(u"SigBlk:"))
                lines.append(line.simplified());
        }
        const QStringList tasks =
            QDir(proc + QStringLiteral("/task")).entryList(QDir::Dirs | QDir::NoDotAndDotDot);
        for (const QString &tid : tasks) {
            const QString task = proc + QStringLiteral("/task/") + tid;
            const QString stat = read(task + QStringLiteral("/stat"));
            // "tid (comm) S …": the state follows the last ')'.
            const QString state = stat.mid(stat.lastIndexOf(u')') + 2, 1);
            lines.append(QStringLiteral("thread %1 %2 state %3 wchan %4 syscall %5")
                             .arg(tid, read(task + QStringLiteral("/comm")), state,
                                  read(task + QStringLiteral("/wchan")),
                                  read(task + QStringLiteral("/syscall")).section(u' ', 0, 0)));
        }
        QProcess gdb;
        gdb.start(QStringLiteral("gdb"),
                  {QStringLiteral("-p"), QString::number(m_process.processId()),
                   QStringLiteral("-batch"), QStringLiteral("-ex"),
                   QStringLiteral("thread apply all bt 25")});
        if (gdb.waitForStarted(2000) && gdb.waitForFinished(60000)) {
            for (const QByteArray &l : gdb.readAllStandardOutput().split('\n')) {
                if (l.startsWith("Thread ") || l.startsWith('#'))
                    lines.append(QString::fromUtf8(l));
            }
        } else {
            gdb.kill();
            gdb.waitForFinished();
        }
        return lines.join(u'\n');
    }
    bool stop()
    {
        if (m_process.state() == QProcess::NotRunning)
            return true;
        signal(SIGCONT);
        signal(SIGTERM);
        if (m_process.waitForFinished(20000))
            return true;
        m_process.kill();
        m_process.waitForFinished();
        return false;
    }
    ~ControllerProcess() { stop(); }

private:
    QString m_program;
    QProcess m_process;
    QByteArray m_err;
};
