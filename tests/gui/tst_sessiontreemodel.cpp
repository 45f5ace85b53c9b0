#include "gui/sessionfixtures.h"
#include "models/sessionfilterproxymodel.h"
#include "models/sessiontreemodel.h"

#include <QAbstractItemModelTester>
#include <QItemSelectionModel>
#include <QSignalSpy>
#include <QTest>
#include <QTreeView>

#include <memory>

using namespace ClusterDeck;
using namespace ClusterDeck::Ui;
using namespace ClusterDeck::Fixtures;

using RoleCounts = QList<QPair<QString, int>>;
Q_DECLARE_METATYPE(RoleCounts)

class TestSessionTreeModel : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void init();
    void cleanup();

    void treeShape_data();
    void treeShape();
    void sessionRowShowsPrimary();
    void primaryChoice_data();
    void primaryChoice();
    void roleGrouping();
    void ports();
    void statusUpdateChangesOneRow();
    void statusUpdateKeepsExpansionAndSelection();
    void aggregatedStatus_data();
    void aggregatedStatus();
    void newKernelIsInserted();
    void newRoleIsInsertedInOrder();
    void kernelRemovedAndEmptyRoleGoes();
    void upsertSessionSyncsKernels();
    void removeSessionKeepsOthers();
    void unknownSessionKernelIgnored();
    void setSessionsResets();
    void age_data();
    void age();

    void filter_data();
    void filter();
    void filterKeepsParentsOfMatchingKernels();
    void filterFollowsUpdates();
    void statusFilter();
    void sortKeepsKernelOrder();

private:
    void load(const QList<SessionFixture> &fixtures);

    std::unique_ptr<SessionTreeModel> m_model;
    std::unique_ptr<QAbstractItemModelTester> m_tester;
};

void TestSessionTreeModel::init()
{
    m_model = std::make_unique<SessionTreeModel>();
    m_tester = std::make_unique<QAbstractItemModelTester>(
        m_model.get(), QAbstractItemModelTester::FailureReportingMode::Fatal);
}

void TestSessionTreeModel::cleanup()
{
    m_tester.reset();
    m_model.reset();
}

void TestSessionTreeModel::load(const QList<SessionFixture> &fixtures)
{
    QList<SessionRecord> sessions;
    QHash<QString, QList<KernelRecord>> kernels;
    for (const SessionFixture &f : fixtures) {
        sessions.append(f.session);
        kernels.insert(f.session.id, f.kernels);
    }
    m_model->setSessions(sessions, kernels);
}

void TestSessionTreeModel::treeShape_data()
{
    QTest::addColumn<RoleCounts>("roles");
    QTest::addColumn<QStringList>("roleRows");
    QTest::addColumn<QStringList>("lastRoleHostnames");

    QTest::newRow("single kernel")
        << RoleCounts{{"main", 1}} << QStringList{"main (1)"} << QStringList{"main1"};
    QTest::newRow("master and workers")
        << RoleCounts{{"master", 2}, {"worker", 12}} << QStringList{"master (2)", "worker (12)"}
        << QStringList{"worker1", "worker2", "worker3", "worker4",  "worker5",  "worker6",
                       "worker7", "worker8", "worker9", "worker10", "worker11", "worker12"};
    QTest::newRow("three roles in template order")
        << RoleCounts{{"ps", 1}, {"chief", 1}, {"worker", 3}}
        << QStringList{"ps (1)", "chief (1)", "worker (3)"}
        << QStringList{"worker1", "worker2", "worker3"};
}

void TestSessionTreeModel::treeShape()
{
    QFETCH(RoleCounts, roles);
    QFETCH(QStringList, roleRows);
    QFETCH(QStringList, lastRoleHostnames);

    SessionFixture f = makeSession("s1", "alpha", roles);
    // Feed kernels in reverse order: the model must sort them by rank.
    std::reverse(f.kernels.begin(), f.kernels.end());
    load({f, makeSession("s2", "beta", {{"main", 1}})});

    QCOMPARE(m_model->rowCount(), 2);
    QCOMPARE(m_model->columnCount(), int(SessionTreeModel::ColumnCount));
    const QModelIndex s = m_model->index(0, 0);
    QCOMPARE(s.data().toString(), QStringLiteral("alpha"));
    QCOMPARE(s.data(SessionTreeModel::KindRole).toInt(), int(SessionTreeModel::RowKind::Session));
    QCOMPARE(m_model->rowCount(s), roleRows.size());
    QStringList actualRoles;
    for (int r = 0; r < m_model->rowCount(s); ++r) {
        const QModelIndex role = m_model->index(r, 0, s);
        QCOMPARE(role.data(SessionTreeModel::KindRole).toInt(),
                 int(SessionTreeModel::RowKind::Role));
        QCOMPARE(role.parent(), s);
        actualRoles << role.data().toString();
    }
    QCOMPARE(actualRoles, roleRows);
    const QModelIndex lastRole = m_model->index(m_model->rowCount(s) - 1, 0, s);
    QStringList hostnames;
    for (int r = 0; r < m_model->rowCount(lastRole); ++r) {
        const QModelIndex k = m_model->index(r, 0, lastRole);
        QCOMPARE(k.data(SessionTreeModel::KindRole).toInt(),
                 int(SessionTreeModel::RowKind::Kernel));
        QCOMPARE(k.parent(), lastRole);
        QCOMPARE(m_model->rowCount(k), 0);
        hostnames << k.data().toString();
    }
    QCOMPARE(hostnames, lastRoleHostnames);
    int total = 0;
    for (const auto &[_, n] : roles)
        total += n;
    QCOMPARE(m_model->kernelCount(), total + 1);
    QCOMPARE(m_model->sessionCount(), 2);
}

void TestSessionTreeModel::sessionRowShowsPrimary()
{
    load({makeSession("s1", "alpha", {{"master", 2}, {"worker", 12}})});
    const QModelIndex s = m_model->index(0, 0);
    auto cell = [&](int column) {
        return m_model->index(0, column).data().toString();
    };
    QCOMPARE(cell(SessionTreeModel::NameColumn), QStringLiteral("alpha"));
    QCOMPARE(cell(SessionTreeModel::TemplateColumn), QStringLiteral("lab-basic"));
    QCOMPARE(cell(SessionTreeModel::StatusColumn), QStringLiteral("RUNNING"));
    QCOMPARE(cell(SessionTreeModel::KernelsColumn),
             QStringLiteral("14 kernels: master×2, worker×12"));
    QCOMPARE(cell(SessionTreeModel::HostsColumn), QStringLiteral("h1, h2, h3"));
    QCOMPARE(cell(SessionTreeModel::ContainerColumn), QStringLiteral("000000000000"));
    QCOMPARE(cell(SessionTreeModel::PortsColumn),
             QStringLiteral(
                 "web → http://10.0.0.1:49153, ssh → h1:49154")); // no address known: the host
    QCOMPARE(s.data(SessionTreeModel::HostnameRole).toString(), QStringLiteral("master1"));
    QCOMPARE(s.data(SessionTreeModel::HostnamesRole).toStringList().size(), 14);
    QVERIFY(!m_model->index(0, SessionTreeModel::StatusColumn).data(Qt::DecorationRole).isNull());
}

void TestSessionTreeModel::primaryChoice_data()
{
    QTest::addColumn<int>("flagged"); // rank flagged primary, -1 = none
    QTest::addColumn<QString>("expected");
    QTest::newRow("flagged first") << 0 << "master1";
    QTest::newRow("flagged elsewhere wins") << 3 << "worker2";
    QTest::newRow("none flagged: first kernel of first role") << -1 << "master1";
}

void TestSessionTreeModel::primaryChoice()
{
    QFETCH(int, flagged);
    QFETCH(QString, expected);
    SessionFixture f = makeSession("s1", "alpha", {{"master", 2}, {"worker", 3}});
    for (KernelRecord &k : f.kernels)
        k.primary = k.localRank == flagged;
    std::reverse(f.kernels.begin(), f.kernels.end());
    load({f});
    const QModelIndex s = m_model->index(0, 0);
    QCOMPARE(s.data(SessionTreeModel::HostnameRole).toString(), expected);
    const QString expectedId =
        m_model->kernelIndex(s.data(SessionTreeModel::KernelIdRole).toString()).data().toString();
    QCOMPARE(expectedId, expected);
}

void TestSessionTreeModel::roleGrouping()
{
    load({makeSession("s1", "alpha", {{"master", 2}, {"worker", 12}})});
    const QModelIndex s = m_model->index(0, 0);
    const QModelIndex worker = m_model->index(1, 0, s);
    QCOMPARE(worker.data().toString(), QStringLiteral("worker (12)"));
    QCOMPARE(m_model->index(1, SessionTreeModel::KernelsColumn, s).data().toString(),
             QStringLiteral("12 kernels"));
    QCOMPARE(m_model->index(1, SessionTreeModel::HostsColumn, s).data().toString(),
             QStringLiteral("h1, h2, h3"));
    const QModelIndex w7 = m_model->index(6, 0, worker);
    QCOMPARE(w7.data().toString(), QStringLiteral("worker7"));
    QCOMPARE(m_model->index(6, SessionTreeModel::TemplateColumn, worker).data().toString(),
             QStringLiteral("worker 7"));
    QCOMPARE(w7.data(SessionTreeModel::SessionIdRole).toString(), QStringLiteral("s1"));
    QCOMPARE(worker.data(SessionTreeModel::HostnamesRole).toStringList().size(), 12);
}

void TestSessionTreeModel::ports()
{
    QHash<QString, QString> addresses{{"h1", "192.168.213.11"}};
    m_model->setHostAddresses(addresses);
    SessionFixture f = makeSession("s1", "alpha", {{"main", 1}}, {"h1"});
    f.kernels[0].ports[0].url.clear(); // address from the host registry then
    load({f});
    const QModelIndex k = m_model->kernelIndex(f.kernels[0].id);
    const QVariantList ports = k.data(SessionTreeModel::PortsRole).toList();
    QCOMPARE(ports.size(), 2); // the unbound one is not shown
    QCOMPARE(k.data(SessionTreeModel::PortUrlsRole).toStringList(),
             (QStringList{"http://192.168.213.11:49153", "tcp://192.168.213.11:49154"}));
    QCOMPARE(ports[1].toMap().value("port").toInt(), 49154);
    QCOMPARE(ports[1].toMap().value("address").toString(), QStringLiteral("192.168.213.11"));
}

void TestSessionTreeModel::statusUpdateChangesOneRow()
{
    SessionFixture f = makeSession("s1", "alpha", {{"master", 1}, {"worker", 4}});
    load({f, makeSession("s2", "beta", {{"main", 1}})});
    QSignalSpy changed(m_model.get(), &QAbstractItemModel::dataChanged);
    QSignalSpy reset(m_model.get(), &QAbstractItemModel::modelAboutToBeReset);
    QSignalSpy layout(m_model.get(), &QAbstractItemModel::layoutAboutToBeChanged);
    QSignalSpy inserted(m_model.get(), &QAbstractItemModel::rowsInserted);
    QSignalSpy removed(m_model.get(), &QAbstractItemModel::rowsRemoved);

    KernelRecord k = f.kernels[3]; // worker3
    k.status = KernelStatus::Error;
    m_model->updateKernel(k);

    QCOMPARE(reset.size(), 0);
    QCOMPARE(layout.size(), 0);
    QCOMPARE(inserted.size(), 0);
    QCOMPARE(removed.size(), 0);
    const QModelIndex kernel = m_model->kernelIndex(k.id);
    // The kernel row, its role row and its session row — nothing else.
    QSet<QModelIndex> rows;
    for (const QList<QVariant> &args : changed) {
        const auto tl = args[0].value<QModelIndex>();
        const auto br = args[1].value<QModelIndex>();
        QCOMPARE(tl.row(), br.row());
        QCOMPARE(tl.parent(), br.parent());
        rows.insert(tl.siblingAtColumn(0));
    }
    QCOMPARE(rows, (QSet<QModelIndex>{kernel, kernel.parent(), kernel.parent().parent()}));
    QCOMPARE(m_model->index(0, SessionTreeModel::StatusColumn, kernel.parent()).data().toString(),
             QStringLiteral("RUNNING")); // master role untouched
    QCOMPARE(kernel.siblingAtColumn(SessionTreeModel::StatusColumn).data().toString(),
             QStringLiteral("ERROR"));
    QCOMPARE(m_model->index(0, SessionTreeModel::StatusColumn).data().toString(),
             QStringLiteral("DEGRADED"));
}

void TestSessionTreeModel::statusUpdateKeepsExpansionAndSelection()
{
    SessionFixture f = makeSession("s1", "alpha", {{"master", 1}, {"worker", 4}});
    load({makeSession("s0", "zero", {{"main", 2}}), f});
    QTreeView view;
    view.setModel(m_model.get());
    const QModelIndex session = m_model->sessionIndex("s1");
    const QModelIndex workers = m_model->index(1, 0, session);
    view.expand(session);
    view.expand(workers);
    const QModelIndex w2 = m_model->kernelIndex(f.kernels[2].id);
    view.selectionModel()->select(w2,
                                  QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
    view.setCurrentIndex(w2);
    const QPersistentModelIndex persistent(w2);

    for (int i = 0; i < 5; ++i) {
        KernelRecord k = f.kernels[i];
        k.status = KernelStatus::Restarting;
        m_model->updateKernel(k);
    }
    m_model->upsertSession(f.session, f.kernels); // a full refresh of the same session
    m_model->removeSession("s0");                 // rows above move
    m_model->upsertSession(makeSession("s3", "gamma", {{"main", 1}}).session);

    QVERIFY(persistent.isValid());
    QCOMPARE(persistent.data().toString(), QStringLiteral("worker2"));
    QVERIFY(view.isExpanded(m_model->sessionIndex("s1")));
    QVERIFY(view.isExpanded(m_model->index(1, 0, m_model->sessionIndex("s1"))));
    QVERIFY(view.selectionModel()->isSelected(QModelIndex(persistent)));
    QCOMPARE(view.currentIndex(), QModelIndex(persistent));
}

void TestSessionTreeModel::aggregatedStatus_data()
{
    QTest::addColumn<QList<int>>("statuses");
    QTest::addColumn<int>("recordStatus");
    QTest::addColumn<QString>("expected");
    const int running = int(KernelStatus::Running);
    const int error = int(KernelStatus::Error);
    const int creating = int(KernelStatus::Creating);
    QTest::newRow("all running") << QList<int>{running, running, running}
                                 << int(SessionStatus::Running) << "RUNNING";
    QTest::newRow("one failed") << QList<int>{running, error, running}
                                << int(SessionStatus::Running) << "DEGRADED";
    QTest::newRow("being created") << QList<int>{running, creating, creating}
                                   << int(SessionStatus::Provisioning) << "PROVISIONING";
    QTest::newRow("final record wins")
        << QList<int>{running, running, running} << int(SessionStatus::Error) << "ERROR";
}

void TestSessionTreeModel::aggregatedStatus()
{
    QFETCH(QList<int>, statuses);
    QFETCH(int, recordStatus);
    QFETCH(QString, expected);
    SessionFixture f = makeSession("s1", "alpha", {{"main", 1}, {"worker", 2}});
    f.session.status = SessionStatus(recordStatus);
    load({f});
    for (int i = 0; i < statuses.size(); ++i) {
        KernelRecord k = f.kernels[i];
        k.status = KernelStatus(statuses[i]);
        m_model->updateKernel(k);
    }
    QCOMPARE(m_model->index(0, SessionTreeModel::StatusColumn).data().toString(), expected);
    QCOMPARE(m_model->index(0, 0).data(SessionTreeModel::StatusRole).toString(), expected);
    // The typed roles say the same, for code that decides by status.
    const QModelIndex session = m_model->index(0, 0);
    QCOMPARE(toString(session.data(SessionTreeModel::SessionStatusRole).value<SessionStatus>()),
             expected);
    QCOMPARE(toString(session.data(SessionTreeModel::KernelStatusRole).value<KernelStatus>()),
             toString(KernelStatus(statuses[0]))); // the primary's
    const QModelIndex workers = m_model->index(1, 0, session);
    QVERIFY(!workers.data(SessionTreeModel::KernelStatusRole).isValid()); // a role row
    QCOMPARE(toString(workers.data(SessionTreeModel::SessionStatusRole).value<SessionStatus>()),
             toString(deriveSessionStatus({KernelStatus(statuses[1]), KernelStatus(statuses[2])})));
    for (int i = 0; i < 2; ++i)
        QCOMPARE(toString(m_model->index(i, 0, workers)
                              .data(SessionTreeModel::KernelStatusRole)
                              .value<KernelStatus>()),
                 toString(KernelStatus(statuses[i + 1])));
}

void TestSessionTreeModel::newKernelIsInserted()
{
    SessionFixture f = makeSession("s1", "alpha", {{"master", 1}, {"worker", 3}});
    KernelRecord late = f.kernels.takeAt(2); // worker2 arrives later
    load({f});
    const QModelIndex workers = m_model->index(1, 0, m_model->index(0, 0));
    const QPersistentModelIndex w3 = m_model->index(1, 0, workers);
    QCOMPARE(w3.data().toString(), QStringLiteral("worker3"));
    QSignalSpy inserted(m_model.get(), &QAbstractItemModel::rowsInserted);
    QSignalSpy reset(m_model.get(), &QAbstractItemModel::modelAboutToBeReset);

    m_model->updateKernel(late);

    QCOMPARE(reset.size(), 0);
    QCOMPARE(inserted.size(), 1);
    QCOMPARE(inserted[0][0].value<QModelIndex>(), workers);
    QCOMPARE(inserted[0][1].toInt(), 1);
    QCOMPARE(m_model->index(1, 0, workers).data().toString(), QStringLiteral("worker2"));
    QCOMPARE(w3.row(), 2);
    QCOMPARE(workers.data().toString(), QStringLiteral("worker (3)"));
    QCOMPARE(m_model->index(0, SessionTreeModel::KernelsColumn).data().toString(),
             QStringLiteral("4 kernels: master×1, worker×3"));
}

void TestSessionTreeModel::newRoleIsInsertedInOrder()
{
    SessionFixture f = makeSession("s1", "alpha", {{"ps", 1}, {"chief", 1}, {"worker", 2}});
    KernelRecord chief = f.kernels.takeAt(1);
    load({f});
    const QModelIndex s = m_model->index(0, 0);
    QCOMPARE(m_model->rowCount(s), 2);
    QSignalSpy inserted(m_model.get(), &QAbstractItemModel::rowsInserted);
    m_model->updateKernel(chief);
    QCOMPARE(inserted.size(), 2); // the role row, then the kernel under it
    QCOMPARE(m_model->rowCount(s), 3);
    QCOMPARE(m_model->index(1, 0, s).data().toString(), QStringLiteral("chief (1)"));
    QCOMPARE(m_model->index(2, 0, s).data().toString(), QStringLiteral("worker (2)"));
}

void TestSessionTreeModel::kernelRemovedAndEmptyRoleGoes()
{
    SessionFixture f = makeSession("s1", "alpha", {{"master", 1}, {"worker", 2}});
    load({f});
    const QModelIndex s = m_model->index(0, 0);
    m_model->removeKernel("s1", f.kernels[0].id);
    QCOMPARE(m_model->rowCount(s), 1);
    QCOMPARE(m_model->index(0, 0, s).data().toString(), QStringLiteral("worker (2)"));
    // The primary falls back to the first remaining kernel.
    QCOMPARE(s.data(SessionTreeModel::HostnameRole).toString(), QStringLiteral("worker1"));
    QVERIFY(!m_model->hasKernel(f.kernels[0].id));
    QCOMPARE(m_model->kernelCount(), 2);
}

void TestSessionTreeModel::upsertSessionSyncsKernels()
{
    SessionFixture f = makeSession("s1", "alpha", {{"master", 1}, {"worker", 3}});
    load({f});
    QSignalSpy reset(m_model.get(), &QAbstractItemModel::modelAboutToBeReset);
    QList<KernelRecord> kernels = f.kernels;
    kernels.removeAt(3);
    kernels[1].status = KernelStatus::Terminating;
    f.session.name = QStringLiteral("renamed");
    m_model->upsertSession(f.session, kernels);
    QCOMPARE(reset.size(), 0);
    QCOMPARE(m_model->kernelCount(), 3);
    QCOMPARE(m_model->index(0, 0).data().toString(), QStringLiteral("renamed"));
    QCOMPARE(m_model->kernelIndex(kernels[1].id)
                 .siblingAtColumn(SessionTreeModel::StatusColumn)
                 .data()
                 .toString(),
             QStringLiteral("TERMINATING"));
    // Status-only upsert keeps the kernels.
    f.session.name = QStringLiteral("again");
    m_model->upsertSession(f.session);
    QCOMPARE(m_model->kernelCount(), 3);
    QCOMPARE(m_model->index(0, 0).data().toString(), QStringLiteral("again"));
}

void TestSessionTreeModel::removeSessionKeepsOthers()
{
    load({makeSession("s1", "a", {{"main", 1}}), makeSession("s2", "b", {{"main", 2}}),
          makeSession("s3", "c", {{"main", 3}})});
    const QPersistentModelIndex c = m_model->sessionIndex("s3");
    const QPersistentModelIndex cKernel = m_model->kernelIndex("s3-k2");
    QSignalSpy removed(m_model.get(), &QAbstractItemModel::rowsRemoved);
    m_model->removeSession("s2");
    QCOMPARE(removed.size(), 1);
    QCOMPARE(c.row(), 1);
    QCOMPARE(cKernel.data().toString(), QStringLiteral("main3"));
    QVERIFY(!m_model->hasSession("s2"));
    QVERIFY(!m_model->hasKernel("s2-k0"));
    QCOMPARE(m_model->kernelCount(), 4);
    m_model->removeSession("nope"); // no-op
    QCOMPARE(m_model->rowCount(), 2);
}

void TestSessionTreeModel::unknownSessionKernelIgnored()
{
    load({makeSession("s1", "a", {{"main", 1}})});
    KernelRecord stray = makeSession("zz", "z", {{"main", 1}}).kernels[0];
    m_model->updateKernel(stray);
    QCOMPARE(m_model->kernelCount(), 1);
}

void TestSessionTreeModel::setSessionsResets()
{
    load({makeSession("s1", "a", {{"main", 1}})});
    QSignalSpy reset(m_model.get(), &QAbstractItemModel::modelReset);
    load({makeSession("s2", "b", {{"main", 2}}), makeSession("s3", "c", {{"main", 1}})});
    QCOMPARE(reset.size(), 1);
    QCOMPARE(m_model->rowCount(), 2);
    QVERIFY(!m_model->hasSession("s1"));
    m_model->clear();
    QCOMPARE(m_model->rowCount(), 0);
    QCOMPARE(m_model->kernelCount(), 0);
}

void TestSessionTreeModel::age_data()
{
    QTest::addColumn<qint64>("seconds");
    QTest::addColumn<QString>("expected");
    QTest::newRow("seconds") << qint64(42) << "42s";
    QTest::newRow("minutes") << qint64(12 * 60 + 5) << "12m";
    QTest::newRow("hours") << qint64(3 * 3600 + 12 * 60) << "3h 12m";
    QTest::newRow("days") << qint64(2 * 86400 + 4 * 3600) << "2d 4h";
}

void TestSessionTreeModel::age()
{
    QFETCH(qint64, seconds);
    QFETCH(QString, expected);
    SessionFixture f = makeSession("s1", "a", {{"main", 1}});
    m_model->setReferenceTime(f.session.createdAt.addSecs(seconds));
    load({f});
    QCOMPARE(m_model->index(0, SessionTreeModel::AgeColumn).data().toString(), expected);
}

// ---- filter --------------------------------------------------------------------------------

using Visible = QStringList; // "session" or "session/role/kernel" paths, depth-first
Q_DECLARE_METATYPE(Visible)

static QStringList visibleTree(const QAbstractItemModel &m, const QModelIndex &parent = {},
                               const QString &prefix = {})
{
    QStringList out;
    for (int r = 0; r < m.rowCount(parent); ++r) {
        const QModelIndex i = m.index(r, 0, parent);
        QString name = i.data().toString();
        name = name.left(name.indexOf(u' ') < 0 ? name.size() : name.indexOf(u' '));
        const QString path = prefix.isEmpty() ? name : prefix + u'/' + name;
        if (m.rowCount(i) == 0)
            out << path;
        out << visibleTree(m, i, path);
    }
    return out;
}

void TestSessionTreeModel::filter_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<QStringList>("expected");
    QTest::newRow("empty shows all")
        << "" << QStringList{"alpha/master/master1", "alpha/worker/worker1", "alpha/worker/worker2",
                             "alpha/worker/worker3", "beta/main/main1",      "beta/main/main2"};
    QTest::newRow("session name shows its kernels")
        << "beta" << QStringList{"beta/main/main1", "beta/main/main2"};
    QTest::newRow("kernel hostname keeps parents")
        << "worker2" << QStringList{"alpha/worker/worker2"};
    QTest::newRow("host field shows kernels on it")
        << "host:h2" << QStringList{"alpha/worker/worker1", "beta/main/main2"};
    QTest::newRow("template field")
        << "template:mpi" << QStringList{"beta/main/main1", "beta/main/main2"};
    QTest::newRow("template and host")
        << "template:lab host:h3" << QStringList{"alpha/worker/worker2"};
    QTest::newRow("status field") << "status:error" << QStringList{"alpha/worker/worker3"};
    QTest::newRow("role field") << "role:master" << QStringList{"alpha/master/master1"};
    QTest::newRow("case insensitive") << "ALPHA MASTER" << QStringList{"alpha/master/master1"};
    QTest::newRow("nothing") << "nomatch" << QStringList{};
}

void TestSessionTreeModel::filter()
{
    QFETCH(QString, text);
    QFETCH(QStringList, expected);
    SessionFixture a = makeSession("s1", "alpha", {{"master", 1}, {"worker", 3}});
    a.kernels[3].status = KernelStatus::Error;
    load({a, makeSession("s2", "beta", {{"main", 2}}, {"h1", "h2"}, KernelStatus::Running, "mpi")});
    SessionFilterProxyModel proxy;
    QAbstractItemModelTester tester(&proxy, QAbstractItemModelTester::FailureReportingMode::Fatal);
    proxy.setSourceModel(m_model.get());
    proxy.setFilterText(text);
    QCOMPARE(visibleTree(proxy), expected);
}

void TestSessionTreeModel::filterKeepsParentsOfMatchingKernels()
{
    load({makeSession("s1", "alpha", {{"master", 1}, {"worker", 12}})});
    SessionFilterProxyModel proxy;
    QAbstractItemModelTester tester(&proxy, QAbstractItemModelTester::FailureReportingMode::Fatal);
    proxy.setSourceModel(m_model.get());
    proxy.setFilterText(QStringLiteral("worker11"));
    QCOMPARE(proxy.rowCount(), 1);
    const QModelIndex s = proxy.index(0, 0);
    QCOMPARE(s.data().toString(), QStringLiteral("alpha"));
    QCOMPARE(proxy.rowCount(s), 1);
    const QModelIndex role = proxy.index(0, 0, s);
    QCOMPARE(role.data().toString(), QStringLiteral("worker (12)")); // the source's count
    QCOMPARE(proxy.rowCount(role), 1);
    QCOMPARE(proxy.index(0, 0, role).data().toString(), QStringLiteral("worker11"));
}

void TestSessionTreeModel::filterFollowsUpdates()
{
    SessionFixture f = makeSession("s1", "alpha", {{"main", 3}});
    load({f, makeSession("s2", "beta", {{"main", 1}})});
    SessionFilterProxyModel proxy;
    QAbstractItemModelTester tester(&proxy, QAbstractItemModelTester::FailureReportingMode::Fatal);
    proxy.setSourceModel(m_model.get());
    proxy.setFilterText(QStringLiteral("status:error"));
    QCOMPARE(proxy.rowCount(), 0);
    KernelRecord k = f.kernels[1];
    k.status = KernelStatus::Error;
    m_model->updateKernel(k);
    QCOMPARE(visibleTree(proxy), QStringList{"alpha/main/main2"});
    k.status = KernelStatus::Running;
    m_model->updateKernel(k);
    QCOMPARE(proxy.rowCount(), 0);
}

void TestSessionTreeModel::statusFilter()
{
    SessionFixture a = makeSession("s1", "alpha", {{"main", 2}});
    a.kernels[0].status = KernelStatus::Error;
    load({a, makeSession("s2", "beta", {{"main", 1}})});
    SessionFilterProxyModel proxy;
    QAbstractItemModelTester tester(&proxy, QAbstractItemModelTester::FailureReportingMode::Fatal);
    proxy.setSourceModel(m_model.get());
    proxy.setStatusFilter({SessionStatus::Degraded});
    QCOMPARE(visibleTree(proxy), (QStringList{"alpha/main/main1", "alpha/main/main2"}));
    proxy.setStatusFilter({});
    QCOMPARE(proxy.rowCount(), 2);
}

void TestSessionTreeModel::sortKeepsKernelOrder()
{
    load({makeSession("s1", "alpha", {{"master", 1}, {"worker", 3}}),
          makeSession("s2", "beta", {{"main", 1}})});
    SessionFilterProxyModel proxy;
    QAbstractItemModelTester tester(&proxy, QAbstractItemModelTester::FailureReportingMode::Fatal);
    proxy.setSourceModel(m_model.get());
    proxy.sort(SessionTreeModel::NameColumn, Qt::DescendingOrder);
    QCOMPARE(visibleTree(proxy),
             (QStringList{"beta/main/main1", "alpha/master/master1", "alpha/worker/worker1",
                          "alpha/worker/worker2", "alpha/worker/worker3"}));
}

QTEST_MAIN(TestSessionTreeModel)
#include "tst_sessiontreemodel.moc"
