#pragma once

#include "common/error.h"
#include "exitpolicy.h"
#include "http/httptypes.h"
#include "reconcilereport.h"
#include "store/records.h"
#include "store/storeidentity.h"

#include <QMap>
#include <QString>

#include <chrono>
#include <functional>
#include <optional>

namespace ClusterDeck {

class HostRegistry;
class SessionController;
class SessionLock;
class StateStore;

// The controller's hands: takes the snapshot a pass plans from, and carries out what the planner
// and the exit policy decide — each under the session's lock, after looking at that session again
// (so a command that finished meanwhile is never undone). Blocking; one thread at a time.
class ActionApplier
{
public:
    ActionApplier(StateStore *store, HostRegistry *registry, StoreIdentity self, QString actor);

    void setOrphanGrace(std::chrono::seconds grace) { m_grace = grace; }
    void setStopTimeout(int seconds) { m_stopTimeout = seconds; }
    // Before every side effect on a host: false stops the work (a deposed leader acts no more).
    void setStillLeading(std::function<bool()> check) { m_stillLeading = std::move(check); }
    void setCancel(const CancelToken &cancel) { m_cancel = cancel; }

    const StoreIdentity &identity() const { return m_self; }
    std::chrono::seconds orphanGrace() const { return m_grace; }

    // Host listings first (all hosts at once, bounded by `timeout` each), then the store.
    Result<Observed> observe(const QList<HostRecord> &hosts,
                             std::chrono::milliseconds timeout = std::chrono::seconds(10)) const;

    // Session by session under its lock: plans the session again from a fresh look and carries
    // out the actions that are still planned.
    ReconcileReport apply(const ReconcilePlan &plan, const QList<HostRecord> &hosts);

    // A kernel's container stopped (a Docker `die`/`destroy` event): under the session's lock,
    // check again and apply the session's policies. Empty when there was nothing to decide.
    Result<std::optional<ExitDecision>> handleExit(const QString &sessionId,
                                                   const KernelExit &exit);
    // Several exits of one session at once (a burst): the lock taken and the session read once,
    // the exits the policies only record (`ignore`, a counted success) written together (one
    // kernel update, one session update); an exit that restarts, terminates or completes the
    // session is acted on alone, and the rest decided on what it left. The decisions made, in
    // the order of `exits` (none for an expected one).
    Result<QList<ExitDecision>> handleExits(const QString &sessionId,
                                            const QList<KernelExit> &exits);

private:
    // While alive: the session lock `lock` is the one the applier works under; losing it
    // cancels m_cancel's calls and makes mayAct() say no (the lock's new holder finishes).
    class HeldLock
    {
    public:
        HeldLock(ActionApplier *applier, const SessionLock *lock);
        ~HeldLock();
        HeldLock(const HeldLock &) = delete;
        HeldLock &operator=(const HeldLock &) = delete;

    private:
        ActionApplier *m_applier;
        CancelToken m_outerCancel;
        const SessionLock *m_outerLock;
    };
    struct Outcome
    {
        bool done = false;
        QString text;
    };
    // Every host's objects carrying `label` (K or K=V), asked in parallel; unreachable hosts
    // say why.
    QHash<QString, HostListing> listHosts(const QList<HostRecord> &hosts, const QString &label,
                                          std::chrono::milliseconds timeout) const;
    Observed observeSession(const QString &sessionId, const QList<HostRecord> &hosts) const;
    Outcome execute(const ReconcileAction &action, const Observed &fresh);
    void followThrough(const QString &sessionId, const QList<HostRecord> &hosts,
                       ReconcileReport *report);
    // The container of `exit` looked at again: nullopt when it runs again (restarted by
    // someone); otherwise the exit with the daemon's exit code, or marked vanished.
    std::optional<KernelExit> recheck(const KernelExit &exit) const;
    struct Recorded
    {
        KernelExit exit;
        ExitDecision decision;
    };
    // Writes what the exits in `recorded` (`ignore` and counted successes only) decided: each
    // kernel's status in one update, the events, and for `ignore` the session DEGRADED.
    Result<void> record(const SessionRecord &session, const QList<Recorded> &recorded);
    Result<ExitDecision> decideAndAct(const SessionRecord &session,
                                      const QList<KernelRecord> &kernels, const KernelExit &exit);
    // A stray or orphan container, or an orphan network.
    Outcome removeObject(const ReconcileAction &action);
    Outcome removeSessionObjects(const ReconcileAction &action, const Observed &fresh);
    Outcome markSession(const QString &sessionId, SessionStatus status, const QString &why);
    Outcome markKernel(const QString &sessionId, const QString &kernelId, KernelStatus status,
                       const QString &why);
    Outcome completeSession(const ReconcileAction &action);
    // Records that the session's restart waits for the hosts `down` (not done).
    Outcome waitForHosts(const QString &sessionId, const QMap<QString, Error> &down);
    void configure(SessionController &sessions) const;
    QString lastLines(const QString &host, const QString &containerId) const;
    bool mayAct(QString *why) const;
    void logEvent(const QString &sessionId, const QString &kernelId, const QString &action,
                  const QString &detail) const;

    StateStore *m_store;
    HostRegistry *m_registry;
    const StoreIdentity m_self;
    const QString m_actor;
    std::chrono::seconds m_grace{60};
    int m_stopTimeout = 5;
    std::function<bool()> m_stillLeading;
    CancelToken m_cancel;
    const SessionLock *m_heldLock = nullptr;
};

} // namespace ClusterDeck
