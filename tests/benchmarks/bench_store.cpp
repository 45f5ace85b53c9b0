// State store throughput, both backends side by side in one run:
//   - kernel status updates per second (updateKernelStatus: read, append history, write — one
//     transaction each) on 8 sessions x 8 kernels
//   - createSession per second (a session with 8 kernels)
//   - loading 1,000 sessions x 8 kernels (sessions() + allKernels(), as the GUI does on start)
// sqlite uses a temporary file; etcd the lab's etcd ($CLUSTERDECK_LAB_ETCD) under a unique prefix
// that is deleted afterwards. Prints a table; exits non-zero when a backend fails.

#include "common/logging.h"
#include "etcd/etcdclient.h"
#include "store/statestore.h"
#include "store/storefactory.h"

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QLoggingCategory>
#include <QTemporaryDir>
#include <QUrl>
#include <QUuid>

#include <cstdio>

using namespace ClusterDeck;

namespace {

struct Figures
{
    double statusUpdatesPerSecond = 0;
    double createsPerSecond = 0;
    double loadMs = 0;
    double loadKernelsPerSecond = 0;
    QString error;
};

QString newId()
{
    return QUuid::createUuid().toString(QUuid::WithoutBraces);
}

QList<KernelRecord> kernelsFor(const QString &sessionId, int count)
{
    QList<KernelRecord> list;
    for (int i = 0; i < count; ++i) {
        KernelRecord k;
        k.id = newId();
        k.sessionId = sessionId;
        k.role = i == 0 ? QStringLiteral("master") : QStringLiteral("worker");
        k.roleIdx = i == 0 ? 1 : i;
        k.localRank = i;
        k.primary = i == 0;
        k.hostname = k.role + QString::number(k.roleIdx);
        k.host = QStringLiteral("h%1").arg(i % 3 + 1);
        k.containerName = QStringLiteral("cd-%1-%2").arg(sessionId.left(8), k.hostname);
        k.containerId = QString(64, u'a');
        k.status = KernelStatus::Running;
        k.history = {{KernelStatus::Pending, QDateTime::currentDateTimeUtc(), {}},
                     {KernelStatus::Running, QDateTime::currentDateTimeUtc(), {}}};
        k.ports = {{QStringLiteral("jupyter"), QStringLiteral("http"), 8080, 32768 + i,
                    QStringLiteral("http://192.168.213.11:%1").arg(32768 + i)}};
        k.cpus = 2;
        k.memoryBytes = qint64(4) << 30;
        k.createdAt = k.updatedAt = QDateTime::currentDateTimeUtc();
        list.append(k);
    }
    return list;
}

SessionRecord sessionRecord(const QString &id)
{
    SessionRecord s;
    s.id = id;
    s.name = QStringLiteral("bench-") + id.left(8);
    s.templateName = QStringLiteral("mpi");
    s.templateSnapshot =
        QStringLiteral("name: mpi\nroles:\n  - name: master\n  - name: worker\n    count: 7\n");
    s.mode = ClusterMode::MultiNode;
    s.status = SessionStatus::Running;
    s.createdAt = s.updatedAt = QDateTime::currentDateTimeUtc();
    return s;
}

Figures run(StateStore &store, int statusUpdates)
{
    Figures f;
    QElapsedTimer timer;

    // Status updates over 8 sessions x 8 kernels.
    QList<KernelRecord> targets;
    for (int s = 0; s < 8; ++s) {
        const QString id = newId();
        const QList<KernelRecord> kernels = kernelsFor(id, 8);
        if (auto ok = store.createSession(sessionRecord(id), kernels); !ok) {
            f.error = ok.error().toString();
            return f;
        }
        targets += kernels;
    }
    timer.start();
    for (int i = 0; i < statusUpdates; ++i) {
        const KernelRecord &k = targets[i % targets.size()];
        auto ok = store.updateKernelStatus(
            k.sessionId, k.id, i % 2 ? KernelStatus::Running : KernelStatus::Restarting);
        if (!ok) {
            f.error = ok.error().toString();
            return f;
        }
    }
    f.statusUpdatesPerSecond = statusUpdates * 1000.0 / std::max<qint64>(1, timer.elapsed());

    // 1,000 sessions x 8 kernels (the 8 above included).
    timer.restart();
    const int creates = 992;
    for (int s = 0; s < creates; ++s) {
        const QString id = newId();
        if (auto ok = store.createSession(sessionRecord(id), kernelsFor(id, 8)); !ok) {
            f.error = ok.error().toString();
            return f;
        }
    }
    f.createsPerSecond = creates * 1000.0 / std::max<qint64>(1, timer.elapsed());

    timer.restart();
    auto sessions = store.sessions();
    auto kernels = store.allKernels();
    const qint64 ns = timer.nsecsElapsed();
    if (!sessions || !kernels) {
        f.error = (!sessions ? sessions.error() : kernels.error()).toString();
        return f;
    }
    if (sessions->size() != 1000 || kernels->size() != 8000) {
        f.error = QStringLiteral("loaded %1 sessions and %2 kernels, expected 1000 and 8000")
                      .arg(sessions->size())
                      .arg(kernels->size());
        return f;
    }
    f.loadMs = ns / 1e6;
    f.loadKernelsPerSecond = 8000 / (ns / 1e9);
    return f;
}

QString cell(const Figures &f, double value, int precision)
{
    return f.error.isEmpty() ? QString::number(value, 'f', precision) : QStringLiteral("failed");
}

} // namespace

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    ClusterDeck::Logging::apply(ClusterDeck::Logging::Level::Info);
    int failures = 0;

    QTemporaryDir dir;
    Figures sqlite;
    {
        auto store =
            openStore(QStringLiteral("sqlite://") + dir.filePath(QStringLiteral("state.db")));
        if (!store)
            sqlite.error = store.error().toString();
        else
            sqlite = run(**store, 5000);
    }

    Figures etcd;
    const QString endpoint = qEnvironmentVariable("CLUSTERDECK_LAB_ETCD");
    if (endpoint.isEmpty()) {
        etcd.error =
            QStringLiteral("CLUSTERDECK_LAB_ETCD is not set: eval \"$(scripts/lab.sh env)\"");
    } else {
        const QString prefix = QStringLiteral("/cdbench-store/") + newId();
        {
            auto store = openStore(QStringLiteral("etcd://") + QUrl(endpoint).authority() + prefix);
            if (!store)
                etcd.error = store.error().toString();
            else
                etcd = run(**store, 2000);
        }
        Etcd::EtcdConfig config;
        config.endpoints = {endpoint};
        Etcd::EtcdClient client(config);
        (void)client.removePrefix((prefix + u'/').toUtf8());
    }

    std::printf("%-46s %14s %14s\n", "state store", "sqlite", "etcd");
    std::printf("%-46s %14s %14s\n", "kernel status update (ops/s)",
                qPrintable(cell(sqlite, sqlite.statusUpdatesPerSecond, 0)),
                qPrintable(cell(etcd, etcd.statusUpdatesPerSecond, 0)));
    std::printf("%-46s %14s %14s\n", "create session with 8 kernels (ops/s)",
                qPrintable(cell(sqlite, sqlite.createsPerSecond, 0)),
                qPrintable(cell(etcd, etcd.createsPerSecond, 0)));
    std::printf("%-46s %14s %14s\n", "load 1,000 sessions x 8 kernels (ms)",
                qPrintable(cell(sqlite, sqlite.loadMs, 1)), qPrintable(cell(etcd, etcd.loadMs, 1)));
    std::printf("%-46s %14s %14s\n", "  = kernels loaded per second",
                qPrintable(cell(sqlite, sqlite.loadKernelsPerSecond, 0)),
                qPrintable(cell(etcd, etcd.loadKernelsPerSecond, 0)));
    for (const auto &[name, f] : {std::pair{"sqlite", &sqlite}, std::pair{"etcd", &etcd}}) {
        if (!f->error.isEmpty()) {
            std::fprintf(stderr, "%s: %s\n", name, qPrintable(f->error));
            ++failures;
        }
    }
    return failures ? 1 : 0;
}
