#include "mainwindow.h"

#include "common/version.h"
#include "console/consolecontroller.h"
#include "dashboard/sessiondashboard.h"
#include "docker/dockerclient.h"
#include "events/eventsview.h"
#include "host/hostregistry.h"
#include "hosts/hostsview.h"
#include "hosts/localdockeroffer.h"
#include "images/imagesview.h"
#include "launch/launchdialog.h"
#include "sessions/sessionsview.h"
#include "style/apptheme.h"
#include "style/themeicon.h"
#include "templates/templateeditor.h"
#include "terminal/terminaltabs.h"
#include "traynotifier.h"
#include "widgets/detachedwindow.h"

#include "common/datapaths.h"
#include "common/logging.h"

#include <QAction>
#include <QActionGroup>
#include <QApplication>
#include <QCloseEvent>
#include <QHeaderView>
#include <QLabel>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QSettings>
#include <QStatusBar>
#include <QTabBar>
#include <QTabWidget>
#include <QTableView>
#include <QToolBar>

namespace ClusterDeck::Ui {

MainWindow::MainWindow(ConsoleController *controller, QWidget *parent)
    : QMainWindow(parent)
    , m_controller(controller ? controller : new ConsoleController(this))
    , m_tabs(new QTabWidget(this))
{
    setWindowTitle(QStringLiteral("ClusterDeck"));
    setObjectName(QStringLiteral("ClusterDeckMainWindow"));
    resize(1280, 800);

    m_sessionsView = new SessionsView(m_controller);
    m_tabs->setObjectName(QStringLiteral("mainTabs"));
    m_tabs->setDocumentMode(true);
    m_tabs->addTab(m_sessionsView, tr("Sessions"));
    auto *hosts = new HostsView(m_controller);
    m_tabs->addTab(hosts, tr("Hosts"));
    connect(m_sessionsView, &SessionsView::addHostRequested, this, [this, hosts] {
        m_tabs->setCurrentWidget(hosts);
        hosts->addHost();
    });
    connect(m_sessionsView, &SessionsView::localDockerRequested, this, [this] {
        auto *offer = new LocalDockerOffer(m_controller, this);
        connect(offer, &LocalDockerOffer::finished, offer, &QObject::deleteLater);
        offer->addNow();
    });
    auto *templates = new TemplateEditor;
    templates->setDirectories(sampleTemplateDirectories(), userTemplateDirectory());
    m_templateEditor = templates;
    connect(m_controller, &ConsoleController::hostStatusesChanged, templates, [this, templates] {
        templates->setKnownImages(TemplateEditor::imagesOf(m_controller->hostStatuses()));
    });
    templates->setKnownImages(TemplateEditor::imagesOf(m_controller->hostStatuses()));
    m_tabs->addTab(templates, tr("Templates"));
    connect(m_sessionsView, &SessionsView::samplesRequested, this,
            [this, templates] { m_tabs->setCurrentWidget(templates); });
    m_tabs->addTab(new EventsView(m_controller), tr("Events"));
    auto *images = new ImagesView(m_controller);
    m_tabs->addTab(images, tr("Images"));
    // Listing images asks every host: only when the tab is looked at.
    connect(m_tabs, &QTabWidget::currentChanged, images, [this, images](int index) {
        if (m_tabs->widget(index) == images)
            images->refresh();
    });
    // Terminals open in a tab of their own, one inner tab per kernel.
    m_terminals = new TerminalTabs;
    m_tabs->addTab(m_terminals, tr("Terminals"));
    connect(m_sessionsView, &SessionsView::terminalRequested, this,
            [this](const QString &title, const QString &host, const QString &containerId) {
                HostRegistry *registry = m_controller->registry();
                if (!registry)
                    return;
                m_terminals->openTerminal(
                    [registry, host]() -> Result<std::shared_ptr<const Docker::DockerClient>> {
                        auto client = registry->client(host);
                        if (!client)
                            return fail(client.error());
                        return std::shared_ptr<const Docker::DockerClient>(*client);
                    },
                    containerId, title);
                m_tabs->setCurrentWidget(m_terminals);
            });
    m_dashboard = new SessionDashboard;
    m_dashboard->setClientProvider(
        [this](const QString &host) -> std::shared_ptr<const Docker::DockerClient> {
            HostRegistry *registry = m_controller->registry();
            if (!registry)
                return {};
            auto client = registry->client(host);
            return client ? *client : nullptr;
        });
    m_tabs->addTab(m_dashboard, tr("Dashboard"));
    connect(m_sessionsView, &SessionsView::dashboardRequested, this,
            [this](const QString &title, const QList<KernelRecord> &kernels) {
                m_dashboard->showSession(title, kernels);
                if (DetachedWindow *away = DetachedWindow::of(m_dashboard)) {
                    away->raise();
                    away->activateWindow();
                } else {
                    m_tabs->setCurrentWidget(m_dashboard);
                }
            });
    setCentralWidget(m_tabs);

    // Its tab's context menu shows the dashboard in a window of its own.
    m_tabs->tabBar()->setContextMenuPolicy(Qt::CustomContextMenu);
    connect(m_tabs->tabBar(), &QWidget::customContextMenuRequested, this,
            [this](const QPoint &position) {
                if (m_tabs->widget(m_tabs->tabBar()->tabAt(position)) != m_dashboard)
                    return;
                QMenu menu(this);
                menu.addAction(tr("Open in &Own Window"), this, &MainWindow::detachDashboard);
                menu.exec(m_tabs->tabBar()->mapToGlobal(position));
            });
    connect(m_controller, &ConsoleController::storeOpened, this, [this](const QString &store) {
        // Two windows on two stores side by side: the title says which is which.
        setWindowTitle(tr("ClusterDeck — %1").arg(store));
    });
    if (m_controller->hasStore())
        setWindowTitle(tr("ClusterDeck — %1").arg(m_controller->storeDescription()));

    setupToolBar();
    setupMenus();
    setupStatusBar();
    restoreSettings();
    m_tray = new TrayNotifier(m_controller->sessionModel(), this, this);
}

MainWindow::~MainWindow() = default;

QAction *MainWindow::terminateAction() const
{
    return m_sessionsView->terminateAction();
}

DetachedWindow *MainWindow::detachDashboard()
{
    if (DetachedWindow *away = DetachedWindow::of(m_dashboard))
        return away;
    const int index = m_tabs->indexOf(m_dashboard);
    const QString title = m_tabs->tabText(index);
    const bool wasCurrent = m_tabs->currentIndex() == index;
    m_tabs->removeTab(index);
    if (wasCurrent) // the sessions it was opened from, not the tab that happens to be next
        m_tabs->setCurrentWidget(m_sessionsView);
    auto *window = new DetachedWindow(
        m_dashboard, tr("Dashboard — ClusterDeck"), QStringLiteral("dashboard"),
        [this, index, title](QWidget *content) {
            m_tabs->insertTab(std::min(index, int(m_tabs->count())), content, title);
            m_tabs->setCurrentWidget(content);
        },
        this);
    window->show();
    return window;
}

void MainWindow::setView(int index, QWidget *view)
{
    const QString title = m_tabs->tabText(index);
    QWidget *old = m_tabs->widget(index);
    const int current = m_tabs->currentIndex();
    m_tabs->removeTab(index);
    m_tabs->insertTab(index, view, title);
    m_tabs->setCurrentIndex(current);
    delete old;
}

void MainWindow::setupToolBar()
{
    QToolBar *bar = addToolBar(tr("Main"));
    bar->setObjectName(QStringLiteral("mainToolBar"));
    bar->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
    bar->setMovable(false);

    m_launch = new QAction(themeIcon(QStringLiteral("media-playback-start")), tr("&Launch…"), this);
    m_launch->setObjectName(QStringLiteral("launch"));
    m_launch->setShortcuts({QKeySequence(Qt::CTRL | Qt::Key_L), QKeySequence(QKeySequence::New)});
    m_launch->setToolTip(tr("Launch a cluster session from a template"));
    connect(m_launch, &QAction::triggered, this, &MainWindow::launchRequested);
    connect(m_sessionsView, &SessionsView::launchRequested, m_launch, &QAction::trigger);
    connect(m_launch, &QAction::triggered, this, [this] {
        auto *dialog = new LaunchDialog(m_controller, this);
        dialog->setAttribute(Qt::WA_DeleteOnClose);
        connect(dialog, &LaunchDialog::launched, m_sessionsView, &SessionsView::selectSession);
        dialog->open();
    });

    m_refresh = new QAction(themeIcon(QStringLiteral("view-refresh")), tr("Re&fresh"), this);
    m_refresh->setObjectName(QStringLiteral("refresh"));
    m_refresh->setShortcut(QKeySequence(Qt::Key_F5)); // QKeySequence::Refresh is Ctrl+R on X11
    m_refresh->setToolTip(tr("Reload the sessions and ask every host how it is (F5)"));
    connect(m_refresh, &QAction::triggered, this, [this] {
        m_controller->refresh();
        m_controller->refreshHosts();
    });

    bar->addAction(m_launch);
    bar->addAction(m_sessionsView->restartAction());
    bar->addAction(m_sessionsView->terminateAction());
    bar->addSeparator();
    bar->addAction(m_refresh);
}

void MainWindow::setupMenus()
{
    QMenu *file = menuBar()->addMenu(tr("&File"));
    file->addAction(m_launch);
    file->addSeparator();
    m_newWindow = file->addAction(themeIcon(QStringLiteral("window-new")), tr("New &Window"));
    m_newWindow->setObjectName(QStringLiteral("newWindow"));
    m_newWindow->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_N));
    m_newWindow->setToolTip(tr("Another window on this store, to see two views side by side"));
    m_newWindowOnStore = file->addAction(tr("New Window on &Store…"));
    m_newWindowOnStore->setObjectName(QStringLiteral("newWindowOnStore"));
    m_newWindowOnStore->setToolTip(tr("A window on another store (sqlite://FILE or etcd://…)"));
    m_newWindow->setVisible(false);
    m_newWindowOnStore->setVisible(false);
    file->addSeparator();
    m_quit = file->addAction(themeIcon(QStringLiteral("application-exit")), tr("&Quit"),
                             QKeySequence::Quit, this, &QWidget::close);
    m_quit->setObjectName(QStringLiteral("quit"));

    QMenu *session = menuBar()->addMenu(tr("&Session"));
    session->addAction(m_sessionsView->restartAction());
    session->addAction(m_sessionsView->terminateAction());
    session->addAction(m_sessionsView->logsAction());
    session->addAction(m_sessionsView->copyHostnamesAction());
    session->addSeparator();
    session->addAction(m_sessionsView->openTerminalAction());
    session->addAction(m_sessionsView->runCommandAction());
    session->addAction(m_sessionsView->dashboardAction());

    QMenu *view = menuBar()->addMenu(tr("&View"));
    view->addAction(m_refresh);
    QAction *detach = view->addAction(tr("Dashboard in Own &Window"));
    detach->setObjectName(QStringLiteral("detachDashboard"));
    detach->setToolTip(tr("Show the dashboard in a window of its own, beside this one"));
    connect(detach, &QAction::triggered, this, &MainWindow::detachDashboard);
    QAction *reconcile = view->addAction(tr("Reconcile Now"));
    reconcile->setObjectName(QStringLiteral("reconcile"));
    connect(reconcile, &QAction::triggered, m_controller, &ConsoleController::reconcile);
    view->addSeparator();
    setupThemeMenu(
        view->addMenu(themeIcon(QStringLiteral("preferences-desktop-theme")), tr("&Theme")));
    view->addSeparator();
    for (int i = 0; i < m_tabs->count(); ++i) {
        QAction *go = view->addAction(m_tabs->tabText(i));
        go->setShortcut(QKeySequence(Qt::ALT | Qt::Key(Qt::Key_1 + i)));
        connect(go, &QAction::triggered, this, [this, i] { m_tabs->setCurrentIndex(i); });
    }

    QMenu *help = menuBar()->addMenu(tr("&Help"));
    // Debug and info lines of every area on the terminal the console was started from (off by
    // default; QT_LOGGING_RULES, when set, decides instead). Kept across runs.
    QAction *diagnostics = help->addAction(tr("&Diagnostic Output on the Terminal"));
    diagnostics->setObjectName(QStringLiteral("diagnostics"));
    diagnostics->setCheckable(true);
    diagnostics->setChecked(
        QSettings().value(QStringLiteral("diagnostics/verbose"), false).toBool());
    connect(diagnostics, &QAction::toggled, this, [](bool on) {
        QSettings().setValue(QStringLiteral("diagnostics/verbose"), on);
        Logging::apply(on ? Logging::Level::Debug : Logging::Level::Warnings);
    });
    help->addAction(
        themeIcon(QStringLiteral("help-about")), tr("&About ClusterDeck"), this, [this] {
            QMessageBox::about(this, tr("About ClusterDeck"),
                               tr("ClusterDeck %1\nLaunch, watch and tear down cluster sessions "
                                  "across Docker hosts.")
                                   .arg(versionString()));
        });
}

void MainWindow::setupThemeMenu(QMenu *menu)
{
    // System follows the desktop (dark when its palette is); the choice is kept across runs.
    auto *group = new QActionGroup(this);
    group->setExclusive(true);
    const struct
    {
        AppTheme::Choice choice;
        QString text;
    } choices[] = {{AppTheme::Choice::System, tr("&System")},
                   {AppTheme::Choice::Light, tr("&Light")},
                   {AppTheme::Choice::Dark, tr("&Dark")}};
    for (const auto &c : choices) {
        QAction *action = menu->addAction(c.text);
        action->setObjectName(QStringLiteral("theme-") + AppTheme::toString(c.choice));
        action->setCheckable(true);
        action->setChecked(AppTheme::current() == c.choice);
        group->addAction(action);
        connect(action, &QAction::triggered, this, [choice = c.choice] {
            AppTheme::apply(choice);
            AppTheme::saveChoice(choice);
        });
    }
}

void MainWindow::setupStatusBar()
{
    m_storeLabel = new QLabel(tr("Store: opening…"));
    m_storeLabel->setObjectName(QStringLiteral("storeLabel"));
    m_hostsLabel = new QLabel(tr("Hosts: —"));
    m_hostsLabel->setObjectName(QStringLiteral("hostsLabel"));
    m_busyLabel = new QLabel;
    m_controllerLabel = new QLabel(tr("controller: …"));
    m_controllerLabel->setObjectName(QStringLiteral("controllerLabel"));
    m_controllerLabel->setToolTip(
        tr("The controller applies failure and success policies and repairs what crashes leave "
           "behind. One console or `clusterdeckctl controller` leads per store."));
    m_undecodableLabel = new QLabel;
    m_undecodableLabel->setObjectName(QStringLiteral("undecodableLabel"));
    m_undecodableLabel->setStyleSheet(QStringLiteral("color: #cc3333;"));
    m_undecodableLabel->hide();
    statusBar()->addPermanentWidget(m_undecodableLabel);
    statusBar()->addPermanentWidget(m_busyLabel);
    statusBar()->addPermanentWidget(m_controllerLabel);
    statusBar()->addPermanentWidget(m_hostsLabel);
    statusBar()->addPermanentWidget(m_storeLabel);
    if (m_controller->hasStore())
        m_storeLabel->setText(tr("Store: %1").arg(m_controller->storeDescription()));
    else
        m_storeLabel->setText(tr("Store: none"));

    connect(m_controller, &ConsoleController::connectionChanged, this,
            [this](bool connected, const QString &message) {
                m_storeLabel->setText(connected ? tr("Store: %1").arg(message)
                                                : tr("Store: not connected"));
                m_storeLabel->setToolTip(message);
                m_storeLabel->setStyleSheet(connected ? QString()
                                                      : QStringLiteral("color: #cc3333;"));
            });
    connect(m_controller, &ConsoleController::storeFailed, this, [this](const QString &error) {
        statusBar()->showMessage(tr("Cannot open the store: %1").arg(error));
    });
    connect(m_controller, &ConsoleController::reachableHostsChanged, this,
            [this](int reachable, int total) {
                m_hostsLabel->setText(tr("Hosts: %1/%2 reachable").arg(reachable).arg(total));
                m_hostsLabel->setStyleSheet(reachable < total ? QStringLiteral("color: #cc3333;")
                                                              : QString());
            });
    auto showController = [this](const QString &text, bool active) {
        m_controllerLabel->setText(text.isEmpty() ? tr("controller: …") : text);
        m_controllerLabel->setStyleSheet(active ? QString() : QStringLiteral("color: #cc3333;"));
    };
    connect(m_controller, &ConsoleController::controllerStatusChanged, this, showController);
    // The console may have learnt who leads before this window existed.
    if (!m_controller->controllerText().isEmpty())
        showController(m_controller->controllerText(), m_controller->policiesActive());
    // A record that cannot be read is left out of the tree; say so, naming it (the controller
    // refuses to reconcile until it is repaired or removed).
    auto showUndecodable = [this](const QStringList &records) {
        m_undecodableLabel->setVisible(!records.isEmpty());
        m_undecodableLabel->setText(
            tr("%n unreadable session record(s)", nullptr, int(records.size())));
        m_undecodableLabel->setToolTip(
            tr("Left out of the list; the controller does not reconcile until they are repaired "
               "or removed:\n%1")
                .arg(records.join(QLatin1Char('\n'))));
    };
    connect(m_controller, &ConsoleController::undecodableRecordsChanged, this, showUndecodable);
    showUndecodable(m_controller->undecodableRecords());
    connect(m_controller, &ConsoleController::busyChanged, this,
            [this](bool busy) { m_busyLabel->setText(busy ? tr("Working…") : QString()); });
    connect(m_controller, &ConsoleController::operationStarted, this,
            [this](const QString &what) { statusBar()->showMessage(tr("%1…").arg(what)); });
    connect(m_controller, &ConsoleController::operationFinished, this, &MainWindow::showOperation);
    statusBar()->showMessage(tr("Ready"));
}

void MainWindow::showOperation(const QString &what, bool ok, const QString &message)
{
    if (ok) {
        statusBar()->showMessage(tr("%1: done — %2").arg(what, message), 10000);
        return;
    }
    statusBar()->showMessage(tr("%1 failed").arg(what), 10000);
    // Errors in full: the admin needs the host and the daemon's words to act on them.
    auto *box = new QMessageBox(QMessageBox::Warning, tr("%1 failed").arg(what), message,
                                QMessageBox::Close, this);
    box->setAttribute(Qt::WA_DeleteOnClose);
    box->setTextInteractionFlags(Qt::TextSelectableByMouse);
    box->open();
}

QList<QTableView *> MainWindow::rememberedTables() const
{
    QList<QTableView *> tables;
    for (const QString &name : {QStringLiteral("hostsTable"), QStringLiteral("eventsTable")}) {
        if (auto *table = m_tabs->findChild<QTableView *>(name))
            tables.append(table);
    }
    return tables;
}

void MainWindow::saveSettings() const
{
    QSettings settings;
    settings.beginGroup(m_settingsGroup);
    settings.setValue(QStringLiteral("geometry"), saveGeometry());
    settings.setValue(QStringLiteral("state"), saveState());
    settings.setValue(QStringLiteral("lastView"), m_tabs->currentIndex());
    settings.setValue(QStringLiteral("sessionsView"), m_sessionsView->saveState());
    // The other views' column widths and order.
    for (const QTableView *table : rememberedTables())
        settings.setValue(QStringLiteral("columns/") + table->objectName(),
                          table->horizontalHeader()->saveState());
    settings.endGroup();
}

bool MainWindow::restoreSettings()
{
    QSettings settings;
    settings.beginGroup(m_settingsGroup);
    const QByteArray geometry = settings.value(QStringLiteral("geometry")).toByteArray();
    if (!geometry.isEmpty())
        restoreGeometry(geometry);
    restoreState(settings.value(QStringLiteral("state")).toByteArray());
    m_tabs->setCurrentIndex(settings.value(QStringLiteral("lastView"), 0).toInt());
    m_sessionsView->restoreState(settings.value(QStringLiteral("sessionsView")).toByteArray());
    for (QTableView *table : rememberedTables()) {
        const QByteArray state =
            settings.value(QStringLiteral("columns/") + table->objectName()).toByteArray();
        if (!state.isEmpty())
            table->horizontalHeader()->restoreState(state);
    }
    settings.endGroup();
    return !geometry.isEmpty();
}

void MainWindow::closeEvent(QCloseEvent *event)
{
    if (m_templateEditor && !m_templateEditor->maybeKeepChanges()) {
        event->ignore(); // unsaved template changes are never dropped silently
        return;
    }
    // What is in windows of its own comes back first: it goes with this window, and the
    // splitter's state is saved whole.
    for (DetachedWindow *away : findChildren<DetachedWindow *>())
        away->close();
    saveSettings();
    QMainWindow::closeEvent(event);
    Q_EMIT closed();
}

} // namespace ClusterDeck::Ui
