#include "common/labels.h"
#include "control/sessionpolicies.h"
#include "docker/dockertypes.h"
#include "plan/composelabels.h"
#include "plan/planjson.h"
#include "plan/planresolver.h"
#include "provision/containerspecbuilder.h"
#include "provision/sessionspec.h"
#include "template/templateloader.h"
#include "template/templatevalues.h"

#include <QCryptographicHash>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>
#include <QTest>

using namespace ClusterDeck;

class TestPlanResolver : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void hostnames_data();
    void hostnames();
    void backendEnv_data();
    void backendEnv();
    void envPrecedence_data();
    void envPrecedence();
    void backendEnvWinsOverUser();
    void portPrecedence();
    void portBinding_data();
    void portBinding();
    void badBindAddress();
    void mountPrecedence();
    void resourceOverrides();
    void counts_data();
    void counts();
    void optionErrors_data();
    void optionErrors();
    void ranksAndPrimary();
    void identity();
    void composeLabels_data();
    void composeLabels();
    void composeProjectName_data();
    void composeProjectName();
    void modeEnv_data();
    void modeEnv();
    void bootstrapIsAFile();
    void imageCommandDefaults();
    void badImageLabel();
    void deterministic();
    void successPolicy_data();
    void successPolicy();
    void shownAndStoredShareKeys();
    void storedSpecRoundTrips();
    void olderStoredSpecReads_data();
    void olderStoredSpecReads();
    void hostPathsNeedTheTemplatesConsent_data();
    void hostPathsNeedTheTemplatesConsent();
    void storedSpecHeldToTemplateRules_data();
    void storedSpecHeldToTemplateRules();
};

// QVERIFY2 evaluates its message even on success; error() of a value must not be touched.
#define VERIFY_OK(result)                                                                          \
    QVERIFY2(bool(result), (result) ? "" : qPrintable((result).error().toString()))

namespace {

const QString kSession = QStringLiteral("3f2c9a41-7b7e-4c1e-9d51-0a6f3b2c1d00");

ClusterTemplate load(const QByteArray &yaml)
{
    TemplateLoader loader;
    auto t = loader.loadClusterFromData(yaml, QStringLiteral("t.yaml"));
    if (!t)
        qFatal("test template does not load: %s", qPrintable(t.error().toString()));
    return *t;
}

// master (1) + worker (count 3, max 12) on image "img"
const QByteArray kTwoRoles = "name: demo\n"
                             "roles:\n"
                             "  - name: master\n"
                             "    task: {image: img, ports: [web:http:8080]}\n"
                             "  - name: worker\n"
                             "    task: {image: img}\n"
                             "    count: 3\n"
                             "    max: 12\n";

LaunchOptions options(const QMap<QString, int> &counts = {})
{
    LaunchOptions o;
    o.sessionId = kSession;
    o.counts = counts;
    return o;
}

} // namespace

void TestPlanResolver::hostnames_data()
{
    QTest::addColumn<QString>("role");
    QTest::addColumn<int>("count");
    QTest::addColumn<QStringList>("expected");
    QTest::newRow("one") << "master" << 1 << QStringList{"master1"};
    QTest::newRow("no zero padding")
        << "worker" << 12
        << QStringList{"worker1", "worker2", "worker3", "worker4",  "worker5",  "worker6",
                       "worker7", "worker8", "worker9", "worker10", "worker11", "worker12"};
    QTest::newRow("hyphenated role")
        << "param-server" << 2 << QStringList{"param-server1", "param-server2"};
}

void TestPlanResolver::hostnames()
{
    QFETCH(QString, role);
    QFETCH(int, count);
    QFETCH(QStringList, expected);
    const ClusterTemplate t = load("name: x\nroles:\n  - name: " + role.toUtf8() +
                                   "\n    task: {image: img}\n    max: 100\n");
    const auto plan = resolvePlan(t, options({{role, count}}), {});
    VERIFY_OK(plan);
    QCOMPARE(plan->hostnames(), expected);
    for (int i = 0; i < count; ++i) {
        QCOMPARE(plan->kernels.at(i).roleIdx, i + 1);
        QCOMPARE(plan->kernels.at(i).env.value("BACKEND_CLUSTER_HOST"), expected.at(i));
    }
}

void TestPlanResolver::backendEnv_data()
{
    QTest::addColumn<QString>("host");
    QTest::addColumn<QString>("variable");
    QTest::addColumn<QString>("expected");
    QTest::newRow("session id") << "worker2"
                                << "BACKEND_SESSION_ID" << kSession;
    QTest::newRow("role") << "worker2"
                          << "BACKEND_CLUSTER_ROLE"
                          << "worker";
    QTest::newRow("role idx") << "worker2"
                              << "BACKEND_CLUSTER_ROLE_IDX"
                              << "2";
    QTest::newRow("local rank") << "worker2"
                                << "BACKEND_CLUSTER_LOCAL_RANK"
                                << "2";
    QTest::newRow("primary rank") << "master1"
                                  << "BACKEND_CLUSTER_LOCAL_RANK"
                                  << "0";
    QTest::newRow("host") << "worker2"
                          << "BACKEND_CLUSTER_HOST"
                          << "worker2";
    QTest::newRow("hosts") << "master1"
                           << "BACKEND_CLUSTER_HOSTS"
                           << "master1,worker1,worker2,worker3";
    QTest::newRow("size") << "worker3"
                          << "BACKEND_CLUSTER_SIZE"
                          << "4";
    QTest::newRow("mode") << "worker3"
                          << "BACKEND_CLUSTER_MODE"
                          << "multi-node";
    QTest::newRow("replicas") << "worker1"
                              << "BACKEND_CLUSTER_REPLICAS"
                              << "master:1,worker:3";
    QTest::newRow("master hosts") << "worker1"
                                  << "BACKEND_CLUSTER_MASTER_HOSTS"
                                  << "master1";
    QTest::newRow("worker hosts") << "master1"
                                  << "BACKEND_CLUSTER_WORKER_HOSTS"
                                  << "worker1,worker2,worker3";
}

void TestPlanResolver::backendEnv()
{
    QFETCH(QString, host);
    QFETCH(QString, variable);
    QFETCH(QString, expected);
    const auto plan = resolvePlan(load(kTwoRoles), options(), {});
    VERIFY_OK(plan);
    const KernelSpec *k = plan->kernel(host);
    QVERIFY(k);
    QCOMPARE(k->env.value(variable), expected);
    QCOMPARE(k->env.value("BACKEND_KERNEL_ID"), k->kernelId);
}

void TestPlanResolver::envPrecedence_data()
{
    // Which levels set VAR (image, task, cluster, role, launch) and which value wins.
    QTest::addColumn<QStringList>("levels");
    QTest::addColumn<QString>("expected");
    QTest::newRow("all levels: launch wins")
        << QStringList{"image", "task", "cluster", "role", "launch"} << "launch";
    QTest::newRow("no launch: role wins")
        << QStringList{"image", "task", "cluster", "role"} << "role";
    QTest::newRow("no role: cluster wins") << QStringList{"image", "task", "cluster"} << "cluster";
    QTest::newRow("task over image") << QStringList{"image", "task"} << "task";
    QTest::newRow("only image") << QStringList{"image"} << "image";
    QTest::newRow("only task") << QStringList{"task"} << "task";
    QTest::newRow("only cluster") << QStringList{"cluster"} << "cluster";
    QTest::newRow("only role") << QStringList{"role"} << "role";
    QTest::newRow("only launch") << QStringList{"launch"} << "launch";
    QTest::newRow("image and launch") << QStringList{"image", "launch"} << "launch";
    QTest::newRow("task and role") << QStringList{"task", "role"} << "role";
    QTest::newRow("none") << QStringList{} << "";
}

void TestPlanResolver::envPrecedence()
{
    QFETCH(QStringList, levels);
    QFETCH(QString, expected);
    QByteArray yaml = "name: x\n";
    if (levels.contains("cluster"))
        yaml += "env: {VAR: cluster}\n";
    yaml += "roles:\n  - name: worker\n    task:\n      image: img\n";
    if (levels.contains("task"))
        yaml += "      env: {VAR: task}\n";
    if (levels.contains("role"))
        yaml += "    overrides:\n      env: {VAR: role}\n";
    ImageDefaultsMap images;
    if (levels.contains("image"))
        images.insert("img",
                      ImageDefaults{{{"VAR", "image"}, {"PATH", "/bin"}}, {}, {}, {}, {}, {}});
    LaunchOptions opts = options();
    if (levels.contains("launch"))
        opts.env.insert("VAR", "launch");
    const auto plan = resolvePlan(load(yaml), opts, images);
    VERIFY_OK(plan);
    const KernelSpec &k = plan->kernels.first();
    QCOMPARE(k.env.contains("VAR"), !expected.isEmpty());
    QCOMPARE(k.env.value("VAR"), expected);
    QCOMPARE(k.env.contains("PATH"), levels.contains("image")); // image ENV is kept
}

void TestPlanResolver::backendEnvWinsOverUser()
{
    LaunchOptions opts = options();
    opts.env.insert("BACKEND_CLUSTER_HOST", "spoofed");
    opts.env.insert("BACKEND_CLUSTER_SIZE", "99");
    const auto plan = resolvePlan(load(kTwoRoles), opts, {});
    QVERIFY(plan);
    QCOMPARE(plan->kernels.at(1).env.value("BACKEND_CLUSTER_HOST"), QStringLiteral("worker1"));
    QCOMPARE(plan->kernels.at(1).env.value("BACKEND_CLUSTER_SIZE"), QStringLiteral("4"));
}

void TestPlanResolver::portPrecedence()
{
    const ClusterTemplate t =
        load("name: x\nroles:\n  - name: worker\n    task:\n      image: img\n"
             "      ports: [web:http:8080, api:tcp:9000]\n"
             "    overrides:\n      ports: [api:tcp:9001]\n");
    ImageDefaults image;
    image.labels.insert(Labels::servicePorts(), "jupyter:http:8888,web:http:80");
    const auto plan = resolvePlan(t, options(), {{"img", image}});
    VERIFY_OK(plan);
    QCOMPARE(plan->kernels.first().ports,
             (QList<ServicePort>{
                 {"jupyter", "http", 8888}, {"web", "http", 8080}, {"api", "tcp", 9001}}));
}

// Published ports (the image's included) bind to the placed host's registered address unless
// the template's bindAddress says otherwise; the container spec carries it as HostIp.
void TestPlanResolver::portBinding_data()
{
    QTest::addColumn<QByteArray>("bindLine"); // in the task, or empty
    QTest::addColumn<QString>("planned");     // KernelSpec::bindAddress
    QTest::addColumn<QString>("json");        // plan JSON's bind_address (render --json)
    QTest::addColumn<QString>("hostIp");      // the container's HostIp on a host at 192.168.5.2
    QTest::newRow("default: the host's address") << QByteArray() << QString() << "host-address"
                                                 << "192.168.5.2";
    QTest::newRow("every interface, on purpose")
        << QByteArray("      bindAddress: 0.0.0.0\n") << "0.0.0.0"
        << "0.0.0.0"
        << "0.0.0.0";
    QTest::newRow("loopback") << QByteArray("      bindAddress: 127.0.0.1\n") << "127.0.0.1"
                              << "127.0.0.1"
                              << "127.0.0.1";
    QTest::newRow("IPv6") << QByteArray("      bindAddress: \"::1\"\n") << "::1"
                          << "::1"
                          << "::1";
}

void TestPlanResolver::portBinding()
{
    QFETCH(QByteArray, bindLine);
    QFETCH(QString, planned);
    QFETCH(QString, json);
    QFETCH(QString, hostIp);
    const ClusterTemplate t = load("name: x\nroles:\n  - name: worker\n    task:\n"
                                   "      image: img\n      ports: [api:tcp:9000]\n" +
                                   bindLine);
    ImageDefaults image; // the image declares one more port by label
    image.labels.insert(Labels::servicePorts(), "web:http:8080");
    const auto plan = resolvePlan(t, options(), {{"img", image}});
    VERIFY_OK(plan);
    const KernelSpec &k = plan->kernels.first();
    QCOMPARE(k.ports, (QList<ServicePort>{{"web", "http", 8080}, {"api", "tcp", 9000}}));
    QCOMPARE(k.bindAddress, planned);
    QCOMPARE(PlanJson::toJson(*plan)
                 .value(QStringLiteral("kernels"))
                 .toArray()
                 .first()
                 .toObject()
                 .value(QStringLiteral("bind_address"))
                 .toString(),
             json);
    // A restart recreates from the stored spec: the binding survives it.
    SessionSpec spec;
    spec.plan = *plan;
    auto back = SessionSpec::fromJson(spec.toJson(), QStringLiteral("t"));
    VERIFY_OK(back);
    QCOMPARE(back->plan.kernels.first().bindAddress, planned);

    const Docker::ContainerSpec c = ContainerSpecBuilder::specFor(
        k, QStringLiteral("cd-net"), QString(), QStringLiteral("192.168.5.2"));
    QCOMPARE(c.ports.size(), 2);
    for (const Docker::PortBinding &b : c.ports) {
        QCOMPARE(b.hostIp, hostIp);
        QCOMPARE(b.hostPort, 0);
    }
}

void TestPlanResolver::badBindAddress()
{
    TemplateLoader loader;
    const auto t = loader.loadClusterFromData("name: x\nroles:\n  - name: worker\n    task:\n"
                                              "      image: img\n      bindAddress: my-host\n",
                                              QStringLiteral("t.yaml"));
    QVERIFY(!t);
    QVERIFY2(t.error().toString().contains(QStringLiteral("bindAddress")) &&
                 t.error().toString().contains(QStringLiteral("expected an IP address")),
             qPrintable(t.error().toString()));
}

void TestPlanResolver::mountPrecedence()
{
    const ClusterTemplate t = load("name: x\nallowHostPaths: true\n"
                                   "mounts: [cluster-data:/data, cluster-only:/c]\n"
                                   "roles:\n  - name: worker\n    task:\n      image: img\n"
                                   "      mounts: [task-data:/data, task-only:/t]\n");
    LaunchOptions opts = options();
    opts.mounts.append(Mount{Mount::Type::Bind, "/srv/x", "/c", true, {}, {}});
    const auto plan = resolvePlan(t, opts, {});
    VERIFY_OK(plan);
    QStringList got;
    for (const Mount &m : plan->kernels.first().mounts)
        got.append(m.source + QLatin1Char(':') + m.target + (m.readOnly ? ":ro" : ""));
    QCOMPARE(got, (QStringList{"cluster-data:/data", "task-only:/t", "/srv/x:/c:ro"}));
}

void TestPlanResolver::resourceOverrides()
{
    const ClusterTemplate t =
        load("name: x\nroles:\n  - name: worker\n    task:\n      image: img\n"
             "      resources: {cpus: 2, memory: 1g}\n"
             "    overrides:\n      resources: {memory: 2g, gpus: 1}\n");
    const auto plan = resolvePlan(t, options(), {});
    QVERIFY(plan);
    const Resources &r = plan->kernels.first().resources;
    QCOMPARE(r.cpus, std::optional<double>(2));
    QCOMPARE(r.memoryBytes, std::optional<qint64>(2LL << 30));
    QCOMPARE(r.gpus, std::optional<int>(1));
}

void TestPlanResolver::counts_data()
{
    QTest::addColumn<QString>("role");
    QTest::addColumn<int>("count");
    QTest::addColumn<int>("kernels"); // -1: error
    QTest::addColumn<QString>("error");
    QTest::newRow("template default") << "" << 0 << 4 << "";
    QTest::newRow("max") << "worker" << 12 << 13 << "";
    QTest::newRow("min") << "worker" << 1 << 2 << "";
    QTest::newRow("above max") << "worker" << 13 << -1
                               << "--count worker: count 13 is outside 1-12 for role worker";
    QTest::newRow("below min") << "worker" << 0 << -1
                               << "--count worker: count 0 is outside 1-12 for role worker";
    QTest::newRow("fixed role") << "master" << 2 << -1
                                << "--count master: count 2 is outside 1-1 for role master";
    QTest::newRow("unknown role")
        << "wroker" << 2 << -1
        << "--count wroker: template 'demo' has no role 'wroker' (roles: master, worker); did you "
           "mean 'worker'?";
}

void TestPlanResolver::counts()
{
    QFETCH(QString, role);
    QFETCH(int, count);
    QFETCH(int, kernels);
    QFETCH(QString, error);
    QMap<QString, int> counts;
    if (!role.isEmpty())
        counts.insert(role, count);
    const auto plan = resolvePlan(load(kTwoRoles), options(counts), {});
    if (kernels < 0) {
        QVERIFY(!plan);
        QCOMPARE(plan.error().toString(), error);
    } else {
        VERIFY_OK(plan);
        QCOMPARE(plan->kernels.size(), kernels);
    }
}

void TestPlanResolver::optionErrors_data()
{
    QTest::addColumn<QString>("envName");
    QTest::addColumn<QString>("sessionId");
    QTest::addColumn<QString>("error");
    QTest::newRow("bad env name") << "1X" << kSession
                                  << "--env 1X: '1X' is not a valid variable name";
    QTest::newRow("bad session id") << ""
                                    << "nope"
                                    << "session id: 'nope' is not a UUID";
}

void TestPlanResolver::optionErrors()
{
    QFETCH(QString, envName);
    QFETCH(QString, sessionId);
    QFETCH(QString, error);
    LaunchOptions opts = options();
    opts.sessionId = sessionId;
    if (!envName.isEmpty())
        opts.env.insert(envName, "v");
    const auto plan = resolvePlan(load(kTwoRoles), opts, {});
    QVERIFY(!plan);
    QCOMPARE(plan.error().toString(), error);
}

void TestPlanResolver::ranksAndPrimary()
{
    const auto plan = resolvePlan(load(kTwoRoles), options({{"worker", 12}}), {});
    QVERIFY(plan);
    QCOMPARE(plan->kernels.size(), 13);
    for (int i = 0; i < plan->kernels.size(); ++i) {
        QCOMPARE(plan->kernels.at(i).localRank, i);
        QCOMPARE(plan->kernels.at(i).primary, i == 0);
    }
    QCOMPARE(plan->kernels.first().hostname, QStringLiteral("master1"));
    QCOMPARE(plan->kernels.last().hostname, QStringLiteral("worker12"));
    // With the template's bounds, which a running session is scaled within.
    QCOMPARE(plan->roles, (QList<RoleCount>{{"master", 1, 1, 1, 0}, {"worker", 12, 1, 12, 0}}));
}

void TestPlanResolver::identity()
{
    LaunchOptions opts = options();
    const auto plan = resolvePlan(load(kTwoRoles), opts, {});
    QVERIFY(plan);
    QCOMPARE(plan->sessionName, QStringLiteral("demo-3f2c9a41"));
    QCOMPARE(plan->networkName, QStringLiteral("cd-3f2c9a41"));
    const KernelSpec &k = plan->kernels.at(2);
    QCOMPARE(k.containerName, QStringLiteral("cd-3f2c9a41-worker2"));
    QCOMPARE(k.labels.value("io.clusterdeck.session"), kSession);
    QCOMPARE(k.labels.value("io.clusterdeck.kernel"), k.kernelId);
    QCOMPARE(k.labels.value("io.clusterdeck.role"), QStringLiteral("worker"));
    QCOMPARE(k.labels.value("io.clusterdeck.role-idx"), QStringLiteral("2"));
    QCOMPARE(k.labels.value("io.clusterdeck.hostname"), QStringLiteral("worker2"));
    QSet<QString> ids;
    for (const KernelSpec &kernel : plan->kernels)
        ids.insert(kernel.kernelId);
    QCOMPARE(ids.size(), plan->kernels.size());

    opts.name = "my-run";
    QCOMPARE(resolvePlan(load(kTwoRoles), opts, {})->sessionName, QStringLiteral("my-run"));
    opts.sessionId.clear();
    QCOMPARE(resolvePlan(load(kTwoRoles), opts, {})->sessionId,
             QStringLiteral("00000000-0000-0000-0000-000000000000"));
}

// Every kernel carries compose's project/service/number labels, so other tools group a session
// as one project (issue 27, item 3).
void TestPlanResolver::composeLabels_data()
{
    QTest::addColumn<QString>("name"); // --name; empty: "<template>-<short id>"
    QTest::addColumn<QString>("hostname");
    QTest::addColumn<QString>("project");
    QTest::addColumn<QString>("service");
    QTest::addColumn<QString>("number");
    QTest::newRow("default name, master1") << ""
                                           << "master1"
                                           << "demo-3f2c9a41"
                                           << "master"
                                           << "1";
    QTest::newRow("default name, worker1") << ""
                                           << "worker1"
                                           << "demo-3f2c9a41"
                                           << "worker"
                                           << "1";
    QTest::newRow("default name, worker2") << ""
                                           << "worker2"
                                           << "demo-3f2c9a41"
                                           << "worker"
                                           << "2";
    QTest::newRow("default name, worker3") << ""
                                           << "worker3"
                                           << "demo-3f2c9a41"
                                           << "worker"
                                           << "3";
    QTest::newRow("own name, master1") << "train_7"
                                       << "master1"
                                       << "train_7"
                                       << "master"
                                       << "1";
    QTest::newRow("own name, worker3") << "train_7"
                                       << "worker3"
                                       << "train_7"
                                       << "worker"
                                       << "3";
    QTest::newRow("normalised name, worker2") << "Nightly Run #2"
                                              << "worker2"
                                              << "nightly-run-2"
                                              << "worker"
                                              << "2";
}

void TestPlanResolver::composeLabels()
{
    QFETCH(QString, name);
    QFETCH(QString, hostname);
    QFETCH(QString, project);
    QFETCH(QString, service);
    QFETCH(QString, number);
    LaunchOptions opts = options();
    opts.name = name;
    const auto plan = resolvePlan(load(kTwoRoles), opts, {});
    VERIFY_OK(plan);
    QCOMPARE(plan->kernels.size(), 4);
    const KernelSpec *k = plan->kernel(hostname);
    QVERIFY(k);
    QCOMPARE(k->labels.value(Labels::composeProject()), project);
    QCOMPARE(k->labels.value(Labels::composeService()), service);
    QCOMPARE(k->labels.value(Labels::composeContainerNumber()), number);
    // What `compose ls/ps/down` filter on besides the project.
    QCOMPARE(k->labels.value(Labels::composeOneoff()), QStringLiteral("False"));
    QCOMPARE(k->labels.value(Labels::composeConfigHash()).size(), 64);
    QVERIFY(k->labels.contains(Labels::composeConfigFiles()));
    QCOMPARE(k->labels.value(Labels::composeConfigFiles()), QString());
    // One hash per role, as compose has one per service.
    for (const KernelSpec &other : plan->kernels)
        QCOMPARE(other.labels.value(Labels::composeConfigHash()) ==
                     k->labels.value(Labels::composeConfigHash()),
                 other.role == k->role);
    // The hash is that of the kernel's stored form's service fields (what releases that encoded
    // the whole kernel hashed), so a kernel keeps its hash across releases.
    const QJsonObject form = PlanJson::toJson(*k);
    QJsonObject serviceFields;
    for (const char *key :
         {"image", "entrypoint", "command", "working_dir", "user", "ports", "resources", "mounts"})
        serviceFields.insert(QLatin1StringView(key), form.value(QLatin1StringView(key)));
    QCOMPARE(k->labels.value(Labels::composeConfigHash()),
             QString::fromLatin1(QCryptographicHash::hash(
                                     QJsonDocument(serviceFields).toJson(QJsonDocument::Compact),
                                     QCryptographicHash::Sha256)
                                     .toHex()));
    // Ownership is still the io.clusterdeck.* labels'.
    QCOMPARE(k->labels.value(Labels::session()), kSession);
    QCOMPARE(k->labels.value(Labels::hostname()), hostname);
}

void TestPlanResolver::composeProjectName_data()
{
    QTest::addColumn<QString>("session");
    QTest::addColumn<QString>("project");
    QTest::newRow("valid, kept") << "demo-3f2c9a41"
                                 << "demo-3f2c9a41";
    QTest::newRow("underscore and trailing dash kept") << "a_b-"
                                                       << "a_b-";
    QTest::newRow("digit first") << "3d-render"
                                 << "3d-render";
    QTest::newRow("upper case") << "MPI-Bench"
                                << "mpi-bench";
    QTest::newRow("spaces and punctuation") << "Nightly Run #2"
                                            << "nightly-run-2";
    QTest::newRow("dots") << "v1.2.3"
                          << "v1-2-3";
    QTest::newRow("runs collapse") << "a  /  b"
                                   << "a-b";
    QTest::newRow("leading dash/underscore dropped") << "-_x"
                                                     << "x";
    QTest::newRow("trailing replaced run dropped") << "job!!"
                                                   << "job";
    QTest::newRow("non-ASCII") << "Übung 1"
                               << "bung-1";
    QTest::newRow("nothing left") << "日本"
                                  << "cd-3f2c9a41";
    QTest::newRow("empty") << ""
                           << "cd-3f2c9a41";
}

void TestPlanResolver::composeProjectName()
{
    QFETCH(QString, session);
    QFETCH(QString, project);
    const QString actual = ComposeLabels::projectName(session, kSession);
    QCOMPARE(actual, project);
    QVERIFY(ComposeLabels::isValidProjectName(actual));
}

void TestPlanResolver::modeEnv_data()
{
    QTest::addColumn<QByteArray>("mode");
    QTest::addColumn<int>("workers");
    QTest::addColumn<QString>("launchMode");
    QTest::addColumn<QString>("expected");
    QTest::newRow("auto, one kernel") << QByteArray("auto") << 0 << ""
                                      << "single-node";
    QTest::newRow("auto, several") << QByteArray("auto") << 2 << ""
                                   << "multi-node";
    QTest::newRow("template single-node") << QByteArray("single-node") << 2 << ""
                                          << "single-node";
    QTest::newRow("launch overrides") << QByteArray("single-node") << 2 << "multi-node"
                                      << "multi-node";
}

void TestPlanResolver::modeEnv()
{
    QFETCH(QByteArray, mode);
    QFETCH(int, workers);
    QFETCH(QString, launchMode);
    QFETCH(QString, expected);
    QByteArray yaml = "name: x\nmode: " + mode + "\nroles:\n  - {name: master, task: {image: i}}\n";
    if (workers)
        yaml +=
            "  - {name: worker, task: {image: i}, count: " + QByteArray::number(workers) + "}\n";
    LaunchOptions opts = options();
    if (launchMode == "multi-node")
        opts.mode = ClusterMode::MultiNode;
    const auto plan = resolvePlan(load(yaml), opts, {});
    QVERIFY(plan);
    for (const KernelSpec &k : plan->kernels)
        QCOMPARE(k.env.value("BACKEND_CLUSTER_MODE"), expected);
}

void TestPlanResolver::bootstrapIsAFile()
{
    const ClusterTemplate t =
        load("name: x\nroles:\n  - name: worker\n    task:\n      image: img\n"
             "      entrypoint: [tini, --]\n      command: [echo, \"$X; rm -rf /\"]\n"
             "      bootstrap: |\n        echo hi > /tmp/hi\n");
    const auto plan = resolvePlan(t, options(), {});
    QVERIFY(plan);
    const KernelSpec &k = plan->kernels.first();
    QCOMPARE(k.entrypoint, (QStringList{"/bin/sh", PlanPaths::kBootstrapRunner}));
    // The command travels as separate arguments, never spliced into the script.
    QCOMPARE(k.command, (QStringList{"tini", "--", "echo", "$X; rm -rf /"}));
    const PlannedFile *script = k.file(PlanPaths::kBootstrapScript);
    QVERIFY(script);
    QCOMPARE(script->content, QByteArray("echo hi > /tmp/hi\n"));
    QCOMPARE(script->mode, 0755);
    const PlannedFile *runner = k.file(PlanPaths::kBootstrapRunner);
    QVERIFY(runner);
    QVERIFY(runner->content.contains("exec \"$@\""));
    QVERIFY(!runner->content.contains("rm -rf"));
}

void TestPlanResolver::imageCommandDefaults()
{
    ImageDefaults image;
    image.entrypoint = {"/docker-entrypoint.sh"};
    image.command = {"serve"};
    image.workingDir = "/app";
    image.user = "app";
    const auto plan = resolvePlan(load("name: x\nroles:\n  - {name: w, task: {image: img}}\n"),
                                  options(), {{"img", image}});
    QVERIFY(plan);
    const KernelSpec &k = plan->kernels.first();
    QCOMPARE(k.entrypoint, QStringList{"/docker-entrypoint.sh"});
    QCOMPARE(k.command, QStringList{"serve"});
    QCOMPARE(k.workingDir, QStringLiteral("/app"));
    QCOMPARE(k.user, QStringLiteral("app"));

    // A template entrypoint replaces the image's and drops its CMD, as Docker does.
    const auto plan2 =
        resolvePlan(load("name: x\nroles:\n  - {name: w, task: {image: img, entrypoint: [run]}}\n"),
                    options(), {{"img", image}});
    QVERIFY(plan2);
    QCOMPARE(plan2->kernels.first().entrypoint, QStringList{"run"});
    QCOMPARE(plan2->kernels.first().command, QStringList{});
}

void TestPlanResolver::badImageLabel()
{
    ImageDefaults image;
    image.labels.insert(Labels::servicePorts(), "jupyter:http:99999");
    const auto plan = resolvePlan(load(kTwoRoles), options(), {{"img", image}});
    QVERIFY(!plan);
    QCOMPARE(plan.error().toString(),
             QStringLiteral(
                 "image img label io.clusterdeck.service-ports: port 99999 is outside 1-65535"));
}

void TestPlanResolver::deterministic()
{
    const ClusterTemplate t = load(kTwoRoles);
    const auto a = resolvePlan(t, options({{"worker", 7}}), {});
    const auto b = resolvePlan(t, options({{"worker", 7}}), {});
    QVERIFY(a && b);
    QVERIFY(*a == *b);
}

void TestPlanResolver::successPolicy_data()
{
    QTest::addColumn<QByteArray>("policy");
    QTest::addColumn<SuccessPolicy::Kind>("kind");
    QTest::addColumn<QString>("role");
    QTest::addColumn<qint64>("ttl"); // -1: keep (unset)
    using K = SuccessPolicy::Kind;
    QTest::newRow("none") << QByteArray() << K::None << "" << qint64(-1);
    QTest::newRow("primary-exits, kept")
        << QByteArray("successPolicy: primary-exits\n") << K::PrimaryExits << "" << qint64(-1);
    QTest::newRow("primary-exits, 10m")
        << QByteArray("successPolicy: primary-exits\nttlAfterFinished: 10m\n") << K::PrimaryExits
        << "" << qint64(600);
    QTest::newRow("all-exit, removed at once")
        << QByteArray("successPolicy: all-exit\nttlAfterFinished: 0\n") << K::AllExit << ""
        << qint64(0);
    QTest::newRow("role-exits worker, 2h")
        << QByteArray("successPolicy: {role-exits: worker}\nttlAfterFinished: 2h\n") << K::RoleExits
        << "worker" << qint64(7200);
    QTest::newRow("role-exits master, kind form")
        << QByteArray("successPolicy: {kind: role-exits, role: master}\n") << K::RoleExits
        << "master" << qint64(-1);
}

// Template -> plan -> the stored session spec -> what the controller reads (SessionPolicies).
void TestPlanResolver::successPolicy()
{
    QFETCH(QByteArray, policy);
    QFETCH(SuccessPolicy::Kind, kind);
    QFETCH(QString, role);
    QFETCH(qint64, ttl);
    const std::optional<qint64> expectedTtl =
        ttl < 0 ? std::optional<qint64>() : std::optional<qint64>(ttl);
    const auto plan = resolvePlan(load(kTwoRoles + policy), options(), {});
    VERIFY_OK(plan);
    QCOMPARE(plan->successPolicy.kind, kind);
    QCOMPARE(plan->successPolicy.role, role);
    QCOMPARE(plan->ttlAfterFinishedSeconds, expectedTtl);

    const QJsonObject rendered = PlanJson::toJson(*plan);
    QCOMPARE(rendered.contains("success_policy"), kind != SuccessPolicy::Kind::None);
    QCOMPARE(rendered.contains("ttl_after_finished_seconds"), ttl >= 0);

    SessionSpec spec;
    spec.plan = *plan;
    const QJsonObject json = spec.toJson();
    if (kind == SuccessPolicy::Kind::None) {
        QVERIFY(!json.contains("success_policy"));
    } else {
        const QJsonObject success = json.value("success_policy").toObject();
        QCOMPARE(success.value("kind").toString(), TemplateValues::successKindName(kind));
        QCOMPARE(success.value("role").toString(), role);
    }
    QCOMPARE(json.contains("ttl_after_finished_seconds"), ttl >= 0);

    const auto back = SessionSpec::fromJson(json, QStringLiteral("test"));
    VERIFY_OK(back);
    QCOMPARE(back->plan.successPolicy, plan->successPolicy);
    QCOMPARE(back->plan.ttlAfterFinishedSeconds, expectedTtl);

    SessionRecord record;
    record.launch.spec = json;
    const SessionPolicies policies = SessionPolicies::of(record);
    QCOMPARE(policies.success, plan->successPolicy);
    QCOMPARE(policies.ttlAfterFinishedSeconds, expectedTtl);
    QCOMPARE(policies.failure, plan->failurePolicy);
}

namespace {

// Every key path of a JSON value ("resources.memory_bytes", "files[].mode"), arrays merged.
QStringList keyPaths(const QJsonValue &v, const QString &prefix = {})
{
    QStringList paths;
    if (v.isObject()) {
        const QJsonObject o = v.toObject();
        for (auto it = o.begin(); it != o.end(); ++it) {
            const QString path = prefix.isEmpty() ? it.key() : prefix + u'.' + it.key();
            paths.append(path);
            paths.append(keyPaths(it.value(), path));
        }
    } else if (v.isArray()) {
        for (const QJsonValue &item : v.toArray())
            paths.append(keyPaths(item, prefix + QStringLiteral("[]")));
    }
    paths.removeDuplicates();
    paths.sort();
    return paths;
}

ClusterPlan richPlan()
{
    const QByteArray yaml = "name: demo\n"
                            "presets: [ssh]\n"
                            "roles:\n"
                            "  - name: master\n"
                            "    task: {image: img, ports: [web:http:8080]}\n"
                            "  - name: worker\n"
                            "    task: {image: img, resources: {cpus: 1.5, memory: 512m}}\n"
                            "    count: 3\n";
    LaunchOptions o = options();
    o.sshKeyPair = SshKeyPair{"-----BEGIN OPENSSH PRIVATE KEY-----\nx\n", "ssh-ed25519 AAAA k\n"};
    auto plan = resolvePlan(load(yaml), o, {});
    if (!plan)
        qFatal("plan: %s", qPrintable(plan.error().toString()));
    return *plan;
}

} // namespace

// `template render --json` and the stored spec are one encoder (PlanJson): the same keys, only
// the file contents are shown as text (secrets withheld) or stored base64.
void TestPlanResolver::shownAndStoredShareKeys()
{
    const ClusterPlan plan = richPlan();
    const KernelSpec &worker = plan.kernels.at(1);
    QVERIFY(worker.resources.memoryBytes);
    QVERIFY(std::any_of(worker.files.cbegin(), worker.files.cend(),
                        [](const PlannedFile &f) { return f.isSecret(); }));
    const QJsonObject shown = PlanJson::toJson(worker, PlanJson::Files::Shown);
    const QJsonObject stored = PlanJson::toJson(worker, PlanJson::Files::Stored);
    QCOMPARE(keyPaths(shown), keyPaths(stored));
    QVERIFY(keyPaths(shown).contains(QStringLiteral("resources.memory_bytes")));
    QVERIFY(keyPaths(shown).contains(QStringLiteral("files[].mode")));
    for (const QJsonValue &f : shown.value(QStringLiteral("files")).toArray()) {
        const bool secret = PlanJson::fileMode(f.toObject()) == 0600;
        QCOMPARE(f.toObject().value(QStringLiteral("content")).isNull(), secret);
    }
    QCOMPARE(keyPaths(PlanJson::headerToJson(plan)),
             keyPaths(PlanJson::toJson(plan))
                 .filter(QRegularExpression(QStringLiteral("^(?!kernels)"))));
}

void TestPlanResolver::storedSpecRoundTrips()
{
    SessionSpec spec;
    spec.plan = richPlan();
    spec.plan.kernels[0].imageDigest = QStringLiteral("img@sha256:0123");
    spec.plan.kernels[1].onScale = QStringLiteral("/etc/cluster/on-scale");
    spec.plan.mode = ClusterMode::MultiNode;
    spec.placement.mode = ClusterMode::MultiNode;
    for (const KernelSpec &k : std::as_const(spec.plan.kernels))
        spec.placement.hostOf.insert(k.hostname, QStringLiteral("h1"));
    const auto back = SessionSpec::fromJson(spec.toJson(), QStringLiteral("test"));
    VERIFY_OK(back);
    QCOMPARE(back->plan.kernels, spec.plan.kernels);
    QCOMPARE(back->plan.roles.size(), spec.plan.roles.size());
    for (qsizetype i = 0; i < spec.plan.roles.size(); ++i) {
        const RoleCount &was = spec.plan.roles.at(i);
        const RoleCount &is = back->plan.roles.at(i);
        // The stored last index is the highest one used so far (`count` before any scale).
        QCOMPARE((QList<int>{is.count, is.min, is.max, is.highestIdx()}),
                 (QList<int>{was.count, was.min, was.max, was.highestIdx()}));
        QCOMPARE(is.role, was.role);
    }
    QCOMPARE(back->plan.failurePolicy, spec.plan.failurePolicy);
    QCOMPARE(back->plan.sessionName, spec.plan.sessionName);
    QCOMPARE(back->placement.hostOf, spec.placement.hostOf);
}

// Specs stored before the keys were shared: kernel_id, port, a numeric memory, a numeric file
// mode, session_name and a flat failure policy.
void TestPlanResolver::olderStoredSpecReads_data()
{
    QTest::addColumn<QString>("key");
    QTest::addColumn<QString>("expected");
    QTest::newRow("kernel id") << "id"
                               << "k-1";
    QTest::newRow("port") << "port"
                          << "8080";
    QTest::newRow("memory") << "memory"
                            << "536870912";
    QTest::newRow("secret mode") << "mode"
                                 << "384";
    QTest::newRow("session name") << "name"
                                  << "old";
    QTest::newRow("compose project") << "compose project"
                                     << "old";
    QTest::newRow("compose service") << "compose service"
                                     << "master";
    QTest::newRow("compose number") << "compose number"
                                    << "1";
    QTest::newRow("failure action") << "failure"
                                    << "restart-session/5";
    QTest::newRow("policies") << "policies"
                              << "restart-session/5";
}

void TestPlanResolver::olderStoredSpecReads()
{
    QFETCH(QString, key);
    QFETCH(QString, expected);
    const QJsonObject kernel = QJsonDocument::fromJson(R"({
        "kernel_id": "k-1", "hostname": "master1", "role": "master", "image": "img",
        "ports": [{"name": "web", "protocol": "http", "port": 8080}],
        "resources": {"memory": 536870912},
        "files": [{"path": "/root/.ssh/id_ed25519", "mode": 384, "owner": "",
                   "content": "c2VjcmV0"}]})")
                                   .object();
    const QJsonObject stored{{QStringLiteral("session_id"), kSession},
                             {QStringLiteral("session_name"), QStringLiteral("old")},
                             {QStringLiteral("failure_action"), QStringLiteral("restart-session")},
                             {QStringLiteral("max_restarts"), 5},
                             {QStringLiteral("mode"), QStringLiteral("single-node")},
                             {QStringLiteral("kernels"), QJsonArray{kernel}}};
    const auto spec = SessionSpec::fromJson(stored, QStringLiteral("test"));
    VERIFY_OK(spec);
    QCOMPARE(spec->placement.mode, ClusterMode::SingleNode);
    const KernelSpec &k = spec->plan.kernels.first();
    const FailurePolicy &failure = spec->plan.failurePolicy;
    SessionRecord record;
    record.launch.spec = stored;
    const FailurePolicy policies = SessionPolicies::of(record).failure;
    const QMap<QString, QString> actual{
        {"id", k.kernelId},
        {"port", QString::number(k.ports.value(0).port)},
        {"memory", QString::number(k.resources.memoryBytes.value_or(0))},
        {"mode", QString::number(k.files.value(0).mode)},
        {"name", spec->plan.sessionName},
        {"compose project", k.labels.value(Labels::composeProject())},
        {"compose service", k.labels.value(Labels::composeService())},
        {"compose number", k.labels.value(Labels::composeContainerNumber())},
        {"failure", TemplateValues::failureActionName(failure.action) + u'/' +
                        QString::number(failure.maxRestarts)},
        {"policies", TemplateValues::failureActionName(policies.action) + u'/' +
                         QString::number(policies.maxRestarts)}};
    QCOMPARE(actual.value(key), expected);
    QCOMPARE(k.files.value(0).content, QByteArray("secret"));
}

// A host path given with --mount needs the template's allowHostPaths as one written in it does
// (issue 24 D.6).
void TestPlanResolver::hostPathsNeedTheTemplatesConsent_data()
{
    QTest::addColumn<QString>("mount");
    QTest::addColumn<bool>("allow");
    QTest::addColumn<QString>("error");
    const QString refused =
        QStringLiteral("--mount %1: '%2' is a path on the host: kernels could read or change the "
                       "host through it (set allowHostPaths: true at the top of the cluster "
                       "template 'x' to allow host paths)");
    QTest::newRow("docker socket")
        << "/var/run/docker.sock:/s" << false
        << refused.arg("/var/run/docker.sock:/s", "/var/run/docker.sock");
    QTest::newRow("root, read-only") << "/:/host:ro" << false << refused.arg("/:/host", "/");
    QTest::newRow("named volume") << "data:/data" << false << QString();
    QTest::newRow("docker socket, allowed") << "/var/run/docker.sock:/s" << true << QString();
}

void TestPlanResolver::hostPathsNeedTheTemplatesConsent()
{
    QFETCH(QString, mount);
    QFETCH(bool, allow);
    QFETCH(QString, error);
    const ClusterTemplate t =
        load(QByteArray("name: x\n") + (allow ? "allowHostPaths: true\n" : "") +
             "roles:\n  - name: worker\n    task:\n      image: img\n");
    LaunchOptions opts = options();
    const auto m = TemplateValues::parseMountSpec(mount);
    QVERIFY(m);
    opts.mounts.append(*m);
    const auto plan = resolvePlan(t, opts, {});
    if (error.isEmpty()) {
        VERIFY_OK(plan);
        QCOMPARE(plan->allowHostPaths, allow);
        QCOMPARE(plan->kernels.first().mounts.value(0).source, m->source);
    } else {
        QVERIFY(!plan);
        QCOMPARE(plan.error().toString(), error);
    }
}

// A spec read back from the store is held to the rules a template is: whoever can write to etcd
// must not make the controller's next restart mount the host, or run what no template may.
void TestPlanResolver::storedSpecHeldToTemplateRules_data()
{
    QTest::addColumn<QString>("change");
    QTest::addColumn<QString>("error"); // empty: accepted
    QTest::newRow("as stored") << ""
                               << "";
    QTest::newRow("docker socket bind")
        << "mount /var/run/docker.sock"
        << "kernel master1: mounts: '/var/run/docker.sock' is a path on the host";
    QTest::newRow("volume binding /") << "mount volume-bind /"
                                      << "kernel master1: mounts: '/' is a path on the host";
    QTest::newRow("docker socket bind, allowed") << "allow; mount /var/run/docker.sock"
                                                 << "";
    QTest::newRow("env name") << "env A=B"
                              << "kernel master1: env: 'A=B' is not a valid variable name";
    QTest::newRow("hostname of another role")
        << "hostname worker9"
        << "kernel worker9: hostname 'worker9' is not role 'master' with "
           "index 1";
    QTest::newRow("container of another session")
        << "container cd-00000000-master1"
        << "kernel master1: container name 'cd-00000000-master1' is not the kernel's";
    QTest::newRow("file outside its folder")
        << "file /etc/cluster/../../root/.profile"
        << "kernel master1: file '/etc/cluster/../../root/.profile' is not a clean absolute path";
    QTest::newRow("memory beyond 1 PiB") << "memory 1e18"
                                         << "kernel master1: resources: memory 1000000000000000000 "
                                            "bytes is not between 1 byte and 1024t";
    QTest::newRow("port 0") << "port 0"
                            << "kernel master1: ports: port 0 is outside 1-65535";
    QTest::newRow("no image") << "image"
                              << "kernel master1: image '' is not an image reference";
    QTest::newRow("session id") << "session ../../x"
                                << "session id '../../x' is not a UUID";
}

void TestPlanResolver::storedSpecHeldToTemplateRules()
{
    QFETCH(QString, change);
    QFETCH(QString, error);
    SessionSpec spec;
    spec.plan = richPlan();
    QJsonObject stored = spec.toJson();
    QJsonArray kernels = stored.value("kernels").toArray();
    QJsonObject k = kernels.at(0).toObject();
    for (const QString &step : change.split(QStringLiteral("; "), Qt::SkipEmptyParts)) {
        const QString verb = step.section(u' ', 0, 0);
        const QString arg = step.section(u' ', 1);
        if (verb == u"allow") {
            stored.insert("allow_host_paths", true);
        } else if (verb == u"mount") {
            QJsonObject m{{"target", "/host"}, {"type", "bind"}, {"source", arg}};
            if (arg.startsWith(u"volume-bind "))
                m = QJsonObject{{"target", "/host"},
                                {"type", "volume"},
                                {"source", "v"},
                                {"driver_options", QJsonObject{{"type", "none"},
                                                               {"o", "bind"},
                                                               {"device", arg.section(u' ', 1)}}}};
            QJsonArray mounts = k.value("mounts").toArray();
            mounts.append(m);
            k.insert("mounts", mounts);
        } else if (verb == u"env") {
            QJsonObject env = k.value("env").toObject();
            env.insert(arg, "x");
            k.insert("env", env);
        } else if (verb == u"hostname") {
            k.insert("hostname", arg);
        } else if (verb == u"container") {
            k.insert("container_name", arg);
        } else if (verb == u"file") {
            QJsonArray files = k.value("files").toArray();
            files.append(QJsonObject{{"path", arg}, {"mode", 0644}, {"content", "eA=="}});
            k.insert("files", files);
        } else if (verb == u"memory") {
            k.insert("resources", QJsonObject{{"memory_bytes", arg.toDouble()}});
        } else if (verb == u"port") {
            k.insert("ports", QJsonArray{QJsonObject{
                                  {"name", "web"}, {"protocol", "http"}, {"port", arg.toInt()}}});
        } else if (verb == u"image") {
            k.insert("image", arg);
        } else if (verb == u"session") {
            stored.insert("session_id", arg);
        } else {
            QFAIL(qPrintable(QStringLiteral("unknown change %1").arg(step)));
        }
    }
    kernels.replace(0, k);
    stored.insert("kernels", kernels);
    const auto back = SessionSpec::fromJson(stored, QStringLiteral("session x"));
    if (error.isEmpty()) {
        VERIFY_OK(back);
        return;
    }
    QVERIFY(!back);
    const QString got = back.error().toString();
    QVERIFY2(got.startsWith(QStringLiteral("session x: the stored session spec breaks a template "
                                           "rule: ")) &&
                 got.contains(error),
             qPrintable(got));
}

QTEST_GUILESS_MAIN(TestPlanResolver)
#include "tst_planresolver.moc"
