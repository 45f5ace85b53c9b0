// Windows side by side (issue 29, item 4): File ▸ New Window on the same store (one console
// controller for both) or on another; the windows open at quit come back at the next start with
// their stores and geometries, a window closed on its own does not; the dashboard, the logs and a
// terminal go into windows of their own and come back when those close. Offscreen, real SQLite
// stores, no daemon.

#include "console/consolecontroller.h"
#include "dashboard/sessiondashboard.h"
#include "gui/sessionfixtures.h"
#include "mainwindow/mainwindow.h"
#include "mainwindow/windowmanager.h"
#include "models/sessiontreemodel.h"
#include "sessions/logspanel.h"
#include "sessions/sessionsview.h"
#include "store/sqlitestore.h"
#include "terminal/terminalscreen.h"
#include "terminal/terminaltabs.h"
#include "terminal/terminalwidget.h"
#include "widgets/detachedwindow.h"

#include <QAction>
#include <QApplication>
#include <QSettings>
#include <QSignalSpy>
#include <QSplitter>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QToolButton>

using namespace ClusterDeck;
using namespace ClusterDeck::Fixtures;
using namespace ClusterDeck::Ui;

class TestWindows : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void init();
    void cleanup();

    void newWindowSharesItsStore();
    void windowsComeBackAtTheNextStart_data();
    void windowsComeBackAtTheNextStart();
    void dashboardDetachesAndDocksBack();
    void logsDetachAndDockBack();
    void terminalDetachesAndDocksBack();
    void detachedGeometryIsKept();
    void closingTheWindowDocksEverythingBack();

private:
    // A SQLite store holding one session called `name`; its URL.
    QString storeWith(const QString &file, const QString &name);
    // Waits until the window's tree shows `rows` sessions.
    static bool showsSessions(MainWindow *window, int rows);

    std::unique_ptr<QTemporaryDir> m_settingsDir;
    std::unique_ptr<QTemporaryDir> m_storeDir;
};

void TestWindows::initTestCase()
{
    QApplication::setOrganizationName(QStringLiteral("ClusterDeckTests"));
    QApplication::setApplicationName(QStringLiteral("tst_windows"));
    QSettings::setDefaultFormat(QSettings::IniFormat);
    // The test closes every window of a manager many times: the application stays.
    QApplication::setQuitOnLastWindowClosed(false);
}

void TestWindows::init()
{
    m_settingsDir = std::make_unique<QTemporaryDir>();
    QVERIFY(m_settingsDir->isValid());
    QSettings::setPath(QSettings::IniFormat, QSettings::UserScope, m_settingsDir->path());
    m_storeDir = std::make_unique<QTemporaryDir>();
    QVERIFY(m_storeDir->isValid());
}

void TestWindows::cleanup()
{
    m_storeDir.reset();
    m_settingsDir.reset();
}

QString TestWindows::storeWith(const QString &file, const QString &name)
{
    const QString path = m_storeDir->filePath(file);
    auto store = SqliteStore::open(path);
    if (!store)
        return {};
    const SessionFixture f =
        makeSession(QUuid::createUuid().toString(QUuid::WithoutBraces), name, {{"master", 1}});
    if (!(*store)->createSession(f.session, f.kernels))
        return {};
    return QStringLiteral("sqlite://") + path;
}

bool TestWindows::showsSessions(MainWindow *window, int rows)
{
    return QTest::qWaitFor([&] { return window->controller()->sessionModel()->rowCount() == rows; },
                           10000);
}

void TestWindows::newWindowSharesItsStore()
{
    const QString a = storeWith(QStringLiteral("a.db"), QStringLiteral("alpha"));
    const QString b = storeWith(QStringLiteral("b.db"), QStringLiteral("beta"));
    QVERIFY(!a.isEmpty() && !b.isEmpty());
    WindowManager manager;
    manager.setEmbeddedControllerEnabled(false);
    const QList<MainWindow *> first = manager.restoreWindows(a);
    QCOMPARE(first.size(), 1);
    MainWindow *one = first.first();
    one->show();
    QVERIFY(showsSessions(one, 1));
    QVERIFY(one->newWindowAction()->isVisible());
    QVERIFY(one->windowTitle().contains(QLatin1String("a.db")));

    one->newWindowAction()->trigger();
    QCOMPARE(manager.windows().size(), 2);
    MainWindow *two = manager.windows().at(1);
    QVERIFY(two->isVisible());
    QCOMPARE(two->controller(), one->controller()); // one store, one console controller
    QCOMPARE(manager.storeOf(two), a);
    QVERIFY(showsSessions(two, 1));
    QCOMPARE(two->settingsGroup(), QStringLiteral("MainWindow2"));
    QVERIFY(two->geometry().topLeft() != one->geometry().topLeft()); // beside, not on top

    MainWindow *other = manager.openWindow(b, one);
    other->show();
    QVERIFY(other->controller() != one->controller());
    QVERIFY(showsSessions(other, 1));
    QCOMPARE(other->controller()->sessionModel()->index(0, 0).data().toString(),
             QStringLiteral("beta"));
    QTRY_VERIFY(other->windowTitle().contains(QLatin1String("b.db")));

    // Closing one of store A's windows keeps the controller for the other.
    QPointer<ConsoleController> shared = one->controller();
    QVERIFY(two->close());
    QTRY_COMPARE(manager.windows().size(), 2);
    QVERIFY(shared);
    QCOMPARE(manager.controllerFor(a), shared.data());
    // The last window on B goes, and B's controller with it.
    QPointer<ConsoleController> ofB = other->controller();
    QVERIFY(other->close());
    QTRY_VERIFY(!ofB);
    QVERIFY(shared);
}

void TestWindows::windowsComeBackAtTheNextStart_data()
{
    QTest::addColumn<bool>("closeSecondFirst"); // before the rest quit
    QTest::addColumn<int>("expected");
    QTest::newRow("quit with both open") << false << 2;
    QTest::newRow("second closed before quitting") << true << 1;
}

void TestWindows::windowsComeBackAtTheNextStart()
{
    QFETCH(bool, closeSecondFirst);
    QFETCH(int, expected);
    const QString a = storeWith(QStringLiteral("a.db"), QStringLiteral("alpha"));
    const QString b = storeWith(QStringLiteral("b.db"), QStringLiteral("beta"));
    const QRect firstPlace(40, 60, 1200, 700);
    // On the offscreen platform's 800x600 screen: restoreGeometry() moves a window it would not
    // see at all.
    const QRect secondPlace(400, 90, 1240, 760);
    {
        WindowManager manager;
        manager.setEmbeddedControllerEnabled(false);
        MainWindow *one = manager.restoreWindows(a).first();
        MainWindow *two = manager.openWindow(b, one);
        for (auto [w, place] : {std::pair{one, firstPlace}, std::pair{two, secondPlace}}) {
            w->show();
            QVERIFY(QTest::qWaitForWindowExposed(w));
            w->setGeometry(place);
        }
        QTRY_COMPARE(two->geometry(), secondPlace);
        if (closeSecondFirst)
            QVERIFY(two->close());
        QVERIFY(manager.quit());
    }
    WindowManager next;
    next.setEmbeddedControllerEnabled(false);
    const QList<MainWindow *> restored = next.restoreWindows();
    QCOMPARE(restored.size(), expected);
    QCOMPARE(next.storeOf(restored.at(0)), a);
    for (MainWindow *w : restored)
        w->show();
    QTRY_COMPARE(restored.at(0)->geometry(), firstPlace);
    QVERIFY(showsSessions(restored.at(0), 1));
    if (expected == 2) {
        QCOMPARE(next.storeOf(restored.at(1)), b);
        QTRY_COMPARE(restored.at(1)->geometry(), secondPlace);
        QVERIFY(showsSessions(restored.at(1), 1));
        QCOMPARE(restored.at(1)->controller()->sessionModel()->index(0, 0).data().toString(),
                 QStringLiteral("beta"));
    }
    // --store names the one window to open, whatever was open last time.
    WindowManager asked;
    asked.setEmbeddedControllerEnabled(false);
    const QList<MainWindow *> one = asked.restoreWindows(b);
    QCOMPARE(one.size(), 1);
    QCOMPARE(asked.storeOf(one.first()), b);
}

void TestWindows::dashboardDetachesAndDocksBack()
{
    MainWindow window;
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    QTabWidget *tabs = window.tabs();
    const int tabsBefore = tabs->count();
    const int index = tabs->indexOf(window.dashboard());
    QVERIFY(index >= 0);
    const QString title = tabs->tabText(index);

    tabs->setCurrentWidget(window.dashboard()); // as "Show Dashboard" leaves it
    DetachedWindow *away = window.detachDashboard();
    QVERIFY(away);
    QVERIFY(QTest::qWaitForWindowExposed(away));
    QCOMPARE(tabs->count(), tabsBefore - 1);
    QCOMPARE(tabs->currentWidget(), window.sessionsView());
    QCOMPARE(tabs->indexOf(window.dashboard()), -1);
    QCOMPARE(away->content(), window.dashboard());
    QCOMPARE(window.dashboard()->window(), away);
    QCOMPARE(DetachedWindow::of(window.dashboard()), away);
    QCOMPARE(window.detachDashboard(), away); // asked again: the same window
    QVERIFY(away->windowTitle().startsWith(QLatin1String("Dashboard")));

    QPointer<DetachedWindow> gone = away;
    away->dockBackButton()->click();
    QTRY_VERIFY(!gone); // the window closes and is deleted
    QCOMPARE(tabs->count(), tabsBefore);
    QCOMPARE(tabs->indexOf(window.dashboard()), index);
    QCOMPARE(tabs->tabText(index), title);
    QCOMPARE(tabs->currentWidget(), window.dashboard());
    QCOMPARE(DetachedWindow::of(window.dashboard()), nullptr);
}

void TestWindows::logsDetachAndDockBack()
{
    MainWindow window;
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    LogsPanel *logs = window.sessionsView()->logsPanel();
    auto *splitter = qobject_cast<QSplitter *>(logs->parentWidget());
    QVERIFY(splitter);
    QCOMPARE(splitter->count(), 2);
    QVERIFY(logs->detachButton()->isVisible());

    logs->detachButton()->click(); // the panel's own "Own Window"
    DetachedWindow *away = DetachedWindow::of(logs);
    QVERIFY(away);
    QVERIFY(QTest::qWaitForWindowExposed(away));
    QCOMPARE(splitter->count(), 1);
    QVERIFY(!logs->detachButton()->isVisible()); // the window's Dock Back says it now
    QCOMPARE(logs->window(), away);

    QPointer<DetachedWindow> gone = away;
    QVERIFY(away->close());
    QTRY_VERIFY(!gone);
    QCOMPARE(splitter->count(), 2);
    QCOMPARE(splitter->widget(1), logs);
    QVERIFY(logs->detachButton()->isVisible());
}

void TestWindows::terminalDetachesAndDocksBack()
{
    TerminalTabs tabs;
    tabs.resize(700, 400);
    tabs.show();
    QVERIFY(QTest::qWaitForWindowExposed(&tabs));
    // No daemon: the session fails, the terminal stays and says so.
    TerminalWidget *terminal = tabs.openTerminal(
        []() -> Result<std::shared_ptr<const Docker::DockerClient>> {
            return fail(Error::Kind::Transport, QStringLiteral("h9"),
                        QStringLiteral("no such host in this test"));
        },
        QStringLiteral("c0ffee"), QStringLiteral("demo/worker1"));
    TerminalWidget *other = tabs.openTerminal(
        []() -> Result<std::shared_ptr<const Docker::DockerClient>> {
            return fail(Error::Kind::Transport, QStringLiteral("h9"), QStringLiteral("none"));
        },
        QStringLiteral("c0ffee"), QStringLiteral("demo/worker2"));
    QCOMPARE(tabs.count(), 2);
    QTRY_COMPARE(tabs.tabText(0), QStringLiteral("demo/worker1 (failed)"));
    const QString tip = tabs.tabToolTip(0);

    DetachedWindow *away = tabs.detachTerminal(0);
    QVERIFY(away);
    QVERIFY(QTest::qWaitForWindowExposed(away));
    QCOMPARE(tabs.count(), 1);
    QCOMPARE(tabs.terminalAt(0), other);
    QCOMPARE(away->content(), terminal);
    QCOMPARE(away->windowTitle(), QStringLiteral("demo/worker1 (failed) — ClusterDeck"));
    QVERIFY(tabs.sessionOf(terminal)); // the session goes with the widget, not closed
    QVERIFY(terminal->screen()->screenText().contains(QLatin1String("no such host")));

    QPointer<DetachedWindow> gone = away;
    away->dockBack();
    QTRY_VERIFY(!gone);
    QCOMPARE(tabs.count(), 2);
    const int back = tabs.indexOf(terminal);
    QVERIFY(back >= 0);
    QCOMPARE(tabs.tabText(back), QStringLiteral("demo/worker1 (failed)"));
    QCOMPARE(tabs.tabToolTip(back), tip);
    QCOMPARE(tabs.currentIndex(), back);
    QVERIFY(tabs.sessionOf(terminal));
    QVERIFY(terminal->screen()->screenText().contains(QLatin1String("no such host")));
}

void TestWindows::detachedGeometryIsKept()
{
    MainWindow window;
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    DetachedWindow *away = window.detachDashboard();
    QVERIFY(QTest::qWaitForWindowExposed(away));
    const QRect place(300, 200, 820, 560);
    away->setGeometry(place);
    QTRY_COMPARE(away->geometry(), place);
    QPointer<DetachedWindow> gone = away;
    away->dockBack();
    QTRY_VERIFY(!gone);
    DetachedWindow *again = window.detachDashboard();
    again->show();
    QVERIFY(QTest::qWaitForWindowExposed(again));
    QTRY_COMPARE(again->geometry(), place);
    again->dockBack();
}

void TestWindows::closingTheWindowDocksEverythingBack()
{
    MainWindow window;
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    QPointer<DetachedWindow> dashboard = window.detachDashboard();
    QPointer<DetachedWindow> logs = window.sessionsView()->detachLogs();
    QVERIFY(dashboard && logs);
    QSignalSpy closed(&window, &MainWindow::closed);
    QVERIFY(window.close());
    QCOMPARE(closed.count(), 1);
    QTRY_VERIFY(!dashboard && !logs);
    QVERIFY(window.tabs()->indexOf(window.dashboard()) >= 0);
    QCOMPARE(DetachedWindow::of(window.sessionsView()->logsPanel()), nullptr);
    for (QWidget *w : QApplication::topLevelWidgets())
        QVERIFY2(!w->isVisible() || !qobject_cast<DetachedWindow *>(w),
                 qPrintable(w->objectName()));
}

QTEST_MAIN(TestWindows)
#include "tst_windows.moc"
