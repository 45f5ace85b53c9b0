#pragma once

#include "common/error.h"
#include "placement/placement.h"
#include "plan/clusterplan.h"

#include <QJsonObject>

namespace ClusterDeck {

// What the provisioner decided for a session — the resolved plan and its placement — in a form
// the store keeps (inside SessionRecord::launchOptions under "spec"). The reconciler and the
// failure policy read it back, so a crashed launch is completed from exactly the same decisions
// (same kernel ids, same ssh keys, same hosts). Files are kept base64-encoded; the store is as
// private as the user's data directory.
struct SessionSpec
{
    ClusterPlan plan;
    Placement placement;

    QJsonObject toJson() const;
    static Result<SessionSpec> fromJson(const QJsonObject &object, const QString &where);
};

} // namespace ClusterDeck
