#pragma once

#include "status.h"

#include <QDateTime>
#include <QJsonObject>
#include <QList>
#include <QMap>
#include <QString>
#include <QStringList>

#include <optional>

namespace ClusterDeck {

// One entry of a status history.
struct StatusChange
{
    QString status; // KernelStatus / SessionStatus as text
    QDateTime at;
    QString reason;
    friend bool operator==(const StatusChange &, const StatusChange &) = default;
};

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
    QList<StatusChange> history;
    QList<PortBinding> ports;
    std::optional<double> cpus;
    std::optional<qint64> memoryBytes;
    QDateTime createdAt;
    QDateTime updatedAt;
    friend bool operator==(const KernelRecord &, const KernelRecord &) = default;
};

struct SessionRecord
{
    QString id;
    QString name;
    QString templateName;
    QString templateSnapshot; // the template's YAML as launched
    QJsonObject launchOptions;
    QString mode; // single-node | multi-node
    DesiredState desired = DesiredState::Running;
    SessionStatus status = SessionStatus::Pending;
    QList<StatusChange> history;
    QString lastError;
    QString networkName;
    QString networkId;
    QString networkHost; // host the network was created on (the manager, for overlays)
    int restartCount = 0;
    QDateTime createdAt;
    QDateTime updatedAt;
    friend bool operator==(const SessionRecord &, const SessionRecord &) = default;
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

} // namespace ClusterDeck
