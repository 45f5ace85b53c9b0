// Scale simulation (issue 18): launch and tear down one multi-node session of N kernels over H
// simulated Docker hosts (tests/support/fakedockerhost.h, each call answered from memory after a
// configurable delay) with the real SQLite store, and report ClusterDeck's own overhead:
//   overhead   the wall time with a daemon that answers at once (delay 0): everything that is
//              ClusterDeck's (store, placement, planning, threads, bookkeeping) plus the fake's
//              own small cost
//   with delay the wall time when every call takes `--delay-ms`; beside it the simulated daemon
//              time (the sum of the delays of all calls) and the busiest host's share of it
// Usage: bench_scale [--kernels 100,1000,10000] [--hosts 100] [--delay-ms 2] [--per-host 8]
// The default (ctest) is a short run: 100 and 1,000 kernels. Fails only when a run does not end
// as it should (a launch that fails, a kernel not running, something left behind).

#include "fakedockerhost.h"
#include "host/hostregistry.h"
#include "network/networksettings.h"
#include "provision/provisioner.h"
#include "provision/sessioncontroller.h"
#include "simulatedsession.h"
#include "store/statestore.h"
#include "store/storefactory.h"
#include "template/templateloader.h"

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QJsonDocument>
#include <QLoggingCategory>
#include <QTemporaryDir>
#include <QUuid>

#include <cstdio>

#include <sys/resource.h>

using namespace ClusterDeck;
using namespace ClusterDeck::TestSupport;
using namespace std::chrono_literals;

namespace {

void die(const QString &what)
{
    std::fprintf(stderr, "bench_scale: %s\n", qPrintable(what));
    std::exit(1);
}

struct Figures
{
    qint64 prepareMs = 0;
    qint64 provisionMs = 0;
    qint64 terminateMs = 0;
    double daemonSeconds = 0;      // the sum of all simulated call times
    double busiestHostSeconds = 0; // the simulated time of the busiest host
    int calls = 0;
    double cpu = 0; // CPU seconds of launch and teardown
    qint64 recordBytes = 0; // the session record's launch options (the spec), as stored
    qint64 launchMs() const { return prepareMs + provisionMs; }
    qint64 totalMs() const { return prepareMs + provisionMs + terminateMs; }
};

Figures runOnce(int kernels, int hosts, std::chrono::microseconds delay, int perHost)
{
    QTemporaryDir dir;
    if (!dir.isValid())
        die(QStringLiteral("no temporary directory"));
    // BENCH_SCALE_KEEP=1 keeps the store of every run (to look at what was written).
    if (qEnvironmentVariableIsSet("BENCH_SCALE_KEEP")) {
        dir.setAutoRemove(false);
        std::fprintf(stderr, "bench_scale: store in %s\n", qPrintable(dir.path()));
    }
    auto store = openStore(QStringLiteral("sqlite://") + dir.filePath(QStringLiteral("s.db")));
    if (!store)
        die(store.error().toString());
    // One session over 100 simulated hosts: a Swarm overlay, which has no per-host gateways
    // (a VXLAN session's /24 gives at most 30 hosts one each) and needs no helper container.
    if (auto ok = NetworkSettings::setDriver(**store, NetworkDriver::Swarm); !ok)
        die(ok.error().toString());
    HostRegistry registry(store->get());
    FakeDockerFleet fleet;
    if (auto ok = fleet.install(registry, hosts); !ok)
        die(ok.error().toString());
    fleet.setCallDelay(delay);

    TemplateLoader loader;
    const QString text = simulatedSessionTemplate(QStringLiteral("scale"), kernels - 1,
                                                  QStringLiteral("terminate-session"));
    auto t = loader.loadClusterFromData(text.toUtf8(), QStringLiteral("scale.yaml"));
    if (!t)
        die(t.error().toString());
    LaunchRequest request;
    request.clusterTemplate = *t;
    request.templateSource = text;
    request.actor = QStringLiteral("bench_scale");
    request.options.sessionId = QUuid::createUuid().toString(QUuid::WithoutBraces);

    Provisioner provisioner(store->get(), &registry);
    provisioner.setSettlePeriod(0ms);
    provisioner.setPerHostConcurrency(perHost);
    Figures f;
    QElapsedTimer timer;
    const double cpu0 = processCpuSeconds();
    timer.start();
    auto spec = provisioner.prepare(request);
    if (!spec)
        die(QStringLiteral("prepare: ") + spec.error().toString());
    f.prepareMs = timer.restart();
    auto session = provisioner.provision(*spec);
    if (!session)
        die(QStringLiteral("provision: ") + session.error().toString());
    f.provisionMs = timer.restart();
    if (session->status != SessionStatus::Running)
        die(QStringLiteral("the session is %1, not RUNNING").arg(toString(session->status)));
    int running = 0;
    for (const auto &h : fleet.hosts())
        running += h->runningCount();
    if (running != kernels)
        die(QStringLiteral("%1 containers run, not %2").arg(running).arg(kernels));

    f.recordBytes = QJsonDocument(session->launch.toJson()).toJson(QJsonDocument::Compact).size();

    SessionController sessions(store->get(), &registry);
    auto ended = sessions.terminate(session->id, QStringLiteral("bench"));
    if (!ended)
        die(QStringLiteral("terminate: ") + ended.error().toString());
    f.terminateMs = timer.restart();
    f.cpu = processCpuSeconds() - cpu0;
    if (const int left = fleet.containerCount(); left != 0)
        die(QStringLiteral("%1 containers left after terminate").arg(left));

    for (const auto &h : fleet.hosts()) {
        const double s = std::chrono::duration<double>(h->simulatedTime()).count();
        f.daemonSeconds += s;
        f.busiestHostSeconds = std::max(f.busiestHostSeconds, s);
        f.calls += h->totalCalls();
    }
    return f;
}

} // namespace

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    QLoggingCategory::setFilterRules(QStringLiteral("clusterdeck.*.debug=false\n"
                                                    "clusterdeck.*.warning=false"));
    QList<int> sizes{100, 1000};
    int hosts = 100;
    double delayMs = 2;
    int perHost = 8;
    const QStringList args = app.arguments();
    for (qsizetype i = 1; i < args.size(); ++i) {
        const QString a = args.at(i);
        const QString v = args.value(i + 1);
        if (a == u"--kernels") {
            sizes.clear();
            for (const QString &n : v.split(QLatin1Char(',')))
                sizes.append(n.toInt());
            ++i;
        } else if (a == u"--hosts") {
            hosts = v.toInt();
            ++i;
        } else if (a == u"--delay-ms") {
            delayMs = v.toDouble();
            ++i;
        } else if (a == u"--per-host") {
            perHost = v.toInt();
            ++i;
        } else {
            die(QStringLiteral("usage: bench_scale [--kernels 100,1000,10000] [--hosts 100] "
                               "[--delay-ms 2] [--per-host 8]"));
        }
    }
    const auto delay = std::chrono::microseconds(qint64(delayMs * 1000));
    std::printf("bench_scale: one multi-node session over %d simulated hosts, SQLite store, "
                "per-host concurrency %d\n",
                hosts, perHost);
    std::printf("%8s | %-46s | %-58s\n", "", "overhead (delay 0): wall ms, CPU s",
                qPrintable(QStringLiteral("with a %1 ms daemon: wall ms, simulated s").arg(delayMs)));
    std::printf("%8s | %8s %8s %8s %7s %6s %9s | %8s %8s %11s %13s %7s\n", "kernels", "prepare",
                "launch", "teardown", "total", "CPU", "spec KiB", "launch", "teardown",
                "daemon sum", "busiest host", "calls");
    for (int n : std::as_const(sizes)) {
        const Figures zero = runOnce(n, hosts, 0us, perHost);
        const Figures slow = runOnce(n, hosts, delay, perHost);
        std::printf("%8d | %8lld %8lld %8lld %7lld %6.2f %9lld | %8lld %8lld %11.2f %13.2f %7d\n",
                    n, zero.prepareMs, zero.launchMs(), zero.terminateMs, zero.totalMs(), zero.cpu,
                    zero.recordBytes / 1024, slow.launchMs(), slow.terminateMs, slow.daemonSeconds,
                    slow.busiestHostSeconds, slow.calls);
        std::fflush(stdout);
    }
    return 0;
}
