// Fleet scale (issue 28): many simulated Docker hosts (tests/support/fakedockerhost.h, answered
// from memory at once) holding many sessions, on the real SQLite store and, when the lab's etcd
// is in the environment (CLUSTERDECK_LAB_ETCD), on the real etcd, side by side in one run:
//   launch     ClusterDeck's own time per kernel (the daemons answer at once): filling the fleet
//              with 1+K sessions, then one 1+999 session on top of it
//   survey     what a launch's placement reads of the whole fleet: every kernel decoded and
//              summed per host, against the store's own sums (median of 5; they must agree)
//   resync     one controller pass over the whole fleet (Controller::runOnce): wall, CPU, and
//              the process's resident set after it
//   idle       a leading controller with nothing changing, its default pass every 30 s: CPU per
//              minute (and % of a core), store writes per minute (every change the store
//              announces, its own included). The fake hosts' event streams look at their cancel
//              token every 500 ms (not 20 ms), so that the fake's polling is not counted.
//   burst      the same leader, then a burst of container deaths (kernels of the fleet's 1+K
//              sessions, spread over every session, policy `ignore`): from each `die` to its
//              kernel's change in the store (the store's own signal, on the writing thread),
//              p50 / p99 lag and deaths per second; every kernel of the burst must be recorded
//              as ended
// Usage: bench_fleet [--hosts 1000] [--sessions 2000] [--kernels 50] [--idle-seconds 60]
//                    [--burst 10000] [--stores sqlite,etcd] [--json FILE]
// The default is CI-sized: 50 hosts, 20 sessions of 1+49 (1,000 kernels), 10 s idle, a burst of
// 1,000 deaths (ctest: 5 s idle, 200 deaths).
// The full size: --hosts 1000 --sessions 2000 (100,000 kernels). Fails only when the fleet is
// not what it should be (a launch that fails, containers missing), never on a figure.

#include "benchmedian.h"
#include "control/controller.h"
#include "etcd/etcdclient.h"
#include "fakedockerhost.h"
#include "host/hostregistry.h"
#include "network/networksettings.h"
#include "provision/provisioner.h"
#include "simulatedsession.h"
#include "store/statestore.h"
#include "store/storefactory.h"
#include "template/templateloader.h"

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLoggingCategory>
#include <QSet>
#include <QTemporaryDir>
#include <QTimer>
#include <QUrl>
#include <QUuid>

#include <atomic>
#include <cmath>
#include <cstdio>

#include <sys/resource.h>
#include <unistd.h>

using namespace ClusterDeck;
using namespace ClusterDeck::TestSupport;
using namespace std::chrono_literals;

namespace {

[[noreturn]] void die(const QString &what)
{
    std::fprintf(stderr, "bench_fleet: %s\n", qPrintable(what));
    std::exit(1);
}

// The resident set now (the peak of the process would include an earlier store's run).
double rssMiB()
{
    QFile statm(QStringLiteral("/proc/self/statm"));
    if (!statm.open(QIODevice::ReadOnly))
        return 0;
    const QList<QByteArray> fields = statm.readAll().split(' ');
    return double(fields.value(1).toLongLong()) * double(sysconf(_SC_PAGESIZE)) / (1 << 20);
}

struct Options
{
    int hosts = 50;
    int sessions = 20;
    int kernels = 50; // per session: 1 master + kernels-1 workers
    int idleSeconds = 10;
    int burst = 1000; // container deaths at once (at most the fleet's 1+K kernels)
    QStringList stores{QStringLiteral("sqlite"), QStringLiteral("etcd")};
    QString json;
};

struct Figures
{
    QString store;
    int kernels = 0;
    double fillMsPerKernel = 0; // 1+K sessions, each launched into the growing fleet
    double bigMsPerKernel = 0;  // one 1+999 session on top of the full fleet
    // What a launch's placement reads of the whole fleet (median of 5): every kernel decoded and
    // summed, against the store's own sums (StateStore::allocationsByHost).
    double surveyDecodeMs = 0, surveySumMs = 0;
    qint64 resyncMs = 0;
    double resyncCpu = 0;
    double rss = 0;              // resident set after the pass
    double idleCpuPerMinute = 0; // CPU seconds per minute
    double idleWritesPerMinute = 0;
    int burst = 0;
    double burstP50Ms = 0, burstP99Ms = 0, burstPerSecond = 0;
    QJsonObject toJson() const
    {
        return {{QStringLiteral("store"), store},
                {QStringLiteral("kernels"), kernels},
                {QStringLiteral("launch_ms_per_kernel_1+K"), fillMsPerKernel},
                {QStringLiteral("launch_ms_per_kernel_1+999"), bigMsPerKernel},
                {QStringLiteral("survey_decode_ms"), surveyDecodeMs},
                {QStringLiteral("survey_store_sum_ms"), surveySumMs},
                {QStringLiteral("resync_ms"), resyncMs},
                {QStringLiteral("resync_cpu_s"), resyncCpu},
                {QStringLiteral("rss_mib_after_resync"), rss},
                {QStringLiteral("idle_cpu_s_per_min"), idleCpuPerMinute},
                {QStringLiteral("burst_deaths"), burst},
                {QStringLiteral("burst_lag_p50_ms"), burstP50Ms},
                {QStringLiteral("burst_lag_p99_ms"), burstP99Ms},
                {QStringLiteral("burst_deaths_per_s"), burstPerSecond},
                {QStringLiteral("idle_store_writes_per_min"), idleWritesPerMinute}};
    }
};

// Counts every change a store announces (in this process at once, from others by poll/watch).
class WriteCounter
{
public:
    explicit WriteCounter(StateStore *store)
    {
        auto count = [this] {
            ++m_count;
        };
        QObject::connect(store, &StateStore::hostChanged, store, count);
        QObject::connect(store, &StateStore::hostRemoved, store, count);
        QObject::connect(store, &StateStore::sessionAdded, store, count);
        QObject::connect(store, &StateStore::sessionChanged, store, count);
        QObject::connect(store, &StateStore::sessionRemoved, store, count);
        QObject::connect(store, &StateStore::kernelChanged, store, count);
        QObject::connect(store, &StateStore::eventAppended, store, count);
        QObject::connect(store, &StateStore::controllerChanged, store, count);
        QObject::connect(store, &StateStore::settingChanged, store, count);
    }
    int count() const { return m_count.load(); }

private:
    std::atomic_int m_count{0};
};

// Runs the event loop for `d`, asleep when nothing comes (store signals are delivered here).
void spin(std::chrono::milliseconds d)
{
    QEventLoop loop;
    QTimer::singleShot(d, &loop, &QEventLoop::quit);
    loop.exec();
}

Result<SessionRecord> launch(Provisioner &provisioner, int workers)
{
    TemplateLoader loader;
    const QString text =
        simulatedSessionTemplate(QStringLiteral("fleet"), workers, QStringLiteral("ignore"));
    auto t = loader.loadClusterFromData(text.toUtf8(), QStringLiteral("fleet.yaml"));
    if (!t)
        return fail(t.error());
    LaunchRequest request;
    request.clusterTemplate = *t;
    request.templateSource = text;
    request.actor = QStringLiteral("bench_fleet");
    request.options.sessionId = QUuid::createUuid().toString(QUuid::WithoutBraces);
    return provisioner.launch(request);
}

// Kills `count` kernels of the fleet's 1+K sessions (not the 1+999 one: `exclude`), taken
// round-robin over the sessions, as fast as the fake hosts take it, while the leader runs; each
// lag runs from its kernel's `die` to the store's signal that its record changed.
void measureBurst(const QString &kind, StateStore *store, FakeDockerFleet &fleet,
                  const SessionRecord &exclude, int count, Figures &f)
{
    auto all = store->allKernels();
    if (!all)
        die(QStringLiteral("%1: reading the kernels: %2").arg(kind, all.error().toString()));
    QMap<QString, QList<KernelRecord>> bySession;
    for (const KernelRecord &k : std::as_const(*all))
        if (k.sessionId != exclude.id && k.status == KernelStatus::Running)
            bySession[k.sessionId].append(k);
    QList<KernelRecord> victims;
    for (qsizetype i = 0; qsizetype(victims.size()) < count; ++i) {
        bool any = false;
        for (const QList<KernelRecord> &kernels : std::as_const(bySession)) {
            if (i < kernels.size() && qsizetype(victims.size()) < count) {
                victims.append(kernels.at(i));
                any = true;
            }
        }
        if (!any)
            break;
    }
    using Clock = std::chrono::steady_clock;
    std::mutex mutex;
    QHash<QString, Clock::time_point> died;    // kernel id → its die
    QHash<QString, Clock::time_point> changed; // kernel id → its record's last change so far
    // A death is written twice: the container's observed state (the event intake), then the
    // kernel's status (the policy's decision). The last change is the status: nothing writes the
    // kernel after it (`ignore` changes the session, not the kernel).
    const auto connection = QObject::connect(
        store, &StateStore::kernelChanged, store,
        [&](const QString &, const QString &kernelId) {
            const auto now = Clock::now();
            std::lock_guard lock(mutex);
            if (died.contains(kernelId))
                changed.insert(kernelId, now);
        },
        Qt::DirectConnection);
    QSet<QString> victimIds;
    for (const KernelRecord &k : std::as_const(victims))
        victimIds.insert(k.id);
    const auto first = Clock::now();
    for (const KernelRecord &k : std::as_const(victims)) {
        {
            std::lock_guard lock(mutex);
            died.insert(k.id, Clock::now());
        }
        if (!fleet.host(k.host)->exitContainer(k.containerName, 137))
            die(QStringLiteral("%1: no container %2 on %3").arg(kind, k.containerName, k.host));
    }
    // Until the store says every one of them ended.
    const auto ended = [&] {
        auto now = store->allKernels();
        if (!now)
            die(QStringLiteral("%1: reading the kernels: %2").arg(kind, now.error().toString()));
        int n = 0;
        for (const KernelRecord &k : std::as_const(*now))
            n += victimIds.contains(k.id) && k.status == KernelStatus::Error ? 1 : 0;
        return n;
    };
    QElapsedTimer wait;
    wait.start();
    int n = 0;
    while ((n = ended()) < int(victims.size()) && wait.elapsed() < 300000)
        spin(200ms);
    spin(300ms); // the last signals delivered
    QObject::disconnect(connection);
    if (n < int(victims.size()))
        die(QStringLiteral("%1: %2 of %3 deaths recorded in the store in 300 s")
                .arg(kind)
                .arg(n)
                .arg(victims.size()));
    std::lock_guard lock(mutex);
    QList<double> lags;
    auto last = first;
    for (auto it = died.cbegin(); it != died.cend(); ++it) {
        if (!changed.contains(it.key()))
            die(QStringLiteral("%1: a kernel ended without a change signal").arg(kind));
        const auto at = changed.value(it.key());
        lags.append(std::chrono::duration<double, std::milli>(at - *it).count());
        last = std::max(last, at);
    }
    f.burst = int(lags.size());
    f.burstP50Ms = percentile(lags, 0.50);
    f.burstP99Ms = percentile(lags, 0.99);
    f.burstPerSecond = double(lags.size()) / std::chrono::duration<double>(last - first).count();
}

// Every kernel read and summed per host, against the store's own sums: the same figures (or the
// bench fails), and the time of each, median of 5.
void measureSurvey(const QString &kind, StateStore *store, Figures &f)
{
    QList<double> decode, sum;
    for (int round = 0; round < 5; ++round) {
        QElapsedTimer timer;
        timer.start();
        auto kernels = store->allKernels();
        if (!kernels)
            die(QStringLiteral("%1: reading the kernels: %2")
                    .arg(kind, kernels.error().toString()));
        const QHash<QString, HostAllocation> decoded = HostAllocation::byHost(*kernels);
        decode.append(double(timer.nsecsElapsed()) / 1e6);
        timer.restart();
        auto summed = store->allocationsByHost();
        if (!summed)
            die(QStringLiteral("%1: the store's sums: %2").arg(kind, summed.error().toString()));
        sum.append(double(timer.nsecsElapsed()) / 1e6);
        // CPU sums in another order may differ in the last bits: the rest must be equal.
        bool same = summed->size() == decoded.size();
        for (auto it = decoded.cbegin(); same && it != decoded.cend(); ++it) {
            const HostAllocation s = summed->value(it.key());
            same = s.kernels == it->kernels && s.memoryBytes == it->memoryBytes &&
                   s.unlimitedKernels == it->unlimitedKernels &&
                   std::abs(s.cpus - it->cpus) <= 1e-9 * std::max(1.0, std::abs(it->cpus));
        }
        if (!same)
            die(QStringLiteral("%1: the store's sums over %2 host(s) differ from the decoded "
                               "kernels' (%3 host(s))")
                    .arg(kind)
                    .arg(summed->size())
                    .arg(decoded.size()));
    }
    f.surveyDecodeMs = median(decode);
    f.surveySumMs = median(sum);
}

Figures run(const QString &kind, const QString &url, const Options &o)
{
    Figures f;
    f.store = kind;
    auto store = openStore(url);
    if (!store)
        die(store.error().toString());
    // Hundreds of hosts per session: a Swarm overlay (a VXLAN /24 gives 30 hosts a gateway).
    if (auto ok = NetworkSettings::setDriver(**store, NetworkDriver::Swarm); !ok)
        die(ok.error().toString());
    HostRegistry registry(store->get());
    FakeDockerFleet fleet;
    if (auto ok = fleet.install(registry, o.hosts); !ok)
        die(ok.error().toString());
    for (const auto &h : fleet.hosts())
        h->setStreamPollInterval(500ms); // the fake's own polling is not the controller's CPU
    Provisioner provisioner(store->get(), &registry);
    provisioner.setSettlePeriod(0ms);

    QElapsedTimer timer;
    timer.start();
    for (int s = 0; s < o.sessions; ++s) {
        auto session = launch(provisioner, o.kernels - 1);
        if (!session || session->status != SessionStatus::Running)
            die(QStringLiteral("%1: session %2 of the fleet: %3")
                    .arg(kind)
                    .arg(s + 1)
                    .arg(session ? toString(session->status) : session.error().toString()));
    }
    f.fillMsPerKernel = double(timer.elapsed()) / double(o.sessions * o.kernels);
    timer.restart();
    auto big = launch(provisioner, 999);
    if (!big || big->status != SessionStatus::Running)
        die(QStringLiteral("%1: the 1+999 session: %2")
                .arg(kind, big ? toString(big->status) : big.error().toString()));
    f.bigMsPerKernel = double(timer.elapsed()) / 1000.0;
    f.kernels = o.sessions * o.kernels + 1000;
    if (const int running = fleet.containerCount(); running != f.kernels)
        die(QStringLiteral("%1: %2 containers, not %3").arg(kind).arg(running).arg(f.kernels));

    measureSurvey(kind, store->get(), f);

    // The defaults (a pass every 30 s): an idle leader as it runs.
    ControllerOptions options;
    options.actor = QStringLiteral("bench_fleet");
    {
        Controller once(store->get(), &registry, options);
        const double cpu0 = processCpuSeconds();
        timer.restart();
        auto report = once.runOnce();
        if (!report)
            die(QStringLiteral("%1: the resync pass: %2").arg(kind, report.error().toString()));
        f.resyncMs = timer.elapsed();
        f.resyncCpu = processCpuSeconds() - cpu0;
        f.rss = rssMiB();
        if (report->changes() != 0)
            std::fprintf(stderr,
                         "bench_fleet: %s: the pass over an unchanged fleet made %d "
                         "change(s)\n",
                         qPrintable(kind), report->changes());
    }

    // Idle: a leader with every stream open and nothing happening.
    Controller leader(store->get(), &registry, options);
    std::atomic_int passes{0};
    QObject::connect(
        &leader, &Controller::passFinished, &leader, [&](int, int) { ++passes; },
        Qt::DirectConnection);
    leader.start();
    QElapsedTimer wait;
    wait.start();
    while ((!leader.isLeading() || passes.load() < 1) && wait.elapsed() < 120000)
        spin(50ms);
    if (!leader.isLeading() || passes.load() < 1)
        die(QStringLiteral("%1: the controller did not lead and pass in 120 s").arg(kind));
    spin(1s); // its streams open
    WriteCounter writes(store->get());
    const double cpu0 = processCpuSeconds();
    timer.restart();
    spin(std::chrono::seconds(o.idleSeconds));
    const double minutes = double(timer.elapsed()) / 60000.0;
    f.idleCpuPerMinute = (processCpuSeconds() - cpu0) / minutes;
    f.idleWritesPerMinute = double(writes.count()) / minutes;
    measureBurst(kind, store->get(), fleet, *big, o.burst, f);
    leader.stop();
    return f;
}

Options parse(const QStringList &args)
{
    Options o;
    for (qsizetype i = 1; i < args.size(); ++i) {
        const QString a = args.at(i);
        const QString v = args.value(i + 1);
        bool ok = true;
        if (a == u"--hosts")
            o.hosts = v.toInt(&ok);
        else if (a == u"--sessions")
            o.sessions = v.toInt(&ok);
        else if (a == u"--kernels")
            o.kernels = v.toInt(&ok);
        else if (a == u"--idle-seconds")
            o.idleSeconds = v.toInt(&ok);
        else if (a == u"--burst")
            o.burst = v.toInt(&ok);
        else if (a == u"--stores")
            o.stores = v.split(u',', Qt::SkipEmptyParts);
        else if (a == u"--json")
            o.json = v;
        else
            ok = false;
        if (!ok || v.isEmpty())
            die(QStringLiteral(
                "usage: bench_fleet [--hosts 1000] [--sessions 2000] [--kernels "
                "50] [--idle-seconds 60] [--burst 10000] [--stores sqlite,etcd] [--json FILE]"));
        ++i;
    }
    if (o.hosts < 1 || o.sessions < 1 || o.kernels < 2 || o.idleSeconds < 1 || o.burst < 1)
        die(QStringLiteral(
            "--hosts, --sessions, --idle-seconds and --burst take a positive number, "
            "--kernels at least 2"));
    return o;
}

} // namespace

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    QLoggingCategory::setFilterRules(QStringLiteral("clusterdeck.*.debug=false\n"
                                                    "clusterdeck.*.info=false\n"
                                                    "clusterdeck.*.warning=false"));
    const Options o = parse(app.arguments());
    std::printf("bench_fleet: %d simulated hosts, %d sessions of 1+%d and one of 1+999 "
                "(%d kernels), %d s idle\n",
                o.hosts, o.sessions, o.kernels - 1, o.sessions * o.kernels + 1000, o.idleSeconds);
    std::printf("%-7s %8s | %12s %12s | %9s %9s | %10s %8s %9s | %12s %7s %10s | %6s %8s %8s "
                "%8s\n",
                "store", "kernels", "launch ms/k", "1+999 ms/k", "decode ms", "sum ms", "resync ms",
                "CPU s", "RSS MiB", "idle CPU s/min", "% core", "writes/min", "deaths", "p50 ms",
                "p99 ms", "per s");
    QJsonArray results;
    for (const QString &kind : o.stores) {
        QString url;
        QTemporaryDir dir;
        std::unique_ptr<Etcd::EtcdClient> etcd;
        QString prefix;
        if (kind == u"sqlite") {
            if (!dir.isValid())
                die(QStringLiteral("no temporary directory"));
            url = QStringLiteral("sqlite://") + dir.filePath(QStringLiteral("fleet.db"));
        } else if (kind == u"etcd") {
            const QString endpoint = qEnvironmentVariable("CLUSTERDECK_LAB_ETCD");
            if (endpoint.isEmpty()) {
                std::printf("%-7s (no lab etcd: CLUSTERDECK_LAB_ETCD is not set)\n", "etcd");
                continue;
            }
            Etcd::EtcdConfig config;
            config.endpoints = {endpoint};
            etcd = std::make_unique<Etcd::EtcdClient>(config);
            prefix = QStringLiteral("/bench-fleet/") +
                     QUuid::createUuid().toString(QUuid::WithoutBraces).left(8);
            url = QStringLiteral("etcd://") + QUrl(endpoint).authority() + prefix;
        } else {
            die(QStringLiteral("unknown store %1 (sqlite, etcd)").arg(kind));
        }
        const Figures f = run(kind, url, o);
        if (etcd) {
            if (auto removed = etcd->removePrefix((prefix + u'/').toUtf8()); !removed)
                std::fprintf(stderr, "bench_fleet: could not remove %s from etcd: %s\n",
                             qPrintable(prefix), qPrintable(removed.error().toString()));
        }
        std::printf("%-7s %8d | %12.3f %12.3f | %9.1f %9.1f | %10lld %8.2f %9.0f | %12.2f %7.2f "
                    "%10.1f | %6d %8.0f %8.0f %8.0f\n",
                    qPrintable(kind), f.kernels, f.fillMsPerKernel, f.bigMsPerKernel,
                    f.surveyDecodeMs, f.surveySumMs, f.resyncMs, f.resyncCpu, f.rss,
                    f.idleCpuPerMinute, f.idleCpuPerMinute / 60.0 * 100.0, f.idleWritesPerMinute,
                    f.burst, f.burstP50Ms, f.burstP99Ms, f.burstPerSecond);
        std::fflush(stdout);
        results.append(f.toJson());
    }
    if (!o.json.isEmpty()) {
        QFile out(o.json);
        if (!out.open(QIODevice::WriteOnly) ||
            out.write(QJsonDocument(QJsonObject{{QStringLiteral("hosts"), o.hosts},
                                                {QStringLiteral("results"), results}})
                          .toJson()) < 0)
            die(QStringLiteral("cannot write %1").arg(o.json));
    }
    return 0;
}
