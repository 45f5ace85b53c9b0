// The StateStore contract: one suite, run against every backend (global data rows "sqlite" and
// "etcd"). The etcd row talks to the lab's etcd ($CLUSTERDECK_LAB_ETCD) under a unique prefix that
// is deleted afterwards, and fails (does not skip) when the lab is missing.
//
// The binary also serves as the second process of the multi-process tests:
//   tst_storecontract --child status URL SESSION KERNEL COUNT TAG
//   tst_storecontract --child lock URL SESSION WAIT_MS HOLD_MS

#include "etcd/etcdclient.h"
#include "store/statestore.h"
#include "store/storefactory.h"

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QJsonArray>
#include <QProcess>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <QThread>
#include <QUrl>
#include <QUuid>

#include <sqlite3.h>

#include <cstdio>

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
    s.launchOptions =
        QJsonObject{{QStringLiteral("count"), QJsonObject{{QStringLiteral("worker"), 2}}},
                    {QStringLiteral("env"), QJsonArray{QStringLiteral("A=1")}}};
    s.mode = QStringLiteral("multi-node");
    s.status = SessionStatus::Provisioning;
    s.history = {{QStringLiteral("PENDING"), at(0), {}},
                 {QStringLiteral("PROVISIONING"), at(1), QStringLiteral("placed on h1, h2")}};
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
    k.history = {{QStringLiteral("PENDING"), at(0), {}}, {QStringLiteral("CREATING"), at(2), {}}};
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
    lock->reset();
    std::printf("unlocked %lld\n", QDateTime::currentMSecsSinceEpoch());
    std::fflush(stdout);
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
    void createSessionIsAtomic();
    void updateKernelsIsAtomic();
    void resizeSession();
    void events();
    void notificationsOwnChanges();
    void notificationsFromOtherConnection();
    void concurrentWritersTwoProcesses();
    void lockInProcess();
    void lockRowLeftByAFailedRelease();
    void lockTwoProcesses();
    void refusesNewerSchema();
    void storeIdentity();
    void legacyStoreLabelAfterMigration();
    void tenThousandKernels();

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
    QTest::newRow("sqlite") << QStringLiteral("sqlite");
    QTest::newRow("etcd") << QStringLiteral("etcd");
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
    s.history.append({QStringLiteral("RUNNING"), at(10), {}});
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
    QCOMPARE(updated->history.last().status, QStringLiteral("RUNNING"));
    QCOMPARE(updated->history.last().reason, QStringLiteral("started"));
    QCOMPARE(*m_store->kernel(s.id, kernels[1].id), *updated);
    QCOMPARE(*m_store->kernel(s.id, kernels[0].id), kernels[0]);
    QCOMPARE(m_store->updateKernelStatus(s.id, newId(), KernelStatus::Running).error().kind,
             Error::Kind::NotFound);
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
    for (const StatusChange &c : kernel->history)
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
    const qint64 released = holderLines.value(0).split(' ').value(1).toLongLong();
    const qint64 taken = waiterLines.value(0).split(' ').value(1).toLongLong();
    QVERIFY2(waiterLines.value(0).startsWith("locked"), waiterLines.value(0).constData());
    QVERIFY2(taken >= released,
             qPrintable(QStringLiteral("taken %1, released %2").arg(taken).arg(released)));

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

int main(int argc, char **argv)
{
    if (argc > 2 && qstrcmp(argv[1], "--child") == 0) {
        QCoreApplication app(argc, argv);
        const QStringList args = app.arguments().mid(2);
        if (args.value(0) == u"status")
            return childStatus(args);
        if (args.value(0) == u"lock")
            return childLock(args);
        std::fprintf(stderr, "unknown child mode\n");
        return 2;
    }
    QCoreApplication app(argc, argv);
    TestStoreContract test;
    QTEST_SET_MAIN_SOURCE_PATH
    return QTest::qExec(&test, argc, argv);
}

#include "tst_storecontract.moc"
