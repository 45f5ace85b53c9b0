#pragma once

#include "etcd/etcdtypes.h"
#include "statestore.h"

#include <QDateTime>
#include <QHash>
#include <QSet>

#include <atomic>
#include <chrono>
#include <memory>
#include <mutex>

namespace ClusterDeck {

namespace Etcd {
class EtcdClient;
class EtcdWatch;
} // namespace Etcd

// The shared backend: state under one key prefix of an etcd cluster, so several consoles and
// admins see and change the same sessions.
//
//   <prefix>/meta/schema                    schema version ("2")
//   <prefix>/meta/eventseq                  last event sequence number
//   <prefix>/meta/secrets-sealed            "1" once older sessions' secrets are sealed
//   <prefix>/meta/key-id                    fingerprint of the store key (StoreKey), which
//                                           encrypts the sessions' secrets and is kept outside
//                                           etcd, in each admin's config folder
//   <prefix>/hosts/<name>                   HostRecord JSON
//   <prefix>/sessions/<id>                  SessionRecord JSON
//   <prefix>/kernels/<session id>/<id>      KernelRecord JSON, one key per container
//   <prefix>/events/<seq, 20 digits>        EventRecord JSON, append-only
//   <prefix>/locks/<session id>/<lease>     per-session locks (EtcdLock)
//   <prefix>/controller/leader/<lease>      the controller's election (EtcdLock recipe); the
//                                           holder's create revision is the fencing token
//   <prefix>/controller/status              ControllerStatus JSON, written by the leader
//   <prefix>/controller/requests            count of requested passes
//   <prefix>/intents/<id>/<chunk>           undo record of an unfinished chunked kernel update
//   <prefix>/settings/<key>                 a store-wide setting's value (absent: unset)
//   <prefix>/networks/sessions/<session id> NetworkAllocation JSON of a multi-node session
//   <prefix>/networks/vnis/<vni, 8 digits>  the session id holding that VXLAN id
//   <prefix>/networks/subnets/<a.b.c.0>     the session id holding that /24
//                                           (all three written and removed in one txn; a claim
//                                           compares the VNI and subnet keys missing, so two
//                                           consoles claiming at once never get the same one)
//
// Every change is one etcd transaction, guarded by compares (exists / missing / mod revision).
// etcd caps a transaction at 128 operations (--max-txn-ops), so a session with more kernels is
// created in several transactions: the kernels first, the session key last; readers only ever show
// kernels whose session key exists, so a half-created session stays invisible and a failed create
// is cleaned up (one that died between chunks by removeStrayRecords(), after a grace).
// updateKernels() with more kernels than one transaction takes is applied in chunks, all or
// nothing through undo records (see putKernels). A write whose reply never came is read back
// before it is reported (commitResolved). Change notifications come from one watch on the prefix
// and are emitted as the StateStore signals on the store's thread. Thread-safe.
class EtcdStore : public StateStore
{
    Q_OBJECT

public:
    static constexpr int kSchemaVersion = 2;
    static constexpr int kMaxTxnOps = 128;

    // Connects (authenticating when the config has a user), checks or writes the schema version
    // and starts watching. `displayUrl` is what url() reports (no password).
    static Result<std::unique_ptr<EtcdStore>> open(const Etcd::EtcdConfig &config,
                                                   const QString &prefix, const QString &displayUrl,
                                                   QObject *parent = nullptr);
    ~EtcdStore() override;

    QString url() const override { return m_url; }
    QString storeId() const override { return m_storeId; }
    QStringList legacyStoreLabels() const override { return m_legacyLabels; }
    QString describe() const override;
    QByteArray prefix() const { return m_prefix; }
    // Watch events waiting for the store's thread, and the most kept (then one changesLost()).
    qsizetype undeliveredWatchEvents() const;
    // The newest revision of this store's keys the watch has seen (0: none yet).
    qint64 watchedRevision() const { return m_watchedRevision.load(); }
    void setWatchBacklogLimit(qsizetype limit);

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
    Result<std::unique_ptr<Leadership>> campaign(const LeaderRecord &candidate,
                                                 std::chrono::milliseconds wait,
                                                 std::chrono::seconds ttl) override;
    Result<std::optional<LeaderRecord>> leader() const override;
    Result<void> putControllerStatus(const ControllerStatus &status) override;
    Result<std::optional<ControllerStatus>> controllerStatus() const override;
    Result<qint64> requestControllerPass() override;
    Result<qint64> controllerPassRequests() const override;
    Result<int> removeStrayRecords(std::chrono::milliseconds grace) override;

    // Tests only: createSession and a chunked updateKernels stop (failing, as if the process
    // died) after this many chunks were written; 0: never.
    void setFailAfterChunkForTests(int chunks) { m_failAfterChunk = chunks; }

    // The leadership this store's writes are fenced by: the leader key's create revision.
    struct Fence
    {
        QByteArray key;
        qint64 createRevision = 0;
        CancelToken lost;
        mutable std::atomic_bool held{true};
    };

private:
    // The ids of the stored sessions at `revision` (keys only, read in pages).
    Result<QSet<QString>> liveSessionIds(qint64 revision) const;
    friend class EtcdLeadership;
    EtcdStore(std::shared_ptr<Etcd::EtcdClient> client, QByteArray prefix, QString url,
              QObject *parent);

    // `createdNow`: this call wrote the schema version (a new prefix).
    Result<void> checkSchema(qint64 *revision, bool *createdNow);
    // Reads <prefix>/meta/id, creating it (in a transaction, when absent) with a random UUID;
    // a prefix from before the store id also records its URL as a legacy label.
    Result<void> ensureIdentity(bool newPrefix, qint64 *revision);
    void startWatch(qint64 fromRevision);
    void deliver(const QList<Etcd::WatchEvent> &events);
    void deliverBacklog(); // on the store's thread

    QByteArray key(const QString &kind, const QString &id) const;
    QByteArray kernelKey(const QString &sessionId, const QString &kernelId) const;
    QByteArray kernelsPrefix(const QString &sessionId) const;
    QByteArray eventKey(qint64 seq) const;
    QString where(const QByteArray &key) const;
    // Every value of a range as a record; a damaged one is an error naming its key.
    template<typename Record>
    Result<QList<Record>> parseAll(const QList<Etcd::KeyValue> &kvs,
                                   Result<Record> (*fromJson)(const QJsonObject &,
                                                              const QString &)) const;
    Error txnFailed(const Error &error, const QString &what) const;
    QByteArray networkKey(const QString &sessionId) const;
    QByteArray vniKey(quint32 vni) const;
    QByteArray subnetKey(const Ipv4Cidr &subnet) const;
    // What removes a session's network allocation, if it has one, and the compare that it is
    // still the one read (the allocation key's mod revision, or its absence).
    struct NetworkRelease
    {
        Etcd::TxnCompare unchanged;
        QList<Etcd::TxnOp> ops;
    };
    Result<NetworkRelease> networkReleaseOps(const QString &sessionId) const;

    // `readAs` (optional): the kernels' keys as the caller read them (modifyKernels); each chunk
    // then compares with those revisions instead of reading again, and a chunk whose compare
    // fails undoes the earlier ones and sets *contended (the caller reads and changes again).
    Result<void> putKernels(const QList<KernelRecord> &kernels,
                            const std::optional<SessionRecord> &session,
                            const QHash<QByteArray, Etcd::KeyValue> *readAs = nullptr,
                            bool *contended = nullptr);
    // Every write transaction goes through here: with a fence, the transaction also compares the
    // leader key's create revision, and a failed compare caused by a lost leadership is reported
    // as such (Conflict) rather than as the caller's own compare failing.
    Result<Etcd::TxnResult> commit(Etcd::TxnRequest txn);
    // commit(), and when the reply never came (EtcdClient::outcomeUnknown) reads back whether
    // the txn was applied: success if it was, the error if it was not or cannot be told.
    Result<Etcd::TxnResult> commitResolved(const Etcd::TxnRequest &txn, const QString &what);
    // Whether every put of `txn` is stored with its value, all at one revision.
    Result<bool> landed(const Etcd::TxnRequest &txn) const;
    // A multi-chunk update's undo records (see putKernels, resizeSession): a new update's key
    // prefix, chunk `chunk`'s record (when it was written, plus `undo`'s fields), and the undoing
    // of the chunks of one that did not finish.
    QByteArray newIntentPrefix() const;
    static Etcd::TxnOp intentRecord(const QByteArray &intentPrefix, int chunk, QJsonObject undo);
    void undoIntent(const QByteArray &intentPrefix);
    bool strayLongEnough(const QString &what, const QDateTime &newest,
                         std::chrono::milliseconds grace);
    std::shared_ptr<Fence> currentFence() const;
    Error fenceLost(Fence &fence) const;
    void resign(const std::shared_ptr<Fence> &fence);
    QByteArray leaderPrefix() const { return m_prefix + "/controller/leader/"; }

    std::shared_ptr<Etcd::EtcdClient> m_client;
    const QByteArray m_prefix; // "/clusterdeck", no trailing slash
    const QString m_url;
    Result<StoreKey> storeKeyLocked(bool create);
    void moveSecretsOut(); // schema 2: seals the plain-text secrets of older sessions, once
    std::mutex m_keyMutex; // one key made per process at most

    QString m_storeId;          // <prefix>/meta/id
    QStringList m_legacyLabels; // <prefix>/meta/legacy-labels, plus m_url when present
    std::unique_ptr<Etcd::EtcdWatch> m_watch;
    // Watch events not yet delivered on the store's thread. One delivery is queued at a time,
    // and past m_backlogLimit events they are dropped for one changesLost(): a store on a thread
    // that runs no event loop (the CLI) holds at most that many, not every change forever.
    std::atomic<qint64> m_watchedRevision{0};
    mutable std::mutex m_backlogMutex;
    QList<Etcd::WatchEvent> m_backlog;
    qsizetype m_backlogLimit = 4096;
    bool m_deliveryQueued = false;
    bool m_backlogOverflowed = false;
    mutable std::mutex m_fenceMutex;
    std::shared_ptr<Fence> m_fence;
    std::mutex m_strayMutex;
    QHash<QString, std::chrono::steady_clock::time_point> m_straySeen; // first seen stray
    int m_failAfterChunk = 0;
};

} // namespace ClusterDeck
