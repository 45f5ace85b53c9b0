#pragma once

#include "common/error.h"
#include "common/leasedeadline.h"

#include <QObject>

#include <chrono>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>

namespace ClusterDeck::Etcd {

class EtcdClient;

// Keeps one lease alive from a background thread (a keep-alive every third of the TTL) until
// stopped. Whether the lease is held is known without I/O (a LeaseDeadline: the send time of the
// grant or of the last confirmed keep-alive + TTL − a margin), and each keep-alive may take only
// the time left. When etcd says the lease is gone, or the deadline passes without a confirmed
// keep-alive (also while one still hangs), it reports the lease as lost once: whatever the
// lease guarded is no longer held. The client must outlive the keeper.
class EtcdLeaseKeeper : public QObject
{
    Q_OBJECT

public:
    // `grantSentAt`: when the request that granted the lease was sent (the lease's time counts
    // from then, not from its reply).
    EtcdLeaseKeeper(
        const EtcdClient &client, qint64 leaseId, qint64 ttlSeconds,
        std::chrono::steady_clock::time_point grantSentAt = std::chrono::steady_clock::now(),
        QObject *parent = nullptr);
    ~EtcdLeaseKeeper() override;

    void start();
    void stop();
    bool isAlive() const;
    qint64 leaseId() const { return m_leaseId; }
    int keepAliveCount() const;
    // The lease's local deadline, for CancelToken::untilDeadline.
    std::shared_ptr<const std::atomic<qint64>> deadline() const { return m_deadline->published(); }
    // Called on the keeper's thread when the lease is lost, before the signal.
    void setLostCallback(std::function<void(const ClusterDeck::Error &)> callback);

Q_SIGNALS:
    void lost(const ClusterDeck::Error &reason);

private:
    void run();
    void reportLost(const ClusterDeck::Error &reason);

    const EtcdClient &m_client;
    const qint64 m_leaseId;
    const qint64 m_ttlSeconds;
    mutable std::mutex m_mutex;
    std::condition_variable m_wake;
    bool m_stopping = false;
    bool m_alive = true;
    int m_keepAlives = 0;
    std::function<void(const ClusterDeck::Error &)> m_lostCallback;
    std::unique_ptr<LeaseDeadline> m_deadline;
    std::thread m_thread;
};

} // namespace ClusterDeck::Etcd
