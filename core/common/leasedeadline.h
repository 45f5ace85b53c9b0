#pragma once

#include <QString>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>

namespace ClusterDeck {

// Until when this process may act as the holder of a lease (a leadership, a lock), known without
// any I/O. It starts before the request that granted the lease and moves only with a confirmed
// renewal: the renewal's send time + the TTL − a margin (the store's clock may run ahead). Until
// then isValid() is true; when the deadline passes without a renewal, a thread of its own calls
// `onExpired` once — also while a renewal request still hangs, so nothing acts on a lease that
// may already belong to someone else (a leader frozen by SIGSTOP, cut off, or stuck in a busy
// store wakes up deposed, not leading).
class LeaseDeadline
{
public:
    using Clock = std::chrono::steady_clock;

    // `publishTo` (optional): where to publish the deadline (see published()), when tokens that
    // follow it must exist before the lease is granted.
    LeaseDeadline(Clock::time_point grantSentAt, std::chrono::milliseconds ttl,
                  std::function<void(const QString &why)> onExpired,
                  std::shared_ptr<std::atomic<qint64>> publishTo = {});
    // The deadline as nanoseconds of the steady clock, kept up to date for readers on any thread
    // (CancelToken::untilDeadline): a call checks it before it is sent.
    std::shared_ptr<const std::atomic<qint64>> published() const { return m_published; }
    ~LeaseDeadline();
    LeaseDeadline(const LeaseDeadline &) = delete;
    LeaseDeadline &operator=(const LeaseDeadline &) = delete;

    static std::chrono::milliseconds marginFor(std::chrono::milliseconds ttl);

    // A renewal sent at `sentAt` was confirmed with `ttl`: the deadline moves on (never back).
    void confirmRenewal(Clock::time_point sentAt, std::chrono::milliseconds ttl);
    bool isValid() const;
    // Time left before the deadline (0 when passed): what a renewal request may take at most.
    std::chrono::milliseconds left() const;
    // Ends it without calling onExpired (the holder resigned or the lease is known lost).
    void stop();

private:
    void watch();
    void publish(Clock::time_point at);

    std::function<void(const QString &)> m_onExpired;
    mutable std::mutex m_mutex;
    std::condition_variable m_wake;
    Clock::time_point m_validUntil;
    std::shared_ptr<std::atomic<qint64>> m_published;
    bool m_expired = false;
    bool m_stopped = false;
    std::thread m_thread;
};

} // namespace ClusterDeck
