#pragma once

// An in-memory Docker daemon behind the Docker::DockerHost seam: containers with labels and
// state, networks, volumes and images, scripted for tests and the scale benchmark (a per-call
// delay, the Nth call of a kind failing, a host that hangs or is down). Thread-safe like the real
// client. Install it with HostRegistry::setHostFactory (see FakeDockerFleet).

#include "docker/dockerhost.h"

#include <QHash>
#include <QMap>
#include <QSet>
#include <QString>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>

namespace ClusterDeck {
class HostRegistry;
}

namespace ClusterDeck::TestSupport {

class FakeDockerHost : public Docker::DockerHost
{
public:
    // A scripted failure: the `nth` call (1-based, counted from when it was set) of `call`
    // ("createContainer", "startContainer", … the DockerHost method names) fails with `error`.
    struct Fault
    {
        QString call;
        int nth = 1;
        Error error;
        bool thenDown = false; // the host goes down with this failure (setDown(true))
    };
    struct Container
    {
        Docker::ContainerSpec spec;
        QString id;
        QString state = QStringLiteral("created"); // created, running, exited
        int exitCode = 0;
        int restarts = 0;
        qint64 createdNs = 0;
        QString startedAt;
        QString finishedAt;
        QMap<QString, QString> files; // uploaded: path → size, for assertions
        QMap<int, int> hostPorts;     // container port → host port
    };

    explicit FakeDockerHost(QString name, int ncpu = 64, qint64 memTotal = 256LL << 30);

    // Scripting (any thread).
    void setCallDelay(std::chrono::microseconds delay) { m_delayUs.store(delay.count()); }
    // A container create takes this long in the daemon. A client that gives up meanwhile (its
    // cancel) gets Cancelled at once, and the daemon still makes the container when the time
    // is up, as dockerd does with an aborted request.
    void setCreateTime(std::chrono::milliseconds t) { m_createTimeMs.store(t.count()); }
    void setDown(bool down) { m_down.store(down); } // every call: Transport error
    // How often an event stream with nothing to send looks at its cancel token (default
    // 20 ms); a fleet benchmark makes it rarer, so that the fake's polling does not count as
    // the idle controller's CPU.
    void setStreamPollInterval(std::chrono::milliseconds interval)
    {
        m_streamPollMs.store(interval.count());
    }
    void setHanging(bool hang);                     // every call waits for cancel/timeout
    void addFault(const Fault &fault);
    void failNth(const QString &call, int nth, Error::Kind kind = Error::Kind::Http,
                 int httpStatus = 500);
    // Images: present by default (any name); with setImagesPresent(false) only added ones are.
    void setImagesPresent(bool all) { m_allImages.store(all); }
    void addImage(const QString &image);
    // Makes the host a member (or manager) of a swarm: info() says so, and containers may join
    // networks made on another member (overlay networks span the swarm).
    void joinSwarm(const QString &clusterId, bool manager);
    // A swarm node drops its instance of an overlay a moment after the last container on it
    // left: with n > 0, after such a removal the next n inspections of the network on this host
    // still see an instance without containers, and a container started meanwhile fails with
    // "network … not found", leaving a stuck attachment (counted by stuckAttachments()), as
    // Docker's does.
    void setNetworkTeardownInspects(int n) { m_teardownInspects.store(n); }
    // An endpoint named `name` on `network` whose container is gone, as dockerd keeps one when
    // releasing it failed (moby/moby#42119): the network cannot be removed until a forced
    // disconnect by that name deletes it.
    void addStaleEndpoint(const QString &network, const QString &name);
    // dockerd's count of the network's endpoints one too high, with none listed: removal is
    // refused and no API call helps (moby/moby#42119).
    void addStaleEndpointCount(const QString &network);
    int stuckAttachments() const;

    // Simulates the kernel's process ending: the container exits with `code` and a `die` event
    // goes to the streams listening.
    bool exitContainer(const QString &idOrName, int code);

    // State, for assertions.
    QList<Container> containers() const;
    std::optional<Container> container(const QString &idOrName) const;
    int containerCount() const;
    int runningCount() const;
    QStringList networkNames() const;
    QStringList volumeNames() const;
    int calls(const QString &call) const;
    int totalCalls() const;
    // The time spent in the configured per-call delay (what a real daemon would have taken).
    std::chrono::nanoseconds simulatedTime() const
    {
        return std::chrono::nanoseconds(m_simulatedNs.load());
    }

    // DockerHost
    QString hostName() const override { return m_name; }
    QString displayName() const override;
    Result<QString> apiVersion(const Docker::CallOptions &options = {}) const override;
    Result<Docker::PingInfo> ping(const Docker::CallOptions &options = {}) const override;
    Result<Docker::SystemInfo> info(const Docker::CallOptions &options = {}) const override;
    Result<QList<Docker::NodeInfo>>
    listNodes(const Docker::CallOptions &options = {}) const override;
    Result<QList<Docker::ImageSummary>>
    listImages(const QStringList &labels = {},
               const Docker::CallOptions &options = {}) const override;
    Result<Docker::ImageInfo> inspectImage(const QString &nameOrId,
                                           const Docker::CallOptions &options = {}) const override;
    Result<Docker::PullProgress> pullImage(const Docker::ImagePullSpec &pull,
                                           const PullSink &onProgress = {},
                                           const Docker::CallOptions &options = {}) const override;
    Result<Docker::RemovedImage>
    removeImage(const QString &nameOrId, bool force = false,
                const Docker::CallOptions &options = {}) const override;
    Result<QString> importImage(const Docker::ImageImportSpec &import, const QByteArray &tar,
                                const Docker::CallOptions &options = {}) const override;
    Result<Docker::CreatedContainer>
    createContainer(const Docker::ContainerSpec &spec,
                    const Docker::CallOptions &options = {}) const override;
    Result<void> startContainer(const QString &id,
                                const Docker::CallOptions &options = {}) const override;
    Result<void> stopContainer(const QString &id, std::optional<int> timeoutSeconds = {},
                               const Docker::CallOptions &options = {}) const override;
    Result<void> restartContainer(const QString &id, std::optional<int> timeoutSeconds = {},
                                  const Docker::CallOptions &options = {}) const override;
    Result<void> killContainer(const QString &id, const QString &signal = QStringLiteral("SIGKILL"),
                               const Docker::CallOptions &options = {}) const override;
    Result<void> removeContainer(const QString &id,
                                 const Docker::RemoveContainerOptions &remove = {},
                                 const Docker::CallOptions &options = {}) const override;
    Result<Docker::ContainerInfo>
    inspectContainer(const QString &id, const Docker::CallOptions &options = {}) const override;
    Result<QList<Docker::ContainerSummary>>
    listContainers(const Docker::ContainerListOptions &list = {},
                   const Docker::CallOptions &options = {}) const override;
    Result<Docker::ContainerLogs>
    containerLogs(const QString &id, const Docker::LogOptions &logs = {},
                  const Docker::CallOptions &options = {}) const override;
    Result<void> readLogs(const QString &id, const Docker::LogOptions &logs,
                          const std::function<bool(const Docker::LogFrame &)> &sink,
                          const Docker::CallOptions &options = {}) const override;
    Result<void> followLogs(const QString &id, const Docker::LogOptions &logs,
                            const std::function<bool(const Docker::LogFrame &)> &sink,
                            const Docker::CallOptions &options = {}) const override;
    Result<void> uploadFiles(const QString &id, const QString &path,
                             const Docker::TarArchiveBuilder &files,
                             const Docker::CallOptions &options = {}) const override;
    Result<QByteArray> readFile(const QString &id, const QString &path,
                                const Docker::CallOptions &options = {}) const override;
    Result<int> runExec(const QString &containerId, const Docker::ExecSpec &spec,
                        const std::function<bool(const Docker::LogFrame &)> &sink,
                        const Docker::CallOptions &options = {}) const override;
    Result<QString> createNetwork(const Docker::NetworkSpec &spec,
                                  const Docker::CallOptions &options = {}) const override;
    Result<Docker::NetworkInfo>
    inspectNetwork(const QString &idOrName, const Docker::CallOptions &options = {}) const override;
    Result<QList<Docker::NetworkInfo>>
    listNetworks(const QStringList &labels = {},
                 const Docker::CallOptions &options = {}) const override;
    Result<void> removeNetwork(const QString &idOrName,
                               const Docker::CallOptions &options = {}) const override;
    Result<void> disconnectNetwork(const QString &network, const QString &container, bool force,
                                   const Docker::CallOptions &options = {}) const override;
    Result<Docker::VolumeInfo> createVolume(const Docker::VolumeSpec &spec,
                                            const Docker::CallOptions &options = {}) const override;
    Result<Docker::VolumeInfo>
    inspectVolume(const QString &name, const Docker::CallOptions &options = {}) const override;
    Result<QList<Docker::VolumeInfo>>
    listVolumes(const QStringList &labels = {},
                const Docker::CallOptions &options = {}) const override;
    Result<void> removeVolume(const QString &name, bool force = false,
                              const Docker::CallOptions &options = {}) const override;
    Result<void> streamEvents(const Docker::EventFilter &filter, std::optional<qint64> sinceNano,
                              std::optional<qint64> untilNano, const EventSink &sink,
                              const Docker::CallOptions &options = {}) const override;

private:
    struct Network
    {
        Docker::NetworkSpec spec;
        QString id;
        QString created;
        QStringList staleEndpoints; // names
        int staleCount = 0;
    };
    // The common entry of every call: counts it, sleeps the delay, and applies down/hang/faults.
    Result<void> enter(const char *call, const Docker::CallOptions &options) const;
    Error notFound(const QString &what, const QString &id) const;
    Error conflict(const QString &message) const;
    // Under m_mutex.
    QString resolveContainer(const QString &idOrName) const;
    QString resolveNetwork(const QString &idOrName) const;
    Result<Docker::CreatedContainer> makeContainer(const Docker::ContainerSpec &spec) const;
    void makeLateCreates() const; // those whose time has come
    // Caller holds m_mutex: the networks of `spec` that no running container but `leaving` is on
    // begin their teardown on this node.
    void beginUnusedNetworksTeardown(const Docker::ContainerSpec &spec, const QString &leaving,
                                     int inspections) const;
    QString newId() const;
    void emitEvent(const QString &action, const Container &c) const;
    Docker::ContainerInfo infoOf(const Container &c) const;

    const QString m_name;
    const int m_ncpu;
    const qint64 m_memTotal;
    std::atomic<qint64> m_delayUs{0};
    mutable std::atomic_bool m_down{false}; // mutable: a scripted fault may take the host down
    std::atomic_bool m_hanging{false};
    std::atomic_bool m_allImages{true};
    std::atomic_int m_teardownInspects{0};
    std::atomic<qint64> m_createTimeMs{0};
    mutable std::atomic<qint64> m_simulatedNs{0};

    mutable std::mutex m_mutex; // guards everything below
    mutable std::condition_variable m_changed;
    std::atomic<qint64> m_streamPollMs{20};
    mutable qint64 m_nextId = 1;
    mutable int m_nextPort = 32768;
    mutable QHash<QString, int> m_calls;
    mutable QList<Fault> m_faults;                  // nth counts down as calls of that kind arrive
    mutable QHash<QString, Container> m_containers; // id → container
    mutable QHash<QString, QString> m_containerNames;     // name → id
    mutable QHash<QString, Network> m_networks;           // id → network
    mutable QHash<QString, Docker::VolumeInfo> m_volumes; // name → volume
    mutable QHash<QString, int> m_tearingDown;            // network id → inspections left
    struct LateCreate
    {
        Docker::ContainerSpec spec;
        std::chrono::steady_clock::time_point readyAt;
    };
    mutable QList<LateCreate> m_lateCreates; // creates the client gave up on, still under way
    mutable int m_stuckAttachments = 0;
    mutable QSet<QString> m_images;
    QString m_swarmCluster;
    bool m_swarmManager = false;
    mutable QList<Docker::DockerEvent> m_events; // for the streams
};

// Many fake hosts, installed into a HostRegistry as its host factory: every registered host
// whose name is known here answers from memory. Hosts are made on first use (fleet.host(name)
// before or after registering).
class FakeDockerFleet
{
public:
    std::shared_ptr<FakeDockerHost> host(const QString &name);
    QList<std::shared_ptr<FakeDockerHost>> hosts() const;
    // Registers `count` hosts "h1".."hN" (fake endpoints, no connection test) in `registry`
    // and installs the fleet as its host factory.
    // With `swarm`, every host is in one swarm and h1 is its manager (multi-node sessions).
    Result<void> install(HostRegistry &registry, int count, bool swarm = true);
    void setCallDelay(std::chrono::microseconds delay);
    std::chrono::nanoseconds simulatedTime() const;
    int containerCount() const;

private:
    mutable std::mutex m_mutex;
    QMap<QString, std::shared_ptr<FakeDockerHost>> m_hosts;
};

} // namespace ClusterDeck::TestSupport
