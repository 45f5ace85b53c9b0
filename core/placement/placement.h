#pragma once

#include "common/error.h"
#include "common/networkdriver.h"
#include "plan/clusterplan.h"

#include <QList>
#include <QMap>
#include <QString>
#include <QStringList>

namespace ClusterDeck {

// What placement needs to know of one host: capacity minus what ClusterDeck kernels that should be
// running already hold, its labels, and its swarm membership.
struct HostCapacity
{
    QString name;
    int ncpu = 0;
    qint64 memTotal = 0;
    double cpusAllocated = 0;
    qint64 memAllocated = 0;
    QMap<QString, QString> labels;
    bool reachable = true;
    QString unreachableWhy; // what the daemon (or the connection) said, when unreachable
    bool swarmActive = false;
    QString swarmClusterId;
    bool swarmManager = false;

    double cpusFree() const { return ncpu - cpusAllocated; }
    qint64 memFree() const { return memTotal - memAllocated; }
};

enum class PlacementStrategy { Spread, Pack };

struct Placement
{
    ClusterMode mode = ClusterMode::SingleNode; // SingleNode or MultiNode, never Auto
    QMap<QString, QString> hostOf;              // kernel hostname → host name
    QStringList hostsUsed;                      // in the order of first use
    QString networkHost;           // the host for single-node; a swarm manager for multi-node
    QMap<QString, QString> unused; // host → why no kernel goes there ("unreachable: …")
    // Multi-node: the network driver the session was launched with (a spec stored before
    // drivers existed: Swarm). Single-node sessions have a bridge on their host.
    NetworkDriver driver = NetworkDriver::Swarm;
    // VXLAN: where each host's gateway and each kernel sit in the session's /24, as offsets
    // (the subnet may be claimed anew before the network is made; the offsets stay). Assigned
    // once (VxlanAddressPlan::assignSlots) and kept while the session lives.
    QMap<QString, int> gatewaySlots; // host → offset
    QMap<QString, int> addressSlots; // kernel hostname → offset
};

// Pure: decides where every kernel of the plan goes, or says precisely why the plan does not fit
// (which role, and by how much on each host). Gang semantics: all kernels or none.
// Multi-node on `driver`: Swarm needs the hosts in one swarm with a manager (the overlay is made
// there); VXLAN takes any reachable host.
Result<Placement> place(const ClusterPlan &plan, const QList<HostCapacity> &hosts,
                        PlacementStrategy strategy = PlacementStrategy::Spread,
                        NetworkDriver driver = NetworkDriver::Swarm);

// The swarm a multi-node session would use: the one with the most reachable members that has a
// manager (ties: by id); empty when no reachable host is in such a swarm.
QString multiNodeSwarm(const QList<HostCapacity> &hosts);

QString toString(PlacementStrategy strategy);
std::optional<PlacementStrategy> placementStrategyFromString(const QString &text);

} // namespace ClusterDeck
