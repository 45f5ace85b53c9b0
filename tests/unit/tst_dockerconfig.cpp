// Docker-style logins: config.json auths, credsStore and credHelpers through a real helper
// program (tests/data/registry/docker-credential-test) found on PATH, $DOCKER_CONFIG.
#include "registry/dockerconfig.h"
#include "registry/imagepuller.h"

#include <QDir>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>

using namespace ClusterDeck;
using namespace ClusterDeck::Registry;

namespace {

void writeFile(const QString &path, const QByteArray &bytes)
{
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(bytes);
}

QJsonObject readJson(const QString &path)
{
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        return {};
    return QJsonDocument::fromJson(f.readAll()).object();
}

} // namespace

class TestDockerConfig : public QObject
{
    Q_OBJECT

    QTemporaryDir m_tmp;
    QString m_helperStore;
    QByteArray m_oldPath;

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_tmp.isValid());
        // The helper goes on PATH as docker-credential-test, as Docker finds helpers.
        const QString bin = m_tmp.filePath(QStringLiteral("bin"));
        QVERIFY(QDir().mkpath(bin));
        const QString helper = bin + QStringLiteral("/docker-credential-test");
        QVERIFY(QFile::copy(qEnvironmentVariable("CLUSTERDECK_TEST_DATA") +
                                QStringLiteral("/registry/docker-credential-test"),
                            helper));
        QFile::setPermissions(helper, QFileDevice::ReadOwner | QFileDevice::ExeOwner);
        m_oldPath = qgetenv("PATH");
        qputenv("PATH", bin.toLocal8Bit() + ':' + m_oldPath);
    }
    void cleanupTestCase() { qputenv("PATH", m_oldPath); }

    void init()
    {
        m_helperStore = m_tmp.filePath(QStringLiteral("helper-%1").arg(QTest::currentTestFunction()));
        QDir(m_helperStore).removeRecursively();
        qputenv("CD_TEST_HELPER_STORE", m_helperStore.toLocal8Bit());
    }

    void missingFileIsEmpty()
    {
        auto c = DockerConfig::load(m_tmp.filePath(QStringLiteral("nothing-here")));
        QVERIFY(c);
        auto creds = c->credentials(QStringLiteral("r:5000"));
        QVERIFY(creds);
        QVERIFY(!creds->has_value());
        QVERIFY(c->logins()->isEmpty());
    }

    void malformedFileIsAnError()
    {
        const QString dir = m_tmp.filePath(QStringLiteral("bad"));
        QDir().mkpath(dir);
        writeFile(dir + QStringLiteral("/config.json"), "{ not json");
        auto c = DockerConfig::load(dir);
        QVERIFY(!c);
        QVERIFY(c.error().where.contains(QLatin1String("config.json")));
    }

    // A file written by `docker login`: key with https://, base64 auth, other keys kept.
    void readsAuthsLikeDocker_data()
    {
        QTest::addColumn<QString>("key");
        QTest::addColumn<QString>("asked");
        QTest::newRow("plain key") << "r.example:5000" << "r.example:5000";
        QTest::newRow("https key") << "https://r.example:5000" << "r.example:5000";
        QTest::newRow("docker hub") << "https://index.docker.io/v1/" << "docker.io";
    }
    void readsAuthsLikeDocker()
    {
        QFETCH(QString, key);
        QFETCH(QString, asked);
        const QString dir = m_tmp.filePath(QStringLiteral("auths-") + QTest::currentDataTag());
        QDir().mkpath(dir);
        const QJsonObject file{
            {QStringLiteral("auths"),
             QJsonObject{{key, QJsonObject{{QStringLiteral("auth"),
                                            QString::fromLatin1(QByteArray("alice:s3:cr3t").toBase64())}}}}},
            {QStringLiteral("psFormat"), QStringLiteral("table {{.ID}}")},
        };
        writeFile(dir + QStringLiteral("/config.json"), QJsonDocument(file).toJson());
        auto c = DockerConfig::load(dir);
        QVERIFY(c);
        auto creds = c->credentials(asked);
        QVERIFY(creds && creds->has_value());
        QCOMPARE((*creds)->username, QStringLiteral("alice"));
        QCOMPARE((*creds)->password, QStringLiteral("s3:cr3t")); // only the first ':' splits
        QVERIFY(!c->credentials(QStringLiteral("other:5000"))->has_value());
    }

    void dockerConfigEnvironment()
    {
        const QString dir = m_tmp.filePath(QStringLiteral("env-dir"));
        qputenv("DOCKER_CONFIG", dir.toLocal8Bit());
        QCOMPARE(DockerConfig::defaultDirectory(), dir);
        auto c = DockerConfig::load();
        QVERIFY(c);
        QCOMPARE(c->filePath(), dir + QStringLiteral("/config.json"));
        QVERIFY(c->store({QStringLiteral("r:5000"), QStringLiteral("bob"), QStringLiteral("pw"), {}}));
        // A fresh lookup through the environment sees the login.
        auto lookup = ImagePuller::dockerConfigLookup();
        auto creds = lookup(QStringLiteral("r:5000"));
        qunsetenv("DOCKER_CONFIG");
        QVERIFY(creds && creds->has_value());
        QCOMPARE((*creds)->username, QStringLiteral("bob"));
        // Secrets: only the owner reads the file.
        QCOMPARE(QFile::permissions(c->filePath()) &
                     (QFileDevice::ReadGroup | QFileDevice::ReadOther),
                 QFileDevice::Permissions());
    }

    void storeKeepsTheRestAndErases()
    {
        const QString dir = m_tmp.filePath(QStringLiteral("store"));
        QDir().mkpath(dir);
        writeFile(dir + QStringLiteral("/config.json"),
                  "{\"auths\":{\"https://old:5000\":{\"auth\":\"eDp5\"}},\"detachKeys\":\"ctrl-e,e\"}");
        auto c = DockerConfig::load(dir);
        QVERIFY(c);
        QVERIFY(c->store({QStringLiteral("old:5000"), QStringLiteral("carol"), QStringLiteral("new"), {}}));
        const QJsonObject json = readJson(c->filePath());
        QCOMPARE(json.value(QLatin1String("detachKeys")).toString(), QStringLiteral("ctrl-e,e"));
        const QJsonObject auths = json.value(QLatin1String("auths")).toObject();
        QCOMPARE(auths.keys(), QStringList{QStringLiteral("old:5000")}); // one entry, not two
        auto reloaded = DockerConfig::load(dir);
        QCOMPARE((*reloaded->credentials(QStringLiteral("old:5000")))->password, QStringLiteral("new"));
        auto logins = reloaded->logins();
        QVERIFY(logins);
        QCOMPARE(int(logins->size()), 1);
        QCOMPARE(logins->first().username, QStringLiteral("carol"));
        QCOMPARE(logins->first().store, QStringLiteral("config.json"));
        QVERIFY(reloaded->erase(QStringLiteral("https://old:5000/")));
        QVERIFY(!DockerConfig::load(dir)->credentials(QStringLiteral("old:5000"))->has_value());
        auto again = reloaded->erase(QStringLiteral("old:5000"));
        QVERIFY(!again);
        QCOMPARE(again.error().kind, Error::Kind::NotFound);
    }

    // credsStore: the secret goes to the helper; the file only says "logged in".
    void credsStoreHelper()
    {
        const QString dir = m_tmp.filePath(QStringLiteral("credsstore"));
        QDir().mkpath(dir);
        writeFile(dir + QStringLiteral("/config.json"), "{\"credsStore\":\"test\"}");
        auto c = DockerConfig::load(dir);
        QVERIFY(c);
        QVERIFY(!c->credentials(QStringLiteral("r:5000"))->has_value()); // helper: not found
        auto stored = c->store({QStringLiteral("r:5000"), QStringLiteral("dave"), QStringLiteral("hunter2"), {}});
        QVERIFY2(stored, qPrintable(stored ? QString() : stored.error().toString()));
        QFile file(c->filePath());
        QVERIFY(file.open(QIODevice::ReadOnly));
        const QByteArray onDisk = file.readAll();
        QVERIFY(!onDisk.contains("hunter2"));
        QVERIFY(!onDisk.contains(QByteArray("dave:hunter2").toBase64()));
        auto creds = DockerConfig::load(dir)->credentials(QStringLiteral("r:5000"));
        QVERIFY(creds && creds->has_value());
        QCOMPARE((*creds)->username, QStringLiteral("dave"));
        QCOMPARE((*creds)->password, QStringLiteral("hunter2"));
        auto logins = c->logins();
        QVERIFY(logins);
        QCOMPARE(int(logins->size()), 1);
        QCOMPARE(logins->first().username, QStringLiteral("dave"));
        QCOMPARE(logins->first().store, QStringLiteral("docker-credential-test"));
        QVERIFY(c->erase(QStringLiteral("r:5000")));
        QVERIFY(!DockerConfig::load(dir)->credentials(QStringLiteral("r:5000"))->has_value());
        QFile calls(m_helperStore + QStringLiteral("/calls.log"));
        QVERIFY(calls.open(QIODevice::ReadOnly));
        const QByteArray log = calls.readAll();
        for (const char *action : {"get", "store", "list", "erase"})
            QVERIFY2(log.contains(action), action);
    }

    // credHelpers: one registry through the helper, the others from auths.
    void credHelpersPerRegistry()
    {
        const QString dir = m_tmp.filePath(QStringLiteral("credhelpers"));
        QDir().mkpath(dir);
        QDir().mkpath(m_helperStore + QStringLiteral("/creds"));
        writeFile(m_helperStore + QStringLiteral("/creds/helped_5000"),
                  "{\"ServerURL\":\"helped:5000\",\"Username\":\"<token>\",\"Secret\":\"refresh-tok\"}");
        const QByteArray plain = QByteArray("erin:pw").toBase64();
        const QJsonObject file{
            {QStringLiteral("credHelpers"), QJsonObject{{QStringLiteral("helped:5000"), QStringLiteral("test")}}},
            {QStringLiteral("auths"),
             QJsonObject{{QStringLiteral("plain:5000"),
                          QJsonObject{{QStringLiteral("auth"), QString::fromLatin1(plain)}}}}},
        };
        writeFile(dir + QStringLiteral("/config.json"), QJsonDocument(file).toJson());
        auto c = DockerConfig::load(dir);
        QVERIFY(c);
        QCOMPARE(c->helperFor(QStringLiteral("helped:5000")), QStringLiteral("test"));
        QCOMPARE(c->helperFor(QStringLiteral("plain:5000")), QString());
        auto helped = c->credentials(QStringLiteral("helped:5000"));
        QVERIFY(helped && helped->has_value());
        QCOMPARE((*helped)->identityToken, QStringLiteral("refresh-tok")); // "<token>" user
        QVERIFY((*helped)->username.isEmpty());
        auto plainCreds = c->credentials(QStringLiteral("plain:5000"));
        QCOMPARE((*plainCreds)->username, QStringLiteral("erin"));
    }

    void missingHelperIsAnError()
    {
        const QString dir = m_tmp.filePath(QStringLiteral("nohelper"));
        QDir().mkpath(dir);
        writeFile(dir + QStringLiteral("/config.json"), "{\"credsStore\":\"does-not-exist\"}");
        auto creds = DockerConfig::load(dir)->credentials(QStringLiteral("r:5000"));
        QVERIFY(!creds);
        QVERIFY(creds.error().message.contains(QLatin1String("docker-credential-does-not-exist")));
    }
};

QTEST_GUILESS_MAIN(TestDockerConfig)
#include "tst_dockerconfig.moc"
