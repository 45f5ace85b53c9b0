#include "sessionpolicies.h"

#include "plan/planjson.h"

#include <QJsonObject>

namespace ClusterDeck {

SessionPolicies SessionPolicies::of(const SessionRecord &session)
{
    // The stored spec (SessionSpec::toJson()); its header is all the policies need.
    const ClusterPlan plan = PlanJson::headerFromJson(session.launch.spec);
    SessionPolicies p;
    p.failure = plan.failurePolicy;
    p.success = plan.successPolicy;
    p.ttlAfterFinishedSeconds = plan.ttlAfterFinishedSeconds;
    return p;
}

bool SessionPolicies::coversSuccess(const KernelRecord &kernel) const
{
    switch (success.kind) {
    case SuccessPolicy::Kind::None:
        return false;
    case SuccessPolicy::Kind::PrimaryExits:
        return kernel.primary;
    case SuccessPolicy::Kind::AllExit:
        return true;
    case SuccessPolicy::Kind::RoleExits:
        return kernel.role == success.role;
    }
    return false;
}

} // namespace ClusterDeck
