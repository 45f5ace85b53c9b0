// Docker client throughput against the lab: GET /containers/json through DockerClient, next to the
// same requests made by the curl tool in the same run (one curl process, one kept-alive
// connection), over the unix socket and over tcp+tls. Prints calls per second and the ratio.

#include "common/logging.h"
#include "docker/dockerclient.h"
#include "docker/dockerendpoint.h"

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QLoggingCategory>
#include <QProcess>
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
    if (!runEndpoint(QStringLiteral("unix"), unixUrl, {}, rows)
        || !runEndpoint(QStringLiteral("tcp+tls"), tlsUrl, tls, rows)) {
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
    return 0;
}
