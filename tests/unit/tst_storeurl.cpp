#include "store/storeurl.h"

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>

using namespace ClusterDeck;

class TestStoreUrl : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void parse_data();
    void parse();
    void invalid_data();
    void invalid();
    void resolveOrder_data();
    void resolveOrder();
    void configSuppliesTlsAndCredentials();
    void brokenConfigNamesTheFile();
    void displayHidesPassword();
};

void TestStoreUrl::parse_data()
{
    QTest::addColumn<QString>("url");
    QTest::addColumn<int>("kind");
    QTest::addColumn<QString>("path");
    QTest::addColumn<QStringList>("endpoints");
    QTest::addColumn<QString>("prefix");
    QTest::addColumn<QString>("user");
    QTest::addColumn<QString>("password");
    QTest::addColumn<QStringList>("tlsFiles"); // ca, cert, key

    const int sqlite = int(StoreUrl::Kind::Sqlite);
    const int etcd = int(StoreUrl::Kind::Etcd);
    QTest::newRow("sqlite absolute")
        << "sqlite:///var/lib/cd/state.db" << sqlite << "/var/lib/cd/state.db" << QStringList()
        << QString() << QString() << QString() << QStringList{"", "", ""};
    QTest::newRow("sqlite percent-encoded space")
        << "sqlite:///tmp/my%20dir/state.db" << sqlite << "/tmp/my dir/state.db" << QStringList()
        << QString() << QString() << QString() << QStringList{"", "", ""};
    QTest::newRow("sqlite cleaned")
        << "sqlite:///tmp//a/./state.db" << sqlite << "/tmp/a/state.db" << QStringList()
        << QString() << QString() << QString() << QStringList{"", "", ""};
    QTest::newRow("etcd one host, default port and prefix")
        << "etcd://10.0.0.1" << etcd << QString() << QStringList{"http://10.0.0.1:2379"}
        << "/clusterdeck" << QString() << QString() << QStringList{"", "", ""};
    QTest::newRow("etcd several hosts with prefix")
        << "etcd://h1:2379,h2:22379/team/cd/" << etcd << QString()
        << QStringList{"http://h1:2379", "http://h2:22379"} << "/team/cd" << QString() << QString()
        << QStringList{"", "", ""};
    QTest::newRow("etcd user and password") << "etcd://alice:s%40cret@h1:2379/cd" << etcd
                                            << QString() << QStringList{"http://h1:2379"} << "/cd"
                                            << "alice"
                                            << "s@cret" << QStringList{"", "", ""};
    QTest::newRow("etcd ipv6") << "etcd://[::1]:23790/x" << etcd << QString()
                               << QStringList{"http://[::1]:23790"} << "/x" << QString()
                               << QString() << QStringList{"", "", ""};
    QTest::newRow("etcds with files")
        << "etcds://root:pw@127.0.0.1:23800/cd?ca=/pki/ca.pem&cert=/pki/c.pem&key=/pki/k.pem"
        << etcd << QString() << QStringList{"https://127.0.0.1:23800"} << "/cd"
        << "root"
        << "pw" << QStringList{"/pki/ca.pem", "/pki/c.pem", "/pki/k.pem"};
    QTest::newRow("etcds ca only, upper-case scheme")
        << "ETCDS://h1/cd?ca=/pki/ca.pem" << etcd << QString() << QStringList{"https://h1:2379"}
        << "/cd" << QString() << QString() << QStringList{"/pki/ca.pem", "", ""};
}

void TestStoreUrl::parse()
{
    QFETCH(QString, url);
    QFETCH(int, kind);
    QFETCH(QString, path);
    QFETCH(QStringList, endpoints);
    QFETCH(QString, prefix);
    QFETCH(QString, user);
    QFETCH(QString, password);
    QFETCH(QStringList, tlsFiles);
    auto parsed = StoreUrl::parse(url);
    QVERIFY2(parsed, qPrintable(parsed ? QString() : parsed.error().toString()));
    QCOMPARE(int(parsed->kind), kind);
    QCOMPARE(parsed->path, path);
    QCOMPARE(parsed->endpoints, endpoints);
    QCOMPARE(parsed->prefix, prefix);
    QCOMPARE(parsed->username, user);
    QCOMPARE(parsed->password, password);
    QCOMPARE(parsed->caFile, tlsFiles[0]);
    QCOMPARE(parsed->certFile, tlsFiles[1]);
    QCOMPARE(parsed->keyFile, tlsFiles[2]);
    QCOMPARE(parsed->tls, url.startsWith(u"etcds", Qt::CaseInsensitive));
}

void TestStoreUrl::invalid_data()
{
    QTest::addColumn<QString>("url");
    QTest::addColumn<QString>("message"); // a part of the error an admin reads
    QTest::newRow("empty") << ""
                           << "empty";
    QTest::newRow("no scheme") << "/var/lib/state.db"
                               << "not a URL";
    QTest::newRow("unknown scheme") << "redis://h:6379"
                                    << "unknown scheme \"redis\"";
    QTest::newRow("sqlite relative") << "sqlite://state.db"
                                     << "absolute path";
    QTest::newRow("sqlite folder") << "sqlite:///var/lib/"
                                   << "names a folder";
    QTest::newRow("etcd no host") << "etcd:///prefix"
                                  << "no etcd endpoint";
    QTest::newRow("etcd bad port") << "etcd://h1:99999/p"
                                   << "bad port";
    QTest::newRow("etcd port not a number") << "etcd://h1:abc"
                                            << "bad port";
    QTest::newRow("etcd empty host in list") << "etcd://h1,,h2"
                                             << "empty endpoint";
    QTest::newRow("etcd empty user") << "etcd://:pw@h1"
                                     << "user name";
    QTest::newRow("etcd tls files on plain") << "etcd://h1/p?ca=/ca.pem"
                                             << "use etcds://";
    QTest::newRow("etcds cert without key") << "etcds://h1/p?cert=/c.pem"
                                            << "both cert= and key=";
    QTest::newRow("unknown parameter") << "etcds://h1/p?cafile=/x"
                                       << "unknown parameter \"cafile\"";
    QTest::newRow("empty prefix segment") << "etcd://h1/a//b"
                                          << "empty segment";
}

void TestStoreUrl::invalid()
{
    QFETCH(QString, url);
    QFETCH(QString, message);
    auto parsed = StoreUrl::parse(url);
    QVERIFY(!parsed);
    QCOMPARE(parsed.error().kind, Error::Kind::Invalid);
    QVERIFY2(parsed.error().message.contains(message), qPrintable(parsed.error().toString()));
}

void TestStoreUrl::resolveOrder_data()
{
    QTest::addColumn<QString>("option");
    QTest::addColumn<QString>("env");
    QTest::addColumn<QString>("config"); // store: in config.yaml; empty: no file
    QTest::addColumn<QString>("dataHome");
    QTest::addColumn<QString>("expected"); // display string; "<default>" = under HOME
    QTest::addColumn<QString>("source");

    QTest::newRow("option wins") << "sqlite:///opt/a.db"
                                 << "sqlite:///env.db"
                                 << "sqlite:///cfg.db"
                                 << ""
                                 << "sqlite:///opt/a.db"
                                 << "--store";
    QTest::newRow("then environment") << ""
                                      << "etcd://h1:2379/e"
                                      << "sqlite:///cfg.db"
                                      << ""
                                      << "etcd://h1:2379/e"
                                      << "$CLUSTERDECK_STORE";
    QTest::newRow("then config file") << ""
                                      << ""
                                      << "sqlite:///cfg.db"
                                      << ""
                                      << "sqlite:///cfg.db"
                                      << "config";
    QTest::newRow("then XDG_DATA_HOME") << ""
                                        << ""
                                        << ""
                                        << "/data"
                                        << "sqlite:///data/clusterdeck/state.db"
                                        << "the default";
    QTest::newRow("then ~/.local/share") << ""
                                         << ""
                                         << ""
                                         << ""
                                         << "<default>"
                                         << "the default";
    QTest::newRow("blank option ignored") << "  "
                                          << ""
                                          << ""
                                          << "/data"
                                          << "sqlite:///data/clusterdeck/state.db"
                                          << "the default";
}

void TestStoreUrl::resolveOrder()
{
    QFETCH(QString, option);
    QFETCH(QString, env);
    QFETCH(QString, config);
    QFETCH(QString, dataHome);
    QFETCH(QString, expected);
    QFETCH(QString, source);

    QTemporaryDir home;
    QVERIFY(home.isValid());
    QProcessEnvironment environment;
    environment.insert(QStringLiteral("HOME"), home.path());
    if (!env.isEmpty())
        environment.insert(QStringLiteral("CLUSTERDECK_STORE"), env);
    if (!dataHome.isEmpty())
        environment.insert(QStringLiteral("XDG_DATA_HOME"), dataHome);
    if (!config.isEmpty()) {
        QVERIFY(QDir().mkpath(home.filePath(QStringLiteral(".config/clusterdeck"))));
        QFile file(home.filePath(QStringLiteral(".config/clusterdeck/config.yaml")));
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write("# ClusterDeck\nstore: " + config.toUtf8() + "\n");
    }
    if (expected == u"<default>")
        expected = QStringLiteral("sqlite://") + home.path() +
                   QStringLiteral("/.local/share/clusterdeck/state.db");
    auto url = StoreUrl::resolve(option, environment);
    QVERIFY2(url, qPrintable(url ? QString() : url.error().toString()));
    QCOMPARE(url->toDisplayString(), expected);
    if (source == u"config")
        QVERIFY(url->source.endsWith(QStringLiteral("/.config/clusterdeck/config.yaml")));
    else
        QCOMPARE(url->source, source);
}

void TestStoreUrl::configSuppliesTlsAndCredentials()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    QProcessEnvironment environment;
    environment.insert(QStringLiteral("HOME"), dir.path());
    environment.insert(QStringLiteral("XDG_CONFIG_HOME"), dir.filePath(QStringLiteral("cfg")));
    QVERIFY(QDir().mkpath(dir.filePath(QStringLiteral("cfg/clusterdeck"))));
    QFile file(dir.filePath(QStringLiteral("cfg/clusterdeck/config.yaml")));
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write("store: etcds://h1:2379/cd?ca=/url/ca.pem\n"
               "etcd:\n  ca: /cfg/ca.pem\n  cert: /cfg/cert.pem\n  key: /cfg/key.pem\n"
               "  user: root\n  password: secret\n");
    file.close();
    auto url = StoreUrl::resolve(QString(), environment);
    QVERIFY2(url, qPrintable(url ? QString() : url.error().toString()));
    QCOMPARE(url->caFile, QStringLiteral("/url/ca.pem")); // the URL's own parameter wins
    QCOMPARE(url->certFile, QStringLiteral("/cfg/cert.pem"));
    QCOMPARE(url->keyFile, QStringLiteral("/cfg/key.pem"));
    QCOMPARE(url->username, QStringLiteral("root"));
    QCOMPARE(url->password, QStringLiteral("secret"));

    // A user given in the URL without a password takes the config's password only for that user.
    auto other = StoreUrl::resolve(QStringLiteral("etcd://bob@h1/cd"), environment);
    QVERIFY(other);
    QCOMPARE(other->username, QStringLiteral("bob"));
    QVERIFY(other->password.isEmpty());
    // A plain etcd:// URL takes no TLS files from the config.
    QVERIFY(other->caFile.isEmpty());
}

void TestStoreUrl::brokenConfigNamesTheFile()
{
    QTemporaryDir dir;
    QProcessEnvironment environment;
    environment.insert(QStringLiteral("XDG_CONFIG_HOME"), dir.path());
    QVERIFY(QDir().mkpath(dir.filePath(QStringLiteral("clusterdeck"))));
    QFile file(dir.filePath(QStringLiteral("clusterdeck/config.yaml")));
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write("store: [unclosed\n");
    file.close();
    auto url = StoreUrl::resolve(QString(), environment);
    QVERIFY(!url);
    QVERIFY2(url.error().where.contains(QStringLiteral("clusterdeck/config.yaml:")),
             qPrintable(url.error().toString()));

    // A bad URL says where it came from.
    environment.insert(QStringLiteral("CLUSTERDECK_STORE"), QStringLiteral("nope://x"));
    file.open(QIODevice::WriteOnly | QIODevice::Truncate);
    file.write("store: sqlite:///x.db\n");
    file.close();
    auto bad = StoreUrl::resolve(QString(), environment);
    QVERIFY(!bad);
    QVERIFY2(bad.error().where.contains(QStringLiteral("$CLUSTERDECK_STORE")),
             qPrintable(bad.error().toString()));
}

void TestStoreUrl::displayHidesPassword()
{
    auto url = StoreUrl::parse(QStringLiteral("etcds://root:topsecret@h1:2379,h2/cd"));
    QVERIFY(url);
    QCOMPARE(url->toDisplayString(), QStringLiteral("etcds://root:***@h1:2379,h2:2379/cd"));
}

QTEST_GUILESS_MAIN(TestStoreUrl)
#include "tst_storeurl.moc"
