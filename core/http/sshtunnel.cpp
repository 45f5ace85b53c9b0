#include "sshtunnel.h"

#include "common/logging.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QHash>
#include <QProcess>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <thread>

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

namespace ClusterDeck::Http {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

namespace {

// The guard: runs ssh, and ends it when its stdin (a pipe only ClusterDeck holds open) reaches
// EOF — ClusterDeck closed the tunnel or ended, kill -9 included. It exits with ssh's status when
// ssh ends first. $1 is ssh's stderr file; the rest is ssh's command line.
constexpr char kGuardScript[] = R"(err=$1; shift
exec 3<&0
"$@" </dev/null 2>"$err" & ssh=$!
( read -r _ <&3; kill $ssh 2>/dev/null ) & reader=$!
exec 3<&-
wait $ssh; status=$?
kill $reader 2>/dev/null
exit $status)";

// A folder only this user can enter, for the local sockets: $XDG_RUNTIME_DIR when set, else
// /tmp/clusterdeck-ssh-<uid>, refused when another user owns it or it is a symlink.
Result<QString> runtimeDirectory()
{
    const QString runtime = qEnvironmentVariable("XDG_RUNTIME_DIR");
    const QString dir = !runtime.isEmpty() && QFileInfo(runtime).isDir()
                            ? runtime + QStringLiteral("/clusterdeck-ssh")
                            : QStringLiteral("/tmp/clusterdeck-ssh-%1").arg(::getuid());
    const QByteArray path = QFile::encodeName(dir);
    if (::mkdir(path.constData(), 0700) != 0 && errno != EEXIST)
        return fail(Error::Kind::Transport, dir,
                    QStringLiteral("cannot create the folder for SSH sockets: %1")
                        .arg(QString::fromLocal8Bit(std::strerror(errno))));
    struct stat st
    {
    };
    if (::lstat(path.constData(), &st) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != ::getuid())
        return fail(Error::Kind::Transport, dir,
                    QStringLiteral("not a folder of this user: refusing to put SSH sockets there"));
    if ((st.st_mode & 077) != 0)
        ::chmod(path.constData(), 0700);
    // What processes that ended without closing their tunnels (kill -9) left: their sockets
    // and ssh messages, named after their pid.
    static std::once_flag swept;
    std::call_once(swept, [&dir] {
        for (const QString &name : QDir(dir).entryList(QDir::Files | QDir::System)) {
            bool ok = false;
            const pid_t pid = name.section(u'-', 0, 0).toInt(&ok);
            if (ok && pid != ::getpid() && ::kill(pid, 0) != 0 && errno == ESRCH)
                QFile::remove(dir + u'/' + name);
        }
    });
    return dir;
}

bool accepts(const QString &socketPath)
{
    const QByteArray path = QFile::encodeName(socketPath);
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    if (size_t(path.size()) >= sizeof(addr.sun_path))
        return false;
    std::memcpy(addr.sun_path, path.constData(), size_t(path.size()));
    const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return false;
    const bool ok = ::connect(fd, reinterpret_cast<const sockaddr *>(&addr), sizeof(addr)) == 0;
    ::close(fd);
    return ok;
}

QString lastLines(const QString &file, int count)
{
    QFile f(file);
    if (!f.open(QIODevice::ReadOnly))
        return {};
    QStringList lines = QString::fromLocal8Bit(f.readAll()).split(u'\n', Qt::SkipEmptyParts);
    for (QString &l : lines)
        l = l.trimmed();
    lines.removeIf([](const QString &l) { return l.isEmpty() || l.startsWith(u'@'); });
    if (lines.size() > count)
        lines = lines.mid(lines.size() - count);
    return lines.join(QStringLiteral("; "));
}

std::atomic_int g_counter{0};

// Extra ssh options from the environment: CLUSTERDECK_SSH_CONFIG names a config file used
// instead of ~/.ssh/config (`ssh -F`); the lab and tests use it.
QStringList environmentOptions()
{
    const QString config = qEnvironmentVariable("CLUSTERDECK_SSH_CONFIG");
    if (config.isEmpty())
        return {};
    return {QStringLiteral("-F"), config};
}

// The refusal of a host key never trusted, and where its advice for the command line begins
// (failureLocked() writes them; isUnknownHostKey() and withoutCommandLineAdvice() read them).
const QLatin1String kUnknownHostKey("its host key is not known");
const QLatin1String kCommandLineAdvice(" Compare it");

} // namespace

QString SshTarget::display() const
{
    QString s = user.isEmpty() ? host : user + u'@' + host;
    if (port > 0)
        s += u':' + QString::number(port);
    return s;
}

SshTunnel::SshTunnel(SshTarget target, QString displayName)
    : m_target(std::move(target))
    , m_displayName(std::move(displayName))
{}

SshTunnel::~SshTunnel()
{
    std::lock_guard lock(m_mutex);
    stopLocked();
    if (!m_errFile.isEmpty())
        QFile::remove(m_errFile);
}

std::shared_ptr<SshTunnel> SshTunnel::shared(const SshTarget &target, const QString &displayName)
{
    static std::mutex mutex;
    static QHash<QString, std::weak_ptr<SshTunnel>> tunnels;
    const QString key = target.display() + u'|' + target.remoteSocket;
    std::lock_guard lock(mutex);
    if (auto existing = tunnels.value(key).lock())
        return existing;
    auto tunnel = std::make_shared<SshTunnel>(target, displayName);
    tunnels.insert(key, tunnel);
    return tunnel;
}

QStringList SshTunnel::sshArguments() const
{
    QStringList args{QStringLiteral("ssh")};
    args += environmentOptions();
    // No prompt (there is no terminal to answer it), a forward that cannot be set up ends ssh,
    // a stale socket of an earlier run is replaced, and a silent server is noticed in 15 s.
    // A ControlMaster of the user's config is not used: this process owns its connection.
    args += {QStringLiteral("-N"), QStringLiteral("-T"),
             QStringLiteral("-o"), QStringLiteral("BatchMode=yes"),
             QStringLiteral("-o"), QStringLiteral("ExitOnForwardFailure=yes"),
             QStringLiteral("-o"), QStringLiteral("StreamLocalBindUnlink=yes"),
             QStringLiteral("-o"), QStringLiteral("StreamLocalBindMask=0177"),
             QStringLiteral("-o"), QStringLiteral("ServerAliveInterval=5"),
             QStringLiteral("-o"), QStringLiteral("ServerAliveCountMax=3"),
             QStringLiteral("-o"), QStringLiteral("ControlMaster=no"),
             QStringLiteral("-o"), QStringLiteral("ControlPath=none")};
    if (m_target.port > 0)
        args += {QStringLiteral("-p"), QString::number(m_target.port)};
    if (!m_target.user.isEmpty())
        args += {QStringLiteral("-l"), m_target.user};
    args += {QStringLiteral("-L"),
             (m_socket.isEmpty() ? QStringLiteral("<local socket>") : m_socket) + u':' +
                 m_target.remoteSocket,
             QStringLiteral("--"), m_target.host};
    return args;
}

QString SshTunnel::lastMessage() const
{
    std::lock_guard lock(m_mutex);
    return m_errFile.isEmpty() ? QString() : lastLines(m_errFile, 1);
}

bool SshTunnel::runningLocked()
{
    if (m_guard <= 0)
        return false;
    int status = 0;
    const pid_t r = ::waitpid(m_guard, &status, WNOHANG);
    if (r == 0)
        return true;
    // The guard exits with ssh's status (128 + the signal when ssh was killed).
    m_lastStatus = r == m_guard && WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    // Ended (or reaped elsewhere): what is left is closed.
    m_guard = 0;
    if (m_guardPipe >= 0) {
        ::close(m_guardPipe);
        m_guardPipe = -1;
    }
    return false;
}

void SshTunnel::stopLocked()
{
    m_ready = false;
    if (m_guardPipe >= 0) {
        ::close(m_guardPipe); // the guard ends ssh and exits
        m_guardPipe = -1;
    }
    if (m_guard > 0) {
        // Bounded: a guard that does not end in 2 s is killed with its ssh.
        const auto until = Clock::now() + 2s;
        int status = 0;
        while (::waitpid(m_guard, &status, WNOHANG) == 0) {
            if (Clock::now() > until) {
                ::kill(m_guard, SIGKILL);
                ::waitpid(m_guard, &status, 0);
                break;
            }
            std::this_thread::sleep_for(5ms);
        }
        m_guard = 0;
    }
    if (!m_socket.isEmpty())
        QFile::remove(m_socket);
}

Result<void> SshTunnel::startLocked()
{
    auto dir = runtimeDirectory();
    if (!dir)
        return fail(dir.error());
    if (m_socket.isEmpty()) {
        const QString base = QStringLiteral("%1/%2-%3").arg(*dir).arg(::getpid()).arg(++g_counter);
        m_socket = base + QStringLiteral(".sock");
        m_errFile = base + QStringLiteral(".err");
    }
    QFile::remove(m_socket);

    int fds[2];
    if (::pipe2(fds, O_CLOEXEC) != 0)
        return fail(Error::Kind::Transport, m_displayName,
                    QStringLiteral("cannot start ssh: pipe: %1")
                        .arg(QString::fromLocal8Bit(std::strerror(errno))));
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, fds[0], STDIN_FILENO);
    posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
    // The guard's own stderr too: sh reports a killed ssh ("Killed") on it, which would land in
    // the admin's terminal; ssh's stderr goes to the message file.
    posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
    posix_spawnattr_t attr;
    posix_spawnattr_init(&attr);
    // Its own process group: a Ctrl-C in the admin's terminal reaches ClusterDeck, which then
    // closes the tunnel itself (the guard would otherwise die before the interrupted work ends).
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK);
    posix_spawnattr_setpgroup(&attr, 0);
    sigset_t none;
    sigemptyset(&none);
    posix_spawnattr_setsigmask(&attr, &none);

    QList<QByteArray> argv{"sh", "-c", kGuardScript, "sh", QFile::encodeName(m_errFile)};
    for (const QString &a : sshArguments())
        argv.append(a.toLocal8Bit());
    std::vector<char *> cargv;
    for (QByteArray &a : argv)
        cargv.push_back(a.data());
    cargv.push_back(nullptr);
    pid_t pid = 0;
    const int rc = ::posix_spawn(&pid, "/bin/sh", &actions, &attr, cargv.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attr);
    ::close(fds[0]);
    if (rc != 0) {
        ::close(fds[1]);
        return fail(
            Error::Kind::Transport, m_displayName,
            QStringLiteral("cannot start ssh: %1").arg(QString::fromLocal8Bit(std::strerror(rc))));
    }
    m_guard = pid;
    m_guardPipe = fds[1];
    qCDebug(lcHttp).noquote() << "ssh tunnel to" << m_target.display() << "for" << m_displayName
                              << ":" << sshArguments().join(u' ');
    return {};
}

Result<QString> SshTunnel::socketPath(std::chrono::milliseconds timeout, const CancelToken &cancel)
{
    std::lock_guard lock(m_mutex);
    // A running ssh that accepted once keeps listening until it ends: one waitpid, no probe
    // (a probe connection would open a channel to the host's socket per request).
    if (runningLocked() && m_ready)
        return m_socket;
    if (m_guard > 0)
        stopLocked(); // running but never accepted: stuck, start again
    m_ready = false;
    if (auto started = startLocked(); !started)
        return fail(started.error());
    const auto until = Clock::now() + timeout;
    for (;;) {
        if (accepts(m_socket)) {
            m_ready = true;
            return m_socket;
        }
        if (!runningLocked()) {
            const QString said = lastLines(m_errFile, 3);
            return fail(Error::Kind::Transport, m_displayName, failureLocked(said));
        }
        if (cancel.isCancelled()) {
            stopLocked();
            return fail(Error::Kind::Cancelled, m_displayName, QStringLiteral("request cancelled"));
        }
        if (Clock::now() > until) {
            const QString said = lastLines(m_errFile, 3);
            stopLocked();
            return fail(
                Error::Kind::Timeout, m_displayName,
                QStringLiteral("ssh to %1 did not connect within %2 ms%3")
                    .arg(m_target.display())
                    .arg(timeout.count())
                    .arg(said.isEmpty() ? QString() : QStringLiteral(" (ssh said: %1)").arg(said)));
        }
        std::this_thread::sleep_for(10ms);
    }
}

namespace {

// `ssh -G`: the options ssh would use for the target (HostName, Port, UserKnownHostsFile …).
Result<QHash<QString, QString>> effectiveOptions(const SshTarget &target)
{
    QStringList args = environmentOptions();
    args += QStringLiteral("-G");
    if (target.port > 0)
        args += {QStringLiteral("-p"), QString::number(target.port)};
    if (!target.user.isEmpty())
        args += {QStringLiteral("-l"), target.user};
    args += {QStringLiteral("--"), target.host};
    QProcess ssh;
    ssh.start(QStringLiteral("ssh"), args);
    if (!ssh.waitForFinished(10000) || ssh.exitCode() != 0)
        return fail(Error::Kind::Transport, target.display(),
                    QStringLiteral("ssh -G failed: %1")
                        .arg(QString::fromLocal8Bit(ssh.readAllStandardError()).trimmed()));
    QHash<QString, QString> options;
    for (const QByteArray &line : ssh.readAllStandardOutput().split('\n')) {
        const qsizetype space = line.indexOf(' ');
        if (space > 0 && !options.contains(QString::fromLatin1(line.left(space))))
            options.insert(QString::fromLatin1(line.left(space)),
                           QString::fromLocal8Bit(line.mid(space + 1)).trimmed());
    }
    return options;
}

} // namespace

Result<QList<SshTunnel::HostKey>> SshTunnel::scanHostKeys(const SshTarget &target)
{
    auto options = effectiveOptions(target);
    if (!options)
        return fail(options.error());
    const QString host = options->value(QStringLiteral("hostname"), target.host);
    const QString port = options->value(QStringLiteral("port"), QStringLiteral("22"));
    QProcess scan;
    scan.start(QStringLiteral("ssh-keyscan"),
               {QStringLiteral("-T"), QStringLiteral("5"), QStringLiteral("-p"), port, host});
    if (!scan.waitForFinished(15000))
        return fail(Error::Kind::Timeout, target.display(),
                    QStringLiteral("ssh-keyscan of %1 port %2 did not finish").arg(host, port));
    const QByteArray lines = scan.readAllStandardOutput();
    QList<HostKey> keys;
    for (const QByteArray &line : lines.split('\n')) {
        if (line.trimmed().isEmpty() || line.startsWith('#'))
            continue;
        QProcess keygen;
        keygen.start(QStringLiteral("ssh-keygen"), {QStringLiteral("-lf"), QStringLiteral("-")});
        keygen.write(line + '\n');
        keygen.closeWriteChannel();
        if (!keygen.waitForFinished(5000) || keygen.exitCode() != 0)
            continue;
        // "256 SHA256:… 192.168.213.11 (ED25519)"
        const QStringList f =
            QString::fromLatin1(keygen.readAllStandardOutput()).simplified().split(u' ');
        if (f.size() < 3)
            continue;
        HostKey key;
        key.fingerprint = f.at(1);
        key.type = f.last().mid(1).chopped(1);
        key.knownHostsLine = QString::fromLatin1(line.trimmed());
        keys.append(key);
    }
    if (keys.isEmpty())
        return fail(
            Error::Kind::Transport, target.display(),
            QStringLiteral("no SSH host key could be read from %1 port %2: %3")
                .arg(host, port, QString::fromLocal8Bit(scan.readAllStandardError()).trimmed()));
    return keys;
}

Result<QString> SshTunnel::trustHostKeys(const SshTarget &target, const QList<HostKey> &keys)
{
    auto options = effectiveOptions(target);
    if (!options)
        return fail(options.error());
    QString file = options->value(QStringLiteral("userknownhostsfile")).section(u' ', 0, 0);
    if (file.startsWith(QLatin1String("~/")))
        file = QDir::homePath() + file.mid(1);
    if (file.isEmpty())
        file = QDir::homePath() + QStringLiteral("/.ssh/known_hosts");
    QDir().mkpath(QFileInfo(file).absolutePath());
    QFile out(file);
    if (!out.open(QIODevice::WriteOnly | QIODevice::Append))
        return fail(Error::Kind::Transport, file,
                    QStringLiteral("cannot add the host key: %1").arg(out.errorString()));
    for (const HostKey &k : keys)
        out.write(k.knownHostsLine.toLocal8Bit() + '\n');
    return file;
}

QString SshTunnel::failureLocked(const QString &sshSaid) const
{
    QString said = sshSaid;
    if (said.isEmpty())
        said = m_lastStatus > 128
                   ? QStringLiteral("ssh was killed (signal %1)").arg(m_lastStatus - 128)
               : m_lastStatus >= 0
                   ? QStringLiteral("ssh ended with status %1 without a message").arg(m_lastStatus)
                   : QStringLiteral("ssh ended without a message");
    const bool changed = said.contains(QLatin1String("IDENTIFICATION HAS CHANGED")) ||
                         said.contains(QLatin1String("Host key for"));
    if (!changed && !said.contains(QLatin1String("Host key verification failed")) &&
        !said.contains(QLatin1String("host key is known")))
        return QStringLiteral("ssh to %1 failed: %2").arg(m_target.display(), said);
    // Refused, with what the admin needs to decide: the key the host presents now.
    QString presented;
    if (auto keys = scanHostKeys(m_target)) {
        QStringList f;
        for (const HostKey &k : *keys)
            f.append(k.type + u' ' + k.fingerprint);
        presented = QStringLiteral(" It presents %1.").arg(f.join(QStringLiteral(", ")));
    }
    return changed ? QStringLiteral("ssh to %1 refused: the host's key CHANGED since it was "
                                    "trusted (known_hosts).%2 If the host was reinstalled, "
                                    "remove the old key (ssh-keygen -R) and trust the new one "
                                    "(`clusterdeckctl host trust ssh://%1`); otherwise someone "
                                    "may be in the middle.")
                         .arg(m_target.display(), presented)
                   : QStringLiteral("ssh to %1 refused: %3 "
                                    "(known_hosts).%2%4 with the host's own "
                                    "(ssh-keygen -lf /etc/ssh/ssh_host_ed25519_key.pub on the "
                                    "host), then trust it: `clusterdeckctl host trust ssh://%1`, "
                                    "or the Add Host dialog.")
                         .arg(m_target.display(), presented, kUnknownHostKey, kCommandLineAdvice);
}

bool SshTunnel::isUnknownHostKey(const QString &message)
{
    return message.contains(kUnknownHostKey);
}

QString SshTunnel::withoutCommandLineAdvice(const QString &message)
{
    return isUnknownHostKey(message) ? message.section(kCommandLineAdvice, 0, 0) : message;
}

} // namespace ClusterDeck::Http
