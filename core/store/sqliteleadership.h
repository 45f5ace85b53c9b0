#pragma once

#include "common/leasedeadline.h"
#include "leadership.h"
#include "sqlitestore.h"

#include <QPointer>

#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <thread>

namespace ClusterDeck {

// Held while alive: a thread renews the row's expiry every third of the TTL; a renewal that
// finds the row expired or taken marks the fence lost (cancelling its token) and stops.
class SqliteLeadership final : public Leadership
{
public:
    // `sentAt`: when the write that took the leadership began (its time counts from there).
    SqliteLeadership(SqliteStore *store, LeaderRecord record, std::chrono::seconds ttl,
                     std::shared_ptr<SqliteStore::Fence> fence,
                     std::chrono::steady_clock::time_point sentAt);
    ~SqliteLeadership() override;

    LeaderRecord record() const override { return m_record; }
    bool isHeld() const override { return m_fence->held.load() && m_deadline->isValid(); }
    CancelToken lostToken() const override { return m_fence->lost; }

private:
    QPointer<SqliteStore> m_store;
    const LeaderRecord m_record;
    std::shared_ptr<SqliteStore::Fence> m_fence;
    std::mutex m_mutex;
    std::condition_variable m_wake;
    bool m_stop = false;
    std::unique_ptr<LeaseDeadline> m_deadline;
    std::thread m_thread;
};

} // namespace ClusterDeck
