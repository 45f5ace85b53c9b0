#pragma once

#include "sessionnetwork.h"

namespace ClusterDeck {

// A single-node session's network: a Docker bridge on its one host.
class BridgeNetwork final : public SessionNetwork
{
public:
    QString driverName() const override { return QStringLiteral("bridge"); }
    // A host-local bridge: one endpoint released at a time
    // (SessionNetwork::endpointReleasesAtOnce).
    int endpointReleasesAtOnce(int) const override { return 1; }

protected:
    Docker::NetworkSpec specFor(const Scope &scope) const override;
};

} // namespace ClusterDeck
