#pragma once

// Typed requests and responses of the Docker Engine API (v1.41 and compatible older versions).
// Plain values: building and decoding them lives in dockerjson.h, the calls in dockerclient.h.

#include "common/containerstatus.h"
#include "http/httptypes.h"

#include <QByteArray>
#include <QList>
#include <QMap>
#include <QMetaType>
#include <QString>
#include <QStringList>

#include <chrono>
#include <optional>

namespace ClusterDeck::Docker {

using Labels = QMap<QString, QString>;

// Options every call accepts: how long it may take and a token to abort it from another thread.
struct CallOptions
{
    std::chrono::milliseconds timeout{30000};
    CancelToken cancel;
};

// ---------------------------------------------------------------------------------------------
// System

struct PingInfo
{
    QString apiVersion; // "Api-Version" header: the daemon's highest API version
    QString osType;
    bool experimental = false;
    QString builderVersion;
};

struct VersionInfo
{
    QString version; // "20.10.24"
    QString apiVersion;
    QString minApiVersion;
    QString gitCommit;
    QString goVersion;
    QString os;
    QString arch;
    QString kernelVersion;
    QString platformName;
};

enum class SwarmLocalState { Inactive, Pending, Active, Error, Locked, Unknown };

struct SwarmNodeSummary
{
    SwarmLocalState localState = SwarmLocalState::Inactive;
    QString nodeId;
    QString nodeAddr;
    bool controlAvailable = false; // this node is a manager
    QString clusterId;
    int nodes = 0;
    int managers = 0;
    QString error;
    QStringList remoteManagers; // "addr" of each known manager
};

struct SystemInfo
{
    QString id;
    QString name;
    QString serverVersion;
    int ncpu = 0;
    qint64 memTotal = 0;
    QString operatingSystem;
    QString osType;
    QString kernelVersion;
    QString architecture;
    int containers = 0;
    int containersRunning = 0;
    int containersPaused = 0;
    int containersStopped = 0;
    int images = 0;
    QString driver;
    QString dockerRootDir;
    QString systemTime;
    QString defaultRuntime;
    QStringList runtimes;
    Labels labels; // daemon labels, "k=v" split
    SwarmNodeSummary swarm;
};

// ---------------------------------------------------------------------------------------------
// Images

struct ImageSummary
{
    QString id;
    QString parentId;
    QStringList repoTags;
    QStringList repoDigests;
    qint64 created = 0; // unix seconds
    qint64 size = 0;
    Labels labels;
};

// POST /images/create: what to pull and with which login.
struct ImagePullSpec
{
    QString fromImage;       // "registry.example:5000/team/train" (no tag)
    QString tag;             // "3" or a digest "sha256:…"; never empty (empty pulls every tag)
    QByteArray registryAuth; // X-Registry-Auth value; empty: anonymous
};

// POST /images/create?fromSrc=-: a root file system (an uncompressed tar) made an image.
struct ImageImportSpec
{
    QString repo;        // "clusterdeck/nethelper"
    QString tag;         // never empty
    QStringList changes; // Dockerfile instructions: "LABEL k=v", "CMD [\"/bin/sh\"]", "ENV K=V"
};

// DELETE /images/{name}: what the daemon untagged and deleted.
struct RemovedImage
{
    QStringList untagged;
    QStringList deleted;
};

// POST /auth: the daemon checked a login against a registry.
struct AuthCheck
{
    QString status;        // "Login Succeeded"
    QString identityToken; // some registries hand out a token to keep instead of the password
};

struct ImageInfo
{
    QString id;
    QStringList repoTags;
    QStringList repoDigests;
    QString created;
    QString architecture;
    QString os;
    qint64 size = 0;
    // Config
    QStringList env; // "K=V" in image order
    Labels labels;
    QStringList exposedPorts; // "8080/tcp"
    QStringList cmd;
    QStringList entrypoint;
    QString workingDir;
    QString user;
    QStringList volumes;

    // The image ENV as a map (the last definition of a name wins, as in Docker).
    QMap<QString, QString> envMap() const;
};

// ---------------------------------------------------------------------------------------------
// Containers

struct PortBinding
{
    int containerPort = 0;
    QString protocol = QStringLiteral("tcp");
    QString hostIp;   // empty: all interfaces
    int hostPort = 0; // 0: Docker chooses a free port
};

struct MountSpec
{
    enum class Type { Bind, Volume, Tmpfs };
    Type type = Type::Volume;
    QString source; // host path (bind) or volume name (volume); empty for tmpfs
    QString target;
    bool readOnly = false;
    // Volume mounts only: declare the volume on first use (e.g. an NFS-backed local volume).
    QString volumeDriver;
    QMap<QString, QString> volumeDriverOptions;
    Labels volumeLabels;
};

struct RestartPolicy
{
    QString name = QStringLiteral("no"); // "no", "always", "on-failure", "unless-stopped"
    int maximumRetryCount = 0;
};

// HostConfig.DeviceRequests (API >= 1.40), e.g. all GPUs: driver "nvidia", count -1, {{"gpu"}}.
struct DeviceRequest
{
    QString driver;
    int count = 0; // -1: all
    QStringList deviceIds;
    QList<QStringList> capabilities;
    QMap<QString, QString> options;
};

struct EndpointSpec
{
    QStringList aliases;
    QString ipv4Address;
};

struct ContainerSpec
{
    QString name; // empty: Docker picks one
    QString image;
    QString hostname;
    QString domainname;
    QStringList env; // "K=V"
    Labels labels;
    QStringList cmd;        // empty: the image's CMD
    QStringList entrypoint; // empty: the image's ENTRYPOINT
    QString workingDir;
    QString user;
    bool tty = false;
    bool openStdin = false;
    QString stopSignal;
    std::optional<int> stopTimeout;
    // HostConfig
    qint64 nanoCpus = 0; // 0: unlimited
    qint64 memory = 0;   // bytes, 0: unlimited
    qint64 shmSize = 0;
    QStringList binds; // "src:dst[:ro]"
    QList<MountSpec> mounts;
    QList<PortBinding> ports;
    bool publishAllPorts = false;
    QString networkMode;                   // "bridge", "host", "none" or a network name
    QMap<QString, EndpointSpec> endpoints; // network name → endpoint settings
    RestartPolicy restartPolicy;
    QList<DeviceRequest> deviceRequests;
    QStringList extraHosts; // "host:ip"
    QStringList capAdd;
    QStringList capDrop; // e.g. {"ALL"} with capAdd {"NET_ADMIN"}: that one capability only
    bool privileged = false;
    bool autoRemove = false;
    bool init = false;
};

struct CreatedContainer
{
    QString id;
    QStringList warnings;
};

struct ContainerState
{
    ContainerStatus status = ContainerStatus::None;
    bool running = false;
    bool paused = false;
    bool restarting = false;
    bool oomKilled = false;
    bool dead = false;
    int pid = 0;
    int exitCode = 0;
    QString error;
    QString startedAt;
    QString finishedAt;
    QString health; // "", "starting", "healthy", "unhealthy"
};

// One published port as read back from the daemon.
struct PortMapping
{
    int containerPort = 0;
    QString protocol;
    QString hostIp;
    int hostPort = 0; // 0: exposed but not published
};

struct EndpointInfo
{
    QString networkId;
    QString endpointId;
    QString ipAddress;
    int ipPrefixLen = 0;
    QString gateway;
    QString macAddress;
    QStringList aliases;
};

struct MountInfo
{
    QString type;
    QString name;
    QString source;
    QString destination;
    QString driver;
    bool rw = true;
};

struct ContainerInfo
{
    QString id;
    QString name;    // without the leading "/"
    QString image;   // Config.Image as given at create
    QString imageId; // "sha256:…"
    QString created;
    ContainerState state;
    int restartCount = 0;
    // Config
    QString hostname;
    QStringList env;
    Labels labels;
    QStringList cmd;
    QStringList entrypoint;
    QString workingDir;
    QString user;
    bool tty = false;
    // HostConfig
    QString networkMode;
    qint64 nanoCpus = 0;
    qint64 memory = 0;
    RestartPolicy restartPolicy;
    // NetworkSettings
    QList<PortMapping> ports;
    QMap<QString, EndpointInfo> networks;
    QList<MountInfo> mounts;

    // The first host port bound to containerPort/protocol, or 0.
    int hostPortFor(int containerPort, const QString &protocol = QStringLiteral("tcp")) const;
};

struct ContainerSummary
{
    QString id;
    QStringList names; // without the leading "/"
    QString image;
    QString imageId;
    QString command;
    qint64 created = 0;
    ContainerStatus state = ContainerStatus::None;
    QString status; // Docker's words: "Up 5 minutes", "Exited (0) 2 hours ago"
    Labels labels;
    QList<PortMapping> ports;
    QStringList networks;
};

struct ContainerListOptions
{
    bool all = true;                    // include stopped containers
    QStringList labels;                 // "k" or "k=v", all must match
    QMap<QString, QStringList> filters; // any other filter ("name", "status", "network"…)
};

struct RemoveContainerOptions
{
    bool force = false;
    bool volumes = false; // remove anonymous volumes too
};

struct LogOptions
{
    bool stdoutStream = true;
    bool stderrStream = true;
    bool timestamps = false;
    QString tail = QStringLiteral("all");
    qint64 since = 0; // unix seconds, 0: from the start
    // Logs of a TTY container are not multiplexed; unset: ask the daemon (one inspect).
    std::optional<bool> tty;
};

// One frame of the multiplexed stdout/stderr stream.
struct LogFrame
{
    enum class Stream { Stdin = 0, Stdout = 1, Stderr = 2 };
    Stream stream = Stream::Stdout;
    QByteArray data;

    bool operator==(const LogFrame &other) const = default;
};

// Collected in memory: at most the last kMaxBytes of each (a kernel writing without newlines
// would otherwise fill it with its whole log, whatever `tail` asked).
struct ContainerLogs
{
    static constexpr qsizetype kMaxBytes = 1024 * 1024;
    QList<LogFrame> frames; // the last frames, kMaxBytes in all
    QByteArray stdoutData;
    QByteArray stderrData;
    qint64 droppedBytes = 0; // older output not kept
};

// ---------------------------------------------------------------------------------------------
// Networks and volumes

struct IpamConfig
{
    QString subnet;
    QString ipRange;
    QString gateway;
};

struct NetworkSpec
{
    QString name;
    QString driver = QStringLiteral("bridge"); // "bridge" or "overlay"
    bool attachable = false;                   // overlay: standalone containers may join
    bool internal = false;
    bool enableIpv6 = false;
    bool checkDuplicate = true;
    Labels labels;
    QMap<QString, QString> options; // e.g. "com.docker.network.driver.mtu" = "1400"
    QList<IpamConfig> ipam;
};

struct NetworkContainer
{
    QString name;
    QString endpointId;
    QString macAddress;
    QString ipv4Address;
};

struct NetworkInfo
{
    QString id;
    QString name;
    QString driver;
    QString scope; // "local", "swarm"
    QString created;
    bool attachable = false;
    bool internal = false;
    bool ingress = false;
    bool enableIpv6 = false;
    Labels labels;
    QMap<QString, QString> options;
    QList<IpamConfig> ipam;
    QMap<QString, NetworkContainer> containers; // container id → endpoint
    // A swarm overlay as the node answering sees it: true while the node holds an instance of
    // it (its "Peers" are listed), false for the manager's cluster-wide view or a bridge.
    bool instantiatedHere = false;
    // Endpoints of containers on the answering node, without the swarm's load balancer
    // endpoint ("lb-<network>") that an overlay instance has of its own.
    bool hasContainerEndpoints() const
    {
        for (auto it = containers.cbegin(); it != containers.cend(); ++it) {
            if (!it.key().startsWith(QLatin1String("lb-")))
                return true;
        }
        return false;
    }
};

struct VolumeSpec
{
    QString name; // empty: Docker picks one
    QString driver = QStringLiteral("local");
    QMap<QString, QString> driverOptions; // local NFS: type=nfs, o=addr=…,rw, device=:/export
    Labels labels;
};

struct VolumeInfo
{
    QString name;
    QString driver;
    QString mountpoint;
    QString scope;
    QString createdAt;
    Labels labels;
    QMap<QString, QString> options;
};

// ---------------------------------------------------------------------------------------------
// Swarm

struct SwarmJoinTokens
{
    QString worker;
    QString manager;
};

struct SwarmInfo
{
    QString id;
    qint64 versionIndex = 0;
    QString createdAt;
    QString updatedAt;
    SwarmJoinTokens joinTokens;
    QStringList defaultAddrPool;
    int subnetSize = 0;
    int dataPathPort = 0;
};

struct SwarmInitSpec
{
    QString listenAddr = QStringLiteral("0.0.0.0:2377");
    QString advertiseAddr; // "192.168.213.11" or "192.168.213.11:2377"
    QString dataPathAddr;
    bool forceNewCluster = false;
    QStringList defaultAddrPool; // CIDRs for overlay subnets
    int subnetSize = 0;
};

struct SwarmJoinSpec
{
    QString listenAddr = QStringLiteral("0.0.0.0:2377");
    QString advertiseAddr;
    QString dataPathAddr;
    QStringList remoteAddrs; // managers, "192.168.213.11:2377"
    QString joinToken;
};

struct NodeInfo
{
    QString id;
    qint64 versionIndex = 0;
    QString hostname;
    QString role;         // "manager", "worker"
    QString availability; // "active", "pause", "drain"
    QString state;        // "ready", "down", "unknown", "disconnected"
    QString addr;
    QString message;
    Labels labels; // Spec.Labels (set by the admin)
    QString engineVersion;
    qint64 nanoCpus = 0;
    qint64 memoryBytes = 0;
    bool leader = false;
    QString managerReachability;
    QString managerAddr;
};

// ---------------------------------------------------------------------------------------------
// Events

struct DockerEvent
{
    QString type;   // "container", "network", "volume", "image", "node" …
    QString action; // "create", "start", "die", "destroy", "health_status: healthy" …
    QString actorId;
    QMap<QString, QString> attributes; // container labels, "name", "image", "exitCode" …
    QString scope;                     // "local", "swarm"
    qint64 time = 0;                   // unix seconds
    qint64 timeNano = 0;               // unix nanoseconds

    bool operator==(const DockerEvent &other) const = default;
};

struct EventFilter
{
    QStringList types;                  // "container", "network" …
    QStringList labels;                 // "k" or "k=v"
    QStringList events;                 // actions, "create", "die" …
    QMap<QString, QStringList> filters; // any other filter
};

} // namespace ClusterDeck::Docker

Q_DECLARE_METATYPE(ClusterDeck::Docker::DockerEvent)
