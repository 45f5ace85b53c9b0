#pragma once

#include "store/records.h"
#include "template/clustertemplate.h"

#include <optional>

namespace ClusterDeck {

// The policies a session was launched with, read from its stored spec without decoding the
// whole of it (the controller asks for them on every pass).
struct SessionPolicies
{
    FailurePolicy failure;
    SuccessPolicy success;
    std::optional<qint64> ttlAfterFinishedSeconds;

    static SessionPolicies of(const SessionRecord &session);

    // Does a zero exit of `kernel` count towards the success policy?
    bool coversSuccess(const KernelRecord &kernel) const;
};

} // namespace ClusterDeck
