#include "bridgenetwork.h"

namespace ClusterDeck {

Docker::NetworkSpec BridgeNetwork::specFor(const Scope &) const
{
    Docker::NetworkSpec spec;
    spec.driver = QStringLiteral("bridge");
    return spec;
}

} // namespace ClusterDeck
