#include "plan/planresolver.h"
#include "plan/presets.h"
#include "template/templateloader.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

using namespace ClusterDeck;

#define VERIFY_OK(result)                                                                          \
    QVERIFY2(bool(result), (result) ? "" : qPrintable((result).error().toString()))

class TestPresets : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void effective_data();
    void effective();
    void pytorch_data();
    void pytorch();
    void pytorchMasterPortFromEnv();
    void tensorflow_data();
    void tensorflow();
    void mpiHostfile();
    void sshNeedsKeys();
    void sshFiles_data();
    void sshFiles();
    void sshConfig();
    void keypairFromKnownKey();
    void generatedKeyWorksWithOpenSsh();
    void homeOf_data();
    void homeOf();

private:
    static ClusterTemplate load(const QByteArray &yaml);
    static LaunchOptions options(bool withKeys = false);
};

ClusterTemplate TestPresets::load(const QByteArray &yaml)
{
    TemplateLoader loader;
    auto t = loader.loadClusterFromData(yaml, QStringLiteral("t.yaml"));
    if (!t)
        qFatal("test template does not load: %s", qPrintable(t.error().toString()));
    return *t;
}

LaunchOptions TestPresets::options(bool withKeys)
{
    LaunchOptions o;
    o.sessionId = QStringLiteral("3f2c9a41-7b7e-4c1e-9d51-0a6f3b2c1d00");
    if (withKeys)
        o.sshKeyPair =
            SshKeyPair{"-----BEGIN OPENSSH PRIVATE KEY-----\nx\n", "ssh-ed25519 AAAA k\n"};
    return o;
}

namespace {

QByteArray cluster(const QByteArray &presets, const QByteArray &extra = {})
{
    return "name: x\npresets: [" + presets +
           "]\nroles:\n"
           "  - {name: master, task: {image: i}}\n"
           "  - {name: worker, task: {image: i" +
           extra + "}, count: 3, max: 12}\n";
}

} // namespace

void TestPresets::effective_data()
{
    QTest::addColumn<QStringList>("requested");
    QTest::addColumn<QStringList>("expected");
    QTest::newRow("none") << QStringList{} << QStringList{};
    QTest::newRow("mpi implies ssh") << QStringList{"mpi"} << QStringList{"mpi", "ssh"};
    QTest::newRow("fixed order") << QStringList{"ssh", "pytorch"} << QStringList{"pytorch", "ssh"};
    QTest::newRow("all") << QStringList{"mpi", "ssh", "tensorflow", "pytorch"}
                         << QStringList{"pytorch", "tensorflow", "mpi", "ssh"};
}

void TestPresets::effective()
{
    QFETCH(QStringList, requested);
    QFETCH(QStringList, expected);
    QCOMPARE(Presets::effective(requested), expected);
    QCOMPARE(Presets::needsSshKeyPair(requested), expected.contains("ssh"));
}

void TestPresets::pytorch_data()
{
    QTest::addColumn<QString>("host");
    QTest::addColumn<QString>("variable");
    QTest::addColumn<QString>("expected");
    QTest::newRow("master addr on worker") << "worker3"
                                           << "MASTER_ADDR"
                                           << "master1";
    QTest::newRow("master addr on master") << "master1"
                                           << "MASTER_ADDR"
                                           << "master1";
    QTest::newRow("default port") << "worker1"
                                  << "MASTER_PORT"
                                  << "29500";
    QTest::newRow("world size") << "worker1"
                                << "WORLD_SIZE"
                                << "4";
    QTest::newRow("rank of master") << "master1"
                                    << "RANK"
                                    << "0";
    QTest::newRow("rank of worker3") << "worker3"
                                     << "RANK"
                                     << "3";
    QTest::newRow("node rank") << "worker2"
                               << "NODE_RANK"
                               << "2";
    QTest::newRow("local rank") << "worker2"
                                << "LOCAL_RANK"
                                << "0";
}

void TestPresets::pytorch()
{
    QFETCH(QString, host);
    QFETCH(QString, variable);
    QFETCH(QString, expected);
    const auto plan = resolvePlan(load(cluster("pytorch")), options(), {});
    VERIFY_OK(plan);
    QCOMPARE(plan->kernel(host)->env.value(variable), expected);
}

void TestPresets::pytorchMasterPortFromEnv()
{
    LaunchOptions opts = options();
    opts.env.insert("MASTER_PORT", "23456");
    opts.env.insert("RANK", "99"); // computed values are not user-settable
    const auto plan = resolvePlan(load(cluster("pytorch")), opts, {});
    VERIFY_OK(plan);
    for (const KernelSpec &k : plan->kernels)
        QCOMPARE(k.env.value("MASTER_PORT"), QStringLiteral("23456"));
    QCOMPARE(plan->kernel("worker1")->env.value("RANK"), QStringLiteral("1"));
}

void TestPresets::tensorflow_data()
{
    QTest::addColumn<QString>("host");
    QTest::addColumn<QString>("expected");
    const QString map = QStringLiteral(
        R"("cluster":{"master":["master1:2222"],"worker":["worker1:2222","worker2:2222","worker3:2222"]})");
    QTest::newRow("master1") << "master1"
                             << "{" + map + R"(,"task":{"index":0,"type":"master"}})";
    QTest::newRow("worker1") << "worker1"
                             << "{" + map + R"(,"task":{"index":0,"type":"worker"}})";
    QTest::newRow("worker3") << "worker3"
                             << "{" + map + R"(,"task":{"index":2,"type":"worker"}})";
}

void TestPresets::tensorflow()
{
    QFETCH(QString, host);
    QFETCH(QString, expected);
    const auto plan = resolvePlan(load(cluster("tensorflow")), options(), {});
    VERIFY_OK(plan);
    const QString config = plan->kernel(host)->env.value("TF_CONFIG");
    QCOMPARE(config, expected);
    QVERIFY(QJsonDocument::fromJson(config.toUtf8()).isObject());

    // A port named `tf` replaces the default 2222.
    const auto custom =
        resolvePlan(load(cluster("tensorflow", ", ports: [tf:tcp:5000]")), options(), {});
    VERIFY_OK(custom);
    const QJsonObject c =
        QJsonDocument::fromJson(custom->kernels.first().env.value("TF_CONFIG").toUtf8())
            .object()
            .value("cluster")
            .toObject();
    QCOMPARE(c.value("worker").toArray().at(1).toString(), QStringLiteral("worker2:5000"));
    QCOMPARE(c.value("master").toArray().at(0).toString(), QStringLiteral("master1:2222"));
}

void TestPresets::mpiHostfile()
{
    const auto noKeys = resolvePlan(load(cluster("mpi")), options(), {});
    QVERIFY(!noKeys); // mpi implies ssh
    const auto plan =
        resolvePlan(load(cluster("mpi", ", resources: {cpus: 1.5}")), options(true), {});
    VERIFY_OK(plan);
    QCOMPARE(plan->presets, (QStringList{"mpi", "ssh"}));
    for (const KernelSpec &k : plan->kernels) {
        const PlannedFile *hostfile = k.file("/etc/cluster/hostfile");
        QVERIFY(hostfile);
        QCOMPARE(
            hostfile->content,
            QByteArray("# Written by ClusterDeck: one line per kernel, in rank order.\n"
                       "master1 slots=1\nworker1 slots=2\nworker2 slots=2\nworker3 slots=2\n"));
        QCOMPARE(k.env.value("OMPI_MCA_orte_default_hostfile"),
                 QStringLiteral("/etc/cluster/hostfile"));
        QCOMPARE(k.env.value("OMPI_MCA_plm_rsh_agent"), QStringLiteral("ssh"));
        QCOMPARE(k.env.value("OMPI_ALLOW_RUN_AS_ROOT"), QStringLiteral("1"));
        QVERIFY(k.file("/root/.ssh/id_ed25519"));
    }
}

void TestPresets::sshNeedsKeys()
{
    const auto plan = resolvePlan(load(cluster("ssh")), options(), {});
    QVERIFY(!plan);
    QCOMPARE(plan.error().where, QStringLiteral("preset ssh"));
}

void TestPresets::sshFiles_data()
{
    QTest::addColumn<QString>("path");
    QTest::addColumn<int>("mode");
    QTest::addColumn<QByteArray>("content");
    QTest::newRow("private key") << "/root/.ssh/id_ed25519" << 0600
                                 << QByteArray("-----BEGIN OPENSSH PRIVATE KEY-----\nx\n");
    QTest::newRow("public key") << "/root/.ssh/id_ed25519.pub" << 0644
                                << QByteArray("ssh-ed25519 AAAA k\n");
    QTest::newRow("authorized_keys")
        << "/root/.ssh/authorized_keys" << 0600 << QByteArray("ssh-ed25519 AAAA k\n");
}

void TestPresets::sshFiles()
{
    QFETCH(QString, path);
    QFETCH(int, mode);
    QFETCH(QByteArray, content);
    const auto plan = resolvePlan(load(cluster("ssh")), options(true), {});
    VERIFY_OK(plan);
    for (const KernelSpec &k : plan->kernels) {
        const PlannedFile *f = k.file(path);
        QVERIFY2(f, qPrintable(k.hostname + ": " + path));
        QCOMPARE(f->mode, mode);
        QCOMPARE(f->content, content);
        QCOMPARE(f->isSecret(), mode == 0600);
    }
}

void TestPresets::sshConfig()
{
    const QByteArray yaml =
        "name: x\npresets: [ssh]\nroles:\n"
        "  - {name: master, task: {image: i}}\n"
        "  - {name: worker, task: {image: i, user: mpiuser}, count: 3, max: 12}\n";
    const auto plan = resolvePlan(load(yaml), options(true), {});
    VERIFY_OK(plan);
    const PlannedFile *config = plan->kernel("worker2")->file("/home/mpiuser/.ssh/config");
    QVERIFY(config);
    QCOMPARE(config->owner, QStringLiteral("mpiuser"));
    QCOMPARE(config->content,
             QByteArray(
                 "# Written by ClusterDeck: `ssh <hostname>` reaches any kernel of this session.\n"
                 "\n# role master\nHost master1\n    User root\n"
                 "    IdentityFile ~/.ssh/id_ed25519\n    StrictHostKeyChecking no\n"
                 "    UserKnownHostsFile /dev/null\n    LogLevel ERROR\n"
                 "\n# role worker\nHost worker1 worker2 worker3\n    User mpiuser\n"
                 "    IdentityFile ~/.ssh/id_ed25519\n    StrictHostKeyChecking no\n"
                 "    UserKnownHostsFile /dev/null\n    LogLevel ERROR\n"));
    QVERIFY(plan->kernel("master1")->file("/root/.ssh/config"));
}

void TestPresets::keypairFromKnownKey()
{
    // RFC 8032, test 1.
    const QByteArray seed =
        QByteArray::fromHex("9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60");
    const QByteArray pub =
        QByteArray::fromHex("d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a");
    const SshKeyPair pair = SshKeyPair::fromEd25519(seed, pub, QStringLiteral("test"));
    QCOMPARE(
        pair.publicKey,
        QByteArray("ssh-ed25519 "
                   "AAAAC3NzaC1lZDI1NTE5AAAAINdamAGCsQq31Uv+08lkBzoO4XLz2qYjJa8CGmj3B1Ea test\n"));
    QVERIFY(pair.privateKey.startsWith("-----BEGIN OPENSSH PRIVATE KEY-----\n"));
    QVERIFY(pair.privateKey.endsWith("-----END OPENSSH PRIVATE KEY-----\n"));
    QCOMPARE(SshKeyPair::fromEd25519(seed, pub, QStringLiteral("test")), pair); // deterministic
}

void TestPresets::generatedKeyWorksWithOpenSsh()
{
    const auto a = SshKeyPair::generate(QStringLiteral("clusterdeck"));
    const auto b = SshKeyPair::generate(QStringLiteral("clusterdeck"));
    VERIFY_OK(a);
    VERIFY_OK(b);
    QVERIFY(a->publicKey != b->publicKey);
    QVERIFY(a->publicKey.startsWith("ssh-ed25519 "));

    const QString keygen = QStandardPaths::findExecutable(QStringLiteral("ssh-keygen"));
    // scripts/setup.sh installs openssh-client: a missing ssh-keygen is a broken setup, not a skip.
    QVERIFY2(!keygen.isEmpty(), "ssh-keygen not found (package openssh-client)");
    QTemporaryDir dir;
    QFile key(dir.filePath("id_ed25519"));
    QVERIFY(key.open(QIODevice::WriteOnly));
    key.write(a->privateKey);
    key.close();
    key.setPermissions(QFile::ReadOwner | QFile::WriteOwner);
    QProcess p;
    p.start(keygen, {"-y", "-f", key.fileName()});
    QVERIFY(p.waitForFinished(10000));
    QCOMPARE(p.exitCode(), 0);
    // ssh-keygen -y prints the public key with the comment stored in the private key.
    QCOMPARE(p.readAllStandardOutput().trimmed(), a->publicKey.trimmed());
}

void TestPresets::homeOf_data()
{
    QTest::addColumn<QString>("user");
    QTest::addColumn<QString>("home");
    QTest::newRow("default") << ""
                             << "/root";
    QTest::newRow("root") << "root"
                          << "/root";
    QTest::newRow("uid 0") << "0"
                           << "/root";
    QTest::newRow("named") << "mpiuser"
                           << "/home/mpiuser";
    QTest::newRow("user:group") << "mpiuser:mpi"
                                << "/home/mpiuser";
}

void TestPresets::homeOf()
{
    QFETCH(QString, user);
    QFETCH(QString, home);
    QCOMPARE(Presets::homeOf(user), home);
}

QTEST_GUILESS_MAIN(TestPresets)
#include "tst_presets.moc"
