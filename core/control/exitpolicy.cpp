#include "exitpolicy.h"

namespace ClusterDeck {

QString KernelExit::describe(const QString &hostname) const
{
    const QString on = host.isEmpty() ? QString() : QStringLiteral(" on host %1").arg(host);
    if (vanished)
        return QStringLiteral("%1's container was removed outside ClusterDeck%2").arg(hostname, on);
    if (exitCode)
        return QStringLiteral("%1 exited with code %2%3").arg(hostname).arg(*exitCode).arg(on);
    return QStringLiteral("%1 stopped%2").arg(hostname, on);
}

QString ExitDecision::name(Outcome outcome)
{
    switch (outcome) {
    case Outcome::Expected:
        return QStringLiteral("expected");
    case Outcome::KernelSucceeded:
        return QStringLiteral("kernel-succeeded");
    case Outcome::SessionCompleted:
        return QStringLiteral("completed");
    case Outcome::Ignore:
        return QStringLiteral("ignore");
    case Outcome::RestartSession:
        return QStringLiteral("restart-session");
    case Outcome::TerminateSession:
        return QStringLiteral("terminate-session");
    }
    return {};
}

ExitDecision decideExit(const SessionRecord &session, const QList<KernelRecord> &kernels,
                        const SessionPolicies &policies, const KernelExit &exit)
{
    using Outcome = ExitDecision::Outcome;
    ExitDecision d;
    const KernelRecord *kernel = nullptr;
    for (const KernelRecord &k : kernels) {
        if (k.id == exit.kernelId)
            kernel = &k;
    }
    // Only a session that runs by itself has unexpected exits: while a command provisions,
    // restarts or terminates, containers stop on purpose (and the command owns the outcome).
    const bool sessionRuns =
        session.desired == DesiredState::Running &&
        (session.status == SessionStatus::Running || session.status == SessionStatus::Degraded);
    if (!kernel || !sessionRuns)
        return d;
    if (kernel->status != KernelStatus::Running && kernel->status != KernelStatus::Unknown)
        return d;
    if (!exit.containerId.isEmpty() && !kernel->containerId.isEmpty() &&
        exit.containerId != kernel->containerId)
        return d; // an older container of this kernel (replaced by a restart)

    const QString what = exit.describe(kernel->hostname);
    if (!exit.vanished && exit.exitCode == 0 && policies.coversSuccess(*kernel)) {
        // Counts towards success; done when every kernel the policy names has succeeded.
        bool all = true;
        for (const KernelRecord &k : kernels) {
            if (k.id == kernel->id || !policies.coversSuccess(k))
                continue;
            all = all && k.status == KernelStatus::Terminated;
        }
        if (policies.success.kind == SuccessPolicy::Kind::PrimaryExits || all) {
            d.outcome = Outcome::SessionCompleted;
            d.reason = what + QStringLiteral(": the success policy is met, session completed");
        } else {
            d.outcome = Outcome::KernelSucceeded;
            d.reason = what + QStringLiteral(": succeeded");
        }
        return d;
    }

    switch (policies.failure.action) {
    case FailurePolicy::Action::Ignore:
        d.outcome = Outcome::Ignore;
        d.reason = what + QStringLiteral(": failure policy ignore, session degraded");
        break;
    case FailurePolicy::Action::RestartSession:
        if (session.restartCount < policies.failure.maxRestarts) {
            d.outcome = Outcome::RestartSession;
            d.reason = what + QStringLiteral(": restart-session (%1 of %2)")
                                  .arg(session.restartCount + 1)
                                  .arg(policies.failure.maxRestarts);
        } else {
            d.outcome = Outcome::TerminateSession;
            d.reason = what + QStringLiteral(": restart limit (%1) reached, terminate-session")
                                  .arg(policies.failure.maxRestarts);
        }
        break;
    case FailurePolicy::Action::TerminateSession:
        d.outcome = Outcome::TerminateSession;
        d.reason = what + QStringLiteral(": terminate-session");
        break;
    }
    return d;
}

} // namespace ClusterDeck
