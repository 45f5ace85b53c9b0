// The container a planned kernel becomes (ContainerSpecBuilder): pure, table by table.

#include "common/labels.h"
#include "provision/containerspecbuilder.h"
#include "provision/envstrings.h"

#include <QTest>

using namespace ClusterDeck;

namespace {

KernelSpec kernel()
{
    KernelSpec k;
    k.kernelId = QStringLiteral("6d1c2b3a-0000-4000-8000-00000000000a");
    k.hostname = QStringLiteral("worker2");
    k.containerName = QStringLiteral("cd-3f2c8a1e-worker2");
    k.role = QStringLiteral("worker");
    k.image = QStringLiteral("busybox:1.36");
    k.labels = {{Labels::session(), QStringLiteral("3f2c8a1e-0000-4000-8000-000000000001")},
                {Labels::kernel(), k.kernelId}};
    return k;
}

} // namespace

class TestContainerSpecBuilder : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void identityAndNetwork();
    void storeLabel_data();
    void storeLabel();
    void resources_data();
    void resources();
    void ports_data();
    void ports();
    void mounts();
    void envSharedOrNot_data();
    void envSharedOrNot();
    void publicAddress_data();
    void publicAddress();
    void bindableAddress_data();
    void bindableAddress();
};

// Named as the plan says, from the recorded digest once there is one, and on the session's
// network under its hostname: how the other kernels reach it.
void TestContainerSpecBuilder::identityAndNetwork()
{
    KernelSpec k = kernel();
    k.imageDigest = QStringLiteral("busybox@sha256:abcd");
    k.entrypoint = {QStringLiteral("/bin/sh"), QStringLiteral("-c")};
    k.command = {QStringLiteral("sleep infinity")};
    k.workingDir = QStringLiteral("/work");
    k.user = QStringLiteral("1000:100");
    const Docker::ContainerSpec c =
        ContainerSpecBuilder::specFor(k, QStringLiteral("cd-3f2c8a1e"), QString());
    QCOMPARE(c.name, QStringLiteral("cd-3f2c8a1e-worker2"));
    QCOMPARE(c.hostname, QStringLiteral("worker2"));
    QCOMPARE(c.image, QStringLiteral("busybox@sha256:abcd"));
    QCOMPARE(c.entrypoint, k.entrypoint);
    QCOMPARE(c.cmd, k.command);
    QCOMPARE(c.workingDir, QStringLiteral("/work"));
    QCOMPARE(c.user, QStringLiteral("1000:100"));
    QCOMPARE(c.networkMode, QStringLiteral("cd-3f2c8a1e"));
    QCOMPARE(c.endpoints.keys(), QStringList{QStringLiteral("cd-3f2c8a1e")});
    QCOMPARE(c.endpoints.value(QStringLiteral("cd-3f2c8a1e")).aliases,
             QStringList{QStringLiteral("worker2")});
}

void TestContainerSpecBuilder::storeLabel_data()
{
    QTest::addColumn<QString>("storeId");
    QTest::newRow("this store's id") << QStringLiteral("9b1d5c7a-0000-4000-8000-000000000002");
    QTest::newRow("none (the benchmark's raw floor)") << QString();
}

void TestContainerSpecBuilder::storeLabel()
{
    QFETCH(QString, storeId);
    const KernelSpec k = kernel();
    const Docker::ContainerSpec c = ContainerSpecBuilder::specFor(k, QStringLiteral("n"), storeId);
    for (auto it = k.labels.cbegin(); it != k.labels.cend(); ++it)
        QCOMPARE(c.labels.value(it.key()), it.value());
    QCOMPARE(c.labels.contains(Labels::store()), !storeId.isEmpty());
    QCOMPARE(c.labels.value(Labels::store()), storeId);
}

void TestContainerSpecBuilder::resources_data()
{
    QTest::addColumn<std::optional<double>>("cpus");
    QTest::addColumn<std::optional<qint64>>("memory");
    QTest::addColumn<std::optional<int>>("gpus");
    QTest::addColumn<qint64>("nanoCpus");
    QTest::addColumn<qint64>("memoryBytes");
    QTest::addColumn<int>("gpuRequest"); // 0: no device request
    QTest::newRow("none: unlimited") << std::optional<double>() << std::optional<qint64>()
                                     << std::optional<int>() << 0LL << 0LL << 0;
    QTest::newRow("1.5 CPUs, 512 MiB")
        << std::optional<double>(1.5) << std::optional<qint64>(512LL << 20) << std::optional<int>()
        << 1500000000LL << (512LL << 20) << 0;
    QTest::newRow("2 GPUs") << std::optional<double>() << std::optional<qint64>()
                            << std::optional<int>(2) << 0LL << 0LL << 2;
    QTest::newRow("all GPUs (-1)") << std::optional<double>() << std::optional<qint64>()
                                   << std::optional<int>(-1) << 0LL << 0LL << -1;
    QTest::newRow("gpus: 0 asks for none") << std::optional<double>() << std::optional<qint64>()
                                           << std::optional<int>(0) << 0LL << 0LL << 0;
}

void TestContainerSpecBuilder::resources()
{
    QFETCH(std::optional<double>, cpus);
    QFETCH(std::optional<qint64>, memory);
    QFETCH(std::optional<int>, gpus);
    QFETCH(qint64, nanoCpus);
    QFETCH(qint64, memoryBytes);
    QFETCH(int, gpuRequest);
    KernelSpec k = kernel();
    k.resources.cpus = cpus;
    k.resources.memoryBytes = memory;
    k.resources.gpus = gpus;
    const Docker::ContainerSpec c = ContainerSpecBuilder::specFor(k, QStringLiteral("n"), {});
    QCOMPARE(c.nanoCpus, nanoCpus);
    QCOMPARE(c.memory, memoryBytes);
    QCOMPARE(c.deviceRequests.size(), gpuRequest ? 1 : 0);
    if (gpuRequest) {
        QCOMPARE(c.deviceRequests.first().count, gpuRequest);
        QCOMPARE(c.deviceRequests.first().capabilities,
                 (QList<QStringList>{{QStringLiteral("gpu")}}));
    }
}

void TestContainerSpecBuilder::ports_data()
{
    QTest::addColumn<QString>("bindAddress"); // the kernel's
    QTest::addColumn<QString>("hostAddress"); // the placed host's
    QTest::addColumn<QString>("hostIp");      // where the ports are published
    QTest::newRow("the host's registered address")
        << QString() << QStringLiteral("192.168.5.2") << QStringLiteral("192.168.5.2");
    QTest::newRow("the template's bindAddress wins")
        << QStringLiteral("0.0.0.0") << QStringLiteral("192.168.5.2") << QStringLiteral("0.0.0.0");
}

void TestContainerSpecBuilder::ports()
{
    QFETCH(QString, bindAddress);
    QFETCH(QString, hostAddress);
    QFETCH(QString, hostIp);
    KernelSpec k = kernel();
    k.bindAddress = bindAddress;
    k.ports = {{QStringLiteral("web"), QStringLiteral("http"), 8080},
               {QStringLiteral("ssh"), QStringLiteral("tcp"), 22}};
    const Docker::ContainerSpec c =
        ContainerSpecBuilder::specFor(k, QStringLiteral("n"), {}, hostAddress);
    QCOMPARE(c.ports.size(), 2);
    QCOMPARE(c.ports.at(0).containerPort, 8080);
    QCOMPARE(c.ports.at(1).containerPort, 22);
    for (const Docker::PortBinding &b : c.ports) {
        QCOMPARE(b.protocol, QStringLiteral("tcp"));
        QCOMPARE(b.hostPort, 0); // Docker chooses; read back after the start
        QCOMPARE(b.hostIp, hostIp);
    }
}

void TestContainerSpecBuilder::mounts()
{
    KernelSpec k = kernel();
    k.mounts = {
        Mount{Mount::Type::Volume,
              QStringLiteral("cluster-data"),
              QStringLiteral("/data"),
              false,
              QStringLiteral("local"),
              {}},
        Mount{Mount::Type::Bind, QStringLiteral("/srv/x"), QStringLiteral("/x"), true, {}, {}}};
    const Docker::ContainerSpec c = ContainerSpecBuilder::specFor(k, QStringLiteral("n"), {});
    QCOMPARE(c.mounts.size(), 2);
    QCOMPARE(c.mounts.at(0).type, Docker::MountSpec::Type::Volume);
    QCOMPARE(c.mounts.at(0).source, QStringLiteral("cluster-data"));
    QCOMPARE(c.mounts.at(0).target, QStringLiteral("/data"));
    QVERIFY(!c.mounts.at(0).readOnly);
    QCOMPARE(c.mounts.at(1).type, Docker::MountSpec::Type::Bind);
    QCOMPARE(c.mounts.at(1).source, QStringLiteral("/srv/x"));
    QVERIFY(c.mounts.at(1).readOnly);
}

void TestContainerSpecBuilder::envSharedOrNot_data()
{
    QTest::addColumn<int>("valueSize");
    QTest::addColumn<bool>("shareable"); // long session-wide values are joined once
    QTest::newRow("short value: joined per kernel") << 40 << false;
    QTest::newRow("BACKEND_CLUSTER_HOSTS of 1,000 kernels: shared") << 11000 << true;
}

void TestContainerSpecBuilder::envSharedOrNot()
{
    QFETCH(int, valueSize);
    QFETCH(bool, shareable);
    const QString hosts = QString(valueSize, QLatin1Char('h'));
    KernelSpec a = kernel();
    a.env = {{QStringLiteral("BACKEND_CLUSTER_HOSTS"), hosts}, {QStringLiteral("X"), "1"}};
    KernelSpec b = a;
    b.hostname = QStringLiteral("worker3");
    EnvStrings shared;
    const auto ca = ContainerSpecBuilder::specFor(a, QStringLiteral("n"), {}, {}, &shared);
    const auto cb = ContainerSpecBuilder::specFor(b, QStringLiteral("n"), {}, {}, &shared);
    const auto plain = ContainerSpecBuilder::specFor(a, QStringLiteral("n"), {});
    // The same entries either way, in key order.
    QCOMPARE(ca.env, plain.env);
    QCOMPARE(ca.env.size(), 2);
    QCOMPARE(ca.env.at(0), QStringLiteral("BACKEND_CLUSTER_HOSTS=") + hosts);
    QCOMPARE(ca.env.at(1), QStringLiteral("X=1"));
    // Shared: one string's data in both kernels' specs.
    QCOMPARE(ca.env.at(0).constData() == cb.env.at(0).constData(), shareable);
}

void TestContainerSpecBuilder::publicAddress_data()
{
    QTest::addColumn<QString>("endpoint");
    QTest::addColumn<QString>("registered");
    QTest::addColumn<QString>("address");
    QTest::newRow("registered address")
        << QStringLiteral("tcp://10.0.0.5:2376") << QStringLiteral("192.168.5.2")
        << QStringLiteral("192.168.5.2");
    QTest::newRow("the endpoint's host")
        << QStringLiteral("tcp://10.0.0.5:2376") << QString() << QStringLiteral("10.0.0.5");
    QTest::newRow("a local socket: loopback") << QStringLiteral("unix:///var/run/docker.sock")
                                              << QString() << QStringLiteral("127.0.0.1");
}

void TestContainerSpecBuilder::publicAddress()
{
    QFETCH(QString, endpoint);
    QFETCH(QString, registered);
    QFETCH(QString, address);
    HostRecord h;
    h.name = QStringLiteral("h1");
    h.endpoint = endpoint;
    h.publicAddress = registered;
    QCOMPARE(ContainerSpecBuilder::publicAddressOf(h), address);
}

void TestContainerSpecBuilder::bindableAddress_data()
{
    QTest::addColumn<QString>("registered");
    QTest::addColumn<QString>("ip");
    QTest::newRow("an IPv4 address as it is")
        << QStringLiteral("192.168.5.2") << QStringLiteral("192.168.5.2");
    QTest::newRow("an IPv6 address as it is")
        << QStringLiteral("fd00::2") << QStringLiteral("fd00::2");
    QTest::newRow("localhost: its IPv4 address first")
        << QStringLiteral("localhost") << QStringLiteral("127.0.0.1");
}

void TestContainerSpecBuilder::bindableAddress()
{
    QFETCH(QString, registered);
    QFETCH(QString, ip);
    HostRecord h;
    h.name = QStringLiteral("h1");
    h.endpoint = QStringLiteral("unix:///var/run/docker.sock");
    h.publicAddress = registered;
    auto address = ContainerSpecBuilder::bindableAddressOf(h);
    QVERIFY2(address, qPrintable(address ? QString() : address.error().toString()));
    QCOMPARE(*address, ip);
}

QTEST_GUILESS_MAIN(TestContainerSpecBuilder)
#include "tst_containerspecbuilder.moc"
