#pragma once

#include "etcd/etcdtypes.h"
#include "statestore.h"

#include <memory>

namespace ClusterDeck {

namespace Etcd {
class EtcdClient;
class EtcdWatch;
} // namespace Etcd

// The shared backend: state under one key prefix of an etcd cluster, so several consoles and
// admins see and change the same sessions.
//
//   <prefix>/meta/schema                    schema version ("1")
//   <prefix>/meta/eventseq                  last event sequence number
//   <prefix>/hosts/<name>                   HostRecord JSON
//   <prefix>/sessions/<id>                  SessionRecord JSON
//   <prefix>/kernels/<session id>/<id>      KernelRecord JSON, one key per container
//   <prefix>/events/<seq, 20 digits>        EventRecord JSON, append-only
//   <prefix>/locks/<session id>/<lease>     per-session locks (EtcdLock)
//
// Every change is one etcd transaction, guarded by compares (exists / missing / mod revision).
// etcd caps a transaction at 128 operations (--max-txn-ops), so a session with more kernels is
// created in several transactions: the kernels first, the session key last; readers only ever show
// kernels whose session key exists, so a half-created session stays invisible and a failed create
// is cleaned up. updateKernels() with more than 126 kernels is applied in chunks that are each
// atomic. Change notifications come from one watch on the prefix and are emitted as the
// StateStore signals on the store's thread. Thread-safe.
class EtcdStore : public StateStore
{
    Q_OBJECT

public:
    static constexpr int kSchemaVersion = 1;
    static constexpr int kMaxTxnOps = 128;

    // Connects (authenticating when the config has a user), checks or writes the schema version
    // and starts watching. `displayUrl` is what url() reports (no password).
    static Result<std::unique_ptr<EtcdStore>> open(const Etcd::EtcdConfig &config,
                                                   const QString &prefix, const QString &displayUrl,
                                                   QObject *parent = nullptr);
    ~EtcdStore() override;

    QString url() const override { return m_url; }
    QString describe() const override;
    QByteArray prefix() const { return m_prefix; }

    Result<void> putHost(const HostRecord &host) override;
    Result<void> removeHost(const QString &name) override;
    Result<QList<HostRecord>> hosts() const override;
    Result<HostRecord> host(const QString &name) const override;

    Result<void> createSession(const SessionRecord &session,
                               const QList<KernelRecord> &kernels) override;
    Result<void> updateSession(const SessionRecord &session) override;
    Result<void> removeSession(const QString &sessionId) override;
    Result<QList<SessionRecord>> sessions() const override;
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

    Result<qint64> appendEvent(const EventRecord &event) override;
    Result<QList<EventRecord>> events(qint64 afterSeq = 0, int limit = 1000) const override;

    Result<std::unique_ptr<SessionLock>> lockSession(const QString &sessionId,
                                                     std::chrono::milliseconds wait) override;

private:
    EtcdStore(std::shared_ptr<Etcd::EtcdClient> client, QByteArray prefix, QString url,
              QObject *parent);

    Result<void> checkSchema(qint64 *revision);
    void startWatch(qint64 fromRevision);
    void deliver(const QList<Etcd::WatchEvent> &events);

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

    Result<void> putKernels(const QList<KernelRecord> &kernels,
                            const std::optional<SessionRecord> &session);

    std::shared_ptr<Etcd::EtcdClient> m_client;
    const QByteArray m_prefix; // "/clusterdeck", no trailing slash
    const QString m_url;
    std::unique_ptr<Etcd::EtcdWatch> m_watch;
};

} // namespace ClusterDeck
