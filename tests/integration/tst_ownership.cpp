// Never touch what is not ours (issue 13), against the lab (scripts/lab.sh): real dockerd hosts.
// A store made again at the path of a moved one has a new store id and leaves the old store's
// containers alone, through a reconcile pass, `host rm` and `network setup`.
// Endpoints come from `eval "$(scripts/lab.sh env)"`; without them the test FAILS, never skips.

#include "control/controller.h"
#include "host/hostregistry.h"
#include "labcli.h"
#include "provision/provisioner.h"
#include "store/statestore.h"
#include "store/storefactory.h"
#include "template/templateloader.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QScopeGuard>
#include <QTemporaryDir>
#include <QTest>
#include <QThread>
#include <QUuid>

using namespace ClusterDeck;
using namespace std::chrono_literals;

#ifndef CLUSTERDECKCTL
#error "CLUSTERDECKCTL must name the clusterdeckctl binary"
#endif

namespace {

const QString kTemplate = QStringLiteral(R"(apiVersion: clusterdeck/v1
kind: Cluster
name: owned
mode: multi-node
roles:
  - name: master
    count: 1
    task:
      image: clusterdeck/lab:latest
      command: [sleep, "3600"]
      resources: {cpus: 0.1, memory: 32m}
  - name: worker
    count: 2
    task:
      image: clusterdeck/lab:latest
      command: [sleep, "3600"]
      resources: {cpus: 0.1, memory: 32m}
)");

} // namespace

class TestOwnership : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void newStoreAtTheSamePathLeavesTheOldOnesContainers();
    void rollbackLeavesASameNamedForeignContainer();
    void containerOfACommittedKernelIsNotOurs();

private:
    Proc cli(const QString &storeUrl, const QStringList &args, int timeoutMs = 240000) const
    {
        return runProcess(QStringLiteral(CLUSTERDECKCTL),
                          QStringList{QStringLiteral("--store"), storeUrl} + args, timeoutMs);
    }
    void addHosts(const QString &storeUrl);
    // Names of the running containers of a session, on all hosts.
    QStringList running(const QString &sessionId) const;

    LabHosts m_lab;
    QTemporaryDir m_dir;
};

void TestOwnership::initTestCase()
{
    m_lab = LabHosts::fromEnvironment();
    if (m_lab.names().size() < 3)
        QFAIL(qPrintable(LabHosts::error()));
    QVERIFY(m_dir.isValid());
}

void TestOwnership::addHosts(const QString &storeUrl)
{
    for (const QString &h : m_lab.names()) {
        const Proc added = cli(storeUrl, {QStringLiteral("host"), QStringLiteral("add"), h,
                                          QStringLiteral("--docker"), m_lab.unixEndpoint(h),
                                          QStringLiteral("--address"), m_lab.address(h)});
        QVERIFY2(added.exitCode == 0, added.err.constData());
    }
}

QStringList TestOwnership::running(const QString &sessionId) const
{
    QStringList names;
    for (const QString &h : m_lab.names()) {
        const Proc p =
            m_lab.docker(h, {QStringLiteral("ps"), QStringLiteral("--filter"),
                             QStringLiteral("label=io.clusterdeck.session=") + sessionId,
                             QStringLiteral("--filter"), QStringLiteral("status=running"),
                             QStringLiteral("--format"), QStringLiteral("{{.Names}}")});
        names += QString::fromUtf8(p.out).split(QLatin1Char('\n'), Qt::SkipEmptyParts);
    }
    names.sort();
    return names;
}

void TestOwnership::newStoreAtTheSamePathLeavesTheOldOnesContainers()
{
    const QString path = m_dir.filePath(QStringLiteral("state.db"));
    const QString url = QStringLiteral("sqlite://") + path;

    // Store A at P: a running session of three kernels.
    addHosts(url);
    const QString file = m_dir.filePath(QStringLiteral("owned.yaml"));
    QVERIFY(writeTextFile(file, kTemplate));
    const Proc launched = cli(url, {QStringLiteral("launch"), file, QStringLiteral("--json")});
    QVERIFY2(launched.exitCode == 0, launched.err.constData());
    const QString sid =
        QJsonDocument::fromJson(launched.out).object().value(QStringLiteral("id")).toString();
    QVERIFY(!sid.isEmpty());
    const QStringList before = running(sid);
    QCOMPARE(before.size(), 3);
    QString idA;
    {
        auto a = openStore(url);
        QVERIFY2(a, qPrintable(a ? QString() : a.error().toString()));
        idA = (*a)->storeId();
    }
    const QString labelA =
        QString::fromUtf8(
            m_lab
                .docker(m_lab.names().first(),
                        {QStringLiteral("ps"), QStringLiteral("-a"), QStringLiteral("--filter"),
                         QStringLiteral("label=io.clusterdeck.session=") + sid,
                         QStringLiteral("--format"),
                         QStringLiteral("{{.Label \"io.clusterdeck.store\"}}")})
                .out)
            .split(QLatin1Char('\n'), Qt::SkipEmptyParts)
            .value(0);
    QCOMPARE(labelA, idA);

    // Move A away; a new store B at the same path.
    const QString moved = m_dir.filePath(QStringLiteral("moved.db"));
    for (const char *suffix : {"", "-wal", "-shm"}) {
        if (QFile::exists(path + QLatin1String(suffix)))
            QVERIFY(QFile::rename(path + QLatin1String(suffix), moved + QLatin1String(suffix)));
    }
    addHosts(url);
    auto b = openStore(url);
    QVERIFY2(b, qPrintable(b ? QString() : b.error().toString()));
    StateStore *storeB = b->get();
    QVERIFY2(storeB->storeId() != idA, qPrintable(idA));
    QCOMPARE(storeB->url(), url); // the URL that was A's label before the store id

    // B's own orphan (its label, a session it does not know): a reconcile pass must remove it,
    // which shows the pass really removes orphans while it leaves A's containers alone.
    const QString host1 = m_lab.names().first();
    const QString orphanSession = QUuid::createUuid().toString(QUuid::WithoutBraces);
    // A kernel's container as ClusterDeck makes one: its labels and the name they give it.
    const QString orphan = QStringLiteral("cd-%1-worker1").arg(orphanSession.left(8));
    const Proc made = m_lab.docker(
        host1,
        {QStringLiteral("run"), QStringLiteral("-d"), QStringLiteral("--name"), orphan,
         QStringLiteral("--label"), QStringLiteral("io.clusterdeck.session=") + orphanSession,
         QStringLiteral("--label"), QStringLiteral("io.clusterdeck.kernel=") + orphanSession,
         QStringLiteral("--label"), QStringLiteral("io.clusterdeck.hostname=worker1"),
         QStringLiteral("--label"), QStringLiteral("io.clusterdeck.store=") + storeB->storeId(),
         QStringLiteral("clusterdeck/lab:latest"), QStringLiteral("sleep"), QStringLiteral("600")});
    QVERIFY2(made.exitCode == 0, made.err.constData());
    QThread::sleep(2); // older than the 1 s grace below

    HostRegistry registry(storeB);
    ControllerOptions options;
    options.orphanGrace = 1s;
    options.actor = QStringLiteral("tst_ownership");
    {
        Controller controller(storeB, &registry, options);
        auto report = controller.runOnce();
        QVERIFY2(report, qPrintable(report ? QString() : report.error().toString()));
        QStringList done;
        for (const ReconcileReport::Applied &a : report->applied)
            done.append(ReconcileAction::name(a.action.kind) + QLatin1Char(' ') +
                        a.action.objectName + QLatin1Char(' ') + a.outcome);
        qInfo().noquote() << "reconcile on the new store:" << done.join(QStringLiteral("; "));
        QCOMPARE(report->applied.size(), 1);
        QCOMPARE(report->applied.first().action.kind, ReconcileAction::Kind::RemoveOrphanContainer);
    }
    QCOMPARE(running(sid), before);
    QCOMPARE(m_lab.docker(host1, {QStringLiteral("inspect"), orphan}).exitCode, 1);

    // `reconcile` through the CLI, `network setup` and `host rm` on B: A's still run.
    const Proc reconciled = cli(url, {QStringLiteral("reconcile")});
    QVERIFY2(reconciled.exitCode == 0, reconciled.err.constData());
    const Proc network = cli(url, {QStringLiteral("network"), QStringLiteral("setup"),
                                   QStringLiteral("--driver"), QStringLiteral("swarm")});
    QVERIFY2(network.exitCode == 0, network.err.constData());
    for (const QString &h : m_lab.names()) {
        const Proc removed = cli(url, {QStringLiteral("host"), QStringLiteral("rm"), h});
        QVERIFY2(removed.exitCode == 0, removed.err.constData());
    }
    QCOMPARE(running(sid), before);
    qInfo().noquote() << QStringLiteral("store A %1, store B %2: %3 of A's containers running "
                                        "after reconcile, network setup and host rm on B")
                             .arg(idA, storeB->storeId())
                             .arg(running(sid).size());

    // A, at its new path (another URL, the same id), still owns them and removes them.
    const Proc rm = cli(QStringLiteral("sqlite://") + moved, {QStringLiteral("rm"), sid});
    QVERIFY2(rm.exitCode == 0, rm.err.constData());
    QTRY_COMPARE_WITH_TIMEOUT(LabHosts::count(m_lab.containersOf(sid)), 0, 30000);
    QTRY_COMPARE_WITH_TIMEOUT(LabHosts::count(m_lab.networksOf(sid)), 0, 30000);
}

// A container named like one of the session's kernels but with other labels (here: the same
// session label, another store's id and kernel): the launch fails with a Conflict naming it, and
// the rollback removes what the launch made but not that container.
void TestOwnership::rollbackLeavesASameNamedForeignContainer()
{
    const QString url = QStringLiteral("sqlite://") + m_dir.filePath(QStringLiteral("rb.db"));
    addHosts(url);
    auto opened = openStore(url);
    QVERIFY2(opened, qPrintable(opened ? QString() : opened.error().toString()));
    StateStore *store = opened->get();
    HostRegistry registry(store);

    const QString sid = QUuid::createUuid().toString(QUuid::WithoutBraces);
    const QString name = QStringLiteral("cd-%1-worker1").arg(sid.left(8));
    // On every host, as the placement decides where worker1 goes.
    for (const QString &h : m_lab.names()) {
        const Proc made = m_lab.docker(
            h, {QStringLiteral("run"), QStringLiteral("-d"), QStringLiteral("--name"), name,
                QStringLiteral("--label"), QStringLiteral("io.clusterdeck.session=") + sid,
                QStringLiteral("--label"), QStringLiteral("io.clusterdeck.kernel=not-ours"),
                QStringLiteral("--label"), QStringLiteral("io.clusterdeck.store=another-store"),
                QStringLiteral("clusterdeck/lab:latest"), QStringLiteral("sleep"),
                QStringLiteral("600")});
        QVERIFY2(made.exitCode == 0, made.err.constData());
    }
    // Removed however the test ends: a failure must not leave them to the lab's next test.
    auto removeForeign = qScopeGuard([&] {
        for (const QString &h : m_lab.names())
            m_lab.docker(h, {QStringLiteral("rm"), QStringLiteral("-f"), name});
    });

    TemplateLoader loader;
    auto t = loader.loadClusterFromData(kTemplate.toUtf8(), QStringLiteral("owned.yaml"));
    QVERIFY(t);
    LaunchRequest request;
    request.clusterTemplate = *t;
    request.templateSource = kTemplate;
    request.options.sessionId = sid;
    Provisioner provisioner(store, &registry);
    provisioner.setActor(QStringLiteral("tst_ownership"));
    auto launched = provisioner.launch(request);
    QVERIFY(!launched);
    qInfo().noquote() << "launch:" << launched.error().toString();
    QCOMPARE(launched.error().kind, Error::Kind::Conflict);
    QVERIFY2(launched.error().toString().contains(name), qPrintable(launched.error().toString()));

    // Every foreign container still exists and runs; nothing of the launch is left.
    int foreign = 0;
    for (const QString &h : m_lab.names()) {
        const Proc state =
            m_lab.docker(h, {QStringLiteral("inspect"), QStringLiteral("-f"),
                             QStringLiteral("{{.State.Running}} "
                                            "{{index .Config.Labels \"io.clusterdeck.store\"}}"),
                             name});
        QCOMPARE(state.exitCode, 0);
        QCOMPARE(QString::fromUtf8(state.out).trimmed(), QStringLiteral("true another-store"));
        ++foreign;
    }
    const QMap<QString, QStringList> left = m_lab.containersOf(sid);
    QCOMPARE(LabHosts::count(left), foreign); // only the foreign ones
    QCOMPARE(LabHosts::count(m_lab.networksOf(sid)), 0);
    qInfo().noquote() << QStringLiteral(
                             "after the rolled-back launch: %1 foreign %2 still running, "
                             "0 of the launch's objects left")
                             .arg(foreign)
                             .arg(name);
}

// Issue 24 D.5: an admin commits a kernel's container to an image and runs a container from it:
// that container inherits every io.clusterdeck.* label, this store's id included. It is not a
// kernel's (its name is its own): a reconcile pass and `rm` of the session leave it alone.
// (Before: the pass removed it as "an older container" of the kernel, and rm removed it too.)
void TestOwnership::containerOfACommittedKernelIsNotOurs()
{
    const QString url = QStringLiteral("sqlite://") + m_dir.filePath(QStringLiteral("commit.db"));
    addHosts(url);
    const QString file = m_dir.filePath(QStringLiteral("commit.yaml"));
    QVERIFY(writeTextFile(file, kTemplate));
    const Proc launched = cli(url, {QStringLiteral("launch"), file, QStringLiteral("--json")});
    QVERIFY2(launched.exitCode == 0, launched.err.constData());
    const QJsonObject session = QJsonDocument::fromJson(launched.out).object();
    const QString sid = session.value(QStringLiteral("id")).toString();
    const QJsonObject worker = session.value(QStringLiteral("kernels")).toArray().at(1).toObject();
    const QString host = worker.value(QStringLiteral("host")).toString();
    const QString kernelContainer = worker.value(QStringLiteral("container_id")).toString();
    QVERIFY(!host.isEmpty() && !kernelContainer.isEmpty());

    const QString image = QStringLiteral("cdtest/committed:") + sid.left(8);
    const QString copy = QStringLiteral("copy-of-") + sid.left(8);
    const Proc committed = m_lab.docker(host, {QStringLiteral("commit"), kernelContainer, image});
    QVERIFY2(committed.exitCode == 0, committed.err.constData());
    const Proc ran = m_lab.docker(
        host, {QStringLiteral("run"), QStringLiteral("-d"), QStringLiteral("--name"), copy, image});
    QVERIFY2(ran.exitCode == 0, ran.err.constData());
    const QString labels =
        QString::fromUtf8(m_lab
                              .docker(host, {QStringLiteral("inspect"), QStringLiteral("-f"),
                                             QStringLiteral("{{json .Config.Labels}}"), copy})
                              .out);
    QVERIFY2(labels.contains(sid), qPrintable(labels)); // it does carry the session's labels

    const Proc reconciled = cli(url, {QStringLiteral("reconcile"), QStringLiteral("--json")});
    QVERIFY2(reconciled.exitCode == 0, reconciled.err.constData());
    QVERIFY2(running(sid).contains(copy), reconciled.out.constData());
    const Proc rm = cli(url, {QStringLiteral("rm"), sid});
    QVERIFY2(rm.exitCode == 0, rm.err.constData());
    QCOMPARE(running(sid), QStringList{copy});

    QCOMPARE(m_lab.docker(host, {QStringLiteral("rm"), QStringLiteral("-f"), copy}).exitCode, 0);
    QCOMPARE(m_lab.docker(host, {QStringLiteral("rmi"), image}).exitCode, 0);
}

QTEST_GUILESS_MAIN(TestOwnership)
#include "tst_ownership.moc"
