#pragma once

#include "common/error.h"
#include "networkclaim.h"
#include "records.h"

#include <optional>

namespace ClusterDeck {

// Multi-node session networks (issue 26, a StateStore role): each session claims a VXLAN id
// (VNI) and a /24 from a pool, in one transaction (SQLite) or one compare-and-swap txn on
// per-VNI and per-subnet keys (etcd), so no two sessions of this store ever get the same VNI or
// overlapping subnets, whichever processes claim at once.
class NetworkAllocationStore
{
public:
    // The session must be stored (NotFound otherwise). `inUse`: networks and VNIs found on the
    // session's hosts (another store, another tool), skipped. An exhausted pool is a Conflict
    // naming it. Idempotent: a session that holds an allocation gets it back unchanged (whatever
    // the pool or `inUse`), so the driver may claim at every attempt, and after a crash.
    Result<NetworkAllocation> claimNetworkAllocation(const QString &sessionId,
                                                     const OverlayPool &pool,
                                                     const OverlayAvoid &inUse = {});
    // After a collision found while creating the network (Docker refused the subnet on a host,
    // the kernel refused the VNI): `collided` is remembered for this session, never handed to it
    // again, and whichever of its VNI and subnet collided (or is in `inUse`) is replaced by the
    // next free one; the other is kept. Without an allocation: a claim that avoids `collided`.
    Result<NetworkAllocation> reclaimNetworkAllocation(const QString &sessionId,
                                                       const OverlayPool &pool,
                                                       const OverlayAvoid &collided,
                                                       const OverlayAvoid &inUse = {});
    // Both of the above: one claim, decided by NetworkClaim::decide inside the transaction.
    virtual Result<NetworkAllocation> claimNetwork(const NetworkClaim &claim) = 0;
    // Frees the session's VNI and subnet (after its network is removed from its hosts). A
    // session without one is fine. Removing the session releases too, in its own transaction.
    virtual Result<void> releaseNetworkAllocation(const QString &sessionId) = 0;
    virtual Result<std::optional<NetworkAllocation>>
    networkAllocation(const QString &sessionId) const = 0;
    // Every allocation, by session id (repair and clean-up read them).
    virtual Result<QList<NetworkAllocation>> networkAllocations() const = 0;

protected:
    ~NetworkAllocationStore() = default; // owned as the StateStore it is part of
};

} // namespace ClusterDeck
