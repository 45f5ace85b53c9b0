#pragma once

#include "common/error.h"
#include "placement/placement.h"
#include "plan/clusterplan.h"

#include <QJsonObject>

#include <optional>

namespace ClusterDeck {

// What the provisioner decided for a session — the resolved plan and its placement — in a form
// the store keeps (inside SessionRecord::launchOptions under "spec"). The reconciler and the
// failure policy read it back, so a crashed launch is completed from exactly the same decisions
// (same kernel ids, same ssh keys, same hosts). Files are kept base64-encoded; the contents of
// secret files (PlannedFile::isSecret) are kept apart, once per session, sealed by the store
// (SessionSecrets, Provisioner::storeSpec / specOf).
struct SessionSpec
{
    ClusterPlan plan;
    Placement placement;
    // Set when the session's secrets could not be opened (on etcd: this console has no store
    // key). The spec still names every kernel, so the session can be shown, stopped and removed,
    // but nothing may be created from it: Provisioner::provision() fails with this error.
    std::optional<Error> secretsUnavailable;

    QJsonObject toJson() const;
    static Result<SessionSpec> fromJson(const QJsonObject &object, const QString &where);
};

} // namespace ClusterDeck
