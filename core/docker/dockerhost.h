#pragma once

#include "common/error.h"
#include "dockertypes.h"
#include "exectypes.h"
#include "pullprogress.h"

#include <QString>
#include <QStringList>

#include <functional>
#include <optional>

namespace ClusterDeck::Docker {

class TarArchiveBuilder;

// What provisioning, session control, the controller and host inspection need from one Docker
// daemon. DockerClient is the real one (the Engine API over HTTP); tests and the scale benchmark
// give an in-memory daemon (tests/support/fakedockerhost.h) through HostRegistry's host factory.
// Semantics, errors and thread safety are DockerClient's: calls are const, safe from many threads
// at once, and fail with an Error (NotFound for an unknown object, Conflict for a taken name…).
class DockerHost
{
public:
    virtual ~DockerHost() = default;

    // The registered host's name ("h1"), and how errors and logs name it.
    virtual QString hostName() const = 0;
    virtual QString displayName() const = 0;

    // System
    virtual Result<QString> apiVersion(const CallOptions &options = {}) const = 0;
    virtual Result<PingInfo> ping(const CallOptions &options = {}) const = 0;
    virtual Result<SystemInfo> info(const CallOptions &options = {}) const = 0;
    virtual Result<QList<NodeInfo>> listNodes(const CallOptions &options = {}) const = 0;

    // Images
    virtual Result<QList<ImageSummary>> listImages(const QStringList &labels = {},
                                                   const CallOptions &options = {}) const = 0;
    virtual Result<ImageInfo> inspectImage(const QString &nameOrId,
                                           const CallOptions &options = {}) const = 0;
    using PullSink = std::function<bool(const PullProgress &)>;
    virtual Result<PullProgress> pullImage(const ImagePullSpec &pull,
                                           const PullSink &onProgress = {},
                                           const CallOptions &options = {}) const = 0;
    virtual Result<RemovedImage> removeImage(const QString &nameOrId, bool force = false,
                                             const CallOptions &options = {}) const = 0;
    virtual Result<QString> importImage(const ImageImportSpec &import, const QByteArray &tar,
                                        const CallOptions &options = {}) const = 0;

    // Containers
    virtual Result<CreatedContainer> createContainer(const ContainerSpec &spec,
                                                     const CallOptions &options = {}) const = 0;
    virtual Result<void> startContainer(const QString &id,
                                        const CallOptions &options = {}) const = 0;
    virtual Result<void> stopContainer(const QString &id, std::optional<int> timeoutSeconds = {},
                                       const CallOptions &options = {}) const = 0;
    virtual Result<void> restartContainer(const QString &id, std::optional<int> timeoutSeconds = {},
                                          const CallOptions &options = {}) const = 0;
    virtual Result<void> killContainer(const QString &id,
                                       const QString &signal = QStringLiteral("SIGKILL"),
                                       const CallOptions &options = {}) const = 0;
    virtual Result<void> removeContainer(const QString &id,
                                         const RemoveContainerOptions &remove = {},
                                         const CallOptions &options = {}) const = 0;
    virtual Result<ContainerInfo> inspectContainer(const QString &id,
                                                   const CallOptions &options = {}) const = 0;
    virtual Result<QList<ContainerSummary>>
    listContainers(const ContainerListOptions &list = {},
                   const CallOptions &options = {}) const = 0;
    virtual Result<ContainerLogs> containerLogs(const QString &id, const LogOptions &logs = {},
                                                const CallOptions &options = {}) const = 0;
    virtual Result<void> readLogs(const QString &id, const LogOptions &logs,
                                  const std::function<bool(const LogFrame &)> &sink,
                                  const CallOptions &options = {}) const = 0;
    virtual Result<void> followLogs(const QString &id, const LogOptions &logs,
                                    const std::function<bool(const LogFrame &)> &sink,
                                    const CallOptions &options = {}) const = 0;
    virtual Result<void> uploadFiles(const QString &id, const QString &path,
                                     const TarArchiveBuilder &files,
                                     const CallOptions &options = {}) const = 0;
    virtual Result<QByteArray> readFile(const QString &id, const QString &path,
                                        const CallOptions &options = {}) const = 0;
    virtual Result<int> runExec(const QString &containerId, const ExecSpec &spec,
                                const std::function<bool(const LogFrame &)> &sink,
                                const CallOptions &options = {}) const = 0;

    // Networks
    virtual Result<QString> createNetwork(const NetworkSpec &spec,
                                          const CallOptions &options = {}) const = 0;
    virtual Result<NetworkInfo> inspectNetwork(const QString &idOrName,
                                               const CallOptions &options = {}) const = 0;
    virtual Result<QList<NetworkInfo>> listNetworks(const QStringList &labels = {},
                                                    const CallOptions &options = {}) const = 0;
    virtual Result<void> removeNetwork(const QString &idOrName,
                                       const CallOptions &options = {}) const = 0;
    // `container` is a container's id or name, or with `force` the name of an endpoint whose
    // container is gone (Docker then deletes the endpoint alone).
    virtual Result<void> disconnectNetwork(const QString &network, const QString &container,
                                           bool force, const CallOptions &options = {}) const = 0;

    // Volumes
    virtual Result<VolumeInfo> createVolume(const VolumeSpec &spec,
                                            const CallOptions &options = {}) const = 0;
    virtual Result<VolumeInfo> inspectVolume(const QString &name,
                                             const CallOptions &options = {}) const = 0;
    virtual Result<QList<VolumeInfo>> listVolumes(const QStringList &labels = {},
                                                  const CallOptions &options = {}) const = 0;
    virtual Result<void> removeVolume(const QString &name, bool force = false,
                                      const CallOptions &options = {}) const = 0;

    // Events: one connection of GET /events (see DockerClient::streamEvents).
    using EventSink = std::function<bool(const DockerEvent &)>;
    virtual Result<void> streamEvents(const EventFilter &filter, std::optional<qint64> sinceNano,
                                      std::optional<qint64> untilNano, const EventSink &sink,
                                      const CallOptions &options = {}) const = 0;

protected:
    DockerHost() = default;
    DockerHost(const DockerHost &) = default;
    DockerHost &operator=(const DockerHost &) = default;
};

} // namespace ClusterDeck::Docker
