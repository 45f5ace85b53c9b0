#include "etcdleadership.h"

#include "common/logging.h"
#include "etcd/etcdclient.h"
#include "etcd/etcdlock.h"

namespace ClusterDeck {

using namespace Etcd;

EtcdLeadership::EtcdLeadership(EtcdStore *store, std::shared_ptr<EtcdClient> client,
                               std::unique_ptr<EtcdLock> lock, LeaderRecord record,
                               std::shared_ptr<EtcdStore::Fence> fence)
    : m_store(store)
    , m_client(std::move(client))
    , m_lock(std::move(lock))
    , m_record(std::move(record))
    , m_fence(std::move(fence))
{}

EtcdLeadership::~EtcdLeadership()
{
    if (m_store)
        m_store->resign(m_fence);
    if (auto ok = m_lock->unlock(); !ok)
        qCWarning(lcStore) << "could not resign the controller's leadership:"
                           << ok.error().toString() << "(it ends with its lease)";
    m_lock.reset();
}

} // namespace ClusterDeck
