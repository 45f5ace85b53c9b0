#pragma once

#include "store/hostallocation.h"
#include "store/records.h"

#include <QMap>
#include <QString>
#include <QStringList>

#include <optional>

namespace ClusterDeck {

// The live state of one registered host, as one round of queries saw it.
struct HostStatus
{
    HostRecord host;
    bool reachable = false;
    QString error; // why it is unreachable (or what part of the query failed)

    QString dockerVersion; // "20.10.24"
    QString apiVersion;    // negotiated: min(client max, daemon)
    QString daemonApiVersion;
    QString daemonName;
    QString daemonId;
    QString operatingSystem;

    // Swarm: "inactive", "pending", "active", "error", "locked"
    QString swarmState;
    QString swarmRole; // "manager", "worker" or empty when not in a swarm
    QString swarmNodeId;
    QString swarmNodeAddr;
    QString swarmClusterId; // only managers know it
    QString swarmError;

    int ncpu = 0;
    qint64 memTotal = 0;
    HostAllocation allocated;
    QStringList images; // "repo:tag" (or the id when untagged), sorted

    qint64 elapsedMs = 0; // how long the query took
};

} // namespace ClusterDeck
