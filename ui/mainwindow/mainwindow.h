#pragma once

#include <QMainWindow>

class QAction;
class QLabel;
class QMenu;
class QTabWidget;
class QTableView;

namespace ClusterDeck::Ui {

class ConsoleController;
class DetachedWindow;
class SessionsView;
class TemplateEditor;
class TerminalTabs;
class SessionDashboard;
class TrayNotifier;

// The console: Sessions, Hosts, Templates and Events views as tabs, a toolbar (Launch, Restart,
// Terminate, Refresh) and a status bar with the store and the reachable hosts. Remembers its
// geometry, toolbar, splitter, column widths and last view (QSettings, its settings group);
// View ▸ Theme picks the palette (System / Light / Dark). The dashboard, the logs and each
// terminal can be shown in windows of their own; File ▸ New Window opens another main window
// when a WindowManager runs the windows.
class MainWindow : public QMainWindow
{
    Q_OBJECT

public:
    // Without a controller the window makes its own (with no store until one is opened).
    explicit MainWindow(ConsoleController *controller = nullptr, QWidget *parent = nullptr);
    ~MainWindow() override;

    ConsoleController *controller() const { return m_controller; }
    SessionsView *sessionsView() const { return m_sessionsView; }
    TemplateEditor *templateEditor() const { return m_templateEditor; }
    TerminalTabs *terminals() const { return m_terminals; }
    SessionDashboard *dashboard() const { return m_dashboard; }
    QTabWidget *tabs() const { return m_tabs; }
    QAction *launchAction() const { return m_launch; }
    QAction *refreshAction() const { return m_refresh; }
    QAction *terminateAction() const;
    // Tells the admin through the system tray when a session fails or completes unseen.
    TrayNotifier *trayNotifier() const { return m_tray; }

    // Registers a view as a tab (the Hosts, Templates and Events views add themselves here).
    void setView(int index, QWidget *view);

    // The Dashboard tab in a window of its own; closing that window docks it back.
    DetachedWindow *detachDashboard();

    // Where saveSettings() and restoreSettings() keep this window's state ("MainWindow" unless
    // a WindowManager gives each window its own group).
    void setSettingsGroup(const QString &group) { m_settingsGroup = group; }
    QString settingsGroup() const { return m_settingsGroup; }
    void saveSettings() const;
    // False when the group holds no geometry (a window that never closed there).
    bool restoreSettings();

    // File ▸ New Window (this store), New Window on Store… and Quit: hidden / closing this
    // window until a WindowManager takes them over.
    QAction *newWindowAction() const { return m_newWindow; }
    QAction *newWindowOnStoreAction() const { return m_newWindowOnStore; }
    QAction *quitAction() const { return m_quit; }

Q_SIGNALS:
    void launchRequested();
    // The close was accepted (unsaved template changes kept or dropped by the admin).
    void closed();

protected:
    void closeEvent(QCloseEvent *event) override;

private:
    void setupMenus();
    void setupToolBar();
    void setupStatusBar();
    void setupThemeMenu(QMenu *menu);
    // Tables whose column state is kept besides the session tree's (hosts, events).
    QList<QTableView *> rememberedTables() const;
    void showOperation(const QString &what, bool ok, const QString &message);

    ConsoleController *m_controller = nullptr;
    QTabWidget *m_tabs = nullptr;
    SessionsView *m_sessionsView = nullptr;
    TemplateEditor *m_templateEditor = nullptr;
    TerminalTabs *m_terminals = nullptr;
    SessionDashboard *m_dashboard = nullptr;
    QAction *m_launch = nullptr;
    QAction *m_refresh = nullptr;
    QAction *m_newWindow = nullptr;
    QAction *m_newWindowOnStore = nullptr;
    QAction *m_quit = nullptr;
    QString m_settingsGroup = QStringLiteral("MainWindow");
    TrayNotifier *m_tray = nullptr;
    QLabel *m_storeLabel = nullptr;
    QLabel *m_hostsLabel = nullptr;
    QLabel *m_busyLabel = nullptr;
    QLabel *m_controllerLabel = nullptr;
    QLabel *m_undecodableLabel = nullptr;
};

} // namespace ClusterDeck::Ui
