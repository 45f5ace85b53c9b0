// "Scale Role…" in the console against the lab (issue 17): on a role row, the dialog's spin box is
// bounded by the role's min/max and previews the new kernels with their hosts; accepting it
// grows the role, and the tree gets the new kernel rows under that role by row insertions, with
// nothing else moving (no reset, the other rows keep their places); shrinking removes the rows
// again. Offscreen; fails (does not skip) when the lab is missing.

#include "console/consolecontroller.h"
#include "host/hostregistry.h"
#include "mainwindow/mainwindow.h"
#include "provision/provisioner.h"
#include "provision/sessioncontroller.h"
#include "sessions/portprober.h"
#include "sessions/scaleroledialog.h"
#include "models/sessionfilterproxymodel.h"
#include "sessions/sessionsview.h"
#include "models/sessiontreemodel.h"
#include "store/sqlitestore.h"
#include "template/templateloader.h"

#include <QAbstractItemModelTester>
#include <QAction>
#include <QDialogButtonBox>
#include <QFile>
#include <QLabel>
#include <QMenu>
#include <QPushButton>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTemporaryDir>
#include <QTest>
#include <QTreeView>

using namespace ClusterDeck;
using namespace ClusterDeck::Ui;

class TestScaleRoleLab : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void scaleRoleFromTheTree();
    void cleanupTestCase();

private:
    QTemporaryDir m_dir;
    std::unique_ptr<ConsoleController> m_controller;
    QString m_sessionId;
};

void TestScaleRoleLab::initTestCase()
{
    const QStringList hosts =
        qEnvironmentVariable("CLUSTERDECK_LAB_HOSTS").split(u' ', Qt::SkipEmptyParts);
    QVERIFY2(!hosts.isEmpty(), "the lab is not up: eval \"$(scripts/lab.sh env)\" first");
    auto store = SqliteStore::open(m_dir.filePath(QStringLiteral("state.db")));
    QVERIFY(store.has_value());
    HostRegistry registry(store->get());
    for (const QString &h : hosts) {
        HostRecord record;
        record.name = h;
        record.endpoint = qEnvironmentVariable(
            qPrintable(QStringLiteral("CLUSTERDECK_LAB_%1_DOCKER").arg(h.toUpper())));
        record.publicAddress = qEnvironmentVariable(
            qPrintable(QStringLiteral("CLUSTERDECK_LAB_%1_ADDR").arg(h.toUpper())));
        auto added = registry.add(record);
        QVERIFY2(added.has_value(), qPrintable(added ? QString() : added.error().toString()));
    }
    // A 1+2 lab-basic session, launched as the CLI would.
    const QString file = qEnvironmentVariable("CLUSTERDECK_SOURCE_DIR") +
                         QStringLiteral("/templates/lab-basic.yaml");
    TemplateLoader loader;
    auto t = loader.loadClusterFile(file);
    QVERIFY2(t, qPrintable(t ? QString() : t.error().toString()));
    QFile f(file);
    QVERIFY(f.open(QIODevice::ReadOnly));
    LaunchRequest request;
    request.clusterTemplate = *t;
    request.templateSource = QString::fromUtf8(f.readAll());
    request.options.name = QStringLiteral("scale-gui");
    request.options.mode = ClusterMode::MultiNode;
    Provisioner provisioner(store->get(), &registry);
    auto launched = provisioner.launch(request);
    QVERIFY2(launched, qPrintable(launched ? QString() : launched.error().toString()));
    m_sessionId = launched->id;

    m_controller = std::make_unique<ConsoleController>();
    m_controller->setHostRefreshInterval(0);
    m_controller->setEmbeddedControllerEnabled(false);
    QSignalSpy loaded(m_controller.get(), &ConsoleController::sessionsLoaded);
    m_controller->openStore(QStringLiteral("sqlite://") +
                            m_dir.filePath(QStringLiteral("state.db")));
    QTRY_VERIFY_WITH_TIMEOUT(m_controller->sessionModel()->hasSession(m_sessionId), 30000);
}

void TestScaleRoleLab::scaleRoleFromTheTree()
{
    MainWindow window(m_controller.get());
    window.resize(1400, 800);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    SessionsView *view = window.sessionsView();
    view->portProber()->setInterval(0);
    SessionTreeModel *model = m_controller->sessionModel();
    QAbstractItemModelTester tester(model, QAbstractItemModelTester::FailureReportingMode::Fatal);

    const QModelIndex session = model->sessionIndex(m_sessionId);
    QCOMPARE(model->rowCount(session), 2);
    const QPersistentModelIndex masterRole = model->index(0, 0, session);
    const QPersistentModelIndex workerRole = model->index(1, 0, session);
    QCOMPARE(model->rowCount(workerRole), 2);
    const QPersistentModelIndex master1 = model->index(0, 0, masterRole);
    const QPersistentModelIndex worker1 = model->index(0, 0, workerRole);
    const QPersistentModelIndex worker2 = model->index(1, 0, workerRole);
    QCOMPARE(worker2.data(SessionTreeModel::HostnameRole).toString(), QStringLiteral("worker2"));
    const int sessionRow = session.row();

    QSignalSpy inserted(model, &QAbstractItemModel::rowsInserted);
    QSignalSpy removed(model, &QAbstractItemModel::rowsRemoved);
    QSignalSpy reset(model, &QAbstractItemModel::modelReset);

    // The role row's context menu has "Scale Role…"; the session's does not.
    view->tree()->expandAll();
    const QModelIndex workerRow = view->proxy()->mapFromSource(workerRole);
    std::unique_ptr<QMenu> menu(view->contextMenuFor(workerRow));
    QVERIFY(menu->actions().contains(view->scaleRoleAction()));
    QVERIFY(view->scaleRoleAction()->isEnabled());
    std::unique_ptr<QMenu> sessionMenu(view->contextMenuFor(view->proxy()->mapFromSource(session)));
    QVERIFY(!sessionMenu->actions().contains(view->scaleRoleAction()));
    view->tree()->setCurrentIndex(workerRow);

    ScaleRoleDialog *dialog = view->scaleCurrentRole();
    QVERIFY(dialog);
    QVERIFY(QTest::qWaitForWindowExposed(dialog));
    QCOMPARE(dialog->countBox()->minimum(), 1);
    QCOMPARE(dialog->countBox()->maximum(), 12);
    QCOMPARE(dialog->countBox()->value(), 2);
    auto *ok = dialog->findChild<QDialogButtonBox *>()->button(QDialogButtonBox::Ok);
    dialog->countBox()->setValue(4);
    // The preview names the new kernels and where placement puts them.
    QTRY_VERIFY_WITH_TIMEOUT(dialog->previewLabel()->text().contains(u"+ worker4 on h"), 30000);
    QVERIFY(dialog->previewLabel()->text().contains(u"+ worker3 on h"));
    QTRY_VERIFY(ok->isEnabled());
    QSignalSpy finished(m_controller.get(), &ConsoleController::operationFinished);
    QTest::mouseClick(ok, Qt::LeftButton);
    QTRY_VERIFY_WITH_TIMEOUT(finished.size() > 0, 180000);
    QVERIFY2(finished[0][1].toBool(), qPrintable(finished[0][2].toString()));

    // The new rows arrive under the worker role; nothing else moves.
    QTRY_COMPARE_WITH_TIMEOUT(model->rowCount(workerRole), 4, 30000);
    QCOMPARE(model->index(2, 0, workerRole).data(SessionTreeModel::HostnameRole).toString(),
             QStringLiteral("worker3"));
    QCOMPARE(model->index(3, 0, workerRole).data(SessionTreeModel::HostnameRole).toString(),
             QStringLiteral("worker4"));
    QTRY_COMPARE_WITH_TIMEOUT(
        model->index(3, SessionTreeModel::StatusColumn, workerRole).data().toString(),
        QStringLiteral("RUNNING"), 30000);
    QCOMPARE(reset.size(), 0);
    QVERIFY(!inserted.isEmpty());
    for (const auto &args : std::as_const(inserted))
        QCOMPARE(QPersistentModelIndex(args.at(0).toModelIndex()), workerRole);
    QCOMPARE(removed.size(), 0);
    QCOMPARE(master1.row(), 0);
    QCOMPARE(master1.parent(), QModelIndex(masterRole));
    QCOMPARE(worker1.row(), 0);
    QCOMPARE(worker2.row(), 1);
    QCOMPARE(model->sessionIndex(m_sessionId).row(), sessionRow);
    QCOMPARE(model->sessionIndex(m_sessionId, SessionTreeModel::StatusColumn).data().toString(),
             QStringLiteral("RUNNING"));

    // And back to 1: the rows of worker2..4 go, worker1 and master1 stay where they were.
    inserted.clear();
    view->tree()->setCurrentIndex(view->proxy()->mapFromSource(workerRole));
    dialog = view->scaleCurrentRole();
    QVERIFY(dialog);
    QCOMPARE(dialog->countBox()->value(), 4);
    dialog->countBox()->setValue(1);
    QTRY_VERIFY_WITH_TIMEOUT(dialog->previewLabel()->text().contains(u"− worker4"), 30000);
    ok = dialog->findChild<QDialogButtonBox *>()->button(QDialogButtonBox::Ok);
    QTRY_VERIFY(ok->isEnabled());
    finished.clear();
    QTest::mouseClick(ok, Qt::LeftButton);
    QTRY_VERIFY_WITH_TIMEOUT(finished.size() > 0, 180000);
    QVERIFY2(finished[0][1].toBool(), qPrintable(finished[0][2].toString()));
    QTRY_COMPARE_WITH_TIMEOUT(model->rowCount(workerRole), 1, 30000);
    QCOMPARE(worker1.row(), 0);
    QVERIFY(!worker2.isValid());
    QCOMPARE(master1.row(), 0);
    QCOMPARE(reset.size(), 0);
    QCOMPARE(inserted.size(), 0);
}

void TestScaleRoleLab::cleanupTestCase()
{
    if (m_controller && !m_sessionId.isEmpty() && m_controller->sessionController()) {
        auto done =
            m_controller->sessionController()->terminate(m_sessionId, QStringLiteral("test over"));
        QVERIFY2(done, qPrintable(done ? QString() : done.error().toString()));
    }
    m_controller.reset();
}

QTEST_MAIN(TestScaleRoleLab)
#include "tst_scalerole_lab.moc"
