#pragma once

#include "common/error.h"
#include "docker/dockertypes.h"
#include "http/httptypes.h"
#include "sessionspec.h"
#include "store/records.h"

#include <QMap>

#include <functional>
#include <optional>

namespace ClusterDeck {

class HostRegistry;
class SessionLock;
class StateStore;
class SessionStore;

// Whole-session operations (docs/architecture.md, Session lifecycle): restart and terminate act on
// every kernel of a session concurrently and return when all are done (asking for one kernel acts
// on the whole session); logs of one or all kernels. (What happens when a kernel exits on its own
// is the controller's: core/control.) Blocking: call from a worker thread (or the CLI's main
// thread).
class SessionController
{
public:
    // hostname, one line of output without its newline, from stderr?
    using LogSink = std::function<void(const QString &hostname, const QByteArray &line, bool err)>;

    SessionController(StateStore *store, HostRegistry *registry);
    SessionController(const SessionController &) = delete;
    SessionController &operator=(const SessionController &) = delete;

    void setActor(const QString &actor) { m_actor = actor; }
    // Seconds a kernel gets to stop before SIGKILL on restart.
    void setStopTimeout(int seconds) { m_stopTimeout = seconds; }
    // Stops a restart or terminate under way (what is left is the controller's), and bounds the
    // removal of a terminate in total.
    void setCancel(const CancelToken &cancel) { m_cancel = cancel; }
    // For restartLocked/terminateLocked: the session lock their caller holds. Its loss cancels
    // their work (the caller passes a cancel token that includes lock->lostToken()) and a
    // multi-node relaunch stops without rolling back.
    void setHeldLock(const SessionLock *lock) { m_heldLock = lock; }
    // For the controller: cancelled when it stops leading. A relaunch under way then stops where
    // it is, never rolled back (Provisioner::setStopToken): a live session is not ended by a
    // leader that lost its lease.
    void setStopToken(const CancelToken &stop) { m_stop = stop; }
    void setRemovalTimeout(std::chrono::milliseconds timeout) { m_removalTimeout = timeout; }
    // For the controller: a restart that finds a host of the session not answering (before it
    // starts, or when its relaunch fails) waits for it — recordWaitForHosts — instead of ending
    // the session. Without it (a command) such a restart fails before anything is stopped.
    void setWaitForHosts(bool wait) { m_waitForHosts = wait; }
    // Records that a session waits for the hosts `down` (host → why) before it can be restarted:
    // RESTARTING with the reason, desired state unchanged, the kernels on those hosts UNKNOWN;
    // a session already waiting for the same reason gets no new event. Returns the Unavailable
    // error that says so.
    Error recordWaitForHosts(const QString &sessionId, const QMap<QString, Error> &down);
    // The hosts a session's kernels and its network live on.
    static QStringList hostsOf(const SessionRecord &session, const QList<KernelRecord> &kernels);

    // SESSION as the CLI takes it, in this order: the exact id, the exact name (of several
    // sessions of that name, the one still wanted running), a unique prefix of the id (the short
    // id). Anything matching several is a Conflict listing the candidates.
    static Result<SessionRecord> findSession(const SessionStore &store, const QString &ref);
    static Result<SessionRecord> matchSession(const QList<SessionRecord> &sessions,
                                              const QString &ref); // pure: the same rules
    // What removeSessionObjects needs, from the store's records (they are the placement truth).
    static SessionSpec specFromRecords(const SessionRecord &session,
                                       const QList<KernelRecord> &kernels);

    Result<SessionRecord> restart(const QString &sessionId, const QString &reason = {});
    Result<SessionRecord> terminate(const QString &sessionId, const QString &reason = {});
    // The same, for a caller that holds the session's lock already (the controller's policies).
    Result<SessionRecord> restartLocked(const QString &sessionId, const QString &reason);
    Result<SessionRecord> terminateLocked(const QString &sessionId, const QString &reason);
    // Streams the logs (of one kernel, or of all in rank order) line by line into `sink`, never
    // holding them: `tail` is the last N lines of each kernel, "all" (or empty) everything.
    // Following (at most kMaxFollowedKernels) runs until cancel or the containers stop.
    Result<void> logs(const QString &sessionId, const QString &hostname, bool follow,
                      const LogSink &sink, const CancelToken &cancel = {},
                      const QString &tail = QStringLiteral("all"));
    static constexpr int kMaxFollowedKernels = 256;

private:
    // Takes the session's lock and runs `work` under it; fails with the lock's lostError() when
    // the lock was lost meanwhile.
    Result<SessionRecord> withLock(const QString &sessionId,
                                   const std::function<Result<SessionRecord>()> &work);
    void setSessionStatus(SessionRecord &session, SessionStatus status, const QString &reason);
    // Records a kernel's status (a failed write is logged) and announces it.
    void setKernelStatus(const QString &sessionId, const KernelRecord &kernel, KernelStatus status,
                         const QString &reason);
    // The same for several kernels, in one transaction.
    void setKernelStatuses(const QString &sessionId, const QList<KernelRecord> &kernels,
                           KernelStatus status, const QString &reason);
    void logEvent(const QString &sessionId, const QString &kernelId, const QString &action,
                  const QString &detail);

    StateStore *m_store;
    HostRegistry *m_registry;
    QString m_actor;
    int m_stopTimeout = 5;
    CancelToken m_cancel;
    CancelToken m_stop;
    const SessionLock *m_heldLock = nullptr;
    std::chrono::milliseconds m_removalTimeout{30000};
    bool m_waitForHosts = false;
};

} // namespace ClusterDeck
