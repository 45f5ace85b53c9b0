#pragma once

#include "clusterplan.h"
#include "common/error.h"
#include "imagedefaults.h"
#include "launchoptions.h"
#include "template/clustertemplate.h"

namespace ClusterDeck {

// template + launch options + image defaults -> ClusterPlan. Pure: no I/O, no clock, no randomness
// (kernel ids are name-based UUIDs under the session id), so the same inputs give the same plan.
//
// Precedence, lowest first, for env (and ports/mounts where the level has them):
//   image defaults < task template < cluster-wide settings < role overrides < launch options,
// then presets and finally the BACKEND_* variables, which nothing overrides.
Result<ClusterPlan> resolvePlan(const ClusterTemplate &t, const LaunchOptions &opts,
                                const ImageDefaultsMap &images);

namespace PlanPaths {
inline constexpr auto kBootstrapScript = "/etc/cluster/bootstrap.sh";
inline constexpr auto kBootstrapRunner = "/etc/cluster/run.sh";
} // namespace PlanPaths

} // namespace ClusterDeck
