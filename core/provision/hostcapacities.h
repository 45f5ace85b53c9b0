#pragma once

#include "common/error.h"
#include "host/hoststatus.h"
#include "placement/placement.h"

#include <QHash>
#include <QList>

namespace ClusterDeck {

class HostRegistry;

// Turns a round of host queries into what placement needs. Workers do not know their swarm's id
// (only managers do), so it is filled in from the managers' node lists.
class HostCapacities
{
public:
    // Pure. `clusterOfNode` maps a swarm node id to its cluster id (from the managers).
    static QList<HostCapacity> fromStatuses(const QList<HostStatus> &statuses,
                                            const QHash<QString, QString> &clusterOfNode);

    // Queries every registered host (in parallel) and the managers' node lists. Blocking.
    static Result<QList<HostCapacity>> survey(HostRegistry *registry,
                                              QList<HostStatus> *statuses = nullptr);
};

} // namespace ClusterDeck
