// How a claim of a session's network is decided (issue 26, item 1): NetworkClaim::decide, the
// pure part both stores run inside their transaction. Pool: 10.99.0.0/22 (four /24s), VNIs
// 5000-5003.
#include "store/networkclaim.h"

#include <QTest>

using namespace ClusterDeck;

namespace {

const QString kSelf = QStringLiteral("self");

Ipv4Cidr cidr(const QString &text)
{
    auto c = Ipv4Cidr::parse(text);
    if (!c)
        qFatal("bad CIDR in the test: %s", qPrintable(text));
    return *c;
}

OverlayAvoid avoid(const QStringList &subnets, const QList<uint> &vnis)
{
    OverlayAvoid a;
    for (const QString &s : subnets)
        a.subnets.append(cidr(s));
    for (uint v : vnis)
        a.vnis.insert(v);
    return a;
}

// "5000 10.99.0.0/24" → another session's allocation.
NetworkAllocation other(const QString &spec, int n)
{
    const QStringList f = spec.split(u' ');
    NetworkAllocation a;
    a.sessionId = QStringLiteral("other-%1").arg(n);
    a.vni = f.value(0).toUInt();
    a.subnet = cidr(f.value(1));
    return a;
}

} // namespace

class TestNetworkClaim : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void decide_data();
    void decide();
};

void TestNetworkClaim::decide_data()
{
    QTest::addColumn<QString>("current"); // "VNI SUBNET", "" for none
    QTest::addColumn<QStringList>("currentAvoidedSubnets");
    QTest::addColumn<QStringList>("others");
    QTest::addColumn<QStringList>("inUseSubnets");
    QTest::addColumn<QList<uint>>("inUseVnis");
    QTest::addColumn<bool>("reclaim");
    QTest::addColumn<QStringList>("collidedSubnets");
    QTest::addColumn<QList<uint>>("collidedVnis");
    QTest::addColumn<QString>("expected"); // "VNI SUBNET", or "error: <part of the message>"
    QTest::addColumn<bool>("changed");

    using L = QStringList;
    using V = QList<uint>;
    QTest::newRow("first claim") << "" << L{} << L{} << L{} << V{} << false << L{} << V{}
                                 << "5000 10.99.0.0/24" << true;
    QTest::newRow("skips other sessions")
        << "" << L{} << L{"5000 10.99.0.0/24", "5002 10.99.2.0/24"} << L{} << V{} << false << L{}
        << V{} << "5001 10.99.1.0/24" << true;
    QTest::newRow("skips what the hosts use")
        << "" << L{} << L{} << L{"10.99.0.0/23", "172.17.0.0/16"} << V{5000, 5001} << false << L{}
        << V{} << "5002 10.99.2.0/24" << true;
    QTest::newRow("a repeated claim keeps it, in use or not")
        << "5003 10.99.3.0/24" << L{} << L{} << L{"10.99.3.0/24"} << V{5003} << false << L{} << V{}
        << "5003 10.99.3.0/24" << false;
    QTest::newRow("a repeated claim keeps one from another pool")
        << "9 192.0.2.0/24" << L{} << L{} << L{} << V{} << false << L{} << V{} << "9 192.0.2.0/24"
        << false;
    QTest::newRow("a repeated claim of a full pool keeps it")
        << "5000 10.99.0.0/24" << L{}
        << L{"5001 10.99.1.0/24", "5002 10.99.2.0/24", "5003 10.99.3.0/24"} << L{} << V{} << false
        << L{} << V{} << "5000 10.99.0.0/24" << false;
    QTest::newRow("subnet collided: new subnet, same VNI")
        << "5000 10.99.0.0/24" << L{} << L{} << L{} << V{} << true << L{"10.99.0.0/24"} << V{}
        << "5000 10.99.1.0/24" << true;
    QTest::newRow("a wider network collided")
        << "5000 10.99.0.0/24" << L{} << L{} << L{} << V{} << true << L{"10.99.0.0/23"} << V{}
        << "5000 10.99.2.0/24" << true;
    QTest::newRow("VNI collided: new VNI, same subnet")
        << "5000 10.99.0.0/24" << L{} << L{} << L{} << V{} << true << L{} << V{5000}
        << "5001 10.99.0.0/24" << true;
    QTest::newRow("both collided")
        << "5000 10.99.0.0/24" << L{} << L{"5001 10.99.1.0/24"} << L{} << V{} << true
        << L{"10.99.0.0/24"} << V{5000} << "5002 10.99.2.0/24" << true;
    QTest::newRow("reclaim with nothing collided keeps it")
        << "5000 10.99.0.0/24" << L{} << L{} << L{} << V{} << true << L{} << V{}
        << "5000 10.99.0.0/24" << false;
    QTest::newRow("reclaim moves off what the hosts use now")
        << "5000 10.99.0.0/24" << L{} << L{} << L{"10.99.0.0/24"} << V{} << true << L{} << V{}
        << "5000 10.99.1.0/24" << true;
    QTest::newRow("an earlier collision never comes back")
        << "5000 10.99.1.0/24" << L{"10.99.0.0/24"} << L{} << L{} << V{} << true
        << L{"10.99.1.0/24"} << V{} << "5000 10.99.2.0/24" << true;
    QTest::newRow("reclaim without an allocation")
        << "" << L{} << L{} << L{} << V{} << true << L{"10.99.0.0/24"} << V{5000}
        << "5001 10.99.1.0/24" << true;
    QTest::newRow("no VNI left") << "" << L{}
                                 << L{"5000 10.99.0.0/24", "5001 10.99.1.0/24", "5002 10.99.2.0/24",
                                      "5003 10.99.3.0/24"}
                                 << L{} << V{} << false << L{} << V{}
                                 << "error: no free VXLAN id is left" << false;
    QTest::newRow("no subnet left: the hosts use all")
        << "" << L{} << L{} << L{"10.99.0.0/22"} << V{} << false << L{} << V{}
        << "error: no free /24 is left" << false;
    QTest::newRow("no subnet left to move to")
        << "5000 10.99.0.0/24" << L{}
        << L{"5001 10.99.1.0/24", "5002 10.99.2.0/24", "5003 10.99.3.0/24"} << L{} << V{} << true
        << L{"10.99.0.0/24"} << V{} << "error: no free /24 is left" << false;
}

void TestNetworkClaim::decide()
{
    QFETCH(QString, current);
    QFETCH(QStringList, currentAvoidedSubnets);
    QFETCH(QStringList, others);
    QFETCH(QStringList, inUseSubnets);
    QFETCH(QList<uint>, inUseVnis);
    QFETCH(bool, reclaim);
    QFETCH(QStringList, collidedSubnets);
    QFETCH(QList<uint>, collidedVnis);
    QFETCH(QString, expected);
    QFETCH(bool, changed);

    NetworkClaim claim;
    claim.sessionId = kSelf;
    claim.pool = *OverlayPool::parse(QStringLiteral("10.99.0.0/22"), QStringLiteral("5000-5003"));
    claim.inUse = avoid(inUseSubnets, inUseVnis);
    claim.reclaim = reclaim;
    claim.collided = avoid(collidedSubnets, collidedVnis);

    const QDateTime before(QDate(2026, 1, 1), QTime(0, 0), Qt::UTC);
    const QDateTime now = before.addDays(1);
    std::optional<NetworkAllocation> mine;
    if (!current.isEmpty()) {
        mine = other(current, 0);
        mine->sessionId = kSelf;
        mine->avoided = avoid(currentAvoidedSubnets, {});
        mine->claimedAt = before;
    }
    QList<NetworkAllocation> all;
    for (qsizetype i = 0; i < others.size(); ++i)
        all.append(other(others[i], int(i) + 1));
    if (mine)
        all.append(*mine); // the session's own allocation is among "all": it does not block itself

    auto decided = claim.decide(mine, all, now);
    if (expected.startsWith(u"error: ")) {
        QVERIFY(!decided);
        QCOMPARE(decided.error().kind, Error::Kind::Conflict);
        QVERIFY2(decided.error().message.contains(expected.mid(7)),
                 qPrintable(decided.error().toString()));
        QVERIFY2(decided.error().message.contains(kSelf), qPrintable(decided.error().toString()));
        return;
    }
    QVERIFY2(decided, qPrintable(decided ? QString() : decided.error().toString()));
    QCOMPARE(QStringLiteral("%1 %2").arg(decided->vni).arg(decided->subnet.toString()), expected);
    QCOMPARE(decided->sessionId, kSelf);
    QCOMPARE(decided->claimedAt, changed ? now : before);
    if (!changed)
        QCOMPARE(*decided, *mine);
    // What collided is remembered, with what was remembered before; what the hosts use is not.
    OverlayAvoid remembered = avoid(currentAvoidedSubnets, {});
    if (reclaim)
        remembered.add(claim.collided);
    QCOMPARE(decided->avoided, remembered);
}

QTEST_GUILESS_MAIN(TestNetworkClaim)

#include "tst_networkclaim.moc"
