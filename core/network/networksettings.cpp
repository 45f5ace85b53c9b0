// TEMPORARY local stub until the settings branch lands.
#include "networksettings.h"
namespace ClusterDeck {
Result<NetworkDriver> NetworkSettings::driver(StateStore &)
{
    return NetworkDriver::Swarm;
}
Result<NetworkSettings::Values> NetworkSettings::read(StateStore &)
{
    return Values{NetworkDriver::Swarm, OverlayPool::defaults(), kDefaultVxlanPort};
}
} // namespace ClusterDeck
