// The local lease deadline (issue 24 D.1): whether a lease is held is known without I/O, ends at
// the last confirmed renewal's send time + TTL − margin, and ends on its own when no renewal is
// confirmed in time (a frozen leader wakes up deposed).

#include "common/leasedeadline.h"

#include <QElapsedTimer>
#include <QTest>

#include <atomic>

using namespace ClusterDeck;
using namespace std::chrono_literals;
using Clock = LeaseDeadline::Clock;

class TestLeaseDeadline : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void margin_data();
    void margin();
    void expiresWithoutRenewal();
    void renewalsKeepItValid();
    void countsFromTheGrantRequest();
    void lateRenewalDoesNotRevive();
    void stopNeverExpires();
};

void TestLeaseDeadline::margin_data()
{
    QTest::addColumn<int>("ttlMs");
    QTest::addColumn<int>("marginMs");
    QTest::newRow("10 s: a tenth") << 10000 << 1000;
    QTest::newRow("60 s: a tenth") << 60000 << 6000;
    QTest::newRow("2 s: at least 500 ms") << 2000 << 500;
}

void TestLeaseDeadline::margin()
{
    QFETCH(int, ttlMs);
    QFETCH(int, marginMs);
    QCOMPARE(LeaseDeadline::marginFor(std::chrono::milliseconds(ttlMs)).count(), marginMs);
}

void TestLeaseDeadline::expiresWithoutRenewal()
{
    std::atomic_int calls{0};
    QElapsedTimer t;
    t.start();
    std::atomic<qint64> expiredAfter{0};
    LeaseDeadline d(Clock::now(), 1000ms, [&](const QString &why) {
        expiredAfter = t.elapsed();
        QVERIFY(why.contains(QStringLiteral("deadline")));
        ++calls;
    });
    QVERIFY(d.isValid());
    QVERIFY(d.left() > 400ms && d.left() <= 500ms); // 1 s − 500 ms margin
    QTRY_COMPARE_WITH_TIMEOUT(calls.load(), 1, 2000);
    QVERIFY(!d.isValid());
    QCOMPARE(d.left(), 0ms);
    // Not before the deadline (left() above shows the margin); the upper bound only says "soon".
    QVERIFY2(expiredAfter >= 480 && expiredAfter < 2000, qPrintable(QString::number(expiredAfter)));
    QTest::qWait(300);
    QCOMPARE(calls.load(), 1); // once
}

void TestLeaseDeadline::renewalsKeepItValid()
{
    std::atomic_int calls{0};
    LeaseDeadline d(Clock::now(), 1000ms, [&](const QString &) { ++calls; });
    for (int i = 0; i < 8; ++i) {
        QTest::qWait(200);
        d.confirmRenewal(Clock::now(), 1000ms);
        QVERIFY(d.isValid());
    }
    QCOMPARE(calls.load(), 0);
    QTRY_COMPARE_WITH_TIMEOUT(calls.load(), 1, 2000);
}

void TestLeaseDeadline::countsFromTheGrantRequest()
{
    // A grant whose reply took 700 ms of a 1 s lease: 500 ms margin − already gone.
    std::atomic_int calls{0};
    LeaseDeadline d(Clock::now() - 700ms, 1000ms, [&](const QString &) { ++calls; });
    QVERIFY(!d.isValid());
    QTRY_COMPARE_WITH_TIMEOUT(calls.load(), 1, 500);
}

void TestLeaseDeadline::lateRenewalDoesNotRevive()
{
    std::atomic_int calls{0};
    LeaseDeadline d(Clock::now(), 1000ms, [&](const QString &) { ++calls; });
    QTRY_COMPARE_WITH_TIMEOUT(calls.load(), 1, 2000);
    // A renewal confirmed after the deadline: the lease may be someone else's by now.
    d.confirmRenewal(Clock::now(), 1000ms);
    QVERIFY(!d.isValid());
}

void TestLeaseDeadline::stopNeverExpires()
{
    std::atomic_int calls{0};
    {
        LeaseDeadline d(Clock::now(), 1000ms, [&](const QString &) { ++calls; });
        d.stop();
        QVERIFY(!d.isValid());
        QTest::qWait(700);
    }
    QCOMPARE(calls.load(), 0);
}

QTEST_GUILESS_MAIN(TestLeaseDeadline)
#include "tst_leasedeadline.moc"
