// Docker client throughput against the lab: GET /containers/json through DockerClient, next to the
// same requests made by the curl tool in the same run (one curl process, one kept-alive
// connection), over the unix socket, over tcp+tls and over ssh:// (the curl tool through the same
// SSH tunnel's socket). Prints calls per second and the ratio. Then a 1+N multi-node launch and
// teardown (`clusterdeckctl launch --settle 0`, `rm`) with every lab host registered as ssh://,
// and with every host as unix://, rounds alternating, the medians side by side
// (BENCH_DOCKER_LAUNCH_ROUNDS, default 3; BENCH_DOCKER_WORKERS, default 12).

#include "benchmedian.h"
#include "common/logging.h"
#include "docker/dockerclient.h"
#include "docker/dockerendpoint.h"
#include "http/sshtunnel.h"
#include "labcli.h"

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLoggingCategory>
#include <QProcess>
#include <QTemporaryDir>
#include <QTemporaryFile>
#include <QTextStream>
#include <QUrl>

#include <atomic>
#include <cstdio>
#include <thread>
#include <vector>

using namespace ClusterDeck;
using namespace ClusterDeck::Docker;

namespace {

constexpr int kCalls = 400;
constexpr int kThreads = 8;

double perSecond(int calls, qint64 nanos)
{
    return nanos > 0 ? calls * 1e9 / double(nanos) : 0.0;
}

// `count` GETs of `url` from one curl process; extra arguments select the socket or TLS files.
qint64 timeCurl(const QString &url, int count, const QStringList &extra)
{
    // Socket and TLS options go into every `next` block: curl resets them per transfer.
    QTemporaryFile perTransfer;
    if (!perTransfer.open())
        return -1;
    QTextStream full(&perTransfer);
    for (int i = 0; i < count; ++i) {
        for (int a = 0; a + 1 < extra.size(); a += 2)
            full << extra.at(a).mid(2) << " = \"" << extra.at(a + 1) << "\"\n";
        full << "url = \"" << url << "\"\n"
             << "output = \"/dev/null\"\n"
             << "fail\n";
        if (i + 1 < count)
            full << "next\n";
    }
    full.flush();
    QElapsedTimer timer;
    timer.start();
    const int rc = QProcess::execute(QStringLiteral("curl"),
                                     {QStringLiteral("-s"), QStringLiteral("-K"), perTransfer.fileName()});
    const qint64 elapsed = timer.nsecsElapsed();
    return rc == 0 ? elapsed : -1;
}

struct Row
{
    QString what;
    double clientRate = 0;
    double curlRate = 0;
};

bool runEndpoint(const QString &label, const QString &url, const TlsFiles &tls, QList<Row> &rows)
{
    auto endpoint = DockerEndpoint::parse(url, tls);
    if (!endpoint) {
        std::fprintf(stderr, "error: %s\n", qPrintable(endpoint.error().toString()));
        return false;
    }
    DockerClient client(*endpoint, label);
    const auto version = client.apiVersion();
    if (!version) {
        std::fprintf(stderr, "error: %s\n", qPrintable(version.error().toString()));
        return false;
    }
    // Warm-up: the connection and the version are set up outside the timed loops.
    for (int i = 0; i < 10; ++i) {
        if (!client.listContainers())
            return false;
    }

    QElapsedTimer timer;
    timer.start();
    for (int i = 0; i < kCalls; ++i) {
        const auto list = client.listContainers();
        if (!list) {
            std::fprintf(stderr, "error: %s\n", qPrintable(list.error().toString()));
            return false;
        }
    }
    const qint64 sequential = timer.nsecsElapsed();

    std::atomic<int> failures = 0;
    timer.restart();
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) {
        threads.emplace_back([&] {
            for (int i = 0; i < kCalls / kThreads; ++i) {
                if (!client.listContainers())
                    ++failures;
            }
        });
    }
    for (std::thread &t : threads)
        t.join();
    const qint64 parallel = timer.nsecsElapsed();
    if (failures > 0) {
        std::fprintf(stderr, "error: %d parallel calls failed\n", failures.load());
        return false;
    }

    QString curlUrl;
    QStringList extra;
    if (endpoint->kind() == DockerEndpoint::Kind::Unix) {
        curlUrl = QStringLiteral("http://localhost/v%1/containers/json").arg(*version);
        extra = {QStringLiteral("--unix-socket"), QUrl(url).path()};
    } else if (endpoint->kind() == DockerEndpoint::Kind::Ssh) {
        // The curl tool through the local socket of the same SSH connection.
        auto socket =
            endpoint->transportConfig(label).tunnel->socketPath(std::chrono::milliseconds(15000));
        if (!socket) {
            std::fprintf(stderr, "error: %s\n", qPrintable(socket.error().toString()));
            return false;
        }
        curlUrl = QStringLiteral("http://localhost/v%1/containers/json").arg(*version);
        extra = {QStringLiteral("--unix-socket"), *socket};
    } else {
        curlUrl = QStringLiteral("https://%1/v%2/containers/json").arg(QUrl(url).authority(), *version);
        extra = {QStringLiteral("--cacert"), tls.caFile, QStringLiteral("--cert"), tls.certFile,
                 QStringLiteral("--key"), tls.keyFile};
    }
    const qint64 curl = timeCurl(curlUrl, kCalls, extra);
    if (curl < 0) {
        std::fprintf(stderr, "error: the curl tool failed against %s\n", qPrintable(curlUrl));
        return false;
    }
    rows.append({label + QStringLiteral(" sequential"), perSecond(kCalls, sequential), perSecond(kCalls, curl)});
    rows.append({label + QStringLiteral(" 8 threads"), perSecond(kCalls, parallel), 0});
    return true;
}

// clusterdeckctl on `store`; a failure is printed and leaves `ok` false.
Proc run(const QString &store, const QStringList &args, bool *ok)
{
    const Proc p = storeCli(QStringLiteral(CLUSTERDECKCTL), store, args, 300000);
    *ok = p.exitCode == 0;
    if (!*ok)
        std::fprintf(stderr, "error: clusterdeckctl %s: %s\n", qPrintable(args.join(u' ')),
                     p.err.constData());
    return p;
}

// The same lab hosts registered in two stores, as ssh:// and as unix://; rounds alternate which
// goes first. Returns false when a step fails.
bool compareLaunches(const QTemporaryDir &dir)
{
    const QStringList hosts =
        qEnvironmentVariable("CLUSTERDECK_LAB_HOSTS").split(u' ', Qt::SkipEmptyParts);
    const int rounds = qEnvironmentVariableIntValue("BENCH_DOCKER_LAUNCH_ROUNDS") > 0
                           ? qEnvironmentVariableIntValue("BENCH_DOCKER_LAUNCH_ROUNDS")
                           : 3;
    const int workers = qEnvironmentVariableIntValue("BENCH_DOCKER_WORKERS") > 0
                            ? qEnvironmentVariableIntValue("BENCH_DOCKER_WORKERS")
                            : 12;
    struct Variant
    {
        QString name;
        QString store;
        QList<double> launch, teardown;
    };
    Variant variants[2]{{QStringLiteral("ssh://"),
                         QStringLiteral("sqlite://") + dir.filePath(QStringLiteral("ssh.db")),
                         {},
                         {}},
                        {QStringLiteral("unix://"),
                         QStringLiteral("sqlite://") + dir.filePath(QStringLiteral("unix.db")),
                         {},
                         {}}};
    for (Variant &v : variants) {
        for (const QString &h : hosts) {
            const QByteArray prefix = "CLUSTERDECK_LAB_" + h.toUpper().toLatin1();
            const QString endpoint = qEnvironmentVariable(
                QByteArray(prefix + (v.name == u"ssh://" ? "_DOCKER_SSH" : "_DOCKER")).constData());
            bool ok = false;
            run(v.store,
                {QStringLiteral("host"), QStringLiteral("add"), h, QStringLiteral("--docker"),
                 endpoint, QStringLiteral("--address"),
                 qEnvironmentVariable(QByteArray(prefix + "_ADDR").constData())},
                &ok);
            if (!ok)
                return false;
        }
    }
    const QString yaml =
        QStringLiteral(CLUSTERDECK_SOURCE_DIR) + QStringLiteral("/templates/lab-basic.yaml");
    for (int r = 0; r < rounds; ++r) {
        for (int i = 0; i < 2; ++i) {
            Variant &v = variants[(r + i) % 2];
            bool ok = false;
            QElapsedTimer t;
            t.start();
            const Proc launched =
                run(v.store,
                    {QStringLiteral("launch"), yaml, QStringLiteral("--name"),
                     QStringLiteral("bench-ssh"), QStringLiteral("--count"),
                     QStringLiteral("worker=%1").arg(workers), QStringLiteral("--mode"),
                     QStringLiteral("multi-node"), QStringLiteral("--settle"), QStringLiteral("0"),
                     QStringLiteral("--json")},
                    &ok);
            v.launch.append(t.nsecsElapsed() / 1e9);
            if (!ok)
                return false;
            const QString id = QJsonDocument::fromJson(launched.out)
                                   .object()
                                   .value(QStringLiteral("id"))
                                   .toString();
            t.restart();
            run(v.store, {QStringLiteral("rm"), id}, &ok);
            v.teardown.append(t.nsecsElapsed() / 1e9);
            if (!ok)
                return false;
        }
    }
    const double ul = median(variants[1].launch), ud = median(variants[1].teardown);
    std::printf("\n1 + %d kernels, multi-node over %lld hosts, clusterdeckctl launch --settle 0 "
                "and rm, median of %d rounds\n",
                workers, qsizetype(hosts.size()), rounds);
    std::printf("%-10s %10s %10s %12s %12s\n", "hosts as", "launch s", "rm s", "launch ratio",
                "rm ratio");
    for (const Variant &v : variants) {
        const double l = median(v.launch), d = median(v.teardown);
        std::printf("%-10s %10.2f %10.2f %12.2f %12.2f\n", qPrintable(v.name), l, d,
                    ul > 0 ? l / ul : 0.0, ud > 0 ? d / ud : 0.0);
    }
    return true;
}

} // namespace

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    ClusterDeck::Logging::apply(ClusterDeck::Logging::Level::Info);
    const QString unixUrl = qEnvironmentVariable("CLUSTERDECK_LAB_H1_DOCKER");
    const QString tlsUrl = qEnvironmentVariable("CLUSTERDECK_LAB_H1_DOCKER_TLS");
    if (unixUrl.isEmpty() || tlsUrl.isEmpty()) {
        std::fprintf(stderr, "error: the lab is not up; run: eval \"$(scripts/lab.sh env)\"\n");
        return 1;
    }
    const TlsFiles tls{qEnvironmentVariable("CLUSTERDECK_LAB_TLS_CA"),
                       qEnvironmentVariable("CLUSTERDECK_LAB_TLS_CERT"),
                       qEnvironmentVariable("CLUSTERDECK_LAB_TLS_KEY")};
    QList<Row> rows;
    // ssh:// through the lab's sshd and ssh_config (scripts/lab.sh).
    const QString sshUrl = qEnvironmentVariable("CLUSTERDECK_LAB_H1_DOCKER_SSH");
    qputenv("CLUSTERDECK_SSH_CONFIG", qgetenv("CLUSTERDECK_LAB_SSH_CONFIG"));
    if (!runEndpoint(QStringLiteral("unix"), unixUrl, {}, rows) ||
        !runEndpoint(QStringLiteral("tcp+tls"), tlsUrl, tls, rows) ||
        (!sshUrl.isEmpty() && !runEndpoint(QStringLiteral("ssh"), sshUrl, {}, rows))) {
        return 1;
    }
    std::printf("GET /containers/json on lab host h1, %d calls each\n", kCalls);
    std::printf("%-22s %14s %14s %8s\n", "", "ClusterDeck/s", "curl tool/s", "ratio");
    for (const Row &r : rows) {
        if (r.curlRate > 0) {
            std::printf("%-22s %14.0f %14.0f %8.2f\n", qPrintable(r.what), r.clientRate, r.curlRate,
                        r.clientRate / r.curlRate);
        } else {
            std::printf("%-22s %14.0f %14s %8s\n", qPrintable(r.what), r.clientRate, "-", "-");
        }
    }
    if (sshUrl.isEmpty()) {
        std::fprintf(stderr, "error: the lab has no sshd (CLUSTERDECK_LAB_H1_DOCKER_SSH)\n");
        return 1;
    }
    QTemporaryDir dir;
    if (!dir.isValid() || !compareLaunches(dir))
        return 1;
    return 0;
}
