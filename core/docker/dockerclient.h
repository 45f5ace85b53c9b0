#pragma once

#include "common/error.h"
#include "dockerendpoint.h"
#include "dockerhost.h"
#include "dockertypes.h"
#include "exectypes.h"
#include "pullprogress.h"
#include "statstypes.h"

#include <QByteArray>
#include <QString>
#include <QUrlQuery>

#include <functional>
#include <memory>
#include <mutex>
#include <optional>

namespace ClusterDeck::Http {
class HttpTransport;
class RawStream;
struct HttpResponse;
} // namespace ClusterDeck::Http

namespace ClusterDeck::Docker {

class TarArchiveBuilder;

// A typed client of one Docker daemon (Engine API). Every call has a timeout and a cancel token
// (CallOptions) and returns a Result whose Error names the endpoint. Calls are const and safe
// from many threads at once; the API version is negotiated once, on first use.
class DockerClient : public DockerHost
{
public:
    // The newest API this client speaks; the path version is min(this, the daemon's).
    static constexpr const char *kMaxApiVersion = "1.41";
    // The oldest daemon API accepted (Docker 17.06).
    static constexpr const char *kMinApiVersion = "1.30";

    explicit DockerClient(DockerEndpoint endpoint, QString hostName = {});
    ~DockerClient() override;
    DockerClient(const DockerClient &) = delete;
    DockerClient &operator=(const DockerClient &) = delete;

    const DockerEndpoint &endpoint() const { return m_endpoint; }
    QString hostName() const override { return m_hostName; }
    QString displayName() const override;

    // The negotiated API version ("1.41"): asks /_ping on first use, then cached.
    Result<QString> apiVersion(const CallOptions &options = {}) const override;

    // System
    Result<PingInfo> ping(const CallOptions &options = {}) const override;
    Result<VersionInfo> version(const CallOptions &options = {}) const;
    Result<SystemInfo> info(const CallOptions &options = {}) const override;

    // Images
    Result<QList<ImageSummary>> listImages(const QStringList &labels = {},
                                           const CallOptions &options = {}) const override;
    Result<ImageInfo> inspectImage(const QString &nameOrId,
                                   const CallOptions &options = {}) const override;
    // POST /images/create: pulls and reports the decoded progress after every change; `onProgress`
    // returning false stops the pull (the daemon cancels it when the connection closes). A failure
    // the daemon reports mid-stream is an error of kind Http with its message. Set
    // options.timeout to 0 for no overall limit.
    using PullSink = std::function<bool(const PullProgress &)>;
    Result<PullProgress> pullImage(const ImagePullSpec &pull, const PullSink &onProgress = {},
                                   const CallOptions &options = {}) const override;
    Result<RemovedImage> removeImage(const QString &nameOrId, bool force = false,
                                     const CallOptions &options = {}) const override;
    // POST /images/create?fromSrc=-: `tar` (an uncompressed root file system) becomes the image
    // import.repo:import.tag with import.changes applied; returns its id ("sha256:…").
    Result<QString> importImage(const ImageImportSpec &import, const QByteArray &tar,
                                const CallOptions &options = {}) const override;
    // POST /auth: the daemon logs in to the registry (so its own CA trust applies).
    Result<AuthCheck> checkAuth(const QString &serverAddress, const QString &username,
                                const QString &password, const CallOptions &options = {}) const;

    // Containers
    Result<CreatedContainer> createContainer(const ContainerSpec &spec,
                                             const CallOptions &options = {}) const override;
    Result<void> startContainer(const QString &id, const CallOptions &options = {}) const override;
    // `timeoutSeconds` before SIGKILL; unset: the container's StopTimeout (default 10 s).
    Result<void> stopContainer(const QString &id, std::optional<int> timeoutSeconds = {},
                               const CallOptions &options = {}) const override;
    Result<void> restartContainer(const QString &id, std::optional<int> timeoutSeconds = {},
                                  const CallOptions &options = {}) const override;
    Result<void> killContainer(const QString &id, const QString &signal = QStringLiteral("SIGKILL"),
                               const CallOptions &options = {}) const override;
    Result<void> removeContainer(const QString &id, const RemoveContainerOptions &remove = {},
                                 const CallOptions &options = {}) const override;
    Result<ContainerInfo> inspectContainer(const QString &id,
                                           const CallOptions &options = {}) const override;
    Result<QList<ContainerSummary>> listContainers(const ContainerListOptions &list = {},
                                                   const CallOptions &options = {}) const override;
    Result<ContainerLogs> containerLogs(const QString &id, const LogOptions &logs = {},
                                        const CallOptions &options = {}) const override;
    // The logs there are now (logs.tail: the last N lines, "all"), frame by frame into `sink` as
    // they arrive, nothing collected: for logs of any size.
    Result<void> readLogs(const QString &id, const LogOptions &logs,
                          const std::function<bool(const LogFrame &)> &sink,
                          const CallOptions &options = {}) const override;
    // Follows the logs until the container stops, `sink` returns false, or the call is
    // cancelled or times out (set options.timeout to 0 for no limit).
    Result<void> followLogs(const QString &id, const LogOptions &logs,
                            const std::function<bool(const LogFrame &)> &sink,
                            const CallOptions &options = {}) const override;
    // PUT /containers/{id}/archive: extracts `tar` into the existing directory `path`.
    Result<void> uploadArchive(const QString &id, const QString &path, const QByteArray &tar,
                               const CallOptions &options = {}) const;
    Result<void> uploadFiles(const QString &id, const QString &path, const TarArchiveBuilder &files,
                             const CallOptions &options = {}) const override;
    // GET /containers/{id}/archive: the content of one regular file (e.g. /etc/passwd) of a
    // created or running container. NotFound when the path does not exist.
    Result<QByteArray> readFile(const QString &id, const QString &path,
                                const CallOptions &options = {}) const override;

    // Exec
    Result<QString> createExec(const QString &containerId, const ExecSpec &spec,
                               const CallOptions &options = {}) const;
    // POST /exec/{id}/start with the connection taken over: the raw stream (a TTY's bytes, or
    // multiplexed frames without a TTY). options.timeout bounds the start, not the stream.
    Result<std::unique_ptr<Http::RawStream>> startExec(const QString &execId, bool tty,
                                                       const CallOptions &options = {}) const;
    Result<void> resizeExec(const QString &execId, int rows, int cols,
                            const CallOptions &options = {}) const;
    Result<ExecInfo> inspectExec(const QString &execId, const CallOptions &options = {}) const;
    // The exit code of an exec whose stream has ended (the daemon may note it a moment later).
    Result<int> waitExecExit(const QString &execId, const CallOptions &options = {}) const;
    // Runs `spec` without TTY or stdin to its end, giving its output frames to `sink` as they
    // come (return false to stop reading); returns the exit code. options.timeout bounds the
    // whole run (0: none); cancelling stops waiting (the process itself runs on).
    Result<int> runExec(const QString &containerId, const ExecSpec &spec,
                        const std::function<bool(const LogFrame &)> &sink,
                        const CallOptions &options = {}) const override;

    // Stats: GET /containers/{id}/stats. `stream`: one sample a second until `sink` returns
    // false, the container stops or the call is cancelled (set options.timeout to 0); else one
    // sample (the daemon takes a second, to fill in the previous CPU counters).
    Result<void> streamStats(const QString &id, bool stream,
                             const std::function<bool(const ContainerStats &)> &sink,
                             const CallOptions &options = {}) const;
    Result<ContainerStats> stats(const QString &id, const CallOptions &options = {}) const;

    // Networks
    Result<QString> createNetwork(const NetworkSpec &spec,
                                  const CallOptions &options = {}) const override;
    Result<NetworkInfo> inspectNetwork(const QString &idOrName,
                                       const CallOptions &options = {}) const override;
    Result<QList<NetworkInfo>> listNetworks(const QStringList &labels = {},
                                            const CallOptions &options = {}) const override;
    Result<void> removeNetwork(const QString &idOrName,
                               const CallOptions &options = {}) const override;
    Result<void> disconnectNetwork(const QString &network, const QString &container, bool force,
                                   const CallOptions &options = {}) const override;

    // Volumes
    Result<VolumeInfo> createVolume(const VolumeSpec &spec,
                                    const CallOptions &options = {}) const override;
    Result<VolumeInfo> inspectVolume(const QString &name,
                                     const CallOptions &options = {}) const override;
    Result<QList<VolumeInfo>> listVolumes(const QStringList &labels = {},
                                          const CallOptions &options = {}) const override;
    Result<void> removeVolume(const QString &name, bool force = false,
                              const CallOptions &options = {}) const override;

    // Swarm
    Result<SwarmInfo> inspectSwarm(const CallOptions &options = {}) const;
    Result<QString> initSwarm(const SwarmInitSpec &spec, const CallOptions &options = {}) const;
    Result<void> joinSwarm(const SwarmJoinSpec &spec, const CallOptions &options = {}) const;
    Result<void> leaveSwarm(bool force = false, const CallOptions &options = {}) const;
    Result<SwarmJoinTokens> joinTokens(const CallOptions &options = {}) const;
    Result<QList<NodeInfo>> listNodes(const CallOptions &options = {}) const override;

    // Events: one connection of GET /events. Past events from `sinceNano` are replayed first;
    // without `untilNano` the call streams until `sink` returns false, the connection drops or
    // the call is cancelled (DockerEventStream adds reconnection on top).
    using EventSink = std::function<bool(const DockerEvent &)>;
    Result<void> streamEvents(const EventFilter &filter, std::optional<qint64> sinceNano,
                              std::optional<qint64> untilNano, const EventSink &sink,
                              const CallOptions &options = {}) const override;

    // "1700000000.000000042" as the daemon's `since`/`until` expect it.
    static QString formatEventTime(qint64 timeNano);

private:
    // Registry credentials only over a unix socket or TLS (CredentialPolicy).
    Result<void> mayCarryCredentials() const;
    struct Request
    {
        QByteArray method = "GET";
        QString path; // without the version prefix: "/containers/json"
        QUrlQuery query;
        QByteArray body;
        QByteArray contentType = "application/json";
        QList<QPair<QByteArray, QByteArray>> headers;
        std::function<bool(const QByteArray &)> onData;
        QList<int> extraOkStatuses; // e.g. 304 for start/stop of an already started container
        bool versioned = true;
        qint64 maxBodyBytes = Http::HttpRequest::kDefaultMaxBodyBytes; // collected body's cap
    };

    Result<Http::HttpResponse> send(const Request &request, const CallOptions &options) const;
    Result<void> streamLogs(const QString &id, const LogOptions &logs, bool follow,
                            const std::function<bool(const LogFrame &)> &sink,
                            const CallOptions &options) const;
    Result<void> sendNoContent(const Request &request, const CallOptions &options) const;
    Error transportError(const Error &error) const;
    Error httpError(const Http::HttpResponse &response, const Request &request) const;
    Error decodeError(const Error &error, const Request &request) const;
    template<typename T>
    Result<T> decoded(Result<T> result, const Request &request) const;

    DockerEndpoint m_endpoint;
    QString m_hostName;
    std::unique_ptr<Http::HttpTransport> m_transport;
    mutable std::timed_mutex m_versionMutex; // held while one caller negotiates
    mutable std::optional<QString> m_apiVersion;
};

} // namespace ClusterDeck::Docker
