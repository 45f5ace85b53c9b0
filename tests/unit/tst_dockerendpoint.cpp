#include "docker/dockerendpoint.h"

#include <QTest>

using namespace ClusterDeck;
using namespace ClusterDeck::Docker;

class TestDockerEndpoint : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void parse_data();
    void parse();
    void fromEnvironment_data();
    void fromEnvironment();
    void transportConfig();
    void displayName();
};

void TestDockerEndpoint::parse_data()
{
    QTest::addColumn<QString>("input");
    QTest::addColumn<bool>("withTls");
    QTest::addColumn<bool>("ok");
    QTest::addColumn<int>("kind");
    QTest::addColumn<QString>("url");
    QTest::addColumn<QString>("errorPart");

    const int unix_ = int(DockerEndpoint::Kind::Unix);
    const int tcp = int(DockerEndpoint::Kind::Tcp);
    const int tls = int(DockerEndpoint::Kind::TcpTls);
    QTest::newRow("unix") << "unix:///run/cdlab/h1/docker.sock" << false << true << unix_
                          << "unix:///run/cdlab/h1/docker.sock"
                          << "";
    QTest::newRow("unix cleaned") << "unix:///run//docker.sock" << false << true << unix_
                                  << "unix:///run/docker.sock"
                                  << "";
    QTest::newRow("bare socket path")
        << "/var/run/docker.sock" << false << true << unix_ << "unix:///var/run/docker.sock"
        << "";
    QTest::newRow("unix relative") << "unix://docker.sock" << false << false << 0 << ""
                                   << "absolute";
    QTest::newRow("tcp") << "tcp://192.168.213.11:2375" << false << true << tcp
                         << "tcp://192.168.213.11:2375"
                         << "";
    QTest::newRow("tcp default port") << "tcp://h1" << false << true << tcp << "tcp://h1:2375"
                                      << "";
    QTest::newRow("tcp trailing slash")
        << "tcp://h1:2375/" << false << true << tcp << "tcp://h1:2375"
        << "";
    QTest::newRow("tcp with certs is tls")
        << "tcp://192.168.213.11:2376" << true << true << tls << "tcp+tls://192.168.213.11:2376"
        << "";
    QTest::newRow("tcp+tls") << "tcp+tls://192.168.213.11:2376" << true << true << tls
                             << "tcp+tls://192.168.213.11:2376"
                             << "";
    QTest::newRow("tcp+tls default port")
        << "tcp+tls://h2" << false << true << tls << "tcp+tls://h2:2376"
        << "";
    QTest::newRow("https synonym")
        << "https://h3:2376" << true << true << tls << "tcp+tls://h3:2376"
        << "";
    QTest::newRow("ipv6") << "tcp://[fd00::11]:2375" << false << true << tcp
                          << "tcp://[fd00::11]:2375"
                          << "";
    QTest::newRow("upper-case scheme") << "TCP://h1:2375" << false << true << tcp << "tcp://h1:2375"
                                       << "";
    QTest::newRow("spaces trimmed") << "  tcp://h1:2375 " << false << true << tcp << "tcp://h1:2375"
                                    << "";
    QTest::newRow("empty") << "" << false << false << 0 << ""
                           << "empty";
    QTest::newRow("no scheme") << "h1:2375" << false << false << 0 << ""
                               << "expected";
    const int ssh = int(DockerEndpoint::Kind::Ssh);
    QTest::newRow("ssh") << "ssh://admin@gpu3" << false << true << ssh << "ssh://admin@gpu3"
                         << "";
    QTest::newRow("ssh port") << "ssh://admin@gpu3:2222" << false << true << ssh
                              << "ssh://admin@gpu3:2222"
                              << "";
    QTest::newRow("ssh no user") << "ssh://gpu3" << false << true << ssh << "ssh://gpu3"
                                 << "";
    QTest::newRow("ssh default socket spelled out")
        << "ssh://admin@gpu3/var/run/docker.sock" << false << true << ssh << "ssh://admin@gpu3"
        << "";
    QTest::newRow("ssh rootless socket")
        << "ssh://admin@gpu3/run/user/1000/docker.sock" << false << true << ssh
        << "ssh://admin@gpu3/run/user/1000/docker.sock"
        << "";
    QTest::newRow("ssh ipv6") << "ssh://root@[fd00::11]:22" << false << true << ssh
                              << "ssh://root@[fd00::11]:22"
                              << "";
    QTest::newRow("ssh password") << "ssh://admin:secret@gpu3" << false << false << 0 << ""
                                  << "no password";
    QTest::newRow("ssh bad port") << "ssh://admin@gpu3:70000" << false << false << 0 << ""
                                  << "";
    QTest::newRow("ssh query") << "ssh://admin@gpu3?x=1" << false << false << 0 << ""
                               << "query";
    QTest::newRow("npipe unsupported")
        << "npipe:////./pipe/docker_engine" << false << false << 0 << ""
        << "unsupported scheme";
    QTest::newRow("bad port") << "tcp://h1:99999" << false << false << 0 << ""
                              << "";
    QTest::newRow("path") << "tcp://h1:2375/v1.41" << false << false << 0 << ""
                          << "unexpected path";
    QTest::newRow("no host") << "tcp://:2375" << false << false << 0 << ""
                             << "host";
}

void TestDockerEndpoint::parse()
{
    QFETCH(QString, input);
    QFETCH(bool, withTls);
    QFETCH(bool, ok);
    QFETCH(int, kind);
    QFETCH(QString, url);
    QFETCH(QString, errorPart);

    TlsFiles tls;
    if (withTls)
        tls = {QStringLiteral("/pki/ca.pem"), QStringLiteral("/pki/cert.pem"),
               QStringLiteral("/pki/key.pem")};
    const auto endpoint = DockerEndpoint::parse(input, tls);
    QCOMPARE(endpoint.has_value(), ok);
    if (!ok) {
        QCOMPARE(endpoint.error().kind, Error::Kind::Invalid);
        QVERIFY2(endpoint.error().where.contains(input.trimmed()),
                 qPrintable(endpoint.error().where));
        QVERIFY2(endpoint.error().message.contains(errorPart),
                 qPrintable(endpoint.error().message));
        return;
    }
    QCOMPARE(int(endpoint->kind()), kind);
    QCOMPARE(endpoint->url(), url);
    QVERIFY(endpoint->isValid());
    if (endpoint->kind() == DockerEndpoint::Kind::TcpTls && withTls)
        QCOMPARE(endpoint->tls().caFile, QStringLiteral("/pki/ca.pem"));
}

void TestDockerEndpoint::fromEnvironment_data()
{
    QTest::addColumn<QStringList>("env");
    QTest::addColumn<QString>("url");
    QTest::addColumn<QString>("caFile");

    QTest::newRow("nothing set") << QStringList{} << "unix:///var/run/docker.sock"
                                 << "";
    QTest::newRow("DOCKER_HOST unix") << QStringList{"DOCKER_HOST=unix:///run/cdlab/h2/docker.sock"}
                                      << "unix:///run/cdlab/h2/docker.sock"
                                      << "";
    QTest::newRow("tcp without verify")
        << QStringList{"DOCKER_HOST=tcp://192.168.213.12:2375"} << "tcp://192.168.213.12:2375"
        << "";
    QTest::newRow("tls verify with cert path")
        << QStringList{"DOCKER_HOST=tcp://192.168.213.12:2376", "DOCKER_TLS_VERIFY=1",
                       "DOCKER_CERT_PATH=/etc/cd/pki"}
        << "tcp+tls://192.168.213.12:2376"
        << "/etc/cd/pki/ca.pem";
    QTest::newRow("tls verify default cert path")
        << QStringList{"DOCKER_HOST=tcp://h1:2376", "DOCKER_TLS_VERIFY=yes", "HOME=/home/admin"}
        << "tcp+tls://h1:2376"
        << "/home/admin/.docker/ca.pem";
    QTest::newRow("empty verify is off")
        << QStringList{"DOCKER_HOST=tcp://h1:2375",
                       "DOCKER_TLS_VERIFY=", "DOCKER_CERT_PATH=/etc/cd/pki"}
        << "tcp://h1:2375"
        << "";
}

void TestDockerEndpoint::fromEnvironment()
{
    QFETCH(QStringList, env);
    QFETCH(QString, url);
    QFETCH(QString, caFile);

    QProcessEnvironment environment;
    for (const QString &item : env) {
        const qsizetype eq = item.indexOf(u'=');
        environment.insert(item.left(eq), item.mid(eq + 1));
    }
    const auto endpoint = DockerEndpoint::fromEnvironment(environment);
    QVERIFY2(endpoint.has_value(), qPrintable(endpoint ? QString() : endpoint.error().toString()));
    QCOMPARE(endpoint->url(), url);
    QCOMPARE(endpoint->tls().caFile, caFile);
    if (!caFile.isEmpty())
        QVERIFY(endpoint->tls().keyFile.endsWith(QLatin1String("/key.pem")));
}

void TestDockerEndpoint::transportConfig()
{
    const auto unixEndpoint =
        DockerEndpoint::parse(QStringLiteral("unix:///run/cdlab/h1/docker.sock"));
    QVERIFY(unixEndpoint);
    const Http::TransportConfig u = unixEndpoint->transportConfig(QStringLiteral("h1"));
    QCOMPARE(u.unixSocketPath, QStringLiteral("/run/cdlab/h1/docker.sock"));
    QCOMPARE(u.baseUrl, QStringLiteral("http://localhost"));
    QCOMPARE(u.displayName, QStringLiteral("host h1 (unix:///run/cdlab/h1/docker.sock)"));

    const auto tlsEndpoint = DockerEndpoint::parse(
        QStringLiteral("tcp+tls://192.168.213.11:2376"),
        {QStringLiteral("/ca.pem"), QStringLiteral("/cert.pem"), QStringLiteral("/key.pem")});
    QVERIFY(tlsEndpoint);
    const Http::TransportConfig t = tlsEndpoint->transportConfig();
    QCOMPARE(t.baseUrl, QStringLiteral("https://192.168.213.11:2376"));
    QVERIFY(t.unixSocketPath.isEmpty());
    QCOMPARE(t.caFile, QStringLiteral("/ca.pem"));
    QCOMPARE(t.certFile, QStringLiteral("/cert.pem"));
    QCOMPARE(t.keyFile, QStringLiteral("/key.pem"));
    QVERIFY(t.verifyPeer);

    const auto v6 = DockerEndpoint::parse(QStringLiteral("tcp://[fd00::1]:2375"));
    QVERIFY(v6);
    QCOMPARE(v6->transportConfig().baseUrl, QStringLiteral("http://[fd00::1]:2375"));

    // A certificate without its key is a configuration mistake, caught early.
    const auto halfTls = DockerEndpoint::parse(QStringLiteral("tcp+tls://h1:2376"),
                                               {QString(), QStringLiteral("/cert.pem"), QString()});
    QVERIFY(!halfTls);
    QVERIFY(halfTls.error().message.contains(QLatin1String("key")));
}

void TestDockerEndpoint::displayName()
{
    const auto endpoint = DockerEndpoint::parse(QStringLiteral("tcp+tls://192.168.213.11:2376"));
    QVERIFY(endpoint);
    QCOMPARE(endpoint->displayName(QStringLiteral("h1")),
             QStringLiteral("host h1 (tcp+tls://192.168.213.11:2376)"));
    QCOMPARE(endpoint->displayName(), QStringLiteral("docker (tcp+tls://192.168.213.11:2376)"));
}

QTEST_GUILESS_MAIN(TestDockerEndpoint)
#include "tst_dockerendpoint.moc"
