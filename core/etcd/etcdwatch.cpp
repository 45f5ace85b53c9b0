#include "etcdwatch.h"

#include "common/logging.h"
#include "etcdclient.h"
#include "etcdjson.h"

namespace ClusterDeck::Etcd {

using namespace std::chrono_literals;

EtcdWatch::EtcdWatch(const EtcdClient &client, WatchOptions options, QObject *parent)
    : QObject(parent)
    , m_client(client)
    , m_options(std::move(options))
{
    if (m_options.prefix && m_options.rangeEnd.isEmpty())
        m_options.rangeEnd = prefixEnd(m_options.key);
    if (m_options.startRevision > 0) {
        m_fresh = false;
        m_lastRevision = m_options.startRevision - 1;
    }
}

EtcdWatch::~EtcdWatch()
{
    stop();
}

QString EtcdWatch::describe() const
{
    return QStringLiteral("watch on %1%2")
        .arg(QString::fromUtf8(m_options.key), m_options.prefix ? QStringLiteral("*") : QString());
}

void EtcdWatch::start()
{
    std::lock_guard lock(m_mutex);
    if (m_thread.joinable())
        return;
    m_stopping = false;
    m_running = true;
    m_thread = std::thread([this] { run(); });
}

void EtcdWatch::stop()
{
    {
        std::lock_guard lock(m_mutex);
        m_stopping = true;
        m_cancel.cancel();
    }
    m_wake.notify_all();
    if (m_thread.joinable() && m_thread.get_id() != std::this_thread::get_id())
        m_thread.join();
}

bool EtcdWatch::isRunning() const
{
    std::lock_guard lock(m_mutex);
    return m_running;
}

qint64 EtcdWatch::lastRevision() const
{
    std::lock_guard lock(m_mutex);
    return m_lastRevision;
}

int EtcdWatch::connectCount() const
{
    std::lock_guard lock(m_mutex);
    return m_connects;
}

void EtcdWatch::interruptConnection()
{
    std::lock_guard lock(m_mutex);
    m_cancel.cancel();
}

void EtcdWatch::reportFatal(const Error &error)
{
    qCWarning(lcEtcd).noquote() << error.toString();
    if (m_errorCallback)
        m_errorCallback(error);
    Q_EMIT failed(error);
}

EtcdWatch::LineOutcome EtcdWatch::handleLine(const QByteArray &line, const QString &endpoint,
                                             Error *fatal)
{
    auto object = Json::parseObject(line);
    if (!object) {
        *fatal = Error::make(Error::Kind::Decode, endpoint,
                             describe() + QStringLiteral(": ") + object.error().message);
        return LineOutcome::Fatal;
    }
    if (const auto error = Json::decodeError(*object)) {
        if (Json::isInvalidTokenError(*error))
            return LineOutcome::Reauthenticate;
        if (error->code == Json::kGrpcUnavailable || error->code == 0)
            return LineOutcome::Reconnect;
        *fatal = Error::make(Error::Kind::Http, endpoint,
                             describe() + QStringLiteral(": ") + error->message);
        return LineOutcome::Fatal;
    }
    auto response = Json::decodeWatchResponse(*object);
    if (!response) {
        *fatal = Error::make(Error::Kind::Decode, endpoint,
                             describe() + QStringLiteral(": ") + response.error().message);
        return LineOutcome::Fatal;
    }
    if (response->compactRevision > 0) {
        qint64 from = 0;
        {
            std::lock_guard lock(m_mutex);
            from = m_lastRevision + 1;
        }
        *fatal =
            Error::make(Error::Kind::NotFound, endpoint,
                        QStringLiteral("%1 from revision %2: etcd has compacted its history up "
                                       "to revision %3; re-read the keys and watch again "
                                       "from there")
                            .arg(describe())
                            .arg(from)
                            .arg(response->compactRevision));
        Q_EMIT compacted(response->compactRevision);
        return LineOutcome::Fatal;
    }
    if (response->canceled && Json::isInvalidTokenError({0, response->cancelReason}))
        return LineOutcome::Reauthenticate; // the gateway reports auth failures this way
    if (response->canceled) {
        *fatal =
            Error::make(Error::Kind::Conflict, endpoint,
                        describe() + QStringLiteral(" cancelled by etcd: ") +
                            (response->cancelReason.isEmpty() ? QStringLiteral("no reason given")
                                                              : response->cancelReason));
        return LineOutcome::Fatal;
    }
    if (response->created) {
        qint64 revision = 0;
        {
            std::lock_guard lock(m_mutex);
            ++m_connects;
            if (m_fresh) {
                // A watch from "now" sees changes after the revision it was created at.
                m_fresh = false;
                m_lastRevision = response->header.revision;
            }
            revision = m_lastRevision;
        }
        Q_EMIT connected(revision);
    }
    if (response->events.isEmpty())
        return LineOutcome::Continue;

    // Events at or below the delivered revision were seen before a reconnect: skip them.
    QList<WatchEvent> events;
    qint64 revision = 0;
    {
        std::lock_guard lock(m_mutex);
        for (WatchEvent &event : response->events) {
            if (event.kv.modRevision > m_lastRevision)
                events.append(std::move(event));
        }
        if (events.isEmpty())
            return LineOutcome::Continue;
        revision = events.constLast().kv.modRevision;
        m_lastRevision = std::max(m_lastRevision, revision);
    }
    if (m_eventsCallback)
        m_eventsCallback(events, revision);
    Q_EMIT eventsReceived(events, revision);
    return LineOutcome::Continue;
}

void EtcdWatch::run()
{
    auto delay = std::chrono::duration_cast<std::chrono::milliseconds>(m_options.reconnectDelay);
    for (;;) {
        CancelToken cancel;
        qint64 from = 0;
        {
            std::lock_guard lock(m_mutex);
            if (m_stopping)
                break;
            m_cancel = cancel;
            from = m_fresh ? 0 : m_lastRevision + 1;
        }

        QByteArray buffer;
        LineOutcome outcome = LineOutcome::Reconnect;
        Error fatal;
        EtcdClient::StreamInfo info;
        const int connectsBefore = connectCount();
        auto sink = [&](const QByteArray &chunk) {
            buffer.append(chunk);
            qsizetype newline;
            while ((newline = buffer.indexOf('\n')) >= 0) {
                const QByteArray line = buffer.left(newline).trimmed();
                buffer.remove(0, newline + 1);
                if (line.isEmpty())
                    continue;
                const LineOutcome o = handleLine(line, info.endpoint, &fatal);
                if (o != LineOutcome::Continue) {
                    outcome = o;
                    return false;
                }
            }
            return true;
        };
        const auto request =
            Json::encodeWatchCreate(m_options.key, m_options.rangeEnd, from, m_options.prevKv);
        auto result =
            m_client.stream(QStringLiteral("/v3/watch"), request, sink, cancel, 0ms, &info);
        {
            std::lock_guard lock(m_mutex);
            if (m_stopping)
                break;
        }
        if (outcome == LineOutcome::Fatal) {
            reportFatal(fatal);
            break;
        }
        Error reason;
        if (outcome == LineOutcome::Reauthenticate ||
            (!result && result.error().httpStatus == 401)) {
            if (auto refreshed = m_client.refreshToken(info.token); !refreshed) {
                reportFatal(refreshed.error().withContext(describe()));
                break;
            }
            reason =
                Error::make(Error::Kind::Http, info.endpoint,
                            describe() + QStringLiteral(": token expired, authenticated again"));
        } else if (!result) {
            reason = result.error().withContext(describe());
            if (result.error().httpStatus >= 400 && result.error().httpStatus < 500) {
                reportFatal(reason);
                break;
            }
        } else {
            reason = Error::make(Error::Kind::Transport, info.endpoint,
                                 describe() + QStringLiteral(": stream ended"));
        }
        if (connectCount() > connectsBefore)
            delay = std::chrono::duration_cast<std::chrono::milliseconds>(m_options.reconnectDelay);
        qCInfo(lcEtcd).noquote() << reason.toString() << "- reconnecting in" << delay.count()
                                 << "ms from revision" << (lastRevision() + 1);
        Q_EMIT reconnecting(reason);
        {
            std::unique_lock lock(m_mutex);
            if (m_wake.wait_for(lock, delay, [this] { return m_stopping; }))
                break;
        }
        delay = std::min(delay * 2, m_options.maxReconnectDelay);
    }
    std::lock_guard lock(m_mutex);
    m_running = false;
}

} // namespace ClusterDeck::Etcd
