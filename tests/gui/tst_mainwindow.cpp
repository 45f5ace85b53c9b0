#include "common/logging.h"
#include "console/consolecontroller.h"
#include "gui/sessionfixtures.h"
#include "mainwindow/mainwindow.h"
#include "mainwindow/traynotifier.h"
#include "models/sessionfilterproxymodel.h"
#include "sessions/sessionsview.h"
#include "models/sessiontreemodel.h"
#include "store/sqlitestore.h"
#include "style/apptheme.h"
#include "style/themeicon.h"

#include <QAction>
#include <QApplication>
#include <QHeaderView>
#include <QMenuBar>
#include <QSettings>
#include <QSignalSpy>
#include <QSplitter>
#include <QStyle>
#include <QSystemTrayIcon>
#include <QTabWidget>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>
#include <QTreeView>

using namespace ClusterDeck;
using namespace ClusterDeck::Fixtures;
using namespace ClusterDeck::Ui;

Q_DECLARE_METATYPE(ClusterDeck::Ui::AppTheme::Choice)
Q_DECLARE_METATYPE(std::optional<ClusterDeck::SessionStatus>)

class TestMainWindow : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void init();
    void cleanup();

    void opensWithTabs_data();
    void opensWithTabs();
    void actionsHaveIconsAndShortcuts_data();
    void actionsHaveIconsAndShortcuts();
    void settingsRoundTrip_data();
    void settingsRoundTrip();
    void deleteAsksBeforeTerminating_data();
    void deleteAsksBeforeTerminating();
    void themeChoiceAppliesPalette_data();
    void themeChoiceAppliesPalette();
    void trayNotices_data();
    void trayNotices();
    void trayNotifiesOnlyWhenOutOfSight_data();
    void trayNotifiesOnlyWhenOutOfSight();
    void diagnosticsAreOffUntilAsked();

private:
    // A controller on a fresh SQLite store holding session "alpha" (1 master, 2 workers).
    std::unique_ptr<ConsoleController> makeController();

    std::unique_ptr<QTemporaryDir> m_settingsDir;
    std::unique_ptr<QTemporaryDir> m_storeDir;
    SessionFixture m_alpha;
    StateStore *m_store = nullptr;
};

void TestMainWindow::initTestCase()
{
    QApplication::setOrganizationName(QStringLiteral("ClusterDeckTests"));
    QApplication::setApplicationName(QStringLiteral("tst_mainwindow"));
    QSettings::setDefaultFormat(QSettings::IniFormat);
}

void TestMainWindow::init()
{
    // Every test function starts from empty settings of its own (never the user's).
    m_settingsDir = std::make_unique<QTemporaryDir>();
    QVERIFY(m_settingsDir->isValid());
    QSettings::setPath(QSettings::IniFormat, QSettings::UserScope, m_settingsDir->path());
    m_storeDir = std::make_unique<QTemporaryDir>();
    QVERIFY(m_storeDir->isValid());
    qunsetenv("CLUSTERDECK_THEME");
    qunsetenv("GTK_THEME");
}

void TestMainWindow::cleanup()
{
    AppTheme::apply(AppTheme::Choice::System);
    m_store = nullptr;
    m_storeDir.reset();
    m_settingsDir.reset();
}

std::unique_ptr<ConsoleController> TestMainWindow::makeController()
{
    auto store = SqliteStore::open(m_storeDir->filePath(QStringLiteral("state.db")));
    if (!store)
        return nullptr;
    m_alpha = makeSession("11111111-aaaa-4000-8000-000000000001", "alpha",
                          {{"master", 1}, {"worker", 2}});
    if (!(*store)->createSession(m_alpha.session, m_alpha.kernels))
        return nullptr;
    m_store = store->get();
    auto controller = std::make_unique<ConsoleController>();
    controller->setHostRefreshInterval(0);
    controller->setCoalesceDelay(0);
    controller->setStore(std::unique_ptr<StateStore>(store->release()));
    controller->waitForIdle();
    return controller;
}

void TestMainWindow::opensWithTabs_data()
{
    QTest::addColumn<int>("index");
    QTest::addColumn<QString>("title");
    QTest::newRow("sessions") << 0 << "Sessions";
    QTest::newRow("hosts") << 1 << "Hosts";
    QTest::newRow("templates") << 2 << "Templates";
}

void TestMainWindow::opensWithTabs()
{
    QFETCH(int, index);
    QFETCH(QString, title);
    MainWindow window;
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    auto *tabs = window.findChild<QTabWidget *>();
    QVERIFY(tabs);
    QCOMPARE(tabs->tabText(index), title);
    QCOMPARE(window.windowTitle(), QStringLiteral("ClusterDeck"));
}

void TestMainWindow::actionsHaveIconsAndShortcuts_data()
{
    QTest::addColumn<QString>("action");
    QTest::addColumn<QString>("icon");
    QTest::addColumn<QKeySequence>("shortcut");
    QTest::newRow("launch") << "launch"
                            << "media-playback-start" << QKeySequence(Qt::CTRL | Qt::Key_L);
    QTest::newRow("refresh") << "refresh"
                             << "view-refresh" << QKeySequence(Qt::Key_F5);
    QTest::newRow("terminate") << "terminateSession"
                               << "process-stop" << QKeySequence(Qt::Key_Delete);
    QTest::newRow("restart") << "restartSession"
                             << "system-reboot" << QKeySequence();
    QTest::newRow("quit") << "quit"
                          << "application-exit" << QKeySequence(QKeySequence::Quit);
}

void TestMainWindow::actionsHaveIconsAndShortcuts()
{
    QFETCH(QString, action);
    QFETCH(QString, icon);
    QFETCH(QKeySequence, shortcut);
    MainWindow window;
    QAction *a = window.findChild<QAction *>(action);
    QVERIFY2(a, qPrintable(action));
    // Offscreen there is no icon theme: the bundled SVG must stand in, and render.
    QVERIFY(hasFallbackIcon(icon));
    QVERIFY(!a->icon().isNull());
    QVERIFY(!a->icon().pixmap(16, 16).isNull());
    if (!shortcut.isEmpty())
        QVERIFY2(a->shortcuts().contains(shortcut), qPrintable(shortcut.toString()));
}

void TestMainWindow::settingsRoundTrip_data()
{
    QTest::addColumn<QSize>("size");
    QTest::addColumn<int>("nameWidth");
    QTest::addColumn<int>("logsHeight");
    QTest::addColumn<int>("tab");
    // (The window is at least ~1080 pixels wide: toolbar and status bar.)
    QTest::newRow("wide, hosts tab") << QSize(1400, 900) << 333 << 250 << 1;
    QTest::newRow("smaller, sessions tab") << QSize(1150, 660) << 180 << 120 << 0;
    QTest::newRow("events tab") << QSize(1200, 720) << 260 << 200 << 3;
}

void TestMainWindow::settingsRoundTrip()
{
    QFETCH(QSize, size);
    QFETCH(int, nameWidth);
    QFETCH(int, logsHeight);
    QFETCH(int, tab);
    auto controller = makeController();
    QVERIFY(controller);
    QList<int> savedSplitter;
    {
        MainWindow window(controller.get());
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        window.resize(size);
        QTRY_COMPARE(window.size(), size);
        QTreeView *tree = window.sessionsView()->tree();
        tree->header()->resizeSection(0, nameWidth);
        auto *splitter = window.sessionsView()->findChild<QSplitter *>();
        QVERIFY(splitter);
        const int total = splitter->sizes().value(0) + splitter->sizes().value(1);
        splitter->setSizes({total - logsHeight, logsHeight});
        savedSplitter = splitter->sizes();
        auto *hosts = window.findChild<QTableView *>(QStringLiteral("hostsTable"));
        QVERIFY(hosts);
        hosts->horizontalHeader()->resizeSection(0, nameWidth + 7);
        window.tabs()->setCurrentIndex(tab);
        QVERIFY(window.close()); // saved on close
    }
    QSettings settings;
    QVERIFY(settings.contains(QStringLiteral("MainWindow/geometry")));
    QVERIFY(settings.contains(QStringLiteral("MainWindow/sessionsView")));

    MainWindow again(controller.get());
    again.show();
    QVERIFY(QTest::qWaitForWindowExposed(&again));
    QTRY_COMPARE(again.size(), size);
    QCOMPARE(again.tabs()->currentIndex(), tab);
    again.tabs()->setCurrentIndex(0); // the splitter is laid out once its tab shows
    QTRY_COMPARE(again.sessionsView()->findChild<QSplitter *>()->sizes(), savedSplitter);
    QCOMPARE(again.sessionsView()->tree()->header()->sectionSize(0), nameWidth);
    QCOMPARE(again.findChild<QTableView *>(QStringLiteral("hostsTable"))
                 ->horizontalHeader()
                 ->sectionSize(0),
             nameWidth + 7);
}

void TestMainWindow::deleteAsksBeforeTerminating_data()
{
    QTest::addColumn<bool>("answer");
    QTest::newRow("no: nothing happens") << false;
    QTest::newRow("yes: terminates") << true;
}

void TestMainWindow::deleteAsksBeforeTerminating()
{
    QFETCH(bool, answer);
    auto controller = makeController();
    QVERIFY(controller);
    MainWindow window(controller.get());
    SessionsView *view = window.sessionsView();
    QStringList asked;
    view->setConfirm([&](const QString &title, const QString &text) {
        asked << title + u": " + text;
        return answer;
    });
    window.show();
    QVERIFY(QTest::qWaitForWindowActive(&window));
    window.tabs()->setCurrentIndex(0);
    QTRY_VERIFY(view->tree()->isVisible()); // the tree, not the first-run panel
    view->selectSession(m_alpha.session.id);
    view->tree()->setFocus();
    QTRY_VERIFY(view->tree()->hasFocus());
    QSignalSpy started(controller.get(), &ConsoleController::operationStarted);
    QSignalSpy finished(controller.get(), &ConsoleController::operationFinished);

    QTest::keyClick(view->tree(), Qt::Key_Delete);

    QCOMPARE(asked.size(), 1);
    QVERIFY2(asked[0].startsWith(QStringLiteral("Terminate Session: ")), qPrintable(asked[0]));
    QVERIFY2(asked[0].contains(QStringLiteral("alpha")), qPrintable(asked[0]));
    if (!answer) {
        QTest::qWait(200);
        QCOMPARE(started.size(), 0);
        const auto record = m_store->session(m_alpha.session.id);
        QVERIFY(record.has_value());
        QCOMPARE(toString(record->desired), toString(DesiredState::Running));
        QCOMPARE(toString(record->status), toString(SessionStatus::Running));
        return;
    }
    QCOMPARE(started.size(), 1);
    QVERIFY(started[0][0].toString().endsWith(QStringLiteral(" alpha")));
    QTRY_COMPARE_WITH_TIMEOUT(finished.size(), 1, 30000);
    // Desired state before any side effect (docs/architecture.md): the command was taken.
    const auto record = m_store->session(m_alpha.session.id);
    QVERIFY(record.has_value());
    QCOMPARE(toString(record->desired), toString(DesiredState::Terminated));
}

void TestMainWindow::themeChoiceAppliesPalette_data()
{
    QTest::addColumn<QString>("action");
    QTest::addColumn<QString>("gtkTheme");
    QTest::addColumn<bool>("dark");
    QTest::addColumn<QString>("saved");
    QTest::newRow("dark") << "theme-dark" << QString() << true << "dark";
    QTest::newRow("light") << "theme-light" << QString() << false << "light";
    QTest::newRow("light on a dark desktop") << "theme-light"
                                             << "Adwaita:dark" << false << "light";
    QTest::newRow("system, light desktop") << "theme-system" << QString() << false << "system";
    QTest::newRow("system, dark desktop") << "theme-system"
                                          << "Adwaita:dark" << true << "system";
}

void TestMainWindow::themeChoiceAppliesPalette()
{
    QFETCH(QString, action);
    QFETCH(QString, gtkTheme);
    QFETCH(bool, dark);
    QFETCH(QString, saved);
    if (!gtkTheme.isEmpty())
        qputenv("GTK_THEME", gtkTheme.toUtf8());
    // Start from the other look, so the choice has something to change.
    AppTheme::apply(dark ? AppTheme::Choice::Light : AppTheme::Choice::Dark);
    MainWindow window;
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    QAction *a = window.findChild<QAction *>(action);
    QVERIFY2(a, qPrintable(action));
    QVERIFY(a->isCheckable());
    a->trigger();

    QVERIFY(a->isChecked());
    QCOMPARE(AppTheme::isDark(QApplication::palette()), dark);
    // Top-level windows learn of the new palette through a posted event.
    QTRY_COMPARE(AppTheme::isDark(window.palette()), dark);
    QTRY_COMPARE(AppTheme::isDark(window.sessionsView()->tree()->palette()), dark);
    if (dark)
        QCOMPARE(QApplication::style()->name().toLower(), QStringLiteral("fusion"));
    QCOMPARE(QSettings().value(QStringLiteral("appearance/theme")).toString(), saved);
    QCOMPARE(AppTheme::savedChoice(), *AppTheme::fromString(saved));
    // The next window starts with the choice checked.
    MainWindow next;
    QVERIFY(next.findChild<QAction *>(action)->isChecked());
}

void TestMainWindow::trayNotices_data()
{
    QTest::addColumn<std::optional<SessionStatus>>("before");
    QTest::addColumn<SessionStatus>("after");
    QTest::addColumn<QString>("title"); // empty: no notice
    QTest::addColumn<bool>("failure");
    using S = SessionStatus;
    const std::optional<S> none;
    QTest::newRow("running -> error")
        << std::optional(S::Running) << S::Error << "Session alpha failed" << true;
    QTest::newRow("provisioning -> error")
        << std::optional(S::Provisioning) << S::Error << "Session alpha failed" << true;
    QTest::newRow("running -> degraded")
        << std::optional(S::Running) << S::Degraded << "Session alpha is degraded" << true;
    QTest::newRow("running -> completed")
        << std::optional(S::Running) << S::Completed << "Session alpha completed" << false;
    QTest::newRow("error -> degraded (recovering)")
        << std::optional(S::Error) << S::Degraded << QString() << false;
    QTest::newRow("terminating -> terminated")
        << std::optional(S::Terminating) << S::Terminated << QString() << false;
    QTest::newRow("provisioning -> running")
        << std::optional(S::Provisioning) << S::Running << QString() << false;
    QTest::newRow("error stays error") << std::optional(S::Error) << S::Error << QString() << false;
    QTest::newRow("first seen in error") << none << S::Error << QString() << false;
}

void TestMainWindow::trayNotices()
{
    QFETCH(std::optional<SessionStatus>, before);
    QFETCH(SessionStatus, after);
    QFETCH(QString, title);
    QFETCH(bool, failure);
    const auto notice = TrayNotifier::noticeFor(QStringLiteral("alpha"), before, after);
    QCOMPARE(notice.has_value(), !title.isEmpty());
    if (!notice)
        return;
    QCOMPARE(notice->title, title);
    QCOMPARE(notice->failure, failure);
    QVERIFY(notice->message.contains(QStringLiteral("alpha")));
}

void TestMainWindow::trayNotifiesOnlyWhenOutOfSight_data()
{
    QTest::addColumn<QString>("window"); // shown, minimized, hidden
    QTest::addColumn<SessionStatus>("status");
    QTest::addColumn<int>("notices");
    QTest::newRow("shown: the tree says it") << "shown" << SessionStatus::Error << 0;
    QTest::newRow("minimized: failed") << "minimized" << SessionStatus::Error << 1;
    QTest::newRow("hidden: failed") << "hidden" << SessionStatus::Error << 1;
    QTest::newRow("hidden: completed") << "hidden" << SessionStatus::Completed << 1;
    QTest::newRow("hidden: terminated") << "hidden" << SessionStatus::Terminated << 0;
}

void TestMainWindow::trayNotifiesOnlyWhenOutOfSight()
{
    QFETCH(QString, window);
    QFETCH(SessionStatus, status);
    QFETCH(int, notices);
    auto controller = makeController();
    QVERIFY(controller);
    MainWindow w(controller.get());
    // Offscreen has no system tray: the notifier makes no icon, and tests record its notices.
    QCOMPARE(w.trayNotifier()->trayIcon() != nullptr, QSystemTrayIcon::isSystemTrayAvailable());
    QList<TrayNotifier::Notice> shown;
    w.trayNotifier()->setPresenter([&shown](const TrayNotifier::Notice &n) { shown << n; });
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    if (window == QLatin1String("minimized"))
        w.showMinimized();
    else if (window == QLatin1String("hidden"))
        w.hide();
    QTRY_COMPARE(TrayNotifier::isOutOfSight(&w), window != QLatin1String("shown"));

    // The session changes as the store reports it (kernels and session record).
    SessionRecord session = m_alpha.session;
    session.status = status;
    QList<KernelRecord> kernels = m_alpha.kernels;
    for (KernelRecord &k : kernels)
        k.status = status == SessionStatus::Error ? KernelStatus::Error : KernelStatus::Terminated;
    controller->sessionModel()->upsertSession(session, kernels);
    QCOMPARE(shown.size(), notices);
    if (notices > 0)
        QVERIFY(shown[0].title.contains(QStringLiteral("alpha")));
}

// Issue 29: the console prints ClusterDeck's debug and info lines (every HTTP request) only when
// asked, with Help > Diagnostic Output, which is kept across runs.
void TestMainWindow::diagnosticsAreOffUntilAsked()
{
    qunsetenv("QT_LOGGING_RULES");
    Logging::apply(Logging::Level::Warnings);
    QVERIFY(!lcHttp().isDebugEnabled());
    QVERIFY(!lcControl().isInfoEnabled());
    QVERIFY(lcControl().isWarningEnabled());
    auto controller = makeController();
    QVERIFY(controller);
    {
        MainWindow window(controller.get());
        auto *diagnostics = window.findChild<QAction *>(QStringLiteral("diagnostics"));
        QVERIFY(diagnostics);
        QVERIFY(!diagnostics->isChecked());
        diagnostics->trigger();
        QVERIFY(lcHttp().isDebugEnabled());
        QVERIFY(lcControl().isInfoEnabled());
    }
    {
        MainWindow window(controller.get()); // the next run keeps the choice
        auto *diagnostics = window.findChild<QAction *>(QStringLiteral("diagnostics"));
        QVERIFY(diagnostics && diagnostics->isChecked());
        diagnostics->trigger();
        QVERIFY(!lcHttp().isDebugEnabled());
    }
}

QTEST_MAIN(TestMainWindow)
#include "tst_mainwindow.moc"
