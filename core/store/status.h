#pragma once

#include <QList>
#include <QString>

#include <optional>

namespace ClusterDeck {

// Kernel lifecycle of DESIGN.md: PENDING → SCHEDULED → PREPARING → CREATING → RUNNING →
// (RESTARTING → RUNNING)* → TERMINATING → TERMINATED, or ERROR / CANCELLED.
enum class KernelStatus {
    Pending,
    Scheduled,
    Preparing,
    Creating,
    Running,
    Restarting,
    Terminating,
    Terminated,
    Error,
    Cancelled,
};

// Session status is derived from its kernels; Degraded = some run, others failed.
enum class SessionStatus {
    Pending,
    Provisioning,
    Running,
    Restarting,
    Degraded,
    Terminating,
    Terminated,
    Error,
    Cancelled,
};

// What the admin asked for; the reconciler converges the hosts towards it.
enum class DesiredState { Running, Terminated };

QString toString(KernelStatus status);
QString toString(SessionStatus status);
QString toString(DesiredState state);
std::optional<KernelStatus> kernelStatusFromString(const QString &text);
std::optional<SessionStatus> sessionStatusFromString(const QString &text);
std::optional<DesiredState> desiredStateFromString(const QString &text);

bool isFinal(KernelStatus status);
bool isFinal(SessionStatus status);

// Pure: the session status that the kernels' statuses add up to.
SessionStatus deriveSessionStatus(const QList<KernelStatus> &kernels);

} // namespace ClusterDeck
