#include "control/exitpolicy.h"

#include <QTest>

using namespace ClusterDeck;

// decideExit() is pure: a session, its kernels, its policies and one kernel exit in; the outcome
// and the reason the event log shows out.

namespace {

using Outcome = ExitDecision::Outcome;

// A session as the rows need it: RUNNING, `launcher1` (primary, host h1) and `worker1`..`workerN`
// (host h2), every kernel RUNNING with container "c-<hostname>".
struct Case
{
    SessionRecord session;
    QList<KernelRecord> kernels;
    SessionPolicies policies;
    KernelExit exit;

    Case &workers(int n)
    {
        kernels.removeIf([](const KernelRecord &k) { return k.role == QLatin1String("worker"); });
        for (int i = 1; i <= n; ++i)
            kernels.append(kernel(QStringLiteral("worker"), i, QStringLiteral("h2")));
        return *this;
    }
    Case &status(SessionStatus s, DesiredState d = DesiredState::Running)
    {
        session.status = s;
        session.desired = d;
        return *this;
    }
    Case &restarts(int count)
    {
        session.restartCount = count;
        return *this;
    }
    Case &failure(FailurePolicy::Action action, int maxRestarts = 3)
    {
        policies.failure = {action, maxRestarts};
        return *this;
    }
    Case &success(SuccessPolicy::Kind kind, const QString &role = {})
    {
        policies.success = {kind, role};
        return *this;
    }
    Case &kernelStatus(const QString &hostname, KernelStatus s)
    {
        find(hostname).status = s;
        return *this;
    }
    // `hostname`'s container stopped with `code` (nullopt: unknown).
    Case &exits(const QString &hostname, std::optional<int> code)
    {
        const KernelRecord &k = find(hostname);
        exit = {k.id, k.containerId, code, false, k.host};
        return *this;
    }
    Case &vanishes(const QString &hostname)
    {
        const KernelRecord &k = find(hostname);
        exit = {k.id, k.containerId, std::nullopt, true, k.host};
        return *this;
    }
    Case &fromContainer(const QString &containerId)
    {
        exit.containerId = containerId;
        return *this;
    }

    static KernelRecord kernel(const QString &role, int idx, const QString &host)
    {
        KernelRecord k;
        k.hostname = role + QString::number(idx);
        k.id = QStringLiteral("k-") + k.hostname;
        k.sessionId = QStringLiteral("s1");
        k.role = role;
        k.roleIdx = idx;
        k.host = host;
        k.containerId = QStringLiteral("c-") + k.hostname;
        k.status = KernelStatus::Running;
        return k;
    }

    KernelRecord &find(const QString &hostname)
    {
        for (KernelRecord &k : kernels) {
            if (k.hostname == hostname)
                return k;
        }
        qFatal("no kernel %s", qPrintable(hostname));
        return kernels.first();
    }
};

Case job(int workers = 2)
{
    Case c;
    c.session.id = QStringLiteral("s1");
    c.session.name = QStringLiteral("job");
    c.session.status = SessionStatus::Running;
    KernelRecord launcher = Case::kernel(QStringLiteral("launcher"), 1, QStringLiteral("h1"));
    launcher.primary = true;
    launcher.localRank = 0;
    c.kernels.append(launcher);
    c.workers(workers);
    return c;
}

const QString w1 = QStringLiteral("worker1");
const QString w2 = QStringLiteral("worker2");
const QString l1 = QStringLiteral("launcher1");

} // namespace

Q_DECLARE_METATYPE(Case)

class TestExitPolicy : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void decide_data();
    void decide();
    void outcomeNames();
};

void TestExitPolicy::decide_data()
{
    QTest::addColumn<Case>("input");
    QTest::addColumn<Outcome>("outcome");
    QTest::addColumn<QString>("reason"); // exact; empty for Expected

    using A = FailurePolicy::Action;
    using S = SuccessPolicy::Kind;

    // Failure policy: any exit ClusterDeck did not cause.
    QTest::newRow("terminate-session")
        << job().failure(A::TerminateSession).exits(w1, 137) << Outcome::TerminateSession
        << "worker1 exited with code 137 on host h2: terminate-session";
    QTest::newRow("ignore")
        << job().failure(A::Ignore).exits(w1, 1) << Outcome::Ignore
        << "worker1 exited with code 1 on host h2: failure policy ignore, session degraded";
    QTest::newRow("ignore again in a DEGRADED session")
        << job().failure(A::Ignore).status(SessionStatus::Degraded).exits(w2, 1) << Outcome::Ignore
        << "worker2 exited with code 1 on host h2: failure policy ignore, session degraded";
    QTest::newRow("restart-session, first restart")
        << job().failure(A::RestartSession, 3).exits(w1, 137) << Outcome::RestartSession
        << "worker1 exited with code 137 on host h2: restart-session (1 of 3)";
    QTest::newRow("restart-session, last one below the limit")
        << job().failure(A::RestartSession, 3).restarts(2).exits(w1, 137) << Outcome::RestartSession
        << "worker1 exited with code 137 on host h2: restart-session (3 of 3)";
    QTest::newRow("restart-session at the limit: terminate")
        << job().failure(A::RestartSession, 3).restarts(3).exits(w1, 137)
        << Outcome::TerminateSession
        << "worker1 exited with code 137 on host h2: restart limit (3) reached, terminate-session";
    QTest::newRow("restart-session with maxRestarts 0: terminate at once")
        << job().failure(A::RestartSession, 0).exits(l1, 2) << Outcome::TerminateSession
        << "launcher1 exited with code 2 on host h1: restart limit (0) reached, terminate-session";
    QTest::newRow("a vanished kernel")
        << job().failure(A::RestartSession, 2).vanishes(w2) << Outcome::RestartSession
        << "worker2's container was removed outside ClusterDeck on host h2: restart-session (1 of "
           "2)";
    QTest::newRow("an exit whose code is unknown")
        << job().failure(A::TerminateSession).exits(w1, std::nullopt) << Outcome::TerminateSession
        << "worker1 stopped on host h2: terminate-session";
    QTest::newRow("a zero exit without a success policy is a failure")
        << job().failure(A::TerminateSession).exits(l1, 0) << Outcome::TerminateSession
        << "launcher1 exited with code 0 on host h1: terminate-session";
    QTest::newRow("an UNKNOWN kernel (host was down) found exited")
        << job().failure(A::Ignore).kernelStatus(w1, KernelStatus::Unknown).exits(w1, 143)
        << Outcome::Ignore
        << "worker1 exited with code 143 on host h2: failure policy ignore, session degraded";
    QTest::newRow("exit of a container whose id is unknown")
        << job().failure(A::TerminateSession).exits(w1, 1).fromContainer({})
        << Outcome::TerminateSession << "worker1 exited with code 1 on host h2: terminate-session";

    // successPolicy primary-exits
    QTest::newRow("primary-exits: the primary exits 0")
        << job().failure(A::RestartSession).success(S::PrimaryExits).exits(l1, 0)
        << Outcome::SessionCompleted
        << "launcher1 exited with code 0 on host h1: the success policy is met, session completed";
    QTest::newRow("primary-exits: the primary exits 1: failure policy")
        << job().failure(A::RestartSession).success(S::PrimaryExits).exits(l1, 1)
        << Outcome::RestartSession
        << "launcher1 exited with code 1 on host h1: restart-session (1 of 3)";
    QTest::newRow("primary-exits: a worker exits 0: not covered, failure policy")
        << job().failure(A::TerminateSession).success(S::PrimaryExits).exits(w1, 0)
        << Outcome::TerminateSession << "worker1 exited with code 0 on host h2: terminate-session";
    QTest::newRow("primary-exits: the primary vanishes: failure policy")
        << job().failure(A::TerminateSession).success(S::PrimaryExits).vanishes(l1)
        << Outcome::TerminateSession
        << "launcher1's container was removed outside ClusterDeck on host h1: terminate-session";
    QTest::newRow("primary-exits: the primary's exit code unknown: failure policy")
        << job().failure(A::Ignore).success(S::PrimaryExits).exits(l1, std::nullopt)
        << Outcome::Ignore
        << "launcher1 stopped on host h1: failure policy ignore, session degraded";

    // successPolicy all-exit
    QTest::newRow("all-exit: the first kernel exits 0: succeeded")
        << job().success(S::AllExit).exits(w1, 0) << Outcome::KernelSucceeded
        << "worker1 exited with code 0 on host h2: succeeded";
    QTest::newRow("all-exit: one still runs: succeeded")
        << job().success(S::AllExit).kernelStatus(l1, KernelStatus::Terminated).exits(w2, 0)
        << Outcome::KernelSucceeded << "worker2 exited with code 0 on host h2: succeeded";
    QTest::newRow("all-exit: the last kernel exits 0: completed")
        << job()
               .success(S::AllExit)
               .kernelStatus(l1, KernelStatus::Terminated)
               .kernelStatus(w1, KernelStatus::Terminated)
               .exits(w2, 0)
        << Outcome::SessionCompleted
        << "worker2 exited with code 0 on host h2: the success policy is met, session completed";
    QTest::newRow("all-exit: the last exits 0 but one had failed: not complete")
        << job()
               .failure(A::Ignore)
               .success(S::AllExit)
               .status(SessionStatus::Degraded)
               .kernelStatus(l1, KernelStatus::Terminated)
               .kernelStatus(w1, KernelStatus::Error)
               .exits(w2, 0)
        << Outcome::KernelSucceeded << "worker2 exited with code 0 on host h2: succeeded";
    QTest::newRow("all-exit: a non-zero exit: failure policy")
        << job()
               .failure(A::RestartSession, 1)
               .success(S::AllExit)
               .kernelStatus(l1, KernelStatus::Terminated)
               .exits(w1, 3)
        << Outcome::RestartSession
        << "worker1 exited with code 3 on host h2: restart-session (1 of 1)";
    QTest::newRow("all-exit: a single kernel exits 0: completed")
        << job(0).success(S::AllExit).exits(l1, 0) << Outcome::SessionCompleted
        << "launcher1 exited with code 0 on host h1: the success policy is met, session completed";

    // successPolicy role-exits
    QTest::newRow("role-exits worker: one of two workers exits 0: succeeded")
        << job().success(S::RoleExits, QStringLiteral("worker")).exits(w1, 0)
        << Outcome::KernelSucceeded << "worker1 exited with code 0 on host h2: succeeded";
    QTest::newRow("role-exits worker: the last worker exits 0, the launcher runs: completed")
        << job()
               .success(S::RoleExits, QStringLiteral("worker"))
               .kernelStatus(w1, KernelStatus::Terminated)
               .exits(w2, 0)
        << Outcome::SessionCompleted
        << "worker2 exited with code 0 on host h2: the success policy is met, session completed";
    QTest::newRow("role-exits worker: the launcher exits 0: not covered, failure policy")
        << job()
               .failure(A::RestartSession)
               .success(S::RoleExits, QStringLiteral("worker"))
               .exits(l1, 0)
        << Outcome::RestartSession
        << "launcher1 exited with code 0 on host h1: restart-session (1 of 3)";
    QTest::newRow("role-exits launcher: the launcher exits 0: completed")
        << job(4).success(S::RoleExits, QStringLiteral("launcher")).exits(l1, 0)
        << Outcome::SessionCompleted
        << "launcher1 exited with code 0 on host h1: the success policy is met, session completed";
    QTest::newRow("role-exits worker: a worker vanishes: failure policy")
        << job().success(S::RoleExits, QStringLiteral("worker")).vanishes(w1)
        << Outcome::TerminateSession
        << "worker1's container was removed outside ClusterDeck on host h2: terminate-session";

    // Nothing to decide.
    QTest::newRow("session restarting: a command owns the exit")
        << job().failure(A::RestartSession).status(SessionStatus::Restarting).exits(w1, 137)
        << Outcome::Expected << "";
    QTest::newRow("session provisioning")
        << job().status(SessionStatus::Provisioning).exits(w1, 1) << Outcome::Expected << "";
    QTest::newRow("session terminating (desired terminated)")
        << job().status(SessionStatus::Terminating, DesiredState::Terminated).exits(w1, 143)
        << Outcome::Expected << "";
    QTest::newRow("session running but desired terminated")
        << job().status(SessionStatus::Running, DesiredState::Terminated).exits(w1, 143)
        << Outcome::Expected << "";
    QTest::newRow("session completed: the others stop on purpose")
        << job().success(S::PrimaryExits).status(SessionStatus::Completed).exits(w1, 143)
        << Outcome::Expected << "";
    QTest::newRow("stale container id (replaced by a restart)")
        << job().failure(A::RestartSession).exits(w1, 137).fromContainer(QStringLiteral("c-old"))
        << Outcome::Expected << "";
    QTest::newRow("kernel not RUNNING: TERMINATING")
        << job().kernelStatus(w1, KernelStatus::Terminating).exits(w1, 143) << Outcome::Expected
        << "";
    QTest::newRow("kernel not RUNNING: ERROR already")
        << job().failure(A::Ignore).kernelStatus(w1, KernelStatus::Error).exits(w1, 1)
        << Outcome::Expected << "";
    QTest::newRow("kernel not RUNNING: succeeded already")
        << job().success(S::AllExit).kernelStatus(w1, KernelStatus::Terminated).exits(w1, 0)
        << Outcome::Expected << "";
    QTest::newRow("kernel not RUNNING: RESTARTING")
        << job().kernelStatus(w1, KernelStatus::Restarting).exits(w1, 137) << Outcome::Expected
        << "";
    Case unknownKernel = job().exits(w1, 1);
    unknownKernel.exit.kernelId = QStringLiteral("k-gone");
    QTest::newRow("a kernel the session does not have") << unknownKernel << Outcome::Expected << "";
}

void TestExitPolicy::decide()
{
    QFETCH(Case, input);
    QFETCH(Outcome, outcome);
    QFETCH(QString, reason);
    const ExitDecision d = decideExit(input.session, input.kernels, input.policies, input.exit);
    QCOMPARE(ExitDecision::name(d.outcome), ExitDecision::name(outcome));
    QCOMPARE(d.reason, reason);
}

void TestExitPolicy::outcomeNames()
{
    QCOMPARE(ExitDecision::name(Outcome::Expected), QStringLiteral("expected"));
    QCOMPARE(ExitDecision::name(Outcome::KernelSucceeded), QStringLiteral("kernel-succeeded"));
    QCOMPARE(ExitDecision::name(Outcome::SessionCompleted), QStringLiteral("completed"));
    QCOMPARE(ExitDecision::name(Outcome::Ignore), QStringLiteral("ignore"));
    QCOMPARE(ExitDecision::name(Outcome::RestartSession), QStringLiteral("restart-session"));
    QCOMPARE(ExitDecision::name(Outcome::TerminateSession), QStringLiteral("terminate-session"));
}

QTEST_GUILESS_MAIN(TestExitPolicy)
#include "tst_exitpolicy.moc"
