#include "registry/imagereference.h"
#include "registry/registrycredentials.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QTest>

using namespace ClusterDeck::Registry;

class TestImageReference : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void parse_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("domain");
        QTest::addColumn<QString>("repository");
        QTest::addColumn<QString>("tag");
        QTest::addColumn<QString>("digest");
        QTest::addColumn<QString>("pull");
        QTest::addColumn<QString>("authKey");
        const QString d = QStringLiteral("sha256:") + QString(64, QLatin1Char('a'));
        const QString hub = QStringLiteral("https://index.docker.io/v1/");
        QTest::newRow("official, no tag") << "ubuntu" << "docker.io" << "library/ubuntu" << "latest"
                                          << "" << "ubuntu:latest" << hub;
        QTest::newRow("hub user") << "me/app:2" << "docker.io" << "me/app" << "2" << ""
                                  << "me/app:2" << hub;
        QTest::newRow("registry with port") << "registry.example:5000/team/train:3"
                                            << "registry.example:5000" << "team/train" << "3" << ""
                                            << "registry.example:5000/team/train:3"
                                            << "registry.example:5000";
        QTest::newRow("ip registry, no tag") << "192.168.219.1:5000/clusterdeck/lab"
                                             << "192.168.219.1:5000" << "clusterdeck/lab"
                                             << "latest" << ""
                                             << "192.168.219.1:5000/clusterdeck/lab:latest"
                                             << "192.168.219.1:5000";
        QTest::newRow("localhost") << "localhost/x:1" << "localhost" << "x" << "1" << ""
                                   << "localhost/x:1" << "localhost";
        QTest::newRow("digest wins") << QString("r.io/a/b:1@" + d) << "r.io" << "a/b" << "1" << d
                                     << QString("r.io/a/b@" + d) << "r.io";
        QTest::newRow("digest only") << QString("busybox@" + d) << "docker.io" << "library/busybox"
                                     << "" << d << QString("busybox@" + d) << hub;
    }
    void parse()
    {
        QFETCH(QString, text);
        auto r = ImageReference::parse(text);
        QVERIFY2(r, qPrintable(r ? QString() : r.error().toString()));
        QTEST(r->domain, "domain");
        QTEST(r->repository, "repository");
        QTEST(r->tag, "tag");
        QTEST(r->digest, "digest");
        QTEST(r->pullReference(), "pull");
        QTEST(r->authKey(), "authKey");
    }

    void invalid_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("says");
        QTest::newRow("empty") << "" << "empty";
        QTest::newRow("upper case") << "Team/Train" << "not a valid repository name";
        QTest::newRow("bad tag") << "a:b/c:-x" << "not a valid tag";
        QTest::newRow("bad digest") << "a@sha256:zz" << "not a digest";
    }
    void invalid()
    {
        QFETCH(QString, text);
        QFETCH(QString, says);
        auto r = ImageReference::parse(text);
        QVERIFY(!r);
        QVERIFY2(r.error().message.contains(says), qPrintable(r.error().message));
    }

    void registryKeys_data()
    {
        QTest::addColumn<QString>("written");
        QTest::addColumn<QString>("key");
        QTest::newRow("hub") << "docker.io" << "https://index.docker.io/v1/";
        QTest::newRow("hub url") << "https://index.docker.io/v1/" << "https://index.docker.io/v1/";
        QTest::newRow("https prefix") << "https://r.example:5000/" << "r.example:5000";
        QTest::newRow("plain") << "r.example:5000" << "r.example:5000";
    }
    void registryKeys()
    {
        QFETCH(QString, written);
        QTEST(normalizeRegistryKey(written), "key");
    }

    void registryAuthHeader()
    {
        RegistryCredentials c{QStringLiteral("r:5000"), QStringLiteral("u"),
                              QStringLiteral("p?>+/"), {}};
        const QByteArray header = c.registryAuthHeader();
        QVERIFY(!header.contains('+') && !header.contains('/')); // base64url, as Docker decodes it
        const QJsonObject o = QJsonDocument::fromJson(
                                  QByteArray::fromBase64(header, QByteArray::Base64UrlEncoding))
                                  .object();
        QCOMPARE(o.value(QLatin1String("username")).toString(), QStringLiteral("u"));
        QCOMPARE(o.value(QLatin1String("password")).toString(), QStringLiteral("p?>+/"));
        QCOMPARE(o.value(QLatin1String("serveraddress")).toString(), QStringLiteral("r:5000"));
        c.identityToken = QStringLiteral("tok");
        const QJsonObject t = QJsonDocument::fromJson(QByteArray::fromBase64(
                                                          c.registryAuthHeader(),
                                                          QByteArray::Base64UrlEncoding))
                                  .object();
        QCOMPARE(t.value(QLatin1String("identitytoken")).toString(), QStringLiteral("tok"));
        QVERIFY(!t.contains(QLatin1String("password")));
    }
};

QTEST_GUILESS_MAIN(TestImageReference)
#include "tst_imagereference.moc"
