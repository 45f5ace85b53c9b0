#include "networkdriver.h"

namespace ClusterDeck {

QString networkDriverName(NetworkDriver driver)
{
    return driver == NetworkDriver::Swarm ? QStringLiteral("swarm") : QStringLiteral("vxlan");
}

std::optional<NetworkDriver> parseNetworkDriver(const QString &text)
{
    const QString t = text.trimmed().toLower();
    if (t == QLatin1String("vxlan"))
        return NetworkDriver::Vxlan;
    if (t == QLatin1String("swarm"))
        return NetworkDriver::Swarm;
    return std::nullopt;
}

} // namespace ClusterDeck
