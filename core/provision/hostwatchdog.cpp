#include "hostwatchdog.h"

#include "common/logging.h"
#include "docker/dockerhost.h"

#include <QElapsedTimer>

#include <atomic>

namespace ClusterDeck {

HostWatchdog::HostWatchdog(const QHash<QString, std::shared_ptr<Docker::DockerHost>> &clients,
                           Settings settings, HungCallback onHung)
    : m_settings(settings)
    , m_onHung(std::move(onHung))
{
    for (auto it = clients.cbegin(); it != clients.cend(); ++it) {
        if (it.value())
            m_threads.emplace_back(
                [this, host = it.key(), client = it.value()] { watch(host, client); });
    }
}

HostWatchdog::~HostWatchdog()
{
    stop();
}

void HostWatchdog::stop()
{
    {
        std::lock_guard lock(m_mutex);
        m_stopping = true;
    }
    m_wake.notify_all();
    for (std::thread &t : m_threads) {
        if (t.joinable())
            t.join();
    }
}

bool HostWatchdog::isHung(const QString &host) const
{
    std::lock_guard lock(m_mutex);
    for (const auto &h : m_hung) {
        if (h.first == host)
            return true;
    }
    return false;
}

QList<std::pair<QString, Error>> HostWatchdog::hung() const
{
    std::lock_guard lock(m_mutex);
    return m_hung;
}

void HostWatchdog::watch(const QString &host, std::shared_ptr<Docker::DockerHost> client)
{
    // Cancelled when the watchdog stops, so a ping to a hung host does not hold stop().
    CancelToken stopping;
    int missed = 0;
    QElapsedTimer silentFor;
    Error last;
    for (;;) {
        {
            std::unique_lock lock(m_mutex);
            if (m_stopping)
                return;
        }
        Docker::CallOptions call;
        call.timeout = m_settings.timeout;
        call.cancel = stopping;
        // The ping runs on this thread; stop() wakes the waiter below, which cancels it.
        std::atomic_bool pinging{true};
        std::thread guard([&] {
            std::unique_lock lock(m_mutex);
            m_wake.wait(lock, [&] { return m_stopping || !pinging.load(); });
            if (m_stopping)
                stopping.cancel();
        });
        auto pong = client->ping(call);
        {
            std::lock_guard lock(m_mutex);
            pinging.store(false);
        }
        m_wake.notify_all();
        guard.join();
        {
            std::lock_guard lock(m_mutex);
            if (m_stopping)
                return;
        }
        if (pong) {
            missed = 0;
        } else {
            if (missed == 0)
                silentFor.start();
            ++missed;
            last = pong.error();
            if (missed >= m_settings.misses) {
                // The context names the host: "host h3: stopped answering: …".
                const Error why =
                    Error::make(Error::Kind::Timeout, QStringLiteral("host %1").arg(host),
                                QStringLiteral("stopped answering: %1 pings in a row got no reply "
                                               "within %2 s (for %3 s; last: %4)")
                                    .arg(missed)
                                    .arg(double(m_settings.timeout.count()) / 1000.0)
                                    .arg(double(silentFor.elapsed()) / 1000.0, 0, 'f', 1)
                                    .arg(last.message));
                qCInfo(lcProvision).noquote() << why.toString();
                {
                    std::lock_guard lock(m_mutex);
                    m_hung.append({host, why});
                }
                if (m_onHung)
                    m_onHung(host, why);
                return;
            }
        }
        std::unique_lock lock(m_mutex);
        m_wake.wait_for(lock, m_settings.interval, [&] { return m_stopping; });
    }
}

} // namespace ClusterDeck
