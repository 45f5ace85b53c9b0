#pragma once

#include "common/error.h"
#include "common/overlaypool.h"
#include "records.h"

#include <QDateTime>

#include <optional>

namespace ClusterDeck {

// One claim of a session's network, and its decision (pure): given what the store holds, which
// VNI and /24 the session gets. Both backends call decide() inside their transaction, so they
// decide alike; the transaction makes the decision stick or retries it.
struct NetworkClaim
{
    QString sessionId;
    OverlayPool pool;
    OverlayAvoid inUse; // on the session's hosts now: skipped, not remembered
    // Re-claim after a collision on a host: `collided` is added to the session's avoided set
    // (kept in its allocation), and whichever of its VNI and subnet is avoided is replaced.
    bool reclaim = false;
    OverlayAvoid collided;

    // `current`: the session's allocation, if any; `others`: every other session's. Returns the
    // allocation to store, equal to `*current` when nothing changes (a repeated claim).
    Result<NetworkAllocation> decide(const std::optional<NetworkAllocation> &current,
                                     const QList<NetworkAllocation> &others,
                                     const QDateTime &now) const;
};

} // namespace ClusterDeck
