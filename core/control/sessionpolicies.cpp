#include "sessionpolicies.h"

#include "template/templatevalues.h"

#include <QJsonObject>

namespace ClusterDeck {

SessionPolicies SessionPolicies::of(const SessionRecord &session)
{
    // The keys of SessionSpec::toJson().
    const QJsonObject spec = session.launchOptions.value(QLatin1StringView("spec")).toObject();
    SessionPolicies p;
    p.failure.action = TemplateValues::parseFailureAction(
                           spec.value(QLatin1StringView("failure_action")).toString())
                           .value_or(FailurePolicy::Action::TerminateSession);
    p.failure.maxRestarts = spec.value(QLatin1StringView("max_restarts")).toInt(3);
    const QJsonObject success = spec.value(QLatin1StringView("success_policy")).toObject();
    const QString kind = success.value(QLatin1StringView("kind")).toString();
    if (kind == QLatin1String("primary-exits")) {
        p.success.kind = SuccessPolicy::Kind::PrimaryExits;
    } else if (kind == QLatin1String("all-exit")) {
        p.success.kind = SuccessPolicy::Kind::AllExit;
    } else if (kind == QLatin1String("role-exits")) {
        p.success.kind = SuccessPolicy::Kind::RoleExits;
        p.success.role = success.value(QLatin1StringView("role")).toString();
    }
    if (spec.contains(QLatin1StringView("ttl_after_finished_seconds")))
        p.ttlAfterFinishedSeconds =
            qint64(spec.value(QLatin1StringView("ttl_after_finished_seconds")).toDouble());
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
