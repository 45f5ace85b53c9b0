#pragma once

#include "common/error.h"
#include "placement/placement.h"
#include "plan/clusterplan.h"

#include <QJsonObject>

#include <optional>

namespace ClusterDeck {

struct LaunchRecord;
struct SessionRecord;
class SecretStore;

// What the provisioner decided for a session — the resolved plan and its placement — in a form
// the store keeps (SessionRecord::launch, its `spec`). The reconciler and the
// failure policy read it back, so a crashed launch is completed from exactly the same decisions
// (same kernel ids, same ssh keys, same hosts). Files are kept base64-encoded; the contents of
// secret files (PlannedFile::isSecret) are kept apart, once per session, sealed by the store
// (SessionSecrets, storeInto / fromRecord).
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

    // The spec a session's record holds (its launch record's spec, with the secrets of its
    // `secrets` opened by `store`). Secrets that cannot be opened (no store key)
    // do not fail it: they set secretsUnavailable.
    static Result<SessionSpec> fromRecord(const SessionRecord &session, const SecretStore &store);
    // Writes the spec into a session's launch record: the spec without secret contents, and
    // the secrets once, sealed by `store` (fails without the store key on etcd; then the
    // record is unchanged).
    Result<void> storeInto(SecretStore &store, LaunchRecord &launch) const;
};

} // namespace ClusterDeck
