#include "clustermode.h"

namespace ClusterDeck {

QString modeName(ClusterMode mode)
{
    switch (mode) {
    case ClusterMode::SingleNode:
        return QStringLiteral("single-node");
    case ClusterMode::MultiNode:
        return QStringLiteral("multi-node");
    case ClusterMode::Auto:
        return QStringLiteral("auto");
    }
    return {};
}

std::optional<ClusterMode> parseMode(const QString &text)
{
    for (ClusterMode m : {ClusterMode::SingleNode, ClusterMode::MultiNode, ClusterMode::Auto}) {
        if (modeName(m) == text)
            return m;
    }
    return std::nullopt;
}

} // namespace ClusterDeck
