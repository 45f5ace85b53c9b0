#pragma once

#include "reconcileplanner.h"
#include "reconcilereport.h"
#include "store/records.h"

#include <QList>
#include <QSet>
#include <QStringList>

namespace ClusterDeck {

class HostRegistry;
class StateStore;

// The host side of VXLAN session networks, checked by the controller (issue 26, item 4). A
// host that reboots loses its kernel devices; a launch killed in the middle of its rollback can
// leave one. So on each host the controller has not checked since it last answered (every host
// at a new leader's first pass, a host that comes back), and only on hosts that carry this
// store's VXLAN sessions: one helper run lists the host's VXLAN devices; a running session whose
// device is missing or differs is set up again (VxlanNetwork::setUp, which converges, under the
// session's lock; a busy session is left to its holder, which sets it up anyway), and a device
// of this store whose session the store no longer runs is removed. Another store's devices are
// never touched.
class NetworkRepair
{
public:
    NetworkRepair(StateStore *store, HostRegistry *registry);

    // `hosts`: the hosts to check now (reachable ones). Returns the hosts it could check;
    // what it did and what failed go to `report` (notes, warnings).
    QStringList run(const QStringList &hosts, const Observed &observed,
                    const QList<HostRecord> &records, ReconcileReport &report) const;

private:
    StateStore *m_store;
    HostRegistry *m_registry;
};

} // namespace ClusterDeck
