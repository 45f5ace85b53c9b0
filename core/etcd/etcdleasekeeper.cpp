#include "etcdleasekeeper.h"

#include "common/logging.h"
#include "etcdclient.h"

namespace ClusterDeck::Etcd {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

EtcdLeaseKeeper::EtcdLeaseKeeper(const EtcdClient &client, qint64 leaseId, qint64 ttlSeconds,
                                 Clock::time_point grantSentAt, QObject *parent)
    : QObject(parent)
    , m_client(client)
    , m_leaseId(leaseId)
    , m_ttlSeconds(std::max<qint64>(1, ttlSeconds))
{
    m_deadline = std::make_unique<LeaseDeadline>(
        grantSentAt, std::chrono::seconds(m_ttlSeconds), [this](const QString &why) {
            reportLost(Error::make(Error::Kind::Timeout, QString(),
                                   QStringLiteral("lease %1 lost: %2 of %3 s")
                                       .arg(m_leaseId, 0, 16)
                                       .arg(why)
                                       .arg(m_ttlSeconds)));
        });
}

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
    m_deadline->stop();
    m_wake.notify_all();
    if (m_thread.joinable() && m_thread.get_id() != std::this_thread::get_id())
        m_thread.join();
}

bool EtcdLeaseKeeper::isAlive() const
{
    {
        std::lock_guard lock(m_mutex);
        if (!m_alive)
            return false;
    }
    return m_deadline->isValid();
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

void EtcdLeaseKeeper::reportLost(const Error &reason)
{
    std::function<void(const Error &)> callback;
    {
        std::lock_guard lock(m_mutex);
        if (m_stopping || !m_alive)
            return; // once
        m_alive = false;
        callback = m_lostCallback;
    }
    m_wake.notify_all();
    qCWarning(lcEtcd).noquote() << reason.toString();
    if (callback)
        callback(reason);
    Q_EMIT lost(reason);
}

void EtcdLeaseKeeper::run()
{
    for (;;) {
        // A keep-alive every third of the TTL; never later than the deadline allows.
        const auto wait = std::min<Clock::duration>(
            std::max<Clock::duration>(std::chrono::seconds(m_ttlSeconds) / 3, 300ms),
            m_deadline->left() / 2);
        {
            std::unique_lock lock(m_mutex);
            if (m_wake.wait_for(lock, wait, [this] { return m_stopping || !m_alive; }))
                return;
        }
        const auto left = m_deadline->left();
        if (left <= 0ms)
            return; // the deadline reported the loss
        const auto sentAt = Clock::now();
        auto result = m_client.keepAliveOnce(m_leaseId, left);
        if (result) {
            {
                std::lock_guard lock(m_mutex);
                ++m_keepAlives;
            }
            m_deadline->confirmRenewal(sentAt, std::chrono::seconds(result->ttl));
            continue;
        }
        if (result.error().kind == Error::Kind::NotFound) {
            reportLost(result.error());
            return;
        }
        qCInfo(lcEtcd).noquote() << "keep-alive of lease" << QString::number(m_leaseId, 16)
                                 << "failed, retrying:" << result.error().toString();
        // Tried again soon (the wait above is at most half the time left); the deadline decides.
        std::unique_lock lock(m_mutex);
        if (m_wake.wait_for(lock, 300ms, [this] { return m_stopping || !m_alive; }))
            return;
    }
}

} // namespace ClusterDeck::Etcd
