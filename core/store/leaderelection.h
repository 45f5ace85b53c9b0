#pragma once

#include "common/error.h"
#include "leadership.h"
#include "records.h"

#include <chrono>
#include <memory>
#include <optional>

namespace ClusterDeck {

// The controller's leader election (one leader per store) and what the leader publishes (a
// StateStore role).
class LeaderElection
{
public:
    // Waits up to `wait` (0: one try); fails with Kind::Conflict naming the current leader.
    // `ttl`: how long a leader that stops renewing (crashed, frozen, cut off) keeps the
    // leadership.
    virtual Result<std::unique_ptr<Leadership>> campaign(const LeaderRecord &candidate,
                                                         std::chrono::milliseconds wait,
                                                         std::chrono::seconds ttl) = 0;
    // The current leader, if any.
    virtual Result<std::optional<LeaderRecord>> leader() const = 0;
    // Written by the leader after each pass (fenced); read by `reconcile`, `host ls`, the console.
    virtual Result<void> putControllerStatus(const ControllerStatus &status) = 0;
    virtual Result<std::optional<ControllerStatus>> controllerStatus() const = 0;
    // Anyone may ask the leader for a pass soon; returns the number of requests so far.
    virtual Result<qint64> requestControllerPass() = 0;
    virtual Result<qint64> controllerPassRequests() const = 0;

protected:
    ~LeaderElection() = default; // owned as the StateStore it is part of
};

} // namespace ClusterDeck
