#include "statsmonitor.h"

#include "common/logging.h"
#include "docker/dockerclient.h"

#include <QMetaObject>
#include <QPointer>

#include <thread>

namespace ClusterDeck {

struct StatsMonitor::Stream
{
    CancelToken cancel;
    std::thread thread;
};

StatsMonitor::StatsMonitor(QObject *parent)
    : QObject(parent)
{
    qRegisterMetaType<Docker::ResourceUsage>();
}

StatsMonitor::~StatsMonitor()
{
    unwatchAll();
}

void StatsMonitor::watch(const QString &kernelId,
                         std::shared_ptr<const Docker::DockerClient> client,
                         const QString &containerId)
{
    if (m_streams.contains(kernelId) || !client)
        return;
    auto stream = std::make_shared<Stream>();
    const CancelToken cancel = stream->cancel;
    QPointer<StatsMonitor> self(this);
    stream->thread = std::thread([self, kernelId, client, containerId, cancel] {
        Docker::CallOptions options;
        options.timeout = std::chrono::milliseconds(0);
        options.cancel = cancel;
        bool stopped = false;
        auto ended = client->streamStats(
            containerId, true,
            [&](const Docker::ContainerStats &s) {
                if (cancel.isCancelled())
                    return false;
                // A stopped container's stream goes on with empty samples (no read time).
                if (s.readMsecs == 0 && s.cpuTotal == 0) {
                    stopped = true;
                    return false;
                }
                const Docker::ResourceUsage usage = Docker::usageOf(s);
                // Queued: the receiver's thread does the work, this one goes back to reading.
                // The monitor joins this thread before it dies, so `self` stays valid here.
                QMetaObject::invokeMethod(
                    self.data(),
                    [self, kernelId, usage] {
                        if (self && self->m_streams.contains(kernelId))
                            Q_EMIT self->sampled(kernelId, usage);
                    },
                    Qt::QueuedConnection);
                return true;
            },
            options);
        if (cancel.isCancelled())
            return;
        const QString reason = stopped ? QStringLiteral("the container stopped")
                               : ended ? QStringLiteral("the stats stream ended")
                                       : ended.error().toString();
        qCDebug(lcDocker).noquote() << "stats of" << kernelId << ":" << reason;
        QMetaObject::invokeMethod(
            self.data(),
            [self, kernelId, reason] {
                if (self && self->m_streams.contains(kernelId)) {
                    self->unwatch(kernelId);
                    Q_EMIT self->streamEnded(kernelId, reason);
                }
            },
            Qt::QueuedConnection);
    });
    m_streams.insert(kernelId, std::move(stream));
}

void StatsMonitor::unwatch(const QString &kernelId)
{
    const std::shared_ptr<Stream> stream = m_streams.take(kernelId);
    if (!stream)
        return;
    stream->cancel.cancel();
    // The progress callback notices within a moment; detaching would outlive the monitor.
    if (stream->thread.joinable()) {
        if (stream->thread.get_id() == std::this_thread::get_id())
            stream->thread.detach();
        else
            stream->thread.join();
    }
}

void StatsMonitor::unwatchAll()
{
    const QList<QString> ids = m_streams.keys();
    for (const auto &[id, stream] : m_streams.asKeyValueRange())
        stream->cancel.cancel(); // all at once, then wait for each
    for (const QString &id : ids)
        unwatch(id);
}

} // namespace ClusterDeck
