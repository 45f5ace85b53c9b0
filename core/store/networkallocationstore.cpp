#include "networkallocationstore.h"

namespace ClusterDeck {

Result<NetworkAllocation> NetworkAllocationStore::claimNetworkAllocation(const QString &sessionId,
                                                                         const OverlayPool &pool,
                                                                         const OverlayAvoid &inUse)
{
    NetworkClaim claim;
    claim.sessionId = sessionId;
    claim.pool = pool;
    claim.inUse = inUse;
    return claimNetwork(claim);
}

Result<NetworkAllocation>
NetworkAllocationStore::reclaimNetworkAllocation(const QString &sessionId, const OverlayPool &pool,
                                                 const OverlayAvoid &collided,
                                                 const OverlayAvoid &inUse)
{
    NetworkClaim claim;
    claim.sessionId = sessionId;
    claim.pool = pool;
    claim.inUse = inUse;
    claim.reclaim = true;
    claim.collided = collided;
    return claimNetwork(claim);
}

} // namespace ClusterDeck
