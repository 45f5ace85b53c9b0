#pragma once

#include "lockholder.h"
#include "sqliteschema.h"
#include "statestore.h"

#include <QSet>

#include <atomic>

#include <chrono>
#include <functional>
#include <mutex>

struct sqlite3;
class QTimer;

namespace ClusterDeck {

class SqliteStatementCache;

// The embedded default backend: one SQLite file in WAL mode, shared safely by several processes
// (the GUI and CLI runs of one machine). Every change is one IMMEDIATE transaction that waits
// (busy timeout, then retries) rather than failing with "database is locked"; every change also
// appends a row to the `changes` table, which each process reads after its own writes and every
// ~500 ms, so signals fire for this process's changes at once and for other processes' changes
// within half a second. Session locks are rows in `locks` (owner, pid, expiry) taken in a
// transaction. Thread-safe: calls from several threads are serialised on one connection.
class SqliteStore : public StateStore
{
    Q_OBJECT

public:
    static constexpr int kSchemaVersion = SqliteSchema::kVersion;

    // Opens the file (creating it, its folder and the schema when missing) and migrates an older
    // schema; a file written by a newer ClusterDeck is refused.
    static Result<std::unique_ptr<SqliteStore>> open(const QString &path,
                                                     QObject *parent = nullptr);
    ~SqliteStore() override;

    QString path() const { return m_path; }
    QString url() const override;
    QString storeId() const override { return m_storeId; }
    QStringList legacyStoreLabels() const override { return m_legacyLabels; }
    QString describe() const override;

    // How often other processes' changes are looked for (default 500 ms; 0 stops the timer).
    void setPollInterval(std::chrono::milliseconds interval);
    // Reads the changes not seen yet (from any process) and emits their signals now.
    void pollChanges();

    Result<void> putHost(const HostRecord &host) override;
    Result<void> removeHost(const QString &name) override;
    Result<QList<HostRecord>> hosts() const override;
    Result<HostRecord> host(const QString &name) const override;

    Result<void> createSession(const SessionRecord &session,
                               const QList<KernelRecord> &kernels) override;
    Result<void> updateSession(const SessionRecord &session) override;
    Result<void> removeSession(const QString &sessionId) override;
    Result<void> resizeSession(const SessionRecord &session, const QList<KernelRecord> &added,
                               const QStringList &removedIds) override;
    Result<SessionListing> listSessions() const override;
    Result<SessionRecord> session(const QString &sessionId) const override;

    Result<void> updateKernel(const KernelRecord &kernel) override;
    Result<void> updateKernels(const QList<KernelRecord> &kernels,
                               const std::optional<SessionRecord> &session = {}) override;
    Result<KernelRecord> updateKernelStatus(const QString &sessionId, const QString &kernelId,
                                            KernelStatus status,
                                            const QString &reason = {}) override;
    Result<KernelRecord> kernel(const QString &sessionId, const QString &kernelId) const override;
    Result<QList<KernelRecord>> kernels(const QString &sessionId) const override;
    Result<QList<KernelRecord>> allKernels() const override;
    Result<QHash<QString, HostAllocation>> allocationsByHost() const override;

    Result<QJsonObject> sealSecrets(const QString &sessionId,
                                    const QMap<QString, QByteArray> &values) override;
    Result<QMap<QString, QByteArray>> openSecrets(const QString &sessionId,
                                                  const QJsonObject &sealed) const override;
    Result<StoreKey> storeKey() override;
    Result<void> importStoreKey(const StoreKey &key) override;

    Result<NetworkAllocation> claimNetwork(const NetworkClaim &claim) override;
    Result<void> releaseNetworkAllocation(const QString &sessionId) override;
    Result<std::optional<NetworkAllocation>>
    networkAllocation(const QString &sessionId) const override;
    Result<QList<NetworkAllocation>> networkAllocations() const override;

    Result<QString> setting(const QString &key) const override;
    Result<void> setSetting(const QString &key, const QString &value) override;

    Result<qint64> appendEvent(const EventRecord &event) override;
    Result<QList<EventRecord>> events(qint64 afterSeq = 0, int limit = 1000) const override;

    Result<std::unique_ptr<SessionLock>> lockSession(const QString &sessionId,
                                                     std::chrono::milliseconds wait) override;

    Result<QList<KernelRecord>> modifyKernels(const QList<KernelRef> &kernels,
                                              const KernelChange &change) override;
    Result<void> recordKernelProgress(const QList<KernelProgress> &progress,
                                      const std::optional<SessionRecord> &session = {}) override;
    Result<std::unique_ptr<Leadership>> campaign(const LeaderRecord &candidate,
                                                 std::chrono::milliseconds wait,
                                                 std::chrono::seconds ttl) override;
    Result<std::optional<LeaderRecord>> leader() const override;
    Result<void> putControllerStatus(const ControllerStatus &status) override;
    Result<std::optional<ControllerStatus>> controllerStatus() const override;
    Result<qint64> requestControllerPass() override;
    Result<qint64> controllerPassRequests() const override;

    // The leadership this store's writes are fenced by (shared with the Leadership object).
    struct Fence
    {
        QString owner;
        qint64 term = 0;
        CancelToken lost;
        mutable std::atomic_bool held{true};
        // The leadership's local deadline (LeaseDeadline::published), which `lost` follows.
        std::shared_ptr<std::atomic<qint64>> deadline;
    };

private:
    // When a controller other than `ownerId` leads and its lease is live: the lease's end (ms
    // since the epoch); else 0. A plain read (no write lock).
    qint64 liveLeaderExpiry(const QString &ownerId) const;
    friend class SqliteSessionLock;
    friend class SqliteLeadership;
    struct Change
    {
        qint64 seq = 0;
        QString kind;
        QString a;
        QString b;
    };

    SqliteStore(QString path, sqlite3 *db, QObject *parent);

    Result<void> migrate();
    // Inside migrate()'s transaction: makes the store id when missing (and records the URL label
    // of a file older than schema 3), then reads both.
    Result<void> ensureIdentity(int fromVersion);
    Result<void> moveSecretsOut(); // schema 4: secrets once per session, out of the spec
    // Runs `body` in one BEGIN IMMEDIATE … COMMIT, retrying the whole transaction while another
    // process holds the write lock; emits the resulting signals after the commit.
    // Writes of a store that granted a Leadership check it inside the transaction (the fence);
    // the leadership's own renewals and resignation must not.
    enum class Fencing { Apply, Skip };
    // `until`: give up (busy) at this moment instead of after the usual write deadline.
    Result<void> write(const QString &what, const std::function<Result<void>()> &body,
                       Fencing fencing = Fencing::Apply,
                       std::optional<std::chrono::steady_clock::time_point> until = {});
    Result<void> checkFence(const Fence &fence);
    // Renewed: true; taken over or expired: false (and the fence is lost); the file stayed busy
    // until `until`: nullopt (the local deadline decides).
    std::optional<bool> renewLeadership(const std::shared_ptr<Fence> &fence,
                                        std::chrono::seconds ttl,
                                        std::chrono::steady_clock::time_point until);
    void resign(const std::shared_ptr<Fence> &fence);
    Result<void> exec(const char *sql, const QString &what) const;
    Result<void> logChange(const QString &kind, const QString &a, const QString &b = {});
    Error sqlError(int rc, const QString &what) const;

    Result<bool> tryLock(const QString &sessionId, const QString &token, qint64 ttlMs,
                         LockHolder *holder);
    void unlock(const QString &sessionId, const QString &token);
    enum class Renewal { Renewed, Lost, Failed };
    // Extends our row by `ttlMs`; Lost (with why: "taken by …", "expired") when it is not ours
    // any more or expired; Failed when the file could not be written.
    Renewal renewLock(const QString &sessionId, const QString &token, qint64 ttlMs, QString *why);

    Result<void> insertKernel(const KernelRecord &kernel);
    Result<void> writeKernel(const KernelRecord &kernel);
    Result<void> writeSession(const SessionRecord &session, bool insert);
    QByteArray launchText(const LaunchRecord &launch); // under m_mutex
    Result<std::optional<KernelRecord>> readKernel(const QString &sessionId,
                                                   const QString &kernelId) const;
    Result<QList<KernelRecord>> readKernels(const char *sql, const QString &arg) const;
    // Under m_mutex: every allocation (null `sessionId`) or the one of a session.
    Result<QList<NetworkAllocation>> readNetworkAllocations(const QString &sessionId) const;

    const QString m_path;
    QString m_storeId;
    QStringList m_legacyLabels;
    sqlite3 *m_db = nullptr;
    std::unique_ptr<SqliteStatementCache> m_statements; // guarded by m_mutex, like m_db
    mutable std::recursive_mutex m_mutex;
    qint64 m_lastChange = 0;
    qint64 m_dataVersion = -1;
    int m_writes = 0;
    QTimer *m_timer = nullptr;
    mutable bool m_busy = false;    // the last sqlite error was SQLITE_BUSY / SQLITE_LOCKED
    std::shared_ptr<Fence> m_fence; // guarded by m_mutex
    // The last session options read or encoded, and their text; guarded by m_mutex.
    mutable LaunchRecord m_launch;
    mutable QByteArray m_launchText;
};

} // namespace ClusterDeck
