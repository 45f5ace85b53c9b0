#include "networkclaim.h"

namespace ClusterDeck {

Result<NetworkAllocation> NetworkClaim::decide(const std::optional<NetworkAllocation> &current,
                                               const QList<NetworkAllocation> &others,
                                               const QDateTime &now) const
{
    if (current && !reclaim)
        return *current; // a claim is idempotent: the session keeps what it has

    NetworkAllocation next;
    next.sessionId = sessionId;
    if (current)
        next = *current;
    next.avoided.add(collided);

    OverlayAvoid taken = inUse;
    taken.add(next.avoided);
    const OverlayAvoid avoidedHere = taken; // before the other sessions' are added
    for (const NetworkAllocation &other : others) {
        if (other.sessionId == sessionId)
            continue;
        taken.subnets.append(other.subnet);
        taken.vnis.insert(other.vni);
    }

    // Keep what did not collide: a host where the bridge already exists need not be redone for
    // a new VNI, and the other way round.
    bool changed = !current;
    if (!current || avoidedHere.vnis.contains(next.vni)) {
        auto vni = pool.nextFreeVni(taken.vnis);
        if (!vni)
            return fail(vni.error().withContext(
                QStringLiteral("claiming a network for session %1").arg(sessionId)));
        next.vni = *vni;
        changed = true;
    }
    if (!current || avoidedHere.avoids(next.subnet)) {
        auto subnet = pool.nextFreeSubnet(taken.subnets);
        if (!subnet)
            return fail(subnet.error().withContext(
                QStringLiteral("claiming a network for session %1").arg(sessionId)));
        next.subnet = *subnet;
        changed = true;
    }
    if (changed)
        next.claimedAt = now;
    return next;
}

} // namespace ClusterDeck
