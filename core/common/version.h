#pragma once

#include <QString>

namespace ClusterDeck {

inline QString versionString()
{
    return QStringLiteral(CLUSTERDECK_VERSION);
}

} // namespace ClusterDeck
