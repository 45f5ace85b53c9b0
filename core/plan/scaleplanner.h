#pragma once

#include "clusterplan.h"
#include "common/error.h"

#include <QMap>
#include <QStringList>

namespace ClusterDeck {

// What `scale SESSION ROLE=N…` changes in a running session's plan.
struct ScalePlan
{
    ClusterPlan plan;    // the session after the scale: kernels in rank order, counts, files
    QStringList added;   // hostnames of the new kernels, in rank order
    QStringList removed; // hostnames of the kernels that go, highest index first
    bool changes() const { return !added.isEmpty() || !removed.isEmpty(); }
};

// Pure. Grows a role with the next indices (never reusing one: RoleCount::lastIdx) and the next
// local ranks, each new kernel a copy of the role's highest surviving kernel with its own
// identity; shrinks a role from its highest index down, never below `min` and never removing the
// primary; refreshes the membership files (hosts, replicas, MPI hostfile, ssh config) of every
// kernel. Ranks and env of surviving kernels never change. Counts outside min..max, unknown
// roles and a role with no kernel to copy are errors that change nothing.
Result<ScalePlan> planScale(const ClusterPlan &current, const QMap<QString, int> &counts);

} // namespace ClusterDeck
