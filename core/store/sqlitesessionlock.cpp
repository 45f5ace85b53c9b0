#include "sqlitesessionlock.h"

#include "common/leasedeadline.h"
#include "common/logging.h"

namespace ClusterDeck {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

SqliteSessionLock::SqliteSessionLock(SqliteStore *store, QString sessionId, QString token,
                                     qint64 ttlMs)
    : m_store(store)
    , m_sessionId(std::move(sessionId))
    , m_token(std::move(token))
{
    const auto period = std::chrono::milliseconds(std::max<qint64>(50, ttlMs / 3));
    m_thread = std::thread([this, ttlMs, period] {
        auto renewedAt = Clock::now();
        std::unique_lock lock(m_mutex);
        while (!m_stop) {
            if (m_wake.wait_for(lock, period, [this] { return m_stop; }))
                break;
            lock.unlock();
            QString why;
            const auto outcome = m_store ? m_store->renewLock(m_sessionId, m_token, ttlMs, &why)
                                         : SqliteStore::Renewal::Failed;
            if (outcome == SqliteStore::Renewal::Renewed)
                renewedAt = Clock::now();
            else if (outcome == SqliteStore::Renewal::Lost ||
                     Clock::now() - renewedAt >= std::chrono::milliseconds(ttlMs))
                markLost(m_sessionId,
                         outcome == SqliteStore::Renewal::Lost
                             ? why
                             : QStringLiteral("not renewed within its TTL: %1").arg(why));
            lock.lock();
            if (isLost())
                break;
        }
    });
}

SqliteSessionLock::~SqliteSessionLock()
{
    {
        std::lock_guard lock(m_mutex);
        m_stop = true;
    }
    m_wake.notify_all();
    m_thread.join();
    if (m_store)
        m_store->unlock(m_sessionId, m_token);
}

} // namespace ClusterDeck
