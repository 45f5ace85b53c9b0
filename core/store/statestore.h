#pragma once

#include "common/error.h"
#include "common/canceltoken.h"
#include "networkclaim.h"
#include "records.h"
#include "storeidentity.h"
#include "storekey.h"

#include <QMap>
#include <QObject>

#include <chrono>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>

namespace ClusterDeck {

// Held while a console provisions, restarts, terminates or reconciles one session; released on
// destruction. For SQLite a row with an expiry, renewed by a thread while held; for etcd a
// lease-based lock kept alive in the background. The holder can tell when it was lost (the row
// expired or was taken, the lease died): lostToken() is cancelled and the callbacks given to
// onLost() run, once, on the thread that noticed. A holder stops making side effects then and
// leaves the rest to the controller (lostError() says so).
class SessionLock
{
public:
    virtual ~SessionLock() = default;

    bool isLost() const { return m_lost.isCancelled(); }
    CancelToken lostToken() const { return m_lost; }
    // "lost the lock of session X (why): stopped; the controller finishes it"; Kind::Conflict.
    Error lostError() const;
    // Runs `callback` when the lock is lost (at once, on this thread, if it already is).
    void onLost(std::function<void(const Error &)> callback);

protected:
    // For implementations: the first call wins, later ones are ignored.
    void markLost(const QString &sessionId, const QString &why);

private:
    mutable std::mutex m_lostMutex;
    CancelToken m_lost;
    std::optional<Error> m_lostError;
    QList<std::function<void(const Error &)>> m_lostCallbacks;
};

// The controller's leadership of one store, held while this object lives (destruction resigns,
// so the next candidate leads at once instead of after the TTL). While it is alive, every write
// through the store object that granted it is fenced: conditioned, inside the store's own
// transaction, on this leadership still being the current one. Once lost, those writes fail
// with Error::Kind::Conflict and lostToken() is cancelled, so side effects stop too.
class Leadership
{
public:
    virtual ~Leadership() = default;
    virtual LeaderRecord record() const = 0;
    virtual bool isHeld() const = 0;
    virtual CancelToken lostToken() const = 0;
};

// What an operation learned of one kernel since it last wrote it (see recordKernelProgress).
struct KernelProgress
{
    KernelRef kernel;
    QList<KernelStatusChange> changes; // each appended to the history; the last one's is the status
    std::optional<QString> containerId;
    std::optional<QList<PortBinding>> ports;
    QDateTime updatedAt;
    std::optional<DesiredState> desired;
};

// Where ClusterDeck remembers hosts, sessions (desired + actual), kernels and its event log.
// Two backends (sqlite:, etcd:) pass one contract suite. Every mutating call is one transaction:
// it either fully happens or not at all. Notifications arrive as Qt signals on the receiver's
// thread.
class StateStore : public QObject
{
    Q_OBJECT

public:
    using QObject::QObject;
    ~StateStore() override = default;

    virtual QString url() const = 0;
    // The random UUID made when the store was created (SQLite: the meta table; etcd:
    // <prefix>/meta/id). Objects are labelled io.clusterdeck.store=<storeId()>.
    virtual QString storeId() const = 0;
    // Store label values written by builds before the store id (the store's URL), recorded when
    // the store was migrated; empty for a store created with an id.
    virtual QStringList legacyStoreLabels() const = 0;
    StoreIdentity identity() const { return {storeId(), legacyStoreLabels()}; }
    // For the status bar: "sqlite /path" / "etcd a:2379,b:2379".
    virtual QString describe() const = 0;

    // Hosts
    virtual Result<void> putHost(const HostRecord &host) = 0;
    virtual Result<void> removeHost(const QString &name) = 0;
    virtual Result<QList<HostRecord>> hosts() const = 0;
    virtual Result<HostRecord> host(const QString &name) const = 0;

    // Sessions and their kernels. createSession writes both at once (desired state first).
    virtual Result<void> createSession(const SessionRecord &session,
                                       const QList<KernelRecord> &kernels) = 0;
    virtual Result<void> updateSession(const SessionRecord &session) = 0;
    virtual Result<void> removeSession(const QString &sessionId) = 0; // with its kernels
    // `scale`: writes the session, adds `added` (new ids) and removes the kernels `removedIds`,
    // in one transaction. Announced as sessionChanged plus kernelChanged for each added kernel.
    virtual Result<void> resizeSession(const SessionRecord &session,
                                       const QList<KernelRecord> &added,
                                       const QStringList &removedIds) = 0;
    // Every session that decodes; an undecodable record is left out with a warning in the log
    // (callers that must know — `ls`, the console, the controller — use listSessions()).
    Result<QList<SessionRecord>> sessions() const;
    // The sessions that decode and, apart, the records that do not (naming their key or row).
    virtual Result<SessionListing> listSessions() const = 0;
    virtual Result<SessionRecord> session(const QString &sessionId) const = 0;

    virtual Result<void> updateKernel(const KernelRecord &kernel) = 0;
    // Several kernels (and optionally their session) in one transaction.
    virtual Result<void> updateKernels(const QList<KernelRecord> &kernels,
                                       const std::optional<SessionRecord> &session = {}) = 0;
    // Sets a kernel's status and appends it to its history, reading and writing in one
    // transaction, so writers in several processes never lose each other's changes.
    virtual Result<KernelRecord> updateKernelStatus(const QString &sessionId,
                                                    const QString &kernelId, KernelStatus status,
                                                    const QString &reason = {}) = 0;
    virtual Result<KernelRecord> kernel(const QString &sessionId,
                                        const QString &kernelId) const = 0;
    virtual Result<QList<KernelRecord>> kernels(const QString &sessionId) const = 0;
    virtual Result<QList<KernelRecord>> allKernels() const = 0;
    // Read-modify-write of several kernels in one transaction: `change` gets each current record
    // and returns whether it changed it. Kernels that do not exist are skipped. Returns the
    // records that were changed, as written. Writers in other processes never lose updates.
    using KernelChange = std::function<bool(KernelRecord &kernel)>;
    virtual Result<QList<KernelRecord>> modifyKernels(const QList<KernelRef> &kernels,
                                                      const KernelChange &change) = 0;
    // The progress of several kernels (statuses, containers, ports, desired state) in one
    // transaction, with `session` (whose kernels they must then be) if given; every other field
    // stays as stored (others' observations). Kernels that do not exist are skipped. By default
    // a modifyKernels() (with a session: a read, then updateKernels()); a backend may append to
    // the history without decoding it.
    virtual Result<void> recordKernelProgress(const QList<KernelProgress> &progress,
                                              const std::optional<SessionRecord> &session = {});

    // Secrets of one session (name → content: SSH private keys …), kept once per session in its
    // launch_options["secrets"] (see SessionSecrets). SQLite keeps them as they are, in its 0600
    // file; etcd encrypts them with the store key, which lives outside etcd (StoreKey). Without
    // the key, sealing and opening fail with StoreKey::missing() and everything else works.
    virtual Result<QJsonObject> sealSecrets(const QString &sessionId,
                                            const QMap<QString, QByteArray> &values) = 0;
    virtual Result<QMap<QString, QByteArray>> openSecrets(const QString &sessionId,
                                                          const QJsonObject &sealed) const = 0;

    // The key that encrypts this store's secrets (etcd), from the user's folder; made (and its
    // fingerprint recorded in the store) when the store has none yet. A SQLite store has no key.
    virtual Result<StoreKey> storeKey() = 0;
    // Checks `key` against this store (its id and the fingerprint the store keeps) and saves it
    // in the user's folder.
    virtual Result<void> importStoreKey(const StoreKey &key) = 0;

    // Multi-node session networks (issue 26): each session claims a VXLAN id (VNI) and a /24
    // from `pool`, in one transaction (SQLite) or one compare-and-swap txn on per-VNI and
    // per-subnet keys (etcd), so no two sessions of this store ever get the same VNI or
    // overlapping subnets, whichever processes claim at once. The session must be stored
    // (NotFound otherwise). `inUse`: networks and VNIs found on the session's hosts (another
    // store, another tool), skipped. An exhausted pool is a Conflict naming it.
    // Idempotent: a session that holds an allocation gets it back unchanged (whatever the pool
    // or `inUse`), so the driver may claim at every attempt, and after a crash.
    Result<NetworkAllocation> claimNetworkAllocation(const QString &sessionId,
                                                     const OverlayPool &pool,
                                                     const OverlayAvoid &inUse = {});
    // After a collision found while creating the network (Docker refused the subnet on a host,
    // the kernel refused the VNI): `collided` is remembered for this session, never handed to it
    // again, and whichever of its VNI and subnet collided (or is in `inUse`) is replaced by the
    // next free one; the other is kept. Without an allocation: a claim that avoids `collided`.
    Result<NetworkAllocation> reclaimNetworkAllocation(const QString &sessionId,
                                                       const OverlayPool &pool,
                                                       const OverlayAvoid &collided,
                                                       const OverlayAvoid &inUse = {});
    // Both of the above: one claim, decided by NetworkClaim::decide inside the transaction.
    virtual Result<NetworkAllocation> claimNetwork(const NetworkClaim &claim) = 0;
    // Frees the session's VNI and subnet (after its network is removed from its hosts). A
    // session without one is fine. removeSession() releases too, in its own transaction.
    virtual Result<void> releaseNetworkAllocation(const QString &sessionId) = 0;
    virtual Result<std::optional<NetworkAllocation>>
    networkAllocation(const QString &sessionId) const = 0;
    // Every allocation, by session id (repair and clean-up read them).
    virtual Result<QList<NetworkAllocation>> networkAllocations() const = 0;

    // Store-wide settings (issue 26: `network.driver`, `network.pool` …): short strings under
    // keys of [a-z0-9.-]+, shared by every console and CLI of the store (SQLite: the table
    // `settings`; etcd: <prefix>/settings/<key>). A key never set reads as "". An empty value
    // removes the key. The store only checks the key (Kind::Invalid naming it otherwise); what a
    // value means, and whether it is valid, is its reader's business (NetworkSettings).
    // Announced as settingChanged(key), in this process at once and in others like every change.
    virtual Result<QString> setting(const QString &key) const = 0;
    virtual Result<void> setSetting(const QString &key, const QString &value) = 0;
    // The check both backends make: nothing when `key` is a valid setting key.
    static Result<void> checkSettingKey(const QString &key);

    // Event log
    virtual Result<qint64> appendEvent(const EventRecord &event) = 0;
    virtual Result<QList<EventRecord>> events(qint64 afterSeq = 0, int limit = 1000) const = 0;

    // Exclusive per-session work. Waits up to `wait`, then fails with Kind::Conflict ("busy").
    virtual Result<std::unique_ptr<SessionLock>> lockSession(const QString &sessionId,
                                                             std::chrono::milliseconds wait) = 0;

    // The controller's leader election (one leader per store). Waits up to `wait` (0: one try);
    // fails with Kind::Conflict naming the current leader. `ttl`: how long a leader that stops
    // renewing (crashed, frozen, cut off) keeps the leadership.
    virtual Result<std::unique_ptr<Leadership>> campaign(const LeaderRecord &candidate,
                                                         std::chrono::milliseconds wait,
                                                         std::chrono::seconds ttl) = 0;
    // The current leader, if any.
    virtual Result<std::optional<LeaderRecord>> leader() const = 0;
    // Written by the leader after each pass (fenced); read by `reconcile`, `host ls`, the console.
    virtual Result<void> putControllerStatus(const ControllerStatus &status) = 0;
    virtual Result<std::optional<ControllerStatus>> controllerStatus() const = 0;
    // Anyone may ask the leader for a pass soon; returns the number of requests so far.
    virtual Result<qint64> requestControllerPass() = 0;
    virtual Result<qint64> controllerPassRequests() const = 0;
    // Removes what an interrupted multi-step write left behind for longer than `grace` (etcd:
    // kernels of a session whose record never came, the undo records of an unfinished chunked
    // kernel update, which it undoes, the network allocation of a session record removed by a
    // build from before them); returns how many it cleaned. The controller's pass calls
    // it. A store whose every write is one transaction (SQLite) has nothing to do.
    virtual Result<int> removeStrayRecords(std::chrono::milliseconds grace)
    {
        Q_UNUSED(grace);
        return 0;
    }

Q_SIGNALS:
    // The change feed had a gap (an etcd watch was compacted): re-read everything.
    void changesLost();
    // The leader or its published status changed; someone asked the leader for a pass.
    void controllerChanged();
    void controllerPassRequested();
    void hostChanged(const QString &name);
    void hostRemoved(const QString &name);
    void sessionAdded(const QString &sessionId);
    void sessionChanged(const QString &sessionId);
    void sessionRemoved(const QString &sessionId);
    void kernelChanged(const QString &sessionId, const QString &kernelId);
    void eventAppended(qint64 seq);
    // A store-wide setting was written or removed (see setting()).
    void settingChanged(const QString &key);
};

} // namespace ClusterDeck
