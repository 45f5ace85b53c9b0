#pragma once

#include <QList>
#include <QString>

#include <optional>

namespace ClusterDeck {

// Kernel lifecycle (docs/contracts.md, Statuses): PENDING → SCHEDULED → PREPARING → CREATING →
// RUNNING → (RESTARTING → RUNNING)* → TERMINATING → TERMINATED, or ERROR / CANCELLED. UNKNOWN: the
// kernel's host does not answer, so nobody can say (it returns to what the host reports once it
// answers).
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
    Unknown,
};

// Session status is derived from its kernels; Degraded = some run, others failed. Completed: a
// batch session whose success policy was met (a zero exit), final like Terminated.
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
    Completed,
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
