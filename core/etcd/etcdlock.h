#pragma once

#include "common/error.h"
#include "etcdtypes.h"

#include <QObject>

#include <chrono>
#include <memory>
#include <mutex>

namespace ClusterDeck::Etcd {

class EtcdClient;
class EtcdLeaseKeeper;

struct LockOptions
{
    qint64 ttlSeconds = 15; // how long the lock outlives a crashed holder
    QByteArray holder;      // stored as the value so others can say who holds it; default pid@host
};

// A lease-based mutual exclusion lock (the recipe of etcd's concurrency.Mutex): each contender
// creates `<name>/<lease id>` with its lease (txn: create_revision == 0), and the key with the
// lowest create revision under `<name>/` holds the lock; the others wait for their predecessor to
// go. The lease is kept alive in the background; when it dies the lock is lost and `lost` fires.
// Released on destruction. The client must outlive it.
class EtcdLock : public QObject
{
    Q_OBJECT

public:
    EtcdLock(const EtcdClient &client, QByteArray name, LockOptions options = {},
             QObject *parent = nullptr);
    ~EtcdLock() override;

    // Takes the lock now or fails with Error::Kind::Conflict naming the holder.
    Result<void> tryLock();
    // Waits up to `timeout` for the lock; fails with Error::Kind::Timeout naming the holder.
    Result<void> lock(std::chrono::milliseconds timeout);
    Result<void> unlock();

    bool isHeld() const;
    QByteArray name() const { return m_name; }
    QByteArray key() const;
    qint64 leaseId() const;
    // The create revision of our key while held: grows with every new holder (a fencing token).
    qint64 createRevision() const;
    // While held: the lease's local deadline (nanoseconds of the steady clock, moved by every
    // confirmed keep-alive), for CancelToken::untilDeadline; null when not held.
    std::shared_ptr<const std::atomic<qint64>> deadline() const;
    // The current holder's key and value, if anyone holds the lock.
    Result<std::optional<KeyValue>> holder() const;
    // Writes nothing: waits up to `timeout` until nobody holds the lock (a watch on the holder's
    // key). True when it is free now, false when it is still held. For standbys that should not
    // churn leases and keys while a holder lives (the etcd election recipe).
    Result<bool> waitUntilFree(std::chrono::milliseconds timeout);

Q_SIGNALS:
    void lost(const ClusterDeck::Error &reason);

private:
    Result<void> acquire(std::optional<std::chrono::milliseconds> timeout);
    Result<void> waitForDelete(const QByteArray &key, qint64 fromRevision,
                               std::chrono::milliseconds timeout);
    void abandon();
    QString describe() const;

    const EtcdClient &m_client;
    const QByteArray m_name;
    const QByteArray m_prefix; // m_name + '/'
    LockOptions m_options;

    mutable std::mutex m_mutex;
    std::unique_ptr<EtcdLeaseKeeper> m_keeper;
    qint64 m_leaseId = 0;
    QByteArray m_key;
    qint64 m_createRevision = 0;
    bool m_held = false;
};

} // namespace ClusterDeck::Etcd
