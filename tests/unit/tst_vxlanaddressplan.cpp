// VxlanAddressPlan: where a session's hosts (gateways) and kernels (static addresses) sit in its
// VXLAN subnet, stable while the session is scaled, and the ExtraHosts every kernel gets. Pure.

#include "common/ipv4cidr.h"
#include "network/vxlanaddressplan.h"

#include <QTest>

using namespace ClusterDeck;

namespace {

VxlanAddressPlan planFor(const QString &cidr)
{
    const auto subnet = Ipv4Cidr::parse(cidr);
    if (!subnet)
        qFatal("bad CIDR in the test: %s", qPrintable(cidr));
    return VxlanAddressPlan(*subnet);
}

QString value(const Result<QString> &r)
{
    return r ? *r : QStringLiteral("error: ") + r.error().message;
}

} // namespace

class TestVxlanAddressPlan : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void layout_data();
    void layout();
    void stableWhileScaled();
    void restore_data();
    void restore();
    void restoredAddressesAreNotHandedOut();
    void full_data();
    void full();
    void extraHosts();
    void slotsOfAPlacement_data();
    void slotsOfAPlacement();
};

void TestVxlanAddressPlan::layout_data()
{
    QTest::addColumn<QString>("subnet");
    QTest::addColumn<int>("capacity");
    QTest::addColumn<QStringList>("gateways"); // of h1, h2
    QTest::addColumn<QStringList>("kernels");  // of master1, worker1
    QTest::newRow("/24") << "100.64.5.0/24" << 224 << QStringList{"100.64.5.1", "100.64.5.2"}
                         << QStringList{"100.64.5.31", "100.64.5.32"};
    QTest::newRow("/23, the last kernel across an octet")
        << "100.64.6.0/23" << 480 << QStringList{"100.64.6.1", "100.64.6.2"}
        << QStringList{"100.64.6.31", "100.64.6.32"};
    QTest::newRow("/26 not at .0")
        << "10.200.5.64/26" << 32 << QStringList{"10.200.5.65", "10.200.5.66"}
        << QStringList{"10.200.5.95", "10.200.5.96"};
}

void TestVxlanAddressPlan::layout()
{
    QFETCH(QString, subnet);
    QFETCH(int, capacity);
    QFETCH(QStringList, gateways);
    QFETCH(QStringList, kernels);
    VxlanAddressPlan plan = planFor(subnet);
    QCOMPARE(plan.kernelCapacity(), capacity);
    // Hosts and kernels interleaved: the two ranges do not take from each other.
    QCOMPARE(value(plan.gatewayFor("h1")), gateways[0]);
    QCOMPARE(value(plan.addressFor("master1")), kernels[0]);
    QCOMPARE(value(plan.gatewayFor("h2")), gateways[1]);
    QCOMPARE(value(plan.addressFor("worker1")), kernels[1]);
    // Asked again: the same answers.
    QCOMPARE(value(plan.gatewayFor("h1")), gateways[0]);
    QCOMPARE(value(plan.addressFor("master1")), kernels[0]);
    QCOMPARE(plan.gateways().size(), 2);
    QCOMPARE(plan.kernelAddresses().size(), 2);
}

void TestVxlanAddressPlan::stableWhileScaled()
{
    VxlanAddressPlan plan = planFor("100.64.5.0/24");
    QCOMPARE(value(plan.gatewayFor("h1")), "100.64.5.1");
    QCOMPARE(value(plan.gatewayFor("h2")), "100.64.5.2");
    for (const char *k : {"master1", "worker1", "worker2", "worker3"})
        QVERIFY(plan.addressFor(k));
    const QHash<QString, QString> before = plan.kernelAddresses();
    QCOMPARE(before.value("worker3"), "100.64.5.34");

    // Scale down: worker2 goes, h1 leaves the session; nobody else moves.
    plan.releaseKernel("worker2");
    plan.releaseHost("h1");
    plan.releaseKernel("nobody"); // unknown names are ignored
    QCOMPARE(plan.kernelAddresses().value("worker3"), before.value("worker3"));
    QCOMPARE(plan.gateways().value("h2"), "100.64.5.2");

    // Scale up onto a third host: the lowest free addresses are reused.
    QCOMPARE(value(plan.gatewayFor("h3")), "100.64.5.1");
    QCOMPARE(value(plan.addressFor("worker4")), before.value("worker2"));
    QCOMPARE(value(plan.addressFor("worker5")), "100.64.5.35");
    QCOMPARE(plan.kernelAddresses().value("master1"), before.value("master1"));
    QCOMPARE(plan.kernelAddresses().value("worker1"), before.value("worker1"));
}

void TestVxlanAddressPlan::restore_data()
{
    QTest::addColumn<QString>("kind"); // host or kernel
    QTest::addColumn<QString>("name");
    QTest::addColumn<QString>("address");
    QTest::addColumn<QString>("error"); // empty: restored
    // The plan holds h1 → .1 and master1 → .31 before each row.
    QTest::newRow("a kernel") << "kernel"
                              << "worker1"
                              << "100.64.5.40"
                              << "";
    QTest::newRow("a host") << "host"
                            << "h2"
                            << "100.64.5.7"
                            << "";
    QTest::newRow("the same again") << "kernel"
                                    << "master1"
                                    << "100.64.5.31"
                                    << "";
    QTest::newRow("not an address") << "kernel"
                                    << "worker1"
                                    << "100.64.5"
                                    << "not an IPv4";
    QTest::newRow("outside the subnet") << "kernel"
                                        << "worker1"
                                        << "100.64.6.40"
                                        << "outside the session's subnet";
    QTest::newRow("the broadcast address") << "kernel"
                                           << "worker1"
                                           << "100.64.5.255"
                                           << "outside the kernel addresses";
    QTest::newRow("a kernel among the gateways") << "kernel"
                                                 << "worker1"
                                                 << "100.64.5.3"
                                                 << "outside the kernel addresses";
    QTest::newRow("a gateway among the kernels") << "host"
                                                 << "h2"
                                                 << "100.64.5.31"
                                                 << "outside the gateway addresses";
    QTest::newRow("another kernel's") << "kernel"
                                      << "worker1"
                                      << "100.64.5.31"
                                      << "another's address";
    QTest::newRow("another host's") << "host"
                                    << "h2"
                                    << "100.64.5.1"
                                    << "another's address";
    QTest::newRow("a second address for one kernel") << "kernel"
                                                     << "master1"
                                                     << "100.64.5.32"
                                                     << "it has 100.64.5.31 already";
}

void TestVxlanAddressPlan::restore()
{
    QFETCH(QString, kind);
    QFETCH(QString, name);
    QFETCH(QString, address);
    QFETCH(QString, error);
    VxlanAddressPlan plan = planFor("100.64.5.0/24");
    QVERIFY(plan.restoreHost("h1", "100.64.5.1"));
    QVERIFY(plan.restoreKernel("master1", "100.64.5.31"));
    const auto r =
        kind == "host" ? plan.restoreHost(name, address) : plan.restoreKernel(name, address);
    if (error.isEmpty()) {
        QVERIFY2(r.has_value(), qPrintable(r ? QString() : r.error().toString()));
        const auto mine = kind == "host" ? plan.gateways() : plan.kernelAddresses();
        QCOMPARE(mine.value(name), address);
        return;
    }
    QVERIFY(!r);
    QVERIFY2(r.error().toString().contains(error), qPrintable(r.error().toString()));
    QVERIFY2(r.error().toString().contains(name), qPrintable(r.error().toString()));
    // Nothing changed.
    QCOMPARE(plan.gateways(), (QHash<QString, QString>{{"h1", "100.64.5.1"}}));
    QCOMPARE(plan.kernelAddresses(), (QHash<QString, QString>{{"master1", "100.64.5.31"}}));
}

void TestVxlanAddressPlan::restoredAddressesAreNotHandedOut()
{
    VxlanAddressPlan plan = planFor("100.64.5.0/24");
    QVERIFY(plan.restoreKernel("worker1", "100.64.5.31"));
    QVERIFY(plan.restoreKernel("worker3", "100.64.5.33"));
    QVERIFY(plan.restoreHost("h2", "100.64.5.1"));
    QCOMPARE(value(plan.addressFor("worker2")), "100.64.5.32");
    QCOMPARE(value(plan.addressFor("worker4")), "100.64.5.34");
    QCOMPARE(value(plan.gatewayFor("h1")), "100.64.5.2");
}

void TestVxlanAddressPlan::full_data()
{
    QTest::addColumn<QString>("subnet");
    QTest::addColumn<int>("hosts");
    QTest::addColumn<int>("kernels");
    QTest::addColumn<QString>("error"); // of the last one asked for; empty: all fit
    QTest::newRow("a /24 holds 30 hosts and 224 kernels") << "100.64.5.0/24" << 30 << 224 << "";
    QTest::newRow("the 225th kernel")
        << "100.64.5.0/24" << 1 << 225 << "room for 224 kernels, all taken";
    QTest::newRow("the 31st host") << "100.64.5.0/24" << 31 << 1 << "more hosts than";
    QTest::newRow("a /27 has no kernel addresses")
        << "100.64.5.0/27" << 1 << 1 << "room for 0 kernels";
}

void TestVxlanAddressPlan::full()
{
    QFETCH(QString, subnet);
    QFETCH(int, hosts);
    QFETCH(int, kernels);
    QFETCH(QString, error);
    VxlanAddressPlan plan = planFor(subnet);
    Result<QString> last = QString();
    for (int h = 1; h <= hosts && last; ++h)
        last = plan.gatewayFor(QStringLiteral("h%1").arg(h));
    for (int k = 1; k <= kernels && last; ++k)
        last = plan.addressFor(QStringLiteral("worker%1").arg(k));
    if (error.isEmpty()) {
        QVERIFY2(last.has_value(), qPrintable(last ? QString() : last.error().toString()));
        QCOMPARE(plan.gateways().size(), hosts);
        QCOMPARE(plan.kernelAddresses().size(), kernels);
        QCOMPARE(plan.kernelAddresses().value(QStringLiteral("worker%1").arg(kernels)),
                 Ipv4Cidr::addressToString(plan.subnet().last() - 1));
        return;
    }
    QVERIFY(!last);
    QVERIFY2(last.error().message.contains(error), qPrintable(last.error().toString()));
}

void TestVxlanAddressPlan::extraHosts()
{
    VxlanAddressPlan plan = planFor("100.64.5.0/24");
    QVERIFY(plan.extraHosts().isEmpty());
    QVERIFY(plan.restoreKernel("worker2", "100.64.5.40"));
    QVERIFY(plan.addressFor("master1"));
    QVERIFY(plan.addressFor("worker1"));
    QVERIFY(plan.gatewayFor("h1")); // gateways are no kernels' names
    QCOMPARE(plan.extraHosts(),
             (QStringList{"master1:100.64.5.31", "worker1:100.64.5.32", "worker2:100.64.5.40"}));
}

using Slots = QMap<QString, int>;

// assignSlots: a launch gives every host and kernel a slot; a scale keeps the slots there are,
// frees those of removed kernels and hosts, and gives the new ones the lowest free slots.
void TestVxlanAddressPlan::slotsOfAPlacement_data()
{
    QTest::addColumn<QStringList>("hosts");   // Placement::hostsUsed
    QTest::addColumn<QStringList>("kernels"); // the plan's kernels, in order
    QTest::addColumn<Slots>("gateways");      // slots it has already
    QTest::addColumn<Slots>("addresses");
    QTest::addColumn<Slots>("expectedGateways");
    QTest::addColumn<Slots>("expectedAddresses");
    QTest::addColumn<QString>("error");

    QTest::newRow("launch 1+2 on two hosts")
        << QStringList{"h2", "h1"} << QStringList{"master1", "worker1", "worker2"} << Slots{}
        << Slots{} << Slots{{"h2", 1}, {"h1", 2}}
        << Slots{{"master1", 31}, {"worker1", 32}, {"worker2", 33}} << QString();
    QTest::newRow("scale onto a third host keeps the others")
        << QStringList{"h2", "h1", "h3"} << QStringList{"master1", "worker1", "worker2", "worker3"}
        << Slots{{"h2", 1}, {"h1", 2}} << Slots{{"master1", 31}, {"worker1", 32}, {"worker2", 33}}
        << Slots{{"h2", 1}, {"h1", 2}, {"h3", 3}}
        << Slots{{"master1", 31}, {"worker1", 32}, {"worker2", 33}, {"worker3", 34}} << QString();
    QTest::newRow("a removed kernel's slot is free again")
        << QStringList{"h1"} << QStringList{"master1", "worker2", "worker3"} << Slots{{"h1", 1}}
        << Slots{{"master1", 31}, {"worker1", 32}, {"worker2", 33}} << Slots{{"h1", 1}}
        << Slots{{"master1", 31}, {"worker2", 33}, {"worker3", 32}} << QString();
    QTest::newRow("a host no longer used frees its gateway")
        << QStringList{"h3"} << QStringList{"master1"} << Slots{{"h1", 1}, {"h3", 2}}
        << Slots{{"master1", 31}} << Slots{{"h3", 2}} << Slots{{"master1", 31}} << QString();
    QStringList many;
    for (int i = 1; i <= 225; ++i)
        many.append(QStringLiteral("worker%1").arg(i));
    QTest::newRow("225 kernels outgrow the /24")
        << QStringList{"h1"} << many << Slots{} << Slots{} << Slots{} << Slots{}
        << QStringLiteral("room for 224 kernels");
    QTest::newRow("a stored slot outside the kernels' part")
        << QStringList{"h1"} << QStringList{"master1"} << Slots{} << Slots{{"master1", 3}}
        << Slots{} << Slots{} << QStringLiteral("outside the kernel addresses");
}

void TestVxlanAddressPlan::slotsOfAPlacement()
{
    QFETCH(QStringList, hosts);
    QFETCH(QStringList, kernels);
    QFETCH(Slots, gateways);
    QFETCH(Slots, addresses);
    QFETCH(Slots, expectedGateways);
    QFETCH(Slots, expectedAddresses);
    QFETCH(QString, error);

    Placement placement;
    placement.mode = ClusterMode::MultiNode;
    placement.driver = NetworkDriver::Vxlan;
    placement.hostsUsed = hosts;
    placement.gatewaySlots = gateways;
    placement.addressSlots = addresses;
    ClusterPlan plan;
    for (const QString &name : kernels) {
        KernelSpec k;
        k.hostname = name;
        plan.kernels.append(k);
    }
    const auto ok = VxlanAddressPlan::assignSlots(placement, plan);
    if (!error.isEmpty()) {
        QVERIFY(!ok);
        QVERIFY2(ok.error().message.contains(error), qPrintable(ok.error().toString()));
        return;
    }
    QVERIFY2(ok, qPrintable(ok ? QString() : ok.error().toString()));
    QCOMPARE(placement.gatewaySlots, expectedGateways);
    QCOMPARE(placement.addressSlots, expectedAddresses);
    // In a claimed subnet the slots are addresses, each kernel's in the ExtraHosts.
    auto inSubnet = VxlanAddressPlan::fromSlots(*Ipv4Cidr::parse(u"100.64.7.0/24"), placement);
    QVERIFY(inSubnet);
    QCOMPARE(inSubnet->extraHosts().size(), kernels.size());
    QCOMPARE(inSubnet->kernelAddresses().value(kernels.first()),
             QStringLiteral("100.64.7.%1").arg(expectedAddresses.value(kernels.first())));
}

QTEST_GUILESS_MAIN(TestVxlanAddressPlan)
#include "tst_vxlanaddressplan.moc"
