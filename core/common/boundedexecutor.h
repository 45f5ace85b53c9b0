#pragma once

#include "canceltoken.h"

#include <QHash>
#include <QString>

#include <condition_variable>
#include <deque>
#include <exception>
#include <functional>
#include <list>
#include <memory>
#include <mutex>
#include <thread>

namespace ClusterDeck {

// The one executor of all fan-out (launch, rollback, restart, terminate, …): a bounded set of
// worker threads shared by every caller, and a limit per key (one per Docker host) on the items
// of one forEach that run at once.
//
// forEach blocks until its items are done; the calling thread runs items of its own batch while
// it waits, so a forEach inside an item (terminate: per host, then per container) always makes
// progress even when every worker is busy. Workers that stay idle for a while exit.
class BoundedExecutor
{
public:
    struct Limits
    {
        int maxThreads = 32; // worker threads at once, across all callers
        int perKey = 8;      // items of one key at once, per forEach
    };

    // Items with the same key share the per-key limit; an empty key is not limited.
    using KeyOf = std::function<QString(int)>;

    struct Options
    {
        KeyOf keyOf;
        int perKey = 0;           // 0: the executor's limit
        int maxAtOnce = 0;        // items of this forEach at once (0: as many as threads allow)
        CancelToken cancel; // once cancelled, no further item starts
    };

    explicit BoundedExecutor(Limits limits);
    BoundedExecutor();
    ~BoundedExecutor(); // waits for the workers (no forEach may still run)
    BoundedExecutor(const BoundedExecutor &) = delete;
    BoundedExecutor &operator=(const BoundedExecutor &) = delete;

    // The process's executor: 32 threads, 8 per host. Never destroyed (a worker still in a
    // Docker call must not hold up the exit).
    static BoundedExecutor &shared();

    // Runs fn(0) … fn(n-1) and returns when every started item has finished. An exception of
    // an item stops the scheduling and is rethrown here (the first one). Returns how many items
    // did not start (cancel or exception), 0 when all ran.
    int forEach(int n, const std::function<void(int)> &fn, const Options &options);
    int forEach(int n, const std::function<void(int)> &fn);

    Limits limits() const { return m_limits; }
    int liveThreads() const;
    int peakThreads() const; // highest liveThreads() so far

    // Idle workers exit after this long (tests shorten it).
    void setIdleTimeout(std::chrono::milliseconds timeout);

private:
    struct Batch;
    void workerLoop();
    void wakeWorkers();                                           // under m_mutex
    static bool takeItem(Batch &batch, int *index, QString *key); // under m_mutex
    static std::exception_ptr runItem(Batch &batch, int index);
    void finishItem(Batch &batch, const QString &key,
                    const std::exception_ptr &error); // under m_mutex
    void reapLocked();

    const Limits m_limits;
    mutable std::mutex m_mutex;
    std::condition_variable m_work; // a batch has an item to take, or stop
    std::list<std::shared_ptr<Batch>> m_batches;
    std::list<std::thread> m_threads;
    std::list<std::thread::id> m_exited; // workers that left their loop, to join
    std::chrono::milliseconds m_idleTimeout{5000};
    int m_live = 0;
    int m_idle = 0;
    int m_starting = 0; // spawned, not yet in their loop
    int m_peak = 0;
    bool m_stopping = false;
};

} // namespace ClusterDeck
