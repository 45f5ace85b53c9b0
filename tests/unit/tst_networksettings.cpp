// The store's network settings (issue 26, item 3): the driver, the pool, the VNIs and the VXLAN
// port as NetworkSettings reads and writes them, with their defaults and validation, against a
// real SqliteStore on a temporary file. A stored value that does not parse names the setting and
// the value; a write of an invalid one writes nothing.
#include "network/networksettings.h"
#include "store/sqlitestore.h"

#include <QTemporaryDir>
#include <QTest>

#include <memory>

using namespace ClusterDeck;

class TestNetworkSettings : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void init();
    void cleanup();

    void defaultsOfANewStore();
    void storedDriver_data();
    void storedDriver();
    void storedPool_data();
    void storedPool();
    void storedVxlanPort_data();
    void storedVxlanPort();
    void setDriver_data();
    void setDriver();
    void setPool_data();
    void setPool();
    void setVxlanPort_data();
    void setVxlanPort();
    void readAll();

private:
    QString raw(const char *key) const;
    void store(const char *key, const QString &value);

    std::unique_ptr<QTemporaryDir> m_dir;
    std::unique_ptr<SqliteStore> m_store;
};

#define CHECK_OK(expr)                                                                             \
    do {                                                                                           \
        const auto &r_ = (expr);                                                                   \
        QVERIFY2(r_.has_value(), qPrintable(r_ ? QString() : r_.error().toString()));              \
    } while (false)

void TestNetworkSettings::init()
{
    m_dir = std::make_unique<QTemporaryDir>();
    QVERIFY(m_dir->isValid());
    auto store = SqliteStore::open(m_dir->filePath(QStringLiteral("state.db")));
    QVERIFY2(store, qPrintable(store ? QString() : store.error().toString()));
    m_store = std::move(*store);
}

void TestNetworkSettings::cleanup()
{
    m_store.reset();
    m_dir.reset();
}

QString TestNetworkSettings::raw(const char *key) const
{
    auto value = m_store->setting(QString::fromLatin1(key));
    return value ? *value : QStringLiteral("<error: %1>").arg(value.error().toString());
}

void TestNetworkSettings::store(const char *key, const QString &value)
{
    auto ok = m_store->setSetting(QString::fromLatin1(key), value);
    QVERIFY2(ok, qPrintable(ok ? QString() : ok.error().toString()));
}

void TestNetworkSettings::defaultsOfANewStore()
{
    auto driver = NetworkSettings::driver(*m_store);
    CHECK_OK(driver);
    QCOMPARE(*driver, NetworkDriver::Vxlan);
    auto pool = NetworkSettings::pool(*m_store);
    CHECK_OK(pool);
    QCOMPARE(*pool, OverlayPool::defaults());
    QCOMPARE(pool->toString(), QStringLiteral("100.64.0.0/10, VNIs 1048576-16777215"));
    auto port = NetworkSettings::vxlanPort(*m_store);
    CHECK_OK(port);
    QCOMPARE(*port, 4789);
    // Reading writes nothing.
    for (const char *key : {NetworkSettings::kDriverKey, NetworkSettings::kPoolKey,
                            NetworkSettings::kVnisKey, NetworkSettings::kVxlanPortKey})
        QCOMPARE(raw(key), QString());
}

void TestNetworkSettings::storedDriver_data()
{
    QTest::addColumn<QString>("stored");
    QTest::addColumn<QString>("expected"); // the driver's name, or "" when reading must fail
    QTest::newRow("unset") << ""
                           << "vxlan";
    QTest::newRow("vxlan") << "vxlan"
                           << "vxlan";
    QTest::newRow("swarm") << "swarm"
                           << "swarm";
    QTest::newRow("spelled in capitals") << "Swarm"
                                         << "swarm";
    QTest::newRow("unknown") << "overlay"
                             << "";
    QTest::newRow("blank") << " "
                           << "";
}

void TestNetworkSettings::storedDriver()
{
    QFETCH(QString, stored);
    QFETCH(QString, expected);
    store(NetworkSettings::kDriverKey, stored);
    auto driver = NetworkSettings::driver(*m_store);
    if (!expected.isEmpty()) {
        CHECK_OK(driver);
        QCOMPARE(networkDriverName(*driver), expected);
        return;
    }
    QVERIFY(!driver);
    QCOMPARE(driver.error().kind, Error::Kind::Decode);
    QCOMPARE(driver.error().where, QStringLiteral("setting network.driver"));
    QVERIFY2(driver.error().message.contains(u'"' + stored + u'"'),
             qPrintable(driver.error().toString()));
}

void TestNetworkSettings::storedPool_data()
{
    QTest::addColumn<QString>("subnets");
    QTest::addColumn<QString>("vnis");
    QTest::addColumn<QString>("expected"); // OverlayPool::toString(), or "" when it must fail
    QTest::addColumn<QString>("errorWhere");
    QTest::addColumn<QString>("errorPart");
    QTest::newRow("unset") << ""
                           << ""
                           << "100.64.0.0/10, VNIs 1048576-16777215"
                           << ""
                           << "";
    QTest::newRow("a pool, default VNIs") << "10.200.0.0/16"
                                          << ""
                                          << "10.200.0.0/16, VNIs 1048576-16777215"
                                          << ""
                                          << "";
    QTest::newRow("VNIs only") << ""
                               << "5000-5999"
                               << "100.64.0.0/10, VNIs 5000-5999"
                               << ""
                               << "";
    QTest::newRow("both") << "192.168.128.0/17"
                          << "7000"
                          << "192.168.128.0/17, VNIs 7000-7000"
                          << ""
                          << "";
    QTest::newRow("pool too small") << "10.200.0.0/25"
                                    << ""
                                    << ""
                                    << "setting network.pool"
                                    << "10.200.0.0/25";
    QTest::newRow("pool not a CIDR") << "ten.0.0.0/8"
                                     << ""
                                     << ""
                                     << "setting network.pool"
                                     << "ten.0.0.0/8";
    QTest::newRow("pool loopback") << "127.0.0.0/8"
                                   << ""
                                   << ""
                                   << "setting network.pool"
                                   << "loopback";
    QTest::newRow("VNIs reversed") << ""
                                   << "9-1"
                                   << ""
                                   << "setting network.vnis"
                                   << "9-1";
    QTest::newRow("VNIs too big") << ""
                                  << "1-16777216"
                                  << ""
                                  << "setting network.vnis"
                                  << "1-16777216";
    QTest::newRow("VNIs not numbers") << "10.200.0.0/16"
                                      << "many"
                                      << ""
                                      << "setting network.vnis"
                                      << "many";
}

void TestNetworkSettings::storedPool()
{
    QFETCH(QString, subnets);
    QFETCH(QString, vnis);
    QFETCH(QString, expected);
    QFETCH(QString, errorWhere);
    QFETCH(QString, errorPart);
    store(NetworkSettings::kPoolKey, subnets);
    store(NetworkSettings::kVnisKey, vnis);
    auto pool = NetworkSettings::pool(*m_store);
    if (!expected.isEmpty()) {
        CHECK_OK(pool);
        QCOMPARE(pool->toString(), expected);
        return;
    }
    QVERIFY(!pool);
    QCOMPARE(pool.error().kind, Error::Kind::Decode);
    QCOMPARE(pool.error().where, errorWhere);
    QVERIFY2(pool.error().message.contains(errorPart), qPrintable(pool.error().toString()));
}

void TestNetworkSettings::storedVxlanPort_data()
{
    QTest::addColumn<QString>("stored");
    QTest::addColumn<int>("expected"); // 0 when it must fail
    QTest::newRow("unset") << "" << 4789;
    QTest::newRow("another") << "8472" << 8472;
    QTest::newRow("lowest") << "1024" << 1024;
    QTest::newRow("highest") << "65535" << 65535;
    QTest::newRow("privileged") << "80" << 0;
    QTest::newRow("too big") << "65536" << 0;
    QTest::newRow("negative") << "-4789" << 0;
    QTest::newRow("not a number") << "vxlan" << 0;
    QTest::newRow("with a unit") << "4789/udp" << 0;
    QTest::newRow("huge") << "99999999999" << 0;
}

void TestNetworkSettings::storedVxlanPort()
{
    QFETCH(QString, stored);
    QFETCH(int, expected);
    store(NetworkSettings::kVxlanPortKey, stored);
    auto port = NetworkSettings::vxlanPort(*m_store);
    if (expected != 0) {
        CHECK_OK(port);
        QCOMPARE(*port, expected);
        return;
    }
    QVERIFY(!port);
    QCOMPARE(port.error().kind, Error::Kind::Decode);
    QCOMPARE(port.error().where, QStringLiteral("setting network.vxlan-port"));
    QVERIFY2(port.error().message.contains(u'"' + stored + u'"'),
             qPrintable(port.error().toString()));
}

void TestNetworkSettings::setDriver_data()
{
    QTest::addColumn<QString>("before"); // stored first ("" unset)
    QTest::addColumn<int>("driver");
    QTest::addColumn<QString>("stored");
    QTest::newRow("swarm on a new store") << "" << int(NetworkDriver::Swarm) << "swarm";
    QTest::newRow("vxlan, explicitly") << "" << int(NetworkDriver::Vxlan) << "vxlan";
    QTest::newRow("back to vxlan") << "swarm" << int(NetworkDriver::Vxlan) << "vxlan";
    QTest::newRow("replaces a bad value") << "overlay" << int(NetworkDriver::Swarm) << "swarm";
}

void TestNetworkSettings::setDriver()
{
    QFETCH(QString, before);
    QFETCH(int, driver);
    QFETCH(QString, stored);
    store(NetworkSettings::kDriverKey, before);
    CHECK_OK(NetworkSettings::setDriver(*m_store, NetworkDriver(driver)));
    QCOMPARE(raw(NetworkSettings::kDriverKey), stored);
    auto read = NetworkSettings::driver(*m_store);
    CHECK_OK(read);
    QCOMPARE(*read, NetworkDriver(driver));
}

void TestNetworkSettings::setPool_data()
{
    QTest::addColumn<QString>("subnets");
    QTest::addColumn<QString>("vnis");
    QTest::addColumn<QString>("storedPool"); // what is stored; "-" when the write must fail
    QTest::addColumn<QString>("storedVnis");
    QTest::newRow("both") << "10.200.0.0/16"
                          << "5000-5999"
                          << "10.200.0.0/16"
                          << "5000-5999";
    QTest::newRow("spaces trimmed") << " 10.200.0.0/16 "
                                    << " 5000 - 5999 "
                                    << "10.200.0.0/16"
                                    << "5000-5999";
    QTest::newRow("one VNI") << "10.200.0.0/24"
                             << "7"
                             << "10.200.0.0/24"
                             << "7-7";
    QTest::newRow("empty: the defaults") << ""
                                         << ""
                                         << ""
                                         << "";
    QTest::newRow("pool only") << "172.30.0.0/16"
                               << ""
                               << "172.30.0.0/16"
                               << "";
    QTest::newRow("host bits set") << "10.200.1.0/16"
                                   << ""
                                   << "-"
                                   << "";
    QTest::newRow("too small") << "10.200.0.0/28"
                               << ""
                               << "-"
                               << "";
    QTest::newRow("multicast") << "224.0.0.0/8"
                               << ""
                               << "-"
                               << "";
    QTest::newRow("VNI 0") << ""
                           << "0-10"
                           << "-"
                           << "";
    QTest::newRow("VNIs garbage") << ""
                                  << "1-2-3"
                                  << "-"
                                  << "";
}

void TestNetworkSettings::setPool()
{
    QFETCH(QString, subnets);
    QFETCH(QString, vnis);
    QFETCH(QString, storedPool);
    QFETCH(QString, storedVnis);
    // Something stored before: a failed write must leave it, a good one replace it.
    store(NetworkSettings::kPoolKey, QStringLiteral("10.99.0.0/16"));
    store(NetworkSettings::kVnisKey, QStringLiteral("100-199"));
    auto written = NetworkSettings::setPool(*m_store, subnets, vnis);
    if (storedPool == u"-") {
        QVERIFY(!written);
        QCOMPARE(written.error().kind, Error::Kind::Invalid);
        QCOMPARE(raw(NetworkSettings::kPoolKey), QStringLiteral("10.99.0.0/16"));
        QCOMPARE(raw(NetworkSettings::kVnisKey), QStringLiteral("100-199"));
        return;
    }
    CHECK_OK(written);
    QCOMPARE(raw(NetworkSettings::kPoolKey), storedPool);
    QCOMPARE(raw(NetworkSettings::kVnisKey), storedVnis);
    auto pool = NetworkSettings::pool(*m_store);
    CHECK_OK(pool);
    auto expected = OverlayPool::parse(subnets, vnis);
    CHECK_OK(expected);
    QCOMPARE(*pool, *expected);
}

void TestNetworkSettings::setVxlanPort_data()
{
    QTest::addColumn<int>("port");
    QTest::addColumn<bool>("valid");
    QTest::newRow("default") << 4789 << true;
    QTest::newRow("Linux's old default") << 8472 << true;
    QTest::newRow("lowest") << 1024 << true;
    QTest::newRow("highest") << 65535 << true;
    QTest::newRow("privileged") << 1023 << false;
    QTest::newRow("zero") << 0 << false;
    QTest::newRow("negative") << -1 << false;
    QTest::newRow("too big") << 65536 << false;
}

void TestNetworkSettings::setVxlanPort()
{
    QFETCH(int, port);
    QFETCH(bool, valid);
    store(NetworkSettings::kVxlanPortKey, QStringLiteral("5555"));
    auto written = NetworkSettings::setVxlanPort(*m_store, port);
    QCOMPARE(written.has_value(), valid);
    if (!valid) {
        QCOMPARE(written.error().kind, Error::Kind::Invalid);
        QVERIFY2(written.error().message.contains(QString::number(port)),
                 qPrintable(written.error().toString()));
        QCOMPARE(raw(NetworkSettings::kVxlanPortKey), QStringLiteral("5555"));
        return;
    }
    QCOMPARE(raw(NetworkSettings::kVxlanPortKey), QString::number(port));
    QCOMPARE(*NetworkSettings::vxlanPort(*m_store), port);
}

void TestNetworkSettings::readAll()
{
    CHECK_OK(NetworkSettings::setDriver(*m_store, NetworkDriver::Swarm));
    CHECK_OK(NetworkSettings::setPool(*m_store, QStringLiteral("10.200.0.0/16"), QString()));
    CHECK_OK(NetworkSettings::setVxlanPort(*m_store, 4790));
    auto values = NetworkSettings::read(*m_store);
    CHECK_OK(values);
    QCOMPARE(values->driver, NetworkDriver::Swarm);
    QCOMPARE(values->pool.toString(), QStringLiteral("10.200.0.0/16, VNIs 1048576-16777215"));
    QCOMPARE(values->vxlanPort, 4790);
    // Another process's connection to the same file reads the same.
    auto other = SqliteStore::open(m_dir->filePath(QStringLiteral("state.db")));
    QVERIFY(other);
    auto again = NetworkSettings::read(**other);
    CHECK_OK(again);
    QCOMPARE(again->driver, values->driver);
    QCOMPARE(again->pool, values->pool);
    QCOMPARE(again->vxlanPort, values->vxlanPort);
    // One bad value fails the whole read, naming it.
    store(NetworkSettings::kVxlanPortKey, QStringLiteral("http"));
    auto bad = NetworkSettings::read(*m_store);
    QVERIFY(!bad);
    QCOMPARE(bad.error().where, QStringLiteral("setting network.vxlan-port"));
}

QTEST_GUILESS_MAIN(TestNetworkSettings)
#include "tst_networksettings.moc"
