#pragma once

#include "docker/statstypes.h"

#include <QHash>
#include <QObject>
#include <QString>

#include <memory>

namespace ClusterDeck {

namespace Docker {
class DockerClient;
}

// One streaming GET /containers/{id}/stats per watched kernel, each on its own worker thread
// (a stream blocks on the network, one sample a second). Samples arrive on the monitor's thread
// through the queued `sampled` signal. unwatch() closes the stream; so does destruction.
class StatsMonitor : public QObject
{
    Q_OBJECT

public:
    explicit StatsMonitor(QObject *parent = nullptr);
    ~StatsMonitor() override;

    // Starts streaming `containerId` on `client` as `kernelId` (again: nothing changes).
    void watch(const QString &kernelId, std::shared_ptr<const Docker::DockerClient> client,
               const QString &containerId);
    void unwatch(const QString &kernelId);
    void unwatchAll();
    bool isWatching(const QString &kernelId) const { return m_streams.contains(kernelId); }
    int streamCount() const { return int(m_streams.size()); }
    QList<QString> watchedKernels() const { return m_streams.keys(); }

Q_SIGNALS:
    void sampled(const QString &kernelId, const ClusterDeck::Docker::ResourceUsage &usage);
    // The stream ended (the container stopped, the host went away): `reason` says why.
    void streamEnded(const QString &kernelId, const QString &reason);

private:
    struct Stream;
    QHash<QString, std::shared_ptr<Stream>> m_streams;
};

} // namespace ClusterDeck
