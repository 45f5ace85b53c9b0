// Docker CLI contexts as hosts (issue 27, item 2): contexts made by the real docker CLI in a
// DOCKER_CONFIG of the test's own are read (endpoint, description, TLS files), mapped to host
// records or refused with what to do, and registered by `host add --context` and
// `host import-contexts` into a SQLite store; the context store is never written. No daemon.

#include "host/dockercontexts.h"
#include "labcli.h"

#include <QCryptographicHash>
#include <QDirIterator>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

#ifndef CLUSTERDECKCTL
#error "CLUSTERDECKCTL must name the clusterdeckctl binary"
#endif

using namespace ClusterDeck;

namespace {

// Every file under `dir` with its content's hash: what "never written" is checked against.
QMap<QString, QByteArray> snapshot(const QString &dir)
{
    QMap<QString, QByteArray> files;
    QDirIterator it(dir, QDir::Files | QDir::Hidden, QDirIterator::Subdirectories);
    while (it.hasNext()) {
        const QString path = it.next();
        QFile f(path);
        if (f.open(QIODevice::ReadOnly))
            files.insert(path, QCryptographicHash::hash(f.readAll(), QCryptographicHash::Sha256));
    }
    return files;
}

} // namespace

class TestDockerContexts : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void reads();
    void hostRecord_data();
    void hostRecord();
    void current();
    void badMetaNamesTheFile();
    void unknownContextListsTheOthers();
    void cliAddAndImport();

private:
    Proc docker(const QStringList &args) const
    {
        return runProcess(QStringLiteral("docker"), args, 60000);
    }
    Proc cli(const QStringList &args) const
    {
        return storeCli(QStringLiteral(CLUSTERDECKCTL),
                        QStringLiteral("sqlite://") + m_dir.filePath(QStringLiteral("state.db")),
                        args, 60000);
    }

    QTemporaryDir m_dir;
    QString m_config; // DOCKER_CONFIG
};

void TestDockerContexts::initTestCase()
{
    QVERIFY(m_dir.isValid());
    if (QStandardPaths::findExecutable(QStringLiteral("docker")).isEmpty())
        QFAIL("the docker CLI is not installed (scripts/setup.sh installs it)");
    m_config = m_dir.filePath(QStringLiteral("docker-config"));
    QVERIFY(QDir().mkpath(m_config));
    qputenv("DOCKER_CONFIG", m_config.toLocal8Bit());
    qunsetenv("DOCKER_CONTEXT");
    qunsetenv("DOCKER_HOST");
    // TLS material for a context (the CLI checks it, then copies it into its store).
    const QString pem = m_dir.filePath(QStringLiteral("cert.pem"));
    const QString key = m_dir.filePath(QStringLiteral("key.pem"));
    const Proc openssl = runProcess(QStringLiteral("openssl"),
                                    {"req", "-x509", "-newkey", "ec", "-pkeyopt",
                                     "ec_paramgen_curve:prime256v1", "-nodes", "-keyout", key,
                                     "-out", pem, "-days", "1", "-subj", "/CN=clusterdeck-test"},
                                    60000);
    QVERIFY2(openssl.exitCode == 0, openssl.err.constData());
    const QList<QStringList> creates = {
        {"sock", "--description", "the lab's h1", "--docker",
         "host=unix:///run/cdlab/h1/docker.sock"},
        {"tlsbox", "--docker",
         "host=tcp://192.168.213.12:2376,ca=" + pem + ",cert=" + pem + ",key=" + key},
        {"plain", "--docker", "host=tcp://192.168.213.13:2375"},
        {"gpu3", "--docker", "host=ssh://admin@gpu3"},
        {"noverify", "--docker", "host=tcp://192.168.213.14:2376,skip-tls-verify=true"},
        {"Bad_Name", "--docker", "host=unix:///run/other.sock"},
    };
    for (const QStringList &c : creates) {
        const Proc p = docker(QStringList{"context", "create"} + c);
        QVERIFY2(p.exitCode == 0, p.err.constData());
    }
}

void TestDockerContexts::reads()
{
    const auto all = DockerContexts::list(m_config);
    QVERIFY2(all, qPrintable(all ? QString() : all.error().toString()));
    QStringList names;
    for (const auto &c : *all)
        names.append(c.name);
    QCOMPARE(names, (QStringList{"Bad_Name", "gpu3", "noverify", "plain", "sock", "tlsbox"}));
    const auto sock = DockerContexts::find(m_config, "sock");
    QVERIFY(sock);
    QCOMPARE(sock->host, "unix:///run/cdlab/h1/docker.sock");
    QCOMPARE(sock->description, "the lab's h1");
    QVERIFY(sock->tlsCa.isEmpty());
    const auto tls = DockerContexts::find(m_config, "tlsbox");
    QVERIFY(tls);
    QVERIFY2(tls->tlsCa.startsWith(m_config + "/contexts/tls/") && QFile::exists(tls->tlsCa),
             qPrintable(tls->tlsCa));
    QVERIFY(QFile::exists(tls->tlsCert) && QFile::exists(tls->tlsKey));
    QVERIFY(DockerContexts::find(m_config, "noverify")->skipTlsVerify);
    // A config folder without contexts: none, no error.
    const auto none = DockerContexts::list(m_dir.filePath("nothing-here"));
    QVERIFY(none && none->isEmpty());
}

void TestDockerContexts::hostRecord_data()
{
    QTest::addColumn<QString>("context");
    QTest::addColumn<QString>("endpoint"); // empty: refused
    QTest::addColumn<QString>("error");
    QTest::newRow("socket") << "sock"
                            << "unix:///run/cdlab/h1/docker.sock"
                            << "";
    QTest::newRow("tcp with TLS files") << "tlsbox"
                                        << "tcp+tls://192.168.213.12:2376"
                                        << "";
    QTest::newRow("tcp without") << "plain"
                                 << "tcp://192.168.213.13:2375"
                                 << "";
    QTest::newRow("ssh") << "gpu3"
                         << "ssh://admin@gpu3"
                         << "";
    QTest::newRow("no verification") << "noverify"
                                     << ""
                                     << "docker context update noverify";
}

void TestDockerContexts::hostRecord()
{
    QFETCH(QString, context);
    QFETCH(QString, endpoint);
    QFETCH(QString, error);
    const auto c = DockerContexts::find(m_config, context);
    QVERIFY(c);
    const auto record = DockerContexts::hostRecord(*c, "h9");
    if (endpoint.isEmpty()) {
        QVERIFY(!record);
        QVERIFY2(record.error().toString().contains(error), qPrintable(record.error().toString()));
        QVERIFY2(record.error().toString().contains(context),
                 qPrintable(record.error().toString()));
        return;
    }
    QVERIFY2(record, qPrintable(record ? QString() : record.error().toString()));
    QCOMPARE(record->name, "h9");
    QCOMPARE(record->endpoint, endpoint);
    QCOMPARE(record->tlsCa, c->tlsCa);
    QCOMPARE(record->tlsKey, c->tlsKey);
}

void TestDockerContexts::current()
{
    QProcessEnvironment env;
    QCOMPARE(DockerContexts::current(m_config, env), "default");
    QCOMPARE(docker({"context", "use", "plain"}).exitCode, 0);
    QCOMPARE(DockerContexts::current(m_config, env), "plain");
    env.insert("DOCKER_CONTEXT", "sock");
    QCOMPARE(DockerContexts::current(m_config, env), "sock");
    QCOMPARE(docker({"context", "use", "default"}).exitCode, 0);
    env.insert("DOCKER_CONFIG", "/somewhere");
    QCOMPARE(DockerContexts::configDir(env), "/somewhere");
}

void TestDockerContexts::badMetaNamesTheFile()
{
    QTemporaryDir dir;
    const QString meta = dir.filePath("contexts/meta/abc");
    QVERIFY(QDir().mkpath(meta));
    QFile f(meta + "/meta.json");
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write("{\"Name\": \"broken\", ");
    f.close();
    const auto all = DockerContexts::list(dir.path());
    QVERIFY(!all);
    QVERIFY2(all.error().toString().contains(meta + "/meta.json"),
             qPrintable(all.error().toString()));
}

void TestDockerContexts::unknownContextListsTheOthers()
{
    const auto c = DockerContexts::find(m_config, "nope");
    QVERIFY(!c);
    QCOMPARE(c.error().kind, Error::Kind::NotFound);
    QVERIFY2(c.error().message.contains("no context \"nope\"") &&
                 c.error().message.contains("gpu3, noverify"),
             qPrintable(c.error().message));
}

void TestDockerContexts::cliAddAndImport()
{
    const auto before = snapshot(m_config);
    Proc p = cli({"host", "add", "h1", "--context", "sock", "--no-check"});
    QVERIFY2(p.exitCode == 0, p.err.constData());
    QVERIFY2(p.out.contains("added host h1 (unix:///run/cdlab/h1/docker.sock)"), p.out.constData());
    p = cli({"host", "add", "h2", "--context", "sock", "--docker", "unix:///x.sock"});
    QCOMPARE(p.exitCode, 2);
    QVERIFY2(p.err.contains("not both"), p.err.constData());
    p = cli({"host", "add", "h3", "--context", "gpu3", "--no-check"});
    QVERIFY2(p.exitCode == 0, p.err.constData());
    QVERIFY2(p.out.contains("added host h3 (ssh://admin@gpu3)"), p.out.constData());

    p = cli({"host", "import-contexts", "--no-check"});
    QVERIFY2(p.exitCode == 0, QByteArray(p.out + p.err).constData());
    const QString out = QString::fromUtf8(p.out);
    for (const char *line :
         {"skipped Bad_Name: ", "skipped gpu3: ssh://admin@gpu3 is registered already as h3",
          "skipped noverify: ", "added host plain (tcp://192.168.213.13:2375)",
          "skipped sock: ", "added host tlsbox (tcp+tls://192.168.213.12:2376)"})
        QVERIFY2(out.contains(QLatin1String(line)), qPrintable(out));
    // Again: everything is registered or unsupported already.
    p = cli({"host", "import-contexts", "--no-check"});
    QCOMPARE(p.exitCode, 0);
    QVERIFY2(!p.out.contains("added"), p.out.constData());
    QVERIFY2(p.out.contains("skipped tlsbox: registered already"), p.out.constData());
    QCOMPARE(snapshot(m_config), before); // only read
}

QTEST_GUILESS_MAIN(TestDockerContexts)
#include "tst_dockercontexts.moc"
