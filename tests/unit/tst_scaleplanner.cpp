#include "common/labels.h"
#include "plan/planresolver.h"
#include "plan/presets.h"
#include "plan/scaleplanner.h"
#include "template/templateloader.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QTest>

using namespace ClusterDeck;

#define VERIFY_OK(result)                                                                          \
    QVERIFY2(bool(result), (result) ? "" : qPrintable((result).error().toString()))

class TestScalePlanner : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void counts_data();
    void counts();
    void bounds_data();
    void bounds();
    void primaryNeverGoes();
    void indicesNeverReused();
    void ranksOfSurvivorsStay();
    void newKernelIdentity();
    void composeLabelsAfterScale_data();
    void composeLabelsAfterScale();
    void membershipFiles();
    void mpiAndSshFilesFollow();
    void launchHasMembershipFiles();

private:
    static ClusterPlan plan(const QByteArray &yaml, const QMap<QString, int> &counts = {});
};

namespace {

const QByteArray kTwoRoles = "name: x\n"
                             "roles:\n"
                             "  - {name: master, task: {image: i}}\n"
                             "  - {name: worker, task: {image: i}, count: 2, min: 1, max: 12}\n";
const QByteArray kThreeRoles = "name: x\n"
                               "roles:\n"
                               "  - {name: master, task: {image: i}, min: 1, max: 3}\n"
                               "  - {name: worker, task: {image: i}, count: 2, min: 1, max: 8}\n"
                               "  - {name: ps, task: {image: i}, count: 1, min: 1, max: 2}\n";

} // namespace

ClusterPlan TestScalePlanner::plan(const QByteArray &yaml, const QMap<QString, int> &counts)
{
    TemplateLoader loader;
    auto t = loader.loadClusterFromData(yaml, QStringLiteral("t.yaml"));
    if (!t)
        qFatal("test template does not load: %s", qPrintable(t.error().toString()));
    LaunchOptions o;
    o.sessionId = QStringLiteral("3f2c9a41-7b7e-4c1e-9d51-0a6f3b2c1d00");
    o.counts = counts;
    if (Presets::needsSshKeyPair(t->presets))
        o.sshKeyPair =
            SshKeyPair{"-----BEGIN OPENSSH PRIVATE KEY-----\nx\n", "ssh-ed25519 AAAA k\n"};
    auto p = resolvePlan(*t, o, {});
    if (!p)
        qFatal("test plan does not resolve: %s", qPrintable(p.error().toString()));
    return *p;
}

void TestScalePlanner::counts_data()
{
    QTest::addColumn<QByteArray>("yaml");
    QTest::addColumn<QString>("request"); // "role=n,role=n"
    QTest::addColumn<QStringList>("added");
    QTest::addColumn<QStringList>("removed");
    QTest::addColumn<QStringList>("after");

    QTest::newRow("grow 2 to 6") << kTwoRoles << "worker=6"
                                 << QStringList{"worker3", "worker4", "worker5", "worker6"}
                                 << QStringList{}
                                 << QStringList{"master1", "worker1", "worker2", "worker3",
                                                "worker4", "worker5", "worker6"};
    QTest::newRow("shrink 2 to 1: the highest goes")
        << kTwoRoles << "worker=1" << QStringList{} << QStringList{"worker2"}
        << QStringList{"master1", "worker1"};
    QTest::newRow("same count: nothing")
        << kTwoRoles << "worker=2" << QStringList{} << QStringList{}
        << QStringList{"master1", "worker1", "worker2"};
    QTest::newRow("middle role grows: new ranks after everything")
        << kThreeRoles << "worker=3" << QStringList{"worker3"} << QStringList{}
        << QStringList{"master1", "worker1", "worker2", "ps1", "worker3"};
    QTest::newRow("middle role to its min")
        << kThreeRoles << "worker=1" << QStringList{} << QStringList{"worker2"}
        << QStringList{"master1", "worker1", "ps1"};
    QTest::newRow("grow one role, shrink another")
        << kThreeRoles << "master=2,worker=1" << QStringList{"master2"} << QStringList{"worker2"}
        << QStringList{"master1", "worker1", "ps1", "master2"};
}

void TestScalePlanner::counts()
{
    QFETCH(QByteArray, yaml);
    QFETCH(QString, request);
    QFETCH(QStringList, added);
    QFETCH(QStringList, removed);
    QFETCH(QStringList, after);
    QMap<QString, int> counts;
    for (const QString &part : request.split(QLatin1Char(',')))
        counts.insert(part.section(QLatin1Char('='), 0, 0),
                      part.section(QLatin1Char('='), 1).toInt());
    const ClusterPlan before = plan(yaml);
    auto scaled = planScale(before, counts);
    VERIFY_OK(scaled);
    QCOMPARE(scaled->added, added);
    QCOMPARE(scaled->removed, removed);
    QCOMPARE(scaled->plan.hostnames(), after);
    QVERIFY(scaled->plan.kernels.first().primary);
    for (const RoleCount &rc : scaled->plan.roles) {
        int n = 0;
        for (const KernelSpec &k : scaled->plan.kernels)
            n += k.role == rc.role ? 1 : 0;
        QCOMPARE(rc.count, n);
        if (counts.contains(rc.role))
            QCOMPARE(rc.count, counts.value(rc.role));
    }
}

void TestScalePlanner::bounds_data()
{
    QTest::addColumn<QString>("role");
    QTest::addColumn<int>("count");
    QTest::addColumn<QString>("message");
    QTest::newRow("above max") << "worker" << 13 << "worker=13 is outside 1-12";
    QTest::newRow("below min") << "worker" << 0 << "worker=0 is outside 1-12";
    QTest::newRow("the primary's role to 0") << "master" << 0 << "master=0 is outside 1-1";
    QTest::newRow("unknown role") << "wroker" << 2 << "has no role 'wroker'";
}

void TestScalePlanner::bounds()
{
    QFETCH(QString, role);
    QFETCH(int, count);
    QFETCH(QString, message);
    auto scaled = planScale(plan(kTwoRoles), {{role, count}});
    QVERIFY(!scaled);
    QVERIFY2(scaled.error().message.contains(message), qPrintable(scaled.error().message));
}

void TestScalePlanner::primaryNeverGoes()
{
    // Templates have min >= 1, so index 1 of the first role (the primary) is the last to go;
    // a plan whose bounds would allow it is still refused.
    ClusterPlan p = plan(kThreeRoles, {{QStringLiteral("master"), 2}});
    p.roles[0].min = 0;
    auto one = planScale(p, {{QStringLiteral("master"), 1}});
    VERIFY_OK(one);
    QCOMPARE(one->removed, QStringList{QStringLiteral("master2")});
    auto none = planScale(p, {{QStringLiteral("master"), 0}});
    QVERIFY(!none);
    QVERIFY2(
        none.error().message.contains(QStringLiteral("would remove the primary kernel master1")),
        qPrintable(none.error().message));
}

void TestScalePlanner::indicesNeverReused()
{
    ClusterPlan p = plan(kTwoRoles);
    auto up = planScale(p, {{QStringLiteral("worker"), 6}});
    VERIFY_OK(up);
    auto down = planScale(up->plan, {{QStringLiteral("worker"), 1}});
    VERIFY_OK(down);
    QCOMPARE(down->removed, (QStringList{"worker6", "worker5", "worker4", "worker3", "worker2"}));
    auto again = planScale(down->plan, {{QStringLiteral("worker"), 3}});
    VERIFY_OK(again);
    QCOMPARE(again->added, (QStringList{"worker7", "worker8"}));
    // Ranks continue after the highest surviving one.
    QCOMPARE(again->plan.kernel(QStringLiteral("worker7"))->localRank, 2);
    QCOMPARE(again->plan.kernel(QStringLiteral("worker8"))->localRank, 3);
}

void TestScalePlanner::ranksOfSurvivorsStay()
{
    const ClusterPlan before = plan(kThreeRoles);
    auto scaled = planScale(before, {{QStringLiteral("worker"), 1}, {QStringLiteral("master"), 3}});
    VERIFY_OK(scaled);
    for (const KernelSpec &k : scaled->plan.kernels) {
        if (const KernelSpec *old = before.kernel(k.hostname)) {
            QCOMPARE(k.localRank, old->localRank);
            QCOMPARE(k.env, old->env); // launch-time values stay
            QCOMPARE(k.kernelId, old->kernelId);
        }
    }
    QCOMPARE(scaled->plan.kernel(QStringLiteral("master2"))->localRank, 4);
    QCOMPARE(scaled->plan.kernel(QStringLiteral("master3"))->localRank, 5);
}

void TestScalePlanner::newKernelIdentity()
{
    const ClusterPlan before = plan(kTwoRoles);
    auto scaled = planScale(before, {{QStringLiteral("worker"), 3}});
    VERIFY_OK(scaled);
    const KernelSpec *k = scaled->plan.kernel(QStringLiteral("worker3"));
    QVERIFY(k);
    // The same kernel id a launch with 3 workers would have had.
    const ClusterPlan three = plan(kTwoRoles, {{QStringLiteral("worker"), 3}});
    const KernelSpec *launched = three.kernel(QStringLiteral("worker3"));
    QCOMPARE(k->kernelId, launched->kernelId);
    QCOMPARE(k->containerName, launched->containerName);
    QCOMPARE(k->labels, launched->labels);
    QVERIFY(!k->primary);
    QCOMPARE(k->env.value(QStringLiteral("BACKEND_CLUSTER_HOST")), QStringLiteral("worker3"));
    QCOMPARE(k->env.value(QStringLiteral("BACKEND_CLUSTER_ROLE_IDX")), QStringLiteral("3"));
    QCOMPARE(k->env.value(QStringLiteral("BACKEND_CLUSTER_LOCAL_RANK")), QStringLiteral("3"));
    QCOMPARE(k->env.value(QStringLiteral("BACKEND_KERNEL_ID")), k->kernelId);
    // A new kernel is told the session as it is when it starts.
    QCOMPARE(k->env.value(QStringLiteral("BACKEND_CLUSTER_HOSTS")),
             QStringLiteral("master1,worker1,worker2,worker3"));
    QCOMPARE(k->env.value(QStringLiteral("BACKEND_CLUSTER_SIZE")), QStringLiteral("4"));
    QCOMPARE(k->env.value(QStringLiteral("BACKEND_CLUSTER_REPLICAS")),
             QStringLiteral("master:1,worker:3"));
    QCOMPARE(k->env.value(QStringLiteral("BACKEND_CLUSTER_HOSTS_FILE")),
             QStringLiteral("/etc/cluster/hosts"));
    QCOMPARE(k->env, launched->env);
}

void TestScalePlanner::composeLabelsAfterScale_data()
{
    QTest::addColumn<QString>("hostname");
    QTest::addColumn<QString>("service");
    QTest::addColumn<QString>("number");
    QTest::newRow("master1, kept") << "master1"
                                   << "master"
                                   << "1";
    QTest::newRow("worker3, kept") << "worker3"
                                   << "worker"
                                   << "3";
    QTest::newRow("worker4, added") << "worker4"
                                    << "worker"
                                    << "4";
    QTest::newRow("worker5, added") << "worker5"
                                    << "worker"
                                    << "5";
}

// A 1+3 session scaled to 1+5: old and new kernels alike carry compose's labels.
void TestScalePlanner::composeLabelsAfterScale()
{
    QFETCH(QString, hostname);
    QFETCH(QString, service);
    QFETCH(QString, number);
    const ClusterPlan before = plan(kTwoRoles, {{QStringLiteral("worker"), 3}});
    auto scaled = planScale(before, {{QStringLiteral("worker"), 5}});
    VERIFY_OK(scaled);
    QCOMPARE(scaled->plan.kernels.size(), 6);
    const KernelSpec *k = scaled->plan.kernel(hostname);
    QVERIFY(k);
    QCOMPARE(k->labels.value(Labels::composeProject()), QStringLiteral("x-3f2c9a41"));
    QCOMPARE(k->labels.value(Labels::composeService()), service);
    QCOMPARE(k->labels.value(Labels::composeContainerNumber()), number);
    QCOMPARE(k->labels.value(Labels::composeOneoff()), QStringLiteral("False"));
    QCOMPARE(k->labels.value(Labels::composeConfigHash()),
             before.kernel(QStringLiteral(u"%1%2").arg(service).arg(1))
                 ->labels.value(Labels::composeConfigHash()));
}

void TestScalePlanner::membershipFiles()
{
    auto scaled = planScale(plan(kTwoRoles), {{QStringLiteral("worker"), 4}});
    VERIFY_OK(scaled);
    for (const KernelSpec &k : scaled->plan.kernels) {
        const PlannedFile *hosts = k.file(QStringLiteral("/etc/cluster/hosts"));
        const PlannedFile *replicas = k.file(QStringLiteral("/etc/cluster/replicas"));
        QVERIFY2(hosts && replicas, qPrintable(k.hostname));
        QCOMPARE(hosts->content, QByteArray("master1\nworker1\nworker2\nworker3\nworker4\n"));
        QCOMPARE(replicas->content, QByteArray("master 1\nworker 4\n"));
        QCOMPARE(hosts->mode, 0644);
    }
}

void TestScalePlanner::mpiAndSshFilesFollow()
{
    const QByteArray yaml = "name: x\npresets: [mpi]\nroles:\n"
                            "  - {name: launcher, task: {image: i}}\n"
                            "  - {name: worker, task: {image: i}, count: 2, max: 8}\n";
    auto scaled = planScale(plan(yaml), {{QStringLiteral("worker"), 4}});
    VERIFY_OK(scaled);
    const ClusterPlan fresh = plan(yaml, {{QStringLiteral("worker"), 4}});
    // Scaling to 4 gives every kernel the hostfile and ssh config a launch with 4 would have.
    for (const KernelSpec &k : scaled->plan.kernels) {
        const KernelSpec *f = fresh.kernel(k.hostname);
        QVERIFY(f);
        for (const QString &path :
             {QStringLiteral("/etc/cluster/hostfile"), QStringLiteral("/root/.ssh/config"),
              QStringLiteral("/etc/cluster/hosts"), QStringLiteral("/root/.ssh/id_ed25519")}) {
            QVERIFY2(k.file(path), qPrintable(path));
            QCOMPARE(k.file(path)->content, f->file(path)->content);
        }
    }
    QVERIFY(scaled->plan.kernels.first()
                .file(QStringLiteral("/etc/cluster/hostfile"))
                ->content.contains("worker4 slots=1\n"));
}

void TestScalePlanner::launchHasMembershipFiles()
{
    const ClusterPlan p = plan(kTwoRoles);
    for (const KernelSpec &k : p.kernels) {
        QCOMPARE(k.file(QStringLiteral("/etc/cluster/hosts"))->content,
                 QByteArray("master1\nworker1\nworker2\n"));
        QCOMPARE(k.file(QStringLiteral("/etc/cluster/replicas"))->content,
                 QByteArray("master 1\nworker 2\n"));
    }
    QCOMPARE(p.roles.at(1).min, 1);
    QCOMPARE(p.roles.at(1).max, 12);
}

QTEST_GUILESS_MAIN(TestScalePlanner)
#include "tst_scaleplanner.moc"
