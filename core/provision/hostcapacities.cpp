#include "hostcapacities.h"

#include "common/logging.h"
#include "docker/dockerhost.h"
#include "host/hostinspector.h"
#include "host/hostregistry.h"

namespace ClusterDeck {

QList<HostCapacity> HostCapacities::fromStatuses(const QList<HostStatus> &statuses,
                                                 const QHash<QString, QString> &clusterOfNode)
{
    QList<HostCapacity> hosts;
    for (const HostStatus &s : statuses) {
        HostCapacity h;
        h.name = s.host.name;
        h.ncpu = s.ncpu;
        h.memTotal = s.memTotal;
        h.cpusAllocated = s.allocated.cpus;
        h.memAllocated = s.allocated.memoryBytes;
        h.labels = s.host.labels;
        h.reachable = s.reachable;
        if (!s.reachable)
            h.unreachableWhy = s.error;
        h.swarmActive = s.swarmState == QLatin1String("active");
        h.swarmManager = s.swarmRole == QLatin1String("manager");
        h.swarmClusterId = s.swarmClusterId;
        if (h.swarmClusterId.isEmpty() && h.swarmActive)
            h.swarmClusterId = clusterOfNode.value(s.swarmNodeId);
        hosts.append(h);
    }
    return hosts;
}

Result<QList<HostCapacity>> HostCapacities::survey(HostRegistry *registry,
                                                   QList<HostStatus> *statusesOut)
{
    HostInspector inspector(registry);
    inspector.setListImages(false);
    auto statuses = inspector.inspectAll();
    if (!statuses)
        return fail(statuses.error());
    QHash<QString, QString> clusterOfNode;
    for (const HostStatus &s : std::as_const(*statuses)) {
        if (!s.reachable || s.swarmRole != QLatin1String("manager") || s.swarmClusterId.isEmpty())
            continue;
        auto client = registry->dockerHost(s.host);
        if (!client)
            continue;
        Docker::CallOptions options;
        options.timeout = std::chrono::milliseconds(5000);
        auto nodes = (*client)->listNodes(options);
        if (!nodes) {
            qCWarning(lcProvision) << "listing the swarm nodes of" << s.host.name
                                   << "failed:" << nodes.error().toString();
            continue;
        }
        for (const Docker::NodeInfo &n : std::as_const(*nodes)) {
            if (n.state == QLatin1String("ready"))
                clusterOfNode.insert(n.id, s.swarmClusterId);
        }
    }
    if (statusesOut)
        *statusesOut = *statuses;
    return fromStatuses(*statuses, clusterOfNode);
}

} // namespace ClusterDeck
