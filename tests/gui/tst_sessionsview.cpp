#include "console/consolecontroller.h"
#include "gui/sessionfixtures.h"
#include "mainwindow/mainwindow.h"
#include "sessions/portprober.h"
#include "models/sessionfilterproxymodel.h"
#include "sessions/sessionsview.h"
#include "models/sessiontreemodel.h"
#include "store/sqlitestore.h"

#include "models/execresultsmodel.h"
#include "sessions/runcommanddialog.h"
#include <QAbstractItemModelTester>
#include <QAction>
#include <QApplication>
#include <QClipboard>
#include <QComboBox>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QPointer>
#include <QPushButton>
#include <QRegularExpression>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <QTreeView>

#include <sqlite3.h>

using namespace ClusterDeck;
using namespace ClusterDeck::Fixtures;
using namespace ClusterDeck::Ui;

class TestSessionsView : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void init();
    void cleanup();

    void loadsSessionsFromTheStore();
    void liveKernelUpdateKeepsExpansionAndSelection();
    void newSessionAppearsAndRemovedGoes();
    void filterBoxKeepsParents();
    void statusBoxFilters();
    void memberKernelActsOnSession_data();
    void memberKernelActsOnSession();
    void cancelledConfirmationDoesNothing();
    void contextMenuHasPorts();
    void clickingPortLinkOpensIt();
    void linkSchemes_data();
    void linkSchemes();
    void untrustedLinkIsNotOpened();
    void removeFromHistory();
    void unreadableRecordIsNamed();
    void copyHostnames();
    void statusBarShowsStore();
    void terminalFromKernelAndSession();
    void runCommandOnRole();
    void dashboardOfSession();
    void firstRunGuides();

private:
    void waitIdle() { m_controller->waitForIdle(); }

    std::unique_ptr<QTemporaryDir> m_dir;
    std::unique_ptr<ConsoleController> m_controller;
    std::unique_ptr<SessionsView> m_view;
    std::unique_ptr<QAbstractItemModelTester> m_tester;
    StateStore *m_store = nullptr;
    SessionFixture m_alpha;
    SessionFixture m_beta;
};

void TestSessionsView::init()
{
    m_dir = std::make_unique<QTemporaryDir>();
    QVERIFY(m_dir->isValid());
    auto store = SqliteStore::open(m_dir->filePath(QStringLiteral("state.db")));
    QVERIFY2(store.has_value(), qPrintable(store ? QString() : store.error().toString()));
    m_store = store->get();
    m_alpha = makeSession("11111111-aaaa-4000-8000-000000000001", "alpha",
                          {{"master", 1}, {"worker", 4}});
    m_beta = makeSession("22222222-bbbb-4000-8000-000000000002", "beta", {{"main", 2}},
                         {"h1", "h2"}, KernelStatus::Running, "mpi");
    QVERIFY(m_store->createSession(m_alpha.session, m_alpha.kernels).has_value());
    QVERIFY(m_store->createSession(m_beta.session, m_beta.kernels).has_value());

    m_controller = std::make_unique<ConsoleController>();
    m_controller->setHostRefreshInterval(0);
    m_controller->setCoalesceDelay(0);
    m_controller->setStore(std::unique_ptr<StateStore>(store->release()));
    m_tester = std::make_unique<QAbstractItemModelTester>(
        m_controller->sessionModel(), QAbstractItemModelTester::FailureReportingMode::Fatal);
    m_view = std::make_unique<SessionsView>(m_controller.get());
    m_view->portProber()->setInterval(0);
    m_view->resize(1200, 600);
    m_view->show();
    QVERIFY(QTest::qWaitForWindowExposed(m_view.get()));
    waitIdle();
}

void TestSessionsView::cleanup()
{
    m_view.reset();
    m_tester.reset();
    m_controller.reset();
    m_dir.reset();
}

void TestSessionsView::loadsSessionsFromTheStore()
{
    SessionTreeModel *model = m_controller->sessionModel();
    QCOMPARE(model->sessionCount(), 2);
    QCOMPARE(model->kernelCount(), 7);
    QCOMPARE(m_view->proxy()->rowCount(), 2);
    const QModelIndex alpha = model->sessionIndex(m_alpha.session.id);
    QCOMPARE(alpha.siblingAtColumn(SessionTreeModel::KernelsColumn).data().toString(),
             QStringLiteral("5 kernels: master×1, worker×4"));
}

void TestSessionsView::liveKernelUpdateKeepsExpansionAndSelection()
{
    SessionTreeModel *model = m_controller->sessionModel();
    QTreeView *tree = m_view->tree();
    auto proxyOf = [this](const QModelIndex &source) {
        return m_view->proxy()->mapFromSource(source);
    };
    const QModelIndex alpha = model->sessionIndex(m_alpha.session.id);
    tree->expand(proxyOf(alpha));
    tree->expand(proxyOf(model->index(1, 0, alpha)));
    const QString w3 = m_alpha.kernels[3].id;
    tree->setCurrentIndex(proxyOf(model->kernelIndex(w3)));
    QSignalSpy reset(model, &QAbstractItemModel::modelAboutToBeReset);

    // Another writer (the Docker events watcher) changes a kernel in the store.
    QVERIFY(m_store->updateKernelStatus(m_alpha.session.id, w3, KernelStatus::Error, "exit 137")
                .has_value());
    QTRY_COMPARE(model->kernelIndex(w3, SessionTreeModel::StatusColumn).data().toString(),
                 QStringLiteral("ERROR"));
    waitIdle();
    QCOMPARE(reset.size(), 0);
    QCOMPARE(
        model->sessionIndex(m_alpha.session.id, SessionTreeModel::StatusColumn).data().toString(),
        QStringLiteral("DEGRADED"));
    QVERIFY(tree->isExpanded(proxyOf(model->sessionIndex(m_alpha.session.id))));
    QVERIFY(tree->isExpanded(proxyOf(model->index(1, 0, model->sessionIndex(m_alpha.session.id)))));
    QCOMPARE(tree->currentIndex(), proxyOf(model->kernelIndex(w3)));
    QCOMPARE(m_view->currentTarget().hostname, QStringLiteral("worker3"));
}

void TestSessionsView::newSessionAppearsAndRemovedGoes()
{
    SessionTreeModel *model = m_controller->sessionModel();
    SessionFixture gamma =
        makeSession("33333333-cccc-4000-8000-000000000003", "gamma", {{"main", 3}});
    QVERIFY(m_store->createSession(gamma.session, gamma.kernels).has_value());
    QTRY_VERIFY(model->hasSession(gamma.session.id));
    waitIdle();
    QCOMPARE(model->kernelCount(), 10);
    QVERIFY(m_store->removeSession(m_beta.session.id).has_value());
    QTRY_VERIFY(!model->hasSession(m_beta.session.id));
    QCOMPARE(model->kernelCount(), 8);
    // A terminated session leaves the default view (shown again with "Show ended").
    SessionRecord ended = gamma.session;
    ended.status = SessionStatus::Terminated;
    QVERIFY(m_store->updateSession(ended).has_value());
    QTRY_COMPARE(
        model->sessionIndex(gamma.session.id, SessionTreeModel::StatusColumn).data().toString(),
        QStringLiteral("TERMINATED"));
    QCOMPARE(m_view->proxy()->rowCount(), 1);
}

void TestSessionsView::filterBoxKeepsParents()
{
    QTest::keyClicks(m_view->filterEdit(), QStringLiteral("worker3"));
    SessionFilterProxyModel *proxy = m_view->proxy();
    QCOMPARE(proxy->rowCount(), 1);
    const QModelIndex session = proxy->index(0, 0);
    QCOMPARE(session.data().toString(), QStringLiteral("alpha"));
    QCOMPARE(proxy->rowCount(session), 1);
    const QModelIndex role = proxy->index(0, 0, session);
    QCOMPARE(proxy->rowCount(role), 1);
    QCOMPARE(proxy->index(0, 0, role).data().toString(), QStringLiteral("worker3"));
    QVERIFY(m_view->tree()->isExpanded(role)); // matches are shown, not hidden in folds
    m_view->filterEdit()->clear();
    QCOMPARE(proxy->rowCount(), 2);
    QTest::keyClicks(m_view->filterEdit(), QStringLiteral("template:mpi"));
    QCOMPARE(proxy->rowCount(), 1);
    QCOMPARE(proxy->index(0, 0).data().toString(), QStringLiteral("beta"));
}

void TestSessionsView::statusBoxFilters()
{
    auto *box = m_view->findChild<QComboBox *>(QStringLiteral("statusFilter"));
    QVERIFY(box);
    SessionFilterProxyModel *proxy = m_view->proxy();
    auto choose = [&](const QString &text) {
        const int i = box->findText(text);
        QVERIFY2(i >= 0, qPrintable(text));
        box->setCurrentIndex(i);
    };
    auto filtered = [&] {
        QStringList names;
        for (SessionStatus st : proxy->statusFilter())
            names.append(toString(st));
        return names;
    };
    choose(QStringLiteral("Running"));
    QCOMPARE(filtered(), QStringList{QStringLiteral("RUNNING")});
    QCOMPARE(proxy->rowCount(), 2);
    choose(QStringLiteral("Degraded"));
    QCOMPARE(filtered(), QStringList{QStringLiteral("DEGRADED")});
    QCOMPARE(proxy->rowCount(), 0);
    choose(QStringLiteral("All statuses"));
    QVERIFY(filtered().isEmpty());
    QCOMPARE(proxy->rowCount(), 2);
}

void TestSessionsView::memberKernelActsOnSession_data()
{
    QTest::addColumn<int>("kernel"); // -1 = the session row
    QTest::addColumn<QString>("actionName");
    QTest::addColumn<QString>("expectedText");
    QTest::newRow("terminate on a member")
        << 2 << "terminateSession"
        << "worker2 is a member kernel of session “alpha”. Lifecycle operations always act on "
           "the whole session: this will terminate session “alpha” — all 5 kernels.";
    QTest::newRow("restart on a member")
        << 4 << "restartSession"
        << "worker4 is a member kernel of session “alpha”. Lifecycle operations always act on "
           "the whole session: this will restart session “alpha” — all 5 kernels.";
    QTest::newRow("terminate on the session")
        << -1 << "terminateSession"
        << "This will terminate session “alpha” — all 5 kernels.";
}

void TestSessionsView::memberKernelActsOnSession()
{
    QFETCH(int, kernel);
    QFETCH(QString, actionName);
    QFETCH(QString, expectedText);
    SessionTreeModel *model = m_controller->sessionModel();
    const QModelIndex source = kernel < 0 ? model->sessionIndex(m_alpha.session.id)
                                          : model->kernelIndex(m_alpha.kernels[kernel].id);
    const QModelIndex index = m_view->proxy()->mapFromSource(source);
    QVERIFY(index.isValid());
    QStringList asked;
    m_view->setConfirm([&asked](const QString &, const QString &text) {
        asked << text;
        return true;
    });
    QSignalSpy started(m_controller.get(), &ConsoleController::operationStarted);
    QSignalSpy finished(m_controller.get(), &ConsoleController::operationFinished);

    std::unique_ptr<QMenu> menu(m_view->contextMenuFor(index));
    if (kernel >= 0) {
        const QList<QAction *> actions = menu->actions();
        QVERIFY(std::any_of(actions.cbegin(), actions.cend(), [](QAction *a) {
            return a->isSeparator() && a->text().contains(QStringLiteral("acts on session alpha"));
        }));
    }
    QAction *action = nullptr;
    for (QAction *a : menu->actions())
        if (a->objectName() == actionName)
            action = a;
    QVERIFY(action);
    QVERIFY(action->isEnabled());
    if (kernel >= 0)
        QVERIFY(action->text().contains(QStringLiteral("whole session")));
    action->trigger();

    QCOMPARE(asked.size(), 1);
    QVERIFY2(asked[0].startsWith(expectedText), qPrintable(asked[0]));
    QCOMPARE(started.size(), 1);
    QVERIFY(started[0][0].toString().endsWith(QStringLiteral(" alpha")));
    // No hosts are registered here: the operation fails, and says why in full.
    QTRY_COMPARE_WITH_TIMEOUT(finished.size(), 1, 30000);
}

void TestSessionsView::cancelledConfirmationDoesNothing()
{
    m_view->setConfirm([](const QString &, const QString &) { return false; });
    QSignalSpy started(m_controller.get(), &ConsoleController::operationStarted);
    m_view->selectSession(m_alpha.session.id);
    m_view->terminateAction()->trigger();
    m_view->restartAction()->trigger();
    QCOMPARE(started.size(), 0);
}

void TestSessionsView::contextMenuHasPorts()
{
    const QModelIndex index = m_view->proxy()->mapFromSource(
        m_controller->sessionModel()->sessionIndex(m_alpha.session.id));
    std::unique_ptr<QMenu> menu(m_view->contextMenuFor(index));
    auto *open = menu->findChild<QMenu *>(QStringLiteral("openPortMenu"));
    auto *copy = menu->findChild<QMenu *>(QStringLiteral("copyUrlMenu"));
    QVERIFY(open);
    QVERIFY(copy);
    QCOMPARE(open->actions().size(), 2); // web and ssh; the unbound port is not offered
    QString opened;
    m_view->setUrlOpener([&opened](const QString &url) { opened = url; });
    open->actions().at(0)->trigger();
    QCOMPARE(opened, QStringLiteral("http://10.0.0.1:49153"));
    copy->actions().at(0)->trigger();
    QCOMPARE(QApplication::clipboard()->text(), QStringLiteral("http://10.0.0.1:49153"));
}

void TestSessionsView::clickingPortLinkOpensIt()
{
    QTreeView *tree = m_view->tree();
    const QModelIndex index =
        m_view->proxy()->mapFromSource(m_controller->sessionModel()->sessionIndex(
            m_alpha.session.id, SessionTreeModel::PortsColumn));
    tree->scrollTo(index);
    const QRect cell = tree->visualRect(index);
    QVERIFY(cell.isValid());
    QStringList opened;
    m_view->setUrlOpener([&opened](const QString &url) { opened << url; });
    // The first link starts at the cell's left edge (a dot, then "web → …").
    QTest::mouseClick(tree->viewport(), Qt::LeftButton, {},
                      cell.topLeft() + QPoint(20, cell.height() / 2));
    QCOMPARE(opened, QStringList{QStringLiteral("http://10.0.0.1:49153")});
}

// Links come from the store (shared by other admins on etcd): only http and https ones open.
void TestSessionsView::linkSchemes_data()
{
    QTest::addColumn<QString>("url");
    QTest::addColumn<bool>("openable");
    QTest::newRow("http") << "http://10.0.0.1:49153" << true;
    QTest::newRow("https with path") << "https://h1.example:8443/lab?x=1" << true;
    QTest::newRow("upper-case scheme") << "HTTP://10.0.0.1:80" << true;
    QTest::newRow("IPv6 host") << "http://[fd00::1]:8080" << true;
    QTest::newRow("file") << "file:///etc/passwd" << false;
    QTest::newRow("javascript") << "javascript:alert(1)" << false;
    QTest::newRow("custom handler") << "ms-settings:privacy" << false;
    QTest::newRow("smb share") << "smb://attacker/share" << false;
    QTest::newRow("ftp") << "ftp://10.0.0.1/x" << false;
    QTest::newRow("no host") << "http:///etc/passwd" << false;
    QTest::newRow("relative") << "/etc/passwd" << false;
    QTest::newRow("empty") << "" << false;
    QTest::newRow("garbage") << "http://exa mple.com:99999" << false;
}

void TestSessionsView::linkSchemes()
{
    QFETCH(QString, url);
    QFETCH(bool, openable);
    QCOMPARE(SessionsView::isOpenableUrl(url), openable);
}

void TestSessionsView::untrustedLinkIsNotOpened()
{
    SessionFixture evil =
        makeSession("44444444-dddd-4000-8000-000000000004", "evil", {{"main", 1}});
    evil.kernels[0].ports = {PortBinding{QStringLiteral("web"), QStringLiteral("http"), 8080, 49160,
                                         QStringLiteral("file:///etc/passwd")},
                             PortBinding{QStringLiteral("ok"), QStringLiteral("http"), 8081, 49161,
                                         QStringLiteral("https://10.0.0.2:49161")}};
    QVERIFY(m_store->createSession(evil.session, evil.kernels).has_value());
    SessionTreeModel *model = m_controller->sessionModel();
    QTRY_VERIFY(model->hasSession(evil.session.id));
    waitIdle();
    QStringList opened;
    m_view->setUrlOpener([&opened](const QString &url) { opened << url; });

    // The menu offers the link, disabled; the safe one stays enabled.
    const QModelIndex index = m_view->proxy()->mapFromSource(model->sessionIndex(evil.session.id));
    std::unique_ptr<QMenu> menu(m_view->contextMenuFor(index));
    auto *open = menu->findChild<QMenu *>(QStringLiteral("openPortMenu"));
    QVERIFY(open);
    QCOMPARE(open->actions().size(), 2);
    QVERIFY(!open->actions().at(0)->isEnabled());
    QVERIFY(open->actions().at(1)->isEnabled());
    open->actions().at(1)->trigger();
    QCOMPARE(opened, QStringList{QStringLiteral("https://10.0.0.2:49161")});

    // Clicking the link in the tree does not open it either, and says why in the log.
    opened.clear();
    QTreeView *tree = m_view->tree();
    const QModelIndex cell = m_view->proxy()->mapFromSource(
        model->sessionIndex(evil.session.id, SessionTreeModel::PortsColumn));
    tree->scrollTo(cell);
    const QRect rect = tree->visualRect(cell);
    QVERIFY(rect.isValid());
    QTest::ignoreMessage(QtWarningMsg,
                         QRegularExpression(QStringLiteral("not opening file:///etc/passwd")));
    QSignalSpy requested(m_view.get(), &SessionsView::openUrlRequested);
    QTest::mouseClick(tree->viewport(), Qt::LeftButton, {},
                      rect.topLeft() + QPoint(20, rect.height() / 2));
    QCOMPARE(opened, QStringList());
    QCOMPARE(requested.size(), 0);
}

// "Remove from History…": only for an ended session; it leaves the store and the tree.
void TestSessionsView::removeFromHistory()
{
    SessionFixture ended = makeSession("55555555-eeee-4000-8000-000000000005", "ended",
                                       {{"main", 2}}, {"h1"}, KernelStatus::Terminated);
    ended.session.status = SessionStatus::Terminated;
    ended.session.desired = DesiredState::Terminated;
    for (KernelRecord &k : ended.kernels)
        k.desired = DesiredState::Terminated;
    QVERIFY(m_store->createSession(ended.session, ended.kernels).has_value());
    SessionTreeModel *model = m_controller->sessionModel();
    QTRY_VERIFY(model->hasSession(ended.session.id));
    waitIdle();
    m_view->proxy()->setShowFinished(true);

    QStringList asked;
    m_view->setConfirm([&asked](const QString &title, const QString &text) {
        asked << title + QStringLiteral(": ") + text;
        return true;
    });
    QSignalSpy finished(m_controller.get(), &ConsoleController::operationFinished);

    // A running session: the action is disabled and does nothing.
    const QModelIndex alpha =
        m_view->proxy()->mapFromSource(model->sessionIndex(m_alpha.session.id));
    {
        std::unique_ptr<QMenu> menu(m_view->contextMenuFor(alpha));
        QVERIFY(!m_view->removeFromHistoryAction()->isEnabled());
    }
    m_view->removeCurrentFromHistory();
    QCOMPARE(asked.size(), 0);

    // The ended one: asked, removed from the store, gone from the tree.
    const QModelIndex index = m_view->proxy()->mapFromSource(model->sessionIndex(ended.session.id));
    QVERIFY(index.isValid());
    std::unique_ptr<QMenu> menu(m_view->contextMenuFor(index));
    QAction *remove = nullptr;
    for (QAction *a : menu->actions())
        if (a->objectName() == QLatin1String("removeFromHistory"))
            remove = a;
    QVERIFY(remove);
    QVERIFY(remove->isEnabled());
    remove->trigger();
    QCOMPARE(asked.size(), 1);
    QVERIFY2(asked[0].startsWith(QStringLiteral("Remove from History: Session “ended”")),
             qPrintable(asked[0]));
    QTRY_COMPARE_WITH_TIMEOUT(finished.size(), 1, 30000);
    QVERIFY2(finished[0][1].toBool(), qPrintable(finished[0][2].toString()));
    const auto gone = m_store->session(ended.session.id);
    QVERIFY(!gone);
    QCOMPARE(gone.error().kind, Error::Kind::NotFound);
    QTRY_VERIFY(!model->hasSession(ended.session.id));
    QVERIFY(model->hasSession(m_alpha.session.id)); // the others stay
    QVERIFY(m_store->session(m_alpha.session.id).has_value());
}

// An undecodable record (item 7): the others are shown; the status bar names it.
void TestSessionsView::unreadableRecordIsNamed()
{
    MainWindow window(m_controller.get());
    window.show();
    auto *label = window.findChild<QLabel *>(QStringLiteral("undecodableLabel"));
    QVERIFY(label);
    QVERIFY(label->isHidden());
    {
        const QString path = m_dir->filePath(QStringLiteral("state.db"));
        sqlite3 *db = nullptr;
        QCOMPARE(sqlite3_open(path.toUtf8().constData(), &db), SQLITE_OK);
        sqlite3_busy_timeout(db, 5000);
        const QByteArray sql =
            "UPDATE sessions SET status = 'WEIRD' WHERE id = '" + m_beta.session.id.toUtf8() + "'";
        QCOMPARE(sqlite3_exec(db, sql.constData(), nullptr, nullptr, nullptr), SQLITE_OK);
        sqlite3_close(db);
    }
    QTest::ignoreMessage(QtWarningMsg,
                         QRegularExpression(QStringLiteral("cannot read session record")));
    m_controller->refresh();
    QTRY_VERIFY(!label->isHidden());
    QVERIFY2(label->toolTip().contains(m_beta.session.id), qPrintable(label->toolTip()));
    SessionTreeModel *model = m_controller->sessionModel();
    QVERIFY(model->hasSession(m_alpha.session.id));
}

void TestSessionsView::copyHostnames()
{
    m_view->selectSession(m_alpha.session.id);
    m_view->copyHostnamesAction()->trigger();
    QCOMPARE(QApplication::clipboard()->text(),
             QStringLiteral("master1\nworker1\nworker2\nworker3\nworker4"));
}

void TestSessionsView::statusBarShowsStore()
{
    MainWindow window(m_controller.get());
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    // The window was made after the store opened: it shows it from the start.
    auto *label = window.findChild<QLabel *>(QStringLiteral("storeLabel"));
    QVERIFY(label);
    QVERIFY2(label->text().contains(QStringLiteral("state.db")), qPrintable(label->text()));
}

void TestSessionsView::terminalFromKernelAndSession()
{
    SessionTreeModel *model = m_controller->sessionModel();
    QSignalSpy requested(m_view.get(), &SessionsView::terminalRequested);
    const KernelRecord &w2 = m_alpha.kernels[2];
    const QModelIndex kernel = m_view->proxy()->mapFromSource(model->kernelIndex(w2.id));
    std::unique_ptr<QMenu> menu(m_view->contextMenuFor(kernel));
    QVERIFY(menu->actions().contains(m_view->openTerminalAction()));
    QVERIFY(menu->actions().contains(m_view->runCommandAction()));
    QCOMPARE(m_view->openTerminalAction()->text(), QStringLiteral("Open &Terminal in worker2"));
    QVERIFY(m_view->openTerminalAction()->isEnabled());
    m_view->openTerminalAction()->trigger();
    QCOMPARE(requested.count(), 1);
    QCOMPARE(requested.at(0).at(0).toString(), QStringLiteral("alpha/worker2"));
    QCOMPARE(requested.at(0).at(1).toString(), w2.host);
    QCOMPARE(requested.at(0).at(2).toString(), w2.containerId);

    // Activating (double-clicking) a kernel row opens a terminal too.
    Q_EMIT m_view->tree()->activated(kernel);
    QCOMPARE(requested.count(), 2);
    // On a session row: the primary kernel.
    m_view->tree()->setCurrentIndex(
        m_view->proxy()->mapFromSource(model->sessionIndex(m_alpha.session.id)));
    m_view->openTerminalOfCurrent();
    QCOMPARE(requested.count(), 3);
    QCOMPARE(requested.at(2).at(0).toString(), QStringLiteral("alpha/master1"));
}

void TestSessionsView::runCommandOnRole()
{
    // The fixture's hosts are not registered: every kernel fails to run it, and says why.
    SessionTreeModel *model = m_controller->sessionModel();
    const QModelIndex alpha = model->sessionIndex(m_alpha.session.id);
    QModelIndex workers;
    for (int r = 0; r < model->rowCount(alpha); ++r) {
        if (model->index(r, 0, alpha).data(SessionTreeModel::RoleNameRole) ==
            QStringLiteral("worker"))
            workers = model->index(r, 0, alpha);
    }
    m_view->tree()->setCurrentIndex(m_view->proxy()->mapFromSource(workers));
    QPointer<RunCommandDialog> dialog = m_view->runCommandOnCurrent();
    QVERIFY(dialog);
    QAbstractItemModelTester tester(dialog->results(),
                                    QAbstractItemModelTester::FailureReportingMode::Fatal);
    QCOMPARE(dialog->windowTitle(), QStringLiteral("Run Command in alpha/worker"));
    QSignalSpy finished(dialog.data(), &RunCommandDialog::finished);
    dialog->commandEdit()->setText(QStringLiteral("hostname"));
    QTest::mouseClick(dialog->runButton(), Qt::LeftButton);
    QCOMPARE(dialog->results()->rowCount(), 4);
    QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 10000);
    QCOMPARE(finished.first().first().toInt(), 255);
    for (int row = 0; row < 4; ++row) {
        QCOMPARE(dialog->results()->index(row, ExecResultsModel::KernelColumn).data().toString(),
                 QStringLiteral("worker%1").arg(row + 1));
        QCOMPARE(dialog->results()->index(row, ExecResultsModel::ExitColumn).data().toString(),
                 QStringLiteral("255"));
        QVERIFY(!dialog->results()
                     ->index(row, ExecResultsModel::OutputColumn)
                     .data()
                     .toString()
                     .isEmpty());
    }
    dialog->close();
}

void TestSessionsView::dashboardOfSession()
{
    SessionTreeModel *model = m_controller->sessionModel();
    QSignalSpy requested(m_view.get(), &SessionsView::dashboardRequested);
    m_view->tree()->setCurrentIndex(
        m_view->proxy()->mapFromSource(model->kernelIndex(m_alpha.kernels[3].id)));
    m_view->dashboardAction()->trigger();
    QCOMPARE(requested.count(), 1);
    QCOMPARE(requested.first().at(0).toString(), QStringLiteral("alpha"));
    QCOMPARE(requested.first().at(1).value<QList<KernelRecord>>().size(), 5); // the whole session
}

void TestSessionsView::firstRunGuides()
{
    // A store with sessions shows the tree, never the guide.
    QVERIFY(m_view->tree()->isVisible());
    QVERIFY(!m_view->welcomePanel()->isVisible());
    // No session and no host: what to do first, with the console's own actions.
    QVERIFY(m_store->removeSession(m_alpha.session.id).has_value());
    QVERIFY(m_store->removeSession(m_beta.session.id).has_value());
    QTRY_VERIFY(m_view->welcomePanel()->isVisible());
    QVERIFY(!m_view->tree()->isVisible());
    QVERIFY2(m_view->welcomeText().contains(QLatin1String("No Docker host is registered yet")),
             qPrintable(m_view->welcomeText()));
    auto button = [this](const char *name) {
        return m_view->welcomePanel()->findChild<QPushButton *>(QLatin1String(name));
    };
    QVERIFY(button("welcomeAddHost")->isVisible());
    QVERIFY(!button("welcomeLaunch")->isVisible());
    m_view->setLocalSocketPath(m_dir->filePath(QStringLiteral("absent.sock")));
    QVERIFY(!button("welcomeLocalDocker")->isVisible());
    m_view->setLocalSocketPath(m_dir->filePath(QStringLiteral("state.db"))); // a file that exists
    QVERIFY(button("welcomeLocalDocker")->isVisible());
    QVERIFY(m_view->welcomeText().contains(QLatin1String("Docker daemon of this machine")));
    QSignalSpy addHost(m_view.get(), &SessionsView::addHostRequested);
    QSignalSpy local(m_view.get(), &SessionsView::localDockerRequested);
    QSignalSpy samples(m_view.get(), &SessionsView::samplesRequested);
    QTest::mouseClick(button("welcomeAddHost"), Qt::LeftButton);
    QTest::mouseClick(button("welcomeLocalDocker"), Qt::LeftButton);
    QTest::mouseClick(button("welcomeSamples"), Qt::LeftButton);
    QCOMPARE(addHost.size(), 1);
    QCOMPARE(local.size(), 1);
    QCOMPARE(samples.size(), 1);

    // A host but no session: launch next.
    HostRecord h;
    h.name = QStringLiteral("h1");
    h.endpoint = QStringLiteral("unix:///nonexistent/docker.sock");
    QVERIFY(m_store->putHost(h).has_value());
    m_controller->refresh();
    QTRY_VERIFY(m_view->welcomeText().contains(QLatin1String("No sessions yet")));
    QVERIFY(m_view->welcomeText().contains(QLatin1String("One host is registered")));
    QVERIFY(button("welcomeLaunch")->isVisible());
    QVERIFY(!button("welcomeAddHost")->isVisible());
    QSignalSpy launch(m_view.get(), &SessionsView::launchRequested);
    QTest::mouseClick(button("welcomeLaunch"), Qt::LeftButton);
    QCOMPARE(launch.size(), 1);

    // The first session replaces the guide with the tree.
    QVERIFY(m_store->createSession(m_alpha.session, m_alpha.kernels).has_value());
    QTRY_VERIFY(m_view->tree()->isVisible());
    QVERIFY(!m_view->welcomePanel()->isVisible());
}

QTEST_MAIN(TestSessionsView)
#include "tst_sessionsview.moc"
