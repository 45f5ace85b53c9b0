// The etcd client against the real lab etcd (scripts/lab.sh): a plain one and a TLS one with
// authentication. Every key lives under a prefix unique to this run, deleted at the end.
#include "etcd/etcdclient.h"
#include "etcd/etcdjson.h"
#include "etcd/etcdleasekeeper.h"
#include "etcd/etcdlock.h"
#include "etcd/etcdwatch.h"

#include <QElapsedTimer>
#include <QMutex>
#include <QTest>
#include <QUuid>

#include <atomic>
#include <thread>

using namespace ClusterDeck;
using namespace ClusterDeck::Etcd;
using namespace std::chrono_literals;

namespace {

// A loopback port nobody listens on (tcpmux; binding it needs root): connection refused at once.
const QString kDeadEndpoint = QStringLiteral("http://127.0.0.1:1");

QByteArray b64(const QByteArray &bytes)
{
    return bytes.toBase64();
}

// Collects what a watch delivers, from its worker thread.
struct WatchLog
{
    QMutex mutex;
    QList<WatchEvent> events;
    QList<Error> errors;

    int size()
    {
        QMutexLocker lock(&mutex);
        return int(events.size());
    }
    int errorCount()
    {
        QMutexLocker lock(&mutex);
        return int(errors.size());
    }
    void attach(EtcdWatch &watch)
    {
        watch.setEventsCallback([this](const QList<WatchEvent> &batch, qint64) {
            QMutexLocker lock(&mutex);
            events.append(batch);
        });
        watch.setErrorCallback([this](const Error &error) {
            QMutexLocker lock(&mutex);
            errors.append(error);
        });
    }
};

} // namespace

class TestEtcdClient : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void cleanupTestCase();

    void putGetRoundTripsBytes();
    void putWithPrevKvAndLease();
    void rangePagesLargePrefix();
    void deletePrefix();
    void concurrentCallsFromThreads();
    void txnCompareAndSwap_data();
    void txnCompareAndSwap();
    void txnBranchesRunTheirOps();
    void leaseGrantKeepAliveRevoke();
    void leaseExpiryDeletesKeys();
    void leaseKeeperKeepsAliveAndReportsLoss();
    void watchFromRevision();
    void watchSignalsReachOtherThread();
    void watchReconnectsWithoutLossOrDuplicates();
    void failoverToNextEndpoint();
    void unreachableEndpointsFailFastNamingThem();
    void authWrongPasswordIsClear();
    void authRightPasswordWorks();
    void authTokenInvalidationIsHandled();
    void tlsWrongCaIsRejected();
    void lockContentionBetweenTwoClients();
    void lockLostWhenLeaseDies();
    void watchReportsCompaction(); // last: compacts the lab etcd's history

private:
    EtcdConfig plainConfig() const;
    EtcdConfig authConfig(const QString &user, const QString &password) const;
    QByteArray key(const QByteArray &suffix) const { return m_prefix + suffix; }
    QJsonObject rootCall(const QString &path, const QJsonObject &body);

    QString m_plain;
    QString m_auth;
    QString m_user;
    QString m_password;
    QString m_ca;
    QString m_cert;
    QString m_keyFile;
    QByteArray m_prefix;
    std::unique_ptr<EtcdClient> m_client;
    std::unique_ptr<EtcdClient> m_root; // TLS + auth as the lab's root user
};

EtcdConfig TestEtcdClient::plainConfig() const
{
    EtcdConfig config;
    config.endpoints = {m_plain};
    config.requestTimeout = 10s;
    return config;
}

EtcdConfig TestEtcdClient::authConfig(const QString &user, const QString &password) const
{
    EtcdConfig config;
    config.endpoints = {m_auth};
    config.caFile = m_ca;
    config.certFile = m_cert;
    config.keyFile = m_keyFile;
    config.username = user;
    config.password = password;
    return config;
}

QJsonObject TestEtcdClient::rootCall(const QString &path, const QJsonObject &body)
{
    auto result = m_root->call(path, body, EtcdClient::Retry::Safe, path);
    if (!result)
        qWarning("%s", qPrintable(result.error().toString()));
    return result.value_or(QJsonObject());
}

void TestEtcdClient::initTestCase()
{
    const auto env = [](const char *name) {
        return qEnvironmentVariable(name);
    };
    m_plain = env("CLUSTERDECK_LAB_ETCD");
    m_auth = env("CLUSTERDECK_LAB_ETCD_AUTH");
    m_user = env("CLUSTERDECK_LAB_ETCD_USER");
    m_password = env("CLUSTERDECK_LAB_ETCD_PASSWORD");
    m_ca = env("CLUSTERDECK_LAB_TLS_CA");
    m_cert = env("CLUSTERDECK_LAB_TLS_CERT");
    m_keyFile = env("CLUSTERDECK_LAB_TLS_KEY");
    // Fail, never skip: a missing lab must not look like a green run.
    const char *hint = "not set; start the lab and run: eval \"$(scripts/lab.sh env)\"";
    QVERIFY2(!m_plain.isEmpty(), qPrintable(QStringLiteral("CLUSTERDECK_LAB_ETCD ") + hint));
    QVERIFY2(!m_auth.isEmpty(), qPrintable(QStringLiteral("CLUSTERDECK_LAB_ETCD_AUTH ") + hint));
    QVERIFY2(!m_user.isEmpty() && !m_password.isEmpty(),
             qPrintable(QStringLiteral("CLUSTERDECK_LAB_ETCD_USER/PASSWORD ") + hint));
    QVERIFY2(!m_ca.isEmpty() && !m_cert.isEmpty() && !m_keyFile.isEmpty(),
             qPrintable(QStringLiteral("CLUSTERDECK_LAB_TLS_CA/CERT/KEY ") + hint));

    m_prefix = "/clusterdeck-test/" +
               QUuid::createUuid().toString(QUuid::WithoutBraces).left(8).toUtf8() + '/';
    m_client = std::make_unique<EtcdClient>(plainConfig());
    m_root = std::make_unique<EtcdClient>(authConfig(m_user, m_password));
    auto ping = m_client->range(m_prefix);
    QVERIFY2(ping, qPrintable(ping ? QString() : ping.error().toString()));
    auto rootPing = m_root->authenticate();
    QVERIFY2(rootPing, qPrintable(rootPing ? QString() : rootPing.error().toString()));
}

void TestEtcdClient::cleanupTestCase()
{
    if (m_client && !m_prefix.isEmpty()) {
        auto removed = m_client->removePrefix(m_prefix);
        QVERIFY2(removed, qPrintable(removed ? QString() : removed.error().toString()));
        QCOMPARE(m_client->rangePrefix(m_prefix)->kvs.size(), 0);
    }
    if (m_root && !m_prefix.isEmpty())
        QVERIFY(m_root->removePrefix(m_prefix));
}

void TestEtcdClient::putGetRoundTripsBytes()
{
    const QByteArray k = key(QByteArray("bytes/\x00\xff\x01", 10));
    const QByteArray v = QByteArray("\x00\x01\xfe\xff value with \"quotes\"\n", 27);
    auto put = m_client->put(k, v);
    QVERIFY2(put, qPrintable(put ? QString() : put.error().toString()));
    QVERIFY(put->header.revision > 0);
    QVERIFY(put->header.clusterId != 0);

    auto got = m_client->get(k);
    QVERIFY(got);
    QVERIFY(got->has_value());
    QCOMPARE((*got)->key, k);
    QCOMPARE((*got)->value, v);
    QCOMPARE((*got)->version, 1);
    QCOMPARE((*got)->createRevision, put->header.revision);
    QCOMPARE((*got)->modRevision, put->header.revision);

    auto missing = m_client->get(key("does-not-exist"));
    QVERIFY(missing);
    QVERIFY(!missing->has_value());
}

void TestEtcdClient::putWithPrevKvAndLease()
{
    const QByteArray k = key("prev");
    QVERIFY(m_client->put(k, "one"));
    PutOptions options;
    options.prevKv = true;
    auto second = m_client->put(k, "two", options);
    QVERIFY(second);
    QVERIFY(second->prevKv.has_value());
    QCOMPARE(second->prevKv->value, QByteArray("one"));

    auto lease = m_client->grantLease(30);
    QVERIFY(lease);
    PutOptions withLease;
    withLease.lease = lease->id;
    QVERIFY(m_client->put(key("leased"), "x", withLease));
    QCOMPARE((*m_client->get(key("leased")))->lease, lease->id);
    QVERIFY(m_client->revokeLease(lease->id));
    QVERIFY(!m_client->get(key("leased"))->has_value());
}

void TestEtcdClient::rangePagesLargePrefix()
{
    const QByteArray prefix = key("many/");
    // 2500 keys in transactions of 100 puts (etcd allows 128 operations per txn).
    for (int batch = 0; batch < 25; ++batch) {
        TxnRequest txn;
        for (int i = 0; i < 100; ++i) {
            const int n = batch * 100 + i;
            txn.success.append(TxnOp::makePut(prefix + QByteArray::number(n).rightJustified(5, '0'),
                                              QByteArray::number(n)));
        }
        auto result = m_client->txn(txn);
        QVERIFY2(result, qPrintable(result ? QString() : result.error().toString()));
        QVERIFY(result->succeeded);
    }

    RangeOptions one;
    one.rangeEnd = prefixEnd(prefix);
    one.limit = 1000;
    auto firstPage = m_client->range(prefix, one);
    QVERIFY(firstPage);
    QCOMPARE(firstPage->kvs.size(), 1000);
    QVERIFY(firstPage->more);
    QCOMPARE(firstPage->count, 2500);

    auto all = m_client->rangePrefix(prefix, 1000);
    QVERIFY2(all, qPrintable(all ? QString() : all.error().toString()));
    QCOMPARE(all->kvs.size(), 2500);
    QCOMPARE(all->count, 2500);
    for (int n = 0; n < 2500; ++n) {
        QCOMPARE(all->kvs.at(n).key, prefix + QByteArray::number(n).rightJustified(5, '0'));
        QCOMPARE(all->kvs.at(n).value, QByteArray::number(n));
    }
    auto keysOnly = m_client->rangePrefix(prefix, 700, true);
    QVERIFY(keysOnly);
    QCOMPARE(keysOnly->kvs.size(), 2500);
    QVERIFY(keysOnly->kvs.constFirst().value.isEmpty());

    // Pinned to an earlier revision, every page reads that snapshot: a key put since is not
    // there, on the first page or a later one (the stores read sessions consistent with kernels).
    const qint64 before = all->header.revision;
    QVERIFY(m_client->put(prefix + "00000x", "late"));
    QVERIFY(m_client->put(prefix + "02499x", "late"));
    auto then = m_client->rangePrefix(prefix, 700, true, before);
    QVERIFY2(then, qPrintable(then ? QString() : then.error().toString()));
    QCOMPARE(then->kvs.size(), 2500);
    QCOMPARE(then->header.revision >= before, true);
    auto now = m_client->rangePrefix(prefix, 700, true);
    QVERIFY(now);
    QCOMPARE(now->kvs.size(), 2502);
    QVERIFY(m_client->remove(prefix + "00000x"));
    QVERIFY(m_client->remove(prefix + "02499x"));
}

void TestEtcdClient::deletePrefix()
{
    const QByteArray prefix = key("many/");
    auto single = m_client->remove(prefix + "00000");
    QVERIFY(single);
    QCOMPARE(single->deleted, 1);
    auto removed = m_client->removePrefix(prefix);
    QVERIFY2(removed, qPrintable(removed ? QString() : removed.error().toString()));
    QCOMPARE(removed->deleted, 2499);
    QCOMPARE(m_client->rangePrefix(prefix)->kvs.size(), 0);
    // Something outside the prefix survives.
    QVERIFY(m_client->get(key("prev"))->has_value());

    auto everything = m_client->removePrefix(QByteArray());
    QVERIFY(!everything);
    QCOMPARE(everything.error().kind, Error::Kind::Invalid);
}

void TestEtcdClient::concurrentCallsFromThreads()
{
    std::atomic_int failures = 0;
    std::vector<std::thread> threads;
    for (int t = 0; t < 8; ++t) {
        threads.emplace_back([&, t] {
            for (int i = 0; i < 40; ++i) {
                const QByteArray k = key("threads/") + QByteArray::number(t * 100 + i);
                if (!m_client->put(k, QByteArray::number(i)))
                    ++failures;
                auto got = m_client->get(k);
                if (!got || !got->has_value() || (*got)->value != QByteArray::number(i))
                    ++failures;
            }
        });
    }
    for (auto &thread : threads)
        thread.join();
    QCOMPARE(failures.load(), 0);
    QCOMPARE(m_client->rangePrefix(key("threads/"))->kvs.size(), 8 * 40);
}

void TestEtcdClient::txnCompareAndSwap_data()
{
    QTest::addColumn<int>("target"); // TxnCompare::Target
    QTest::addColumn<bool>("matching");
    QTest::newRow("value, matching") << int(TxnCompare::Target::Value) << true;
    QTest::newRow("value, stale") << int(TxnCompare::Target::Value) << false;
    QTest::newRow("version, matching") << int(TxnCompare::Target::Version) << true;
    QTest::newRow("version, stale") << int(TxnCompare::Target::Version) << false;
    QTest::newRow("create_revision, matching") << int(TxnCompare::Target::CreateRevision) << true;
    QTest::newRow("create_revision, stale") << int(TxnCompare::Target::CreateRevision) << false;
    QTest::newRow("mod_revision, matching") << int(TxnCompare::Target::ModRevision) << true;
    QTest::newRow("mod_revision, stale") << int(TxnCompare::Target::ModRevision) << false;
}

void TestEtcdClient::txnCompareAndSwap()
{
    QFETCH(int, target);
    QFETCH(bool, matching);
    const QByteArray k = key("cas/") + QByteArray(QTest::currentDataTag()).replace(' ', '_');
    QVERIFY(m_client->put(k, "v1"));
    auto second = m_client->put(k, "v2");
    QVERIFY(second);
    const KeyValue current = **m_client->get(k);

    TxnCompare compare;
    switch (TxnCompare::Target(target)) {
    case TxnCompare::Target::Value:
        compare = TxnCompare::valueIs(k, TxnCompare::Op::Equal, matching ? "v2" : "v1");
        break;
    case TxnCompare::Target::Version:
        compare =
            TxnCompare::version(k, TxnCompare::Op::Equal, current.version - (matching ? 0 : 1));
        break;
    case TxnCompare::Target::CreateRevision:
        compare = TxnCompare::createRevision(k, TxnCompare::Op::Equal,
                                             matching ? current.createRevision : 0);
        break;
    case TxnCompare::Target::ModRevision:
        compare = TxnCompare::modRevision(k, TxnCompare::Op::Equal,
                                          current.modRevision - (matching ? 0 : 1));
        break;
    case TxnCompare::Target::Lease:
        break;
    }
    TxnRequest txn;
    txn.compare = {compare};
    txn.success = {TxnOp::makePut(k, "swapped")};
    txn.failure = {TxnOp::makeRange(k)};
    auto result = m_client->txn(txn);
    QVERIFY2(result, qPrintable(result ? QString() : result.error().toString()));
    QCOMPARE(result->succeeded, matching);
    QCOMPARE(result->responses.size(), 1);
    if (matching) {
        QCOMPARE(result->responses.at(0).type, TxnOp::Type::Put);
        QCOMPARE((*m_client->get(k))->value, QByteArray("swapped"));
    } else {
        QCOMPARE(result->responses.at(0).type, TxnOp::Type::Range);
        QCOMPARE(result->responses.at(0).range.kvs.at(0).value, QByteArray("v2"));
        QCOMPARE((*m_client->get(k))->value, QByteArray("v2"));
    }
}

void TestEtcdClient::txnBranchesRunTheirOps()
{
    const QByteArray a = key("txn/a");
    const QByteArray b = key("txn/b");
    QVERIFY(m_client->put(b, "old-b"));
    // Create `a` only if missing, delete `b` and read it back in the same transaction.
    TxnRequest txn;
    txn.compare = {TxnCompare::missing(a)};
    DeleteOptions del;
    del.prevKv = true;
    txn.success = {TxnOp::makePut(a, "new-a"), TxnOp::makeDelete(b, del), TxnOp::makeRange(a)};
    txn.failure = {TxnOp::makeRange(a)};
    auto first = m_client->txn(txn);
    QVERIFY(first);
    QVERIFY(first->succeeded);
    QCOMPARE(first->responses.size(), 3);
    QCOMPARE(first->responses.at(1).type, TxnOp::Type::Delete);
    QCOMPARE(first->responses.at(1).del.deleted, 1);
    QCOMPARE(first->responses.at(1).del.prevKvs.at(0).value, QByteArray("old-b"));
    QCOMPARE(first->responses.at(2).range.kvs.at(0).value, QByteArray("new-a"));

    auto second = m_client->txn(txn); // `a` exists now: the failure branch runs
    QVERIFY(second);
    QVERIFY(!second->succeeded);
    QCOMPARE(second->responses.size(), 1);
    QCOMPARE(second->responses.at(0).range.kvs.at(0).value, QByteArray("new-a"));
}

void TestEtcdClient::leaseGrantKeepAliveRevoke()
{
    auto lease = m_client->grantLease(20);
    QVERIFY2(lease, qPrintable(lease ? QString() : lease.error().toString()));
    QVERIFY(lease->id != 0);
    QCOMPARE(lease->ttl, 20);
    PutOptions options;
    options.lease = lease->id;
    QVERIFY(m_client->put(key("lease/k"), "v", options));

    auto ttl = m_client->leaseTimeToLive(lease->id, true);
    QVERIFY(ttl);
    QCOMPARE(ttl->grantedTtl, 20);
    QVERIFY(ttl->ttl > 0 && ttl->ttl <= 20);
    QCOMPARE(ttl->keys, QList<QByteArray>{key("lease/k")});

    auto alive = m_client->keepAliveOnce(lease->id);
    QVERIFY2(alive, qPrintable(alive ? QString() : alive.error().toString()));
    QCOMPARE(alive->id, lease->id);
    QCOMPARE(alive->ttl, 20);

    QVERIFY(m_client->revokeLease(lease->id));
    QVERIFY(!m_client->get(key("lease/k"))->has_value());
    QCOMPARE(m_client->leaseTimeToLive(lease->id)->ttl, -1);
    auto gone = m_client->keepAliveOnce(lease->id);
    QVERIFY(!gone);
    QCOMPARE(gone.error().kind, Error::Kind::NotFound);
    QVERIFY2(gone.error().message.contains(QLatin1String("expired or was revoked")),
             qPrintable(gone.error().toString()));
    auto revokeAgain = m_client->revokeLease(lease->id);
    QVERIFY(!revokeAgain);
    QCOMPARE(revokeAgain.error().kind, Error::Kind::NotFound);
    QVERIFY2(revokeAgain.error().message.contains(QLatin1String("lease not found")),
             qPrintable(revokeAgain.error().toString()));
    QVERIFY(revokeAgain.error().where.contains(m_plain));
}

void TestEtcdClient::leaseExpiryDeletesKeys()
{
    auto lease = m_client->grantLease(2);
    QVERIFY(lease);
    PutOptions options;
    options.lease = lease->id;
    QVERIFY(m_client->put(key("expiry/k"), "v", options));
    QVERIFY(m_client->get(key("expiry/k"))->has_value());
    QElapsedTimer timer;
    timer.start();
    QTRY_VERIFY_WITH_TIMEOUT(!m_client->get(key("expiry/k"))->has_value(), 10000);
    QVERIFY(timer.elapsed() >= 1000);
    QCOMPARE(m_client->leaseTimeToLive(lease->id)->ttl, -1);
}

void TestEtcdClient::leaseKeeperKeepsAliveAndReportsLoss()
{
    auto lease = m_client->grantLease(2);
    QVERIFY(lease);
    PutOptions options;
    options.lease = lease->id;
    QVERIFY(m_client->put(key("keeper/k"), "v", options));

    EtcdLeaseKeeper keeper(*m_client, lease->id, lease->ttl);
    std::atomic_bool lost = false;
    keeper.setLostCallback([&](const Error &) { lost = true; });
    keeper.start();
    QTest::qWait(4500); // more than twice the TTL
    QVERIFY(m_client->get(key("keeper/k"))->has_value());
    QVERIFY(keeper.keepAliveCount() >= 3);
    QVERIFY(keeper.isAlive());

    // Someone else revokes it: the keeper notices and reports the loss once.
    QVERIFY(m_client->revokeLease(lease->id));
    QTRY_VERIFY_WITH_TIMEOUT(lost.load(), 5000);
    QVERIFY(!keeper.isAlive());
    keeper.stop();
}

void TestEtcdClient::watchFromRevision()
{
    const QByteArray prefix = key("watch1/");
    auto first = m_client->put(prefix + "a", "1");
    QVERIFY(first);
    QVERIFY(m_client->put(prefix + "b", "2"));
    QVERIFY(m_client->remove(prefix + "a"));
    QVERIFY(m_client->put(key("watch1-sibling"), "not in the prefix"));

    WatchOptions options;
    options.key = prefix;
    options.prefix = true;
    options.startRevision = first->header.revision;
    options.prevKv = true;
    EtcdWatch watch(*m_client, options);
    WatchLog log;
    log.attach(watch);
    watch.start();
    QTRY_COMPARE_WITH_TIMEOUT(log.size(), 3, 5000);
    QVERIFY(m_client->put(prefix + "c", "3"));
    QTRY_COMPARE_WITH_TIMEOUT(log.size(), 4, 5000);
    watch.stop();
    QVERIFY(!watch.isRunning());

    QMutexLocker lock(&log.mutex);
    QCOMPARE(log.events.at(0).kv.key, prefix + "a");
    QCOMPARE(log.events.at(0).type, WatchEvent::Type::Put);
    QCOMPARE(log.events.at(1).kv.key, prefix + "b");
    QCOMPARE(log.events.at(2).type, WatchEvent::Type::Delete);
    QCOMPARE(log.events.at(2).kv.key, prefix + "a");
    QVERIFY(log.events.at(2).prevKv.has_value());
    QCOMPARE(log.events.at(2).prevKv->value, QByteArray("1"));
    QCOMPARE(log.events.at(3).kv.value, QByteArray("3"));
    QVERIFY(log.errors.isEmpty());
}

void TestEtcdClient::watchSignalsReachOtherThread()
{
    const QByteArray k = key("watch-signal");
    WatchOptions options;
    options.key = k; // from "now"
    EtcdWatch watch(*m_client, options);
    QList<WatchEvent> received;
    qint64 connectedAt = 0;
    connect(&watch, &EtcdWatch::connected, this, [&](qint64 revision) { connectedAt = revision; });
    connect(&watch, &EtcdWatch::eventsReceived, this, [&](const QList<WatchEvent> &events, qint64) {
        QCOMPARE(QThread::currentThread(), thread()); // queued to the test's thread
        received.append(events);
    });
    watch.start();
    QTRY_VERIFY_WITH_TIMEOUT(connectedAt > 0, 5000);
    auto put = m_client->put(k, "hello");
    QVERIFY(put);
    QTRY_COMPARE_WITH_TIMEOUT(received.size(), 1, 5000);
    QCOMPARE(received.at(0).kv.value, QByteArray("hello"));
    QCOMPARE(received.at(0).kv.modRevision, put->header.revision);
    QCOMPARE(watch.lastRevision(), put->header.revision);
}

void TestEtcdClient::watchReconnectsWithoutLossOrDuplicates()
{
    const QByteArray prefix = key("watch2/");
    auto start = m_client->put(prefix + "start", "0");
    QVERIFY(start);

    WatchOptions options;
    options.key = prefix;
    options.prefix = true;
    options.startRevision = start->header.revision + 1;
    options.reconnectDelay = 150ms; // long enough that writes land while disconnected
    EtcdWatch watch(*m_client, options);
    WatchLog log;
    log.attach(watch);
    watch.start();
    QTRY_COMPARE_WITH_TIMEOUT(watch.connectCount(), 1, 5000);

    constexpr int kWrites = 120;
    int connects = 1;
    for (int i = 0; i < kWrites; ++i) {
        if (i % 15 == 7) {
            // Drop the stream mid-flight (once the previous drop has been repaired); the writes
            // that follow land while the watch is away.
            QTRY_COMPARE_WITH_TIMEOUT(watch.connectCount(), connects, 5000);
            watch.interruptConnection();
            ++connects;
        }
        if (i % 40 == 20) {
            // A transaction writes two keys at one revision: both must arrive exactly once.
            TxnRequest txn;
            txn.success = {TxnOp::makePut(prefix + "pair-x", QByteArray::number(i)),
                           TxnOp::makePut(prefix + "pair-y", QByteArray::number(i))};
            QVERIFY(m_client->txn(txn));
        }
        QVERIFY(m_client->put(prefix + "k" + QByteArray::number(i).rightJustified(4, '0'),
                              QByteArray::number(i)));
        if (i % 10 == 0)
            QTest::qWait(20);
    }
    const int expected = kWrites + 2 * 3; // puts + three pairs
    QTRY_COMPARE_WITH_TIMEOUT(log.size(), expected, 15000);
    QTest::qWait(300); // nothing more may arrive (no duplicates after the last reconnect)
    watch.stop();
    QCOMPARE(watch.connectCount(), connects);

    QMutexLocker lock(&log.mutex);
    QCOMPARE(log.events.size(), expected);
    QVERIFY(log.errors.isEmpty());
    qint64 previous = start->header.revision;
    QSet<QPair<QByteArray, qint64>> seen;
    int plain = 0;
    for (const WatchEvent &event : std::as_const(log.events)) {
        QVERIFY(event.kv.modRevision >= previous);
        previous = event.kv.modRevision;
        QVERIFY2(!seen.contains({event.kv.key, event.kv.modRevision}),
                 qPrintable(QString::fromUtf8(event.kv.key)));
        seen.insert({event.kv.key, event.kv.modRevision});
        if (event.kv.key.startsWith(QByteArray(prefix + "k"))) {
            QCOMPARE(event.kv.value, QByteArray::number(plain)); // in write order
            ++plain;
        }
    }
    QCOMPARE(plain, kWrites);
}

void TestEtcdClient::failoverToNextEndpoint()
{
    EtcdConfig config = plainConfig();
    config.endpoints = {kDeadEndpoint, m_plain};
    EtcdClient client(config);
    QVERIFY(client.currentEndpoint().endsWith(QLatin1String(":1")));
    auto put = client.put(key("failover"), "ok"); // a write moves on: it never reached :1
    QVERIFY2(put, qPrintable(put ? QString() : put.error().toString()));
    QCOMPARE(client.currentEndpoint(), m_plain);
    QCOMPARE((*client.get(key("failover")))->value, QByteArray("ok"));

    // Watches and leases fail over as well.
    EtcdClient watchClient(config);
    WatchOptions options;
    options.key = key("failover");
    options.startRevision = put->header.revision;
    EtcdWatch watch(watchClient, options);
    WatchLog log;
    log.attach(watch);
    watch.start();
    QTRY_COMPARE_WITH_TIMEOUT(log.size(), 1, 5000);
    watch.stop();
    EtcdClient leaseClient(config);
    auto lease = leaseClient.grantLease(10);
    QVERIFY(lease);
    QVERIFY(leaseClient.revokeLease(lease->id));
}

void TestEtcdClient::unreachableEndpointsFailFastNamingThem()
{
    EtcdConfig config;
    config.endpoints = {kDeadEndpoint, QStringLiteral("http://127.0.0.1:2")};
    config.connectTimeout = 1s;
    config.requestTimeout = 2s;
    EtcdClient client(config);
    QElapsedTimer timer;
    timer.start();
    auto got = client.get("anything");
    QVERIFY(timer.elapsed() < 3000);
    QVERIFY(!got);
    QCOMPARE(got.error().kind, Error::Kind::Transport);
    const QString text = got.error().toString();
    QVERIFY2(text.contains(QLatin1String("127.0.0.1:1")) &&
                 text.contains(QLatin1String("127.0.0.1:2")),
             qPrintable(text));
}

void TestEtcdClient::authWrongPasswordIsClear()
{
    EtcdClient client(authConfig(m_user, QStringLiteral("definitely-wrong")));
    auto put = client.put(key("auth/x"), "v");
    QVERIFY(!put);
    const QString text = put.error().toString();
    QVERIFY2(text.contains(QLatin1String("authentication failed")), qPrintable(text));
    QVERIFY2(text.contains(m_auth), qPrintable(text));
    QVERIFY2(text.contains(m_user), qPrintable(text));
    auto explicitAuth = client.authenticate();
    QVERIFY(!explicitAuth);
}

void TestEtcdClient::authRightPasswordWorks()
{
    EtcdClient client(authConfig(m_user, m_password));
    auto put = client.put(key("auth/x"), "v");
    QVERIFY2(put, qPrintable(put ? QString() : put.error().toString()));
    QCOMPARE((*client.get(key("auth/x")))->value, QByteArray("v"));

    EtcdConfig noCredentials = authConfig(QString(), QString());
    EtcdClient anonymous(noCredentials);
    auto denied = anonymous.get(key("auth/x"));
    QVERIFY(!denied);
    QVERIFY2(denied.error().message.contains(QLatin1String("user name is empty")),
             qPrintable(denied.error().toString()));
}

void TestEtcdClient::authTokenInvalidationIsHandled()
{
    // A throwaway user limited to this run's prefix; changing its password (even to the same one)
    // makes etcd drop its tokens, as an expiry would.
    const QString suffix = QString::fromUtf8(m_prefix.split('/').at(2));
    const QString user = QStringLiteral("cdtest-") + suffix;
    const QString role = QStringLiteral("cdtest-role-") + suffix;
    const QString password = QStringLiteral("pw-") + suffix;
    rootCall(QStringLiteral("/v3/auth/role/add"), {{"name", role}});
    rootCall(QStringLiteral("/v3/auth/role/grant"),
             {{"name", role},
              {"perm", QJsonObject{{"permType", "READWRITE"},
                                   {"key", QString::fromLatin1(b64(m_prefix))},
                                   {"range_end", QString::fromLatin1(b64(prefixEnd(m_prefix)))}}}});
    rootCall(QStringLiteral("/v3/auth/user/add"), {{"name", user}, {"password", password}});
    rootCall(QStringLiteral("/v3/auth/user/grant"), {{"user", user}, {"role", role}});
    const auto cleanup = qScopeGuard([&] {
        rootCall(QStringLiteral("/v3/auth/user/delete"), {{"name", user}});
        rootCall(QStringLiteral("/v3/auth/role/delete"), {{"role", role}});
    });

    EtcdClient client(authConfig(user, password));
    QVERIFY(client.put(key("auth/user"), "1"));
    auto outside = client.put("/not-my-prefix", "x");
    QVERIFY(!outside);
    QVERIFY2(outside.error().message.contains(QLatin1String("permission denied")),
             qPrintable(outside.error().toString()));

    WatchOptions options;
    options.key = key("auth/w");
    EtcdWatch watch(client, options);
    WatchLog log;
    log.attach(watch);
    watch.start();
    QTRY_COMPARE_WITH_TIMEOUT(watch.connectCount(), 1, 5000);

    rootCall(QStringLiteral("/v3/auth/user/changepw"), {{"name", user}, {"password", password}});
    // Eight threads hit the stale token at once; each call must succeed after one re-auth.
    std::atomic_int failures = 0;
    std::vector<std::thread> threads;
    for (int t = 0; t < 8; ++t) {
        threads.emplace_back([&, t] {
            auto put = client.put(key("auth/t") + QByteArray::number(t), "v");
            if (!put) {
                qWarning("%s", qPrintable(put.error().toString()));
                ++failures;
            }
        });
    }
    for (auto &thread : threads)
        thread.join();
    QCOMPARE(failures.load(), 0);

    // The watch reconnects with the new token and still sees every event.
    rootCall(QStringLiteral("/v3/auth/user/changepw"), {{"name", user}, {"password", password}});
    watch.interruptConnection();
    QTRY_COMPARE_WITH_TIMEOUT(watch.connectCount(), 2, 8000);
    QVERIFY(client.put(key("auth/w"), "after"));
    QTRY_COMPARE_WITH_TIMEOUT(log.size(), 1, 8000);
    QCOMPARE(log.errorCount(), 0);
    watch.stop();
}

void TestEtcdClient::tlsWrongCaIsRejected()
{
    EtcdConfig config = authConfig(m_user, m_password);
    // The lab's other CA if it has one; else a leaf certificate, which signed nothing.
    const QString wrongCa = qEnvironmentVariable("CLUSTERDECK_LAB_TLS_WRONG_CA");
    config.caFile = wrongCa.isEmpty() ? m_cert : wrongCa;
    EtcdClient client(config);
    auto got = client.get(key("tls"));
    QVERIFY(!got);
    QCOMPARE(got.error().kind, Error::Kind::Transport);
    const QString text = got.error().toString();
    QVERIFY2(text.contains(m_auth), qPrintable(text));
    QVERIFY2(text.contains(QLatin1String("certificate"), Qt::CaseInsensitive), qPrintable(text));

    // And plain http against the TLS port does not pass for success either.
    EtcdConfig plain = authConfig(m_user, m_password);
    plain.endpoints = {
        QString(m_auth).replace(QLatin1String("https://"), QLatin1String("http://"))};
    auto viaHttp = EtcdClient(plain).get(key("tls"));
    QVERIFY(!viaHttp);
}

void TestEtcdClient::lockContentionBetweenTwoClients()
{
    EtcdClient clientA(plainConfig());
    EtcdClient clientB(plainConfig());
    const QByteArray name = key("locks/session-1");
    EtcdLock lockA(clientA, name, {5, "console-A"});
    EtcdLock lockB(clientB, name, {5, "console-B"});

    QVERIFY(lockA.tryLock());
    QVERIFY(lockA.isHeld());
    QVERIFY(lockA.tryLock()); // already held: no-op

    auto busy = lockB.tryLock();
    QVERIFY(!busy);
    QCOMPARE(busy.error().kind, Error::Kind::Conflict);
    QVERIFY2(busy.error().message.contains(QLatin1String("console-A")),
             qPrintable(busy.error().toString()));
    QVERIFY(!lockB.isHeld());

    QElapsedTimer timer;
    timer.start();
    auto timedOut = lockB.lock(700ms);
    QVERIFY(!timedOut);
    QCOMPARE(timedOut.error().kind, Error::Kind::Timeout);
    QVERIFY(timer.elapsed() >= 600);
    QVERIFY2(timedOut.error().message.contains(QLatin1String("console-A")),
             qPrintable(timedOut.error().toString()));
    // A timed-out contender leaves nothing behind.
    QCOMPARE(clientA.rangePrefix(name + '/')->kvs.size(), 1);

    // B waits; A releases; B gets it.
    std::atomic_bool acquired = false;
    Error waitError;
    std::thread waiter([&] {
        auto got = lockB.lock(10s);
        if (got)
            acquired = true;
        else
            waitError = got.error();
    });
    QTest::qWait(500);
    QVERIFY(!acquired.load());
    timer.restart();
    QVERIFY(lockA.unlock());
    waiter.join();
    QVERIFY2(acquired.load(), qPrintable(waitError.toString()));
    QVERIFY(timer.elapsed() < 3000);
    QVERIFY(lockB.isHeld());
    QCOMPARE((*lockA.holder())->value, QByteArray("console-B"));
    QVERIFY(!lockA.tryLock());
    QVERIFY(lockB.unlock());
    QVERIFY(lockA.tryLock());
    QVERIFY(lockA.unlock());
    QVERIFY(!lockA.holder()->has_value());
}

void TestEtcdClient::lockLostWhenLeaseDies()
{
    const QByteArray name = key("locks/session-2");
    EtcdLock lock(*m_client, name, {3, "console-C"});
    std::atomic_bool lost = false;
    connect(&lock, &EtcdLock::lost, this, [&](const Error &) { lost = true; });
    QVERIFY(lock.tryLock());
    QVERIFY(lock.isHeld());
    QVERIFY(m_client->revokeLease(lock.leaseId())); // an admin or an expiry takes it away
    QTRY_VERIFY_WITH_TIMEOUT(lost.load(), 6000);
    QVERIFY(!lock.isHeld());
    EtcdLock other(*m_client, name, {3, "console-D"});
    QVERIFY(other.tryLock());
    QVERIFY(!lock.tryLock());
}

void TestEtcdClient::watchReportsCompaction()
{
    const QByteArray prefix = key("compact/");
    auto first = m_client->put(prefix + "a", "1");
    QVERIFY(first);
    QVERIFY(m_client->put(prefix + "a", "2"));
    auto last = m_client->put(prefix + "a", "3");
    QVERIFY(last);
    auto compacted = m_client->compact(last->header.revision);
    QVERIFY2(compacted, qPrintable(compacted ? QString() : compacted.error().toString()));

    // Reading an old revision now fails clearly.
    auto old = m_client->get(prefix + "a", first->header.revision);
    QVERIFY(!old);
    QVERIFY2(old.error().message.contains(QLatin1String("compacted")),
             qPrintable(old.error().toString()));

    WatchOptions options;
    options.key = prefix;
    options.prefix = true;
    options.startRevision = first->header.revision;
    EtcdWatch watch(*m_client, options);
    WatchLog log;
    log.attach(watch);
    qint64 compactRevision = 0;
    connect(&watch, &EtcdWatch::compacted, this,
            [&](qint64 revision) { compactRevision = revision; });
    watch.start();
    QTRY_COMPARE_WITH_TIMEOUT(log.errorCount(), 1, 5000);
    QTRY_COMPARE_WITH_TIMEOUT(compactRevision, last->header.revision, 2000);
    QTRY_VERIFY_WITH_TIMEOUT(!watch.isRunning(), 2000);
    QMutexLocker lock(&log.mutex);
    const Error error = log.errors.at(0);
    QCOMPARE(error.kind, Error::Kind::NotFound);
    QVERIFY2(error.message.contains(QLatin1String("compacted")) &&
                 error.message.contains(QString::number(last->header.revision)) &&
                 error.message.contains(QString::number(first->header.revision)),
             qPrintable(error.toString()));
    QVERIFY(error.where.contains(m_plain));
    QVERIFY(log.events.isEmpty());
}

QTEST_GUILESS_MAIN(TestEtcdClient)
#include "tst_etcdclient.moc"
