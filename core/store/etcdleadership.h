#pragma once

#include "etcd/etcdlock.h"
#include "etcdstore.h"
#include "leadership.h"

#include <QPointer>
#include <memory>

namespace ClusterDeck {

// Holds the election key (an EtcdLock on <prefix>/controller/leader) while alive.
class EtcdLeadership final : public Leadership
{
public:
    EtcdLeadership(EtcdStore *store, std::shared_ptr<Etcd::EtcdClient> client,
                   std::unique_ptr<Etcd::EtcdLock> lock, LeaderRecord record,
                   std::shared_ptr<EtcdStore::Fence> fence);
    ~EtcdLeadership() override;
    LeaderRecord record() const override { return m_record; }
    bool isHeld() const override { return m_fence->held.load() && m_lock->isHeld(); }
    CancelToken lostToken() const override { return m_fence->lost; }

private:
    QPointer<EtcdStore> m_store;
    std::shared_ptr<Etcd::EtcdClient> m_client; // outlives the lock
    std::unique_ptr<Etcd::EtcdLock> m_lock;
    const LeaderRecord m_record;
    std::shared_ptr<EtcdStore::Fence> m_fence;
};

} // namespace ClusterDeck
