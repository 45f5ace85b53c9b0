#pragma once

#include "clusterplan.h"
#include "common/error.h"
#include "sshkeypair.h"

#include <optional>

namespace ClusterDeck {

// Framework conventions added on top of the BACKEND_* environment. Pure: the keypair is an
// argument.
class Presets
{
public:
    static constexpr int kPyTorchMasterPort = 29500;
    static constexpr int kTensorFlowPort = 2222;
    static constexpr auto kHostfilePath = "/etc/cluster/hostfile";

    // The presets a template asks for plus the ones they imply (`mpi` brings `ssh`), in a fixed
    // order.
    static QStringList effective(const QStringList &requested);
    static bool needsSshKeyPair(const QStringList &requested);

    // Adds env and files to every kernel of `plan` (kernels, roles and presets already set).
    static Result<void> apply(ClusterPlan &plan, const std::optional<SshKeyPair> &keys);

    // Home folder of a kernel's user: /root for root or an empty user, else /home/<name>.
    static QString homeOf(const QString &user);
};

} // namespace ClusterDeck
