#include "boundedexecutor.h"

#include <QStringList>

#include <algorithm>

namespace ClusterDeck {

// One forEach call: its items by key, and what of them runs. Guarded by the executor's mutex.
struct BoundedExecutor::Batch
{
    const std::function<void(int)> *fn = nullptr;
    int perKey = 8;
    int maxAtOnce = 0; // 0: no limit of its own
    CancelToken cancel;
    QHash<QString, std::deque<int>> pending; // key → items not started yet
    QStringList keys;                        // round robin over the keys
    qsizetype nextKey = 0;
    int pendingCount = 0;
    QHash<QString, int> inFlight;
    int running = 0;
    int skipped = 0;
    std::exception_ptr error;
    std::condition_variable changed; // an item finished

    int queued(const QString &key) const
    {
        const auto it = pending.constFind(key); // not value(): that copies the queue
        return it == pending.cend() ? 0 : int(it->size());
    }
    bool canTake(const QString &key) const
    {
        return queued(key) > 0 && (maxAtOnce <= 0 || running < maxAtOnce) &&
               (key.isEmpty() || inFlight.value(key) < perKey);
    }
    int takeable() const
    {
        int n = 0;
        for (const QString &k : keys) {
            const int q = queued(k);
            n += k.isEmpty() ? q : std::min(q, std::max(0, perKey - inFlight.value(k)));
        }
        return maxAtOnce > 0 ? std::min(n, std::max(0, maxAtOnce - running)) : n;
    }
};

BoundedExecutor::BoundedExecutor(Limits limits)
    : m_limits{std::max(1, limits.maxThreads), std::max(1, limits.perKey)}
{}

BoundedExecutor::BoundedExecutor()
    : BoundedExecutor(Limits{})
{}

BoundedExecutor::~BoundedExecutor()
{
    {
        std::lock_guard lock(m_mutex);
        m_stopping = true;
    }
    m_work.notify_all();
    for (std::thread &t : m_threads)
        t.join();
}

BoundedExecutor &BoundedExecutor::shared()
{
    static BoundedExecutor *executor = new BoundedExecutor();
    return *executor;
}

int BoundedExecutor::liveThreads() const
{
    std::lock_guard lock(m_mutex);
    return m_live;
}

int BoundedExecutor::peakThreads() const
{
    std::lock_guard lock(m_mutex);
    return m_peak;
}

void BoundedExecutor::setIdleTimeout(std::chrono::milliseconds timeout)
{
    std::lock_guard lock(m_mutex);
    m_idleTimeout = timeout;
}

int BoundedExecutor::forEach(int n, const std::function<void(int)> &fn)
{
    return forEach(n, fn, Options());
}

int BoundedExecutor::forEach(int n, const std::function<void(int)> &fn, const Options &options)
{
    if (n <= 0)
        return 0;
    if (n == 1) {
        if (options.cancel.isCancelled())
            return 1;
        fn(0);
        return 0;
    }
    auto batch = std::make_shared<Batch>();
    batch->fn = &fn;
    batch->perKey = options.perKey > 0 ? options.perKey : m_limits.perKey;
    batch->maxAtOnce = options.maxAtOnce;
    batch->cancel = options.cancel;
    for (int i = 0; i < n; ++i) {
        const QString key = options.keyOf ? options.keyOf(i) : QString();
        auto it = batch->pending.find(key);
        if (it == batch->pending.end()) {
            it = batch->pending.insert(key, {});
            batch->keys.append(key);
        }
        it->push_back(i);
    }
    batch->pendingCount = n;

    std::unique_lock lock(m_mutex);
    m_batches.push_back(batch);
    wakeWorkers();
    while (true) {
        int index = -1;
        QString key;
        if (takeItem(*batch, &index, &key)) {
            lock.unlock();
            const std::exception_ptr error = runItem(*batch, index);
            lock.lock();
            finishItem(*batch, key, error);
            continue;
        }
        if (batch->pendingCount == 0 && batch->running == 0)
            break;
        batch->changed.wait(lock);
    }
    m_batches.remove(batch);
    reapLocked();
    lock.unlock();
    if (batch->error)
        std::rethrow_exception(batch->error);
    return batch->skipped;
}

bool BoundedExecutor::takeItem(Batch &batch, int *index, QString *key)
{
    if (batch.pendingCount == 0)
        return false;
    if (batch.error || batch.cancel.isCancelled()) {
        batch.skipped += batch.pendingCount;
        batch.pendingCount = 0;
        batch.pending.clear();
        batch.changed.notify_all();
        return false;
    }
    const qsizetype count = batch.keys.size();
    for (qsizetype step = 0; step < count; ++step) {
        const qsizetype at = (batch.nextKey + step) % count;
        const QString &k = batch.keys.at(at);
        if (!batch.canTake(k))
            continue;
        std::deque<int> &queue = batch.pending[k];
        *index = queue.front();
        queue.pop_front();
        *key = k;
        --batch.pendingCount;
        ++batch.running;
        ++batch.inFlight[k];
        batch.nextKey = (at + 1) % count;
        return true;
    }
    return false;
}

std::exception_ptr BoundedExecutor::runItem(Batch &batch, int index)
{
    try {
        (*batch.fn)(index);
    } catch (...) {
        return std::current_exception();
    }
    return {};
}

void BoundedExecutor::finishItem(Batch &batch, const QString &key, const std::exception_ptr &error)
{
    if (error && !batch.error)
        batch.error = error; // no further item of the batch starts
    --batch.running;
    --batch.inFlight[key];
    batch.changed.notify_all();
    if (m_idle > 0 && batch.takeable() > 0)
        m_work.notify_all();
}

// Workers for what every batch has left to take, less those that look for work anyway (idle,
// or spawned and not yet in their loop) and the caller's own item. Counting this batch alone
// let the idle workers woken for it serve a batch begun a moment earlier, and left its items to
// its caller one by one (a launch's VXLAN helpers ran host after host).
void BoundedExecutor::wakeWorkers()
{
    reapLocked();
    int demand = -1; // the caller takes an item itself
    for (const std::shared_ptr<Batch> &b : m_batches)
        demand += b->takeable();
    if (demand <= 0)
        return;
    if (m_idle > 0)
        m_work.notify_all();
    int spawn = std::min(demand - m_idle - m_starting, m_limits.maxThreads - m_live);
    for (; spawn > 0; --spawn) {
        ++m_live;
        ++m_starting;
        m_peak = std::max(m_peak, m_live);
        m_threads.emplace_back([this] { workerLoop(); });
    }
}

void BoundedExecutor::reapLocked()
{
    for (const std::thread::id id : m_exited) {
        auto it = std::find_if(m_threads.begin(), m_threads.end(),
                               [id](const std::thread &t) { return t.get_id() == id; });
        if (it != m_threads.end()) {
            it->join(); // it has left its loop and released the mutex: only its return is left
            m_threads.erase(it);
        }
    }
    m_exited.clear();
}

void BoundedExecutor::workerLoop()
{
    std::unique_lock lock(m_mutex);
    --m_starting;
    while (true) {
        bool ran = false;
        for (const std::shared_ptr<Batch> &b : m_batches) {
            int index = -1;
            QString key;
            if (!takeItem(*b, &index, &key))
                continue;
            std::shared_ptr<Batch> batch = b; // m_batches may change while it runs
            lock.unlock();
            const std::exception_ptr error = runItem(*batch, index);
            lock.lock();
            finishItem(*batch, key, error);
            ran = true;
            break;
        }
        if (ran)
            continue;
        if (m_stopping)
            break;
        ++m_idle;
        const auto status = m_work.wait_for(lock, m_idleTimeout);
        --m_idle;
        if (status == std::cv_status::timeout) {
            const bool work = std::any_of(m_batches.begin(), m_batches.end(),
                                          [](const auto &b) { return b->takeable() > 0; });
            if (!work)
                break;
        }
    }
    --m_live;
    m_exited.push_back(std::this_thread::get_id());
}

} // namespace ClusterDeck
