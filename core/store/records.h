#pragma once

#include "common/clustermode.h"
#include "common/containerstatus.h"
#include "common/ipv4cidr.h"
#include "common/overlaypool.h"
#include "launchrecord.h"
#include "status.h"

#include <QDateTime>
#include <QJsonObject>
#include <QList>
#include <QMap>
#include <QString>
#include <QStringList>

#include <optional>

namespace ClusterDeck {

// One entry of a status history: the status a kernel or session went to, when, and why.
template<typename Status>
struct StatusChangeOf
{
    Status status{};
    QDateTime at;
    QString reason;
    friend bool operator==(const StatusChangeOf &, const StatusChangeOf &) = default;
};
using KernelStatusChange = StatusChangeOf<KernelStatus>;
using SessionStatusChange = StatusChangeOf<SessionStatus>;

// A registered Docker host.
struct HostRecord
{
    QString name;
    QString endpoint; // unix:///…, tcp://…, tcp+tls://…
    QString tlsCa;
    QString tlsCert;
    QString tlsKey;
    QString publicAddress; // what a browser can reach; service-port URLs use it
    QMap<QString, QString> labels;
    QDateTime addedAt;
    friend bool operator==(const HostRecord &, const HostRecord &) = default;
};

// A published service port of one kernel, read back from Docker after start.
struct PortBinding
{
    QString name;
    QString protocol; // http | tcp
    int containerPort = 0;
    int hostPort = 0; // 0 until Docker chose one
    QString url;      // http://<public address>:<host port> for http ports
    friend bool operator==(const PortBinding &, const PortBinding &) = default;
};

// What the controller last saw of a kernel's container, from Docker events and listings.
struct KernelObservation
{
    ContainerStatus state = ContainerStatus::None; // None: never seen
    std::optional<int> exitCode; // of the last exit
    QString containerId;         // the container the observation is about
    QDateTime startedAt;         // when that container last started
    QDateTime at;                // when Docker reported it
    friend bool operator==(const KernelObservation &, const KernelObservation &) = default;
};

// One record per container; kernels of one session share sessionId.
struct KernelRecord
{
    QString id;
    QString sessionId;
    QString role;
    int roleIdx = 1;
    int localRank = 0;
    bool primary = false;
    QString hostname;
    QString host; // registered host name
    QString containerName;
    QString containerId;
    KernelStatus status = KernelStatus::Pending;
    DesiredState desired = DesiredState::Running;
    QList<KernelStatusChange> history;
    QList<PortBinding> ports;
    std::optional<double> cpus;
    std::optional<qint64> memoryBytes;
    KernelObservation observed;
    QDateTime createdAt;
    QDateTime updatedAt;

    // Every status change goes through here, so the history never misses one.
    void changeStatus(KernelStatus to, const QDateTime &at, const QString &reason)
    {
        status = to;
        updatedAt = at;
        history.append({to, at, reason});
    }
    friend bool operator==(const KernelRecord &, const KernelRecord &) = default;
};

// Names one kernel of one session.
struct KernelRef
{
    QString sessionId;
    QString kernelId;
    friend bool operator==(const KernelRef &, const KernelRef &) = default;
};

struct SessionRecord
{
    QString id;
    QString name;
    QString templateName;
    QString templateSnapshot; // the template's YAML as launched
    LaunchRecord launch;      // how it was launched, its spec and secrets, an unfinished scale
    ClusterMode mode = ClusterMode::Auto; // SingleNode or MultiNode once placed; Auto before
    DesiredState desired = DesiredState::Running;
    SessionStatus status = SessionStatus::Pending;
    QList<SessionStatusChange> history;
    QString lastError;
    QString networkName;
    QString networkId;
    QString networkHost; // host the network was created on (the manager, for overlays)
    int restartCount = 0;
    QDateTime finishedAt; // when it became COMPLETED (ttlAfterFinished counts from here)
    QDateTime createdAt;
    QDateTime updatedAt;

    // Every status change goes through here, so the history never misses one.
    void changeStatus(SessionStatus to, const QDateTime &at, const QString &reason)
    {
        status = to;
        updatedAt = at;
        history.append({to, at, reason});
    }
    friend bool operator==(const SessionRecord &, const SessionRecord &) = default;
};

// The controller's leader (one per store). `term` is the fencing token: it grows with every new
// leader (etcd: the create revision of the leader key; SQLite: a counter), and every write of the
// leader is conditioned on it, so a deposed leader can never write.
struct LeaderRecord
{
    QString ownerId; // random, one per controller instance (not a pid: PID namespaces)
    QString hostname;
    qint64 pid = 0;
    QString actor; // "controller@host", for the event log and the status bar
    QDateTime since;
    qint64 term = 0;
    friend bool operator==(const LeaderRecord &, const LeaderRecord &) = default;
};

// Reachability of one host, as the controller last saw it.
struct HostHealth
{
    bool up = false;
    QString reason; // why it is down
    QDateTime since;
    friend bool operator==(const HostHealth &, const HostHealth &) = default;
};

// What the leader publishes after a pass that says something new (and the first of a leadership,
// and one `reconcile` asked for); `reconcile` and the console read it.
struct ControllerStatus
{
    QString ownerId;
    QString actor;
    qint64 passes = 0;
    QDateTime lastPassAt;
    QJsonObject lastReport; // ReconcileReport::toJson() of the last pass
    QMap<QString, HostHealth> hosts;
    friend bool operator==(const ControllerStatus &, const ControllerStatus &) = default;
};

// Append-only event log entry: who did what to which session/kernel, when.
struct EventRecord
{
    qint64 seq = 0; // assigned by the store, increasing
    QDateTime at;
    QString actor; // "alice@console1", "reconciler", "watch"
    QString sessionId;
    QString kernelId;
    QString action; // "launch", "kernel-status", "restart", "terminate", "policy", …
    QString detail;
    friend bool operator==(const EventRecord &, const EventRecord &) = default;
};

// The network of one multi-node session (issue 26): its VXLAN id and its /24, claimed from the
// pool in one transaction (StateStore::claimNetworkAllocation), so that no two sessions of one
// store share either. Kept until released, or until the session record is removed.
struct NetworkAllocation
{
    QString sessionId;
    quint32 vni = 0;
    Ipv4Cidr subnet;      // always a /24
    OverlayAvoid avoided; // what collided on this session's hosts: never claimed again for it
    QDateTime claimedAt;  // when the VNI or the subnet last changed
    friend bool operator==(const NetworkAllocation &, const NetworkAllocation &) = default;
};

// A stored record that cannot be decoded (corrupt, or written by a build that knows more). It is
// listed apart so one bad record does not hide the others; the controller refuses to act while
// one exists (treating its containers as orphans would remove live work).
struct UndecodableRecord
{
    // "etcd … key /clusterdeck/sessions/<id>", "state store …, table sessions, row id <id>"
    QString key;
    QString message; // why it cannot be read
    QString toString() const { return key + QStringLiteral(": ") + message; }
};

struct SessionListing
{
    QList<SessionRecord> sessions;        // the records that decode, oldest first
    QList<UndecodableRecord> undecodable; // the others
};

} // namespace ClusterDeck
