#pragma once

#include <QHash>
#include <QString>

#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace ClusterDeck::Concurrent {

// A counting limit per key (one per Docker host): at most `limit` holders at once.
class KeyedLimiter
{
public:
    explicit KeyedLimiter(int limit)
        : m_limit(limit < 1 ? 1 : limit)
    {}

    void acquire(const QString &key)
    {
        std::unique_lock lock(m_mutex);
        m_wake.wait(lock, [&] { return m_inUse.value(key) < m_limit; });
        ++m_inUse[key];
    }
    void release(const QString &key)
    {
        {
            std::lock_guard lock(m_mutex);
            --m_inUse[key];
        }
        m_wake.notify_all();
    }

private:
    const int m_limit;
    std::mutex m_mutex;
    std::condition_variable m_wake;
    QHash<QString, int> m_inUse;
};

// Runs fn(0) … fn(n-1) each on its own thread and waits for all. Docker calls block on the
// network, not on the CPU, so one thread per item beats a pool sized to the cores.
inline void forEach(int n, const std::function<void(int)> &fn)
{
    if (n == 1) {
        fn(0);
        return;
    }
    std::vector<std::thread> threads;
    threads.reserve(size_t(n));
    for (int i = 0; i < n; ++i)
        threads.emplace_back([&fn, i] { fn(i); });
    for (std::thread &t : threads)
        t.join();
}

} // namespace ClusterDeck::Concurrent
