#pragma once

#include <QString>

namespace ClusterDeck::ProvisionLabels {

// The labels of docs/design.md on every container and network ClusterDeck creates.
inline QString session()
{
    return QStringLiteral("io.clusterdeck.session");
}
inline QString kernel()
{
    return QStringLiteral("io.clusterdeck.kernel");
}
inline QString role()
{
    return QStringLiteral("io.clusterdeck.role");
}
inline QString roleIdx()
{
    return QStringLiteral("io.clusterdeck.role-idx");
}
inline QString hostname()
{
    return QStringLiteral("io.clusterdeck.hostname");
}
// Added (not in the original list): the store that owns the object, so a reconciler never removes
// what another console's store (or a test's temporary store) still knows about.
inline QString store()
{
    return QStringLiteral("io.clusterdeck.store");
}

} // namespace ClusterDeck::ProvisionLabels
