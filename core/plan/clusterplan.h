#pragma once

#include "template/clustertemplate.h"

#include <QByteArray>
#include <QList>
#include <QMap>
#include <QString>
#include <QStringList>

#include <algorithm>

namespace ClusterDeck {

// A file the provisioner puts into a kernel before it starts (bootstrap script, hostfile, keys).
struct PlannedFile
{
    QString path; // absolute path inside the kernel
    QByteArray content;
    int mode = 0644;
    QString owner; // user name as in the task's `user`; empty = the image's default user

    bool isSecret() const { return (mode & 0077) == 0; } // 0600 and the like: never printed
    friend bool operator==(const PlannedFile &, const PlannedFile &) = default;
};

// One kernel, fully decided: nothing downstream (placement, provisioner) needs the template.
struct KernelSpec
{
    QString kernelId;      // UUID, derived from the session id and the hostname
    QString hostname;      // "<role><idx>", e.g. worker12
    QString containerName; // "cd-<short session id>-<hostname>"
    QString role;
    int roleIdx = 1;   // 1-based within the role
    int localRank = 0; // 0-based across the session, in template order
    bool primary = false;

    QString image;
    PullPolicy pullPolicy = PullPolicy::IfNotPresent;
    // What the image was on the host when the kernel was first made ("name@sha256:…", else the
    // image id): later recreations (restart, repair) use exactly that, not whatever the tag is now.
    QString imageDigest;
    // The reference to create from: the recorded digest once there is one.
    const QString &imageToRun() const { return imageDigest.isEmpty() ? image : imageDigest; }
    QStringList entrypoint;
    QStringList command;
    // Run in the kernel after `scale` rewrote the cluster files (template `onScale`); empty: none.
    QString onScale;
    QString workingDir;
    QString user;
    QMap<QString, QString> env;
    QList<PlannedFile> files;
    QList<ServicePort> ports;
    // Where the ports are published: empty = the placed host's registered address; else an IP.
    QString bindAddress;
    Resources resources;
    QList<Mount> mounts;
    QMap<QString, QString> labels;     // container labels, including io.clusterdeck.*
    QMap<QString, QString> hostLabels; // placement constraint: the host must carry all of these

    const PlannedFile *file(const QString &path) const
    {
        for (const PlannedFile &f : files) {
            if (f.path == path)
                return &f;
        }
        return nullptr;
    }
    friend bool operator==(const KernelSpec &, const KernelSpec &) = default;
};

struct RoleCount
{
    QString role;
    int count = 0;
    // The template's bounds, kept so a running session can be scaled within them.
    int min = 0;
    int max = 0;
    // The highest index this role has ever used in the session (0: `count`): a kernel added by
    // `scale` takes the next one, so a hostname is never reused while the session lives.
    int lastIdx = 0;
    int highestIdx() const { return std::max(lastIdx, count); }
    friend bool operator==(const RoleCount &, const RoleCount &) = default;
};

struct ClusterPlan
{
    QString sessionId;
    QString sessionName;
    QString templateName;
    QString networkName;                  // "cd-<short session id>"
    ClusterMode mode = ClusterMode::Auto; // as requested; placement decides `auto`
    std::optional<int> mtu;
    FailurePolicy failurePolicy;
    SuccessPolicy successPolicy;
    std::optional<qint64> ttlAfterFinishedSeconds; // unset: keep until `rm`
    StartupOrder startupOrder = StartupOrder::Parallel;
    QStringList presets;         // effective: `mpi` brings `ssh`
    bool allowHostPaths = false; // the template's opt-in to mounts of host paths
    QList<RoleCount> roles;
    QList<KernelSpec> kernels; // in rank order; kernels.first() is the primary

    QStringList hostnames() const
    {
        QStringList names;
        for (const KernelSpec &k : kernels)
            names.append(k.hostname);
        return names;
    }
    const KernelSpec *kernel(const QString &hostname) const
    {
        for (const KernelSpec &k : kernels) {
            if (k.hostname == hostname)
                return &k;
        }
        return nullptr;
    }
    // The kernels of `role`, in rank order.
    QList<const KernelSpec *> kernelsOf(const QString &role) const
    {
        QList<const KernelSpec *> ofRole;
        for (const KernelSpec &k : kernels) {
            if (k.role == role)
                ofRole.append(&k);
        }
        return ofRole;
    }
    friend bool operator==(const ClusterPlan &, const ClusterPlan &) = default;
};

} // namespace ClusterDeck
