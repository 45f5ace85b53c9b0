#pragma once

#include "common/error.h"
#include "etcdtypes.h"
#include "http/httptypes.h"

#include <QObject>

#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <thread>

namespace ClusterDeck::Etcd {

class EtcdClient;

struct WatchOptions
{
    QByteArray key;
    QByteArray rangeEnd;      // empty: the single key (see prefix)
    bool prefix = false;      // watch every key starting with `key`
    qint64 startRevision = 0; // 0: changes after "now"
    bool prevKv = false;
    std::chrono::milliseconds reconnectDelay{100};
    std::chrono::milliseconds maxReconnectDelay{3000};
};

// A watch on a key or prefix, served by a worker thread over the gateway's /v3/watch stream.
//
// When the connection drops (or another endpoint has to take over) it reconnects from the last
// delivered revision + 1, so no event is lost or delivered twice. When etcd has compacted the
// revisions it needs, the watch stops with an error naming the compact revision: the caller must
// re-read the state and watch again from there. Events arrive through the callback (on the worker
// thread) and the signals (queued to receivers in other threads). The client must outlive it.
class EtcdWatch : public QObject
{
    Q_OBJECT

public:
    using EventsCallback = std::function<void(const QList<WatchEvent> &events, qint64 revision)>;
    using ErrorCallback = std::function<void(const Error &error)>;

    EtcdWatch(const EtcdClient &client, WatchOptions options, QObject *parent = nullptr);
    ~EtcdWatch() override;

    // Set before start(); both run on the worker thread.
    void setEventsCallback(EventsCallback callback) { m_eventsCallback = std::move(callback); }
    void setErrorCallback(ErrorCallback callback) { m_errorCallback = std::move(callback); }

    void start();
    void stop();
    bool isRunning() const;
    // The revision of the last delivered event (or the one the watch started after).
    qint64 lastRevision() const;
    int connectCount() const;
    // Drops the current connection as a network failure would; the watch reconnects by itself.
    void interruptConnection();

Q_SIGNALS:
    void connected(qint64 revision);
    void eventsReceived(const QList<ClusterDeck::Etcd::WatchEvent> &events, qint64 revision);
    void reconnecting(const ClusterDeck::Error &reason);
    void compacted(qint64 compactRevision);
    // Terminal: the watch has stopped (compaction, a rejected request, bad credentials).
    void failed(const ClusterDeck::Error &error);

private:
    enum class LineOutcome { Continue, Reconnect, Reauthenticate, Fatal };
    void run();
    LineOutcome handleLine(const QByteArray &line, const QString &endpoint, Error *fatal);
    void reportFatal(const Error &error);
    QString describe() const;

    const EtcdClient &m_client;
    WatchOptions m_options;
    EventsCallback m_eventsCallback;
    ErrorCallback m_errorCallback;

    mutable std::mutex m_mutex;
    std::condition_variable m_wake;
    bool m_stopping = false;
    bool m_running = false;
    bool m_fresh = true;       // no revision known yet (startRevision 0 and not yet created)
    qint64 m_lastRevision = 0; // delivered up to here
    int m_connects = 0;
    CancelToken m_cancel;
    std::thread m_thread;
};

} // namespace ClusterDeck::Etcd
