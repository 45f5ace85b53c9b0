#pragma once

#include "common/error.h"
#include "common/networkdriver.h"
#include "placement/placement.h"
#include "plan/clusterplan.h"
#include "plan/imagedefaults.h"
#include "plan/launchoptions.h"
#include "template/clustertemplate.h"

namespace ClusterDeck {

// What a launch makes of a template on given hosts.
struct LaunchPlan
{
    ClusterPlan plan;            // with `auto` decided when the placement decided it
    Result<Placement> placement; // why it does not fit, when it does not
};

// The one place where a template, its options, the hosts' capacities and the images' defaults
// become a plan and a placement. Pure: Provisioner::prepare/preview call it with the hosts and
// images they surveyed, and the console's launch dialog with what the console knows, so that
// its preview is what the launch will do (issue 25: the dialog had its own copy, without the
// images' defaults and without deciding `auto`).
class LaunchPlanner
{
public:
    // An error when the template cannot be resolved with these options; a placement that fails
    // is in LaunchPlan::placement.
    static Result<LaunchPlan> plan(const ClusterTemplate &t, LaunchOptions options,
                                   const QList<HostCapacity> &hosts, const ImageDefaultsMap &images,
                                   PlacementStrategy strategy, NetworkDriver driver);
};

} // namespace ClusterDeck
