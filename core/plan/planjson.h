#pragma once

#include "clusterplan.h"

#include <QJsonObject>

namespace ClusterDeck {

// The one JSON form of a plan and its kernels, snake_case like `show --json`. Two uses share it:
// `template render --json` shows it, and the store keeps it (SessionSpec, under
// SessionRecord::launch.spec), so the keys cannot drift apart. They differ only in the
// file contents: shown as text with their size (secret files, mode 0600, never with content), or
// stored base64-encoded for a byte-exact round trip.
class PlanJson
{
public:
    enum class Files { Shown, Stored };

    static QJsonObject toJson(const ClusterPlan &plan, Files files = Files::Shown);
    // Everything but the kernels: what SessionSpec stores beside its own kernel encoding.
    static QJsonObject headerToJson(const ClusterPlan &plan);
    static QJsonObject toJson(const KernelSpec &kernel, Files files = Files::Shown);
    static QJsonArray filesToJson(const QList<PlannedFile> &files, Files form);
    // Parts of a kernel's form, for what hashes them alone (ComposeLabels' config hash).
    static QJsonArray portsToJson(const QList<ServicePort> &ports);
    static QJsonObject resourcesToJson(const Resources &resources);
    static QJsonArray mountsToJson(const QList<Mount> &mounts);

    // Read back a stored form (kernels excluded from the header). Records written before the keys
    // were shared (`kernel_id`, `port`, a numeric `memory`, `session_name`, flat
    // `failure_action`/`max_restarts`) still read.
    static ClusterPlan headerFromJson(const QJsonObject &object);
    static KernelSpec kernelFromJson(const QJsonObject &object);
    static QList<PlannedFile> filesFromJson(const QJsonArray &files);
    // A file's mode as the stored form writes it ("0600"), or as older records did (384).
    static int fileMode(const QJsonObject &file);
};

} // namespace ClusterDeck
