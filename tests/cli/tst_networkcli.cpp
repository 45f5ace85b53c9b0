// `clusterdeckctl network setup` and `network show` as scripts use them (issue 26, item 3): the
// store's driver and VXLAN settings recorded in a SQLite store, what is printed (text and JSON),
// exit statuses and the one-line `error: …`, and that a bad value writes nothing. No lab, no
// daemon: the vxlan driver makes no swarm, and the swarm driver with no hosts fails as before.
// The swarm setup itself (hosts joining) is tested on the lab by tst_hostcli.

#include "labcli.h"
#include "network/networksettings.h"
#include "store/sqlitestore.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>

#ifndef CLUSTERDECKCTL
#error "CLUSTERDECKCTL must name the clusterdeckctl binary"
#endif

using namespace ClusterDeck;

namespace {

const QJsonObject kDefaults{{QStringLiteral("driver"), QStringLiteral("vxlan")},
                            {QStringLiteral("pool"), QStringLiteral("100.64.0.0/10")},
                            {QStringLiteral("vnis"), QStringLiteral("1048576-16777215")},
                            {QStringLiteral("vxlan_port"), 4789}};

QString text(const QByteArray &bytes)
{
    return QString::fromUtf8(bytes);
}

} // namespace

class TestNetworkCli : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void init();
    void cleanup();

    void showDefaults();
    void setupWithoutOptionsChangesNothing();
    void setupRecords_data();
    void setupRecords();
    void badValuesWriteNothing_data();
    void badValuesWriteNothing();
    void swarmDriver();
    void storedValueThatDoesNotParse();
    void help();

private:
    Proc cli(const QStringList &args) const
    {
        return storeCli(QStringLiteral(CLUSTERDECKCTL), m_url, args, 60000);
    }
    // `network show --json`, parsed.
    QJsonObject shown() const;

    std::unique_ptr<QTemporaryDir> m_dir;
    QString m_url;
};

#define CHECK_EXIT(proc, code)                                                                     \
    QVERIFY2((proc).exitCode == (code),                                                            \
             qPrintable(QStringLiteral("exit %1, stdout: %2 stderr: %3")                           \
                            .arg((proc).exitCode)                                                  \
                            .arg(text((proc).out), text((proc).err))))

void TestNetworkCli::init()
{
    m_dir = std::make_unique<QTemporaryDir>();
    QVERIFY(m_dir->isValid());
    m_url = QStringLiteral("sqlite://") + m_dir->filePath(QStringLiteral("state.db"));
}

void TestNetworkCli::cleanup()
{
    m_dir.reset();
}

QJsonObject TestNetworkCli::shown() const
{
    const Proc show =
        cli({QStringLiteral("network"), QStringLiteral("show"), QStringLiteral("--json")});
    if (show.exitCode != 0)
        qWarning("network show --json: exit %d: %s", show.exitCode, show.err.constData());
    return QJsonDocument::fromJson(show.out).object();
}

void TestNetworkCli::showDefaults()
{
    const Proc show = cli({QStringLiteral("network"), QStringLiteral("show")});
    CHECK_EXIT(show, 0);
    QVERIFY(show.err.isEmpty());
    const QStringList lines = text(show.out).split(u'\n', Qt::SkipEmptyParts);
    QCOMPARE(lines.size(), 5);
    QCOMPARE(lines.at(0), QStringLiteral("driver      vxlan (default)"));
    QCOMPARE(lines.at(1), QStringLiteral("pool        100.64.0.0/10 (16384 subnets of /24, one "
                                         "per multi-node session) (default)"));
    QCOMPARE(lines.at(2), QStringLiteral("vnis        1048576-16777215 (default)"));
    QCOMPARE(lines.at(3), QStringLiteral("vxlan-port  4789/udp (default)"));
    QVERIFY2(lines.at(4).contains(QStringLiteral("no swarm")) &&
                 lines.at(4).contains(QStringLiteral("UDP port 4789 open between them")),
             qPrintable(lines.at(4)));
    QCOMPARE(shown(), kDefaults);
}

// A store on the vxlan driver (every new store): `network setup` makes no swarm — a registered
// host that does not answer is not even asked — and prints what the store uses, every time.
void TestNetworkCli::setupWithoutOptionsChangesNothing()
{
    CHECK_EXIT(cli({QStringLiteral("host"), QStringLiteral("add"), QStringLiteral("dead"),
                    QStringLiteral("--docker"), QStringLiteral("tcp://127.0.0.1:1"),
                    QStringLiteral("--no-check")}),
               0);
    for (int i = 0; i < 2; ++i) {
        const Proc setup = cli({QStringLiteral("network"), QStringLiteral("setup")});
        CHECK_EXIT(setup, 0);
        QVERIFY(setup.err.isEmpty());
        const QString out = text(setup.out);
        QVERIFY2(out.startsWith(QStringLiteral("driver      vxlan (default)\n")), qPrintable(out));
        QVERIFY2(out.contains(QStringLiteral("UDP port 4789 open between them")), qPrintable(out));
        QVERIFY2(out.endsWith(QStringLiteral("No change.\n")), qPrintable(out));
        QVERIFY2(!out.contains(QStringLiteral("dead")) && !out.contains(QStringLiteral("swarm ")),
                 qPrintable(out));
    }
    const Proc json =
        cli({QStringLiteral("network"), QStringLiteral("setup"), QStringLiteral("--json")});
    CHECK_EXIT(json, 0);
    QJsonObject expected = kDefaults;
    expected.insert(QStringLiteral("changed"), false);
    QCOMPARE(QJsonDocument::fromJson(json.out).object(), expected);
    // Nothing was written: every setting is still unset.
    auto store = SqliteStore::open(m_dir->filePath(QStringLiteral("state.db")));
    QVERIFY(store);
    for (const char *key : {NetworkSettings::kDriverKey, NetworkSettings::kPoolKey,
                            NetworkSettings::kVnisKey, NetworkSettings::kVxlanPortKey})
        QCOMPARE(*(*store)->setting(QString::fromLatin1(key)), QString());
}

void TestNetworkCli::setupRecords_data()
{
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<QJsonObject>("changes"); // over kDefaults
    QTest::addColumn<QString>("says");        // a line of the text output
    QTest::newRow("--driver vxlan")
        << QStringList{QStringLiteral("--driver"), QStringLiteral("vxlan")} << QJsonObject{}
        << QStringLiteral("Settings saved.");
    QTest::newRow("a pool") << QStringList{QStringLiteral("--pool"),
                                           QStringLiteral("10.200.0.0/16")}
                            << QJsonObject{{QStringLiteral("pool"),
                                            QStringLiteral("10.200.0.0/16")}}
                            << QStringLiteral("pool        10.200.0.0/16 (256 subnets of /24, one "
                                              "per multi-node session)");
    QTest::newRow("VNIs") << QStringList{QStringLiteral("--vnis=5000-5999")}
                          << QJsonObject{{QStringLiteral("vnis"), QStringLiteral("5000-5999")}}
                          << QStringLiteral("vnis        5000-5999");
    QTest::newRow("one VNI") << QStringList{QStringLiteral("--vnis"), QStringLiteral("7")}
                             << QJsonObject{{QStringLiteral("vnis"), QStringLiteral("7-7")}}
                             << QStringLiteral("vnis        7-7");
    QTest::newRow("the port")
        << QStringList{QStringLiteral("--vxlan-port"), QStringLiteral("8472")}
        << QJsonObject{{QStringLiteral("vxlan_port"), 8472}}
        << QStringLiteral("Multi-node sessions use ClusterDeck's VXLAN overlay: no swarm, nothing "
                          "to set up on the hosts. The hosts need UDP port 8472 open between "
                          "them.");
    QTest::newRow("everything")
        << QStringList{QStringLiteral("--driver"),     QStringLiteral("vxlan"),
                       QStringLiteral("--pool"),       QStringLiteral("172.30.0.0/16"),
                       QStringLiteral("--vnis"),       QStringLiteral("2000000-2000999"),
                       QStringLiteral("--vxlan-port"), QStringLiteral("4790")}
        << QJsonObject{{QStringLiteral("pool"), QStringLiteral("172.30.0.0/16")},
                       {QStringLiteral("vnis"), QStringLiteral("2000000-2000999")},
                       {QStringLiteral("vxlan_port"), 4790}}
        << QStringLiteral("vxlan-port  4790/udp");
}

void TestNetworkCli::setupRecords()
{
    QFETCH(QStringList, args);
    QFETCH(QJsonObject, changes);
    QFETCH(QString, says);
    QJsonObject expected = kDefaults;
    for (auto it = changes.constBegin(); it != changes.constEnd(); ++it)
        expected.insert(it.key(), it.value());

    const Proc setup = cli(QStringList{QStringLiteral("network"), QStringLiteral("setup")} + args);
    CHECK_EXIT(setup, 0);
    QVERIFY(setup.err.isEmpty());
    const QStringList lines = text(setup.out).split(u'\n', Qt::SkipEmptyParts);
    QVERIFY2(lines.contains(says), qPrintable(text(setup.out)));
    QCOMPARE(lines.last(), QStringLiteral("Settings saved."));
    QCOMPARE(shown(), expected);

    // The same again: recorded already, nothing changes; JSON says so.
    const Proc again = cli(QStringList{QStringLiteral("network"), QStringLiteral("setup")} + args +
                           QStringList{QStringLiteral("--json")});
    CHECK_EXIT(again, 0);
    expected.insert(QStringLiteral("changed"), false);
    QCOMPARE(QJsonDocument::fromJson(again.out).object(), expected);

    // Setting one part of the pool keeps the other.
    if (changes.contains(QStringLiteral("pool")) && changes.contains(QStringLiteral("vnis"))) {
        CHECK_EXIT(cli({QStringLiteral("network"), QStringLiteral("setup"),
                        QStringLiteral("--vnis"), QStringLiteral("9000-9999")}),
                   0);
        QCOMPARE(shown().value(QStringLiteral("pool")), changes.value(QStringLiteral("pool")));
        QCOMPARE(shown().value(QStringLiteral("vnis")), QJsonValue(QStringLiteral("9000-9999")));
    }
}

void TestNetworkCli::badValuesWriteNothing_data()
{
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<QString>("errorPart");
    QTest::newRow("unknown driver")
        << QStringList{QStringLiteral("--driver"), QStringLiteral("overlay")}
        << QStringLiteral("\"overlay\" is not a network driver: vxlan or swarm");
    QTest::newRow("a typo") << QStringList{QStringLiteral("--driver=vxlam")}
                            << QStringLiteral("vxlan or swarm");
    QTest::newRow("pool too small")
        << QStringList{QStringLiteral("--pool"), QStringLiteral("10.200.0.0/25")}
        << QStringLiteral("--pool: 10.200.0.0/25 is too small");
    QTest::newRow("pool with host bits")
        << QStringList{QStringLiteral("--pool"), QStringLiteral("10.200.1.0/16")}
        << QStringLiteral("--pool: ");
    QTest::newRow("pool loopback")
        << QStringList{QStringLiteral("--pool"), QStringLiteral("127.0.0.0/8")}
        << QStringLiteral("loopback");
    QTest::newRow("empty pool") << QStringList{QStringLiteral("--pool="),
                                               QStringLiteral("--driver"), QStringLiteral("swarm")}
                                << QStringLiteral("--pool needs an IPv4 range");
    QTest::newRow("VNI 0") << QStringList{QStringLiteral("--vnis"), QStringLiteral("0-5")}
                           << QStringLiteral("--vnis: VXLAN ids are 1-16777215");
    QTest::newRow("VNIs not a range")
        << QStringList{QStringLiteral("--vnis"), QStringLiteral("a-b")}
        << QStringLiteral("is not a VNI range");
    QTest::newRow("privileged port")
        << QStringList{QStringLiteral("--vxlan-port"), QStringLiteral("80")}
        << QStringLiteral("from 1024 to 65535");
    QTest::newRow("port not a number")
        << QStringList{QStringLiteral("--vxlan-port"), QStringLiteral("vxlan")}
        << QStringLiteral("\"vxlan\" is not a UDP port");
    // One bad value among good ones: none of them is written (the driver first of all).
    QTest::newRow("good driver, bad port")
        << QStringList{QStringLiteral("--driver"),     QStringLiteral("swarm"),
                       QStringLiteral("--pool"),       QStringLiteral("10.200.0.0/16"),
                       QStringLiteral("--vxlan-port"), QStringLiteral("70000")}
        << QStringLiteral("70000 is not");
    QTest::newRow("a stray word") << QStringList{QStringLiteral("vxlan")}
                                  << QStringLiteral("unexpected argument 'vxlan'");
    QTest::newRow("unknown option") << QStringList{QStringLiteral("--mtu"), QStringLiteral("1400")}
                                    << QStringLiteral("unknown option '--mtu'");
    QTest::newRow("no value") << QStringList{QStringLiteral("--driver")}
                              << QStringLiteral("--driver needs a value");
}

void TestNetworkCli::badValuesWriteNothing()
{
    QFETCH(QStringList, args);
    QFETCH(QString, errorPart);
    const Proc setup = cli(QStringList{QStringLiteral("network"), QStringLiteral("setup")} + args);
    CHECK_EXIT(setup, 2);
    QVERIFY(setup.out.isEmpty());
    const QString err = text(setup.err);
    QVERIFY2(err.startsWith(QStringLiteral("error: ")) && err.count(u'\n') == 1, qPrintable(err));
    QVERIFY2(err.contains(errorPart), qPrintable(err));
    QCOMPARE(shown(), kDefaults);
    auto store = SqliteStore::open(m_dir->filePath(QStringLiteral("state.db")));
    QVERIFY(store);
    for (const char *key : {NetworkSettings::kDriverKey, NetworkSettings::kPoolKey,
                            NetworkSettings::kVnisKey, NetworkSettings::kVxlanPortKey})
        QCOMPARE(*(*store)->setting(QString::fromLatin1(key)), QString());
}

// --driver swarm records the driver and runs the swarm setup as `network setup` always did: with
// no host registered it fails as before. On a swarm store, `network setup` alone is that setup
// again; --driver vxlan goes back without touching a host.
void TestNetworkCli::swarmDriver()
{
    Proc setup = cli({QStringLiteral("network"), QStringLiteral("setup"),
                      QStringLiteral("--driver"), QStringLiteral("swarm")});
    CHECK_EXIT(setup, 1);
    QVERIFY2(text(setup.err).contains(QStringLiteral("no hosts are registered")),
             qPrintable(text(setup.err)));
    QJsonObject expected = kDefaults;
    expected.insert(QStringLiteral("driver"), QStringLiteral("swarm"));
    QCOMPARE(shown(), expected);
    const Proc show = cli({QStringLiteral("network"), QStringLiteral("show")});
    CHECK_EXIT(show, 0);
    QVERIFY2(text(show.out).startsWith(QStringLiteral("driver      swarm\n")),
             show.out.constData());
    QVERIFY2(text(show.out).contains(QStringLiteral("Docker Swarm overlay")), show.out.constData());

    setup = cli({QStringLiteral("network"), QStringLiteral("setup")});
    CHECK_EXIT(setup, 1);
    QVERIFY2(text(setup.err).contains(QStringLiteral("no hosts are registered")),
             qPrintable(text(setup.err)));

    setup = cli({QStringLiteral("network"), QStringLiteral("setup"), QStringLiteral("--driver"),
                 QStringLiteral("vxlan")});
    CHECK_EXIT(setup, 0);
    QVERIFY2(text(setup.out).endsWith(QStringLiteral("Settings saved.\n")), setup.out.constData());
    QCOMPARE(shown(), kDefaults);
}

// A value stored by hand (or by another tool) that does not parse: named, with the value, and
// the command that fixes it works.
void TestNetworkCli::storedValueThatDoesNotParse()
{
    {
        auto store = SqliteStore::open(m_dir->filePath(QStringLiteral("state.db")));
        QVERIFY(store);
        QVERIFY((*store)->setSetting(QString::fromLatin1(NetworkSettings::kVxlanPortKey),
                                     QStringLiteral("http")));
        QVERIFY((*store)->setSetting(QString::fromLatin1(NetworkSettings::kVnisKey),
                                     QStringLiteral("9-1")));
    }
    Proc show = cli({QStringLiteral("network"), QStringLiteral("show")});
    CHECK_EXIT(show, 1);
    QVERIFY2(text(show.err).contains(QStringLiteral("setting network.vnis")) &&
                 text(show.err).contains(QStringLiteral("\"9-1\"")),
             show.err.constData());
    // A new pool with the stored VNIs: refused, naming them; nothing written.
    Proc setup = cli({QStringLiteral("network"), QStringLiteral("setup"), QStringLiteral("--pool"),
                      QStringLiteral("10.200.0.0/16")});
    CHECK_EXIT(setup, 1);
    QVERIFY2(text(setup.err).contains(QStringLiteral("network.vnis")), setup.err.constData());
    setup = cli({QStringLiteral("network"), QStringLiteral("setup"), QStringLiteral("--vnis"),
                 QStringLiteral("100-199")});
    CHECK_EXIT(setup, 1); // the port is still bad
    QVERIFY2(text(setup.err).contains(QStringLiteral("setting network.vxlan-port")) &&
                 text(setup.err).contains(QStringLiteral("\"http\"")),
             setup.err.constData());
    setup = cli({QStringLiteral("network"), QStringLiteral("setup"), QStringLiteral("--vxlan-port"),
                 QStringLiteral("4789")});
    CHECK_EXIT(setup, 0);
    QJsonObject expected = kDefaults;
    expected.insert(QStringLiteral("vnis"), QStringLiteral("100-199"));
    QCOMPARE(shown(), expected);
}

void TestNetworkCli::help()
{
    const Proc group = cli({QStringLiteral("network"), QStringLiteral("--help")});
    CHECK_EXIT(group, 0);
    QVERIFY2(text(group.out).contains(QStringLiteral("network setup [--driver vxlan|swarm]")) &&
                 text(group.out).contains(QStringLiteral("network show [--json]")),
             group.out.constData());
    const Proc setup =
        cli({QStringLiteral("network"), QStringLiteral("setup"), QStringLiteral("--help")});
    CHECK_EXIT(setup, 0);
    for (const char *option : {"--driver", "--pool", "--vnis", "--vxlan-port", "--json"})
        QVERIFY2(text(setup.out).contains(QLatin1StringView(option)), setup.out.constData());
    const Proc bare = cli({QStringLiteral("network")});
    CHECK_EXIT(bare, 2);
    QVERIFY2(text(bare.err).contains(QStringLiteral("setup or show")), bare.err.constData());
    const Proc bogus = cli({QStringLiteral("network"), QStringLiteral("bogus")});
    CHECK_EXIT(bogus, 2);
    QVERIFY2(text(bogus.err).contains(QStringLiteral("unknown network subcommand 'bogus'")),
             bogus.err.constData());
}

QTEST_GUILESS_MAIN(TestNetworkCli)
#include "tst_networkcli.moc"
