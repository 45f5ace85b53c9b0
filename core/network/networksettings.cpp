// TEMPORARY local stub until the settings branch lands: defaults only.
#include "networksettings.h"
namespace ClusterDeck {
Result<NetworkDriver> NetworkSettings::driver(StateStore &)
{
    return NetworkDriver::Vxlan;
}
Result<NetworkSettings::Values> NetworkSettings::read(StateStore &)
{
    return Values{};
}
} // namespace ClusterDeck
