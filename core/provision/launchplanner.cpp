#include "launchplanner.h"

#include "network/vxlanaddressplan.h"
#include "plan/planresolver.h"

namespace ClusterDeck {

Result<LaunchPlan> LaunchPlanner::plan(const ClusterTemplate &t, LaunchOptions options,
                                       const QList<HostCapacity> &hosts,
                                       const ImageDefaultsMap &images, PlacementStrategy strategy,
                                       NetworkDriver driver)
{
    auto plan = resolvePlan(t, options, images);
    if (!plan)
        return fail(plan.error());
    auto placement = place(*plan, hosts, strategy, driver);
    if (placement && plan->mode == ClusterMode::Auto) {
        // `auto` is decided now; resolve again so BACKEND_CLUSTER_MODE says what was chosen.
        options.mode = placement->mode;
        auto decided = resolvePlan(t, options, images);
        if (!decided)
            return fail(decided.error());
        plan = std::move(decided);
    }
    // A VXLAN network gives every host a gateway and every kernel an address of its /24.
    if (placement && placement->mode == ClusterMode::MultiNode &&
        placement->driver == NetworkDriver::Vxlan) {
        if (auto slots = VxlanAddressPlan::assignSlots(*placement, *plan); !slots)
            placement = fail(slots.error());
    }
    return LaunchPlan{std::move(*plan), std::move(placement)};
}

} // namespace ClusterDeck
