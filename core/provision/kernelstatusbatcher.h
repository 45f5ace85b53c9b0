#pragma once

#include "common/error.h"
#include "http/httptypes.h"
#include "store/records.h"


#include <QDateTime>
#include <QHash>
#include <QStringList>

#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <optional>
#include <thread>

namespace ClusterDeck {

class KernelStore;

// Writes the kernel statuses of one operation on one session (a launch, a scale) to the store in
// batches, one transaction each, instead of one transaction per change: with 10,000 kernels the
// per-change transactions were most of a launch's own cost. A thread writes what has queued
// every `interval`; the operation flushes at the end of each phase and before any session status.
// Statuses are observations, not desired state: a crash loses at most the last batch, which the
// controller observes again (desired state never goes through here).
class KernelStatusBatcher
{
public:
    KernelStatusBatcher(KernelStore *store, QString sessionId,
                        std::chrono::milliseconds interval = std::chrono::milliseconds(50));
    ~KernelStatusBatcher(); // stops the thread, then writes what is left (a failure is logged)
    KernelStatusBatcher(const KernelStatusBatcher &) = delete;
    KernelStatusBatcher &operator=(const KernelStatusBatcher &) = delete;

    // Once `stop` is cancelled nothing more is written (a lost session lock: its new holder owns
    // the records); what is queued then is dropped.
    void setStopToken(const CancelToken &stop);

    // Queue a change of one kernel; changes of one kernel are written in the order queued.
    void setStatus(const QString &kernelId, KernelStatus status, const QString &reason,
                   const QDateTime &at);
    void setContainerId(const QString &kernelId, const QString &containerId, const QDateTime &at);
    void setPorts(const QString &kernelId, const QList<PortBinding> &ports, const QDateTime &at);

    // Writes everything queued now, in one transaction (StateStore::recordKernelProgress: other
    // writers keep their changes, desired state and observations). A failed write stays queued
    // for the next flush.
    [[nodiscard]] Result<void> flush();

private:
    struct Change
    {
        KernelStatus status;
        QDateTime at;
        QString reason;
    };
    struct Pending
    {
        QList<Change> changes; // each appended to the history; the last is the status
        std::optional<QString> containerId;
        std::optional<QList<PortBinding>> ports;
        QDateTime updatedAt;
    };
    Pending &pendingFor(const QString &kernelId); // under m_mutex
    // Applies `change` to the kernel's pending entry under the lock and wakes the writer.
    void note(const QString &kernelId, const QDateTime &at,
              const std::function<void(Pending &)> &change);
    void requeue(QHash<QString, Pending> batch, const QStringList &order);

    KernelStore *m_store;
    const QString m_sessionId;
    const std::chrono::milliseconds m_interval;
    CancelToken m_stop;

    std::mutex m_flushMutex; // one flush at a time, so batches reach the store in queue order

    std::mutex m_mutex; // guards everything below
    std::condition_variable m_wake;
    QHash<QString, Pending> m_pending; // kernel id → what is not written yet
    QStringList m_order;               // kernel ids in the order first queued
    bool m_stopping = false;
    std::thread m_thread;
};

} // namespace ClusterDeck
