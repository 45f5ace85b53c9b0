#include "etcdleasekeeper.h"

#include "common/logging.h"
#include "etcdclient.h"

namespace ClusterDeck::Etcd {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

EtcdLeaseKeeper::EtcdLeaseKeeper(const EtcdClient &client, qint64 leaseId, qint64 ttlSeconds,
                                 QObject *parent)
    : QObject(parent)
    , m_client(client)
    , m_leaseId(leaseId)
    , m_ttlSeconds(std::max<qint64>(1, ttlSeconds))
{}

EtcdLeaseKeeper::~EtcdLeaseKeeper()
{
    stop();
}

void EtcdLeaseKeeper::start()
{
    std::lock_guard lock(m_mutex);
    if (m_thread.joinable() || m_stopping)
        return;
    m_thread = std::thread([this] { run(); });
}

void EtcdLeaseKeeper::stop()
{
    {
        std::lock_guard lock(m_mutex);
        m_stopping = true;
    }
    m_wake.notify_all();
    if (m_thread.joinable() && m_thread.get_id() != std::this_thread::get_id())
        m_thread.join();
}

bool EtcdLeaseKeeper::isAlive() const
{
    std::lock_guard lock(m_mutex);
    return m_alive;
}

int EtcdLeaseKeeper::keepAliveCount() const
{
    std::lock_guard lock(m_mutex);
    return m_keepAlives;
}

void EtcdLeaseKeeper::setLostCallback(std::function<void(const Error &)> callback)
{
    std::lock_guard lock(m_mutex);
    m_lostCallback = std::move(callback);
}

void EtcdLeaseKeeper::run()
{
    const auto ttl = std::chrono::seconds(m_ttlSeconds);
    const auto interval = std::max<Clock::duration>(std::chrono::milliseconds(ttl) / 3, 300ms);
    // Until a keep-alive fails, etcd holds the lease at least until this moment.
    Clock::time_point expiresAt = Clock::now() + ttl;
    Clock::duration wait = interval;

    for (;;) {
        {
            std::unique_lock lock(m_mutex);
            if (m_wake.wait_for(lock, wait, [this] { return m_stopping; }))
                return;
        }
        const auto sentAt = Clock::now();
        auto result = m_client.keepAliveOnce(m_leaseId);
        if (result) {
            std::lock_guard lock(m_mutex);
            ++m_keepAlives;
            expiresAt = sentAt + std::chrono::seconds(result->ttl);
            wait = std::max<Clock::duration>(std::chrono::seconds(result->ttl) / 3, 300ms);
            continue;
        }
        const bool gone = result.error().kind == Error::Kind::NotFound;
        if (!gone && Clock::now() + 300ms < expiresAt) {
            qCInfo(lcEtcd).noquote() << "keep-alive of lease" << QString::number(m_leaseId, 16)
                                     << "failed, retrying:" << result.error().toString();
            wait = 300ms; // try again soon; the lease still has time left
            continue;
        }
        Error reason = result.error();
        if (!gone)
            reason = reason.withContext(QStringLiteral("lease %1 lost: no keep-alive got through "
                                                       "within its TTL of %2 s")
                                            .arg(m_leaseId, 0, 16)
                                            .arg(m_ttlSeconds));
        std::function<void(const Error &)> callback;
        {
            std::lock_guard lock(m_mutex);
            if (m_stopping)
                return;
            m_alive = false;
            callback = m_lostCallback;
        }
        qCWarning(lcEtcd).noquote() << reason.toString();
        if (callback)
            callback(reason);
        Q_EMIT lost(reason);
        return;
    }
}

} // namespace ClusterDeck::Etcd
