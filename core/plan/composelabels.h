#pragma once

#include "clusterplan.h"

#include <QString>

namespace ClusterDeck::ComposeLabels {

// The compose project name a session is shown under. Compose takes only names made of lowercase
// letters, digits, '-' and '_' that start with a letter or digit; a session name compose takes is
// used as it is. Any other is normalised: ASCII letters are lower-cased, every run of other
// characters becomes one '-', and leading '-'/'_' (and a '-' that replaced a trailing run) are
// dropped: "Training Run #3" -> "training-run-3". A name left empty ("", "日本") becomes the
// session's network name, cd-<first 8 characters of the session id>.
QString projectName(const QString &sessionName, const QString &sessionId);

// Whether compose takes `name` as a project name as it is.
bool isValidProjectName(const QString &name);

// Sets the compose labels of one kernel: project, service (its role), container number (its
// role index), a config hash (of what the role's containers are made from: image, entrypoint,
// command, working dir, user, ports, resources, mounts), oneoff=False and an empty
// project.config_files (a session has no compose file). Call once the kernel's
// spec is complete. Informative only: nothing in ClusterDeck reads them back.
void apply(KernelSpec &kernel, const QString &project);

} // namespace ClusterDeck::ComposeLabels
