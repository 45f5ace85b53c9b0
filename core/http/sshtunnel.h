#pragma once

#include "common/canceltoken.h"
#include "common/error.h"

#include <QString>
#include <QStringList>

#include <chrono>
#include <memory>
#include <mutex>

#include <sys/types.h>

namespace ClusterDeck::Http {

// Where an ssh:// endpoint leads: the SSH server (as the admin's `ssh` would reach it, so their
// ~/.ssh/config, agent, keys and known_hosts apply) and the daemon's socket on that machine.
struct SshTarget
{
    QString user; // empty: ssh's own choice (the config's User, else the local user)
    QString host;
    int port = 0;         // 0: ssh's own choice (the config's Port, else 22)
    QString remoteSocket; // "/var/run/docker.sock"

    bool operator==(const SshTarget &) const = default;
    QString display() const; // "admin@gpu3:2222"
};

// One OpenSSH connection to a host, carrying every HTTP connection to its Docker socket: `ssh -N
// -L <local socket>:<remote socket>` forwards each connection to the local socket as a channel of
// that one SSH connection (streams, exec and attach included). The local socket is private to
// this process (mode 0600 in a 0700 folder). The ssh process runs under a small sh guard reading
// a pipe only this process holds open: when this process ends in any way (kill -9 included) the
// pipe closes and the guard ends ssh, so nothing is left behind.
//
// A tunnel whose ssh ended (the connection dropped, the host rebooted) is started again by the
// next request; the request that was in flight fails with the host named, as a dropped TCP
// connection would.
class SshTunnel
{
public:
    SshTunnel(SshTarget target, QString displayName);
    ~SshTunnel();
    SshTunnel(const SshTunnel &) = delete;
    SshTunnel &operator=(const SshTunnel &) = delete;

    // The process-wide tunnel to `target` (one SSH connection per host and process).
    static std::shared_ptr<SshTunnel> shared(const SshTarget &target, const QString &displayName);

    // The local socket, once it accepts connections: starts ssh when it is not running and waits
    // up to `timeout` for it to connect and authenticate. Errors name the host and say what ssh
    // said; an unknown or changed host key is refused with its fingerprint and what to do.
    Result<QString> socketPath(std::chrono::milliseconds timeout, const CancelToken &cancel = {});

    // ssh's last message (e.g. "channel 2: open failed: connect failed: …"), for errors.
    QString lastMessage() const;

    // A host's public keys as the SSH server presents them now (ssh-keyscan at the address and
    // port ssh's config resolves the target to), with their SHA256 fingerprints: for the admin to
    // compare before trusting them.
    struct HostKey
    {
        QString type;        // "ED25519"
        QString fingerprint; // "SHA256:…"
        QString knownHostsLine;
    };
    static Result<QList<HostKey>> scanHostKeys(const SshTarget &target);
    // Appends `keys` to the known_hosts file ssh uses for `target` (UserKnownHostsFile).
    static Result<QString> trustHostKeys(const SshTarget &target, const QList<HostKey> &keys);

    // Whether `message` (an error of socketPath()) is the refusal of a host key never trusted,
    // which the admin may accept (a changed key is not); and that refusal without the advice
    // for the command line (the key's fingerprint stays), for a UI that offers its own way.
    static bool isUnknownHostKey(const QString &message);
    static QString withoutCommandLineAdvice(const QString &message);

private:
    // The ssh command line (without the guard).
    QStringList sshArguments() const;
    bool runningLocked();
    void stopLocked();
    Result<void> startLocked();
    QString failureLocked(const QString &sshSaid) const;

    const SshTarget m_target;
    const QString m_displayName;
    QString m_socket;
    QString m_errFile; // ssh's stderr
    mutable std::mutex m_mutex;
    pid_t m_guard = 0;    // the guard's pid, 0 when none runs
    bool m_ready = false; // the local socket accepted a connection since ssh started
    int m_lastStatus = -1; // the ended ssh's exit status (128 + signal when killed)
    int m_guardPipe = -1; // write end: closing it ends the guard and its ssh
};

} // namespace ClusterDeck::Http
