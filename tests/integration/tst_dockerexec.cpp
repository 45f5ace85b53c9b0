// Docker exec against the real lab: commands run to their exit code, output demultiplexed, and
// interactive TTY sessions over the hijacked connection (unix socket and TLS), with the
// bash → sh fallback (the lab image is busybox: it has no bash) and resize.
// Endpoints come from `eval "$(scripts/lab.sh env)"`; without them the test FAILS.

#include "docker/dockerclient.h"
#include "docker/execstream.h"

#include <QElapsedTimer>
#include <QTest>
#include <QUuid>

using namespace ClusterDeck;
using namespace ClusterDeck::Docker;
using namespace std::chrono_literals;

namespace {

const QString kSessionLabel = QStringLiteral("io.clusterdeck.session");
const QString kImage = QStringLiteral("clusterdeck/lab:latest");

template<typename T>
QByteArray why(const Result<T> &r)
{
    return r ? QByteArray() : r.error().toString().toUtf8();
}

QString env(const QByteArray &name)
{
    return qEnvironmentVariable(name.constData());
}

// Reads from `exec` until `needle` has appeared in what was read (or the stream ends).
QByteArray readUntil(ExecStream &exec, const QByteArray &needle, QByteArray &seen,
                     std::chrono::milliseconds timeout = 10s)
{
    QElapsedTimer timer;
    timer.start();
    while (!seen.contains(needle) && !exec.atEnd() && timer.elapsed() < timeout.count()) {
        auto chunk = exec.read(100ms);
        if (!chunk)
            return "read failed: " + why(chunk);
        seen += *chunk;
    }
    return seen;
}

} // namespace

class TestDockerExec : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void cleanupTestCase();
    void runExec_data();
    void runExec();
    void runExecLargeOutput();
    void runExecInMissingContainer();
    void shellFallsBackToSh_data();
    void shellFallsBackToSh();
    void commandWithStdin();
    void missingCommandFails();

private:
    void endpoints_data();
    std::shared_ptr<const DockerClient> client(bool tls) const { return tls ? m_tls : m_unix; }

    QString m_session;
    QString m_container;
    std::shared_ptr<DockerClient> m_unix;
    std::shared_ptr<DockerClient> m_tls;
};

void TestDockerExec::initTestCase()
{
    const QString unixUrl = env("CLUSTERDECK_LAB_H1_DOCKER");
    const QString tlsUrl = env("CLUSTERDECK_LAB_H1_DOCKER_TLS");
    if (unixUrl.isEmpty() || tlsUrl.isEmpty())
        QFAIL(
            "the lab environment is missing: run `eval \"$(scripts/lab.sh env)\"` with the lab up");
    const TlsFiles tls{env("CLUSTERDECK_LAB_TLS_CA"), env("CLUSTERDECK_LAB_TLS_CERT"),
                       env("CLUSTERDECK_LAB_TLS_KEY")};
    auto u = DockerEndpoint::parse(unixUrl);
    QVERIFY2(u, why(u));
    auto t = DockerEndpoint::parse(tlsUrl, tls);
    QVERIFY2(t, why(t));
    m_unix = std::make_shared<DockerClient>(*u, QStringLiteral("h1"));
    m_tls = std::make_shared<DockerClient>(*t, QStringLiteral("h1"));

    m_session = QUuid::createUuid().toString(QUuid::WithoutBraces);
    ContainerSpec spec;
    spec.name = QStringLiteral("cdtest-%1-exec").arg(m_session.left(8));
    spec.image = kImage;
    spec.labels = {{kSessionLabel, m_session}};
    spec.env = {QStringLiteral("BACKEND_CLUSTER_HOST=worker3")};
    spec.cmd = {QStringLiteral("sleep"), QStringLiteral("3600")};
    auto created = m_unix->createContainer(spec);
    QVERIFY2(created, why(created));
    m_container = created->id;
    auto started = m_unix->startContainer(m_container);
    QVERIFY2(started, why(started));
}

void TestDockerExec::cleanupTestCase()
{
    if (m_unix && !m_container.isEmpty()) {
        auto removed = m_unix->removeContainer(m_container, {true, true});
        if (!removed)
            qWarning("cleanup: %s", why(removed).constData());
    }
}

void TestDockerExec::endpoints_data()
{
    QTest::addColumn<bool>("tls");
    QTest::newRow("unix") << false;
    QTest::newRow("tcp+tls") << true;
}

void TestDockerExec::runExec_data()
{
    endpoints_data();
}

void TestDockerExec::runExec()
{
    QFETCH(bool, tls);
    ExecSpec spec;
    spec.cmd = {QStringLiteral("sh"), QStringLiteral("-c"),
                QStringLiteral("echo out $BACKEND_CLUSTER_HOST $EXTRA; echo err >&2; exit 3")};
    spec.env = {QStringLiteral("EXTRA=given")};
    QByteArray out, err;
    auto code = client(tls)->runExec(m_container, spec, [&](const LogFrame &f) {
        (f.stream == LogFrame::Stream::Stderr ? err : out) += f.data;
        return true;
    });
    QVERIFY2(code, why(code));
    QCOMPARE(*code, 3);
    QCOMPARE(out, QByteArray("out worker3 given\n"));
    QCOMPARE(err, QByteArray("err\n"));
}

void TestDockerExec::runExecLargeOutput()
{
    // 5.9 MB through the demultiplexer: nothing lost, nothing reordered.
    ExecSpec spec;
    spec.cmd = {QStringLiteral("seq"), QStringLiteral("1"), QStringLiteral("800000")};
    QByteArray out;
    auto code = m_tls->runExec(m_container, spec, [&](const LogFrame &f) {
        out += f.data;
        return true;
    });
    QVERIFY2(code, why(code));
    QCOMPARE(*code, 0);
    const QList<QByteArray> lines = out.trimmed().split('\n');
    QCOMPARE(lines.size(), 800000);
    QCOMPARE(lines.first(), QByteArray("1"));
    QCOMPARE(lines.at(399999), QByteArray("400000"));
    QCOMPARE(lines.last(), QByteArray("800000"));
}

void TestDockerExec::runExecInMissingContainer()
{
    ExecSpec spec;
    spec.cmd = {QStringLiteral("true")};
    auto code = m_unix->runExec(QStringLiteral("cdtest-no-such-container"), spec,
                                [](const LogFrame &) { return true; });
    QVERIFY(!code);
    QCOMPARE(code.error().kind, Error::Kind::NotFound);
    QVERIFY2(code.error().where.contains(QLatin1String("h1")), qPrintable(code.error().where));
}

void TestDockerExec::shellFallsBackToSh_data()
{
    endpoints_data();
}

void TestDockerExec::shellFallsBackToSh()
{
    QFETCH(bool, tls);
    ExecStream::Options options;
    options.rows = 24;
    options.cols = 80;
    QElapsedTimer timer;
    timer.start();
    auto exec = ExecStream::open(client(tls), m_container, options);
    QVERIFY2(exec, why(exec));
    qInfo("shell open in %lld ms", timer.elapsed());
    QCOMPARE((*exec)->command(), QStringList{QStringLiteral("sh")}); // busybox: no bash

    QByteArray seen;
    QVERIFY((*exec)->write("echo host=$BACKEND_CLUSTER_HOST; stty size\n"));
    readUntil(**exec, "24 80", seen);
    QVERIFY2(seen.contains("host=worker3"), seen.constData());
    QVERIFY2(seen.contains("24 80"), seen.constData());

    QVERIFY((*exec)->resize(40, 132));
    seen.clear();
    QVERIFY((*exec)->write("stty size\n"));
    readUntil(**exec, "40 132", seen);
    QVERIFY2(seen.contains("40 132"), seen.constData());

    QVERIFY((*exec)->write("exit 7\n"));
    seen.clear();
    QElapsedTimer closing;
    closing.start();
    while (!(*exec)->atEnd() && closing.elapsed() < 10000) {
        auto chunk = (*exec)->read(100ms);
        QVERIFY2(chunk, why(chunk));
    }
    QVERIFY((*exec)->atEnd());
    auto code = (*exec)->exitCode();
    QVERIFY2(code, why(code));
    QCOMPARE(*code, 7);
}

void TestDockerExec::commandWithStdin()
{
    // A given command runs as it is; what is typed reaches it through the TTY.
    ExecStream::Options options;
    options.command = {QStringLiteral("sh"), QStringLiteral("-c"),
                       QStringLiteral("read line; echo got:$line; exit 4")};
    auto exec = ExecStream::open(m_tls, m_container, options);
    QVERIFY2(exec, why(exec));
    QVERIFY((*exec)->write("hello\r"));
    QByteArray seen;
    readUntil(**exec, "got:hello", seen);
    QVERIFY2(seen.contains("got:hello"), seen.constData());
    while (!(*exec)->atEnd())
        QVERIFY((*exec)->read(100ms));
    auto code = (*exec)->exitCode();
    QVERIFY2(code, why(code));
    QCOMPARE(*code, 4);
}

void TestDockerExec::missingCommandFails()
{
    ExecStream::Options options;
    options.command = {QStringLiteral("no-such-program")};
    auto exec = ExecStream::open(m_unix, m_container, options);
    QVERIFY2(exec, why(exec)); // the daemon starts it, the runtime fails it
    QByteArray seen;
    while (!(*exec)->atEnd()) {
        auto chunk = (*exec)->read(100ms);
        QVERIFY2(chunk, why(chunk));
        seen += *chunk;
    }
    QVERIFY2(seen.contains("no-such-program"), seen.constData());
    auto code = (*exec)->exitCode();
    QVERIFY2(code, why(code));
    QVERIFY2(*code == 126 || *code == 127, QByteArray::number(*code).constData());
}

QTEST_GUILESS_MAIN(TestDockerExec)
#include "tst_dockerexec.moc"
