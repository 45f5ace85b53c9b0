// The Docker client against a scripted fake daemon on a unix socket: request building (paths,
// versions, query encoding, bodies), error mapping, log streams and event reconnection, without
// the lab. The fake daemon runs on its own thread because client calls block.

#include "docker/dockerclient.h"
#include "docker/dockereventstream.h"
#include "fakedaemon.h"
#include "http/httptransport.h"

#include <QElapsedTimer>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLocalServer>
#include <QLocalSocket>
#include <QTemporaryDir>
#include <QTest>
#include <QThread>
#include <QUrl>
#include <QUrlQuery>

#include <functional>
#include <mutex>

using namespace ClusterDeck;
using namespace ClusterDeck::Docker;
using namespace ClusterDeck::TestSupport;
using namespace std::chrono_literals;

namespace {

QByteArray eventLine(const QString &action, const QString &id, qint64 timeNano)
{
    QJsonObject actor{
        {QStringLiteral("ID"), id},
        {QStringLiteral("Attributes"),
         QJsonObject{{QStringLiteral("io.clusterdeck.session"), QStringLiteral("s1")}}}};
    QJsonObject o{{QStringLiteral("Type"), QStringLiteral("container")},
                  {QStringLiteral("Action"), action},
                  {QStringLiteral("Actor"), actor},
                  {QStringLiteral("scope"), QStringLiteral("local")},
                  {QStringLiteral("time"), timeNano / 1000000000LL},
                  {QStringLiteral("timeNano"), timeNano}};
    return QJsonDocument(o).toJson(QJsonDocument::Compact) + '\n';
}

// Answers every request but _ping with `chunks` times `chunk`, streamed, without a newline.
Handler endlessYes(const QByteArray &chunk, int chunks)
{
    return [=](const FakeRequest &r) {
        if (r.path == QLatin1String("/_ping"))
            return ping("1.41");
        FakeResponse response;
        for (int i = 0; i < chunks; ++i)
            response.chunks.append(chunk);
        return response;
    };
}

// A daemon with one exec (e1 in container c1): its start answers `startReply` verbatim (head
// included) and closes; its inspect says it exited with `exitCode`.
Handler execDaemon(const QByteArray &startReply, int exitCode)
{
    return [=](const FakeRequest &r) {
        if (r.path == QLatin1String("/_ping"))
            return ping("1.41");
        if (r.path.endsWith(QLatin1String("/containers/c1/exec")))
            return json(201, R"({"Id":"e1"})");
        if (r.path.endsWith(QLatin1String("/exec/e1/start"))) {
            FakeResponse response;
            response.raw = startReply;
            return response;
        }
        if (r.path.endsWith(QLatin1String("/exec/e1/json")))
            return json(200, QStringLiteral(R"({"ID":"e1","Running":false,"ExitCode":%1})")
                                 .arg(exitCode)
                                 .toUtf8());
        return json(404, R"({"message":"no such path"})");
    };
}

} // namespace

class TestDockerRequests : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void init();
    void cleanup();
    void negotiation_data();
    void negotiation();
    void negotiatesOnce();
    void requestBuilding();
    void httpErrors_data();
    void httpErrors();
    void logs();
    void eventsReconnectWithoutLossOrRepeat();
    void cancelWhileWaiting();
    void execOutputArrivingWithTheHead();
    void bodyOverTheCapFails();
    void bodyCapPerRequest_data();
    void bodyCapPerRequest();
    void streamedLogsAreNotCapped();
    void endlessLinesAreNotHeld_data();
    void endlessLinesAreNotHeld();
    void endlessUpgradeHeadIsRefused();
    void credentialsOnlyEncrypted();

private:
    std::unique_ptr<DockerClient> makeClient(const QString &hostName = {}) const;

    std::unique_ptr<QTemporaryDir> m_dir;
    std::unique_ptr<FakeDaemon> m_daemon;
    QString m_socket;
};

void TestDockerRequests::init()
{
    m_dir = std::make_unique<QTemporaryDir>();
    QVERIFY(m_dir->isValid());
    m_socket = m_dir->filePath(QStringLiteral("docker.sock"));
    m_daemon = std::make_unique<FakeDaemon>(m_socket);
    m_daemon->start();
    QVERIFY(m_daemon->waitUntilListening());
}

void TestDockerRequests::cleanup()
{
    m_daemon.reset();
    m_dir.reset();
}

std::unique_ptr<DockerClient> TestDockerRequests::makeClient(const QString &hostName) const
{
    auto endpoint = DockerEndpoint::parse(QStringLiteral("unix://") + m_socket);
    if (!endpoint)
        qFatal("bad endpoint");
    return std::make_unique<DockerClient>(*endpoint, hostName);
}

void TestDockerRequests::negotiation_data()
{
    QTest::addColumn<QByteArray>("pingVersion");
    QTest::addColumn<QByteArray>("versionBody");
    QTest::addColumn<QString>("expected"); // empty: negotiation fails

    QTest::newRow("newer daemon: our maximum") << QByteArray("1.43") << QByteArray() << "1.41";
    QTest::newRow("same") << QByteArray("1.41") << QByteArray() << "1.41";
    QTest::newRow("older daemon: its version") << QByteArray("1.40") << QByteArray() << "1.40";
    QTest::newRow("numeric compare") << QByteArray("1.9") << QByteArray() << "";
    QTest::newRow("no header: ask /version")
        << QByteArray() << QByteArray(R"({"ApiVersion":"1.39","Version":"19.03.15"})") << "1.39";
    QTest::newRow("too old") << QByteArray("1.24") << QByteArray() << "";
}

void TestDockerRequests::negotiation()
{
    QFETCH(QByteArray, pingVersion);
    QFETCH(QByteArray, versionBody);
    QFETCH(QString, expected);
    m_daemon->setHandler([=](const FakeRequest &r) {
        if (r.path == QLatin1String("/_ping"))
            return ping(pingVersion);
        if (r.path == QLatin1String("/version"))
            return json(200, versionBody);
        return json(200, R"({"ID":"x","ServerVersion":"20.10.24","NCPU":2})");
    });
    auto client = makeClient();
    const auto info = client->info();
    if (expected.isEmpty()) {
        QVERIFY(!info);
        QCOMPARE(info.error().kind, Error::Kind::Invalid);
        QVERIFY2(info.error().message.contains(QLatin1String("older than the oldest supported")),
                 qPrintable(info.error().message));
        return;
    }
    QVERIFY2(info, qPrintable(info ? QString() : info.error().toString()));
    QCOMPARE(m_daemon->requests().last().path,
             QStringLiteral("/v") + expected + QStringLiteral("/info"));
}

void TestDockerRequests::negotiatesOnce()
{
    m_daemon->setHandler([](const FakeRequest &r) {
        if (r.path == QLatin1String("/_ping"))
            return ping("1.41");
        return json(200, R"({"ID":"x","ServerVersion":"20.10.24"})");
    });
    auto client = makeClient();
    std::vector<std::thread> threads;
    for (int i = 0; i < 6; ++i)
        threads.emplace_back([&] {
            for (int j = 0; j < 5; ++j)
                QVERIFY(client->info());
        });
    for (auto &t : threads)
        t.join();
    QCOMPARE(m_daemon->count(QStringLiteral("/_ping")), 1);
    QCOMPARE(m_daemon->count(QStringLiteral("/v1.41/info")), 30);
}

void TestDockerRequests::requestBuilding()
{
    m_daemon->setHandler([](const FakeRequest &r) {
        if (r.path == QLatin1String("/_ping"))
            return ping("1.41");
        if (r.path.endsWith(QLatin1String("/containers/create")))
            return json(201, R"({"Id":"c0ffee","Warnings":[]})");
        if (r.path.endsWith(QLatin1String("/containers/json")))
            return json(200, "[]");
        if (r.path.endsWith(QLatin1String("/networks/create")))
            return json(201, R"({"Id":"n1","Warning":""})");
        FakeResponse empty;
        empty.status = 204;
        return empty;
    });
    auto client = makeClient(QStringLiteral("h1"));

    ContainerSpec spec;
    spec.name = QStringLiteral("cd-1a2b-worker7");
    spec.image = QStringLiteral("clusterdeck/lab:latest");
    spec.labels = {{QStringLiteral("io.clusterdeck.session"), QStringLiteral("s1")}};
    const auto created = client->createContainer(spec);
    QVERIFY2(created, qPrintable(created ? QString() : created.error().toString()));
    QCOMPARE(created->id, QStringLiteral("c0ffee"));
    FakeRequest r = m_daemon->requests().last();
    QCOMPARE(r.method, QByteArray("POST"));
    QCOMPARE(r.path, QStringLiteral("/v1.41/containers/create"));
    QCOMPARE(r.queryItem(QStringLiteral("name")), spec.name);
    QCOMPARE(r.headers.value("content-type"), QByteArray("application/json"));
    QCOMPARE(QJsonDocument::fromJson(r.body).object().value(QLatin1String("Image")).toString(),
             spec.image);

    // Label values with '+', '&', '=' and spaces survive the query string.
    const QString label = QStringLiteral("io.clusterdeck.note=a+b & c=d");
    QVERIFY(client->listContainers({true, {label}, {}}));
    r = m_daemon->requests().last();
    QCOMPARE(r.path, QStringLiteral("/v1.41/containers/json"));
    QVERIFY2(!r.query.contains('+') && !r.query.contains(' '), r.query.constData());
    QCOMPARE(r.queryItem(QStringLiteral("all")), QStringLiteral("1"));
    const QJsonObject filters =
        QJsonDocument::fromJson(r.queryItem(QStringLiteral("filters")).toUtf8()).object();
    QCOMPARE(filters.value(QLatin1String("label")).toArray().at(0).toString(), label);

    QVERIFY(client->stopContainer(QStringLiteral("c0ffee"), 5));
    r = m_daemon->requests().last();
    QCOMPARE(r.path, QStringLiteral("/v1.41/containers/c0ffee/stop"));
    QCOMPARE(r.queryItem(QStringLiteral("t")), QStringLiteral("5"));

    QVERIFY(client->removeContainer(QStringLiteral("c0ffee"), {true, false}));
    r = m_daemon->requests().last();
    QCOMPARE(r.method, QByteArray("DELETE"));
    QCOMPARE(r.queryItem(QStringLiteral("force")), QStringLiteral("1"));
    QCOMPARE(r.queryItem(QStringLiteral("v")), QStringLiteral("0"));

    QVERIFY(client->killContainer(QStringLiteral("c0ffee"), QStringLiteral("SIGTERM")));
    QCOMPARE(m_daemon->requests().last().queryItem(QStringLiteral("signal")),
             QStringLiteral("SIGTERM"));

    QVERIFY(
        client->uploadArchive(QStringLiteral("c0ffee"), QStringLiteral("/srv/my files"), "TAR"));
    r = m_daemon->requests().last();
    QCOMPARE(r.method, QByteArray("PUT"));
    QCOMPARE(r.path, QStringLiteral("/v1.41/containers/c0ffee/archive"));
    QCOMPARE(r.queryItem(QStringLiteral("path")), QStringLiteral("/srv/my files"));
    QCOMPARE(r.headers.value("content-type"), QByteArray("application/x-tar"));
    QCOMPARE(r.body, QByteArray("TAR"));

    // Image references keep their slash and tag in the path.
    (void)client->inspectImage(QStringLiteral("clusterdeck/lab:latest"));
    QCOMPARE(m_daemon->requests().last().path,
             QStringLiteral("/v1.41/images/clusterdeck/lab:latest/json"));

    NetworkSpec network;
    network.name = QStringLiteral("cd-1a2b");
    network.driver = QStringLiteral("overlay");
    network.attachable = true;
    QVERIFY(client->createNetwork(network));
    r = m_daemon->requests().last();
    QCOMPARE(QJsonDocument::fromJson(r.body).object().value(QLatin1String("Attachable")).toBool(),
             true);

    QVERIFY(client->leaveSwarm(true));
    r = m_daemon->requests().last();
    QCOMPARE(r.path, QStringLiteral("/v1.41/swarm/leave"));
    QCOMPARE(r.queryItem(QStringLiteral("force")), QStringLiteral("1"));
}

void TestDockerRequests::httpErrors_data()
{
    QTest::addColumn<int>("status");
    QTest::addColumn<QByteArray>("body");
    QTest::addColumn<int>("kind");
    QTest::addColumn<QString>("message");

    QTest::newRow("404 json") << 404 << QByteArray(R"({"message":"No such container: x"})")
                              << int(Error::Kind::NotFound)
                              << "No such container: x (HTTP 404 on GET /containers/x/json)";
    QTest::newRow("409 conflict") << 409 << QByteArray(R"({"message":"is not running"})")
                                  << int(Error::Kind::Conflict)
                                  << "is not running (HTTP 409 on GET /containers/x/json)";
    QTest::newRow("400 invalid") << 400 << QByteArray(R"({"message":"bad parameter"})")
                                 << int(Error::Kind::Invalid)
                                 << "bad parameter (HTTP 400 on GET /containers/x/json)";
    QTest::newRow("500 plain text") << 500 << QByteArray("boom\n") << int(Error::Kind::Http)
                                    << "boom (HTTP 500 on GET /containers/x/json)";
    QTest::newRow("502 empty") << 502 << QByteArray() << int(Error::Kind::Http)
                               << "no message (HTTP 502 on GET /containers/x/json)";
    QTest::newRow("200 undecodable")
        << 200 << QByteArray("<html>proxy</html>") << int(Error::Kind::Decode)
        << "GET /containers/x/json: cannot decode container";
}

void TestDockerRequests::httpErrors()
{
    QFETCH(int, status);
    QFETCH(QByteArray, body);
    QFETCH(int, kind);
    QFETCH(QString, message);
    m_daemon->setHandler([=](const FakeRequest &r) {
        if (r.path == QLatin1String("/_ping"))
            return ping("1.41");
        return json(status, body);
    });
    auto client = makeClient(QStringLiteral("h2"));
    const auto inspected = client->inspectContainer(QStringLiteral("x"));
    QVERIFY(!inspected);
    QCOMPARE(int(inspected.error().kind), kind);
    QCOMPARE(inspected.error().where, QStringLiteral("host h2 (unix://%1)").arg(m_socket));
    QVERIFY2(inspected.error().message.startsWith(message), qPrintable(inspected.error().message));
    if (kind != int(Error::Kind::Decode))
        QCOMPARE(inspected.error().httpStatus, status);
}

void TestDockerRequests::logs()
{
    auto frame = [](char stream, const QByteArray &data) -> QByteArray {
        QByteArray out(8, '\0');
        out[0] = stream;
        out[7] = char(data.size());
        return out + data;
    };
    const QByteArray stream = frame(1, "out1\n") + frame(2, "err1\n") + frame(1, "out2\n");
    m_daemon->setHandler([=](const FakeRequest &r) {
        if (r.path == QLatin1String("/_ping"))
            return ping("1.41");
        FakeResponse response;
        response.headers.append(
            qMakePair(QByteArray("Content-Type"), QByteArray("application/vnd.docker.raw-stream")));
        // Frames split at awkward places across chunks.
        response.chunks = {stream.left(3), stream.mid(3, 10), stream.mid(13)};
        return response;
    });
    auto client = makeClient();
    LogOptions options;
    options.tty = false;
    options.tail = QStringLiteral("100");
    const auto logs = client->containerLogs(QStringLiteral("c1"), options);
    QVERIFY2(logs, qPrintable(logs ? QString() : logs.error().toString()));
    QCOMPARE(logs->stdoutData, QByteArray("out1\nout2\n"));
    QCOMPARE(logs->stderrData, QByteArray("err1\n"));
    QCOMPARE(logs->frames.size(), 3);
    const FakeRequest r = m_daemon->requests().last();
    QCOMPARE(r.path, QStringLiteral("/v1.41/containers/c1/logs"));
    QCOMPARE(r.queryItem(QStringLiteral("tail")), QStringLiteral("100"));
    QVERIFY(r.queryItem(QStringLiteral("follow")).isEmpty());
}

void TestDockerRequests::bodyOverTheCapFails()
{
    // A daemon (or something posing as one) that answers with more than 64 MiB.
    const QByteArray huge(int(Http::HttpRequest::kDefaultMaxBodyBytes + 1024 * 1024), '[');
    m_daemon->setHandler([&huge](const FakeRequest &r) {
        if (r.path == QLatin1String("/_ping"))
            return ping("1.41");
        if (r.path.endsWith(QLatin1String("/containers/json")))
            return json(200, huge);
        return json(200, R"({"Id":"c1","Name":"/c1","State":{"Running":true},"Config":{}})");
    });
    auto client = makeClient(QStringLiteral("h9"));
    const auto listed = client->listContainers();
    QVERIFY(!listed);
    const QString text = listed.error().toString();
    QVERIFY2(text.contains(QLatin1String("h9")), qPrintable(text));
    QVERIFY2(text.contains(QLatin1String("/v1.41/containers/json")), qPrintable(text));
    QVERIFY2(text.contains(QLatin1String("exceeds the limit of 64.0 MiB")), qPrintable(text));
    // The client stays usable (the aborted connection is not reused).
    const auto inspected = client->inspectContainer(QStringLiteral("c1"));
    QVERIFY2(inspected, qPrintable(inspected ? QString() : inspected.error().toString()));
}

void TestDockerRequests::bodyCapPerRequest_data()
{
    QTest::addColumn<qint64>("cap");
    QTest::addColumn<int>("bodySize");
    QTest::addColumn<bool>("ok");
    QTest::newRow("under the cap") << qint64(4096) << 4096 << true;
    QTest::newRow("one byte over") << qint64(4096) << 4097 << false;
    QTest::newRow("a tiny cap") << qint64(1) << 100000 << false;
    QTest::newRow("a cap above the default, for this request")
        << qint64(80) * 1024 * 1024 << 65 * 1024 * 1024 << true;
    QTest::newRow("no cap (0)") << qint64(0) << 3 * 1024 * 1024 << true;
}

void TestDockerRequests::bodyCapPerRequest()
{
    QFETCH(qint64, cap);
    QFETCH(int, bodySize);
    QFETCH(bool, ok);
    const QByteArray body(bodySize, 'x');
    m_daemon->setHandler([&body](const FakeRequest &) { return json(200, body); });
    Http::TransportConfig config;
    config.baseUrl = QStringLiteral("http://localhost");
    config.unixSocketPath = m_socket;
    config.displayName = QStringLiteral("loopback");
    Http::HttpTransport transport(config);
    Http::HttpRequest request;
    request.path = QStringLiteral("/big");
    request.maxBodyBytes = cap;
    const auto response = transport.perform(request);
    QCOMPARE(bool(response), ok);
    if (ok) {
        QCOMPARE(response->body.size(), qsizetype(bodySize));
    } else {
        QCOMPARE(response.error().where, QStringLiteral("loopback"));
        QVERIFY2(response.error().message.contains(QLatin1String("GET /big")),
                 qPrintable(response.error().toString()));
        QVERIFY2(response.error().message.contains(QLatin1String("exceeds the limit")),
                 qPrintable(response.error().toString()));
    }
}

void TestDockerRequests::streamedLogsAreNotCapped()
{
    // Logs stream frame by frame: no cap, nothing collected.
    const QByteArray chunk(1024 * 1024, 'y');
    const int chunks = 70;
    m_daemon->setHandler(endlessYes(chunk, chunks));
    auto client = makeClient();
    LogOptions options;
    options.tty = true;
    qint64 received = 0;
    const auto ok = client->readLogs(QStringLiteral("c1"), options, [&](const LogFrame &f) {
        received += f.data.size();
        return true;
    });
    QVERIFY2(ok, qPrintable(ok ? QString() : ok.error().toString()));
    QCOMPARE(received, qint64(chunks) * chunk.size());
}

// A daemon that sends 70 MiB without a newline (issue 24 D.9): the event and stats streams end
// with an error naming the limit instead of holding the line, and collected logs (a kernel's
// last lines) keep only their last MiB.
void TestDockerRequests::endlessLinesAreNotHeld_data()
{
    QTest::addColumn<QString>("call");
    QTest::addColumn<QString>("error"); // empty: succeeds
    QTest::newRow("stats") << "stats"
                           << "a line of the stats stream longer than 4 MiB";
    QTest::newRow("events") << "events"
                            << "a line of the events stream longer than 4 MiB";
    QTest::newRow("collected logs") << "logs"
                                    << "";
}

void TestDockerRequests::endlessLinesAreNotHeld()
{
    QFETCH(QString, call);
    QFETCH(QString, error);
    const QByteArray chunk(1024 * 1024, 'y');
    constexpr int kChunks = 70;
    m_daemon->setHandler(endlessYes(chunk, kChunks));
    auto client = makeClient();
    CallOptions options;
    options.timeout = 30s;
    Result<void> done;
    if (call == u"stats") {
        done = client->streamStats(
            QStringLiteral("c1"), true, [](const ContainerStats &) { return true; }, options);
    } else if (call == u"events") {
        done = client->streamEvents(
            EventFilter{}, std::nullopt, std::nullopt, [](const DockerEvent &) { return true; },
            options);
    } else {
        LogOptions logs;
        logs.tty = true;
        const auto collected = client->containerLogs(QStringLiteral("c1"), logs, options);
        QVERIFY2(collected, qPrintable(collected ? QString() : collected.error().toString()));
        QCOMPARE(collected->stdoutData.size(), ContainerLogs::kMaxBytes);
        qsizetype framed = 0;
        for (const LogFrame &f : collected->frames)
            framed += f.data.size();
        QVERIFY(framed <= ContainerLogs::kMaxBytes);
        QCOMPARE(collected->droppedBytes + framed, qint64(kChunks) * chunk.size());
        return;
    }
    QVERIFY(!done);
    QVERIFY2(done.error().toString().contains(error), qPrintable(done.error().toString()));
    QCOMPARE(done.error().kind, Error::Kind::Decode);
}

// An exec's upgraded reply whose head never ends is refused once it passes 64 KiB.
void TestDockerRequests::endlessUpgradeHeadIsRefused()
{
    m_daemon->setHandler(
        execDaemon("HTTP/1.1 101 UPGRADED\r\nX-Padding: " + QByteArray(1 << 20, 'p'), 0));
    auto client = makeClient();
    ExecSpec spec;
    spec.cmd = {QStringLiteral("true")};
    CallOptions options;
    options.timeout = 10s;
    const auto code = client->runExec(
        QStringLiteral("c1"), spec, [](const LogFrame &) { return true; }, options);
    QVERIFY(!code);
    QVERIFY2(code.error().toString().contains(QStringLiteral("the reply head does not end within "
                                                             "64 KiB")),
             qPrintable(code.error().toString()));
}

void TestDockerRequests::execOutputArrivingWithTheHead()
{
    // A fast command (`echo`): the daemon sends the upgraded head, the whole output and the
    // close at once. The output must still be read (CI lost it: 12 of 13 lines from `exec`).
    auto frame = [](char stream, const QByteArray &data) -> QByteArray {
        QByteArray out(8, '\0');
        out[0] = stream;
        out[7] = char(data.size());
        return out + data;
    };
    m_daemon->setHandler(execDaemon("HTTP/1.1 101 UPGRADED\r\n"
                                    "Content-Type: application/vnd.docker.raw-stream\r\n"
                                    "Connection: Upgrade\r\nUpgrade: tcp\r\n\r\n" +
                                        frame(1, "worker7\n") + frame(2, "note\n"),
                                    3));
    auto client = makeClient();
    ExecSpec spec;
    spec.cmd = {QStringLiteral("sh"), QStringLiteral("-c"), QStringLiteral("echo $HOSTNAME")};
    QByteArray out, err;
    CallOptions options;
    options.timeout = 10s;
    const auto code = client->runExec(
        QStringLiteral("c1"), spec,
        [&](const LogFrame &f) {
            (f.stream == LogFrame::Stream::Stderr ? err : out) += f.data;
            return true;
        },
        options);
    QVERIFY2(code, qPrintable(code ? QString() : code.error().toString()));
    QCOMPARE(*code, 3);
    QCOMPARE(out, QByteArray("worker7\n"));
    QCOMPARE(err, QByteArray("note\n"));
}

void TestDockerRequests::eventsReconnectWithoutLossOrRepeat()
{
    constexpr qint64 kStart = 1700000000000000000LL;
    const qint64 t1 = kStart + 1000;
    const qint64 t2 = kStart + 2000;
    const qint64 t3 = kStart + 3000;
    std::atomic_int connections{0};
    m_daemon->setHandler([&](const FakeRequest &r) {
        if (r.path == QLatin1String("/_ping"))
            return ping("1.41");
        FakeResponse response;
        response.headers.append(
            qMakePair(QByteArray("Content-Type"), QByteArray("application/json")));
        if (++connections == 1) {
            // Two events, the second split across chunks, then the connection drops.
            const QByteArray second = eventLine(QStringLiteral("start"), QStringLiteral("c1"), t2);
            response.chunks = {eventLine(QStringLiteral("create"), QStringLiteral("c1"), t1),
                               second.left(20), second.mid(20)};
            response.end = FakeResponse::End::Abort;
        } else {
            // `since` is inclusive: the daemon replays the newest seen event; it must not repeat.
            response.chunks = {eventLine(QStringLiteral("start"), QStringLiteral("c1"), t2),
                               eventLine(QStringLiteral("die"), QStringLiteral("c1"), t3)};
            response.end = FakeResponse::End::KeepOpen;
        }
        return response;
    });

    std::shared_ptr<const DockerClient> client = makeClient();
    EventFilter filter;
    filter.labels = {QStringLiteral("io.clusterdeck.session=s1")};
    filter.types = {QStringLiteral("container")};
    DockerEventStream stream(client, filter);
    stream.setReconnectDelay(10ms, 100ms);
    std::mutex mutex;
    QStringList seen;
    stream.setCallback([&](const DockerEvent &e) {
        std::lock_guard lock(mutex);
        seen.append(e.action);
    });
    stream.start(kStart);
    QTRY_COMPARE_WITH_TIMEOUT(
        [&] {
            std::lock_guard lock(mutex);
            return seen;
        }(),
        (QStringList{QStringLiteral("create"), QStringLiteral("start"), QStringLiteral("die")}),
        5000);
    QCOMPARE(stream.lastEventTimeNano(), t3);
    stream.stop();

    QList<FakeRequest> events;
    for (const FakeRequest &r : m_daemon->requests()) {
        if (r.path == QLatin1String("/v1.41/events"))
            events.append(r);
    }
    QCOMPARE(events.size(), 2);
    QCOMPARE(events.at(0).queryItem(QStringLiteral("since")),
             DockerClient::formatEventTime(kStart));
    QCOMPARE(events.at(1).queryItem(QStringLiteral("since")), DockerClient::formatEventTime(t2));
    const QJsonObject filters =
        QJsonDocument::fromJson(events.at(0).queryItem(QStringLiteral("filters")).toUtf8())
            .object();
    QCOMPARE(filters.value(QLatin1String("label")).toArray().at(0).toString(),
             QStringLiteral("io.clusterdeck.session=s1"));
    QCOMPARE(filters.value(QLatin1String("type")).toArray().at(0).toString(),
             QStringLiteral("container"));
}

void TestDockerRequests::cancelWhileWaiting()
{
    m_daemon->setHandler([](const FakeRequest &r) {
        if (r.path == QLatin1String("/_ping"))
            return ping("1.41");
        FakeResponse never;
        never.silent = true; // the daemon hangs
        return never;
    });
    auto client = makeClient();
    QVERIFY(client->ping());

    // A hung daemon: the call's own timeout ends it.
    QElapsedTimer timer;
    timer.start();
    CallOptions shortCall;
    shortCall.timeout = 300ms;
    const auto timedOut = client->info(shortCall);
    QVERIFY(!timedOut);
    QCOMPARE(timedOut.error().kind, Error::Kind::Timeout);
    QVERIFY(timer.elapsed() < 2000);

    // ...or another thread cancels it.
    CallOptions options;
    options.timeout = 0ms;
    std::thread canceller([token = options.cancel] {
        std::this_thread::sleep_for(200ms);
        token.cancel();
    });
    timer.restart();
    const auto cancelled = client->info(options);
    canceller.join();
    QVERIFY(!cancelled);
    QCOMPARE(cancelled.error().kind, Error::Kind::Cancelled);
    QVERIFY(timer.elapsed() < 2500);
}

// Issue 24 D.7: registry credentials never go to a daemon over plain tcp:// — refused before
// anything is sent — unless CLUSTERDECK_ALLOW_PLAINTEXT_CREDENTIALS=1 allows it (then the client
// does try, and here finds nothing listening).
void TestDockerRequests::credentialsOnlyEncrypted()
{
    qunsetenv("CLUSTERDECK_ALLOW_PLAINTEXT_CREDENTIALS");
    auto endpoint = DockerEndpoint::parse(QStringLiteral("tcp://127.0.0.1:9"));
    QVERIFY(endpoint);
    DockerClient plain(*endpoint, QStringLiteral("plain"));
    CallOptions call;
    call.timeout = 2s;
    auto auth = plain.checkAuth(QStringLiteral("registry.example"), QStringLiteral("alice"),
                                QStringLiteral("secret"), call);
    QVERIFY(!auth);
    QCOMPARE(auth.error().kind, Error::Kind::Invalid);
    QVERIFY2(auth.error().message.contains(QStringLiteral("refusing to send registry credentials")),
             qPrintable(auth.error().toString()));
    ImagePullSpec pull;
    pull.fromImage = QStringLiteral("registry.example/private/image");
    pull.registryAuth = "eyJ1c2VybmFtZSI6ImFsaWNlIn0=";
    auto pulled = plain.pullImage(pull, {}, call);
    QVERIFY(!pulled);
    QCOMPARE(pulled.error().kind, Error::Kind::Invalid);
    // A pull without credentials is no secret: it goes (and finds nothing listening).
    pull.registryAuth.clear();
    QCOMPARE(plain.pullImage(pull, {}, call).error().kind, Error::Kind::Transport);

    qputenv("CLUSTERDECK_ALLOW_PLAINTEXT_CREDENTIALS", "1");
    auth = plain.checkAuth(QStringLiteral("registry.example"), QStringLiteral("alice"),
                           QStringLiteral("secret"), call);
    qunsetenv("CLUSTERDECK_ALLOW_PLAINTEXT_CREDENTIALS");
    QVERIFY(!auth);
    QCOMPARE(auth.error().kind, Error::Kind::Transport);

    // Over the unix socket they go.
    m_daemon->setHandler([](const FakeRequest &r) {
        if (r.path == QLatin1String("/_ping"))
            return ping("1.41");
        return json(200, R"({"Status":"Login Succeeded"})");
    });
    auto overUnix =
        makeClient()->checkAuth(QStringLiteral("registry.example"), QStringLiteral("alice"),
                                QStringLiteral("secret"), call);
    QVERIFY2(overUnix, qPrintable(overUnix ? QString() : overUnix.error().toString()));
}

QTEST_GUILESS_MAIN(TestDockerRequests)
#include "tst_dockerrequests.moc"
