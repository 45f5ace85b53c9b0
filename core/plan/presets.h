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
    // Membership files every kernel has, kept current by `scale` (rank order; `role count`).
    static constexpr auto kHostsFilePath = "/etc/cluster/hosts";
    static constexpr auto kReplicasFilePath = "/etc/cluster/replicas";

    // The presets a template asks for plus the ones they imply (`mpi` brings `ssh`), in a fixed
    // order.
    static QStringList effective(const QStringList &requested);
    static bool needsSshKeyPair(const QStringList &requested);

    // Adds env and files to every kernel of `plan` (kernels, roles and presets already set).
    static Result<void> apply(ClusterPlan &plan, const std::optional<SshKeyPair> &keys);

    // Adds /etc/cluster/hosts and /etc/cluster/replicas to every kernel, and
    // BACKEND_CLUSTER_HOSTS_FILE.
    static void applyMembershipFiles(ClusterPlan &plan);
    // Sets the content of every file that lists the session's members (hosts, replicas, the MPI
    // hostfile, the ssh config) in every kernel from the plan's current kernels and counts.
    static void refreshMembership(ClusterPlan &plan);
    // Is `path` (of a kernel whose user is `user`) one of the files refreshMembership() sets?
    static bool isMembershipFile(const QString &path, const QString &user);

    // Home folder of a kernel's user: /root for root or an empty user, else /home/<name>.
    static QString homeOf(const QString &user);
};

} // namespace ClusterDeck
