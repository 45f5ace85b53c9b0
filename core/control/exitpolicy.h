#pragma once

#include "sessionpolicies.h"
#include "store/records.h"

#include <optional>

namespace ClusterDeck {

// A kernel's container stopped running without a command asking for it: it exited (Docker's
// `die`, or found exited by a resync) or vanished (removed behind ClusterDeck's back).
struct KernelExit
{
    QString kernelId;
    QString containerId;         // of the container that stopped; empty when unknown
    std::optional<int> exitCode; // empty when vanished or unknown
    bool vanished = false;
    QString host;

    QString describe(const QString &hostname) const;
};

// What the session's policies make of one kernel exit. Pure: the controller applies it.
struct ExitDecision
{
    enum class Outcome {
        Expected,         // nothing to decide: a command is at work, or the record moved on
        KernelSucceeded,  // a zero exit the success policy counts; the session goes on
        SessionCompleted, // the success policy is met: stop the others, session COMPLETED
        Ignore,           // failure policy `ignore`: the kernel is ERROR, the session DEGRADED
        RestartSession,   // failure policy `restart-session`, below its limit
        TerminateSession, // failure policy `terminate-session`, or the restart limit reached
    };
    Outcome outcome = Outcome::Expected;
    QString reason; // "worker2 exited with code 137 on host h2: restart-session (1 of 3)"

    static QString name(Outcome outcome);
};

ExitDecision decideExit(const SessionRecord &session, const QList<KernelRecord> &kernels,
                        const SessionPolicies &policies, const KernelExit &exit);

} // namespace ClusterDeck
