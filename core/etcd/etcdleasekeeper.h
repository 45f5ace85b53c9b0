#pragma once

#include "common/error.h"

#include <QObject>

#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <thread>

namespace ClusterDeck::Etcd {

class EtcdClient;

// Keeps one lease alive from a background thread (a keep-alive every third of the TTL) until
// stopped. When etcd says the lease is gone, or no keep-alive got through before the TTL ran out,
// it reports the lease as lost once and stops: whatever the lease guarded is no longer held.
// The client must outlive the keeper.
class EtcdLeaseKeeper : public QObject
{
    Q_OBJECT

public:
    EtcdLeaseKeeper(const EtcdClient &client, qint64 leaseId, qint64 ttlSeconds,
                    QObject *parent = nullptr);
    ~EtcdLeaseKeeper() override;

    void start();
    void stop();
    bool isAlive() const;
    qint64 leaseId() const { return m_leaseId; }
    int keepAliveCount() const;
    // Called on the keeper's thread when the lease is lost, before the signal.
    void setLostCallback(std::function<void(const ClusterDeck::Error &)> callback);

Q_SIGNALS:
    void lost(const ClusterDeck::Error &reason);

private:
    void run();

    const EtcdClient &m_client;
    const qint64 m_leaseId;
    const qint64 m_ttlSeconds;
    mutable std::mutex m_mutex;
    std::condition_variable m_wake;
    bool m_stopping = false;
    bool m_alive = true;
    int m_keepAlives = 0;
    std::function<void(const ClusterDeck::Error &)> m_lostCallback;
    std::thread m_thread;
};

} // namespace ClusterDeck::Etcd
