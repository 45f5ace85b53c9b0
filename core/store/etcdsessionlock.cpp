#include "etcdsessionlock.h"

#include "common/logging.h"
#include "etcd/etcdclient.h"
#include "etcd/etcdlock.h"

namespace ClusterDeck {

using namespace Etcd;

EtcdSessionLock::EtcdSessionLock(std::shared_ptr<EtcdClient> client, std::unique_ptr<EtcdLock> lock,
                                 const QString &sessionId)
    : m_client(std::move(client))
    , m_lock(std::move(lock))
{
    // Emitted on the lease keeper's thread; markLost is thread-safe.
    QObject::connect(
        m_lock.get(), &EtcdLock::lost, m_lock.get(),
        [this, sessionId](const Error &reason) {
            markLost(sessionId, QStringLiteral("expired: %1").arg(reason.toString()));
        },
        Qt::DirectConnection);
    if (!m_lock->isHeld())
        markLost(sessionId, QStringLiteral("expired: its lease ended while it was taken"));
}

EtcdSessionLock::~EtcdSessionLock()
{
    if (auto ok = m_lock->unlock(); !ok)
        qCWarning(lcStore) << "could not release" << m_lock->name() << ":" << ok.error().toString()
                           << "(it expires with its lease)";
    m_lock.reset();
}

} // namespace ClusterDeck
