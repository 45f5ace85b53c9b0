#include "status.h"

#include <array>
#include <utility>

namespace ClusterDeck {

namespace {

constexpr std::array kKernelNames{
    std::pair{KernelStatus::Pending, "PENDING"},
    std::pair{KernelStatus::Scheduled, "SCHEDULED"},
    std::pair{KernelStatus::Preparing, "PREPARING"},
    std::pair{KernelStatus::Creating, "CREATING"},
    std::pair{KernelStatus::Running, "RUNNING"},
    std::pair{KernelStatus::Restarting, "RESTARTING"},
    std::pair{KernelStatus::Terminating, "TERMINATING"},
    std::pair{KernelStatus::Terminated, "TERMINATED"},
    std::pair{KernelStatus::Error, "ERROR"},
    std::pair{KernelStatus::Cancelled, "CANCELLED"},
    std::pair{KernelStatus::Unknown, "UNKNOWN"},
};

constexpr std::array kSessionNames{
    std::pair{SessionStatus::Pending, "PENDING"},
    std::pair{SessionStatus::Provisioning, "PROVISIONING"},
    std::pair{SessionStatus::Running, "RUNNING"},
    std::pair{SessionStatus::Restarting, "RESTARTING"},
    std::pair{SessionStatus::Degraded, "DEGRADED"},
    std::pair{SessionStatus::Terminating, "TERMINATING"},
    std::pair{SessionStatus::Terminated, "TERMINATED"},
    std::pair{SessionStatus::Error, "ERROR"},
    std::pair{SessionStatus::Cancelled, "CANCELLED"},
    std::pair{SessionStatus::Completed, "COMPLETED"},
};

template<typename Enum, typename Table>
QString nameOf(Enum value, const Table &table)
{
    for (const auto &[v, name] : table) {
        if (v == value)
            return QString::fromLatin1(name);
    }
    return QStringLiteral("UNKNOWN");
}

template<typename Enum, typename Table>
std::optional<Enum> valueOf(const QString &text, const Table &table)
{
    const QString upper = text.trimmed().toUpper();
    for (const auto &[v, name] : table) {
        if (upper == QLatin1String(name))
            return v;
    }
    return std::nullopt;
}

} // namespace

QString toString(KernelStatus status)
{
    return nameOf(status, kKernelNames);
}

QString toString(SessionStatus status)
{
    return nameOf(status, kSessionNames);
}

QString toString(DesiredState state)
{
    return state == DesiredState::Running ? QStringLiteral("running")
                                          : QStringLiteral("terminated");
}

std::optional<KernelStatus> kernelStatusFromString(const QString &text)
{
    return valueOf<KernelStatus>(text, kKernelNames);
}

std::optional<SessionStatus> sessionStatusFromString(const QString &text)
{
    return valueOf<SessionStatus>(text, kSessionNames);
}

std::optional<DesiredState> desiredStateFromString(const QString &text)
{
    const QString lower = text.trimmed().toLower();
    if (lower == QLatin1String("running"))
        return DesiredState::Running;
    if (lower == QLatin1String("terminated"))
        return DesiredState::Terminated;
    return std::nullopt;
}

bool isFinal(KernelStatus status)
{
    return status == KernelStatus::Terminated || status == KernelStatus::Error ||
           status == KernelStatus::Cancelled;
}

bool isFinal(SessionStatus status)
{
    return status == SessionStatus::Terminated || status == SessionStatus::Error ||
           status == SessionStatus::Cancelled || status == SessionStatus::Completed;
}

SessionStatus deriveSessionStatus(const QList<KernelStatus> &kernels)
{
    if (kernels.isEmpty())
        return SessionStatus::Pending;
    int running = 0, failed = 0, terminated = 0, cancelled = 0, terminating = 0, restarting = 0,
        early = 0;
    for (KernelStatus s : kernels) {
        switch (s) {
        case KernelStatus::Running:
        case KernelStatus::Unknown:
            ++running;
            break; // not known to have failed: as it was
        case KernelStatus::Error:
            ++failed;
            break;
        case KernelStatus::Terminated:
            ++terminated;
            break;
        case KernelStatus::Cancelled:
            ++cancelled;
            break;
        case KernelStatus::Terminating:
            ++terminating;
            break;
        case KernelStatus::Restarting:
            ++restarting;
            break;
        case KernelStatus::Pending:
        case KernelStatus::Scheduled:
        case KernelStatus::Preparing:
        case KernelStatus::Creating:
            ++early;
            break;
        }
    }
    const int n = int(kernels.size());
    if (running == n)
        return SessionStatus::Running;
    if (terminated == n)
        return SessionStatus::Terminated;
    if (cancelled > 0 && cancelled + terminated == n)
        return SessionStatus::Cancelled;
    if (terminating > 0)
        return SessionStatus::Terminating;
    if (restarting > 0)
        return SessionStatus::Restarting;
    if (running > 0 && (failed > 0 || terminated > 0))
        return SessionStatus::Degraded;
    if (early > 0)
        return SessionStatus::Provisioning;
    if (failed > 0)
        return SessionStatus::Error;
    return SessionStatus::Provisioning;
}

} // namespace ClusterDeck
