#include "topcommand.h"
#include "common/bytesize.h"

#include "args.h"
#include "columns.h"
#include "commandsupport.h"
#include "docker/dockerclient.h"
#include "host/hostregistry.h"
#include "common/concurrent.h"
#include "provision/sessioncontroller.h"
#include "stats/statsmonitor.h"
#include "stats/usageaggregator.h"
#include "store/statestore.h"

#include <QElapsedTimer>
#include <QEventLoop>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLocale>
#include <QTimer>

#include <unistd.h>

namespace ClusterDeck::Cli {

namespace {

QJsonObject usageJson(const Docker::ResourceUsage &u)
{
    QJsonObject o;
    o.insert(QLatin1String("cpu_percent"), qRound(u.cpuPercent * 100) / 100.0);
    o.insert(QLatin1String("memory_used"), qint64(u.memoryUsed));
    o.insert(QLatin1String("memory_limit"), qint64(u.memoryLimit));
    o.insert(QLatin1String("memory_percent"), qRound(u.memoryPercent() * 100) / 100.0);
    o.insert(QLatin1String("rx_bytes"), qint64(u.rxBytes));
    o.insert(QLatin1String("tx_bytes"), qint64(u.txBytes));
    o.insert(QLatin1String("block_read"), qint64(u.blockRead));
    o.insert(QLatin1String("block_write"), qint64(u.blockWrite));
    o.insert(QLatin1String("pids"), u.pids);
    return o;
}

QStringList usageCells(const Docker::ResourceUsage &u)
{
    return {QString::number(u.cpuPercent, 'f', 1) + u'%',
            formatBytes(qint64(u.memoryUsed)) + QStringLiteral(" / ") +
                formatBytes(qint64(u.memoryLimit)),
            QString::number(u.memoryPercent(), 'f', 1) + u'%',
            formatBytes(qint64(u.rxBytes)) + QStringLiteral(" / ") + formatBytes(qint64(u.txBytes)),
            formatBytes(qint64(u.blockRead)) + QStringLiteral(" / ") +
                formatBytes(qint64(u.blockWrite)),
            QString::number(u.pids)};
}

struct Snapshot
{
    const SessionRecord *session;
    const QList<KernelRecord> *kernels;
    const UsageAggregator *usage;
};

QJsonObject snapshotJson(const Snapshot &s)
{
    QJsonArray kernels;
    QStringList roles;
    for (const KernelRecord &k : *s.kernels) {
        if (!roles.contains(k.role))
            roles.append(k.role);
        const auto u = s.usage->kernel(k.id);
        if (!u)
            continue;
        QJsonObject o = usageJson(*u);
        o.insert(QLatin1String("hostname"), k.hostname);
        o.insert(QLatin1String("role"), k.role);
        o.insert(QLatin1String("host"), k.host);
        kernels.append(o);
    }
    QJsonObject byRole;
    for (const QString &r : roles)
        byRole.insert(r, usageJson(s.usage->role(s.session->id, r)));
    QJsonObject o;
    o.insert(QLatin1String("session"), s.session->id);
    o.insert(QLatin1String("name"), s.session->name);
    o.insert(QLatin1String("kernels"), kernels);
    o.insert(QLatin1String("roles"), byRole);
    o.insert(QLatin1String("total"), usageJson(s.usage->session(s.session->id)));
    return o;
}

QString snapshotTable(const Snapshot &s)
{
    QList<QStringList> rows;
    rows.append({QStringLiteral("KERNEL"), QStringLiteral("HOST"), QStringLiteral("CPU %"),
                 QStringLiteral("MEM USAGE / LIMIT"), QStringLiteral("MEM %"),
                 QStringLiteral("NET I/O"), QStringLiteral("BLOCK I/O"), QStringLiteral("PIDS")});
    QStringList roles;
    for (const KernelRecord &k : *s.kernels) {
        if (!roles.contains(k.role))
            roles.append(k.role);
        const auto u = s.usage->kernel(k.id);
        rows.append(QStringList{k.hostname, k.host} +
                    (u ? usageCells(*u) : QStringList{QStringLiteral("-")}));
    }
    for (const QString &r : roles)
        rows.append(QStringList{QStringLiteral("[%1]").arg(r), QString()} +
                    usageCells(s.usage->role(s.session->id, r)));
    rows.append(QStringList{QStringLiteral("[session]"), QString()} +
                usageCells(s.usage->session(s.session->id)));
    return alignColumns(rows).join(u'\n') + u'\n';
}

} // namespace

int topCommand(Context &context, const QStringList &args)
{
    Args a;
    if (const auto stop = parseArgs(context, args, QStringLiteral("top"), &a))
        return *stop;
    if (a.positional.size() != 1)
        return context.usage(QStringLiteral("top takes one SESSION"));
    auto env = openEnv(context);
    if (!env)
        return context.fail(env.error());
    auto s = SessionController::findSession(*env->store, a.positional.first());
    if (!s)
        return context.fail(s.error());
    auto all = env->store->kernels(s->id);
    if (!all)
        return context.fail(all.error());
    QList<KernelRecord> kernels;
    for (const KernelRecord &k : std::as_const(*all)) {
        if (k.status == KernelStatus::Running)
            kernels.append(k);
    }
    std::sort(kernels.begin(), kernels.end(), [](const KernelRecord &x, const KernelRecord &y) {
        return x.localRank < y.localRank;
    });
    if (kernels.isEmpty())
        return context.fail(QStringLiteral("session %1 has no running kernels").arg(s->name));
    const bool json = a.has(QStringLiteral("--json"));
    UsageAggregator usage;
    const Snapshot snapshot{&*s, &kernels, &usage};
    auto containerOf = [](const KernelRecord &k) {
        return k.containerId.isEmpty() ? k.containerName : k.containerId;
    };

    if (a.has(QStringLiteral("--no-stream"))) {
        QList<std::optional<Docker::ResourceUsage>> got(kernels.size());
        QList<std::optional<Error>> errors(kernels.size());
        Concurrent::forEach(int(kernels.size()), [&](int i) {
            auto client = env->registry->client(kernels.at(i).host);
            if (!client)
                return void(errors[i] = client.error());
            auto st = (*client)->stats(containerOf(kernels.at(i)));
            if (!st)
                return void(errors[i] = st.error());
            got[i] = Docker::usageOf(*st);
        });
        for (qsizetype i = 0; i < kernels.size(); ++i) {
            const KernelRecord &k = kernels.at(i);
            if (got.at(i))
                usage.set({k.sessionId, k.role, k.id, k.host}, *got.at(i));
            else
                context.err() << "warning: " << k.hostname << ": " << errors.at(i)->toString()
                              << '\n';
        }
        if (json)
            context.out() << QJsonDocument(snapshotJson(snapshot)).toJson(QJsonDocument::Indented);
        else
            context.out() << snapshotTable(snapshot);
        return usage.size() == kernels.size() ? 0 : 1;
    }

    StatsMonitor monitor;
    QObject::connect(&monitor, &StatsMonitor::sampled, &monitor,
                     [&](const QString &kernelId, const Docker::ResourceUsage &u) {
                         for (const KernelRecord &k : std::as_const(kernels)) {
                             if (k.id == kernelId)
                                 usage.set({k.sessionId, k.role, k.id, k.host}, u);
                         }
                     });
    QObject::connect(&monitor, &StatsMonitor::streamEnded, &monitor,
                     [&](const QString &kernelId, const QString &) { usage.remove(kernelId); });
    for (const KernelRecord &k : std::as_const(kernels)) {
        auto client = env->registry->client(k.host);
        if (!client)
            return context.fail(client.error());
        monitor.watch(k.id, *client, containerOf(k));
    }
    InterruptScope interrupt;
    const bool tty = isatty(STDOUT_FILENO);
    QEventLoop loop;
    QTimer refresh;
    QElapsedTimer sinceStart;
    sinceStart.start();
    bool firstPrinted = false;
    constexpr qint64 kFirstSampleGraceMs = 5000;
    QObject::connect(&refresh, &QTimer::timeout, &loop, [&] {
        if (interrupt.token().isCancelled() || monitor.streamCount() == 0) {
            loop.quit();
            return;
        }
        // The first refresh waits until every live stream has sampled (a stream's first
        // sample needs two reads of the daemon's counters), so the first line covers the whole
        // session; a kernel that is slow to answer delays it by at most the grace period.
        if (usage.size() == 0 || (!firstPrinted && usage.size() < monitor.streamCount() &&
                                  sinceStart.elapsed() < kFirstSampleGraceMs))
            return;
        if (!firstPrinted)
            refresh.setInterval(1000);
        firstPrinted = true;
        if (json) {
            context.out() << QJsonDocument(snapshotJson(snapshot)).toJson(QJsonDocument::Compact)
                          << '\n';
        } else {
            if (tty)
                context.out() << "\x1b[H\x1b[2J"; // home, clear: a refreshed table like top
            context.out() << snapshotTable(snapshot);
            if (!tty)
                context.out() << '\n';
        }
        context.out().flush();
    });
    refresh.start(250); // until the first line; then once a second

    QTimer poll; // notices Ctrl-C between refreshes
    QObject::connect(&poll, &QTimer::timeout, &loop, [&] {
        if (interrupt.token().isCancelled())
            loop.quit();
    });
    poll.start(100);
    loop.exec();
    monitor.unwatchAll();
    return 0;
}

} // namespace ClusterDeck::Cli
