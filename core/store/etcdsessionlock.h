#pragma once

#include "etcd/etcdlock.h"
#include "sessionlock.h"

#include <memory>

namespace ClusterDeck {

// A held lease-based lock; keeps the client alive for as long as the lock needs it. When its
// lease dies (revoked, or no keep-alive got through within the TTL) the lock is marked lost.
class EtcdSessionLock final : public SessionLock
{
public:
    EtcdSessionLock(std::shared_ptr<Etcd::EtcdClient> client, std::unique_ptr<Etcd::EtcdLock> lock,
                    const QString &sessionId);
    ~EtcdSessionLock() override;

private:
    std::shared_ptr<Etcd::EtcdClient> m_client; // declared first: outlives the lock
    std::unique_ptr<Etcd::EtcdLock> m_lock;
};

} // namespace ClusterDeck
