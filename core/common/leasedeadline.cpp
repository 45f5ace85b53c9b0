#include "leasedeadline.h"

#include <algorithm>

namespace ClusterDeck {

using namespace std::chrono_literals;

LeaseDeadline::LeaseDeadline(Clock::time_point grantSentAt, std::chrono::milliseconds ttl,
                             std::function<void(const QString &why)> onExpired,
                             std::shared_ptr<std::atomic<qint64>> publishTo)
    : m_onExpired(std::move(onExpired))
    , m_validUntil(grantSentAt + ttl - marginFor(ttl))
    , m_published(publishTo ? std::move(publishTo) : std::make_shared<std::atomic<qint64>>(0))
{
    publish(m_validUntil);
    m_thread = std::thread([this] { watch(); });
}

LeaseDeadline::~LeaseDeadline()
{
    stop();
    if (m_thread.joinable() && m_thread.get_id() != std::this_thread::get_id())
        m_thread.join();
    else if (m_thread.joinable())
        m_thread.detach(); // destroyed from onExpired itself
}

void LeaseDeadline::publish(Clock::time_point at)
{
    // Never 0 (that reads as "no deadline").
    m_published->store(std::max<qint64>(
        1, std::chrono::duration_cast<std::chrono::nanoseconds>(at.time_since_epoch()).count()));
}

std::chrono::milliseconds LeaseDeadline::marginFor(std::chrono::milliseconds ttl)
{
    return std::max<std::chrono::milliseconds>(ttl / 10, 500ms);
}

void LeaseDeadline::confirmRenewal(Clock::time_point sentAt, std::chrono::milliseconds ttl)
{
    {
        std::lock_guard lock(m_mutex);
        if (m_expired || m_stopped)
            return; // too late: once passed, the lease may be someone else's
        m_validUntil = std::max(m_validUntil, sentAt + ttl - marginFor(ttl));
        publish(m_validUntil);
    }
    m_wake.notify_all();
}

bool LeaseDeadline::isValid() const
{
    std::lock_guard lock(m_mutex);
    return !m_expired && !m_stopped && Clock::now() < m_validUntil;
}

std::chrono::milliseconds LeaseDeadline::left() const
{
    std::lock_guard lock(m_mutex);
    if (m_expired || m_stopped)
        return 0ms;
    return std::max(
        0ms, std::chrono::duration_cast<std::chrono::milliseconds>(m_validUntil - Clock::now()));
}

void LeaseDeadline::stop()
{
    {
        std::lock_guard lock(m_mutex);
        m_stopped = true;
        publish(Clock::time_point()); // over: tokens that follow it say so at once
    }
    m_wake.notify_all();
}

void LeaseDeadline::watch()
{
    std::unique_lock lock(m_mutex);
    for (;;) {
        if (m_stopped)
            return;
        const Clock::time_point until = m_validUntil;
        if (Clock::now() >= until)
            break;
        m_wake.wait_until(lock, until);
    }
    m_expired = true;
    const auto callback = m_onExpired;
    lock.unlock();
    if (callback)
        callback(QStringLiteral("no renewal of the lease was confirmed before its local "
                                "deadline (TTL minus a margin, from the last confirmed renewal)"));
}

} // namespace ClusterDeck
