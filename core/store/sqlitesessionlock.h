#pragma once

#include "sessionlock.h"
#include "sqlitestore.h"

#include <QPointer>

#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <thread>

namespace ClusterDeck {

// A held session lock: a row in `locks` carrying a random token, deleted on destruction. A thread
// renews the row every third of its TTL; a renewal that finds it expired or taken (or that cannot
// write it for a whole TTL) marks the lock lost.
class SqliteSessionLock final : public SessionLock
{
public:
    SqliteSessionLock(SqliteStore *store, QString sessionId, QString token, qint64 ttlMs);
    ~SqliteSessionLock() override;

private:
    QPointer<SqliteStore> m_store;
    QString m_sessionId;
    QString m_token;
    std::mutex m_mutex;
    std::condition_variable m_wake;
    bool m_stop = false;
    std::thread m_thread;
};

} // namespace ClusterDeck
