// The pool multi-node session networks claim from (issue 26, item 1): CIDR parsing, the pool's
// validation, its default, and which /24 and VNI are free given what is taken. Pure, no daemons.
#include "common/ipv4cidr.h"
#include "common/overlaypool.h"

#include <QTest>

using namespace ClusterDeck;

namespace {

Ipv4Cidr cidr(const char *text)
{
    auto c = Ipv4Cidr::parse(QString::fromLatin1(text));
    if (!c)
        qFatal("bad CIDR in the test: %s", text);
    return *c;
}

QList<Ipv4Cidr> cidrs(const QStringList &texts)
{
    QList<Ipv4Cidr> list;
    for (const QString &t : texts)
        list.append(cidr(qPrintable(t)));
    return list;
}

} // namespace

class TestOverlayPool : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void parseCidr_data();
    void parseCidr();
    void overlaps_data();
    void overlaps();
    void parsePool_data();
    void parsePool();
    void defaultsStayClearOfDocker_data();
    void defaultsStayClearOfDocker();
    void nextFreeSubnet_data();
    void nextFreeSubnet();
    void nextFreeVni_data();
    void nextFreeVni();
    void avoid_data();
    void avoid();
};

void TestOverlayPool::parseCidr_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<QString>("canonical"); // "" when it must fail
    QTest::addColumn<int>("prefix");
    QTest::addColumn<QString>("error"); // a part of the error message
    QTest::newRow("a /24") << "100.64.5.0/24"
                           << "100.64.5.0/24" << 24 << "";
    QTest::newRow("a /10") << "100.64.0.0/10"
                           << "100.64.0.0/10" << 10 << "";
    QTest::newRow("whole space") << "0.0.0.0/0"
                                 << "0.0.0.0/0" << 0 << "";
    QTest::newRow("one address") << "10.1.2.3/32"
                                 << "10.1.2.3/32" << 32 << "";
    QTest::newRow("spaces around") << " 172.17.0.0/16 "
                                   << "172.17.0.0/16" << 16 << "";
    QTest::newRow("top") << "255.255.255.0/24"
                         << "255.255.255.0/24" << 24 << "";
    QTest::newRow("host bits") << "100.64.1.0/10"
                               << "" << 0 << "did you mean 100.64.0.0/10";
    QTest::newRow("no prefix") << "100.64.0.0"
                               << "" << 0 << "prefix length";
    QTest::newRow("prefix 33") << "10.0.0.0/33"
                               << "" << 0 << "prefix length";
    QTest::newRow("prefix negative") << "10.0.0.0/-1"
                                     << "" << 0 << "prefix length";
    QTest::newRow("prefix empty") << "10.0.0.0/"
                                  << "" << 0 << "prefix length";
    QTest::newRow("octet 256") << "10.256.0.0/16"
                               << "" << 0 << "not an IPv4 address";
    QTest::newRow("three octets") << "10.0.0/24"
                                  << "" << 0 << "not an IPv4 address";
    QTest::newRow("five octets") << "10.0.0.0.0/24"
                                 << "" << 0 << "not an IPv4 address";
    QTest::newRow("leading zero") << "010.0.0.0/8"
                                  << "" << 0 << "not an IPv4 address";
    QTest::newRow("sign") << "+10.0.0.0/8"
                          << "" << 0 << "not an IPv4 address";
    QTest::newRow("IPv6") << "fd00::/64"
                          << "" << 0 << "not an IPv4 address";
    QTest::newRow("empty") << ""
                           << "" << 0 << "not an IPv4 address";
    QTest::newRow("letters") << "ten.0.0.0/8"
                             << "" << 0 << "not an IPv4 address";
}

void TestOverlayPool::parseCidr()
{
    QFETCH(QString, text);
    QFETCH(QString, canonical);
    QFETCH(int, prefix);
    QFETCH(QString, error);
    auto parsed = Ipv4Cidr::parse(text, QStringLiteral("setting x"));
    if (canonical.isEmpty()) {
        QVERIFY(!parsed);
        QCOMPARE(parsed.error().kind, Error::Kind::Invalid);
        QCOMPARE(parsed.error().where, QStringLiteral("setting x"));
        QVERIFY2(parsed.error().message.contains(error), qPrintable(parsed.error().message));
        QVERIFY2(parsed.error().message.contains(text.trimmed()),
                 qPrintable(parsed.error().message));
        return;
    }
    QVERIFY2(parsed, qPrintable(parsed ? QString() : parsed.error().toString()));
    QCOMPARE(parsed->toString(), canonical);
    QCOMPARE(parsed->prefixLength(), prefix);
    QVERIFY(parsed->isValid());
}

void TestOverlayPool::overlaps_data()
{
    QTest::addColumn<QString>("a");
    QTest::addColumn<QString>("b");
    QTest::addColumn<bool>("overlap");
    QTest::addColumn<bool>("aContainsB");
    QTest::newRow("same") << "10.0.0.0/24"
                          << "10.0.0.0/24" << true << true;
    QTest::newRow("inside") << "10.0.0.0/8"
                            << "10.200.5.0/24" << true << true;
    QTest::newRow("outside it") << "10.200.5.0/24"
                                << "10.0.0.0/8" << true << false;
    QTest::newRow("neighbours") << "10.0.0.0/24"
                                << "10.0.1.0/24" << false << false;
    QTest::newRow("a /25 in a /24") << "10.0.1.0/24"
                                    << "10.0.1.128/25" << true << true;
    QTest::newRow("whole space") << "0.0.0.0/0"
                                 << "255.255.255.255/32" << true << true;
    QTest::newRow("docker and cgnat") << "172.16.0.0/12"
                                      << "100.64.0.0/10" << false << false;
}

void TestOverlayPool::overlaps()
{
    QFETCH(QString, a);
    QFETCH(QString, b);
    QFETCH(bool, overlap);
    QFETCH(bool, aContainsB);
    const Ipv4Cidr x = cidr(qPrintable(a));
    const Ipv4Cidr y = cidr(qPrintable(b));
    QCOMPARE(x.overlaps(y), overlap);
    QCOMPARE(y.overlaps(x), overlap);
    QCOMPARE(x.contains(y), aContainsB);
}

void TestOverlayPool::parsePool_data()
{
    QTest::addColumn<QString>("subnets");
    QTest::addColumn<QString>("vnis");
    QTest::addColumn<QString>("description"); // "" when it must fail
    QTest::addColumn<uint>("subnetCount");
    QTest::addColumn<uint>("vniCount");
    QTest::addColumn<QString>("error");
    QTest::newRow("defaults") << ""
                              << ""
                              << "100.64.0.0/10, VNIs 1048576-16777215" << 16384u << 15728640u
                              << "";
    QTest::newRow("the issue's") << "10.200.0.0/16"
                                 << "5000-5255"
                                 << "10.200.0.0/16, VNIs 5000-5255" << 256u << 256u << "";
    QTest::newRow("one /24, one VNI") << "192.0.2.0/24"
                                      << "5005"
                                      << "192.0.2.0/24, VNIs 5005-5005" << 1u << 1u << "";
    QTest::newRow("spaces") << " 198.18.0.0/15 "
                            << " 7 - 9 "
                            << "198.18.0.0/15, VNIs 7-9" << 512u << 3u << "";
    QTest::newRow("largest VNI") << "100.64.0.0/24"
                                 << "16777215"
                                 << "100.64.0.0/24, VNIs 16777215-16777215" << 1u << 1u << "";
    QTest::newRow("narrower than /24") << "100.64.0.0/25"
                                       << ""
                                       << "" << 0u << 0u << "at least one /24";
    QTest::newRow("host bits") << "100.64.0.1/16"
                               << ""
                               << "" << 0u << 0u << "did you mean 100.64.0.0/16";
    QTest::newRow("loopback") << "127.0.0.0/16"
                              << ""
                              << "" << 0u << 0u << "loopback";
    QTest::newRow("link-local") << "169.254.0.0/16"
                                << ""
                                << "" << 0u << 0u << "link-local";
    QTest::newRow("multicast") << "224.0.0.0/8"
                               << ""
                               << "" << 0u << 0u << "multicast";
    QTest::newRow("reserved") << "240.0.0.0/8"
                              << ""
                              << "" << 0u << 0u << "reserved";
    QTest::newRow("this network") << "0.0.0.0/8"
                                  << ""
                                  << "" << 0u << 0u << "reserved";
    QTest::newRow("whole space") << "0.0.0.0/0"
                                 << ""
                                 << "" << 0u << 0u << "reserved";
    QTest::newRow("not a CIDR") << "abc"
                                << ""
                                << "" << 0u << 0u << "not an IPv4 address";
    QTest::newRow("VNI zero") << ""
                              << "0-10"
                              << "" << 0u << 0u << "1-16777215";
    QTest::newRow("VNI too big") << ""
                                 << "5-16777216"
                                 << "" << 0u << 0u << "1-16777215";
    QTest::newRow("VNIs backwards") << ""
                                    << "10-5"
                                    << "" << 0u << 0u << "first";
    QTest::newRow("VNIs not numbers") << ""
                                      << "a-b"
                                      << "" << 0u << 0u << "VNI range";
    QTest::newRow("VNIs three parts") << ""
                                      << "1-2-3"
                                      << "" << 0u << 0u << "VNI range";
    QTest::newRow("VNI negative") << ""
                                  << "-5"
                                  << "" << 0u << 0u << "VNI range";
}

void TestOverlayPool::parsePool()
{
    QFETCH(QString, subnets);
    QFETCH(QString, vnis);
    QFETCH(QString, description);
    QFETCH(uint, subnetCount);
    QFETCH(uint, vniCount);
    QFETCH(QString, error);
    auto pool = OverlayPool::parse(subnets, vnis);
    if (description.isEmpty()) {
        QVERIFY(!pool);
        QCOMPARE(pool.error().kind, Error::Kind::Invalid);
        QVERIFY2(pool.error().message.contains(error), qPrintable(pool.error().toString()));
        return;
    }
    QVERIFY2(pool, qPrintable(pool ? QString() : pool.error().toString()));
    QCOMPARE(pool->toString(), description);
    QCOMPARE(pool->subnetCount(), subnetCount);
    QCOMPARE(pool->vniCount(), vniCount);
}

void TestOverlayPool::defaultsStayClearOfDocker_data()
{
    QTest::addColumn<QString>("other");
    // Docker's default bridge address pools, Swarm's default, the usual Kubernetes ranges.
    for (int second = 17; second <= 31; ++second)
        QTest::addRow("docker bridge 172.%d.0.0/16", second)
            << QStringLiteral("172.%1.0.0/16").arg(second);
    QTest::newRow("docker bridge 192.168.0.0/16") << "192.168.0.0/16";
    QTest::newRow("swarm 10.0.0.0/8") << "10.0.0.0/8";
    QTest::newRow("calico 192.168.0.0/16") << "192.168.0.0/16";
    QTest::newRow("lab 192.168.213.0/24") << "192.168.213.0/24";
}

void TestOverlayPool::defaultsStayClearOfDocker()
{
    QFETCH(QString, other);
    const OverlayPool pool = OverlayPool::defaults();
    QCOMPARE(pool, *OverlayPool::parse({}, {}));
    QVERIFY(!pool.range().overlaps(cidr(qPrintable(other))));
    QVERIFY(!pool.containsVni(1));    // Flannel
    QVERIFY(!pool.containsVni(4096)); // Swarm's first, Calico
}

void TestOverlayPool::nextFreeSubnet_data()
{
    QTest::addColumn<QString>("pool");
    QTest::addColumn<QStringList>("taken");
    QTest::addColumn<QString>("expected"); // "" when the pool is exhausted
    QTest::newRow("empty pool: the first") << "100.64.0.0/10" << QStringList{} << "100.64.0.0/24";
    QTest::newRow("first taken") << "100.64.0.0/10" << QStringList{"100.64.0.0/24"}
                                 << "100.64.1.0/24";
    QTest::newRow("a gap is reused")
        << "100.64.0.0/10" << QStringList{"100.64.0.0/24", "100.64.2.0/24"} << "100.64.1.0/24";
    QTest::newRow("taken in any order")
        << "100.64.0.0/10" << QStringList{"100.64.1.0/24", "100.64.0.0/24", "100.64.2.0/24"}
        << "100.64.3.0/24";
    QTest::newRow("a /25 on a host blocks its /24")
        << "100.64.0.0/10" << QStringList{"100.64.0.128/25"} << "100.64.1.0/24";
    QTest::newRow("a /16 on a host blocks 256")
        << "100.64.0.0/10" << QStringList{"100.64.0.0/16"} << "100.65.0.0/24";
    QTest::newRow("a wider network blocks the whole pool")
        << "100.64.0.0/10" << QStringList{"100.0.0.0/8"} << "";
    QTest::newRow("outside the pool: no effect")
        << "100.64.0.0/10" << QStringList{"10.0.0.0/8", "172.17.0.0/16"} << "100.64.0.0/24";
    QTest::newRow("overlapping taken ranges")
        << "10.200.0.0/16" << QStringList{"10.200.0.0/20", "10.200.4.0/22", "10.200.16.0/24"}
        << "10.200.17.0/24";
    QTest::newRow("one /24: free") << "192.0.2.0/24" << QStringList{} << "192.0.2.0/24";
    QTest::newRow("one /24: taken") << "192.0.2.0/24" << QStringList{"192.0.2.0/24"} << "";
    QTest::newRow("all four taken")
        << "10.9.0.0/22" << QStringList{"10.9.0.0/24", "10.9.1.0/24", "10.9.2.0/24", "10.9.3.0/24"}
        << "";
    QTest::newRow("the last one left")
        << "10.9.0.0/22" << QStringList{"10.9.0.0/24", "10.9.1.0/24", "10.9.2.0/24"}
        << "10.9.3.0/24";
    QTest::newRow("top of the address space")
        << "223.255.254.0/23" << QStringList{"223.255.254.0/24"} << "223.255.255.0/24";
}

void TestOverlayPool::nextFreeSubnet()
{
    QFETCH(QString, pool);
    QFETCH(QStringList, taken);
    QFETCH(QString, expected);
    auto p = OverlayPool::parse(pool, {});
    QVERIFY2(p, qPrintable(p ? QString() : p.error().toString()));
    auto next = p->nextFreeSubnet(cidrs(taken));
    if (expected.isEmpty()) {
        QVERIFY(!next);
        QCOMPARE(next.error().kind, Error::Kind::Conflict);
        QVERIFY2(next.error().message.contains(QStringLiteral("no free /24")),
                 qPrintable(next.error().toString()));
        QVERIFY2(next.error().toString().contains(pool), qPrintable(next.error().toString()));
        return;
    }
    QVERIFY2(next, qPrintable(next ? QString() : next.error().toString()));
    QCOMPARE(next->toString(), expected);
    QCOMPARE(next->prefixLength(), 24);
    QVERIFY(p->containsSubnet(*next));
}

void TestOverlayPool::nextFreeVni_data()
{
    QTest::addColumn<QString>("range");
    QTest::addColumn<QList<uint>>("taken");
    QTest::addColumn<uint>("expected"); // 0 when exhausted
    QTest::newRow("default, nothing taken") << "" << QList<uint>{} << (1u << 20);
    QTest::newRow("first taken") << "5000-5010" << QList<uint>{5000} << 5001u;
    QTest::newRow("gap reused") << "5000-5010" << QList<uint>{5000, 5002} << 5001u;
    QTest::newRow("outside the range ignored") << "5000-5010" << QList<uint>{1, 4096} << 5000u;
    QTest::newRow("last one") << "5000-5002" << QList<uint>{5000, 5001} << 5002u;
    QTest::newRow("exhausted") << "5000-5002" << QList<uint>{5000, 5001, 5002} << 0u;
    QTest::newRow("single, free") << "16777215" << QList<uint>{} << 16777215u;
    QTest::newRow("single, taken") << "16777215" << QList<uint>{16777215} << 0u;
}

void TestOverlayPool::nextFreeVni()
{
    QFETCH(QString, range);
    QFETCH(QList<uint>, taken);
    QFETCH(uint, expected);
    auto p = OverlayPool::parse({}, range);
    QVERIFY2(p, qPrintable(p ? QString() : p.error().toString()));
    QSet<quint32> set(taken.cbegin(), taken.cend());
    auto next = p->nextFreeVni(set);
    if (expected == 0) {
        QVERIFY(!next);
        QCOMPARE(next.error().kind, Error::Kind::Conflict);
        QVERIFY2(next.error().message.contains(QStringLiteral("no free VXLAN id")),
                 qPrintable(next.error().toString()));
        return;
    }
    QVERIFY2(next, qPrintable(next ? QString() : next.error().toString()));
    QCOMPARE(*next, expected);
}

void TestOverlayPool::avoid_data()
{
    QTest::addColumn<QStringList>("avoided");
    QTest::addColumn<QString>("subnet");
    QTest::addColumn<bool>("avoids");
    QTest::newRow("nothing") << QStringList{} << "100.64.0.0/24" << false;
    QTest::newRow("the same") << QStringList{"100.64.0.0/24"} << "100.64.0.0/24" << true;
    QTest::newRow("a wider one") << QStringList{"100.64.0.0/16"} << "100.64.9.0/24" << true;
    QTest::newRow("a narrower one") << QStringList{"100.64.9.64/26"} << "100.64.9.0/24" << true;
    QTest::newRow("another") << QStringList{"100.64.1.0/24"} << "100.64.0.0/24" << false;
}

void TestOverlayPool::avoid()
{
    QFETCH(QStringList, avoided);
    QFETCH(QString, subnet);
    QFETCH(bool, avoids);
    OverlayAvoid a;
    a.subnets = cidrs(avoided);
    QCOMPARE(a.avoids(cidr(qPrintable(subnet))), avoids);
    OverlayAvoid b;
    b.vnis = {7};
    b.add(a);
    QCOMPARE(b.avoids(cidr(qPrintable(subnet))), avoids);
    QVERIFY(b.vnis.contains(7));
    QCOMPARE(b.isEmpty(), false);
    QVERIFY(OverlayAvoid().isEmpty());
}

QTEST_GUILESS_MAIN(TestOverlayPool)

#include "tst_overlaypool.moc"
