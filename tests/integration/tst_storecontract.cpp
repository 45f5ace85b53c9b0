// The StateStore contract: one suite, run against every backend (global data rows "sqlite" and
// "etcd"). The etcd row talks to the lab's etcd ($CLUSTERDECK_LAB_ETCD) under a unique prefix that
// is deleted afterwards, and fails (does not skip) when the lab is missing. ctest runs the rows
// apart (CLUSTERDECK_STORE_BACKENDS): tst_storecontract_sqlite (unit), tst_storecontract (lab).
//
// The binary also serves as the second process of the multi-process tests:
//   tst_storecontract --child status URL SESSION KERNEL COUNT TAG
//   tst_storecontract --child lock URL SESSION WAIT_MS HOLD_MS
//   tst_storecontract --child openwriteclose URL COUNT TAG
//   tst_storecontract --child dump URL
//   tst_storecontract --child claim URL COUNT SUBNETS VNIS START_MS
//   tst_storecontract --child setting URL KEY COUNT

#include "common/overlaypool.h"
#include "etcd/etcdclient.h"
#include "store/etcdstore.h"
#include "store/statestore.h"
#include "store/storefactory.h"

#include <QCoreApplication>
#include <QDir>
#include <QElapsedTimer>
#include <QHash>
#include <QJsonArray>
#include <QProcess>
#include <QSignalSpy>
#include <QSysInfo>
#include <QTemporaryDir>
#include <QTest>
#include <QThread>
#include <QUrl>
#include <QUuid>

#include <sqlite3.h>

#include <atomic>
#include <csignal>
#include <cstdio>
#include <mutex>
#include <thread>
#include <unistd.h>

using namespace ClusterDeck;
using namespace std::chrono_literals;

namespace {

QString newId()
{
    return QUuid::createUuid().toString(QUuid::WithoutBraces);
}

QDateTime at(int seconds)
{
    return QDateTime(QDate(2024, 5, 1), QTime(12, 0), Qt::UTC).addSecs(seconds);
}

SessionRecord makeSession(const QString &id = newId())
{
    SessionRecord s;
    s.id = id;
    s.name = QStringLiteral("mpi-") + id.left(8);
    s.templateName = QStringLiteral("mpi");
    s.templateSnapshot = QStringLiteral("name: mpi\nroles:\n  - name: worker\n    count: 2\n");
    s.launch.counts = {{QStringLiteral("worker"), 2}};
    s.launch.env = {{QStringLiteral("A"), QStringLiteral("1")}};
    s.launch.strategy = QStringLiteral("spread");
    // A key of a newer release comes back as it was written.
    s.launch.unknown = QJsonObject{{QStringLiteral("later"), QJsonArray{QStringLiteral("A=1")}}};
    s.mode = ClusterMode::MultiNode;
    s.status = SessionStatus::Provisioning;
    s.history = {{SessionStatus::Pending, at(0), {}},
                 {SessionStatus::Provisioning, at(1), QStringLiteral("placed on h1, h2")}};
    s.networkName = QStringLiteral("cd-") + id.left(8);
    s.createdAt = at(0);
    s.updatedAt = at(1);
    return s;
}

KernelRecord makeKernel(const QString &sessionId, int rank, const QString &id = newId())
{
    KernelRecord k;
    k.id = id;
    k.sessionId = sessionId;
    k.role = rank == 0 ? QStringLiteral("master") : QStringLiteral("worker");
    k.roleIdx = rank == 0 ? 1 : rank;
    k.localRank = rank;
    k.primary = rank == 0;
    k.hostname = k.role + QString::number(k.roleIdx);
    k.host = QStringLiteral("h%1").arg(rank % 3 + 1);
    k.containerName = QStringLiteral("cd-%1-%2").arg(sessionId.left(8), k.hostname);
    k.status = KernelStatus::Creating;
    k.history = {{KernelStatus::Pending, at(0), {}}, {KernelStatus::Creating, at(2), {}}};
    k.ports = {{QStringLiteral("jupyter"), QStringLiteral("http"), 8080, 32768 + rank,
                QStringLiteral("http://192.168.213.11:%1").arg(32768 + rank)},
               {QStringLiteral("ssh"), QStringLiteral("tcp"), 2200, 0, {}}};
    if (rank % 2 == 0) {
        k.cpus = 1.5;
        k.memoryBytes = qint64(8) << 30;
    }
    k.createdAt = at(2);
    k.updatedAt = at(3);
    return k;
}

HostRecord makeHost(const QString &name, const QString &endpoint)
{
    HostRecord h;
    h.name = name;
    h.endpoint = endpoint;
    return h;
}

QList<KernelRecord> makeKernels(const QString &sessionId, int count)
{
    QList<KernelRecord> list;
    list.reserve(count);
    for (int i = 0; i < count; ++i)
        list.append(makeKernel(sessionId, i));
    return list;
}

// ---- child process modes

int childStatus(const QStringList &args)
{
    // status URL SESSION KERNEL COUNT TAG
    auto store = openStore(args.value(1));
    if (!store) {
        std::fprintf(stderr, "open: %s\n", qPrintable(store.error().toString()));
        return 2;
    }
    const int count = args.value(4).toInt();
    const QString tag = args.value(5);
    for (int i = 0; i < count; ++i) {
        const KernelStatus status = i % 2 ? KernelStatus::Running : KernelStatus::Restarting;
        auto updated = (*store)->updateKernelStatus(args.value(2), args.value(3), status,
                                                    tag + u'-' + QString::number(i));
        if (!updated) {
            std::fprintf(stderr, "update %d: %s\n", i, qPrintable(updated.error().toString()));
            return 1;
        }
        EventRecord e;
        e.actor = tag;
        e.sessionId = args.value(2);
        e.kernelId = args.value(3);
        e.action = QStringLiteral("kernel-status");
        e.detail = QString::number(i);
        if (auto seq = (*store)->appendEvent(e); !seq) {
            std::fprintf(stderr, "event %d: %s\n", i, qPrintable(seq.error().toString()));
            return 1;
        }
    }
    return 0;
}

int childLock(const QStringList &args)
{
    // lock URL SESSION WAIT_MS HOLD_MS
    auto store = openStore(args.value(1));
    if (!store) {
        std::fprintf(stderr, "open: %s\n", qPrintable(store.error().toString()));
        return 2;
    }
    auto lock =
        (*store)->lockSession(args.value(2), std::chrono::milliseconds(args.value(3).toInt()));
    if (!lock) {
        std::printf("busy %s\n", qPrintable(lock.error().message));
        std::fflush(stdout);
        return 3;
    }
    std::printf("locked %lld\n", QDateTime::currentMSecsSinceEpoch());
    std::fflush(stdout);
    QThread::msleep(args.value(4).toULong());
    // Before the release begins: a waiter may take the lock as soon as the release's first
    // step (etcd: the key's deletion, before the lease's revocation) is done.
    std::printf("releasing %lld\n", QDateTime::currentMSecsSinceEpoch());
    std::fflush(stdout);
    lock->reset();
    std::printf("unlocked %lld\n", QDateTime::currentMSecsSinceEpoch());
    std::fflush(stdout);
    return 0;
}

int childOpenWriteClose(const QStringList &args)
{
    // openwriteclose URL COUNT TAG: what a CLI command does, COUNT times over.
    const int count = args.value(2).toInt();
    for (int i = 0; i < count; ++i) {
        auto store = openStore(args.value(1));
        if (!store) {
            std::fprintf(stderr, "open %d: %s\n", i, qPrintable(store.error().toString()));
            return 2;
        }
        EventRecord e;
        e.actor = args.value(3);
        e.action = QStringLiteral("cli-write");
        e.detail = QString::number(i);
        if (auto seq = (*store)->appendEvent(e); !seq) {
            std::fprintf(stderr, "event %d: %s\n", i, qPrintable(seq.error().toString()));
            return 1;
        }
        QThread::msleep(20);
    }
    return 0;
}

int childDump(const QStringList &args)
{
    // dump URL: every host name, every event as actor/detail, then SQLite's integrity check.
    auto store = openStore(args.value(1));
    if (!store) {
        std::fprintf(stderr, "open: %s\n", qPrintable(store.error().toString()));
        return 2;
    }
    auto hosts = (*store)->hosts();
    auto events = (*store)->events(0, 100000);
    if (!hosts || !events) {
        std::fprintf(stderr, "read failed\n");
        return 1;
    }
    for (const HostRecord &h : *hosts)
        std::printf("host %s\n", qPrintable(h.name));
    for (const EventRecord &e : *events)
        std::printf("event %s/%s\n", qPrintable(e.actor), qPrintable(e.detail));
    store->reset();
    sqlite3 *db = nullptr;
    const QByteArray path = QUrl(args.value(1)).path().toUtf8();
    if (sqlite3_open_v2(path.constData(), &db, SQLITE_OPEN_READONLY, nullptr) != SQLITE_OK)
        return 3;
    sqlite3_stmt *check = nullptr;
    sqlite3_prepare_v2(db, "PRAGMA integrity_check", -1, &check, nullptr);
    while (sqlite3_step(check) == SQLITE_ROW)
        std::printf("integrity %s\n",
                    reinterpret_cast<const char *>(sqlite3_column_text(check, 0)));
    sqlite3_finalize(check);
    sqlite3_close(db);
    return 0;
}

OverlayPool makePool(const char *subnets, const char *vnis)
{
    auto pool = OverlayPool::parse(QLatin1StringView(subnets), QLatin1StringView(vnis));
    if (!pool)
        qFatal("bad pool in the test: %s", qPrintable(pool.error().toString()));
    return *pool;
}

int childClaim(const QStringList &args)
{
    // claim URL COUNT SUBNETS VNIS START_MS: COUNT new sessions, then, from START_MS (ms since
    // the epoch, so that every child claims at the same moment), a network claimed for each as
    // fast as it goes; prints "claimed SESSION VNI SUBNET" per claim.
    auto store = openStore(args.value(1));
    if (!store) {
        std::fprintf(stderr, "open: %s\n", qPrintable(store.error().toString()));
        return 2;
    }
    auto pool = OverlayPool::parse(args.value(3), args.value(4));
    if (!pool) {
        std::fprintf(stderr, "pool: %s\n", qPrintable(pool.error().toString()));
        return 2;
    }
    QStringList ids;
    for (int i = 0; i < args.value(2).toInt(); ++i) {
        const SessionRecord s = makeSession();
        if (auto ok = (*store)->createSession(s, {}); !ok) {
            std::fprintf(stderr, "create: %s\n", qPrintable(ok.error().toString()));
            return 1;
        }
        ids.append(s.id);
    }
    const qint64 wait = args.value(5).toLongLong() - QDateTime::currentMSecsSinceEpoch();
    if (wait > 0)
        QThread::msleep(wait);
    for (const QString &id : std::as_const(ids)) {
        auto claimed = (*store)->claimNetworkAllocation(id, *pool);
        if (!claimed) {
            std::fprintf(stderr, "claim: %s\n", qPrintable(claimed.error().toString()));
            return 1;
        }
        std::printf("claimed %s %u %s\n", qPrintable(id), claimed->vni,
                    qPrintable(claimed->subnet.toString()));
        std::fflush(stdout);
    }
    return 0;
}

int childSetting(const QStringList &args)
{
    // setting URL KEY COUNT: writes KEY = "v0" … "v<COUNT-1>", one write after the other, each
    // read back, then "done"; prints "wrote N" once the last one is written.
    auto store = openStore(args.value(1));
    if (!store) {
        std::fprintf(stderr, "open: %s\n", qPrintable(store.error().toString()));
        return 2;
    }
    const QString key = args.value(2);
    const int count = args.value(3).toInt();
    for (int i = 0; i <= count; ++i) {
        const QString value = i < count ? QStringLiteral("v%1").arg(i) : QStringLiteral("done");
        if (auto ok = (*store)->setSetting(key, value); !ok) {
            std::fprintf(stderr, "write %d: %s\n", i, qPrintable(ok.error().toString()));
            return 1;
        }
        auto read = (*store)->setting(key);
        if (!read || *read != value) {
            std::fprintf(stderr, "read back %d: %s\n", i,
                         qPrintable(read ? *read : read.error().toString()));
            return 1;
        }
    }
    std::printf("wrote %d\n", count);
    return 0;
}

} // namespace

class TestStoreContract : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase_data();
    void initTestCase();
    void init();
    void cleanup();

    void hostsCrud();
    void sessionsAndKernelsCrud();
    void kernelStatusHistory();
    void kernelProgressBatch();
    void createSessionIsAtomic();
    void updateKernelsIsAtomic();
    void resizeSession();
    void events();
    void notificationsOwnChanges();
    void notificationsFromOtherConnection();
    void concurrentWritersTwoProcesses();
    void twoConnectionsKeepTheirWritesWhileCliProcessesComeAndGo();
    void lockInProcess();
    void lockRowLeftByAFailedRelease();
    void lockRowOfAnEndedProcessWhoseReleaseFailed();
    void lockTwoProcesses();
    void refusesNewerSchema();
    void storeIdentity();
    void tamperedStoreIdIsRefused();
    void plainSecretsOnlyWhereTheyBelong();
    void legacyStoreLabelAfterMigration();
    void tenThousandKernels();
    void standbyCampaignWritesNothing();
    void modifyKernelsBeyondOneTransaction();
    void lockLostIsNoticed();
    void lockOwnerIsNotThePid();
    void createSessionReplyLost();
    void chunkedCreateInterrupted();
    void chunkedUpdateAllOrNothing();
    void resizeBeyondOneTransaction();
    void networkClaimIsIdempotentAndReleased();
    void networkClaimNeedsItsSession();
    void networkClaimExhausted();
    void networkClaimSkipsWhatHostsUse();
    void networkReclaimAfterCollision();
    void networkReleasedWithItsSession();
    void networkClaimsOfConcurrentProcesses();
    void networkAllocationsAfterMigration();
    void networkAllocationOfARemovedSessionIsStray();
    void settingKeys_data();
    void settingKeys();
    void settingsReadWriteRemove();
    void settingWrittenByAnotherProcess();
    void settingsAfterMigration();

private:
    QString backend() const;
    // A fresh, empty store location for the current test (file or etcd prefix).
    QString m_backend;
    QString m_url;
    QString m_etcdPrefix;
    std::unique_ptr<QTemporaryDir> m_dir;
    std::unique_ptr<StateStore> m_store;
    std::unique_ptr<Etcd::EtcdClient> m_etcd;

    std::unique_ptr<StateStore> openOrFail();
    QProcess *startChild(const QStringList &args);
};

QString TestStoreContract::backend() const
{
    return m_backend;
}

void TestStoreContract::initTestCase_data()
{
    QTest::addColumn<QString>("backend");
    // ctest runs the SQLite rows as a unit test and the etcd rows (which need the lab) apart:
    // CLUSTERDECK_STORE_BACKENDS=sqlite|etcd (unset: both).
    const QStringList only = qEnvironmentVariable("CLUSTERDECK_STORE_BACKENDS")
                                 .split(QLatin1Char(','), Qt::SkipEmptyParts);
    for (const QString &backend : {QStringLiteral("sqlite"), QStringLiteral("etcd")}) {
        if (only.isEmpty() || only.contains(backend))
            QTest::newRow(qPrintable(backend)) << backend;
    }
}

void TestStoreContract::initTestCase() {}

void TestStoreContract::init()
{
    QFETCH_GLOBAL(QString, backend);
    m_backend = backend;
    m_store.reset();
    if (backend == u"sqlite") {
        m_dir = std::make_unique<QTemporaryDir>();
        QVERIFY(m_dir->isValid());
        m_url = QStringLiteral("sqlite://") + m_dir->filePath(QStringLiteral("state.db"));
    } else {
        const QString endpoint = qEnvironmentVariable("CLUSTERDECK_LAB_ETCD");
        QVERIFY2(
            !endpoint.isEmpty(),
            "CLUSTERDECK_LAB_ETCD is not set: start the lab and eval \"$(scripts/lab.sh env)\"");
        Etcd::EtcdConfig config;
        config.endpoints = {endpoint};
        m_etcd = std::make_unique<Etcd::EtcdClient>(config);
        m_etcdPrefix = QStringLiteral("/cdtest-store/") + newId();
        m_url = QStringLiteral("etcd://") + QUrl(endpoint).authority() + m_etcdPrefix;
    }
    auto store = openStore(m_url);
    QVERIFY2(store, qPrintable(store ? QString() : store.error().toString()));
    m_store = std::move(*store);
}

void TestStoreContract::cleanup()
{
    m_store.reset();
    if (m_etcd && !m_etcdPrefix.isEmpty()) {
        auto removed = m_etcd->removePrefix((m_etcdPrefix + u'/').toUtf8());
        QVERIFY2(removed, qPrintable(removed ? QString() : removed.error().toString()));
    }
    m_etcd.reset();
    m_etcdPrefix.clear();
    m_dir.reset();
}

std::unique_ptr<StateStore> TestStoreContract::openOrFail()
{
    auto store = openStore(m_url);
    if (!store) {
        qWarning("%s", qPrintable(store.error().toString()));
        return {};
    }
    return std::move(*store);
}

QProcess *TestStoreContract::startChild(const QStringList &args)
{
    auto *process = new QProcess(this);
    process->setProcessChannelMode(QProcess::SeparateChannels);
    process->start(QCoreApplication::applicationFilePath(),
                   QStringList{QStringLiteral("--child")} + args);
    return process;
}

#define CHECK_OK(expr)                                                                             \
    do {                                                                                           \
        const auto &r_ = (expr);                                                                   \
        QVERIFY2(r_.has_value(), qPrintable(r_ ? QString() : r_.error().toString()));              \
    } while (false)

void TestStoreContract::hostsCrud()
{
    HostRecord h1{QStringLiteral("h1"),
                  QStringLiteral("unix:///run/cdlab/h1/docker.sock"),
                  {},
                  {},
                  {},
                  QStringLiteral("192.168.213.11"),
                  {{QStringLiteral("zone"), QStringLiteral("a")}},
                  at(0)};
    HostRecord h2{QStringLiteral("h2"),
                  QStringLiteral("tcp+tls://192.168.213.12:2376"),
                  QStringLiteral("/pki/ca.pem"),
                  QStringLiteral("/pki/cert.pem"),
                  QStringLiteral("/pki/key.pem"),
                  {},
                  {},
                  at(5)};
    CHECK_OK(m_store->putHost(h2));
    CHECK_OK(m_store->putHost(h1));
    auto list = m_store->hosts();
    CHECK_OK(list);
    QCOMPARE(*list, (QList<HostRecord>{h1, h2}));
    auto one = m_store->host(QStringLiteral("h2"));
    CHECK_OK(one);
    QCOMPARE(*one, h2);

    h1.labels.insert(QStringLiteral("gpu"), QStringLiteral("a100"));
    h1.publicAddress = QStringLiteral("10.0.0.1");
    CHECK_OK(m_store->putHost(h1));
    QCOMPARE(*m_store->host(QStringLiteral("h1")), h1);

    CHECK_OK(m_store->removeHost(QStringLiteral("h2")));
    auto gone = m_store->host(QStringLiteral("h2"));
    QVERIFY(!gone);
    QCOMPARE(gone.error().kind, Error::Kind::NotFound);
    auto again = m_store->removeHost(QStringLiteral("h2"));
    QVERIFY(!again);
    QCOMPARE(again.error().kind, Error::Kind::NotFound);
    QCOMPARE(m_store->hosts()->size(), 1);
}

void TestStoreContract::sessionsAndKernelsCrud()
{
    SessionRecord s = makeSession();
    QList<KernelRecord> kernels = makeKernels(s.id, 3);
    CHECK_OK(m_store->createSession(s, kernels));

    auto read = m_store->session(s.id);
    CHECK_OK(read);
    QCOMPARE(*read, s);
    auto readKernels = m_store->kernels(s.id);
    CHECK_OK(readKernels);
    QCOMPARE(*readKernels, kernels);
    QCOMPARE(*m_store->kernel(s.id, kernels[1].id), kernels[1]);
    QCOMPARE(m_store->sessions()->size(), 1);

    // A second session, to see that listings keep sessions apart.
    SessionRecord other = makeSession();
    other.createdAt = at(100);
    CHECK_OK(m_store->createSession(other, makeKernels(other.id, 2)));
    auto all = m_store->sessions();
    CHECK_OK(all);
    QCOMPARE(all->size(), 2);
    QCOMPARE(m_store->allKernels()->size(), 5);
    QCOMPARE(m_store->kernels(other.id)->size(), 2);

    s.status = SessionStatus::Running;
    s.history.append({SessionStatus::Running, at(10), {}});
    s.networkId = QStringLiteral("n0tw0rk");
    s.restartCount = 2;
    CHECK_OK(m_store->updateSession(s));
    QCOMPARE(*m_store->session(s.id), s);

    kernels[0].containerId = QStringLiteral("abc123");
    kernels[0].status = KernelStatus::Running;
    kernels[0].cpus.reset();
    CHECK_OK(m_store->updateKernel(kernels[0]));
    QCOMPARE(*m_store->kernel(s.id, kernels[0].id), kernels[0]);

    kernels[1].status = KernelStatus::Running;
    kernels[2].status = KernelStatus::Error;
    s.status = SessionStatus::Degraded;
    s.lastError = QStringLiteral("worker2 on h3: OOM killed");
    CHECK_OK(m_store->updateKernels({kernels[1], kernels[2]}, s));
    QCOMPARE(*m_store->kernels(s.id), kernels);
    QCOMPARE(*m_store->session(s.id), s);

    SessionRecord missing = makeSession();
    auto notThere = m_store->updateSession(missing);
    QVERIFY(!notThere);
    QCOMPARE(notThere.error().kind, Error::Kind::NotFound);
    KernelRecord stray = makeKernel(s.id, 9);
    auto noKernel = m_store->updateKernel(stray);
    QVERIFY(!noKernel);
    QCOMPARE(noKernel.error().kind, Error::Kind::NotFound);
    QCOMPARE(m_store->kernel(s.id, stray.id).error().kind, Error::Kind::NotFound);

    CHECK_OK(m_store->removeSession(s.id));
    QCOMPARE(m_store->session(s.id).error().kind, Error::Kind::NotFound);
    QVERIFY(m_store->kernels(s.id)->isEmpty());
    QCOMPARE(m_store->allKernels()->size(), 2);
    QCOMPARE(m_store->removeSession(s.id).error().kind, Error::Kind::NotFound);
}

void TestStoreContract::kernelStatusHistory()
{
    const SessionRecord s = makeSession();
    const QList<KernelRecord> kernels = makeKernels(s.id, 2);
    CHECK_OK(m_store->createSession(s, kernels));
    auto updated = m_store->updateKernelStatus(s.id, kernels[1].id, KernelStatus::Running,
                                               QStringLiteral("started"));
    CHECK_OK(updated);
    QVERIFY(updated->status == KernelStatus::Running);
    QCOMPARE(updated->history.size(), kernels[1].history.size() + 1);
    QVERIFY(updated->history.last().status == KernelStatus::Running);
    QCOMPARE(updated->history.last().reason, QStringLiteral("started"));
    QCOMPARE(*m_store->kernel(s.id, kernels[1].id), *updated);
    QCOMPARE(*m_store->kernel(s.id, kernels[0].id), kernels[0]);
    QCOMPARE(m_store->updateKernelStatus(s.id, newId(), KernelStatus::Running).error().kind,
             Error::Kind::NotFound);
}

void TestStoreContract::kernelProgressBatch()
{
    const SessionRecord s = makeSession();
    QList<KernelRecord> kernels = makeKernels(s.id, 3);
    kernels[2].history.clear(); // appending to an empty history
    CHECK_OK(m_store->createSession(s, kernels));
    // Another writer's change in between: kept.
    KernelRecord desired = kernels[0];
    desired.desired = DesiredState::Terminated;
    CHECK_OK(m_store->updateKernel(desired));

    KernelProgress first;
    first.kernel = {s.id, kernels[0].id};
    first.changes = {{KernelStatus::Creating, at(4), {}},
                     {KernelStatus::Running, at(5), QStringLiteral("started")}};
    first.containerId = QStringLiteral("c0ffee");
    first.ports = QList<PortBinding>{{QStringLiteral("ssh"), QStringLiteral("tcp"), 22, 40022, {}}};
    first.updatedAt = at(5);
    KernelProgress second;
    second.kernel = {s.id, kernels[2].id};
    second.changes = {{KernelStatus::Error, at(6), QStringLiteral("exited")}};
    second.updatedAt = at(6);
    KernelProgress containerOnly;
    containerOnly.kernel = {s.id, kernels[1].id};
    containerOnly.containerId = QStringLiteral("beef");
    containerOnly.updatedAt = at(7);
    KernelProgress missing; // skipped
    missing.kernel = {s.id, newId()};
    missing.changes = {{KernelStatus::Running, at(5), {}}};
    missing.updatedAt = at(5);
    CHECK_OK(m_store->recordKernelProgress({first, second, containerOnly, missing}));

    KernelRecord want0 = desired;
    want0.status = KernelStatus::Running;
    want0.history += first.changes;
    want0.containerId = QStringLiteral("c0ffee");
    want0.ports = *first.ports;
    want0.updatedAt = at(5);
    QCOMPARE(*m_store->kernel(s.id, kernels[0].id), want0);
    KernelRecord want1 = kernels[1];
    want1.containerId = QStringLiteral("beef");
    want1.updatedAt = at(7);
    QCOMPARE(*m_store->kernel(s.id, kernels[1].id), want1);
    KernelRecord want2 = kernels[2];
    want2.status = KernelStatus::Error;
    want2.history = second.changes;
    want2.updatedAt = at(6);
    QCOMPARE(*m_store->kernel(s.id, kernels[2].id), want2);
    QCOMPARE(m_store->kernels(s.id)->size(), 3);

    // The desired state, with the session in the same transaction.
    SessionRecord ended = s;
    ended.desired = DesiredState::Terminated;
    KernelProgress stop;
    stop.kernel = {s.id, kernels[1].id};
    stop.desired = DesiredState::Terminated;
    stop.updatedAt = at(8);
    CHECK_OK(m_store->recordKernelProgress({stop}, ended));
    want1.desired = DesiredState::Terminated;
    want1.updatedAt = at(8);
    QCOMPARE(*m_store->kernel(s.id, kernels[1].id), want1);
    QCOMPARE(*m_store->kernel(s.id, kernels[2].id), want2);
    QCOMPARE(*m_store->session(s.id), ended);
}

void TestStoreContract::createSessionIsAtomic()
{
    // A duplicate kernel id half-way through: nothing of the session may remain.
    const SessionRecord s = makeSession();
    QList<KernelRecord> kernels = makeKernels(s.id, 6);
    kernels[4].id = kernels[1].id;
    auto created = m_store->createSession(s, kernels);
    QVERIFY(!created);
    QVERIFY2(created.error().kind == Error::Kind::Conflict ||
                 created.error().kind == Error::Kind::Invalid,
             qPrintable(created.error().toString()));
    QCOMPARE(m_store->session(s.id).error().kind, Error::Kind::NotFound);
    QVERIFY(m_store->kernels(s.id)->isEmpty());
    QVERIFY(m_store->allKernels()->isEmpty());
    QVERIFY(m_store->sessions()->isEmpty());

    // An existing session id: the second create changes nothing.
    const QList<KernelRecord> first = makeKernels(s.id, 2);
    CHECK_OK(m_store->createSession(s, first));
    SessionRecord again = s;
    again.name = QStringLiteral("impostor");
    auto twice = m_store->createSession(again, makeKernels(s.id, 3));
    QVERIFY(!twice);
    QCOMPARE(twice.error().kind, Error::Kind::Conflict);
    QCOMPARE(*m_store->session(s.id), s);
    QCOMPARE(*m_store->kernels(s.id), first);
}

void TestStoreContract::updateKernelsIsAtomic()
{
    SessionRecord s = makeSession();
    QList<KernelRecord> kernels = makeKernels(s.id, 3);
    CHECK_OK(m_store->createSession(s, kernels));
    KernelRecord changed = kernels[0];
    changed.status = KernelStatus::Running;
    KernelRecord unknown = makeKernel(s.id, 7);
    SessionRecord changedSession = s;
    changedSession.status = SessionStatus::Running;
    auto result = m_store->updateKernels({changed, unknown}, changedSession);
    QVERIFY(!result);
    QCOMPARE(result.error().kind, Error::Kind::NotFound);
    QCOMPARE(*m_store->kernels(s.id), kernels);
    QCOMPARE(*m_store->session(s.id), s);
}

void TestStoreContract::resizeSession()
{
    // `scale`: the session, new kernels and removed kernels in one transaction.
    SessionRecord s = makeSession();
    const QList<KernelRecord> kernels = makeKernels(s.id, 3);
    CHECK_OK(m_store->createSession(s, kernels));
    QSignalSpy changed(m_store.get(), &StateStore::sessionChanged);
    QSignalSpy kernelChanged(m_store.get(), &StateStore::kernelChanged);
    const KernelRecord added = makeKernel(s.id, 7);
    s.name = QStringLiteral("resized");
    CHECK_OK(m_store->resizeSession(s, {added}, {kernels[2].id}));
    QCOMPARE(*m_store->session(s.id), s);
    QList<QString> ids;
    const auto after = m_store->kernels(s.id);
    CHECK_OK(after);
    for (const KernelRecord &k : *after)
        ids.append(k.id);
    std::sort(ids.begin(), ids.end());
    QList<QString> expected{kernels[0].id, kernels[1].id, added.id};
    std::sort(expected.begin(), expected.end());
    QCOMPARE(ids, expected);
    QCOMPARE(*m_store->kernel(s.id, added.id), added);
    QTRY_VERIFY(changed.count() >= 1);
    QTRY_VERIFY(kernelChanged.count() >= 1);
    bool announced = false;
    for (const auto &args : std::as_const(kernelChanged))
        announced = announced || args.at(1).toString() == added.id;
    QVERIFY(announced);

    // An id already used: nothing changes (the session neither).
    SessionRecord again = s;
    again.name = QStringLiteral("not this");
    auto twice = m_store->resizeSession(again, {makeKernel(s.id, 8), added}, {kernels[0].id});
    QVERIFY(!twice);
    QCOMPARE(*m_store->session(s.id), s);
    QCOMPARE(m_store->kernels(s.id)->size(), 3);
    QVERIFY(m_store->kernel(s.id, kernels[0].id));

    // A session that is gone: an error, no kernels appear.
    SessionRecord ghost = makeSession();
    QVERIFY(!m_store->resizeSession(ghost, {makeKernel(ghost.id, 1)}, {}));
    QVERIFY(m_store->kernels(ghost.id)->isEmpty());
}

void TestStoreContract::events()
{
    QList<qint64> seqs;
    for (int i = 0; i < 5; ++i) {
        EventRecord e{0,
                      at(i),
                      QStringLiteral("alice@console1"),
                      newId(),
                      {},
                      QStringLiteral("launch"),
                      QStringLiteral("event %1").arg(i)};
        auto seq = m_store->appendEvent(e);
        CHECK_OK(seq);
        if (!seqs.isEmpty())
            QVERIFY(*seq > seqs.last());
        seqs.append(*seq);
    }
    auto all = m_store->events();
    CHECK_OK(all);
    QCOMPARE(all->size(), 5);
    for (int i = 0; i < 5; ++i) {
        QCOMPARE(all->at(i).seq, seqs[i]);
        QCOMPARE(all->at(i).detail, QStringLiteral("event %1").arg(i));
        QCOMPARE(all->at(i).at, at(i));
        QCOMPARE(all->at(i).actor, QStringLiteral("alice@console1"));
    }
    auto after = m_store->events(seqs[1], 2);
    CHECK_OK(after);
    QCOMPARE(after->size(), 2);
    QCOMPARE(after->at(0).seq, seqs[2]);
    QCOMPARE(after->at(1).seq, seqs[3]);
    QVERIFY(m_store->events(seqs.last())->isEmpty());
}

void TestStoreContract::notificationsOwnChanges()
{
    QSignalSpy hostChanged(m_store.get(), &StateStore::hostChanged);
    QSignalSpy hostRemoved(m_store.get(), &StateStore::hostRemoved);
    QSignalSpy added(m_store.get(), &StateStore::sessionAdded);
    QSignalSpy changed(m_store.get(), &StateStore::sessionChanged);
    QSignalSpy removed(m_store.get(), &StateStore::sessionRemoved);
    QSignalSpy kernelChanged(m_store.get(), &StateStore::kernelChanged);
    QSignalSpy eventAppended(m_store.get(), &StateStore::eventAppended);

    CHECK_OK(m_store->putHost(makeHost(QStringLiteral("h1"), QStringLiteral("unix:///x.sock"))));
    QTRY_COMPARE(hostChanged.count(), 1);
    QCOMPARE(hostChanged.at(0).at(0).toString(), QStringLiteral("h1"));

    SessionRecord s = makeSession();
    QList<KernelRecord> kernels = makeKernels(s.id, 3);
    CHECK_OK(m_store->createSession(s, kernels));
    QTRY_COMPARE(added.count(), 1);
    QCOMPARE(added.at(0).at(0).toString(), s.id);

    CHECK_OK(m_store->updateKernelStatus(s.id, kernels[2].id, KernelStatus::Running));
    QTRY_COMPARE(kernelChanged.count(), 1);
    QCOMPARE(kernelChanged.at(0).at(0).toString(), s.id);
    QCOMPARE(kernelChanged.at(0).at(1).toString(), kernels[2].id);

    s.status = SessionStatus::Running;
    CHECK_OK(m_store->updateSession(s));
    QTRY_COMPARE(changed.count(), 1);

    auto seq = m_store->appendEvent(
        {0, at(0), QStringLiteral("test"), s.id, {}, QStringLiteral("launch"), {}});
    CHECK_OK(seq);
    QTRY_COMPARE(eventAppended.count(), 1);
    QCOMPARE(eventAppended.at(0).at(0).toLongLong(), *seq);

    CHECK_OK(m_store->removeSession(s.id));
    QTRY_COMPARE(removed.count(), 1);
    QCOMPARE(removed.at(0).at(0).toString(), s.id);
    CHECK_OK(m_store->removeHost(QStringLiteral("h1")));
    QTRY_COMPARE(hostRemoved.count(), 1);

    // Nothing extra: creating and removing a session is one signal each, not one per kernel.
    QTest::qWait(700);
    QCOMPARE(kernelChanged.count(), 1);
    QCOMPARE(added.count(), 1);
    QCOMPARE(changed.count(), 1);
    QCOMPARE(hostChanged.count(), 1);
}

void TestStoreContract::notificationsFromOtherConnection()
{
    // A second store on the same URL stands for another console or a CLI run.
    std::unique_ptr<StateStore> other = openOrFail();
    QVERIFY(other);
    QSignalSpy added(m_store.get(), &StateStore::sessionAdded);
    QSignalSpy kernelChanged(m_store.get(), &StateStore::kernelChanged);
    QSignalSpy hostChanged(m_store.get(), &StateStore::hostChanged);

    SessionRecord s = makeSession();
    QList<KernelRecord> kernels = makeKernels(s.id, 2);
    CHECK_OK(other->createSession(s, kernels));
    CHECK_OK(other->updateKernelStatus(s.id, kernels[0].id, KernelStatus::Running));
    CHECK_OK(other->putHost(makeHost(QStringLiteral("h9"), QStringLiteral("tcp://10.0.0.9:2375"))));
    QTRY_COMPARE_WITH_TIMEOUT(added.count(), 1, 5000);
    QTRY_COMPARE_WITH_TIMEOUT(kernelChanged.count(), 1, 5000);
    QTRY_COMPARE_WITH_TIMEOUT(hostChanged.count(), 1, 5000);
    QCOMPARE(kernelChanged.at(0).at(1).toString(), kernels[0].id);
    QVERIFY(m_store->kernel(s.id, kernels[0].id)->status == KernelStatus::Running);
}

void TestStoreContract::concurrentWritersTwoProcesses()
{
    const int perProcess = 500;
    const SessionRecord s = makeSession();
    const QList<KernelRecord> kernels = makeKernels(s.id, 2);
    CHECK_OK(m_store->createSession(s, kernels));
    m_store.reset(); // only the children write now

    // Both processes update the same kernel: a read-modify-write that loses nothing.
    QElapsedTimer timer;
    timer.start();
    QProcess *a = startChild({QStringLiteral("status"), m_url, s.id, kernels[0].id,
                              QString::number(perProcess), QStringLiteral("a")});
    QProcess *b = startChild({QStringLiteral("status"), m_url, s.id, kernels[0].id,
                              QString::number(perProcess), QStringLiteral("b")});
    for (QProcess *p : {a, b}) {
        QVERIFY(p->waitForFinished(240000));
        QVERIFY2(p->exitStatus() == QProcess::NormalExit && p->exitCode() == 0,
                 qPrintable(QString::fromUtf8(p->readAllStandardError())));
        QVERIFY2(p->readAllStandardError().isEmpty(), "a child reported an error");
    }
    qInfo("%s: 2 processes x %d status updates + events in %lld ms", qPrintable(m_backend),
          perProcess, timer.elapsed());

    auto store = openOrFail();
    QVERIFY(store);
    auto kernel = store->kernel(s.id, kernels[0].id);
    CHECK_OK(kernel);
    QCOMPARE(kernel->history.size(), kernels[0].history.size() + 2 * perProcess);
    QSet<QString> reasons;
    for (const KernelStatusChange &c : kernel->history)
        reasons.insert(c.reason);
    for (int i = 0; i < perProcess; ++i) {
        QVERIFY(reasons.contains(QStringLiteral("a-%1").arg(i)));
        QVERIFY(reasons.contains(QStringLiteral("b-%1").arg(i)));
    }
    auto events = store->events(0, 10 * perProcess);
    CHECK_OK(events);
    QCOMPARE(events->size(), 2 * perProcess);
    QSet<qint64> seqs;
    for (const EventRecord &e : *events)
        seqs.insert(e.seq);
    QCOMPARE(seqs.size(), 2 * perProcess);
    m_store = std::move(store);
}

// Issue 24 A: the console holds two connections (its views', its embedded controller's) while CLI
// processes open, write and close the same file. Nothing written through either connection may be
// lost: before the fix, opening the second connection closed a descriptor of the database file,
// which dropped the process's locks; the next CLI process then believed it was the last
// connection, checkpointed and deleted the WAL, and this process's writes went to a deleted file.
void TestStoreContract::twoConnectionsKeepTheirWritesWhileCliProcessesComeAndGo()
{
    if (m_backend != u"sqlite")
        QSKIP("POSIX locks of a SQLite file: nothing of the kind on etcd");
    CHECK_OK(m_store->putHost(makeHost(QStringLiteral("first-0"), QStringLiteral("unix:///a"))));
    auto second = openOrFail();
    QVERIFY(second);
    CHECK_OK(second->putHost(makeHost(QStringLiteral("second-0"), QStringLiteral("unix:///b"))));

    const int cliWrites = 15;
    QProcess *cli = startChild({QStringLiteral("openwriteclose"), m_url, QString::number(cliWrites),
                                QStringLiteral("cli")});
    QVERIFY(cli->waitForStarted());
    int written = 1;
    // Written while the CLI process comes and goes, and after it has gone.
    while (cli->state() != QProcess::NotRunning) {
        CHECK_OK(m_store->putHost(
            makeHost(QStringLiteral("first-%1").arg(written), QStringLiteral("unix:///a"))));
        CHECK_OK(second->putHost(
            makeHost(QStringLiteral("second-%1").arg(written), QStringLiteral("unix:///b"))));
        ++written;
        cli->waitForFinished(15);
    }
    QVERIFY2(cli->exitStatus() == QProcess::NormalExit && cli->exitCode() == 0,
             qPrintable(QString::fromUtf8(cli->readAllStandardError())));
    for (int i = 0; i < 5; ++i, ++written) {
        CHECK_OK(m_store->putHost(
            makeHost(QStringLiteral("first-%1").arg(written), QStringLiteral("unix:///a"))));
        CHECK_OK(second->putHost(
            makeHost(QStringLiteral("second-%1").arg(written), QStringLiteral("unix:///b"))));
    }

    // A third process reads every write of both connections and of the CLI process.
    QProcess *reader = startChild({QStringLiteral("dump"), m_url});
    QVERIFY(reader->waitForFinished(60000));
    QVERIFY2(reader->exitStatus() == QProcess::NormalExit && reader->exitCode() == 0,
             qPrintable(QString::fromUtf8(reader->readAllStandardError())));
    const QStringList lines =
        QString::fromUtf8(reader->readAllStandardOutput()).split(u'\n', Qt::SkipEmptyParts);
    QStringList missing;
    for (int i = 0; i < written; ++i) {
        for (const QString &h : {QStringLiteral("host first-%1"), QStringLiteral("host second-%1")})
            if (!lines.contains(h.arg(i)))
                missing.append(h.arg(i));
    }
    for (int i = 0; i < cliWrites; ++i)
        if (!lines.contains(QStringLiteral("event cli/%1").arg(i)))
            missing.append(QStringLiteral("event cli/%1").arg(i));
    qInfo("%d writes by each of two connections, %d by CLI processes; %lld missing in a third "
          "process",
          written, cliWrites, qlonglong(missing.size()));
    QVERIFY2(missing.isEmpty(), qPrintable(missing.join(u", ")));
    QVERIFY2(lines.contains(QStringLiteral("integrity ok")), qPrintable(lines.join(u'\n')));

    // And this process holds no descriptor of a deleted -wal or -shm.
    const QString path = QUrl(m_url).path();
    for (const QString &fd : QDir(QStringLiteral("/proc/self/fd")).entryList(QDir::System)) {
        char buffer[4096];
        const ssize_t n = ::readlink(QFile::encodeName(QStringLiteral("/proc/self/fd/") + fd),
                                     buffer, sizeof buffer - 1);
        const QString target = QString::fromLocal8Bit(buffer, n > 0 ? n : 0);
        QVERIFY2(!(target.startsWith(path) && target.endsWith(QLatin1String("(deleted)"))),
                 qPrintable(target));
    }
}

void TestStoreContract::lockInProcess()
{
    const QString sid = newId();
    auto first = m_store->lockSession(sid, 1s);
    CHECK_OK(first);
    QElapsedTimer timer;
    timer.start();
    auto second = m_store->lockSession(sid, 300ms);
    QVERIFY(!second);
    QVERIFY(timer.elapsed() >= 250);
    QCOMPARE(second.error().kind, Error::Kind::Conflict);
    QVERIFY2(
        second.error().message.contains(QStringLiteral("session %1 is busy: locked by ").arg(sid)),
        qPrintable(second.error().message));
    QVERIFY2(second.error().message.contains(QStringLiteral(" since ")),
             qPrintable(second.error().message));
    // Other sessions are not affected.
    auto unrelated = m_store->lockSession(newId(), 0ms);
    CHECK_OK(unrelated);
    first->reset();
    auto third = m_store->lockSession(sid, 2s);
    CHECK_OK(third);
}

void TestStoreContract::lockRowLeftByAFailedRelease()
{
    // A release whose DELETE failed (the disk was full) leaves a row of this process with a
    // token nobody holds: it must not keep the session busy for the lock's TTL (5 min), which
    // once kept a controller from repairing the session it had just given up.
    if (backend() != u"sqlite")
        QSKIP("etcd locks live on a lease that expires with the holder");
    const QString sid = newId();
    auto other = openStore(m_url);
    CHECK_OK(other);
    auto held = (*other)->lockSession(sid, 1s);
    CHECK_OK(held);
    // Another store object of this process holding the lock still blocks us.
    auto blocked = m_store->lockSession(sid, 100ms);
    QVERIFY(!blocked);
    QCOMPARE(blocked.error().kind, Error::Kind::Conflict);

    const QByteArray path = m_url.mid(QStringLiteral("sqlite://").size()).toUtf8();
    sqlite3 *db = nullptr;
    QCOMPARE(sqlite3_open(path.constData(), &db), SQLITE_OK);
    const QByteArray sql =
        "UPDATE locks SET token = 'released-but-not-deleted' WHERE session_id = '" + sid.toUtf8() +
        "'";
    QCOMPARE(sqlite3_exec(db, sql.constData(), nullptr, nullptr, nullptr), SQLITE_OK);
    QCOMPARE(sqlite3_changes(db), 1);
    sqlite3_close(db);

    QElapsedTimer timer;
    timer.start();
    auto taken = m_store->lockSession(sid, 0ms);
    CHECK_OK(taken);
    QVERIFY2(timer.elapsed() < 2000, qPrintable(QString::number(timer.elapsed())));
}

void TestStoreContract::lockRowOfAnEndedProcessWhoseReleaseFailed()
{
    // A launch whose store filled up cannot delete its lock row, then exits normally. Its owner
    // file must outlive it, so the controller takes the session over at once instead of after
    // the lock's TTL (5 min): the chaos suite's sqlite-full trial once saw a session stay
    // PROVISIONING for that reason.
    if (backend() != u"sqlite")
        QSKIP("etcd locks live on a lease that expires with the holder");
    const QString sid = newId();
    const QByteArray path = m_url.mid(QStringLiteral("sqlite://").size()).toUtf8();
    auto sql = [&](const QByteArray &statement) {
        sqlite3 *db = nullptr;
        int rc = sqlite3_open(path.constData(), &db);
        if (rc == SQLITE_OK)
            rc = sqlite3_exec(db, statement.constData(), nullptr, nullptr, nullptr);
        sqlite3_close(db);
        return rc;
    };
    // The release's DELETE fails as it would on a full disk.
    QCOMPARE(sql("CREATE TRIGGER release_fails BEFORE DELETE ON locks WHEN old.session_id = '" +
                 sid.toUtf8() + "' BEGIN SELECT RAISE(ABORT, 'database or disk is full'); END"),
             SQLITE_OK);
    QProcess *holder = startChild(
        {QStringLiteral("lock"), m_url, sid, QStringLiteral("5000"), QStringLiteral("100")});
    QVERIFY(holder->waitForFinished(30000));
    QCOMPARE(holder->exitCode(), 0);
    QVERIFY2(holder->readAllStandardError().contains("could not release the lock"),
             "the child's release did not fail: the case would not test anything");
    QCOMPARE(sql("DROP TRIGGER release_fails"), SQLITE_OK);

    QElapsedTimer timer;
    timer.start();
    auto taken = m_store->lockSession(sid, 0ms);
    CHECK_OK(taken);
    QVERIFY2(timer.elapsed() < 2000, qPrintable(QString::number(timer.elapsed())));
}

void TestStoreContract::lockTwoProcesses()
{
    const QString sid = newId();
    QProcess *holder = startChild(
        {QStringLiteral("lock"), m_url, sid, QStringLiteral("5000"), QStringLiteral("1500")});
    QVERIFY(holder->waitForReadyRead(20000));
    const QByteArray line = holder->readLine();
    QVERIFY2(line.startsWith("locked"), line.constData());

    // We cannot take it right now: a clear "busy" error naming the holder.
    auto busy = m_store->lockSession(sid, 100ms);
    QVERIFY(!busy);
    QCOMPARE(busy.error().kind, Error::Kind::Conflict);
    QVERIFY2(busy.error().message.contains(QStringLiteral("is busy: locked by ")),
             qPrintable(busy.error().message));
    QVERIFY2(busy.error().message.contains(QString::number(holder->processId())),
             qPrintable(busy.error().message));

    // A second process waits until the holder lets go.
    QProcess *waiter = startChild(
        {QStringLiteral("lock"), m_url, sid, QStringLiteral("20000"), QStringLiteral("0")});
    QVERIFY(waiter->waitForFinished(30000));
    QVERIFY(holder->waitForFinished(30000));
    QCOMPARE(holder->exitCode(), 0);
    QCOMPARE(waiter->exitCode(), 0);
    const QList<QByteArray> holderLines = holder->readAllStandardOutput().split('\n');
    const QList<QByteArray> waiterLines = waiter->readAllStandardOutput().split('\n');
    // Mutual exclusion: the waiter holds it only once the holder has begun to let go (the
    // holder's "unlocked" comes after its whole release, which on etcd also revokes the lease
    // while the waiter already holds the lock: a CI run saw "locked" 6 ms before "unlocked").
    QVERIFY2(holderLines.value(0).startsWith("releasing"), holderLines.value(0).constData());
    const qint64 releasing = holderLines.value(0).split(' ').value(1).toLongLong();
    const qint64 taken = waiterLines.value(0).split(' ').value(1).toLongLong();
    QVERIFY2(waiterLines.value(0).startsWith("locked"), waiterLines.value(0).constData());
    QVERIFY2(taken >= releasing,
             qPrintable(QStringLiteral("taken %1, release begun %2").arg(taken).arg(releasing)));
    const qint64 unlocked = holderLines.value(1).split(' ').value(1).toLongLong();
    qInfo("the waiter took the lock %lld ms after the release began; the release ended %lld ms "
          "after that",
          taken - releasing, unlocked - taken);

    auto ours = m_store->lockSession(sid, 5s);
    CHECK_OK(ours);
}

void TestStoreContract::refusesNewerSchema()
{
    m_store.reset();
    if (backend() == u"sqlite") {
        const QByteArray path = m_url.mid(QStringLiteral("sqlite://").size()).toUtf8();
        sqlite3 *db = nullptr;
        QCOMPARE(sqlite3_open(path.constData(), &db), SQLITE_OK);
        QCOMPARE(sqlite3_exec(db, "PRAGMA user_version=99", nullptr, nullptr, nullptr), SQLITE_OK);
        sqlite3_close(db);
    } else {
        CHECK_OK(m_etcd->put((m_etcdPrefix + QStringLiteral("/meta/schema")).toUtf8(), "99"));
    }
    auto store = openStore(m_url);
    QVERIFY(!store);
    QVERIFY2(store.error().message.contains(QStringLiteral(
                 "was written by a newer ClusterDeck (schema 99, this build knows ")),
             qPrintable(store.error().toString()));
}

// Every store has a random UUID made with it: stable across opens and connections, different
// for another store at the same location (a file moved away and made again, a new prefix).
void TestStoreContract::storeIdentity()
{
    const QString id = m_store->storeId();
    QVERIFY2(!QUuid::fromString(id).isNull(), qPrintable(id));
    QVERIFY(m_store->legacyStoreLabels().isEmpty());
    auto second = openOrFail();
    QVERIFY(second);
    QCOMPARE(second->storeId(), id);
    CHECK_OK(m_store->createSession(makeSession(), {}));
    m_store.reset();
    second.reset();
    // The same location, emptied: a new store, a new id.
    if (backend() == u"sqlite") {
        const QString path = m_url.mid(QStringLiteral("sqlite://").size());
        QVERIFY(QFile::rename(path, path + QStringLiteral(".moved")));
        QFile::remove(path + QStringLiteral("-wal"));
        QFile::remove(path + QStringLiteral("-shm"));
    } else {
        CHECK_OK(m_etcd->removePrefix((m_etcdPrefix + u'/').toUtf8()));
    }
    auto fresh = openOrFail();
    QVERIFY(fresh);
    QVERIFY(!fresh->storeId().isEmpty());
    QVERIFY2(fresh->storeId() != id, qPrintable(id));
    QVERIFY(fresh->legacyStoreLabels().isEmpty());
    qInfo("%s: store id %s, after re-creation %s", qPrintable(m_backend), qPrintable(id),
          qPrintable(fresh->storeId()));
    m_store = std::move(fresh);
}

// Issue 24 D.12: the store id names the store key's file; one that is not a UUID (a tampered
// meta/id such as "../../x") makes the store refuse to open instead of writing, chmodding or
// deleting files outside the key folder.
void TestStoreContract::tamperedStoreIdIsRefused()
{
    m_store.reset();
    const QByteArray tampered = "../../tampered";
    if (backend() == u"sqlite") {
        const QByteArray path = m_url.mid(QStringLiteral("sqlite://").size()).toUtf8();
        sqlite3 *db = nullptr;
        QCOMPARE(sqlite3_open(path.constData(), &db), SQLITE_OK);
        const QByteArray sql = "UPDATE meta SET value = '" + tampered + "' WHERE key = 'id'";
        QCOMPARE(sqlite3_exec(db, sql.constData(), nullptr, nullptr, nullptr), SQLITE_OK);
        sqlite3_close(db);
    } else {
        CHECK_OK(m_etcd->put((m_etcdPrefix + QStringLiteral("/meta/id")).toUtf8(), tampered));
    }
    auto refused = openStore(m_url);
    QVERIFY(!refused);
    QVERIFY2(refused.error().message.contains(QStringLiteral("is not a UUID")),
             qPrintable(refused.error().toString()));
    qInfo("%s: %s", qPrintable(m_backend), qPrintable(refused.error().toString()));
}

// Plain-text secrets are SQLite's format (the file is the user's alone). On etcd they are
// records from before the store key; once the store has a key, ClusterDeck never writes them,
// and one found is refused, not used (issue 24 D.12).
void TestStoreContract::plainSecretsOnlyWhereTheyBelong()
{
    const SessionRecord s = makeSession();
    CHECK_OK(m_store->createSession(s, {}));
    const QJsonObject plain{
        {QStringLiteral("format"), QStringLiteral("plain")},
        {QStringLiteral("values"),
         QJsonObject{
             {QStringLiteral("s1"), QString::fromLatin1(QByteArray("injected").toBase64())}}}};
    if (backend() == u"sqlite") {
        auto opened = m_store->openSecrets(s.id, plain);
        CHECK_OK(opened);
        QCOMPARE(opened->value(QStringLiteral("s1")), QByteArray("injected"));
        return;
    }
    // Without a key (a store from before schema 2, not sealed yet) they are read.
    CHECK_OK(m_store->openSecrets(s.id, plain));
    CHECK_OK(m_etcd->put((m_etcdPrefix + QStringLiteral("/meta/key-id")).toUtf8(), "sha256:x"));
    auto refused = m_store->openSecrets(s.id, plain);
    QVERIFY(!refused);
    QVERIFY2(refused.error().message.contains(QStringLiteral("plain text")),
             qPrintable(refused.error().toString()));
}

// A store from before the store id gets one when opened, and remembers its URL as the label its
// existing objects carry.
void TestStoreContract::legacyStoreLabelAfterMigration()
{
    CHECK_OK(m_store->createSession(makeSession(), {}));
    const QString before = m_store->storeId();
    m_store.reset();
    if (backend() == u"sqlite") {
        const QByteArray path = m_url.mid(QStringLiteral("sqlite://").size()).toUtf8();
        sqlite3 *db = nullptr;
        QCOMPARE(sqlite3_open(path.constData(), &db), SQLITE_OK);
        QCOMPARE(
            sqlite3_exec(db, "DROP TABLE meta; PRAGMA user_version=2", nullptr, nullptr, nullptr),
            SQLITE_OK);
        sqlite3_close(db);
    } else {
        CHECK_OK(m_etcd->remove((m_etcdPrefix + QStringLiteral("/meta/id")).toUtf8()));
    }
    auto store = openOrFail();
    QVERIFY(store);
    QVERIFY(!QUuid::fromString(store->storeId()).isNull());
    QVERIFY(store->storeId() != before);
    QCOMPARE(store->legacyStoreLabels(), QStringList{store->url()});
    QCOMPARE(store->sessions()->size(), 1);
    // Reopening keeps both.
    auto again = openOrFail();
    QVERIFY(again);
    QCOMPARE(again->storeId(), store->storeId());
    QCOMPARE(again->legacyStoreLabels(), QStringList{store->url()});
    m_store = std::move(store);
}

void TestStoreContract::tenThousandKernels()
{
    const SessionRecord s = makeSession();
    const QList<KernelRecord> kernels = makeKernels(s.id, 10000);
    QElapsedTimer timer;
    timer.start();
    CHECK_OK(m_store->createSession(s, kernels));
    const qint64 written = timer.restart();
    auto read = m_store->kernels(s.id);
    CHECK_OK(read);
    const qint64 readMs = timer.restart();
    QCOMPARE(read->size(), 10000);
    QCOMPARE(*read, kernels);
    QCOMPARE(m_store->allKernels()->size(), 10000);
    qInfo("%s: 10,000 kernels written in %lld ms, read in %lld ms", qPrintable(m_backend), written,
          readMs);
    CHECK_OK(m_store->removeSession(s.id));
    QVERIFY(m_store->allKernels()->isEmpty());
}

// Issue 24 D.3: a launch, the status batcher, policies and the controller's intake change every
// kernel of a session at once. On etcd more than one transaction takes (127 operations) was
// refused; now it is written in chunks, all or nothing, and a writer in another process changing
// one of those kernels meanwhile loses nothing.
void TestStoreContract::modifyKernelsBeyondOneTransaction()
{
    const SessionRecord s = makeSession();
    const QList<KernelRecord> kernels = makeKernels(s.id, 300);
    CHECK_OK(m_store->createSession(s, kernels));
    QList<KernelRef> refs;
    for (const KernelRecord &k : kernels)
        refs.append({s.id, k.id});

    const int childUpdates = 40;
    QProcess *child = startChild({QStringLiteral("status"), m_url, s.id, kernels[5].id,
                                  QString::number(childUpdates), QStringLiteral("child")});
    QVERIFY(child->waitForStarted());
    const int rounds = 5;
    for (int round = 0; round < rounds; ++round) {
        const QDateTime now = QDateTime::currentDateTimeUtc();
        auto changed = m_store->modifyKernels(refs, [&](KernelRecord &k) {
            k.changeStatus(KernelStatus::Running, now, QStringLiteral("all-%1").arg(round));
            return true;
        });
        CHECK_OK(changed);
        QCOMPARE(changed->size(), 300);
    }
    QVERIFY(child->waitForFinished(120000));
    QVERIFY2(child->exitCode() == 0, child->readAllStandardError().constData());

    auto after = m_store->kernels(s.id);
    CHECK_OK(after);
    QCOMPARE(after->size(), 300);
    for (const KernelRecord &k : std::as_const(*after)) {
        QCOMPARE(k.history.size(),
                 kernels[0].history.size() + rounds + (k.id == kernels[5].id ? childUpdates : 0));
        QCOMPARE(k.history.constLast().reason.startsWith(QStringLiteral("all-")) ||
                     k.id == kernels[5].id,
                 true);
    }
}

// Issue 24 D.14: a standby controller (every open console runs one) waits for the leader
// without writing: on etcd it watched nothing and churned a lease, a key and its deletion every
// second (about four requests, two revisions a second per console); on SQLite it took the write
// lock every 100 ms. When the leader resigns, the standby still takes over within its wait.
void TestStoreContract::standbyCampaignWritesNothing()
{
    LeaderRecord a;
    a.ownerId = newId();
    a.actor = QStringLiteral("leader");
    auto leading = m_store->campaign(a, 0ms, 10s);
    CHECK_OK(leading);
    auto standbyStore = openOrFail();
    QVERIFY(standbyStore);
    LeaderRecord b;
    b.ownerId = newId();
    b.actor = QStringLiteral("standby");
    auto revision = [&]() -> qint64 {
        if (!m_etcd)
            return 0;
        auto r = m_etcd->range(QByteArrayLiteral("/cdtest-store-revision-probe"));
        return r ? r->header.revision : -1;
    };
    const qint64 before = revision();
    QElapsedTimer t;
    t.start();
    auto standby = standbyStore->campaign(b, 3000ms, 10s);
    const qint64 waited = t.elapsed();
    QVERIFY(!standby);
    QCOMPARE(standby.error().kind, Error::Kind::Conflict);
    QVERIFY2(standby.error().message.contains(QStringLiteral("leader")),
             qPrintable(standby.error().toString()));
    QVERIFY2(waited >= 2900, qPrintable(QString::number(waited)));
    const qint64 writes = revision() - before;
    qInfo("%s: a standby waited %lld ms; etcd revisions meanwhile: %lld", qPrintable(m_backend),
          waited, writes);
    QCOMPARE(writes, 0);

    std::thread resign([&] {
        std::this_thread::sleep_for(500ms);
        leading->reset();
    });
    t.restart();
    auto took = standbyStore->campaign(b, 5000ms, 10s);
    const qint64 takeover = t.elapsed();
    resign.join();
    CHECK_OK(took);
    qInfo("%s: took over %lld ms after asking (the leader resigned after 500 ms)",
          qPrintable(m_backend), takeover);
    QVERIFY2(takeover < 3000, qPrintable(QString::number(takeover)));
}

void TestStoreContract::lockLostIsNoticed()
{
    // Issue 14, item 4: a holder learns that its lock is gone and its work stops.
    const QString sid = newId();
    if (backend() == u"sqlite")
        qputenv("CLUSTERDECK_SQLITE_LOCK_TTL_MS", "600");
    auto lock = m_store->lockSession(sid, 1s);
    qunsetenv("CLUSTERDECK_SQLITE_LOCK_TTL_MS");
    CHECK_OK(lock);
    std::atomic_int callbacks{0};
    QString reported;
    std::mutex reportedMutex;
    (*lock)->onLost([&](const Error &why) {
        std::lock_guard guard(reportedMutex);
        reported = why.message;
        ++callbacks;
    });
    // Renewed while this thread does something else for longer than the TTL.
    QThread::msleep(backend() == u"sqlite" ? 1500 : 200);
    QVERIFY(!(*lock)->isLost());
    auto other = openStore(m_url);
    CHECK_OK(other);
    QVERIFY(!(*other)->lockSession(sid, 0ms));

    QElapsedTimer timer;
    if (backend() == u"sqlite") {
        // Taken over by another owner (as a process that judged it stale would).
        const QByteArray path = m_url.mid(QStringLiteral("sqlite://").size()).toUtf8();
        sqlite3 *db = nullptr;
        QCOMPARE(sqlite3_open(path.constData(), &db), SQLITE_OK);
        const QByteArray sql = "UPDATE locks SET token = 'theirs', owner = 'someone else', "
                               "expires_ms = expires_ms + 60000, "
                               "owner_id = 'another-process' WHERE session_id = '" +
                               sid.toUtf8() + "'";
        QCOMPARE(sqlite3_exec(db, sql.constData(), nullptr, nullptr, nullptr), SQLITE_OK);
        QCOMPARE(sqlite3_changes(db), 1);
        sqlite3_close(db);
        timer.start();
        // A running operation that polls its cancel token stops.
        while (!(*lock)->lostToken().isCancelled() && timer.elapsed() < 5000)
            QThread::msleep(10);
    } else {
        // The lease of the lock is revoked (as when it expired): a blocking etcd call that uses
        // the lock's token (a watch that would wait 60 s) returns soon after.
        auto keys =
            m_etcd->rangePrefix((m_etcdPrefix + QStringLiteral("/locks/") + sid + u'/').toUtf8());
        CHECK_OK(keys);
        QCOMPARE(keys->kvs.size(), 1);
        CHECK_OK(m_etcd->revokeLease(keys->kvs.constFirst().lease));
        timer.start();
        auto watched = m_etcd->stream(
            QStringLiteral("/v3/watch"),
            QJsonObject{{QStringLiteral("create_request"),
                         QJsonObject{{QStringLiteral("key"),
                                      QString::fromLatin1(QByteArray("/nothing").toBase64())}}}},
            [](const QByteArray &) { return true; }, (*lock)->lostToken(), 60s);
        QVERIFY(!watched);
    }
    const qint64 noticed = timer.elapsed();
    qInfo("%s: a lost lock was noticed (and the operation stopped) after %lld ms",
          qPrintable(m_backend), noticed);
    QVERIFY((*lock)->isLost());
    QVERIFY2(noticed < (backend() == u"sqlite" ? 1500 : 8000),
             qPrintable(QString::number(noticed)));
    QTRY_COMPARE(callbacks.load(), 1);
    const Error lost = (*lock)->lostError();
    QCOMPARE(lost.kind, Error::Kind::Conflict);
    QVERIFY2(lost.message.startsWith(QStringLiteral("lost the lock of session %1 (").arg(sid)),
             qPrintable(lost.message));
    QVERIFY2(lost.message.endsWith(QStringLiteral("): stopped; the controller finishes it")),
             qPrintable(lost.message));
    if (backend() == u"sqlite")
        QVERIFY2(lost.message.contains(QStringLiteral("taken by someone else")),
                 qPrintable(lost.message));
    else
        QVERIFY2(lost.message.contains(QStringLiteral("expired")), qPrintable(lost.message));
    {
        std::lock_guard guard(reportedMutex);
        QCOMPARE(reported, lost.message);
    }
    // A callback added afterwards runs at once.
    bool late = false;
    (*lock)->onLost([&late](const Error &) { late = true; });
    QVERIFY(late);
    lock->reset(); // releasing a lost lock leaves the new holder's row or key alone
    if (backend() == u"sqlite")
        QVERIFY(!(*other)->lockSession(sid, 0ms));
}

void TestStoreContract::lockOwnerIsNotThePid()
{
    if (backend() != u"sqlite")
        QSKIP("etcd locks are keys on the holder's lease");
    const QByteArray path = m_url.mid(QStringLiteral("sqlite://").size()).toUtf8();
    auto exec = [&](const QByteArray &sql) {
        sqlite3 *db = nullptr;
        if (sqlite3_open(path.constData(), &db) != SQLITE_OK)
            return false;
        const bool ok = sqlite3_exec(db, sql.constData(), nullptr, nullptr, nullptr) == SQLITE_OK;
        sqlite3_close(db);
        return ok;
    };
    auto ownerIdOf = [&](const QString &sid) {
        sqlite3 *db = nullptr;
        sqlite3_open(path.constData(), &db);
        sqlite3_stmt *s = nullptr;
        const QByteArray sql =
            "SELECT owner_id FROM locks WHERE session_id = '" + sid.toUtf8() + "'";
        sqlite3_prepare_v2(db, sql.constData(), -1, &s, nullptr);
        QString id;
        if (sqlite3_step(s) == SQLITE_ROW)
            id = QString::fromUtf8(reinterpret_cast<const char *>(sqlite3_column_text(s, 0)));
        sqlite3_finalize(s);
        sqlite3_close(db);
        return id;
    };
    const QByteArray pid = QByteArray::number(QCoreApplication::applicationPid());
    const QByteArray future = QByteArray::number(QDateTime::currentMSecsSinceEpoch() + 600000);
    const QByteArray host = QSysInfo::machineHostName().toUtf8();
    // An unexpired row with our pid, from another host and from another PID namespace of this
    // host: another process's, not taken over.
    for (const QByteArray &rowHost : {QByteArray("another-host"), host}) {
        const QString sid = newId();
        QVERIFY(exec("INSERT INTO locks(session_id, owner, token, pid, hostname, since, "
                     "expires_ms, owner_id) VALUES('" +
                     sid.toUtf8() + "', 'them@" + rowHost + " (pid " + pid + ")', 'their-token', " +
                     pid + ", '" + rowHost + "', '2026-01-01T00:00:00Z', " + future + ", '" +
                     newId().toUtf8() + "')"));
        auto busy = m_store->lockSession(sid, 100ms);
        QVERIFY2(!busy, rowHost.constData());
        QVERIFY2(busy.error().message.contains(QStringLiteral("locked by them@")),
                 qPrintable(busy.error().message));
        // Once it expires, it is stale.
        QVERIFY(exec("UPDATE locks SET expires_ms = 1 WHERE session_id = '" + sid.toUtf8() + "'"));
        auto taken = m_store->lockSession(sid, 0ms);
        CHECK_OK(taken);
    }
    // Two processes: two owner ids, neither empty.
    const QString ours = newId();
    auto lock = m_store->lockSession(ours, 0ms);
    CHECK_OK(lock);
    const QString theirs = newId();
    QProcess *holder = startChild(
        {QStringLiteral("lock"), m_url, theirs, QStringLiteral("5000"), QStringLiteral("1500")});
    QVERIFY(holder->waitForReadyRead(20000));
    QVERIFY(holder->readLine().startsWith("locked"));
    const QString ourId = ownerIdOf(ours);
    const QString theirId = ownerIdOf(theirs);
    QVERIFY(holder->waitForFinished(30000));
    QVERIFY(!ourId.isEmpty());
    QVERIFY(!theirId.isEmpty());
    QVERIFY2(ourId != theirId, qPrintable(ourId));
    const QString again = newId();
    auto second = m_store->lockSession(again, 0ms);
    CHECK_OK(second);
    QCOMPARE(ownerIdOf(again), ourId); // one id per process

    // A holder killed with SIGKILL: its row is taken over at once (its owner file is unlocked),
    // not after the TTL.
    const QString killed = newId();
    QProcess *victim = startChild(
        {QStringLiteral("lock"), m_url, killed, QStringLiteral("5000"), QStringLiteral("60000")});
    QVERIFY(victim->waitForReadyRead(20000));
    QVERIFY(victim->readLine().startsWith("locked"));
    QVERIFY(!m_store->lockSession(killed, 100ms));
    ::kill(pid_t(victim->processId()), SIGKILL);
    QVERIFY(victim->waitForFinished(10000));
    QElapsedTimer timer;
    timer.start();
    auto takenOver = m_store->lockSession(killed, 0ms);
    CHECK_OK(takenOver);
    QVERIFY2(timer.elapsed() < 2000, qPrintable(QString::number(timer.elapsed())));
}

void TestStoreContract::createSessionReplyLost()
{
    // Issue 14, item 5: the txn committed, its reply never came: reported as success.
    if (backend() != u"etcd")
        QSKIP("a SQLite write is a local transaction");
    std::atomic_int armed{1};
    std::atomic_int dropped{0};
    Etcd::EtcdClient::setReplyFaultForTests([&](const QString &path, const QByteArray &) {
        if (path != u"/v3/kv/txn" || armed.fetch_sub(1) <= 0)
            return false;
        ++dropped;
        return true;
    });
    const SessionRecord s = makeSession();
    const QList<KernelRecord> kernels = makeKernels(s.id, 3);
    auto created = m_store->createSession(s, kernels);
    QCOMPARE(dropped.load(), 1);
    CHECK_OK(created);
    auto read = m_store->session(s.id);
    CHECK_OK(read);
    QCOMPARE(*read, s);
    QCOMPARE(m_store->kernels(s.id)->size(), 3);

    // updateSession likewise.
    SessionRecord changed = s;
    changed.status = SessionStatus::Running;
    changed.lastError = QStringLiteral("updated with its reply lost");
    armed = 1;
    CHECK_OK(m_store->updateSession(changed));
    QCOMPARE(dropped.load(), 2);
    QCOMPARE(*m_store->session(s.id), changed);

    // Not applied (the session exists already), reply lost: reported as the failure it is.
    SessionRecord other = makeSession(s.id);
    other.name = QStringLiteral("not-this-one");
    armed = 1;
    auto twice = m_store->createSession(other, makeKernels(s.id, 2));
    Etcd::EtcdClient::setReplyFaultForTests({});
    QCOMPARE(dropped.load(), 3);
    QVERIFY(!twice);
    QVERIFY2(twice.error().message.contains(QStringLiteral("read back: not applied")),
             qPrintable(twice.error().toString()));
    QCOMPARE(*m_store->session(s.id), changed);
}

void TestStoreContract::chunkedCreateInterrupted()
{
    if (backend() != u"etcd")
        QSKIP("SQLite writes a session in one transaction");
    auto *etcdStore = dynamic_cast<EtcdStore *>(m_store.get());
    QVERIFY(etcdStore);
    const SessionRecord s = makeSession();
    QList<KernelRecord> kernels = makeKernels(s.id, 300);
    const QDateTime now = QDateTime::currentDateTimeUtc();
    for (KernelRecord &k : kernels)
        k.createdAt = k.updatedAt = now;
    // The process "dies" after its first chunk of kernels.
    etcdStore->setFailAfterChunkForTests(1);
    auto created = m_store->createSession(s, kernels);
    etcdStore->setFailAfterChunkForTests(0);
    QVERIFY(!created);
    const QByteArray kernelsPrefix =
        (m_etcdPrefix + QStringLiteral("/kernels/") + s.id + u'/').toUtf8();
    const qsizetype left = m_etcd->rangePrefix(kernelsPrefix)->kvs.size();
    QVERIFY2(left > 0 && left < 300, qPrintable(QString::number(left)));
    // Nothing of it is visible.
    QCOMPARE(m_store->session(s.id).error().kind, Error::Kind::NotFound);
    QVERIFY(m_store->sessions()->isEmpty());
    QVERIFY(m_store->kernels(s.id)->isEmpty());
    QVERIFY(m_store->allKernels()->isEmpty());
    // Within the grace the keys stay (a slow create may still be writing them); after it, the
    // controller's pass (removeStrayRecords) removes them.
    auto early = m_store->removeStrayRecords(1s);
    CHECK_OK(early);
    QCOMPARE(*early, 0);
    QCOMPARE(m_etcd->rangePrefix(kernelsPrefix)->kvs.size(), left);
    QThread::msleep(1200);
    auto late = m_store->removeStrayRecords(1s);
    CHECK_OK(late);
    QCOMPARE(*late, 1);
    QCOMPARE(m_etcd->rangePrefix(kernelsPrefix)->kvs.size(), 0);
    // The same session can be created afterwards.
    CHECK_OK(m_store->createSession(s, kernels));
    QCOMPARE(m_store->kernels(s.id)->size(), 300);
    CHECK_OK(m_store->removeStrayRecords(0ms));
    QCOMPARE(m_store->kernels(s.id)->size(), 300);
}

void TestStoreContract::resizeBeyondOneTransaction()
{
    // `scale` by more kernels than one etcd txn takes (128 operations; issue 24 D.3): 300 added
    // and 150 removed at once, all or nothing.
    SessionRecord s = makeSession();
    const QList<KernelRecord> kernels = makeKernels(s.id, 200);
    CHECK_OK(m_store->createSession(s, kernels));
    auto idsOf = [&] {
        QStringList ids;
        const auto listed = m_store->kernels(s.id);
        for (const KernelRecord &k : listed.value_or(QList<KernelRecord>{}))
            ids.append(k.id);
        ids.sort();
        return ids;
    };
    const QStringList before = idsOf();
    QList<KernelRecord> added;
    for (int i = 0; i < 300; ++i)
        added.append(makeKernel(s.id, 1000 + i));
    QStringList removed;
    for (int i = 0; i < 150; ++i)
        removed.append(kernels.at(i).id);
    const QByteArray intents = (m_etcdPrefix + QStringLiteral("/intents/")).toUtf8();
    auto noIntents = [&] {
        return !m_etcd || m_etcd->rangePrefix(intents)->kvs.isEmpty();
    };

    if (backend() == u"etcd") {
        auto *etcdStore = dynamic_cast<EtcdStore *>(m_store.get());
        QVERIFY(etcdStore);
        // A new kernel whose id is taken, in the third chunk: nothing changed.
        QList<KernelRecord> clash = added;
        clash[280].id = kernels.at(199).id;
        SessionRecord renamed = s;
        renamed.name = QStringLiteral("not this");
        auto failed = m_store->resizeSession(renamed, clash, removed);
        QVERIFY(!failed);
        QCOMPARE(failed.error().kind, Error::Kind::Conflict);
        QCOMPARE(idsOf(), before);
        QCOMPARE(*m_store->session(s.id), s);
        QVERIFY(noIntents());
        // The writer dies after its first chunk: the controller's pass undoes it.
        etcdStore->setFailAfterChunkForTests(1);
        auto interrupted = m_store->resizeSession(renamed, added, removed);
        etcdStore->setFailAfterChunkForTests(0);
        QVERIFY(!interrupted);
        QVERIFY(idsOf() != before);
        CHECK_OK(m_store->removeStrayRecords(0ms));
        QCOMPARE(idsOf(), before);
        QCOMPARE(*m_store->session(s.id), s);
        QVERIFY(noIntents());
    }

    s.name = QStringLiteral("resized");
    CHECK_OK(m_store->resizeSession(s, added, removed));
    QStringList expected;
    for (int i = 150; i < 200; ++i)
        expected.append(kernels.at(i).id);
    for (const KernelRecord &k : std::as_const(added))
        expected.append(k.id);
    expected.sort();
    QCOMPARE(idsOf(), expected);
    QCOMPARE(*m_store->session(s.id), s);
    QCOMPARE(*m_store->kernel(s.id, added.at(299).id), added.at(299));
    QVERIFY(noIntents());
}

void TestStoreContract::chunkedUpdateAllOrNothing()
{
    if (backend() != u"etcd")
        QSKIP("SQLite writes kernels in one transaction");
    auto *etcdStore = dynamic_cast<EtcdStore *>(m_store.get());
    QVERIFY(etcdStore);
    const SessionRecord s = makeSession();
    const QList<KernelRecord> kernels = makeKernels(s.id, 300);
    CHECK_OK(m_store->createSession(s, kernels));
    QList<KernelRecord> changed = kernels;
    for (KernelRecord &k : changed)
        k.status = KernelStatus::Running;
    SessionRecord running = s;
    running.status = SessionStatus::Running;
    const QByteArray intents = (m_etcdPrefix + QStringLiteral("/intents/")).toUtf8();

    // A failure in the middle (an unknown kernel in the second chunk): nothing changed.
    QList<KernelRecord> withUnknown = changed;
    withUnknown[200].id = newId();
    auto failed = m_store->updateKernels(withUnknown, running);
    QVERIFY(!failed);
    QCOMPARE(failed.error().kind, Error::Kind::NotFound);
    QCOMPARE(*m_store->kernels(s.id), kernels);
    QCOMPARE(*m_store->session(s.id), s);
    QCOMPARE(m_etcd->rangePrefix(intents)->kvs.size(), 0);

    // The writer dies after its first chunk: its undo record stays, and the pass after the grace
    // puts every kernel back.
    etcdStore->setFailAfterChunkForTests(1);
    QVERIFY(!m_store->updateKernels(changed, running));
    etcdStore->setFailAfterChunkForTests(0);
    auto half = m_store->kernels(s.id);
    CHECK_OK(half);
    const auto runningCount = std::count_if(half->cbegin(), half->cend(), [](const auto &k) {
        return k.status == KernelStatus::Running;
    });
    QVERIFY2(runningCount > 0 && runningCount < 300, qPrintable(QString::number(runningCount)));
    QCOMPARE(m_etcd->rangePrefix(intents)->kvs.size(), 1);
    auto early = m_store->removeStrayRecords(1s);
    CHECK_OK(early);
    QCOMPARE(*early, 0);
    QThread::msleep(1200);
    auto late = m_store->removeStrayRecords(1s);
    CHECK_OK(late);
    QCOMPARE(*late, 1);
    QCOMPARE(*m_store->kernels(s.id), kernels);
    QCOMPARE(m_etcd->rangePrefix(intents)->kvs.size(), 0);

    // Without a fault: all of it, and no undo record left.
    CHECK_OK(m_store->updateKernels(changed, running));
    QCOMPARE(*m_store->kernels(s.id), changed);
    QCOMPARE(*m_store->session(s.id), running);
    QCOMPARE(m_etcd->rangePrefix(intents)->kvs.size(), 0);
}

// ---- multi-node session networks (issue 26, item 1)

// A claim gives a session the lowest free VNI and /24; claiming again returns the same (the
// driver may call it at every attempt); a release frees both for the next session.
void TestStoreContract::networkClaimIsIdempotentAndReleased()
{
    const OverlayPool pool = makePool("10.99.0.0/16", "5000-5999");
    const SessionRecord a = makeSession();
    const SessionRecord b = makeSession();
    const SessionRecord c = makeSession();
    for (const SessionRecord &s : {a, b, c})
        CHECK_OK(m_store->createSession(s, makeKernels(s.id, 2)));
    auto none = m_store->networkAllocation(a.id);
    CHECK_OK(none);
    QVERIFY(!none->has_value());

    auto first = m_store->claimNetworkAllocation(a.id, pool);
    CHECK_OK(first);
    QCOMPARE(first->sessionId, a.id);
    QCOMPARE(first->vni, 5000u);
    QCOMPARE(first->subnet.toString(), QStringLiteral("10.99.0.0/24"));
    QVERIFY(first->claimedAt.isValid());
    QVERIFY(first->avoided.isEmpty());

    auto again = m_store->claimNetworkAllocation(a.id, pool);
    CHECK_OK(again);
    QCOMPARE(*again, *first);
    // From another connection too, and whatever the hosts now use: it stays.
    auto other = openOrFail();
    QVERIFY(other);
    OverlayAvoid inUse;
    inUse.subnets = {*Ipv4Cidr::parse(u"10.99.0.0/24")};
    inUse.vnis = {5000};
    auto fromOther = other->claimNetworkAllocation(a.id, pool, inUse);
    CHECK_OK(fromOther);
    QCOMPARE(*fromOther, *first);
    auto stored = other->networkAllocation(a.id);
    CHECK_OK(stored);
    QVERIFY(stored->has_value());
    QCOMPARE(**stored, *first);

    auto second = m_store->claimNetworkAllocation(b.id, pool);
    CHECK_OK(second);
    QCOMPARE(second->vni, 5001u);
    QCOMPARE(second->subnet.toString(), QStringLiteral("10.99.1.0/24"));
    auto all = m_store->networkAllocations();
    CHECK_OK(all);
    QCOMPARE(all->size(), 2);
    QSet<QString> owners;
    for (const NetworkAllocation &n : *all)
        owners.insert(n.sessionId);
    QCOMPARE(owners, (QSet<QString>{a.id, b.id}));

    CHECK_OK(m_store->releaseNetworkAllocation(a.id));
    CHECK_OK(m_store->releaseNetworkAllocation(a.id)); // releasing twice is fine
    auto gone = m_store->networkAllocation(a.id);
    CHECK_OK(gone);
    QVERIFY(!gone->has_value());
    QCOMPARE(m_store->networkAllocations()->size(), 1);
    // The session itself is untouched by the release.
    CHECK_OK(m_store->session(a.id));
    QCOMPARE(m_store->kernels(a.id)->size(), 2);

    auto third = m_store->claimNetworkAllocation(c.id, pool);
    CHECK_OK(third);
    QCOMPARE(third->vni, 5000u);
    QCOMPARE(third->subnet.toString(), QStringLiteral("10.99.0.0/24"));
}

// Desired state is written before any side effect: a network is claimed for a stored session
// only, so nothing can hold a claim that no session record will ever release.
void TestStoreContract::networkClaimNeedsItsSession()
{
    const OverlayPool pool = makePool("10.99.0.0/16", "5000-5999");
    auto claimed = m_store->claimNetworkAllocation(newId(), pool);
    QVERIFY(!claimed);
    QCOMPARE(claimed.error().kind, Error::Kind::NotFound);
    QVERIFY2(claimed.error().toString().contains(QStringLiteral("no such session")),
             qPrintable(claimed.error().toString()));
    QCOMPARE(m_store->networkAllocations()->size(), 0);
    CHECK_OK(m_store->releaseNetworkAllocation(newId())); // nothing to release: done
}

void TestStoreContract::networkClaimExhausted()
{
    // Two /24s, three VNIs: the third session finds no subnet.
    const OverlayPool subnets = makePool("10.99.0.0/23", "5000-5002");
    QStringList ids;
    for (int i = 0; i < 4; ++i) {
        const SessionRecord s = makeSession();
        CHECK_OK(m_store->createSession(s, {}));
        ids.append(s.id);
    }
    CHECK_OK(m_store->claimNetworkAllocation(ids[0], subnets));
    CHECK_OK(m_store->claimNetworkAllocation(ids[1], subnets));
    auto full = m_store->claimNetworkAllocation(ids[2], subnets);
    QVERIFY(!full);
    QCOMPARE(full.error().kind, Error::Kind::Conflict);
    QVERIFY2(full.error().message.contains(QStringLiteral("no free /24 is left")),
             qPrintable(full.error().toString()));
    QVERIFY2(full.error().toString().contains(QStringLiteral("10.99.0.0/23")),
             qPrintable(full.error().toString()));
    QVERIFY(!m_store->networkAllocation(ids[2])->has_value());
    qInfo("%s: %s", qPrintable(m_backend), qPrintable(full.error().toString()));

    // Four /24s, two VNIs: the third session finds no VNI.
    CHECK_OK(m_store->releaseNetworkAllocation(ids[0]));
    CHECK_OK(m_store->releaseNetworkAllocation(ids[1]));
    const OverlayPool vnis = makePool("10.99.0.0/22", "5000-5001");
    CHECK_OK(m_store->claimNetworkAllocation(ids[0], vnis));
    CHECK_OK(m_store->claimNetworkAllocation(ids[1], vnis));
    auto noVni = m_store->claimNetworkAllocation(ids[2], vnis);
    QVERIFY(!noVni);
    QCOMPARE(noVni.error().kind, Error::Kind::Conflict);
    QVERIFY2(noVni.error().message.contains(QStringLiteral("no free VXLAN id is left")),
             qPrintable(noVni.error().toString()));
    QCOMPARE(m_store->networkAllocations()->size(), 2);
    // One released: the waiting session gets it.
    CHECK_OK(m_store->releaseNetworkAllocation(ids[0]));
    auto freed = m_store->claimNetworkAllocation(ids[2], vnis);
    CHECK_OK(freed);
    QCOMPARE(freed->vni, 5000u);
    QCOMPARE(freed->subnet.toString(), QStringLiteral("10.99.0.0/24"));
}

// What the session's hosts already use (another store, another tool) is skipped.
void TestStoreContract::networkClaimSkipsWhatHostsUse()
{
    const OverlayPool pool = makePool("10.99.0.0/16", "5000-5999");
    const SessionRecord a = makeSession();
    const SessionRecord b = makeSession();
    CHECK_OK(m_store->createSession(a, {}));
    CHECK_OK(m_store->createSession(b, {}));
    OverlayAvoid inUse;
    inUse.subnets = {*Ipv4Cidr::parse(u"10.99.0.0/24"), *Ipv4Cidr::parse(u"10.99.1.128/25"),
                     *Ipv4Cidr::parse(u"10.99.2.0/23"), *Ipv4Cidr::parse(u"172.17.0.0/16")};
    inUse.vnis = {5000, 5002};
    auto claimed = m_store->claimNetworkAllocation(a.id, pool, inUse);
    CHECK_OK(claimed);
    QCOMPARE(claimed->subnet.toString(), QStringLiteral("10.99.4.0/24"));
    QCOMPARE(claimed->vni, 5001u);
    // What the hosts use is not remembered as the session's own avoidance (only collisions are).
    QVERIFY(claimed->avoided.isEmpty());
    auto next = m_store->claimNetworkAllocation(b.id, pool, inUse);
    CHECK_OK(next);
    QCOMPARE(next->subnet.toString(), QStringLiteral("10.99.5.0/24"));
    QCOMPARE(next->vni, 5003u);
}

// Docker refused the /24 on one host (an overlapping bridge of another tool): the session's
// subnet is replaced, its VNI kept; then the kernel refused the VNI: the VNI is replaced, the
// subnet kept. Neither comes back to this session; other sessions may have them.
void TestStoreContract::networkReclaimAfterCollision()
{
    const OverlayPool pool = makePool("10.99.0.0/16", "5000-5999");
    const SessionRecord a = makeSession();
    const SessionRecord b = makeSession();
    CHECK_OK(m_store->createSession(a, {}));
    CHECK_OK(m_store->createSession(b, {}));
    auto first = m_store->claimNetworkAllocation(a.id, pool);
    CHECK_OK(first);

    OverlayAvoid subnetCollided;
    subnetCollided.subnets = {first->subnet};
    auto moved = m_store->reclaimNetworkAllocation(a.id, pool, subnetCollided);
    CHECK_OK(moved);
    QCOMPARE(moved->vni, first->vni);
    QCOMPARE(moved->subnet.toString(), QStringLiteral("10.99.1.0/24"));
    QCOMPARE(moved->avoided.subnets, QList<Ipv4Cidr>{first->subnet});
    QCOMPARE(m_store->networkAllocation(a.id)->value(), *moved);

    OverlayAvoid vniCollided;
    vniCollided.vnis = {first->vni};
    auto renumbered = m_store->reclaimNetworkAllocation(a.id, pool, vniCollided);
    CHECK_OK(renumbered);
    QCOMPARE(renumbered->vni, 5001u);
    QCOMPARE(renumbered->subnet, moved->subnet);
    // Both collisions are remembered: neither is handed back to this session.
    QCOMPARE(renumbered->avoided.subnets, QList<Ipv4Cidr>{first->subnet});
    QCOMPARE(renumbered->avoided.vnis, QSet<quint32>{first->vni});
    auto same = m_store->claimNetworkAllocation(a.id, pool);
    CHECK_OK(same);
    QCOMPARE(*same, *renumbered);

    // The collision was on a's hosts: another session may take what a gave up.
    auto other = m_store->claimNetworkAllocation(b.id, pool);
    CHECK_OK(other);
    QCOMPARE(other->vni, first->vni);
    QCOMPARE(other->subnet, first->subnet);

    // A reclaim of a session that had nothing claims afresh, avoiding what collided.
    const SessionRecord c = makeSession();
    CHECK_OK(m_store->createSession(c, {}));
    OverlayAvoid both;
    both.subnets = {*Ipv4Cidr::parse(u"10.99.2.0/24")};
    both.vnis = {5002};
    auto fresh = m_store->reclaimNetworkAllocation(c.id, pool, both);
    CHECK_OK(fresh);
    QCOMPARE(fresh->subnet.toString(), QStringLiteral("10.99.3.0/24"));
    QCOMPARE(fresh->vni, 5003u);
    QCOMPARE(fresh->avoided, both);
}

// A session record removed (prune, `rm` of an ended session) takes its claim with it, in the same
// transaction, so an allocation never outlives its session.
void TestStoreContract::networkReleasedWithItsSession()
{
    const OverlayPool pool = makePool("10.99.0.0/16", "5000-5999");
    const SessionRecord a = makeSession();
    const SessionRecord b = makeSession();
    CHECK_OK(m_store->createSession(a, makeKernels(a.id, 3)));
    CHECK_OK(m_store->createSession(b, {}));
    auto claimed = m_store->claimNetworkAllocation(a.id, pool);
    CHECK_OK(claimed);
    CHECK_OK(m_store->removeSession(a.id));
    auto left = m_store->networkAllocations();
    CHECK_OK(left);
    QVERIFY(left->isEmpty());
    auto reused = m_store->claimNetworkAllocation(b.id, pool);
    CHECK_OK(reused);
    QCOMPARE(reused->vni, claimed->vni);
    QCOMPARE(reused->subnet, claimed->subnet);
    // Removing a session without a claim still works as before.
    CHECK_OK(m_store->releaseNetworkAllocation(b.id));
    CHECK_OK(m_store->removeSession(b.id));
    QCOMPARE(m_store->removeSession(b.id).error().kind, Error::Kind::NotFound);
}

// Several processes claim at once (the project's rule for every store change: another process
// reading and writing the same file at the same time): every claim gets its own VNI and /24, the
// pool is used up exactly, and one more claim finds it full.
void TestStoreContract::networkClaimsOfConcurrentProcesses()
{
    const int processes = 4;
    const int perProcess = 16; // 64: the pool's size
    const char *subnets = "10.98.0.0/18";
    const char *vnis = "7000-7063";
    QElapsedTimer timer;
    timer.start();
    // Every child makes its sessions, then all start claiming at one moment.
    const QString start = QString::number(QDateTime::currentMSecsSinceEpoch() + 3000);
    QList<QProcess *> children;
    for (int i = 0; i < processes; ++i)
        children.append(startChild({QStringLiteral("claim"), m_url, QString::number(perProcess),
                                    QLatin1StringView(subnets), QLatin1StringView(vnis), start}));
    QSet<quint32> vniSeen;
    QSet<QString> subnetSeen;
    QHash<QString, QString> claimedBy; // session → "vni subnet"
    for (QProcess *p : std::as_const(children)) {
        QVERIFY(p->waitForFinished(240000));
        const QString err = QString::fromUtf8(p->readAllStandardError());
        QVERIFY2(p->exitStatus() == QProcess::NormalExit && p->exitCode() == 0, qPrintable(err));
        const QStringList lines =
            QString::fromUtf8(p->readAllStandardOutput()).split(u'\n', Qt::SkipEmptyParts);
        QCOMPARE(lines.size(), perProcess);
        for (const QString &line : lines) {
            const QStringList f = line.split(u' ');
            QCOMPARE(f.size(), 4);
            QVERIFY2(!vniSeen.contains(f[2].toUInt()), qPrintable(line));
            QVERIFY2(!subnetSeen.contains(f[3]), qPrintable(line));
            vniSeen.insert(f[2].toUInt());
            subnetSeen.insert(f[3]);
            claimedBy.insert(f[1], f[2] + u' ' + f[3]);
        }
    }
    qInfo("%s: %d processes x %d claims, all from one moment, done %lld ms after it",
          qPrintable(m_backend), processes, perProcess, timer.elapsed() - 3000);
    QCOMPARE(vniSeen.size(), processes * perProcess);
    QCOMPARE(subnetSeen.size(), processes * perProcess);

    // The store holds exactly what the processes were told.
    auto all = m_store->networkAllocations();
    CHECK_OK(all);
    QCOMPARE(all->size(), processes * perProcess);
    for (const NetworkAllocation &n : *all)
        QCOMPARE(claimedBy.value(n.sessionId), QString::number(n.vni) + u' ' + n.subnet.toString());

    const SessionRecord late = makeSession();
    CHECK_OK(m_store->createSession(late, {}));
    auto full = m_store->claimNetworkAllocation(late.id, makePool(subnets, vnis));
    QVERIFY(!full);
    QCOMPARE(full.error().kind, Error::Kind::Conflict);
}

// A SQLite file of schema 5 (before session networks) opens, gains the table and claims.
void TestStoreContract::networkAllocationsAfterMigration()
{
    if (m_backend != u"sqlite")
        QSKIP("etcd keeps allocations as keys of their own: nothing to migrate");
    const SessionRecord s = makeSession();
    CHECK_OK(m_store->createSession(s, makeKernels(s.id, 2)));
    m_store.reset();
    const QByteArray path = m_url.mid(QStringLiteral("sqlite://").size()).toUtf8();
    sqlite3 *db = nullptr;
    QCOMPARE(sqlite3_open(path.constData(), &db), SQLITE_OK);
    QCOMPARE(sqlite3_exec(db, "DROP TABLE IF EXISTS network_allocations; PRAGMA user_version=5",
                          nullptr, nullptr, nullptr),
             SQLITE_OK);
    sqlite3_close(db);
    auto store = openOrFail();
    QVERIFY(store);
    auto claimed = store->claimNetworkAllocation(s.id, makePool("10.99.0.0/16", "5000-5999"));
    CHECK_OK(claimed);
    QCOMPARE(claimed->vni, 5000u);
    QCOMPARE(store->sessions()->size(), 1);
    m_store = std::move(store);
}

// A build from before session networks removes a session record by its own keys only (etcd): the
// allocation it leaves behind is stray, and the controller's pass frees it after the grace.
void TestStoreContract::networkAllocationOfARemovedSessionIsStray()
{
    if (m_backend != u"etcd")
        QSKIP("SQLite: the allocation row goes with its session (foreign key), and builds from "
              "before it cannot open the file (schema 6)");
    const OverlayPool pool = makePool("10.99.0.0/16", "5000-5999");
    const SessionRecord old = makeSession();
    const SessionRecord next = makeSession();
    CHECK_OK(m_store->createSession(old, {}));
    CHECK_OK(m_store->createSession(next, {}));
    auto claimed = m_store->claimNetworkAllocation(old.id, pool);
    CHECK_OK(claimed);
    // What such a build's removeSession does.
    CHECK_OK(m_etcd->remove((m_etcdPrefix + QStringLiteral("/sessions/") + old.id).toUtf8()));

    auto early = m_store->removeStrayRecords(1s);
    CHECK_OK(early);
    QCOMPARE(*early, 0);
    QCOMPARE(m_store->networkAllocations()->size(), 1);
    QThread::msleep(1200);
    auto late = m_store->removeStrayRecords(1s);
    CHECK_OK(late);
    QCOMPARE(*late, 1);
    QCOMPARE(m_store->networkAllocations()->size(), 0);
    QCOMPARE(
        m_etcd->rangePrefix((m_etcdPrefix + QStringLiteral("/networks/")).toUtf8())->kvs.size(), 0);
    auto reused = m_store->claimNetworkAllocation(next.id, pool);
    CHECK_OK(reused);
    QCOMPARE(reused->vni, claimed->vni);
    QCOMPARE(reused->subnet, claimed->subnet);
    // A live session's allocation is never stray.
    QThread::msleep(1200);
    QCOMPARE(*m_store->removeStrayRecords(1s), 0);
    QCOMPARE(m_store->networkAllocations()->size(), 1);
}

// Store-wide settings (issue 26): keys are [a-z0-9.-]+ on both backends; anything else is refused
// before it reaches the file or etcd (a "/" would be another etcd key, a newline another line).
void TestStoreContract::settingKeys_data()
{
    QTest::addColumn<QString>("key");
    QTest::addColumn<bool>("valid");
    QTest::newRow("dotted") << QStringLiteral("network.driver") << true;
    QTest::newRow("dash and digits") << QStringLiteral("network.vxlan-port2") << true;
    QTest::newRow("one letter") << QStringLiteral("x") << true;
    QTest::newRow("empty") << QString() << false;
    QTest::newRow("upper case") << QStringLiteral("Network.driver") << false;
    QTest::newRow("slash") << QStringLiteral("network/driver") << false;
    QTest::newRow("dot dot slash") << QStringLiteral("../meta/id") << false;
    QTest::newRow("blank") << QStringLiteral("network driver") << false;
    QTest::newRow("trailing newline") << QStringLiteral("network.driver\n") << false;
    QTest::newRow("underscore") << QStringLiteral("network_driver") << false;
    QTest::newRow("not ASCII") << QStringLiteral("r\u00e9seau") << false;
}

void TestStoreContract::settingKeys()
{
    QFETCH(QString, key);
    QFETCH(bool, valid);
    auto written = m_store->setSetting(key, QStringLiteral("value"));
    auto read = m_store->setting(key);
    QCOMPARE(written.has_value(), valid);
    QCOMPARE(read.has_value(), valid);
    if (valid) {
        QCOMPARE(*read, QStringLiteral("value"));
        return;
    }
    for (const Error &e : {written.error(), read.error()}) {
        QCOMPARE(e.kind, Error::Kind::Invalid);
        QVERIFY2(e.where.contains(key) && e.message.contains(QStringLiteral("network.driver")),
                 qPrintable(e.toString()));
    }
}

void TestStoreContract::settingsReadWriteRemove()
{
    QSignalSpy changed(m_store.get(), &StateStore::settingChanged);
    const QString driver = QStringLiteral("network.driver");
    const QString port = QStringLiteral("network.vxlan-port");
    auto unset = m_store->setting(driver);
    CHECK_OK(unset);
    QVERIFY(unset->isEmpty());

    CHECK_OK(m_store->setSetting(driver, QStringLiteral("swarm")));
    CHECK_OK(m_store->setSetting(port, QStringLiteral("4790")));
    QCOMPARE(*m_store->setting(driver), QStringLiteral("swarm"));
    QCOMPARE(*m_store->setting(port), QStringLiteral("4790"));
    QTRY_COMPARE(changed.count(), 2);
    QCOMPARE(changed.at(0).at(0).toString(), driver);
    QCOMPARE(changed.at(1).at(0).toString(), port);

    // Any text is a value, as it was written.
    const QString odd = QStringLiteral(" two words, \"quotes\", 'x'\nand a second line \u00e9 ");
    CHECK_OK(m_store->setSetting(driver, odd));
    QCOMPARE(*m_store->setting(driver), odd);
    CHECK_OK(m_store->setSetting(driver, QStringLiteral("vxlan")));

    // Another connection (another console) reads the same; and after a reopen.
    {
        auto other = openOrFail();
        QVERIFY(other);
        QCOMPARE(*other->setting(driver), QStringLiteral("vxlan"));
        QCOMPARE(*other->setting(port), QStringLiteral("4790"));
        CHECK_OK(other->setSetting(port, QStringLiteral("4791")));
    }
    QCOMPARE(*m_store->setting(port), QStringLiteral("4791"));
    m_store = openOrFail();
    QVERIFY(m_store);
    QCOMPARE(*m_store->setting(driver), QStringLiteral("vxlan"));

    // An empty value removes the key; removing a key that is not set is fine.
    QSignalSpy removed(m_store.get(), &StateStore::settingChanged);
    CHECK_OK(m_store->setSetting(port, QString()));
    QTRY_COMPARE(removed.count(), 1);
    QCOMPARE(removed.at(0).at(0).toString(), port);
    QVERIFY(m_store->setting(port)->isEmpty());
    CHECK_OK(m_store->setSetting(port, QString()));
    CHECK_OK(m_store->setSetting(QStringLiteral("never.set"), QString()));
    QCOMPARE(*m_store->setting(driver), QStringLiteral("vxlan")); // the others stay
    if (m_backend == u"etcd") {
        // One key per setting, nothing else under settings/.
        auto keys = m_etcd->rangePrefix((m_etcdPrefix + QStringLiteral("/settings/")).toUtf8());
        CHECK_OK(keys);
        QCOMPARE(keys->kvs.size(), 1);
        QCOMPARE(keys->kvs.first().key,
                 (m_etcdPrefix + QStringLiteral("/settings/") + driver).toUtf8());
        QCOMPARE(keys->kvs.first().value, QByteArray("vxlan"));
    }
}

// Another process writes a setting over and over while this one reads it: every read is a value
// that was written, in the order written (never a torn or stale-after-newer value), and the last
// one is seen at once.
void TestStoreContract::settingWrittenByAnotherProcess()
{
    const QString key = QStringLiteral("network.pool");
    const int writes = 200;
    QProcess *writer = startChild({QStringLiteral("setting"), m_url, key, QString::number(writes)});
    QVERIFY(writer->waitForStarted());
    int reads = 0;
    int lastSeen = -1;
    QSet<int> seen;
    bool done = false;
    QElapsedTimer waited;
    waited.start();
    while (!done && waited.elapsed() < 120000) {
        const bool exited = writer->state() == QProcess::NotRunning;
        for (int burst = 0; burst < 20 && !done; ++burst) {
            auto value = m_store->setting(key);
            CHECK_OK(value);
            ++reads;
            if (*value == u"done") {
                done = true;
            } else if (!value->isEmpty()) {
                QVERIFY2(value->startsWith(u'v'), qPrintable(*value));
                bool ok = false;
                const int i = value->mid(1).toInt(&ok);
                QVERIFY2(ok && i >= 0 && i < writes, qPrintable(*value));
                QVERIFY2(i >= lastSeen,
                         qPrintable(QStringLiteral("read v%1 after v%2").arg(i).arg(lastSeen)));
                lastSeen = i;
                seen.insert(i);
            }
        }
        if (exited && !done)
            break; // the writer is gone and its last value must be there: checked below
        writer->waitForFinished(1);
    }
    if (writer->state() != QProcess::NotRunning)
        QVERIFY(writer->waitForFinished(60000));
    QVERIFY2(writer->exitStatus() == QProcess::NormalExit && writer->exitCode() == 0,
             qPrintable(QString::fromUtf8(writer->readAllStandardError())));
    QCOMPARE(QString::fromUtf8(writer->readAllStandardOutput()).trimmed(),
             QStringLiteral("wrote %1").arg(writes));
    QVERIFY2(done, "the writer's last value was not read after it exited");
    QCOMPARE(*m_store->setting(key), QStringLiteral("done"));
    qInfo("%s: %d reads while another process wrote %d values; saw %lld of them",
          qPrintable(m_backend), reads, writes, qsizetype(seen.size()));
    QVERIFY(reads > 1);
}

// A SQLite file of schema 6 (before settings) opens, gains the table and keeps what it had.
void TestStoreContract::settingsAfterMigration()
{
    if (m_backend != u"sqlite")
        QSKIP("etcd keeps settings as keys of their own: nothing to migrate");
    CHECK_OK(m_store->putHost(makeHost(QStringLiteral("h1"), QStringLiteral("unix:///a.sock"))));
    const QString id = m_store->storeId();
    m_store.reset();
    const QByteArray path = m_url.mid(QStringLiteral("sqlite://").size()).toUtf8();
    sqlite3 *db = nullptr;
    QCOMPARE(sqlite3_open(path.constData(), &db), SQLITE_OK);
    QCOMPARE(
        sqlite3_exec(db, "DROP TABLE settings; PRAGMA user_version=6", nullptr, nullptr, nullptr),
        SQLITE_OK);
    sqlite3_close(db);
    auto store = openOrFail();
    QVERIFY(store);
    QCOMPARE(store->storeId(), id);
    QCOMPARE(store->hosts()->size(), 1);
    auto unset = store->setting(QStringLiteral("network.driver"));
    CHECK_OK(unset);
    QVERIFY(unset->isEmpty());
    CHECK_OK(store->setSetting(QStringLiteral("network.driver"), QStringLiteral("swarm")));
    QCOMPARE(*store->setting(QStringLiteral("network.driver")), QStringLiteral("swarm"));
    store.reset();
    QCOMPARE(sqlite3_open(path.constData(), &db), SQLITE_OK);
    sqlite3_stmt *version = nullptr;
    sqlite3_prepare_v2(db, "PRAGMA user_version", -1, &version, nullptr);
    QCOMPARE(sqlite3_step(version), SQLITE_ROW);
    const int schema = sqlite3_column_int(version, 0);
    sqlite3_finalize(version);
    sqlite3_close(db);
    QCOMPARE(schema, 7);
    m_store = openOrFail();
    QVERIFY(m_store);
}

int main(int argc, char **argv)
{
    if (argc > 2 && qstrcmp(argv[1], "--child") == 0) {
        QCoreApplication app(argc, argv);
        const QStringList args = app.arguments().mid(2);
        if (args.value(0) == u"status")
            return childStatus(args);
        if (args.value(0) == u"lock")
            return childLock(args);
        if (args.value(0) == u"openwriteclose")
            return childOpenWriteClose(args);
        if (args.value(0) == u"dump")
            return childDump(args);
        if (args.value(0) == u"claim")
            return childClaim(args);
        if (args.value(0) == u"setting")
            return childSetting(args);
        std::fprintf(stderr, "unknown child mode\n");
        return 2;
    }
    QCoreApplication app(argc, argv);
    TestStoreContract test;
    QTEST_SET_MAIN_SOURCE_PATH
    return QTest::qExec(&test, argc, argv);
}

#include "tst_storecontract.moc"
