// An etcd store used the way the CLI uses it — no event loop runs while it works — does not queue
// a watch callback per change forever (issue 14, item 6). Against the lab's etcd
// ($CLUSTERDECK_LAB_ETCD), under a prefix of its own.

#include "etcd/etcdclient.h"
#include "store/etcdstore.h"
#include "store/storefactory.h"

#include <QCoreApplication>
#include <QTest>
#include <QUrl>
#include <QUuid>

#include <thread>

using namespace ClusterDeck;
using namespace std::chrono_literals;

class TestEtcdStoreBacklog : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void init();
    void cleanup();
    void withoutEventLoopTheBacklogStaysBounded();
    void withEventLoopEveryChangeIsDelivered();

private:
    std::unique_ptr<StateStore> m_store;
    std::unique_ptr<Etcd::EtcdClient> m_etcd;
    QString m_prefix;
};

void TestEtcdStoreBacklog::init()
{
    const QString endpoint = qEnvironmentVariable("CLUSTERDECK_LAB_ETCD");
    QVERIFY2(!endpoint.isEmpty(),
             "CLUSTERDECK_LAB_ETCD is not set: start the lab and eval \"$(scripts/lab.sh env)\"");
    Etcd::EtcdConfig config;
    config.endpoints = {endpoint};
    m_etcd = std::make_unique<Etcd::EtcdClient>(config);
    m_prefix = QStringLiteral("/cdtest-backlog/") + QUuid::createUuid().toString(QUuid::Id128);
    auto store = openStore(QStringLiteral("etcd://") + QUrl(endpoint).authority() + m_prefix);
    QVERIFY2(store, qPrintable(store ? QString() : store.error().toString()));
    m_store = std::move(*store);
}

void TestEtcdStoreBacklog::cleanup()
{
    m_store.reset();
    if (m_etcd && !m_prefix.isEmpty())
        QVERIFY(m_etcd->removePrefix((m_prefix + u'/').toUtf8()));
    m_etcd.reset();
}

void TestEtcdStoreBacklog::withoutEventLoopTheBacklogStaysBounded()
{
    auto *store = qobject_cast<EtcdStore *>(m_store.get());
    QVERIFY(store);
    const qsizetype limit = 50;
    store->setWatchBacklogLimit(limit);
    int changed = 0;
    int lost = 0;
    connect(store, &StateStore::hostChanged, this, [&] { ++changed; });
    connect(store, &StateStore::changesLost, this, [&] { ++lost; });

    // Many changes, as a long CLI command makes them, and no event loop in between.
    const int changes = 600;
    qsizetype highest = 0;
    for (int i = 0; i < changes; ++i) {
        HostRecord h;
        h.name = QStringLiteral("h%1").arg(i % 7);
        h.endpoint = QStringLiteral("tcp://127.0.0.1:%1").arg(2375 + i);
        QVERIFY(store->putHost(h));
        highest = std::max(highest, store->undeliveredWatchEvents());
    }
    // Until the watch has seen the last change: milliseconds on loopback, seconds under
    // ThreadSanitizer on a loaded machine (a fixed 1.5 s wait failed there: no overflow yet).
    auto written = m_etcd->rangePrefix((m_prefix + u'/').toUtf8());
    QVERIFY2(written, qPrintable(written ? QString() : written.error().toString()));
    qint64 last = 0;
    for (const Etcd::KeyValue &kv : std::as_const(written->kvs))
        last = std::max(last, kv.modRevision);
    const auto deadline = std::chrono::steady_clock::now() + 60s;
    while (store->watchedRevision() < last && std::chrono::steady_clock::now() < deadline) {
        highest = std::max(highest, store->undeliveredWatchEvents());
        std::this_thread::sleep_for(20ms);
    }
    QVERIFY2(store->watchedRevision() >= last,
             qPrintable(QStringLiteral("the watch saw revision %1 of %2 within 60 s")
                            .arg(store->watchedRevision())
                            .arg(last)));
    highest = std::max(highest, store->undeliveredWatchEvents());
    QVERIFY2(highest <= limit, qPrintable(QString::number(highest)));

    // What was queued for the store's thread: one delivery, not one per change.
    QCoreApplication::sendPostedEvents(store);
    QCOMPARE(lost, 1);
    QVERIFY2(changed <= limit, qPrintable(QString::number(changed)));
    qInfo() << changes << "changes without an event loop: at most" << highest << "events held, then"
            << lost << "changesLost and" << changed << "hostChanged";
}

void TestEtcdStoreBacklog::withEventLoopEveryChangeIsDelivered()
{
    auto *store = qobject_cast<EtcdStore *>(m_store.get());
    QVERIFY(store);
    QStringList changed;
    int lost = 0;
    connect(store, &StateStore::hostChanged, this, [&](const QString &name) { changed << name; });
    connect(store, &StateStore::changesLost, this, [&] { ++lost; });
    for (int i = 0; i < 20; ++i) {
        HostRecord h;
        h.name = QStringLiteral("e%1").arg(i);
        h.endpoint = QStringLiteral("tcp://127.0.0.1:2375");
        QVERIFY(store->putHost(h));
        QCoreApplication::processEvents();
    }
    QTRY_COMPARE_WITH_TIMEOUT(changed.size(), 20, 30000);
    QCOMPARE(changed.first(), QStringLiteral("e0"));
    QCOMPARE(changed.last(), QStringLiteral("e19"));
    QCOMPARE(lost, 0);
}

QTEST_GUILESS_MAIN(TestEtcdStoreBacklog)
#include "tst_etcdstorebacklog.moc"
