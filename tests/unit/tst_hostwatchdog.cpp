// HostWatchdog against real sockets: a daemon that accepts connections and never answers (a
// listening unix socket nobody reads: the kernel completes the connect, the request waits
// forever), one that is gone (no listener), and one that answers /_ping.

#include "docker/dockerclient.h"
#include "docker/dockerendpoint.h"
#include "provision/hostwatchdog.h"

#include <QElapsedTimer>
#include <QTemporaryDir>
#include <QTest>

#include <atomic>
#include <cstring>
#include <sys/socket.h>
#include <sys/un.h>
#include <thread>
#include <unistd.h>

using namespace ClusterDeck;
using namespace std::chrono_literals;

namespace {

int listenOn(const QString &path)
{
    const int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
    sockaddr_un addr = {};
    addr.sun_family = AF_UNIX;
    const QByteArray p = path.toLocal8Bit();
    std::memcpy(addr.sun_path, p.constData(), size_t(p.size()));
    if (::bind(fd, reinterpret_cast<sockaddr *>(&addr), sizeof addr) != 0 || ::listen(fd, 16) != 0)
        return -1;
    return fd;
}

std::shared_ptr<Docker::DockerClient> clientFor(const QString &path, const QString &name)
{
    auto endpoint = Docker::DockerEndpoint::parse(QStringLiteral("unix://") + path);
    return endpoint ? std::make_shared<Docker::DockerClient>(*endpoint, name) : nullptr;
}

} // namespace

class TestHostWatchdog : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void silentAndGoneHostsAreHung();
    void answeringHostIsNot();
};

void TestHostWatchdog::silentAndGoneHostsAreHung()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString silentPath = dir.filePath(QStringLiteral("silent.sock"));
    const int silent = listenOn(silentPath);
    QVERIFY(silent >= 0);
    QHash<QString, std::shared_ptr<Docker::DockerHost>> clients{
        {QStringLiteral("h3"), clientFor(silentPath, QStringLiteral("h3"))},
        {QStringLiteral("h2"),
         clientFor(dir.filePath(QStringLiteral("gone.sock")), QStringLiteral("h2"))}};
    HostWatchdog::Settings settings;
    settings.interval = 100ms;
    settings.timeout = 400ms;
    settings.misses = 2;
    std::atomic_int calls{0};
    QElapsedTimer t;
    t.start();
    HostWatchdog watchdog(clients, settings, [&](const QString &, const Error &) { ++calls; });
    QTRY_VERIFY_WITH_TIMEOUT(watchdog.isHung(QStringLiteral("h3")), 5000);
    QTRY_VERIFY_WITH_TIMEOUT(watchdog.isHung(QStringLiteral("h2")), 5000);
    // Two missed pings of 400 ms and one pause: well under two seconds, not a call timeout.
    QVERIFY2(t.elapsed() < 2500, qPrintable(QString::number(t.elapsed())));
    QCOMPARE(calls.load(), 2);
    for (const auto &[host, why] : watchdog.hung()) {
        QVERIFY2(why.message.startsWith(QStringLiteral("stopped answering: ")),
                 qPrintable(why.message));
        QVERIFY2(why.toString().startsWith(QStringLiteral("host %1: stopped answering").arg(host)),
                 qPrintable(why.toString()));
        QCOMPARE(why.where, QStringLiteral("host ") + host);
    }
    // stop() does not wait for a ping to a silent host to time out.
    QElapsedTimer s;
    s.start();
    watchdog.stop();
    QVERIFY(s.elapsed() < 1000);
    ::close(silent);
}

void TestHostWatchdog::answeringHostIsNot()
{
    // A minimal daemon: answers every request with 200 OK and the API version header.
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString path = dir.filePath(QStringLiteral("ok.sock"));
    const int fd = listenOn(path);
    QVERIFY(fd >= 0);
    std::atomic_bool stop{false};
    std::thread server([&] {
        while (!stop.load()) {
            timeval tv{0, 100000};
            fd_set set;
            FD_ZERO(&set);
            FD_SET(fd, &set);
            if (::select(fd + 1, &set, nullptr, nullptr, &tv) <= 0)
                continue;
            const int c = ::accept(fd, nullptr, nullptr);
            char buf[4096];
            [[maybe_unused]] const ssize_t n = ::read(c, buf, sizeof buf);
            const char reply[] = "HTTP/1.1 200 OK\r\nApi-Version: 1.41\r\nContent-Type: "
                                 "text/plain\r\nContent-Length: 2\r\nConnection: close\r\n\r\nOK";
            [[maybe_unused]] const ssize_t w = ::write(c, reply, sizeof reply - 1);
            ::close(c);
        }
    });
    HostWatchdog::Settings settings;
    settings.interval = 50ms;
    settings.timeout = 400ms;
    HostWatchdog watchdog({{QStringLiteral("h1"), clientFor(path, QStringLiteral("h1"))}}, settings,
                          {});
    QTest::qWait(1500);
    QVERIFY(!watchdog.isHung(QStringLiteral("h1")));
    QVERIFY(watchdog.hung().isEmpty());
    watchdog.stop();
    stop.store(true);
    server.join();
    ::close(fd);
}

QTEST_GUILESS_MAIN(TestHostWatchdog)
#include "tst_hostwatchdog.moc"
