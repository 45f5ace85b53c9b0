#include "fakedockerhost.h"

#include "docker/tararchivebuilder.h"
#include "host/hostregistry.h"

#include <QCryptographicHash>
#include <QDateTime>

#include <algorithm>
#include <thread>

namespace ClusterDeck::TestSupport {

namespace {

QString nowText()
{
    return QDateTime::currentDateTimeUtc().toString(Qt::ISODateWithMs);
}

// "k" or "k=v" against a label map, as the daemon's label filter.
bool labelsMatch(const Docker::Labels &labels, const QStringList &wanted)
{
    for (const QString &w : wanted) {
        const qsizetype eq = w.indexOf(QLatin1Char('='));
        if (eq < 0) {
            if (!labels.contains(w))
                return false;
        } else if (labels.value(w.left(eq), QStringLiteral("\x01")) != w.mid(eq + 1)) {
            return false;
        }
    }
    return true;
}

// The networks a container joins: its endpoints and its network mode.
QStringList networksOf(const Docker::ContainerSpec &spec)
{
    QStringList networks = spec.endpoints.keys();
    networks.append(spec.networkMode);
    return networks;
}

bool joins(const Docker::ContainerSpec &spec, const QString &network)
{
    return spec.endpoints.contains(network) || spec.networkMode == network;
}

QString imageIdOf(const QString &image)
{
    return QStringLiteral("sha256:") +
           QString::fromLatin1(
               QCryptographicHash::hash(image.toUtf8(), QCryptographicHash::Sha256).toHex());
}

} // namespace

FakeDockerHost::FakeDockerHost(QString name, int ncpu, qint64 memTotal)
    : m_name(std::move(name))
    , m_ncpu(ncpu)
    , m_memTotal(memTotal)
{}

QString FakeDockerHost::displayName() const
{
    return QStringLiteral("host %1 (fake)").arg(m_name);
}

void FakeDockerHost::setHanging(bool hang)
{
    m_hanging.store(hang);
    m_changed.notify_all();
}

void FakeDockerHost::addFault(const Fault &fault)
{
    std::lock_guard lock(m_mutex);
    m_faults.append(fault);
}

void FakeDockerHost::failNth(const QString &call, int nth, Error::Kind kind, int httpStatus)
{
    addFault({call, nth,
              Error::make(kind, displayName(),
                          QStringLiteral("injected failure of %1 #%2 (HTTP %3)")
                              .arg(call)
                              .arg(nth)
                              .arg(httpStatus),
                          httpStatus)});
}

void FakeDockerHost::addImage(const QString &image)
{
    std::lock_guard lock(m_mutex);
    m_images.insert(image);
}

void FakeDockerHost::joinSwarm(const QString &clusterId, bool manager)
{
    std::lock_guard lock(m_mutex);
    m_swarmCluster = clusterId;
    m_swarmManager = manager;
}

Result<void> FakeDockerHost::enter(const char *call, const Docker::CallOptions &options) const
{
    const QString name = QString::fromLatin1(call);
    std::optional<Error> injected;
    {
        std::lock_guard lock(m_mutex);
        makeLateCreates();
        ++m_calls[name];
        for (qsizetype i = 0; i < m_faults.size(); ++i) {
            Fault &f = m_faults[i];
            if (f.call != name)
                continue;
            if (--f.nth == 0) {
                injected = f.error;
                if (f.thenDown)
                    m_down.store(true);
                m_faults.removeAt(i);
            }
            break;
        }
    }
    if (const qint64 us = m_delayUs.load(); us > 0) {
        std::this_thread::sleep_for(std::chrono::microseconds(us));
        m_simulatedNs.fetch_add(us * 1000);
    }
    if (m_down.load())
        return fail(Error::Kind::Transport, displayName(),
                    QStringLiteral("connection refused (the fake host is down)"));
    if (m_hanging.load()) {
        const auto deadline = std::chrono::steady_clock::now() + options.timeout;
        std::unique_lock lock(m_mutex);
        while (m_hanging.load() && !options.cancel.isCancelled()) {
            if (options.timeout.count() > 0 && std::chrono::steady_clock::now() >= deadline)
                return fail(Error::Kind::Timeout, displayName(),
                            QStringLiteral("%1: no answer (the fake host hangs)").arg(name));
            m_changed.wait_for(lock, std::chrono::milliseconds(5));
        }
        if (options.cancel.isCancelled())
            return fail(Error::Kind::Cancelled, displayName(), QStringLiteral("cancelled"));
    }
    if (options.cancel.isCancelled())
        return fail(Error::Kind::Cancelled, displayName(), QStringLiteral("cancelled"));
    if (injected)
        return fail(*injected);
    return {};
}

Error FakeDockerHost::notFound(const QString &what, const QString &id) const
{
    return Error::make(Error::Kind::NotFound, displayName(),
                       QStringLiteral("No such %1: %2 (HTTP 404)").arg(what, id), 404);
}

Error FakeDockerHost::conflict(const QString &message) const
{
    return Error::make(Error::Kind::Conflict, displayName(),
                       message + QStringLiteral(" (HTTP 409)"), 409);
}

QString FakeDockerHost::newId() const
{
    const QByteArray seed = m_name.toUtf8() + '/' + QByteArray::number(m_nextId++);
    return QString::fromLatin1(QCryptographicHash::hash(seed, QCryptographicHash::Sha256).toHex());
}

QString FakeDockerHost::resolveContainer(const QString &idOrName) const
{
    if (m_containers.contains(idOrName))
        return idOrName;
    QString name = idOrName;
    if (name.startsWith(QLatin1Char('/')))
        name.remove(0, 1);
    if (auto it = m_containerNames.constFind(name); it != m_containerNames.cend())
        return *it;
    if (idOrName.size() >= 12) {
        for (auto it = m_containers.cbegin(); it != m_containers.cend(); ++it) {
            if (it.key().startsWith(idOrName))
                return it.key();
        }
    }
    return {};
}

// As dockerd: a node drops its instance of a network once no running container here is on it
// (a created or exited container holds no endpoint); it takes `inspections` inspections to go.
void FakeDockerHost::beginUnusedNetworksTeardown(const Docker::ContainerSpec &spec,
                                                 const QString &leaving, int inspections) const
{
    for (const QString &name : networksOf(spec)) {
        const QString net = resolveNetwork(name);
        if (net.isEmpty())
            continue;
        const QString network = m_networks.value(net).spec.name;
        const bool others =
            std::any_of(m_containers.cbegin(), m_containers.cend(), [&](const Container &o) {
                return o.id != leaving && o.state == QLatin1String("running") &&
                       joins(o.spec, network);
            });
        if (!others)
            m_tearingDown.insert(net, inspections);
    }
}

QString FakeDockerHost::resolveNetwork(const QString &idOrName) const
{
    if (m_networks.contains(idOrName))
        return idOrName;
    for (auto it = m_networks.cbegin(); it != m_networks.cend(); ++it) {
        if (it->spec.name == idOrName)
            return it.key();
    }
    return {};
}

void FakeDockerHost::emitEvent(const QString &action, const Container &c) const
{
    Docker::DockerEvent e;
    e.type = QStringLiteral("container");
    e.action = action;
    e.actorId = c.id;
    e.attributes = c.spec.labels;
    e.attributes.insert(QStringLiteral("name"), c.spec.name);
    e.attributes.insert(QStringLiteral("image"), c.spec.image);
    if (action == QLatin1String("die"))
        e.attributes.insert(QStringLiteral("exitCode"), QString::number(c.exitCode));
    e.scope = QStringLiteral("local");
    e.timeNano = QDateTime::currentMSecsSinceEpoch() * 1000000LL + m_nextId++;
    e.time = e.timeNano / 1000000000LL;
    m_events.append(e);
    m_changed.notify_all();
}

Docker::ContainerInfo FakeDockerHost::infoOf(const Container &c) const
{
    Docker::ContainerInfo info;
    info.id = c.id;
    info.name = c.spec.name;
    info.image = c.spec.image;
    info.imageId = imageIdOf(c.spec.image);
    info.created =
        QDateTime::fromMSecsSinceEpoch(c.createdNs / 1000000, Qt::UTC).toString(Qt::ISODateWithMs);
    info.state.status = parseContainerStatus(c.state);
    info.state.running = c.state == QLatin1String("running");
    info.state.exitCode = c.exitCode;
    info.state.pid = info.state.running ? 4242 : 0;
    info.state.startedAt = c.startedAt;
    info.state.finishedAt = c.finishedAt;
    info.restartCount = c.restarts;
    info.hostname = c.spec.hostname;
    info.env = c.spec.env;
    info.labels = c.spec.labels;
    info.cmd = c.spec.cmd;
    info.entrypoint = c.spec.entrypoint;
    info.workingDir = c.spec.workingDir;
    info.user = c.spec.user;
    info.tty = c.spec.tty;
    info.networkMode = c.spec.networkMode;
    info.nanoCpus = c.spec.nanoCpus;
    info.memory = c.spec.memory;
    info.restartPolicy = c.spec.restartPolicy;
    for (const Docker::PortBinding &p : c.spec.ports)
        info.ports.append({p.containerPort, p.protocol, p.hostIp,
                           info.state.running ? c.hostPorts.value(p.containerPort) : 0});
    int octet = 2;
    for (auto it = c.spec.endpoints.cbegin(); it != c.spec.endpoints.cend(); ++it) {
        Docker::EndpointInfo e;
        e.networkId = resolveNetwork(it.key());
        e.aliases = it->aliases;
        e.ipAddress = QStringLiteral("10.77.0.%1").arg(octet++);
        info.networks.insert(it.key(), e);
    }
    return info;
}

// ---- system

Result<QString> FakeDockerHost::apiVersion(const Docker::CallOptions &options) const
{
    if (auto ok = enter("apiVersion", options); !ok)
        return fail(ok.error());
    return QStringLiteral("1.41");
}

Result<Docker::PingInfo> FakeDockerHost::ping(const Docker::CallOptions &options) const
{
    if (auto ok = enter("ping", options); !ok)
        return fail(ok.error());
    Docker::PingInfo p;
    p.apiVersion = QStringLiteral("1.41");
    p.osType = QStringLiteral("linux");
    return p;
}

Result<Docker::SystemInfo> FakeDockerHost::info(const Docker::CallOptions &options) const
{
    if (auto ok = enter("info", options); !ok)
        return fail(ok.error());
    Docker::SystemInfo i;
    i.id = QStringLiteral("FAKE:") + m_name;
    i.name = m_name;
    i.serverVersion = QStringLiteral("20.10.24");
    i.ncpu = m_ncpu;
    i.memTotal = m_memTotal;
    i.operatingSystem = QStringLiteral("Fake Linux");
    i.osType = QStringLiteral("linux");
    std::lock_guard lock(m_mutex);
    if (!m_swarmCluster.isEmpty()) {
        i.swarm.localState = Docker::SwarmLocalState::Active;
        i.swarm.nodeId = QStringLiteral("node-") + m_name;
        i.swarm.nodeAddr = QStringLiteral("198.51.100.1");
        i.swarm.clusterId = m_swarmCluster;
        i.swarm.controlAvailable = m_swarmManager;
    }
    i.containers = int(m_containers.size());
    for (const Container &c : std::as_const(m_containers))
        i.containersRunning += c.state == QLatin1String("running") ? 1 : 0;
    return i;
}

Result<QList<Docker::NodeInfo>> FakeDockerHost::listNodes(const Docker::CallOptions &options) const
{
    if (auto ok = enter("listNodes", options); !ok)
        return fail(ok.error());
    {
        std::lock_guard lock(m_mutex);
        if (m_swarmManager)
            return QList<Docker::NodeInfo>{};
    }
    return fail(Error::Kind::Http, displayName(),
                QStringLiteral("This node is not a swarm manager (HTTP 503)"), 503);
}

// ---- images

Result<QList<Docker::ImageSummary>>
FakeDockerHost::listImages(const QStringList &, const Docker::CallOptions &options) const
{
    if (auto ok = enter("listImages", options); !ok)
        return fail(ok.error());
    QList<Docker::ImageSummary> out;
    std::lock_guard lock(m_mutex);
    for (const QString &image : std::as_const(m_images)) {
        Docker::ImageSummary s;
        s.id = imageIdOf(image);
        s.repoTags = {image};
        out.append(s);
    }
    return out;
}

Result<Docker::ImageInfo> FakeDockerHost::inspectImage(const QString &nameOrId,
                                                       const Docker::CallOptions &options) const
{
    if (auto ok = enter("inspectImage", options); !ok)
        return fail(ok.error());
    {
        std::lock_guard lock(m_mutex);
        if (!m_allImages.load() && !m_images.contains(nameOrId))
            return fail(notFound(QStringLiteral("image"), nameOrId));
    }
    Docker::ImageInfo info;
    info.id = imageIdOf(nameOrId);
    info.repoTags = {nameOrId};
    info.os = QStringLiteral("linux");
    info.architecture = QStringLiteral("amd64");
    info.env = {
        QStringLiteral("PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin")};
    info.cmd = {QStringLiteral("sh")};
    return info;
}

Result<Docker::PullProgress> FakeDockerHost::pullImage(const Docker::ImagePullSpec &pull,
                                                       const PullSink &onProgress,
                                                       const Docker::CallOptions &options) const
{
    if (auto ok = enter("pullImage", options); !ok)
        return fail(ok.error());
    const QString image = pull.fromImage + QLatin1Char(':') + pull.tag;
    {
        std::lock_guard lock(m_mutex);
        m_images.insert(image);
    }
    Docker::PullProgress progress;
    if (onProgress)
        onProgress(progress);
    return progress;
}

Result<QString> FakeDockerHost::importImage(const Docker::ImageImportSpec &import,
                                            const QByteArray &,
                                            const Docker::CallOptions &options) const
{
    if (auto ok = enter("importImage", options); !ok)
        return fail(ok.error());
    const QString image = import.repo + QLatin1Char(':') + import.tag;
    std::lock_guard lock(m_mutex);
    m_images.insert(image);
    return imageIdOf(image);
}

Result<Docker::RemovedImage> FakeDockerHost::removeImage(const QString &nameOrId, bool,
                                                         const Docker::CallOptions &options) const
{
    if (auto ok = enter("removeImage", options); !ok)
        return fail(ok.error());
    std::lock_guard lock(m_mutex);
    if (!m_images.remove(nameOrId))
        return fail(notFound(QStringLiteral("image"), nameOrId));
    Docker::RemovedImage r;
    r.untagged = {nameOrId};
    return r;
}

// ---- containers

Result<Docker::CreatedContainer>
FakeDockerHost::createContainer(const Docker::ContainerSpec &spec,
                                const Docker::CallOptions &options) const
{
    if (auto ok = enter("createContainer", options); !ok)
        return fail(ok.error());
    if (const qint64 ms = m_createTimeMs.load(); ms > 0) {
        const auto readyAt = std::chrono::steady_clock::now() + std::chrono::milliseconds(ms);
        while (std::chrono::steady_clock::now() < readyAt) {
            if (options.cancel.isCancelled()) {
                std::lock_guard lock(m_mutex);
                m_lateCreates.append({spec, readyAt});
                return fail(Error::Kind::Cancelled, displayName(), QStringLiteral("cancelled"));
            }
            std::this_thread::sleep_for(std::chrono::milliseconds(2));
        }
    }
    std::lock_guard lock(m_mutex);
    return makeContainer(spec);
}

Result<Docker::CreatedContainer>
FakeDockerHost::makeContainer(const Docker::ContainerSpec &spec) const
{
    if (!m_allImages.load() && !m_images.contains(spec.image))
        return fail(notFound(QStringLiteral("image"), spec.image));
    if (!spec.name.isEmpty() && m_containerNames.contains(spec.name))
        return fail(conflict(QStringLiteral("Conflict. The container name \"/%1\" is already in "
                                            "use by container \"%2\"")
                                 .arg(spec.name, m_containerNames.value(spec.name))));
    for (auto it = spec.endpoints.cbegin(); it != spec.endpoints.cend(); ++it) {
        if (resolveNetwork(it.key()).isEmpty() && m_swarmCluster.isEmpty())
            return fail(notFound(QStringLiteral("network"), it.key()));
    }
    Container c;
    c.spec = spec;
    c.id = newId();
    if (c.spec.name.isEmpty())
        c.spec.name = QStringLiteral("fake_") + c.id.left(8);
    c.createdNs = QDateTime::currentMSecsSinceEpoch() * 1000000LL;
    m_containerNames.insert(c.spec.name, c.id);
    m_containers.insert(c.id, c);
    emitEvent(QStringLiteral("create"), c);
    return Docker::CreatedContainer{c.id, {}};
}

void FakeDockerHost::makeLateCreates() const
{
    const auto now = std::chrono::steady_clock::now();
    for (qsizetype i = 0; i < m_lateCreates.size();) {
        if (m_lateCreates.at(i).readyAt <= now) {
            (void)makeContainer(m_lateCreates.at(i).spec); // what failed, the client never hears
            m_lateCreates.removeAt(i);
        } else {
            ++i;
        }
    }
}

Result<void> FakeDockerHost::startContainer(const QString &id,
                                            const Docker::CallOptions &options) const
{
    if (auto ok = enter("startContainer", options); !ok) {
        // As dockerd: a start that missed the attachment deadline undid the attachment, and the
        // node drops the instance of the network it had made for it (when no container here
        // is on it), asynchronously: with setNetworkTeardownInspects, for that many inspections.
        const int n = m_teardownInspects.load();
        if (n > 0 && ok.error().httpStatus == 500 &&
            ok.error().message.contains(QLatin1String("attaching to network failed"))) {
            std::lock_guard lock(m_mutex);
            const QString key = resolveContainer(id);
            beginUnusedNetworksTeardown(m_containers.value(key).spec, key, n);
        }
        return fail(ok.error());
    }
    std::lock_guard lock(m_mutex);
    const QString key = resolveContainer(id);
    if (key.isEmpty())
        return fail(notFound(QStringLiteral("container"), id));
    Container &c = m_containers[key];
    if (c.state == QLatin1String("running"))
        return {}; // 304
    for (const QString &name : networksOf(c.spec)) {
        const QString net = resolveNetwork(name);
        if (!net.isEmpty() && m_tearingDown.contains(net)) {
            ++m_stuckAttachments;
            return fail(Error::make(Error::Kind::NotFound, displayName(),
                                    QStringLiteral("network %1 not found (HTTP 404)").arg(net),
                                    404));
        }
    }
    c.state = QStringLiteral("running");
    c.exitCode = 0;
    c.startedAt = nowText();
    for (const Docker::PortBinding &p : c.spec.ports)
        c.hostPorts.insert(p.containerPort, p.hostPort ? p.hostPort : m_nextPort++);
    emitEvent(QStringLiteral("start"), c);
    return {};
}

Result<void> FakeDockerHost::stopContainer(const QString &id, std::optional<int>,
                                           const Docker::CallOptions &options) const
{
    if (auto ok = enter("stopContainer", options); !ok)
        return fail(ok.error());
    std::lock_guard lock(m_mutex);
    const QString key = resolveContainer(id);
    if (key.isEmpty())
        return fail(notFound(QStringLiteral("container"), id));
    Container &c = m_containers[key];
    if (c.state != QLatin1String("running"))
        return {}; // 304
    c.state = QStringLiteral("exited");
    c.exitCode = 143;
    c.finishedAt = nowText();
    emitEvent(QStringLiteral("die"), c);
    return {};
}

Result<void> FakeDockerHost::restartContainer(const QString &id, std::optional<int>,
                                              const Docker::CallOptions &options) const
{
    if (auto ok = enter("restartContainer", options); !ok)
        return fail(ok.error());
    std::lock_guard lock(m_mutex);
    const QString key = resolveContainer(id);
    if (key.isEmpty())
        return fail(notFound(QStringLiteral("container"), id));
    Container &c = m_containers[key];
    if (c.state == QLatin1String("running")) {
        c.state = QStringLiteral("exited");
        c.exitCode = 143;
        emitEvent(QStringLiteral("die"), c);
    }
    c.state = QStringLiteral("running");
    c.exitCode = 0;
    c.startedAt = nowText();
    ++c.restarts;
    emitEvent(QStringLiteral("start"), c);
    return {};
}

Result<void> FakeDockerHost::killContainer(const QString &id, const QString &,
                                           const Docker::CallOptions &options) const
{
    if (auto ok = enter("killContainer", options); !ok)
        return fail(ok.error());
    std::lock_guard lock(m_mutex);
    const QString key = resolveContainer(id);
    if (key.isEmpty())
        return fail(notFound(QStringLiteral("container"), id));
    Container &c = m_containers[key];
    if (c.state != QLatin1String("running"))
        return fail(conflict(QStringLiteral("Container %1 is not running").arg(id)));
    c.state = QStringLiteral("exited");
    c.exitCode = 137;
    c.finishedAt = nowText();
    emitEvent(QStringLiteral("die"), c);
    return {};
}

Result<void> FakeDockerHost::removeContainer(const QString &id,
                                             const Docker::RemoveContainerOptions &remove,
                                             const Docker::CallOptions &options) const
{
    if (auto ok = enter("removeContainer", options); !ok)
        return fail(ok.error());
    std::lock_guard lock(m_mutex);
    const QString key = resolveContainer(id);
    if (key.isEmpty())
        return fail(notFound(QStringLiteral("container"), id));
    Container c = m_containers.value(key);
    if (c.state == QLatin1String("running") && !remove.force)
        return fail(conflict(QStringLiteral("You cannot remove a running container %1. Stop the "
                                            "container before attempting removal or force remove")
                                 .arg(key)));
    if (c.state == QLatin1String("running")) {
        c.state = QStringLiteral("exited");
        c.exitCode = 137;
        emitEvent(QStringLiteral("die"), c);
    }
    m_containers.remove(key);
    m_containerNames.remove(c.spec.name);
    emitEvent(QStringLiteral("destroy"), c);
    if (const int n = m_teardownInspects.load(); n > 0)
        beginUnusedNetworksTeardown(c.spec, key, n);
    return {};
}

Result<Docker::ContainerInfo>
FakeDockerHost::inspectContainer(const QString &id, const Docker::CallOptions &options) const
{
    if (auto ok = enter("inspectContainer", options); !ok)
        return fail(ok.error());
    std::lock_guard lock(m_mutex);
    const QString key = resolveContainer(id);
    if (key.isEmpty())
        return fail(notFound(QStringLiteral("container"), id));
    return infoOf(m_containers.value(key));
}

Result<QList<Docker::ContainerSummary>>
FakeDockerHost::listContainers(const Docker::ContainerListOptions &list,
                               const Docker::CallOptions &options) const
{
    if (auto ok = enter("listContainers", options); !ok)
        return fail(ok.error());
    QList<Docker::ContainerSummary> out;
    std::lock_guard lock(m_mutex);
    for (const Container &c : std::as_const(m_containers)) {
        if (!list.all && c.state != QLatin1String("running"))
            continue;
        if (!labelsMatch(c.spec.labels, list.labels))
            continue;
        if (list.filters.contains(QStringLiteral("name")) &&
            !list.filters.value(QStringLiteral("name")).contains(c.spec.name))
            continue;
        if (list.filters.contains(QStringLiteral("status")) &&
            !list.filters.value(QStringLiteral("status")).contains(c.state))
            continue;
        Docker::ContainerSummary s;
        s.id = c.id;
        s.names = {c.spec.name};
        s.image = c.spec.image;
        s.imageId = imageIdOf(c.spec.image);
        s.created = c.createdNs / 1000000000LL;
        s.state = parseContainerStatus(c.state);
        s.status = c.state == QLatin1String("running")
                       ? QStringLiteral("Up 1 second")
                       : QStringLiteral("Exited (%1) 1 second ago").arg(c.exitCode);
        s.labels = c.spec.labels;
        s.networks = c.spec.endpoints.keys();
        out.append(s);
    }
    return out;
}

Result<Docker::ContainerLogs>
FakeDockerHost::containerLogs(const QString &id, const Docker::LogOptions &,
                              const Docker::CallOptions &options) const
{
    if (auto ok = enter("containerLogs", options); !ok)
        return fail(ok.error());
    std::lock_guard lock(m_mutex);
    const QString key = resolveContainer(id);
    if (key.isEmpty())
        return fail(notFound(QStringLiteral("container"), id));
    const Container &c = m_containers[key];
    Docker::ContainerLogs logs;
    const QByteArray line = "fake output of " + c.spec.name.toUtf8() + "\n";
    logs.frames.append({Docker::LogFrame::Stream::Stdout, line});
    logs.stdoutData = line;
    return logs;
}

Result<void> FakeDockerHost::readLogs(const QString &id, const Docker::LogOptions &logs,
                                      const std::function<bool(const Docker::LogFrame &)> &sink,
                                      const Docker::CallOptions &options) const
{
    auto all = containerLogs(id, logs, options);
    if (!all)
        return fail(all.error());
    for (const Docker::LogFrame &f : std::as_const(all->frames)) {
        if (!sink(f))
            break;
    }
    return {};
}

Result<void> FakeDockerHost::followLogs(const QString &id, const Docker::LogOptions &logs,
                                        const std::function<bool(const Docker::LogFrame &)> &sink,
                                        const Docker::CallOptions &options) const
{
    return readLogs(id, logs, sink, options);
}

Result<void> FakeDockerHost::uploadFiles(const QString &id, const QString &path,
                                         const Docker::TarArchiveBuilder &files,
                                         const Docker::CallOptions &options) const
{
    if (auto ok = enter("uploadFiles", options); !ok)
        return fail(ok.error());
    auto tar = files.build();
    if (!tar)
        return fail(tar.error());
    std::lock_guard lock(m_mutex);
    const QString key = resolveContainer(id);
    if (key.isEmpty())
        return fail(notFound(QStringLiteral("container"), id));
    m_containers[key].files.insert(path, QString::number(tar->size()));
    return {};
}

Result<QByteArray> FakeDockerHost::readFile(const QString &id, const QString &path,
                                            const Docker::CallOptions &options) const
{
    if (auto ok = enter("readFile", options); !ok)
        return fail(ok.error());
    std::lock_guard lock(m_mutex);
    if (resolveContainer(id).isEmpty())
        return fail(notFound(QStringLiteral("container"), id));
    if (path == QLatin1String("/etc/passwd"))
        return QByteArray("root:x:0:0:root:/root:/bin/sh\n"
                          "mpiuser:x:1000:1000::/home/mpiuser:/bin/sh\n");
    return fail(notFound(QStringLiteral("file"), path));
}

Result<int> FakeDockerHost::runExec(const QString &containerId, const Docker::ExecSpec &,
                                    const std::function<bool(const Docker::LogFrame &)> &,
                                    const Docker::CallOptions &options) const
{
    if (auto ok = enter("runExec", options); !ok)
        return fail(ok.error());
    std::lock_guard lock(m_mutex);
    const QString key = resolveContainer(containerId);
    if (key.isEmpty())
        return fail(notFound(QStringLiteral("container"), containerId));
    if (m_containers.value(key).state != QLatin1String("running"))
        return fail(conflict(QStringLiteral("Container %1 is not running").arg(containerId)));
    return 0;
}

// ---- networks and volumes

Result<QString> FakeDockerHost::createNetwork(const Docker::NetworkSpec &spec,
                                              const Docker::CallOptions &options) const
{
    if (auto ok = enter("createNetwork", options); !ok)
        return fail(ok.error());
    std::lock_guard lock(m_mutex);
    if (!resolveNetwork(spec.name).isEmpty())
        return fail(conflict(QStringLiteral("network with name %1 already exists").arg(spec.name)));
    Network n;
    n.spec = spec;
    n.id = newId();
    n.created = nowText();
    m_networks.insert(n.id, n);
    return n.id;
}

Result<Docker::NetworkInfo> FakeDockerHost::inspectNetwork(const QString &idOrName,
                                                           const Docker::CallOptions &options) const
{
    if (auto ok = enter("inspectNetwork", options); !ok)
        return fail(ok.error());
    std::lock_guard lock(m_mutex);
    const QString key = resolveNetwork(idOrName);
    if (key.isEmpty())
        return fail(notFound(QStringLiteral("network"), idOrName));
    const Network &n = m_networks[key];
    Docker::NetworkInfo info;
    info.id = n.id;
    info.name = n.spec.name;
    info.driver = n.spec.driver;
    info.scope = n.spec.driver == QLatin1String("overlay") ? QStringLiteral("swarm")
                                                           : QStringLiteral("local");
    info.created = n.created;
    info.attachable = n.spec.attachable;
    info.internal = n.spec.internal;
    info.labels = n.spec.labels;
    info.options = n.spec.options;
    info.ipam = n.spec.ipam;
    if (auto it = m_tearingDown.find(key); it != m_tearingDown.end()) {
        info.instantiatedHere = true; // and no containers: the instance is being dropped
        if (--it.value() == 0)
            m_tearingDown.erase(it);
        return info;
    }
    for (const Container &c : std::as_const(m_containers)) {
        if (joins(c.spec, n.spec.name))
            info.containers.insert(c.id, Docker::NetworkContainer{c.spec.name, {}, {}, {}});
    }
    for (const QString &name : n.staleEndpoints)
        info.containers.insert(QStringLiteral("ep-") + imageIdOf(name).mid(7, 64),
                               Docker::NetworkContainer{name, {}, {}, {}});
    return info;
}

Result<QList<Docker::NetworkInfo>>
FakeDockerHost::listNetworks(const QStringList &labels, const Docker::CallOptions &options) const
{
    if (auto ok = enter("listNetworks", options); !ok)
        return fail(ok.error());
    QStringList keys;
    {
        std::lock_guard lock(m_mutex);
        for (const Network &n : std::as_const(m_networks)) {
            if (labelsMatch(n.spec.labels, labels))
                keys.append(n.id);
        }
    }
    QList<Docker::NetworkInfo> out;
    for (const QString &k : std::as_const(keys)) {
        std::lock_guard lock(m_mutex);
        const Network &n = m_networks[k];
        Docker::NetworkInfo info;
        info.id = n.id;
        info.name = n.spec.name;
        info.driver = n.spec.driver;
        info.created = n.created;
        info.labels = n.spec.labels;
        out.append(info);
    }
    return out;
}

Result<void> FakeDockerHost::removeNetwork(const QString &idOrName,
                                           const Docker::CallOptions &options) const
{
    if (auto ok = enter("removeNetwork", options); !ok)
        return fail(ok.error());
    std::lock_guard lock(m_mutex);
    const QString key = resolveNetwork(idOrName);
    if (key.isEmpty())
        return fail(notFound(QStringLiteral("network"), idOrName));
    const QString name = m_networks.value(key).spec.name;
    const bool stale =
        !m_networks.value(key).staleEndpoints.isEmpty() || m_networks.value(key).staleCount > 0;
    for (const Container &c : std::as_const(m_containers)) {
        if (c.spec.endpoints.contains(name))
            return fail(Error::make(Error::Kind::Http, displayName(),
                                    QStringLiteral("error while removing network: network %1 "
                                                   "has active endpoints (HTTP 403)")
                                        .arg(name),
                                    403));
    }
    if (stale)
        return fail(Error::make(Error::Kind::Http, displayName(),
                                QStringLiteral("error while removing network: network %1 has "
                                               "active endpoints (HTTP 403)")
                                    .arg(name),
                                403));
    m_networks.remove(key);
    return {};
}

Result<void> FakeDockerHost::disconnectNetwork(const QString &network, const QString &container,
                                               bool force, const Docker::CallOptions &options) const
{
    if (auto ok = enter("disconnectNetwork", options); !ok)
        return fail(ok.error());
    std::lock_guard lock(m_mutex);
    const QString key = resolveNetwork(network);
    if (key.isEmpty())
        return fail(notFound(QStringLiteral("network"), network));
    Network &n = m_networks[key];
    if (const QString id = resolveContainer(container); !id.isEmpty()) {
        Container &c = m_containers[id];
        if (!joins(c.spec, n.spec.name))
            return fail(Error::make(Error::Kind::Http, displayName(),
                                    QStringLiteral("container %1 is not connected to network %2")
                                        .arg(container, n.spec.name),
                                    403));
        c.spec.endpoints.remove(n.spec.name);
        return {};
    }
    // As dockerd: a name without a container deletes the endpoint of that name, when forced.
    if (force && n.staleEndpoints.removeAll(container) > 0)
        return {};
    return fail(notFound(QStringLiteral("container"), container));
}

void FakeDockerHost::addStaleEndpointCount(const QString &network)
{
    std::lock_guard lock(m_mutex);
    const QString key = resolveNetwork(network);
    if (!key.isEmpty())
        ++m_networks[key].staleCount;
}

void FakeDockerHost::addStaleEndpoint(const QString &network, const QString &name)
{
    std::lock_guard lock(m_mutex);
    const QString key = resolveNetwork(network);
    if (!key.isEmpty())
        m_networks[key].staleEndpoints.append(name);
}

Result<Docker::VolumeInfo> FakeDockerHost::createVolume(const Docker::VolumeSpec &spec,
                                                        const Docker::CallOptions &options) const
{
    if (auto ok = enter("createVolume", options); !ok)
        return fail(ok.error());
    std::lock_guard lock(m_mutex);
    const QString name = spec.name.isEmpty() ? newId() : spec.name;
    if (auto it = m_volumes.constFind(name); it != m_volumes.cend())
        return *it; // the daemon returns the existing volume
    Docker::VolumeInfo v;
    v.name = name;
    v.driver = spec.driver;
    v.mountpoint = QStringLiteral("/var/lib/docker/volumes/%1/_data").arg(name);
    v.scope = QStringLiteral("local");
    v.createdAt = nowText();
    v.labels = spec.labels;
    v.options = spec.driverOptions;
    m_volumes.insert(name, v);
    return v;
}

Result<Docker::VolumeInfo> FakeDockerHost::inspectVolume(const QString &name,
                                                         const Docker::CallOptions &options) const
{
    if (auto ok = enter("inspectVolume", options); !ok)
        return fail(ok.error());
    std::lock_guard lock(m_mutex);
    if (auto it = m_volumes.constFind(name); it != m_volumes.cend())
        return *it;
    return fail(notFound(QStringLiteral("volume"), name));
}

Result<QList<Docker::VolumeInfo>>
FakeDockerHost::listVolumes(const QStringList &labels, const Docker::CallOptions &options) const
{
    if (auto ok = enter("listVolumes", options); !ok)
        return fail(ok.error());
    QList<Docker::VolumeInfo> out;
    std::lock_guard lock(m_mutex);
    for (const Docker::VolumeInfo &v : std::as_const(m_volumes)) {
        if (labelsMatch(v.labels, labels))
            out.append(v);
    }
    return out;
}

Result<void> FakeDockerHost::removeVolume(const QString &name, bool,
                                          const Docker::CallOptions &options) const
{
    if (auto ok = enter("removeVolume", options); !ok)
        return fail(ok.error());
    std::lock_guard lock(m_mutex);
    if (!m_volumes.remove(name))
        return fail(notFound(QStringLiteral("volume"), name));
    return {};
}

// ---- events

Result<void> FakeDockerHost::streamEvents(const Docker::EventFilter &filter,
                                          std::optional<qint64> sinceNano,
                                          std::optional<qint64> untilNano, const EventSink &sink,
                                          const Docker::CallOptions &options) const
{
    if (auto ok = enter("streamEvents", options); !ok)
        return fail(ok.error());
    auto wanted = [&](const Docker::DockerEvent &e) {
        if (!filter.types.isEmpty() && !filter.types.contains(e.type))
            return false;
        if (!filter.events.isEmpty() && !filter.events.contains(e.action))
            return false;
        return labelsMatch(e.attributes, filter.labels);
    };
    qsizetype next = 0;
    std::unique_lock lock(m_mutex);
    if (!sinceNano) // only what happens from now on
        next = m_events.size();
    for (;;) {
        while (next < m_events.size()) {
            const Docker::DockerEvent e = m_events.at(next++);
            if (sinceNano && e.timeNano < *sinceNano)
                continue;
            if (untilNano && e.timeNano > *untilNano)
                return {};
            if (!wanted(e))
                continue;
            lock.unlock();
            const bool more = sink(e);
            lock.lock();
            if (!more)
                return {};
        }
        if (untilNano)
            return {};
        if (options.cancel.isCancelled())
            return fail(Error::Kind::Cancelled, displayName(), QStringLiteral("cancelled"));
        if (m_down.load())
            return fail(Error::Kind::Transport, displayName(),
                        QStringLiteral("connection reset (the fake host went down)"));
        m_changed.wait_for(lock, std::chrono::milliseconds(m_streamPollMs.load()));
    }
}

// ---- scripting and assertions

bool FakeDockerHost::exitContainer(const QString &idOrName, int code)
{
    std::lock_guard lock(m_mutex);
    const QString key = resolveContainer(idOrName);
    if (key.isEmpty())
        return false;
    Container &c = m_containers[key];
    c.state = QStringLiteral("exited");
    c.exitCode = code;
    c.finishedAt = nowText();
    emitEvent(QStringLiteral("die"), c);
    return true;
}

QList<FakeDockerHost::Container> FakeDockerHost::containers() const
{
    std::lock_guard lock(m_mutex);
    makeLateCreates();
    QList<Container> out = m_containers.values();
    std::sort(out.begin(), out.end(),
              [](const Container &a, const Container &b) { return a.spec.name < b.spec.name; });
    return out;
}

std::optional<FakeDockerHost::Container> FakeDockerHost::container(const QString &idOrName) const
{
    std::lock_guard lock(m_mutex);
    const QString key = resolveContainer(idOrName);
    if (key.isEmpty())
        return std::nullopt;
    return m_containers.value(key);
}

int FakeDockerHost::containerCount() const
{
    std::lock_guard lock(m_mutex);
    return int(m_containers.size());
}

int FakeDockerHost::runningCount() const
{
    std::lock_guard lock(m_mutex);
    int n = 0;
    for (const Container &c : std::as_const(m_containers))
        n += c.state == QLatin1String("running") ? 1 : 0;
    return n;
}

QStringList FakeDockerHost::networkNames() const
{
    std::lock_guard lock(m_mutex);
    QStringList out;
    for (const Network &n : std::as_const(m_networks))
        out.append(n.spec.name);
    out.sort();
    return out;
}

QStringList FakeDockerHost::volumeNames() const
{
    std::lock_guard lock(m_mutex);
    QStringList out = m_volumes.keys();
    out.sort();
    return out;
}

int FakeDockerHost::stuckAttachments() const
{
    std::lock_guard lock(m_mutex);
    return m_stuckAttachments;
}

int FakeDockerHost::calls(const QString &call) const
{
    std::lock_guard lock(m_mutex);
    return m_calls.value(call);
}

int FakeDockerHost::totalCalls() const
{
    std::lock_guard lock(m_mutex);
    int n = 0;
    for (int c : std::as_const(m_calls))
        n += c;
    return n;
}

// ---- the fleet

std::shared_ptr<FakeDockerHost> FakeDockerFleet::host(const QString &name)
{
    std::lock_guard lock(m_mutex);
    auto &h = m_hosts[name];
    if (!h)
        h = std::make_shared<FakeDockerHost>(name);
    return h;
}

QList<std::shared_ptr<FakeDockerHost>> FakeDockerFleet::hosts() const
{
    std::lock_guard lock(m_mutex);
    return m_hosts.values();
}

Result<void> FakeDockerFleet::install(HostRegistry &registry, int count, bool swarm)
{
    registry.setHostFactory(
        [this](const HostRecord &record) -> Result<std::shared_ptr<Docker::DockerHost>> {
            return std::shared_ptr<Docker::DockerHost>(host(record.name));
        });
    for (int i = 1; i <= count; ++i) {
        HostRecord h;
        h.name = QStringLiteral("h%1").arg(i);
        // Fake addresses (TEST-NET-2): nothing listens there; the factory answers instead.
        h.endpoint = QStringLiteral("tcp://198.51.%1.%2:2375").arg(i / 250).arg(i % 250 + 1);
        if (swarm)
            host(h.name)->joinSwarm(QStringLiteral("fake-swarm"), i == 1);
        else
            host(h.name);
        HostRegistry::AddOptions options;
        options.testConnection = false;
        if (auto added = registry.add(h, options); !added)
            return fail(added.error());
    }
    return {};
}

void FakeDockerFleet::setCallDelay(std::chrono::microseconds delay)
{
    for (const auto &h : hosts())
        h->setCallDelay(delay);
}

std::chrono::nanoseconds FakeDockerFleet::simulatedTime() const
{
    std::chrono::nanoseconds total{0};
    for (const auto &h : hosts())
        total += h->simulatedTime();
    return total;
}

int FakeDockerFleet::containerCount() const
{
    int n = 0;
    for (const auto &h : hosts())
        n += h->containerCount();
    return n;
}

} // namespace ClusterDeck::TestSupport
