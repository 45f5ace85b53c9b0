#include "kernelstatusbatcher.h"

#include "common/logging.h"
#include "store/kernelstore.h"

namespace ClusterDeck {

KernelStatusBatcher::KernelStatusBatcher(KernelStore *store, QString sessionId,
                                         std::chrono::milliseconds interval)
    : m_store(store)
    , m_sessionId(std::move(sessionId))
    , m_interval(interval)
{
    m_thread = std::thread([this] {
        std::unique_lock lock(m_mutex);
        while (!m_stopping) {
            m_wake.wait(lock, [this] { return m_stopping || !m_pending.isEmpty(); });
            // Let the batch fill for one interval: a launch queues thousands of changes a second.
            if (m_wake.wait_for(lock, m_interval, [this] { return m_stopping; }))
                break;
            lock.unlock();
            if (auto ok = flush(); !ok)
                qCWarning(lcProvision).noquote()
                    << "recording kernel statuses (retried with the next batch):"
                    << ok.error().toString();
            lock.lock();
        }
    });
}

KernelStatusBatcher::~KernelStatusBatcher()
{
    {
        std::lock_guard lock(m_mutex);
        m_stopping = true;
    }
    m_wake.notify_all();
    m_thread.join();
    if (auto ok = flush(); !ok)
        qCWarning(lcProvision).noquote()
            << "recording kernel statuses (the controller observes them again):"
            << ok.error().toString();
}

void KernelStatusBatcher::setStopToken(const CancelToken &stop)
{
    std::lock_guard lock(m_mutex);
    m_stop = stop;
}

KernelStatusBatcher::Pending &KernelStatusBatcher::pendingFor(const QString &kernelId)
{
    auto it = m_pending.find(kernelId);
    if (it == m_pending.end()) {
        it = m_pending.insert(kernelId, {});
        m_order.append(kernelId);
    }
    return *it;
}

void KernelStatusBatcher::note(const QString &kernelId, const QDateTime &at,
                               const std::function<void(Pending &)> &change)
{
    {
        std::lock_guard lock(m_mutex);
        Pending &p = pendingFor(kernelId);
        change(p);
        p.updatedAt = at;
    }
    m_wake.notify_one();
}

void KernelStatusBatcher::setStatus(const QString &kernelId, KernelStatus status,
                                    const QString &reason, const QDateTime &at)
{
    note(kernelId, at, [&](Pending &p) { p.changes.append({status, at, reason}); });
}

void KernelStatusBatcher::setContainerId(const QString &kernelId, const QString &containerId,
                                         const QDateTime &at)
{
    note(kernelId, at, [&](Pending &p) { p.containerId = containerId; });
}

void KernelStatusBatcher::setPorts(const QString &kernelId, const QList<PortBinding> &ports,
                                   const QDateTime &at)
{
    note(kernelId, at, [&](Pending &p) { p.ports = ports; });
}

Result<void> KernelStatusBatcher::flush()
{
    std::lock_guard flushing(m_flushMutex);
    QHash<QString, Pending> batch;
    QStringList order;
    CancelToken stop;
    {
        std::lock_guard lock(m_mutex);
        batch = std::exchange(m_pending, {});
        order = std::exchange(m_order, {});
        stop = m_stop;
    }
    if (batch.isEmpty() || stop.isCancelled())
        return {};
    QList<KernelProgress> progress;
    progress.reserve(order.size());
    for (const QString &id : std::as_const(order)) {
        const Pending &p = batch[id];
        KernelProgress k;
        k.kernel = {m_sessionId, id};
        for (const Change &change : p.changes)
            k.changes.append({change.status, change.at, change.reason});
        k.containerId = p.containerId;
        k.ports = p.ports;
        k.updatedAt = p.updatedAt;
        progress.append(std::move(k));
    }
    auto written = m_store->recordKernelProgress(progress);
    if (!written) {
        requeue(std::move(batch), order);
        return fail(written.error());
    }
    return {};
}

void KernelStatusBatcher::requeue(QHash<QString, Pending> batch, const QStringList &order)
{
    std::lock_guard lock(m_mutex);
    // Ahead of what was queued meanwhile, which is newer.
    QStringList merged = order;
    for (const QString &id : std::as_const(m_order)) {
        if (!batch.contains(id))
            merged.append(id);
    }
    for (auto it = m_pending.cbegin(); it != m_pending.cend(); ++it) {
        Pending &older = batch[it.key()];
        older.changes += it->changes;
        if (it->containerId)
            older.containerId = it->containerId;
        if (it->ports)
            older.ports = it->ports;
        older.updatedAt = it->updatedAt;
    }
    m_pending = std::move(batch);
    m_order = std::move(merged);
}

} // namespace ClusterDeck
