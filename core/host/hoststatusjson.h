#pragma once

#include <QJsonObject>

namespace ClusterDeck {

struct HostStatus;

// The JSON shape of one host in `host ls --json` / `host inspect --json`, beside SessionJson's
// sessions: snake_case; keys are only ever added, never renamed.
class HostStatusJson
{
public:
    static QJsonObject toJson(const HostStatus &status);
};

} // namespace ClusterDeck
