#include "dockereventstream.h"

#include "common/logging.h"
#include "dockerclient.h"

#include <QDateTime>

#include <algorithm>

namespace ClusterDeck::Docker {

namespace {
constexpr size_t kRecentEvents = 2048;

QString eventKey(const DockerEvent &e)
{
    return QString::number(e.timeNano) + u'|' + e.type + u'|' + e.action + u'|' + e.actorId;
}
} // namespace

DockerEventStream::DockerEventStream(std::shared_ptr<const DockerHost> client, EventFilter filter,
                                     QObject *parent)
    : QObject(parent)
    , m_client(std::move(client))
    , m_filter(std::move(filter))
{}

DockerEventStream::~DockerEventStream()
{
    stop();
}

void DockerEventStream::setCallback(Callback callback)
{
    m_callback = std::move(callback);
}

void DockerEventStream::setReconnectDelay(std::chrono::milliseconds initial,
                                          std::chrono::milliseconds maximum)
{
    m_initialDelay = initial;
    m_maximumDelay = std::max(initial, maximum);
}

void DockerEventStream::start(std::optional<qint64> sinceNano)
{
    if (m_running.exchange(true))
        return;
    m_stopping = false;
    m_startNano = sinceNano.value_or(QDateTime::currentMSecsSinceEpoch() * 1000000LL);
    m_thread = std::thread([this] { run(); });
}

void DockerEventStream::stop()
{
    if (!m_thread.joinable())
        return;
    {
        std::lock_guard lock(m_mutex);
        m_stopping = true;
        m_cancel.cancel();
    }
    m_wake.notify_all();
    m_thread.join();
    m_running = false;
}

void DockerEventStream::forceReconnect()
{
    std::lock_guard lock(m_mutex);
    m_forced = true;
    m_cancel.cancel();
    m_wake.notify_all();
}

bool DockerEventStream::isDuplicate(const DockerEvent &event)
{
    const QString key = eventKey(event);
    if (m_recent.contains(key))
        return true;
    m_recent.insert(key);
    m_recentOrder.push_back(key);
    if (m_recentOrder.size() > kRecentEvents) {
        m_recent.erase(m_recentOrder.front());
        m_recentOrder.pop_front();
    }
    return false;
}

bool DockerEventStream::deliver(const DockerEvent &event)
{
    if (m_stopping)
        return false;
    if (isDuplicate(event))
        return true;
    if (event.timeNano > m_lastTimeNano)
        m_lastTimeNano = event.timeNano;
    if (m_callback)
        m_callback(event);
    Q_EMIT eventReceived(event);
    return true;
}

void DockerEventStream::run()
{
    std::chrono::milliseconds delay = m_initialDelay;
    while (!m_stopping) {
        CallOptions options;
        options.timeout = std::chrono::milliseconds(0); // a stream has no deadline
        {
            std::lock_guard lock(m_mutex);
            if (m_stopping)
                break;
            m_cancel = CancelToken();
            options.cancel = m_cancel;
            m_forced = false;
        }
        // Resume from the newest event seen (inclusive: replayed ones are dropped as duplicates).
        const qint64 since = std::max(m_startNano, m_lastTimeNano.load());
        ++m_connections;
        const int before = int(m_recent.size());
        auto result = m_client->streamEvents(
            m_filter, since, std::nullopt, [this](const DockerEvent &e) { return deliver(e); },
            options);
        if (m_stopping)
            break;

        const QString reason = result ? QStringLiteral("event stream closed by the daemon")
                                      : result.error().toString();
        qCInfo(lcDocker).noquote()
            << m_client->displayName() << "event stream lost:" << reason << "- reconnecting";
        Q_EMIT connectionLost(reason);

        if (m_forced) {
            delay = m_initialDelay;
            continue;
        }
        if (int(m_recent.size()) != before) // the connection worked for a while: start over
            delay = m_initialDelay;
        std::unique_lock lock(m_mutex);
        m_wake.wait_for(lock, delay, [this] { return m_stopping.load() || m_forced.load(); });
        delay = std::min(delay * 2, m_maximumDelay);
    }
}

} // namespace ClusterDeck::Docker
