#pragma once

#include "common/error.h"

#include <QHash>
#include <QString>

#include <chrono>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace ClusterDeck {

namespace Docker {
class DockerHost;
}

// Pings every host of a running operation and says when one stops answering: a daemon that
// accepts connections and never replies (SIGSTOP, a wedged dockerd) would otherwise hold each
// call until its own timeout, and the error would name whichever host failed next, not the one
// that hung. A host is hung after `misses` pings in a row got no answer within `timeout`.
class HostWatchdog
{
public:
    struct Settings
    {
        std::chrono::milliseconds interval{1000}; // between the end of one ping and the next
        std::chrono::milliseconds timeout{5000};  // one ping
        int misses = 2;
    };
    // Called once per hung host, on the watchdog's thread of that host.
    using HungCallback = std::function<void(const QString &host, const Error &why)>;

    HostWatchdog(const QHash<QString, std::shared_ptr<Docker::DockerHost>> &clients,
                 Settings settings, HungCallback onHung);
    ~HostWatchdog(); // stops and joins
    HostWatchdog(const HostWatchdog &) = delete;
    HostWatchdog &operator=(const HostWatchdog &) = delete;

    void stop();
    bool isHung(const QString &host) const;
    // Hosts found hung so far, with why (sorted by the time they were found).
    QList<std::pair<QString, Error>> hung() const;

private:
    void watch(const QString &host, std::shared_ptr<Docker::DockerHost> client);

    const Settings m_settings;
    const HungCallback m_onHung;
    mutable std::mutex m_mutex;
    std::condition_variable m_wake;
    bool m_stopping = false;
    QList<std::pair<QString, Error>> m_hung;
    std::vector<std::thread> m_threads;
};

} // namespace ClusterDeck
