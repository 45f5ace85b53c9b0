// A LogFollower may be deleted while its thread streams (issue 14, item 7): the thread holds only
// the state it shares with the follower, and the destructor cancels and waits. Against a loopback
// fake daemon on a unix socket whose log stream never ends, so the thread is always mid-stream.

#include "host/hostregistry.h"
#include "common/labels.h"
#include "provision/sessioncontroller.h"
#include "sessions/logfollower.h"
#include "store/sqlitestore.h"

#include <QElapsedTimer>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLocalServer>
#include <QLocalSocket>
#include <QPointer>
#include <QTemporaryDir>
#include <QTest>
#include <QThread>
#include <QTimer>

#include <atomic>
#include <condition_variable>
#include <mutex>

using namespace ClusterDeck;
using namespace std::chrono_literals;

// Answers _ping, a container inspect (TTY, running) and a logs request whose chunked body sends a
// line every 20 ms until the client goes away.
class EndlessLogsDaemon : public QThread
{
public:
    EndlessLogsDaemon(QString socketPath, QByteArray inspectBody)
        : m_socketPath(std::move(socketPath))
        , m_inspectBody(std::move(inspectBody))
    {}
    ~EndlessLogsDaemon() override
    {
        quit();
        wait();
    }
    bool waitUntilListening()
    {
        std::unique_lock lock(m_mutex);
        return m_ready.wait_for(lock, 5s, [this] { return m_listening; });
    }
    int openStreams() const { return m_openStreams.load(); }
    int streamsServed() const { return m_streamsServed.load(); }

protected:
    void run() override
    {
        QLocalServer server;
        QLocalServer::removeServer(m_socketPath);
        if (!server.listen(m_socketPath))
            qFatal("cannot listen on %s", qPrintable(m_socketPath));
        QObject::connect(&server, &QLocalServer::newConnection, &server, [&] {
            while (QLocalSocket *socket = server.nextPendingConnection()) {
                auto buffer = std::make_shared<QByteArray>();
                QObject::connect(socket, &QLocalSocket::disconnected, socket,
                                 &QObject::deleteLater);
                QObject::connect(socket, &QLocalSocket::readyRead, socket, [this, socket, buffer] {
                    buffer->append(socket->readAll());
                    serve(socket, *buffer);
                });
            }
        });
        {
            std::lock_guard lock(m_mutex);
            m_listening = true;
        }
        m_ready.notify_all();
        exec();
    }

private:
    void serve(QLocalSocket *socket, QByteArray &buffer)
    {
        qsizetype end;
        while ((end = buffer.indexOf("\r\n\r\n")) >= 0) {
            const QByteArray target = buffer.left(end).split(' ').value(1);
            buffer.remove(0, end + 4);
            QByteArray body;
            if (target.startsWith("/_ping")) {
                body = "OK";
                socket->write("HTTP/1.1 200 OK\r\nApi-Version: 1.41\r\nContent-Length: 2\r\n\r\n" +
                              body);
            } else if (target.contains("/logs")) {
                socket->write("HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n"
                              "Transfer-Encoding: chunked\r\n\r\n");
                ++m_openStreams;
                ++m_streamsServed;
                auto *timer = new QTimer(socket);
                QObject::connect(socket, &QLocalSocket::disconnected, timer, [this, timer] {
                    timer->stop();
                    --m_openStreams;
                });
                QObject::connect(timer, &QTimer::timeout, socket, [socket, n = 0]() mutable {
                    const QByteArray line = "line " + QByteArray::number(++n) + '\n';
                    socket->write(QByteArray::number(line.size(), 16) + "\r\n" + line + "\r\n");
                });
                timer->start(20);
            } else if (target.contains("/json")) {
                body = m_inspectBody;
                socket->write("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                              "Content-Length: " +
                              QByteArray::number(body.size()) + "\r\n\r\n" + body);
            } else {
                body = R"({"message":"not here"})";
                socket->write("HTTP/1.1 404 Not Found\r\nContent-Length: " +
                              QByteArray::number(body.size()) + "\r\n\r\n" + body);
            }
        }
    }

    QString m_socketPath;
    QByteArray m_inspectBody;
    std::mutex m_mutex;
    std::condition_variable m_ready;
    bool m_listening = false;
    std::atomic_int m_openStreams{0};
    std::atomic_int m_streamsServed{0};
};

class TestLogFollower : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void init();
    void cleanup();
    void deletedWhileStreaming();
    void deletedRightAfterStart_data();
    void deletedRightAfterStart();

private:
    std::unique_ptr<QTemporaryDir> m_dir;
    std::unique_ptr<EndlessLogsDaemon> m_daemon;
    std::unique_ptr<SqliteStore> m_store;
    std::unique_ptr<HostRegistry> m_registry;
    std::unique_ptr<SessionController> m_controller;
    const QString m_sessionId = QStringLiteral("5e55105e-0000-4000-8000-000000000001");
};

void TestLogFollower::init()
{
    m_dir = std::make_unique<QTemporaryDir>();
    QVERIFY(m_dir->isValid());
    const QString socket = m_dir->filePath(QStringLiteral("docker.sock"));
    auto store = SqliteStore::open(m_dir->filePath(QStringLiteral("state.db")));
    QVERIFY2(store, qPrintable(store ? QString() : store.error().toString()));
    m_store = std::move(*store);
    // Logs are read only from the kernel's own container: the one this store created, with its
    // labels and its name.
    const QJsonObject labels{
        {Labels::store(), m_store->storeId()},
        {Labels::session(), m_sessionId},
        {Labels::kernel(), QString(m_sessionId + QStringLiteral("-k0"))},
        {Labels::hostname(), QStringLiteral("worker1")},
    };
    const QJsonObject inspect{
        {QStringLiteral("Id"), QStringLiteral("c0")},
        {QStringLiteral("Name"),
         QString(QLatin1Char('/') +
                 Labels::containerName(m_sessionId, QStringLiteral("worker1")))},
        {QStringLiteral("Config"),
         QJsonObject{{QStringLiteral("Tty"), true}, {QStringLiteral("Labels"), labels}}},
        {QStringLiteral("State"), QJsonObject{{QStringLiteral("Running"), true}}},
    };
    m_daemon = std::make_unique<EndlessLogsDaemon>(
        socket, QJsonDocument(inspect).toJson(QJsonDocument::Compact));
    m_daemon->start();
    QVERIFY(m_daemon->waitUntilListening());
    HostRecord host;
    host.name = QStringLiteral("fake");
    host.endpoint = QStringLiteral("unix://") + socket;
    QVERIFY(m_store->putHost(host));
    SessionRecord session;
    session.id = m_sessionId;
    session.name = QStringLiteral("endless");
    session.status = SessionStatus::Running;
    KernelRecord kernel;
    kernel.id = m_sessionId + QStringLiteral("-k0");
    kernel.sessionId = m_sessionId;
    kernel.hostname = QStringLiteral("worker1");
    kernel.host = QStringLiteral("fake");
    kernel.containerId = QStringLiteral("c0");
    kernel.status = KernelStatus::Running;
    const auto created = m_store->createSession(session, {kernel});
    QVERIFY2(created, qPrintable(created ? QString() : created.error().toString()));
    m_registry = std::make_unique<HostRegistry>(m_store.get());
    m_controller = std::make_unique<SessionController>(m_store.get(), m_registry.get());
}

void TestLogFollower::cleanup()
{
    m_controller.reset();
    m_registry.reset();
    m_store.reset();
    m_daemon.reset();
    m_dir.reset();
}

void TestLogFollower::deletedWhileStreaming()
{
    QPointer<Ui::LogFollower> follower =
        new Ui::LogFollower(m_controller.get(), m_sessionId, QString(), true);
    QStringList received;
    QString error;
    connect(follower, &Ui::LogFollower::lines, this,
            [&](const QStringList &lines) { received += lines; });
    connect(follower, &Ui::LogFollower::finished, this,
            [&](const QString &why) { error = why.isEmpty() ? QStringLiteral("ended") : why; });
    follower->start();
    QTRY_VERIFY_WITH_TIMEOUT(received.size() >= 5 || !error.isEmpty(), 10000);
    QVERIFY2(error.isEmpty(), qPrintable(error));
    QVERIFY(received.first().startsWith(QLatin1String("worker1 | line ")));
    QVERIFY(follower->isRunning());
    QCOMPARE(m_daemon->openStreams(), 1);

    QElapsedTimer took;
    took.start();
    delete follower;
    QVERIFY(follower.isNull());
    // The destructor cancelled the stream and waited for its thread: the daemon sees it go.
    QTRY_COMPARE_WITH_TIMEOUT(m_daemon->openStreams(), 0, 5000);
    qInfo() << "deleted mid-stream in" << took.elapsed() << "ms";
    // Nothing arrives for the deleted object afterwards (a use after free would crash here).
    const qsizetype before = received.size();
    QTest::qWait(300);
    QCOMPARE(received.size(), before);
}

void TestLogFollower::deletedRightAfterStart_data()
{
    QTest::addColumn<int>("delayMs");
    QTest::newRow("at once") << 0;
    QTest::newRow("after 5 ms") << 5;
    QTest::newRow("after 30 ms") << 30;
}

void TestLogFollower::deletedRightAfterStart()
{
    // The thread may be anywhere: reading the store, connecting, inspecting, streaming.
    QFETCH(int, delayMs);
    for (int i = 0; i < 10; ++i) {
        auto *follower = new Ui::LogFollower(m_controller.get(), m_sessionId, QString(), true);
        follower->start();
        if (delayMs > 0)
            QTest::qWait(delayMs);
        delete follower;
    }
    QTRY_COMPARE_WITH_TIMEOUT(m_daemon->openStreams(), 0, 5000);
}

QTEST_MAIN(TestLogFollower)
#include "tst_logfollower.moc"
