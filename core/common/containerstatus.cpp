#include "containerstatus.h"

#include <array>
#include <utility>

namespace ClusterDeck {

namespace {

constexpr std::array<std::pair<ContainerStatus, QLatin1StringView>, 10> kNames{{
    {ContainerStatus::None, QLatin1StringView("")},
    {ContainerStatus::Created, QLatin1StringView("created")},
    {ContainerStatus::Running, QLatin1StringView("running")},
    {ContainerStatus::Paused, QLatin1StringView("paused")},
    {ContainerStatus::Restarting, QLatin1StringView("restarting")},
    {ContainerStatus::Removing, QLatin1StringView("removing")},
    {ContainerStatus::Exited, QLatin1StringView("exited")},
    {ContainerStatus::Dead, QLatin1StringView("dead")},
    {ContainerStatus::Removed, QLatin1StringView("removed")},
    {ContainerStatus::Unknown, QLatin1StringView("unknown")},
}};

} // namespace

QString containerStatusName(ContainerStatus status)
{
    for (const auto &[value, name] : kNames) {
        if (value == status)
            return name;
    }
    return QStringLiteral("unknown");
}

ContainerStatus parseContainerStatus(QStringView text)
{
    for (const auto &[value, name] : kNames) {
        if (text == name)
            return value;
    }
    return ContainerStatus::Unknown;
}

} // namespace ClusterDeck
