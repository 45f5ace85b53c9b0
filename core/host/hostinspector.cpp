#include "hostinspector.h"

#include "common/logging.h"
#include "docker/dockerhost.h"
#include "hostregistry.h"
#include "common/boundedexecutor.h"
#include "store/statestore.h"

#include <QElapsedTimer>

#include <algorithm>
#include <limits>

namespace ClusterDeck {

namespace {

QString swarmStateName(Docker::SwarmLocalState state)
{
    switch (state) {
    case Docker::SwarmLocalState::Inactive:
        return QStringLiteral("inactive");
    case Docker::SwarmLocalState::Pending:
        return QStringLiteral("pending");
    case Docker::SwarmLocalState::Active:
        return QStringLiteral("active");
    case Docker::SwarmLocalState::Error:
        return QStringLiteral("error");
    case Docker::SwarmLocalState::Locked:
        return QStringLiteral("locked");
    case Docker::SwarmLocalState::Unknown:
        break;
    }
    return QStringLiteral("unknown");
}

// What is left of one host's budget; at least 1 ms so a spent budget fails fast, not never.
class Deadline
{
public:
    explicit Deadline(std::chrono::milliseconds budget)
        : m_budget(budget)
    {
        m_timer.start();
    }
    Docker::CallOptions call() const
    {
        Docker::CallOptions options;
        options.timeout = std::max(std::chrono::milliseconds(1),
                                   m_budget - std::chrono::milliseconds(m_timer.elapsed()));
        return options;
    }
    qint64 elapsed() const { return m_timer.elapsed(); }

private:
    std::chrono::milliseconds m_budget;
    QElapsedTimer m_timer;
};

} // namespace

HostInspector::HostInspector(HostRegistry *registry, std::chrono::milliseconds timeout)
    : m_registry(registry)
    , m_timeout(timeout)
{}

HostAllocation HostInspector::allocationFor(const QString &hostName,
                                            const QList<KernelRecord> &kernels)
{
    HostAllocation allocation;
    for (const KernelRecord &kernel : kernels) {
        if (kernel.host == hostName && kernel.desired == DesiredState::Running)
            allocation.add(kernel);
    }
    return allocation;
}

HostStatus HostInspector::inspect(const HostRecord &host, const QList<KernelRecord> &kernels) const
{
    return inspectWith(host, allocationFor(host.name, kernels));
}

HostStatus HostInspector::inspectWith(const HostRecord &host, const HostAllocation &allocated) const
{
    HostStatus status;
    status.host = host;
    status.allocated = allocated;
    const Deadline deadline(m_timeout);
    auto finish = [&](const Error &error) {
        status.error = error.toString();
        status.elapsedMs = deadline.elapsed();
        qCDebug(lcHost) << "host" << host.name << "unreachable:" << status.error;
        return status;
    };

    auto client = m_registry->dockerHost(host);
    if (!client)
        return finish(client.error());
    const Docker::DockerHost &docker = **client;

    auto ping = docker.ping(deadline.call());
    if (!ping)
        return finish(ping.error());
    status.daemonApiVersion = ping->apiVersion;
    auto api = docker.apiVersion(deadline.call());
    if (!api)
        return finish(api.error());
    status.apiVersion = *api;
    auto info = docker.info(deadline.call());
    if (!info)
        return finish(info.error());

    status.reachable = true;
    status.dockerVersion = info->serverVersion;
    status.daemonName = info->name;
    status.daemonId = info->id;
    status.operatingSystem = info->operatingSystem;
    status.ncpu = info->ncpu;
    status.memTotal = info->memTotal;
    const Docker::SwarmNodeSummary &swarm = info->swarm;
    status.swarmState = swarmStateName(swarm.localState);
    if (swarm.localState == Docker::SwarmLocalState::Active)
        status.swarmRole =
            swarm.controlAvailable ? QStringLiteral("manager") : QStringLiteral("worker");
    status.swarmNodeId = swarm.nodeId;
    status.swarmNodeAddr = swarm.nodeAddr;
    status.swarmClusterId = swarm.clusterId;
    status.swarmError = swarm.error;

    if (m_listImages) {
        auto images = docker.listImages({}, deadline.call());
        if (!images) {
            // The host answered; a failed image list is worth showing but not "unreachable".
            status.error = images.error().withContext(QStringLiteral("listing images")).toString();
        } else {
            for (const Docker::ImageSummary &image : std::as_const(*images)) {
                bool tagged = false;
                for (const QString &tag : image.repoTags) {
                    if (tag == QLatin1String("<none>:<none>"))
                        continue;
                    status.images.append(tag);
                    tagged = true;
                }
                if (!tagged)
                    status.images.append(image.id.section(QLatin1Char(':'), -1).left(12));
            }
            status.images.sort();
        }
    }
    status.elapsedMs = deadline.elapsed();
    return status;
}

Result<HostStatus> HostInspector::inspect(const QString &name) const
{
    auto host = m_registry->inspect(name);
    if (!host)
        return fail(host.error());
    auto allocated = m_registry->store()->allocationsByHost();
    if (!allocated)
        return fail(allocated.error());
    return inspectWith(*host, allocated->value(name));
}

QList<HostStatus> HostInspector::inspectAll(const QList<HostRecord> &hosts,
                                            const QHash<QString, HostAllocation> &allocated) const
{
    if (hosts.size() == 1)
        return {inspectWith(hosts.first(), allocated.value(hosts.first().name))};
    // An executor of our own: a dead host must not hold a worker of the shared one that others
    // wait for. (Not QThreadPool: its hand-off through Qt's futex-based locks is invisible to
    // ThreadSanitizer, which then reports every reused pool thread as a race.)
    BoundedExecutor::Limits limits;
    limits.maxThreads = static_cast<int>(std::clamp<qsizetype>(hosts.size(), 1, 32));
    BoundedExecutor executor(limits);
    QList<HostStatus> statuses(hosts.size());
    HostStatus *out = statuses.data(); // detached once here, not from the workers
    executor.forEach(static_cast<int>(hosts.size()), [&](int i) {
        out[i] = inspectWith(hosts.at(i), allocated.value(hosts.at(i).name));
    });
    return statuses;
}

Result<QList<HostStatus>> HostInspector::inspectAll() const
{
    auto hosts = m_registry->list();
    if (!hosts)
        return fail(hosts.error());
    auto allocated = m_registry->store()->allocationsByHost();
    if (!allocated)
        return fail(allocated.error());
    return inspectAll(*hosts, *allocated);
}

} // namespace ClusterDeck
