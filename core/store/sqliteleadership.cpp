#include "sqliteleadership.h"

#include "common/leasedeadline.h"
#include "common/logging.h"

namespace ClusterDeck {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

SqliteLeadership::SqliteLeadership(SqliteStore *store, LeaderRecord record,
                                   std::chrono::seconds ttl,
                                   std::shared_ptr<SqliteStore::Fence> fence,
                                   Clock::time_point sentAt)
    : m_store(store)
    , m_record(std::move(record))
    , m_fence(std::move(fence))
{
    // Held, without I/O, until the last confirmed renewal's start + TTL − a margin; past
    // it the leadership is lost at once, also while a renewal waits for a busy file.
    m_deadline = std::make_unique<LeaseDeadline>(
        sentAt, ttl,
        [fence = m_fence, term = m_record.term](const QString &why) {
            if (fence->held.exchange(false))
                qCWarning(lcStore).noquote()
                    << QStringLiteral("the controller's leadership (term %1) is lost: %2")
                           .arg(term)
                           .arg(why);
            fence->lost.cancel();
        },
        m_fence->deadline);
    const auto period = std::max<std::chrono::milliseconds>(
        100ms, std::chrono::duration_cast<std::chrono::milliseconds>(ttl) / 3);
    m_thread = std::thread([this, ttl, period] {
        std::unique_lock lock(m_mutex);
        auto wait = period;
        while (!m_stop) {
            if (m_wake.wait_for(lock, wait, [this] { return m_stop; }))
                break;
            lock.unlock();
            const auto sent = Clock::now();
            const auto left = m_deadline->left();
            std::optional<bool> renewed = m_store && left > 0ms
                                              ? m_store->renewLeadership(m_fence, ttl, sent + left)
                                              : std::optional<bool>(false);
            if (renewed && *renewed)
                m_deadline->confirmRenewal(sent, ttl);
            lock.lock();
            if (renewed && !*renewed)
                break;
            // Busy: soon again (the deadline ends it if the file stays busy).
            wait = renewed ? period : std::min<std::chrono::milliseconds>(period, 300ms);
        }
    });
}

SqliteLeadership::~SqliteLeadership()
{
    {
        std::lock_guard lock(m_mutex);
        m_stop = true;
    }
    m_wake.notify_all();
    m_thread.join();
    m_deadline->stop();
    if (m_store)
        m_store->resign(m_fence);
}

} // namespace ClusterDeck
