// The bounded executor of all fan-out (issue 14, item 6): a cap on threads however many items,
// a limit per key (host), exceptions and cancel, nested fan-out without deadlock.

#include "common/boundedexecutor.h"

#include <QDir>
#include <QTest>

#include <atomic>
#include <future>
#include <mutex>
#include <set>
#include <stdexcept>
#include <thread>
#include <vector>

using namespace ClusterDeck;
using namespace std::chrono_literals;

namespace {

int processThreads()
{
    return int(QDir(QStringLiteral("/proc/self/task"))
                   .entryList(QDir::Dirs | QDir::NoDotAndDotDot)
                   .size());
}

void raiseMax(std::atomic_int &max, int value)
{
    int seen = max.load();
    while (value > seen && !max.compare_exchange_weak(seen, value)) {
    }
}

} // namespace

class TestBoundedExecutor : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void threadsNeverExceedTheCap_data();
    void threadsNeverExceedTheCap();
    void perKeyLimit_data();
    void perKeyLimit();
    void maxAtOnce_data();
    void maxAtOnce();
    void exceptionPropagatesAndStopsScheduling();
    void cancelStopsScheduling();
    void nestedFanOutDoesNotDeadlock();
    void idleWorkersExit();
    void concurrentBatchesEachGetWorkers();
};

void TestBoundedExecutor::threadsNeverExceedTheCap_data()
{
    QTest::addColumn<int>("cap");
    QTest::addColumn<int>("items");
    QTest::newRow("32 threads, 10,000 items") << 32 << 10000;
    QTest::newRow("4 threads, 10,000 items") << 4 << 10000;
    QTest::newRow("1 thread, 2,000 items") << 1 << 2000;
}

void TestBoundedExecutor::threadsNeverExceedTheCap()
{
    QFETCH(int, cap);
    QFETCH(int, items);
    BoundedExecutor executor({cap, 8});
    const int before = processThreads();
    auto ran = std::vector<std::atomic_int>(size_t(items));
    std::atomic_int active{0};
    std::atomic_int maxActive{0};
    std::atomic_int maxProcessThreads{0};
    std::mutex idsMutex;
    std::set<std::thread::id> ids;
    const int skipped = executor.forEach(items, [&](int i) {
        raiseMax(maxActive, ++active);
        if (i % 50 == 0)
            raiseMax(maxProcessThreads, processThreads());
        {
            std::lock_guard lock(idsMutex);
            ids.insert(std::this_thread::get_id());
        }
        std::this_thread::sleep_for(100us);
        ++ran[size_t(i)];
        --active;
    });
    QCOMPARE(skipped, 0);
    for (int i = 0; i < items; ++i)
        QCOMPARE(ran[size_t(i)].load(), 1);
    // The workers, and the caller, which runs items of its own batch while it waits.
    QVERIFY2(maxActive.load() <= cap + 1, qPrintable(QString::number(maxActive.load())));
    QVERIFY2(int(ids.size()) <= cap + 1, qPrintable(QString::number(ids.size())));
    QVERIFY2(executor.peakThreads() <= cap, qPrintable(QString::number(executor.peakThreads())));
    QVERIFY2(
        maxProcessThreads.load() <= before + cap,
        qPrintable(
            QStringLiteral("%1 threads, %2 before").arg(maxProcessThreads.load()).arg(before)));
    if (cap > 1)
        QVERIFY(maxActive.load() > 1); // it does fan out
}

void TestBoundedExecutor::perKeyLimit_data()
{
    QTest::addColumn<int>("limit");
    QTest::addColumn<int>("keys");
    QTest::newRow("8 per host, 3 hosts") << 8 << 3;
    QTest::newRow("1 per host, 5 hosts") << 1 << 5;
    QTest::newRow("3 per host, 1 host") << 3 << 1;
}

void TestBoundedExecutor::perKeyLimit()
{
    QFETCH(int, limit);
    QFETCH(int, keys);
    BoundedExecutor executor({32, limit});
    const int items = 300;
    auto inKey = std::vector<std::atomic_int>(size_t(keys));
    auto maxInKey = std::vector<std::atomic_int>(size_t(keys));
    std::atomic_int ran{0};
    BoundedExecutor::Options options;
    options.keyOf = [keys](int i) {
        return QStringLiteral("h%1").arg(i % keys);
    };
    executor.forEach(
        items,
        [&](int i) {
            const size_t k = size_t(i % keys);
            raiseMax(maxInKey[k], ++inKey[k]);
            std::this_thread::sleep_for(1ms);
            --inKey[k];
            ++ran;
        },
        options);
    QCOMPARE(ran.load(), items);
    for (int k = 0; k < keys; ++k) {
        QVERIFY2(maxInKey[size_t(k)].load() <= limit,
                 qPrintable(
                     QStringLiteral("host %1: %2 at once").arg(k).arg(maxInKey[size_t(k)].load())));
        QVERIFY(maxInKey[size_t(k)].load() >= 1);
    }
    if (limit > 1) {
        int highest = 0;
        for (int k = 0; k < keys; ++k)
            highest = std::max(highest, maxInKey[size_t(k)].load());
        QVERIFY2(highest > 1, "the items of a host never ran concurrently");
    }
}

void TestBoundedExecutor::maxAtOnce_data()
{
    QTest::addColumn<int>("maxAtOnce");
    QTest::addColumn<int>("keys");
    QTest::newRow("3 at once, one key") << 3 << 1;
    QTest::newRow("5 at once over 4 keys") << 5 << 4;
    QTest::newRow("1 at once: one after the other") << 1 << 3;
}

// A batch's own cap (exec --parallel N): never more of its items at once, keys or not.
void TestBoundedExecutor::maxAtOnce()
{
    QFETCH(int, maxAtOnce);
    QFETCH(int, keys);
    BoundedExecutor executor({32, 8});
    std::atomic_int running{0}, highest{0}, ran{0};
    BoundedExecutor::Options options;
    options.maxAtOnce = maxAtOnce;
    options.keyOf = [keys](int i) {
        return QStringLiteral("h%1").arg(i % keys);
    };
    executor.forEach(
        120,
        [&](int) {
            raiseMax(highest, ++running);
            std::this_thread::sleep_for(1ms);
            --running;
            ++ran;
        },
        options);
    QCOMPARE(ran.load(), 120);
    QVERIFY2(highest.load() <= maxAtOnce, qPrintable(QString::number(highest.load())));
    if (maxAtOnce > 1)
        QVERIFY2(highest.load() > 1, "the items never ran concurrently");
}

void TestBoundedExecutor::exceptionPropagatesAndStopsScheduling()
{
    BoundedExecutor executor({4, 8});
    std::atomic_int started{0};
    bool caught = false;
    try {
        executor.forEach(2000, [&](int i) {
            ++started;
            std::this_thread::sleep_for(500us);
            if (i == 10)
                throw std::runtime_error("item 10 failed");
        });
    } catch (const std::runtime_error &e) {
        caught = QByteArray(e.what()) == "item 10 failed";
    }
    QVERIFY(caught);
    QVERIFY2(started.load() < 2000, qPrintable(QString::number(started.load())));
    // The executor stays usable.
    std::atomic_int after{0};
    QCOMPARE(executor.forEach(100, [&](int) { ++after; }), 0);
    QCOMPARE(after.load(), 100);
}

void TestBoundedExecutor::cancelStopsScheduling()
{
    BoundedExecutor executor({4, 8});
    CancelToken cancel;
    std::atomic_int started{0};
    std::atomic_int startedAfterCancel{0};
    BoundedExecutor::Options options;
    options.cancel = cancel;
    const int skipped = executor.forEach(
        1000,
        [&](int i) {
            if (cancel.isCancelled())
                ++startedAfterCancel;
            ++started;
            if (i == 20)
                cancel.cancel();
            std::this_thread::sleep_for(1ms);
        },
        options);
    QVERIFY(skipped > 0);
    QCOMPARE(started.load() + skipped, 1000);
    // Only items already taken when the cancel came (a worker between taking and starting one).
    QVERIFY2(startedAfterCancel.load() <= 5,
             qPrintable(QString::number(startedAfterCancel.load())));
}

void TestBoundedExecutor::nestedFanOutDoesNotDeadlock()
{
    // Terminate's shape: per host, then per container of that host; with fewer threads than
    // outer items every worker waits in an inner forEach, whose caller keeps it going.
    BoundedExecutor executor({2, 2});
    std::atomic_int inner{0};
    BoundedExecutor::Options perHost;
    perHost.keyOf = [](int) {
        return QStringLiteral("h");
    };
    executor.forEach(8, [&](int) {
        executor.forEach(
            16,
            [&](int) {
                std::this_thread::sleep_for(200us);
                ++inner;
            },
            perHost);
    });
    QCOMPARE(inner.load(), 8 * 16);
    QVERIFY(executor.peakThreads() <= 2);
}

void TestBoundedExecutor::idleWorkersExit()
{
    BoundedExecutor executor({8, 8});
    executor.setIdleTimeout(50ms);
    executor.forEach(64, [](int) { std::this_thread::sleep_for(1ms); });
    QVERIFY(executor.peakThreads() >= 1);
    QTRY_COMPARE_WITH_TIMEOUT(executor.liveThreads(), 0, 5000);
    // And come back when needed.
    std::atomic_int ran{0};
    executor.forEach(64, [&](int) { ++ran; });
    QCOMPARE(ran.load(), 64);
}

// Two fan-outs begun at the same moment (a launch's kernels, which wait for the network, and
// the network's own per-host work): idle workers woken for one may serve the other, and the
// second must still get threads of its own instead of running its items one by one on its
// caller (the VXLAN helpers ran host after host while every kernel waited for them).
void TestBoundedExecutor::concurrentBatchesEachGetWorkers()
{
    BoundedExecutor executor(BoundedExecutor::Limits{32, 8});
    for (int trial = 0; trial < 40; ++trial) {
        executor.forEach(4, [](int) { std::this_thread::sleep_for(2ms); }); // idle workers
        std::promise<void> networkDone;
        std::shared_future<void> network = networkDone.get_future().share();
        std::atomic_int running{0};
        std::atomic_int most{0};
        // The kernels' fan-out, 12 items that wait for the network; its first item (run by its
        // caller at once) begins the network's fan-out of 3 items, as a launch does.
        executor.forEach(12, [&](int i) {
            if (i == 0) {
                executor.forEach(3, [&](int) {
                    raiseMax(most, ++running);
                    std::this_thread::sleep_for(60ms);
                    --running;
                });
                networkDone.set_value();
            }
            network.wait_for(5s);
        });
        QVERIFY2(
            most.load() == 3,
            qPrintable(
                QStringLiteral("trial %1: %2 of 3 items at once").arg(trial).arg(most.load())));
    }
}

QTEST_GUILESS_MAIN(TestBoundedExecutor)
#include "tst_boundedexecutor.moc"
