#pragma once

#include "common/error.h"
#include "dockertypes.h"

#include <QObject>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>
#include <unordered_set>

namespace ClusterDeck::Docker {

class DockerHost;

// Follows GET /events of one daemon on a worker thread and delivers each event once: when the
// connection drops (or forceReconnect() is called) it reconnects with `since` = the newest event
// seen, and drops the replayed duplicates. Events go to the callback (on the worker thread) and
// to the eventReceived signal (queued to receivers living in other threads).
class DockerEventStream : public QObject
{
    Q_OBJECT

public:
    using Callback = std::function<void(const DockerEvent &)>;

    DockerEventStream(std::shared_ptr<const DockerHost> client, EventFilter filter,
                      QObject *parent = nullptr);
    ~DockerEventStream() override;

    // Set before start(); called on the worker thread.
    void setCallback(Callback callback);
    void setReconnectDelay(std::chrono::milliseconds initial, std::chrono::milliseconds maximum);

    // Starts following from `sinceNano` (unix ns; default: now, so nothing that happens after
    // this call is missed even before the connection is up).
    void start(std::optional<qint64> sinceNano = {});
    // Stops and joins the worker; no callback or signal is emitted after it returns.
    void stop();
    // Drops the current connection; the worker reconnects at once without losing events.
    void forceReconnect();

    bool isRunning() const { return m_running.load(); }
    int connectionCount() const { return m_connections.load(); }
    qint64 lastEventTimeNano() const { return m_lastTimeNano.load(); }

Q_SIGNALS:
    void eventReceived(const ClusterDeck::Docker::DockerEvent &event);
    // The connection ended (error or closed by the daemon); the stream reconnects by itself.
    void connectionLost(const QString &reason);

private:
    void run();
    bool deliver(const DockerEvent &event);
    bool isDuplicate(const DockerEvent &event);

    std::shared_ptr<const DockerHost> m_client;
    EventFilter m_filter;
    Callback m_callback;
    std::chrono::milliseconds m_initialDelay{200};
    std::chrono::milliseconds m_maximumDelay{5000};

    std::thread m_thread;
    std::atomic_bool m_running{false};
    std::atomic_bool m_stopping{false};
    std::atomic_bool m_forced{false};
    std::atomic_int m_connections{0};
    std::atomic<qint64> m_lastTimeNano{0};
    qint64 m_startNano = 0;

    std::mutex m_mutex; // guards m_cancel and the wake-up of the back-off wait
    std::condition_variable m_wake;
    CancelToken m_cancel;

    // Keys of recently delivered events, to drop the ones a reconnect replays.
    std::deque<QString> m_recentOrder;
    std::unordered_set<QString> m_recent;
};

} // namespace ClusterDeck::Docker
