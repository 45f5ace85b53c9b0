#pragma once

#include "common/clustermode.h"

#include <QList>
#include <QMap>
#include <QString>
#include <QStringList>

#include <optional>

namespace ClusterDeck {

// The on-disk formats, as plain values. Loading (TemplateLoader) and saving (TemplateWriter) are
// the only places that know YAML; everything downstream works on these structs.

inline constexpr auto kTemplateApiVersion = "clusterdeck/v1";

// `name:protocol:port`, e.g. `jupyter:http:8080`.
struct ServicePort
{
    QString name;
    QString protocol; // "http" or "tcp"
    int port = 0;

    QString toString() const
    {
        return name + QLatin1Char(':') + protocol + QLatin1Char(':') + QString::number(port);
    }
    friend bool operator==(const ServicePort &, const ServicePort &) = default;
};

struct Mount
{
    enum class Type { Volume, Bind };

    Type type = Type::Volume;
    QString source; // volume name, or an absolute host path for a bind
    QString target; // absolute path inside the kernel
    bool readOnly = false;
    QString driver;                       // volumes only, e.g. "local"
    QMap<QString, QString> driverOptions; // volumes only, e.g. NFS type/o/device

    friend bool operator==(const Mount &, const Mount &) = default;
};

struct Resources
{
    std::optional<double> cpus;
    std::optional<qint64> memoryBytes;
    std::optional<int> gpus; // passed through as a Docker device request

    bool isEmpty() const { return !cpus && !memoryBytes && !gpus; }
    friend bool operator==(const Resources &, const Resources &) = default;
};

// When a host pulls the task's image: only when it lacks it (the default), before every launch,
// or never (the image must already be on every host the placement chose).
enum class PullPolicy { IfNotPresent, Always, Never };

// One kind of kernel.
struct TaskTemplate
{
    QString image;
    std::optional<PullPolicy> pullPolicy; // unset: if-not-present
    QStringList entrypoint;
    QStringList command;
    QString workingDir;
    QString onScale; // run in every kernel after `scale` rewrote /etc/cluster/*
    QString user;
    QMap<QString, QString> env;
    Resources resources;
    QList<Mount> mounts;
    QString bootstrap; // script text; delivered as a file and run before the command
    QList<ServicePort> ports;
    // The host address the ports (declared here or by the image) are published on: empty means
    // the host's registered address (the one its links use); "0.0.0.0" every interface.
    QString bindAddress;
    QMap<QString, QString> labels;

    friend bool operator==(const TaskTemplate &, const TaskTemplate &) = default;
};

struct RoleOverrides
{
    QMap<QString, QString> env;
    QList<ServicePort> ports;
    Resources resources;

    bool isEmpty() const { return env.isEmpty() && ports.isEmpty() && resources.isEmpty(); }
    friend bool operator==(const RoleOverrides &, const RoleOverrides &) = default;
};

struct RoleTemplate
{
    QString name;
    // Set when the task comes from a file; as written, relative to the cluster template's folder.
    // `task` then holds the loaded (and flattened) content of that file.
    QString taskFile;
    TaskTemplate task;
    int min = 1;
    int max = 1;
    int count = 1;
    RoleOverrides overrides;
    QMap<QString, QString> hostLabels; // place this role only on hosts carrying these labels

    friend bool operator==(const RoleTemplate &, const RoleTemplate &) = default;
};

enum class StartupOrder { Parallel, InOrder };

struct FailurePolicy
{
    enum class Action { TerminateSession, RestartSession, Ignore };

    Action action = Action::TerminateSession;
    int maxRestarts = 3; // restart-session only

    friend bool operator==(const FailurePolicy &, const FailurePolicy &) = default;
};

// When a batch session has finished successfully (Kubeflow's / JobSet's success policy): a zero
// exit of the named kernels makes the session COMPLETED, and the other kernels are stopped.
struct SuccessPolicy
{
    enum class Kind {
        None,         // no success: every exit is a failure for the failure policy
        PrimaryExits, // the primary kernel exits with 0
        AllExit,      // every kernel has exited with 0
        RoleExits,    // every kernel of `role` has exited with 0
    };

    Kind kind = Kind::None;
    QString role; // RoleExits only

    friend bool operator==(const SuccessPolicy &, const SuccessPolicy &) = default;
};

struct ClusterTemplate
{
    QString name;
    QString description;
    ClusterMode mode = ClusterMode::Auto;
    std::optional<int> mtu;
    FailurePolicy failurePolicy;
    SuccessPolicy successPolicy;
    // How long a finished (COMPLETED) session keeps its stopped containers; unset: until `rm`.
    std::optional<qint64> ttlAfterFinishedSeconds;
    StartupOrder startupOrder = StartupOrder::Parallel;
    QStringList presets;        // "pytorch", "tensorflow", "mpi", "ssh"
    QMap<QString, QString> env; // applies to every role
    QList<Mount> mounts;        // applies to every role
    QList<RoleTemplate> roles;  // ordered: the first kernel of the first role is the primary
    // Mounts of host paths (binds, volumes whose driver binds a host path) give kernels the host:
    // refused unless the template says so.
    bool allowHostPaths = false;

    const RoleTemplate *role(const QString &roleName) const
    {
        for (const RoleTemplate &r : roles) {
            if (r.name == roleName)
                return &r;
        }
        return nullptr;
    }
    friend bool operator==(const ClusterTemplate &, const ClusterTemplate &) = default;
};

} // namespace ClusterDeck
