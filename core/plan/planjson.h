#pragma once

#include "clusterplan.h"

#include <QJsonObject>

namespace ClusterDeck {

// The plan as JSON (`template render --json`), snake_case like `show --json`. Secret files
// (mode 0600, e.g. the ssh private key) are listed with their size but never with content.
class PlanJson
{
public:
    static QJsonObject toJson(const ClusterPlan &plan);
    static QJsonObject toJson(const KernelSpec &kernel);
};

} // namespace ClusterDeck
