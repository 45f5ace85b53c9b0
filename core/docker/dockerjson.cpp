#include "dockerjson.h"

#include <QDateTime>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QJsonParseError>
#include <QJsonValue>

#include <algorithm>

namespace ClusterDeck::Docker::Json {

namespace {

std::unexpected<Error> decodeError(const QString &message)
{
    return fail(Error::Kind::Decode, QString(), message);
}

QString snippet(const QByteArray &body)
{
    constexpr qsizetype kMax = 120;
    QString text = QString::fromUtf8(body.left(kMax)).simplified();
    if (body.size() > kMax)
        text += QStringLiteral("…");
    return text.isEmpty() ? QStringLiteral("(empty body)") : u'"' + text + u'"';
}

Result<QJsonDocument> parseDocument(const QByteArray &body, const char *what)
{
    QJsonParseError error;
    const QJsonDocument doc = QJsonDocument::fromJson(body, &error);
    if (error.error != QJsonParseError::NoError) {
        return decodeError(QStringLiteral("cannot decode %1: %2 at offset %3 in %4")
                               .arg(QLatin1String(what), error.errorString())
                               .arg(error.offset)
                               .arg(snippet(body)));
    }
    return doc;
}

Result<QJsonObject> parseObject(const QByteArray &body, const char *what)
{
    auto doc = parseDocument(body, what);
    if (!doc)
        return fail(doc.error());
    if (!doc->isObject())
        return decodeError(QStringLiteral("cannot decode %1: expected a JSON object, got %2")
                               .arg(QLatin1String(what), snippet(body)));
    return doc->object();
}

// Lists may come back as `null` when empty (Docker's Go encoder does that for nil slices).
Result<QJsonArray> parseArray(const QByteArray &body, const char *what)
{
    if (body.trimmed() == "null") // QJsonDocument rejects a top-level scalar
        return QJsonArray();
    auto doc = parseDocument(body, what);
    if (!doc)
        return fail(doc.error());
    if (doc->isNull())
        return QJsonArray();
    if (!doc->isArray())
        return decodeError(QStringLiteral("cannot decode %1: expected a JSON array, got %2")
                               .arg(QLatin1String(what), snippet(body)));
    return doc->array();
}

QString str(const QJsonObject &o, QLatin1String key)
{
    return o.value(key).toString();
}

qint64 num(const QJsonObject &o, QLatin1String key)
{
    const QJsonValue v = o.value(key);
    if (v.isString()) // a few fields (HostPort) are numbers in strings
        return v.toString().toLongLong();
    return v.toInteger(qint64(v.toDouble()));
}

QStringList strList(const QJsonValue &v)
{
    QStringList out;
    if (v.isString()) { // Cmd/Entrypoint of very old images may be a plain string
        out.append(v.toString());
        return out;
    }
    const QJsonArray array = v.toArray();
    out.reserve(array.size());
    for (const QJsonValue &item : array)
        out.append(item.toString());
    return out;
}

QMap<QString, QString> strMap(const QJsonValue &v)
{
    QMap<QString, QString> out;
    const QJsonObject o = v.toObject();
    for (auto it = o.begin(); it != o.end(); ++it)
        out.insert(it.key(), it.value().toString());
    return out;
}

// Daemon labels in /info come as ["k=v", …].
QMap<QString, QString> keyValueList(const QJsonValue &v)
{
    QMap<QString, QString> out;
    for (const QString &item : strList(v)) {
        const qsizetype eq = item.indexOf(u'=');
        if (eq < 0)
            out.insert(item, QString());
        else
            out.insert(item.left(eq), item.mid(eq + 1));
    }
    return out;
}

QJsonObject toObject(const QMap<QString, QString> &map)
{
    QJsonObject o;
    for (auto it = map.begin(); it != map.end(); ++it)
        o.insert(it.key(), it.value());
    return o;
}

QJsonArray toArray(const QStringList &list)
{
    return QJsonArray::fromStringList(list);
}

QString stripSlash(QString name)
{
    if (name.startsWith(u'/'))
        name.remove(0, 1);
    return name;
}

// "8080/tcp" → (8080, "tcp")
std::pair<int, QString> splitPort(const QString &key)
{
    const qsizetype slash = key.indexOf(u'/');
    if (slash < 0)
        return {key.toInt(), QStringLiteral("tcp")};
    return {key.left(slash).toInt(), key.mid(slash + 1)};
}

SwarmLocalState swarmState(const QString &s)
{
    if (s == QLatin1String("inactive") || s.isEmpty())
        return SwarmLocalState::Inactive;
    if (s == QLatin1String("pending"))
        return SwarmLocalState::Pending;
    if (s == QLatin1String("active"))
        return SwarmLocalState::Active;
    if (s == QLatin1String("error"))
        return SwarmLocalState::Error;
    if (s == QLatin1String("locked"))
        return SwarmLocalState::Locked;
    return SwarmLocalState::Unknown;
}

QList<IpamConfig> ipamConfigs(const QJsonValue &v)
{
    QList<IpamConfig> out;
    for (const QJsonValue &item : v.toArray()) {
        const QJsonObject c = item.toObject();
        out.append({str(c, QLatin1String("Subnet")), str(c, QLatin1String("IPRange")),
                    str(c, QLatin1String("Gateway"))});
    }
    return out;
}

Result<QString> requireId(const QJsonObject &o, QLatin1String key, const char *what)
{
    const QString id = str(o, key);
    if (id.isEmpty())
        return decodeError(
            QStringLiteral("cannot decode %1: missing \"%2\"").arg(QLatin1String(what), key));
    return id;
}

template<typename T, typename F>
Result<QList<T>> decodeEach(const QJsonArray &array, const char *what, F decodeOne)
{
    QList<T> out;
    out.reserve(array.size());
    for (qsizetype i = 0; i < array.size(); ++i) {
        if (!array.at(i).isObject())
            return decodeError(QStringLiteral("cannot decode %1: item %2 is not an object")
                                   .arg(QLatin1String(what))
                                   .arg(i));
        auto item = decodeOne(array.at(i).toObject());
        if (!item)
            return fail(item.error().withContext(QStringLiteral("item %1").arg(i)));
        out.append(std::move(*item));
    }
    return out;
}

Result<ImageSummary> imageSummary(const QJsonObject &o)
{
    auto id = requireId(o, QLatin1String("Id"), "image");
    if (!id)
        return fail(id.error());
    ImageSummary image;
    image.id = *id;
    image.parentId = str(o, QLatin1String("ParentId"));
    image.repoTags = strList(o.value(QLatin1String("RepoTags")));
    image.repoDigests = strList(o.value(QLatin1String("RepoDigests")));
    image.created = num(o, QLatin1String("Created"));
    image.size = num(o, QLatin1String("Size"));
    image.labels = strMap(o.value(QLatin1String("Labels")));
    return image;
}

Result<ContainerSummary> containerSummary(const QJsonObject &o)
{
    auto id = requireId(o, QLatin1String("Id"), "container");
    if (!id)
        return fail(id.error());
    ContainerSummary c;
    c.id = *id;
    for (const QString &name : strList(o.value(QLatin1String("Names"))))
        c.names.append(stripSlash(name));
    c.image = str(o, QLatin1String("Image"));
    c.imageId = str(o, QLatin1String("ImageID"));
    c.command = str(o, QLatin1String("Command"));
    c.created = num(o, QLatin1String("Created"));
    c.state = parseContainerStatus(str(o, QLatin1String("State")));
    c.status = str(o, QLatin1String("Status"));
    c.labels = strMap(o.value(QLatin1String("Labels")));
    for (const QJsonValue &p : o.value(QLatin1String("Ports")).toArray()) {
        const QJsonObject port = p.toObject();
        c.ports.append({int(num(port, QLatin1String("PrivatePort"))),
                        str(port, QLatin1String("Type")), str(port, QLatin1String("IP")),
                        int(num(port, QLatin1String("PublicPort")))});
    }
    const QJsonObject networks = o.value(QLatin1String("NetworkSettings"))
                                     .toObject()
                                     .value(QLatin1String("Networks"))
                                     .toObject();
    c.networks = networks.keys();
    return c;
}

Result<NetworkInfo> networkInfo(const QJsonObject &o)
{
    auto id = requireId(o, QLatin1String("Id"), "network");
    if (!id)
        return fail(id.error());
    NetworkInfo n;
    n.id = *id;
    n.name = str(o, QLatin1String("Name"));
    n.driver = str(o, QLatin1String("Driver"));
    n.scope = str(o, QLatin1String("Scope"));
    n.created = str(o, QLatin1String("Created"));
    n.attachable = o.value(QLatin1String("Attachable")).toBool();
    n.internal = o.value(QLatin1String("Internal")).toBool();
    n.ingress = o.value(QLatin1String("Ingress")).toBool();
    n.enableIpv6 = o.value(QLatin1String("EnableIPv6")).toBool();
    n.labels = strMap(o.value(QLatin1String("Labels")));
    n.options = strMap(o.value(QLatin1String("Options")));
    n.ipam = ipamConfigs(o.value(QLatin1String("IPAM")).toObject().value(QLatin1String("Config")));
    n.instantiatedHere = o.contains(QLatin1String("Peers"));
    const QJsonObject containers = o.value(QLatin1String("Containers")).toObject();
    for (auto it = containers.begin(); it != containers.end(); ++it) {
        const QJsonObject c = it.value().toObject();
        n.containers.insert(
            it.key(), {str(c, QLatin1String("Name")), str(c, QLatin1String("EndpointID")),
                       str(c, QLatin1String("MacAddress")), str(c, QLatin1String("IPv4Address"))});
    }
    return n;
}

Result<VolumeInfo> volumeInfo(const QJsonObject &o)
{
    auto name = requireId(o, QLatin1String("Name"), "volume");
    if (!name)
        return fail(name.error());
    VolumeInfo v;
    v.name = *name;
    v.driver = str(o, QLatin1String("Driver"));
    v.mountpoint = str(o, QLatin1String("Mountpoint"));
    v.scope = str(o, QLatin1String("Scope"));
    v.createdAt = str(o, QLatin1String("CreatedAt"));
    v.labels = strMap(o.value(QLatin1String("Labels")));
    v.options = strMap(o.value(QLatin1String("Options")));
    return v;
}

Result<NodeInfo> nodeInfo(const QJsonObject &o)
{
    auto id = requireId(o, QLatin1String("ID"), "node");
    if (!id)
        return fail(id.error());
    NodeInfo n;
    n.id = *id;
    n.versionIndex = num(o.value(QLatin1String("Version")).toObject(), QLatin1String("Index"));
    const QJsonObject spec = o.value(QLatin1String("Spec")).toObject();
    n.role = str(spec, QLatin1String("Role"));
    n.availability = str(spec, QLatin1String("Availability"));
    n.labels = strMap(spec.value(QLatin1String("Labels")));
    const QJsonObject description = o.value(QLatin1String("Description")).toObject();
    n.hostname = str(description, QLatin1String("Hostname"));
    const QJsonObject resources = description.value(QLatin1String("Resources")).toObject();
    n.nanoCpus = num(resources, QLatin1String("NanoCPUs"));
    n.memoryBytes = num(resources, QLatin1String("MemoryBytes"));
    n.engineVersion =
        str(description.value(QLatin1String("Engine")).toObject(), QLatin1String("EngineVersion"));
    const QJsonObject status = o.value(QLatin1String("Status")).toObject();
    n.state = str(status, QLatin1String("State"));
    n.addr = str(status, QLatin1String("Addr"));
    n.message = str(status, QLatin1String("Message"));
    const QJsonObject manager = o.value(QLatin1String("ManagerStatus")).toObject();
    n.leader = manager.value(QLatin1String("Leader")).toBool();
    n.managerReachability = str(manager, QLatin1String("Reachability"));
    n.managerAddr = str(manager, QLatin1String("Addr"));
    return n;
}

} // namespace

Result<VersionInfo> decodeVersion(const QByteArray &body)
{
    auto o = parseObject(body, "version");
    if (!o)
        return fail(o.error());
    VersionInfo v;
    v.version = str(*o, QLatin1String("Version"));
    v.apiVersion = str(*o, QLatin1String("ApiVersion"));
    v.minApiVersion = str(*o, QLatin1String("MinAPIVersion"));
    v.gitCommit = str(*o, QLatin1String("GitCommit"));
    v.goVersion = str(*o, QLatin1String("GoVersion"));
    v.os = str(*o, QLatin1String("Os"));
    v.arch = str(*o, QLatin1String("Arch"));
    v.kernelVersion = str(*o, QLatin1String("KernelVersion"));
    v.platformName = str(o->value(QLatin1String("Platform")).toObject(), QLatin1String("Name"));
    if (v.apiVersion.isEmpty())
        return decodeError(QStringLiteral("cannot decode version: missing \"ApiVersion\""));
    return v;
}

Result<SystemInfo> decodeSystemInfo(const QByteArray &body)
{
    auto o = parseObject(body, "system info");
    if (!o)
        return fail(o.error());
    SystemInfo info;
    info.id = str(*o, QLatin1String("ID"));
    info.name = str(*o, QLatin1String("Name"));
    info.serverVersion = str(*o, QLatin1String("ServerVersion"));
    info.ncpu = int(num(*o, QLatin1String("NCPU")));
    info.memTotal = num(*o, QLatin1String("MemTotal"));
    info.operatingSystem = str(*o, QLatin1String("OperatingSystem"));
    info.osType = str(*o, QLatin1String("OSType"));
    info.kernelVersion = str(*o, QLatin1String("KernelVersion"));
    info.architecture = str(*o, QLatin1String("Architecture"));
    info.containers = int(num(*o, QLatin1String("Containers")));
    info.containersRunning = int(num(*o, QLatin1String("ContainersRunning")));
    info.containersPaused = int(num(*o, QLatin1String("ContainersPaused")));
    info.containersStopped = int(num(*o, QLatin1String("ContainersStopped")));
    info.images = int(num(*o, QLatin1String("Images")));
    info.driver = str(*o, QLatin1String("Driver"));
    info.dockerRootDir = str(*o, QLatin1String("DockerRootDir"));
    info.systemTime = str(*o, QLatin1String("SystemTime"));
    info.defaultRuntime = str(*o, QLatin1String("DefaultRuntime"));
    info.runtimes = o->value(QLatin1String("Runtimes")).toObject().keys();
    info.labels = keyValueList(o->value(QLatin1String("Labels")));

    const QJsonObject swarm = o->value(QLatin1String("Swarm")).toObject();
    info.swarm.localState = swarmState(str(swarm, QLatin1String("LocalNodeState")));
    info.swarm.nodeId = str(swarm, QLatin1String("NodeID"));
    info.swarm.nodeAddr = str(swarm, QLatin1String("NodeAddr"));
    info.swarm.controlAvailable = swarm.value(QLatin1String("ControlAvailable")).toBool();
    info.swarm.error = str(swarm, QLatin1String("Error"));
    info.swarm.nodes = int(num(swarm, QLatin1String("Nodes")));
    info.swarm.managers = int(num(swarm, QLatin1String("Managers")));
    info.swarm.clusterId =
        str(swarm.value(QLatin1String("Cluster")).toObject(), QLatin1String("ID"));
    for (const QJsonValue &m : swarm.value(QLatin1String("RemoteManagers")).toArray())
        info.swarm.remoteManagers.append(str(m.toObject(), QLatin1String("Addr")));

    if (info.serverVersion.isEmpty() && info.id.isEmpty())
        return decodeError(QStringLiteral("cannot decode system info: neither \"ID\" nor "
                                          "\"ServerVersion\" present"));
    return info;
}

Result<QList<ImageSummary>> decodeImageList(const QByteArray &body)
{
    auto array = parseArray(body, "image list");
    if (!array)
        return fail(array.error());
    return decodeEach<ImageSummary>(*array, "image list", imageSummary);
}

Result<ImageInfo> decodeImageInfo(const QByteArray &body)
{
    auto o = parseObject(body, "image");
    if (!o)
        return fail(o.error());
    auto id = requireId(*o, QLatin1String("Id"), "image");
    if (!id)
        return fail(id.error());
    ImageInfo image;
    image.id = *id;
    image.repoTags = strList(o->value(QLatin1String("RepoTags")));
    image.repoDigests = strList(o->value(QLatin1String("RepoDigests")));
    image.created = str(*o, QLatin1String("Created"));
    image.architecture = str(*o, QLatin1String("Architecture"));
    image.os = str(*o, QLatin1String("Os"));
    image.size = num(*o, QLatin1String("Size"));
    const QJsonObject config = o->value(QLatin1String("Config")).toObject();
    image.env = strList(config.value(QLatin1String("Env")));
    image.labels = strMap(config.value(QLatin1String("Labels")));
    image.exposedPorts = config.value(QLatin1String("ExposedPorts")).toObject().keys();
    image.cmd = strList(config.value(QLatin1String("Cmd")));
    image.entrypoint = strList(config.value(QLatin1String("Entrypoint")));
    image.workingDir = str(config, QLatin1String("WorkingDir"));
    image.user = str(config, QLatin1String("User"));
    image.volumes = config.value(QLatin1String("Volumes")).toObject().keys();
    return image;
}

Result<RemovedImage> decodeRemovedImage(const QByteArray &body)
{
    auto array = parseArray(body, "removed image");
    if (!array)
        return fail(array.error());
    RemovedImage removed;
    for (const QJsonValue &v : std::as_const(*array)) {
        const QJsonObject o = v.toObject();
        if (const QString u = str(o, QLatin1String("Untagged")); !u.isEmpty())
            removed.untagged.append(u);
        if (const QString d = str(o, QLatin1String("Deleted")); !d.isEmpty())
            removed.deleted.append(d);
    }
    return removed;
}

Result<QString> decodeImportedImage(const QByteArray &body)
{
    QString id;
    for (const QByteArray &line : body.split('\n')) {
        if (line.trimmed().isEmpty())
            continue;
        auto o = parseObject(line, "image import progress");
        if (!o)
            return fail(o.error());
        const QString error = o->value(QLatin1String("errorDetail"))
                                  .toObject()
                                  .value(QLatin1String("message"))
                                  .toString(str(*o, QLatin1String("error")));
        if (!error.isEmpty())
            return fail(Error::Kind::Http, QString(), error);
        if (const QString status = str(*o, QLatin1String("status"));
            status.startsWith(QLatin1String("sha256:")))
            id = status;
    }
    if (id.isEmpty())
        return decodeError(QStringLiteral("cannot decode image import progress: no image id in "
                                          "\"%1\"")
                               .arg(QString::fromUtf8(body.left(200))));
    return id;
}

Result<CreatedContainer> decodeCreatedContainer(const QByteArray &body)
{
    auto o = parseObject(body, "created container");
    if (!o)
        return fail(o.error());
    auto id = requireId(*o, QLatin1String("Id"), "created container");
    if (!id)
        return fail(id.error());
    return CreatedContainer{*id, strList(o->value(QLatin1String("Warnings")))};
}

Result<ContainerInfo> decodeContainerInfo(const QByteArray &body)
{
    auto o = parseObject(body, "container");
    if (!o)
        return fail(o.error());
    auto id = requireId(*o, QLatin1String("Id"), "container");
    if (!id)
        return fail(id.error());
    ContainerInfo c;
    c.id = *id;
    c.name = stripSlash(str(*o, QLatin1String("Name")));
    c.imageId = str(*o, QLatin1String("Image"));
    c.created = str(*o, QLatin1String("Created"));
    c.restartCount = int(num(*o, QLatin1String("RestartCount")));

    const QJsonObject state = o->value(QLatin1String("State")).toObject();
    c.state.status = parseContainerStatus(str(state, QLatin1String("Status")));
    c.state.running = state.value(QLatin1String("Running")).toBool();
    c.state.paused = state.value(QLatin1String("Paused")).toBool();
    c.state.restarting = state.value(QLatin1String("Restarting")).toBool();
    c.state.oomKilled = state.value(QLatin1String("OOMKilled")).toBool();
    c.state.dead = state.value(QLatin1String("Dead")).toBool();
    c.state.pid = int(num(state, QLatin1String("Pid")));
    c.state.exitCode = int(num(state, QLatin1String("ExitCode")));
    c.state.error = str(state, QLatin1String("Error"));
    c.state.startedAt = str(state, QLatin1String("StartedAt"));
    c.state.finishedAt = str(state, QLatin1String("FinishedAt"));
    c.state.health = str(state.value(QLatin1String("Health")).toObject(), QLatin1String("Status"));

    const QJsonObject config = o->value(QLatin1String("Config")).toObject();
    c.image = str(config, QLatin1String("Image"));
    c.hostname = str(config, QLatin1String("Hostname"));
    c.env = strList(config.value(QLatin1String("Env")));
    c.labels = strMap(config.value(QLatin1String("Labels")));
    c.cmd = strList(config.value(QLatin1String("Cmd")));
    c.entrypoint = strList(config.value(QLatin1String("Entrypoint")));
    c.workingDir = str(config, QLatin1String("WorkingDir"));
    c.user = str(config, QLatin1String("User"));
    c.tty = config.value(QLatin1String("Tty")).toBool();

    const QJsonObject host = o->value(QLatin1String("HostConfig")).toObject();
    c.networkMode = str(host, QLatin1String("NetworkMode"));
    c.nanoCpus = num(host, QLatin1String("NanoCpus"));
    c.memory = num(host, QLatin1String("Memory"));
    const QJsonObject restart = host.value(QLatin1String("RestartPolicy")).toObject();
    c.restartPolicy.name = str(restart, QLatin1String("Name"));
    c.restartPolicy.maximumRetryCount = int(num(restart, QLatin1String("MaximumRetryCount")));

    const QJsonObject settings = o->value(QLatin1String("NetworkSettings")).toObject();
    const QJsonObject ports = settings.value(QLatin1String("Ports")).toObject();
    for (auto it = ports.begin(); it != ports.end(); ++it) {
        const auto [port, protocol] = splitPort(it.key());
        const QJsonArray bindings = it.value().toArray(); // null: exposed, not published
        if (bindings.isEmpty())
            c.ports.append({port, protocol, QString(), 0});
        for (const QJsonValue &b : bindings) {
            const QJsonObject binding = b.toObject();
            c.ports.append({port, protocol, str(binding, QLatin1String("HostIp")),
                            int(num(binding, QLatin1String("HostPort")))});
        }
    }
    std::stable_sort(
        c.ports.begin(), c.ports.end(), [](const PortMapping &a, const PortMapping &b) {
            return std::tie(a.containerPort, a.protocol) < std::tie(b.containerPort, b.protocol);
        });
    const QJsonObject networks = settings.value(QLatin1String("Networks")).toObject();
    for (auto it = networks.begin(); it != networks.end(); ++it) {
        const QJsonObject n = it.value().toObject();
        EndpointInfo e;
        e.networkId = str(n, QLatin1String("NetworkID"));
        e.endpointId = str(n, QLatin1String("EndpointID"));
        e.ipAddress = str(n, QLatin1String("IPAddress"));
        e.ipPrefixLen = int(num(n, QLatin1String("IPPrefixLen")));
        e.gateway = str(n, QLatin1String("Gateway"));
        e.macAddress = str(n, QLatin1String("MacAddress"));
        e.aliases = strList(n.value(QLatin1String("Aliases")));
        c.networks.insert(it.key(), e);
    }
    for (const QJsonValue &m : o->value(QLatin1String("Mounts")).toArray()) {
        const QJsonObject mount = m.toObject();
        c.mounts.append(
            {str(mount, QLatin1String("Type")), str(mount, QLatin1String("Name")),
             str(mount, QLatin1String("Source")), str(mount, QLatin1String("Destination")),
             str(mount, QLatin1String("Driver")), mount.value(QLatin1String("RW")).toBool(true)});
    }
    return c;
}

Result<QList<ContainerSummary>> decodeContainerList(const QByteArray &body)
{
    auto array = parseArray(body, "container list");
    if (!array)
        return fail(array.error());
    return decodeEach<ContainerSummary>(*array, "container list", containerSummary);
}

Result<QString> decodeCreatedNetworkId(const QByteArray &body)
{
    auto o = parseObject(body, "created network");
    if (!o)
        return fail(o.error());
    return requireId(*o, QLatin1String("Id"), "created network");
}

Result<NetworkInfo> decodeNetworkInfo(const QByteArray &body)
{
    auto o = parseObject(body, "network");
    if (!o)
        return fail(o.error());
    return networkInfo(*o);
}

Result<QList<NetworkInfo>> decodeNetworkList(const QByteArray &body)
{
    auto array = parseArray(body, "network list");
    if (!array)
        return fail(array.error());
    return decodeEach<NetworkInfo>(*array, "network list", networkInfo);
}

Result<VolumeInfo> decodeVolumeInfo(const QByteArray &body)
{
    auto o = parseObject(body, "volume");
    if (!o)
        return fail(o.error());
    return volumeInfo(*o);
}

Result<QList<VolumeInfo>> decodeVolumeList(const QByteArray &body)
{
    auto o = parseObject(body, "volume list");
    if (!o)
        return fail(o.error());
    const QJsonValue volumes = o->value(QLatin1String("Volumes"));
    if (!volumes.isArray() && !volumes.isNull() && !volumes.isUndefined())
        return decodeError(QStringLiteral("cannot decode volume list: \"Volumes\" is not a list"));
    return decodeEach<VolumeInfo>(volumes.toArray(), "volume list", volumeInfo);
}

Result<SwarmInfo> decodeSwarmInfo(const QByteArray &body)
{
    auto o = parseObject(body, "swarm");
    if (!o)
        return fail(o.error());
    auto id = requireId(*o, QLatin1String("ID"), "swarm");
    if (!id)
        return fail(id.error());
    SwarmInfo s;
    s.id = *id;
    s.versionIndex = num(o->value(QLatin1String("Version")).toObject(), QLatin1String("Index"));
    s.createdAt = str(*o, QLatin1String("CreatedAt"));
    s.updatedAt = str(*o, QLatin1String("UpdatedAt"));
    const QJsonObject tokens = o->value(QLatin1String("JoinTokens")).toObject();
    s.joinTokens.worker = str(tokens, QLatin1String("Worker"));
    s.joinTokens.manager = str(tokens, QLatin1String("Manager"));
    s.defaultAddrPool = strList(o->value(QLatin1String("DefaultAddrPool")));
    s.subnetSize = int(num(*o, QLatin1String("SubnetSize")));
    s.dataPathPort = int(num(*o, QLatin1String("DataPathPort")));
    return s;
}

Result<QString> decodeSwarmInitNodeId(const QByteArray &body)
{
    // A bare JSON string is not a document for QJsonDocument: wrap it in an array.
    auto array = parseArray(QByteArray('[' + body.trimmed() + ']'), "swarm init response");
    if (!array)
        return fail(array.error());
    if (array->size() != 1 || !array->at(0).isString() || array->at(0).toString().isEmpty())
        return decodeError(QStringLiteral("cannot decode swarm init response: expected the node "
                                          "id as a JSON string, got %1")
                               .arg(snippet(body)));
    return array->at(0).toString();
}

Result<NodeInfo> decodeNodeInfo(const QByteArray &body)
{
    auto o = parseObject(body, "node");
    if (!o)
        return fail(o.error());
    return nodeInfo(*o);
}

Result<QList<NodeInfo>> decodeNodeList(const QByteArray &body)
{
    auto array = parseArray(body, "node list");
    if (!array)
        return fail(array.error());
    return decodeEach<NodeInfo>(*array, "node list", nodeInfo);
}

Result<DockerEvent> decodeEvent(const QByteArray &line)
{
    auto o = parseObject(line, "event");
    if (!o)
        return fail(o.error());
    DockerEvent e;
    e.type = str(*o, QLatin1String("Type"));
    e.action = str(*o, QLatin1String("Action"));
    const QJsonObject actor = o->value(QLatin1String("Actor")).toObject();
    e.actorId = str(actor, QLatin1String("ID"));
    e.attributes = strMap(actor.value(QLatin1String("Attributes")));
    e.scope = str(*o, QLatin1String("scope"));
    e.time = num(*o, QLatin1String("time"));
    e.timeNano = num(*o, QLatin1String("timeNano"));
    // Pre-1.22 daemons only sent status/id/from; keep working with what is there.
    if (e.action.isEmpty())
        e.action = str(*o, QLatin1String("status"));
    if (e.actorId.isEmpty())
        e.actorId = str(*o, QLatin1String("id"));
    if (e.type.isEmpty() && !e.actorId.isEmpty())
        e.type = QStringLiteral("container");
    if (e.timeNano == 0)
        e.timeNano = e.time * 1000000000LL;
    if (e.action.isEmpty() || e.timeNano == 0)
        return decodeError(
            QStringLiteral("cannot decode event: missing \"Action\" or \"time\" in %1")
                .arg(snippet(line)));
    return e;
}

QString decodeErrorMessage(const QByteArray &body)
{
    QJsonParseError error;
    const QJsonDocument doc = QJsonDocument::fromJson(body, &error);
    if (error.error == QJsonParseError::NoError && doc.isObject()) {
        const QString message = doc.object().value(QLatin1String("message")).toString();
        if (!message.isEmpty())
            return message;
    }
    return QString::fromUtf8(body).trimmed();
}

Result<QByteArray> encodeContainerSpec(const ContainerSpec &spec, const QString &apiVersion)
{
    if (spec.image.isEmpty())
        return fail(Error::Kind::Invalid, QString(), QStringLiteral("container spec has no image"));
    if (!spec.deviceRequests.isEmpty() &&
        compareApiVersions(apiVersion, QStringLiteral("1.40")) < 0)
        return fail(Error::Kind::Invalid, QString(),
                    QStringLiteral("device requests (GPUs) need API 1.40, the daemon speaks %1")
                        .arg(apiVersion));

    QJsonObject body;
    body.insert(QLatin1String("Image"), spec.image);
    if (!spec.hostname.isEmpty())
        body.insert(QLatin1String("Hostname"), spec.hostname);
    if (!spec.domainname.isEmpty())
        body.insert(QLatin1String("Domainname"), spec.domainname);
    if (!spec.user.isEmpty())
        body.insert(QLatin1String("User"), spec.user);
    if (!spec.env.isEmpty())
        body.insert(QLatin1String("Env"), toArray(spec.env));
    if (!spec.cmd.isEmpty())
        body.insert(QLatin1String("Cmd"), toArray(spec.cmd));
    if (!spec.entrypoint.isEmpty())
        body.insert(QLatin1String("Entrypoint"), toArray(spec.entrypoint));
    if (!spec.workingDir.isEmpty())
        body.insert(QLatin1String("WorkingDir"), spec.workingDir);
    body.insert(QLatin1String("Labels"), toObject(spec.labels));
    body.insert(QLatin1String("Tty"), spec.tty);
    body.insert(QLatin1String("OpenStdin"), spec.openStdin);
    body.insert(QLatin1String("AttachStdout"), false);
    body.insert(QLatin1String("AttachStderr"), false);
    if (!spec.stopSignal.isEmpty())
        body.insert(QLatin1String("StopSignal"), spec.stopSignal);
    if (spec.stopTimeout)
        body.insert(QLatin1String("StopTimeout"), *spec.stopTimeout);

    QJsonObject host;
    if (spec.nanoCpus > 0)
        host.insert(QLatin1String("NanoCpus"), spec.nanoCpus);
    if (spec.memory > 0)
        host.insert(QLatin1String("Memory"), spec.memory);
    if (spec.shmSize > 0)
        host.insert(QLatin1String("ShmSize"), spec.shmSize);
    if (!spec.binds.isEmpty())
        host.insert(QLatin1String("Binds"), toArray(spec.binds));
    if (!spec.mounts.isEmpty()) {
        QJsonArray mounts;
        for (const MountSpec &m : spec.mounts) {
            QJsonObject mount;
            switch (m.type) {
            case MountSpec::Type::Bind:
                mount.insert(QLatin1String("Type"), QStringLiteral("bind"));
                break;
            case MountSpec::Type::Volume:
                mount.insert(QLatin1String("Type"), QStringLiteral("volume"));
                break;
            case MountSpec::Type::Tmpfs:
                mount.insert(QLatin1String("Type"), QStringLiteral("tmpfs"));
                break;
            }
            if (!m.source.isEmpty())
                mount.insert(QLatin1String("Source"), m.source);
            mount.insert(QLatin1String("Target"), m.target);
            mount.insert(QLatin1String("ReadOnly"), m.readOnly);
            if (m.type == MountSpec::Type::Volume &&
                (!m.volumeDriver.isEmpty() || !m.volumeDriverOptions.isEmpty() ||
                 !m.volumeLabels.isEmpty())) {
                QJsonObject options;
                QJsonObject driver;
                driver.insert(QLatin1String("Name"),
                              m.volumeDriver.isEmpty() ? QStringLiteral("local") : m.volumeDriver);
                driver.insert(QLatin1String("Options"), toObject(m.volumeDriverOptions));
                options.insert(QLatin1String("DriverConfig"), driver);
                if (!m.volumeLabels.isEmpty())
                    options.insert(QLatin1String("Labels"), toObject(m.volumeLabels));
                mount.insert(QLatin1String("VolumeOptions"), options);
            }
            mounts.append(mount);
        }
        host.insert(QLatin1String("Mounts"), mounts);
    }
    if (!spec.ports.isEmpty()) {
        QJsonObject exposed;
        QJsonObject bindings;
        for (const PortBinding &p : spec.ports) {
            if (p.containerPort <= 0 || p.containerPort > 65535)
                return fail(Error::Kind::Invalid, QString(),
                            QStringLiteral("invalid container port %1").arg(p.containerPort));
            const QString key = QStringLiteral("%1/%2")
                                    .arg(p.containerPort)
                                    .arg(p.protocol.isEmpty() ? QStringLiteral("tcp") : p.protocol);
            exposed.insert(key, QJsonObject());
            QJsonArray list = bindings.value(key).toArray();
            QJsonObject binding;
            binding.insert(QLatin1String("HostIp"), p.hostIp);
            // An empty HostPort lets Docker choose a free port.
            binding.insert(QLatin1String("HostPort"),
                           p.hostPort > 0 ? QString::number(p.hostPort) : QString());
            list.append(binding);
            bindings.insert(key, list);
        }
        body.insert(QLatin1String("ExposedPorts"), exposed);
        host.insert(QLatin1String("PortBindings"), bindings);
    }
    if (spec.publishAllPorts)
        host.insert(QLatin1String("PublishAllPorts"), true);
    if (!spec.networkMode.isEmpty())
        host.insert(QLatin1String("NetworkMode"), spec.networkMode);
    QJsonObject restart;
    restart.insert(QLatin1String("Name"), spec.restartPolicy.name);
    if (spec.restartPolicy.name == QLatin1String("on-failure"))
        restart.insert(QLatin1String("MaximumRetryCount"), spec.restartPolicy.maximumRetryCount);
    host.insert(QLatin1String("RestartPolicy"), restart);
    if (!spec.deviceRequests.isEmpty()) {
        QJsonArray requests;
        for (const DeviceRequest &d : spec.deviceRequests) {
            QJsonObject request;
            request.insert(QLatin1String("Driver"), d.driver);
            request.insert(QLatin1String("Count"), d.count);
            request.insert(QLatin1String("DeviceIDs"), toArray(d.deviceIds));
            QJsonArray caps;
            for (const QStringList &c : d.capabilities)
                caps.append(toArray(c));
            request.insert(QLatin1String("Capabilities"), caps);
            request.insert(QLatin1String("Options"), toObject(d.options));
            requests.append(request);
        }
        host.insert(QLatin1String("DeviceRequests"), requests);
    }
    if (!spec.extraHosts.isEmpty())
        host.insert(QLatin1String("ExtraHosts"), toArray(spec.extraHosts));
    if (!spec.capAdd.isEmpty())
        host.insert(QLatin1String("CapAdd"), toArray(spec.capAdd));
    if (!spec.capDrop.isEmpty())
        host.insert(QLatin1String("CapDrop"), toArray(spec.capDrop));
    if (spec.privileged)
        host.insert(QLatin1String("Privileged"), true);
    if (spec.autoRemove)
        host.insert(QLatin1String("AutoRemove"), true);
    if (spec.init)
        host.insert(QLatin1String("Init"), true);
    body.insert(QLatin1String("HostConfig"), host);

    if (!spec.endpoints.isEmpty()) {
        QJsonObject endpoints;
        for (auto it = spec.endpoints.begin(); it != spec.endpoints.end(); ++it) {
            QJsonObject endpoint;
            if (!it->aliases.isEmpty())
                endpoint.insert(QLatin1String("Aliases"), toArray(it->aliases));
            if (!it->ipv4Address.isEmpty()) {
                QJsonObject ipam;
                ipam.insert(QLatin1String("IPv4Address"), it->ipv4Address);
                endpoint.insert(QLatin1String("IPAMConfig"), ipam);
            }
            endpoints.insert(it.key(), endpoint);
        }
        QJsonObject networking;
        networking.insert(QLatin1String("EndpointsConfig"), endpoints);
        body.insert(QLatin1String("NetworkingConfig"), networking);
    }
    return QJsonDocument(body).toJson(QJsonDocument::Compact);
}

QByteArray encodeNetworkSpec(const NetworkSpec &spec)
{
    QJsonObject body;
    body.insert(QLatin1String("Name"), spec.name);
    body.insert(QLatin1String("CheckDuplicate"), spec.checkDuplicate);
    body.insert(QLatin1String("Driver"), spec.driver);
    body.insert(QLatin1String("Internal"), spec.internal);
    body.insert(QLatin1String("Attachable"), spec.attachable);
    body.insert(QLatin1String("EnableIPv6"), spec.enableIpv6);
    body.insert(QLatin1String("Labels"), toObject(spec.labels));
    body.insert(QLatin1String("Options"), toObject(spec.options));
    if (!spec.ipam.isEmpty()) {
        QJsonArray configs;
        for (const IpamConfig &c : spec.ipam) {
            QJsonObject config;
            if (!c.subnet.isEmpty())
                config.insert(QLatin1String("Subnet"), c.subnet);
            if (!c.ipRange.isEmpty())
                config.insert(QLatin1String("IPRange"), c.ipRange);
            if (!c.gateway.isEmpty())
                config.insert(QLatin1String("Gateway"), c.gateway);
            configs.append(config);
        }
        QJsonObject ipam;
        ipam.insert(QLatin1String("Driver"), QStringLiteral("default"));
        ipam.insert(QLatin1String("Config"), configs);
        body.insert(QLatin1String("IPAM"), ipam);
    }
    return QJsonDocument(body).toJson(QJsonDocument::Compact);
}

QByteArray encodeNetworkDisconnect(const QString &container, bool force)
{
    QJsonObject body;
    body.insert(QLatin1String("Container"), container);
    body.insert(QLatin1String("Force"), force);
    return QJsonDocument(body).toJson(QJsonDocument::Compact);
}

QByteArray encodeVolumeSpec(const VolumeSpec &spec)
{
    QJsonObject body;
    if (!spec.name.isEmpty())
        body.insert(QLatin1String("Name"), spec.name);
    body.insert(QLatin1String("Driver"),
                spec.driver.isEmpty() ? QStringLiteral("local") : spec.driver);
    body.insert(QLatin1String("DriverOpts"), toObject(spec.driverOptions));
    body.insert(QLatin1String("Labels"), toObject(spec.labels));
    return QJsonDocument(body).toJson(QJsonDocument::Compact);
}

QByteArray encodeSwarmInit(const SwarmInitSpec &spec)
{
    QJsonObject body;
    body.insert(QLatin1String("ListenAddr"), spec.listenAddr);
    body.insert(QLatin1String("AdvertiseAddr"), spec.advertiseAddr);
    if (!spec.dataPathAddr.isEmpty())
        body.insert(QLatin1String("DataPathAddr"), spec.dataPathAddr);
    body.insert(QLatin1String("ForceNewCluster"), spec.forceNewCluster);
    if (!spec.defaultAddrPool.isEmpty())
        body.insert(QLatin1String("DefaultAddrPool"), toArray(spec.defaultAddrPool));
    if (spec.subnetSize > 0)
        body.insert(QLatin1String("SubnetSize"), spec.subnetSize);
    body.insert(QLatin1String("Spec"), QJsonObject());
    return QJsonDocument(body).toJson(QJsonDocument::Compact);
}

QByteArray encodeSwarmJoin(const SwarmJoinSpec &spec)
{
    QJsonObject body;
    body.insert(QLatin1String("ListenAddr"), spec.listenAddr);
    body.insert(QLatin1String("AdvertiseAddr"), spec.advertiseAddr);
    if (!spec.dataPathAddr.isEmpty())
        body.insert(QLatin1String("DataPathAddr"), spec.dataPathAddr);
    body.insert(QLatin1String("RemoteAddrs"), toArray(spec.remoteAddrs));
    body.insert(QLatin1String("JoinToken"), spec.joinToken);
    return QJsonDocument(body).toJson(QJsonDocument::Compact);
}

QByteArray encodeFilters(const QMap<QString, QStringList> &filters)
{
    QJsonObject o;
    for (auto it = filters.begin(); it != filters.end(); ++it) {
        if (!it.value().isEmpty())
            o.insert(it.key(), toArray(it.value()));
    }
    if (o.isEmpty())
        return {};
    return QJsonDocument(o).toJson(QJsonDocument::Compact);
}

int compareApiVersions(const QString &a, const QString &b)
{
    const QStringList pa = a.split(u'.');
    const QStringList pb = b.split(u'.');
    for (qsizetype i = 0; i < std::max(pa.size(), pb.size()); ++i) {
        const int x = i < pa.size() ? pa.at(i).toInt() : 0;
        const int y = i < pb.size() ? pb.at(i).toInt() : 0;
        if (x != y)
            return x < y ? -1 : 1;
    }
    return 0;
}

// ---------------------------------------------------------------------------------------------
// Exec

Result<QString> decodeIdResponse(const QByteArray &body, const char *what)
{
    auto o = parseObject(body, what);
    if (!o)
        return fail(o.error());
    return requireId(*o, QLatin1String("Id"), what);
}

Result<ExecInfo> decodeExecInfo(const QByteArray &body)
{
    auto o = parseObject(body, "exec instance");
    if (!o)
        return fail(o.error());
    ExecInfo e;
    e.id = str(*o, QLatin1String("ID"));
    e.containerId = str(*o, QLatin1String("ContainerID"));
    e.running = o->value(QLatin1String("Running")).toBool();
    e.pid = num(*o, QLatin1String("Pid"));
    const QJsonValue code = o->value(QLatin1String("ExitCode"));
    if (!e.running && code.isDouble())
        e.exitCode = code.toInt();
    return e;
}

QByteArray encodeExecSpec(const ExecSpec &spec)
{
    QJsonObject o;
    o.insert(QLatin1String("Cmd"), QJsonArray::fromStringList(spec.cmd));
    if (!spec.env.isEmpty())
        o.insert(QLatin1String("Env"), QJsonArray::fromStringList(spec.env));
    if (!spec.user.isEmpty())
        o.insert(QLatin1String("User"), spec.user);
    if (!spec.workingDir.isEmpty())
        o.insert(QLatin1String("WorkingDir"), spec.workingDir);
    o.insert(QLatin1String("Tty"), spec.tty);
    o.insert(QLatin1String("AttachStdin"), spec.attachStdin);
    o.insert(QLatin1String("AttachStdout"), spec.attachStdout);
    o.insert(QLatin1String("AttachStderr"), spec.attachStderr);
    return QJsonDocument(o).toJson(QJsonDocument::Compact);
}

QByteArray encodeExecStart(bool tty)
{
    QJsonObject o;
    o.insert(QLatin1String("Detach"), false);
    o.insert(QLatin1String("Tty"), tty);
    return QJsonDocument(o).toJson(QJsonDocument::Compact);
}

// ---------------------------------------------------------------------------------------------
// Stats

Result<ContainerStats> decodeContainerStats(const QByteArray &body)
{
    auto o = parseObject(body, "container stats");
    if (!o)
        return fail(o.error());
    auto u64 = [](const QJsonValue &v) {
        return quint64(std::max(0.0, v.toDouble()));
    };
    ContainerStats s;
    const QDateTime read = QDateTime::fromString(str(*o, QLatin1String("read")), Qt::ISODateWithMs);
    s.readMsecs = read.isValid() && read.date().year() > 1 ? read.toMSecsSinceEpoch() : 0;

    const QJsonObject cpu = o->value(QLatin1String("cpu_stats")).toObject();
    const QJsonObject precpu = o->value(QLatin1String("precpu_stats")).toObject();
    const QJsonObject usage = cpu.value(QLatin1String("cpu_usage")).toObject();
    s.cpuTotal = u64(usage.value(QLatin1String("total_usage")));
    s.preCpuTotal = u64(
        precpu.value(QLatin1String("cpu_usage")).toObject().value(QLatin1String("total_usage")));
    s.systemCpu = u64(cpu.value(QLatin1String("system_cpu_usage")));
    s.preSystemCpu = u64(precpu.value(QLatin1String("system_cpu_usage")));
    s.onlineCpus = cpu.value(QLatin1String("online_cpus")).toInt();
    if (s.onlineCpus == 0) // older daemons: count the per-CPU counters
        s.onlineCpus = int(usage.value(QLatin1String("percpu_usage")).toArray().size());

    const QJsonObject memory = o->value(QLatin1String("memory_stats")).toObject();
    const QJsonObject memStats = memory.value(QLatin1String("stats")).toObject();
    s.memoryUsage = u64(memory.value(QLatin1String("usage")));
    s.memoryLimit = u64(memory.value(QLatin1String("limit")));
    // As the docker CLI: cgroup v1 total_inactive_file, v2 inactive_file, very old ones cache.
    if (memStats.contains(QLatin1String("total_inactive_file")))
        s.inactiveFile = u64(memStats.value(QLatin1String("total_inactive_file")));
    else if (memStats.contains(QLatin1String("inactive_file")))
        s.inactiveFile = u64(memStats.value(QLatin1String("inactive_file")));
    else
        s.inactiveFile = u64(memStats.value(QLatin1String("cache")));

    const QJsonObject networks = o->value(QLatin1String("networks")).toObject();
    for (auto it = networks.begin(); it != networks.end(); ++it) {
        const QJsonObject n = it.value().toObject();
        s.rxBytes += u64(n.value(QLatin1String("rx_bytes")));
        s.txBytes += u64(n.value(QLatin1String("tx_bytes")));
    }
    const QJsonArray io = o->value(QLatin1String("blkio_stats"))
                              .toObject()
                              .value(QLatin1String("io_service_bytes_recursive"))
                              .toArray(); // null on cgroup v2 without io accounting
    for (const QJsonValue &v : io) {
        const QJsonObject e = v.toObject();
        const QString op = str(e, QLatin1String("op")).toLower();
        if (op == QLatin1String("read"))
            s.blockRead += u64(e.value(QLatin1String("value")));
        else if (op == QLatin1String("write"))
            s.blockWrite += u64(e.value(QLatin1String("value")));
    }
    s.pids =
        o->value(QLatin1String("pids_stats")).toObject().value(QLatin1String("current")).toInt();
    return s;
}

} // namespace ClusterDeck::Docker::Json
