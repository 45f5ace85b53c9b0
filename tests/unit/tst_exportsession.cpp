// `clusterdeckctl export SESSION` (issue 29, item 5): a stored session is exported from its spec
// as it runs, read from a real SQLite store by the built clusterdeckctl; no daemon.
#include "labcli.h"
#include "plan/planresolver.h"
#include "provision/sessionspec.h"
#include "store/statestore.h"
#include "store/storefactory.h"
#include "template/templateloader.h"

#include <QTemporaryDir>
#include <QTest>
#include <QUuid>

using namespace ClusterDeck;

#ifndef CLUSTERDECKCTL
#error "CLUSTERDECKCTL must name the clusterdeckctl binary"
#endif

class TestExportSession : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void exportsTheSession_data();
    void exportsTheSession();
    void countsAreForTemplates();
    void unknownSession();

private:
    QTemporaryDir m_dir;
    QString m_url;
};

void TestExportSession::initTestCase()
{
    QVERIFY(m_dir.isValid());
    m_url = QStringLiteral("sqlite://") + m_dir.filePath(QStringLiteral("state.db"));
    auto store = openStore(m_url);
    QVERIFY2(store, qPrintable(store ? QString() : store.error().toString()));

    TemplateLoader loader;
    const auto t = loader.loadClusterFile(qEnvironmentVariable("CLUSTERDECK_SOURCE_DIR") +
                                          QStringLiteral("/templates/web-cluster.yaml"));
    QVERIFY(t);
    LaunchOptions opts;
    opts.sessionId = QUuid::createUuid().toString(QUuid::WithoutBraces);
    opts.name = QStringLiteral("demo");
    opts.counts.insert(QStringLiteral("worker"), 3);
    const auto plan = resolvePlan(*t, opts, {});
    QVERIFY2(plan, qPrintable(plan ? QString() : plan.error().toString()));

    SessionRecord s;
    s.id = plan->sessionId;
    s.name = plan->sessionName;
    s.templateName = plan->templateName;
    s.networkName = plan->networkName;
    s.createdAt = QDateTime::currentDateTimeUtc();
    s.updatedAt = s.createdAt;
    SessionSpec spec;
    spec.plan = *plan;
    const auto stored = spec.storeInto(**store, s.launch);
    QVERIFY2(stored, qPrintable(stored ? QString() : stored.error().toString()));
    QList<KernelRecord> kernels;
    for (const KernelSpec &k : plan->kernels) {
        KernelRecord r;
        r.id = k.kernelId;
        r.sessionId = s.id;
        r.role = k.role;
        r.roleIdx = k.roleIdx;
        r.localRank = k.localRank;
        r.hostname = k.hostname;
        r.containerName = k.containerName;
        r.createdAt = s.createdAt;
        r.updatedAt = s.createdAt;
        kernels.append(r);
    }
    const auto created = (*store)->createSession(s, kernels);
    QVERIFY2(created, qPrintable(created ? QString() : created.error().toString()));
}

void TestExportSession::exportsTheSession_data()
{
    QTest::addColumn<QString>("format");
    QTest::addColumn<QStringList>("expected");
    QTest::newRow("jobset") << "jobset"
                            << QStringList{"from session 'demo' (template 'web-cluster')",
                                           "kind: JobSet",
                                           "web-cluster-master-0-0.web-cluster,web-cluster-worker-"
                                           "0-0.web-cluster,web-cluster-worker-0-1.web-cluster,"
                                           "web-cluster-worker-0-2.web-cluster",
                                           "parallelism: 3"};
    QTest::newRow("compose") << "compose"
                             << QStringList{
                                    "from session 'demo' (template 'web-cluster')", "  worker3:\n",
                                    "BACKEND_CLUSTER_HOSTS: master1,worker1,worker2,worker3"};
}

void TestExportSession::exportsTheSession()
{
    QFETCH(QString, format);
    QFETCH(QStringList, expected);
    const Proc p = storeCli(
        QStringLiteral(CLUSTERDECKCTL), m_url,
        {QStringLiteral("export"), QStringLiteral("demo"), QStringLiteral("--format"), format},
        60000);
    QVERIFY2(p.exitCode == 0, p.err.constData());
    const QString out = QString::fromUtf8(p.out);
    for (const QString &e : expected)
        QVERIFY2(out.contains(e), qPrintable(e + QStringLiteral(" in:\n") + out));
}

void TestExportSession::countsAreForTemplates()
{
    const Proc p =
        storeCli(QStringLiteral(CLUSTERDECKCTL), m_url,
                 {QStringLiteral("export"), QStringLiteral("demo"), QStringLiteral("--format"),
                  QStringLiteral("jobset"), QStringLiteral("--count"), QStringLiteral("worker=2")},
                 60000);
    QCOMPARE(p.exitCode, 2);
    QVERIFY2(p.err.contains("--count is for a TEMPLATE file"), p.err.constData());
}

void TestExportSession::unknownSession()
{
    const Proc p = storeCli(QStringLiteral(CLUSTERDECKCTL), m_url,
                            {QStringLiteral("export"), QStringLiteral("nosuch"),
                             QStringLiteral("--format"), QStringLiteral("compose")},
                            60000);
    QCOMPARE(p.exitCode, 1);
    QVERIFY2(p.err.contains("error: 'nosuch' is no template file, and"), p.err.constData());
    QVERIFY2(p.out.isEmpty(), p.out.constData());
}

QTEST_GUILESS_MAIN(TestExportSession)
#include "tst_exportsession.moc"
