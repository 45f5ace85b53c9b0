// etcd client throughput against the lab etcd, next to the same calls made by the curl tool in
// the same run: put 1000 keys sequentially and from 8 threads, range them, get them.
// Needs CLUSTERDECK_LAB_ETCD (eval "$(scripts/lab.sh env)"); exits non-zero without it.
#include "common/logging.h"
#include "etcd/etcdclient.h"
#include "etcd/etcdjson.h"

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QJsonDocument>
#include <QLoggingCategory>
#include <QProcess>
#include <QTemporaryFile>
#include <QTextStream>
#include <QUuid>

#include <atomic>
#include <cstdio>
#include <thread>

using namespace ClusterDeck;
using namespace ClusterDeck::Etcd;

namespace {

constexpr int kKeys = 1000;
constexpr int kThreads = 8;

void report(const char *what, int ops, qint64 nanos)
{
    const double seconds = double(nanos) / 1e9;
    std::printf("  %-44s %6d ops in %8.1f ms = %9.0f ops/s\n", what, ops, seconds * 1000,
                ops / seconds);
    std::fflush(stdout);
}

QByteArray keyOf(const QByteArray &prefix, int i)
{
    return prefix + QByteArray::number(i).rightJustified(5, '0');
}

// One curl process doing `count` POSTs over one kept-alive connection (a curl config file with
// `next` between requests); returns elapsed nanoseconds or -1.
qint64 timeCurl(const QString &url, const QList<QByteArray> &bodies)
{
    QTemporaryFile config;
    if (!config.open())
        return -1;
    QTextStream out(&config);
    for (qsizetype i = 0; i < bodies.size(); ++i) {
        out << "url = \"" << url << "\"\n"
            << "data = \""
            << QString::fromLatin1(bodies.at(i)).replace(QLatin1Char('"'), QLatin1String("\\\""))
            << "\"\n"
            << "output = \"/dev/null\"\n";
        if (i + 1 < bodies.size())
            out << "next\n";
    }
    out.flush();
    QElapsedTimer timer;
    timer.start();
    const int rc = QProcess::execute(
        QStringLiteral("curl"), {QStringLiteral("-s"), QStringLiteral("-K"), config.fileName()});
    const qint64 elapsed = timer.nsecsElapsed();
    return rc == 0 ? elapsed : -1;
}

} // namespace

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    // Per-request debug lines would measure the terminal, not the client.
    ClusterDeck::Logging::apply(ClusterDeck::Logging::Level::Info);
    const QString endpoint = qEnvironmentVariable("CLUSTERDECK_LAB_ETCD");
    if (endpoint.isEmpty()) {
        std::fprintf(stderr, "error: CLUSTERDECK_LAB_ETCD is not set; start the lab and run: "
                             "eval \"$(scripts/lab.sh env)\"\n");
        return 1;
    }
    EtcdConfig config;
    config.endpoints = {endpoint};
    EtcdClient client(config);
    const QByteArray prefix = "/clusterdeck-bench/" +
                              QUuid::createUuid().toString(QUuid::WithoutBraces).left(8).toUtf8() +
                              '/';
    const QByteArray value(100, 'v');
    std::printf("etcd benchmark against %s (keys of ~25 bytes, values of 100 bytes)\n",
                qPrintable(endpoint));
    int failures = 0;

    // Warm up the connection pool.
    if (auto warm = client.put(prefix + "warmup", value); !warm) {
        std::fprintf(stderr, "error: %s\n", qPrintable(warm.error().toString()));
        return 1;
    }

    QElapsedTimer timer;
    timer.start();
    for (int i = 0; i < kKeys; ++i)
        failures += client.put(keyOf(prefix + "seq/", i), value) ? 0 : 1;
    report("put, sequential (ClusterDeck client)", kKeys, timer.nsecsElapsed());

    std::atomic_int threadFailures = 0;
    timer.restart();
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) {
        threads.emplace_back([&, t] {
            for (int i = t; i < kKeys; i += kThreads) {
                if (!client.put(keyOf(prefix + "par/", i), value))
                    ++threadFailures;
            }
        });
    }
    for (auto &thread : threads)
        thread.join();
    report("put, 8 threads (ClusterDeck client)", kKeys, timer.nsecsElapsed());
    failures += threadFailures.load();

    constexpr int kRanges = 50;
    timer.restart();
    for (int r = 0; r < kRanges; ++r) {
        auto all = client.rangePrefix(prefix + "seq/", kKeys);
        failures += (all && all->kvs.size() == kKeys) ? 0 : 1;
    }
    const qint64 rangeNanos = timer.nsecsElapsed();
    report("range 1000 keys, one page (ClusterDeck client)", kRanges, rangeNanos);
    std::printf("  %-44s %9.0f keys/s\n", "  = keys read", kRanges * kKeys / (rangeNanos / 1e9));

    timer.restart();
    for (int r = 0; r < kRanges; ++r) {
        auto all = client.rangePrefix(prefix + "seq/", 100);
        failures += (all && all->kvs.size() == kKeys) ? 0 : 1;
    }
    report("range 1000 keys, pages of 100 (ClusterDeck)", kRanges, timer.nsecsElapsed());

    timer.restart();
    for (int i = 0; i < kKeys; ++i) {
        auto got = client.get(keyOf(prefix + "seq/", i));
        failures += (got && got->has_value()) ? 0 : 1;
    }
    report("get, sequential (ClusterDeck client)", kKeys, timer.nsecsElapsed());

    // The same requests from the curl tool (one process, one kept-alive connection).
    QList<QByteArray> puts;
    QList<QByteArray> ranges;
    for (int i = 0; i < kKeys; ++i)
        puts.append(QJsonDocument(Json::encodePut(keyOf(prefix + "curl/", i), value, {}))
                        .toJson(QJsonDocument::Compact));
    RangeOptions rangeOptions;
    rangeOptions.rangeEnd = prefixEnd(prefix + "seq/");
    for (int r = 0; r < kRanges; ++r)
        ranges.append(QJsonDocument(Json::encodeRange(prefix + "seq/", rangeOptions))
                          .toJson(QJsonDocument::Compact));
    const QString base = endpoint.endsWith(QLatin1Char('/')) ? endpoint.chopped(1) : endpoint;
    const qint64 curlPut = timeCurl(base + QStringLiteral("/v3/kv/put"), puts);
    const qint64 curlRange = timeCurl(base + QStringLiteral("/v3/kv/range"), ranges);
    if (curlPut > 0)
        report("put, sequential (curl tool, keep-alive)", kKeys, curlPut);
    else
        std::printf("  curl tool not available or failed; no comparison\n");
    if (curlRange > 0)
        report("range 1000 keys, one page (curl tool)", kRanges, curlRange);

    auto removed = client.removePrefix(prefix);
    if (!removed) {
        std::fprintf(stderr, "error: cleanup: %s\n", qPrintable(removed.error().toString()));
        ++failures;
    }
    if (failures > 0) {
        std::fprintf(stderr, "error: %d operations failed\n", failures);
        return 1;
    }
    return 0;
}
