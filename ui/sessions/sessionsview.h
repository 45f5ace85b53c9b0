#pragma once

#include <QWidget>

class QLabel;
class QPushButton;
class QStackedWidget;

#include <functional>

class QAction;
class QCheckBox;
class QComboBox;
class QLineEdit;
class QMenu;
class QModelIndex;
class QSplitter;
class QTimer;
class QTreeView;

namespace ClusterDeck {
struct KernelRecord;
class StatsMonitor;
} // namespace ClusterDeck

namespace ClusterDeck::Ui {

class SessionTreeModel;
class SessionFilterProxyModel;

class KernelStatsFeed;

class ConsoleController;
class DetachedWindow;
class LogsPanel;
class PortLinkDelegate;
class PortProber;
class RunCommandDialog;
class ScaleRoleDialog;

// The collapsible session tree with its filter box, context menu and logs panel. Every action
// acts on a whole session; asked on a member kernel, it says so in the confirmation.
class SessionsView : public QWidget
{
    Q_OBJECT

public:
    // What an action applies to: the session, and the kernel it was asked on (if any).
    struct Target
    {
        QString sessionId;
        QString sessionName;
        QString kernelId; // empty when asked on the session or a role row
        QString hostname; // of that kernel
        QString role;     // role row: its name
        int kernelCount = 0;
        bool isValid() const { return !sessionId.isEmpty(); }
    };

    explicit SessionsView(ConsoleController *controller, QWidget *parent = nullptr);
    ~SessionsView() override;

    QTreeView *tree() const { return m_tree; }
    // Shown instead of the tree while the store holds no session (first run: no host either).
    QWidget *welcomePanel() const { return m_welcome; }
    QString welcomeText() const;
    // Where the local Docker daemon listens (tests point it elsewhere).
    void setLocalSocketPath(const QString &path);
    SessionFilterProxyModel *proxy() const { return m_proxy; }
    QLineEdit *filterEdit() const { return m_filter; }
    LogsPanel *logsPanel() const { return m_logs; }
    // The logs panel in a window of its own (closing it puts the panel back below the tree).
    DetachedWindow *detachLogs();
    PortProber *portProber() const { return m_prober; }
    QAction *restartAction() const { return m_restart; }
    QAction *terminateAction() const { return m_terminate; }
    QAction *removeFromHistoryAction() const { return m_removeFromHistory; }
    QAction *logsAction() const { return m_showLogs; }
    QAction *copyHostnamesAction() const { return m_copyHostnames; }
    QAction *openTerminalAction() const { return m_openTerminal; }
    QAction *runCommandAction() const { return m_runCommand; }
    QAction *dashboardAction() const { return m_dashboard; }
    QAction *scaleRoleAction() const { return m_scaleRole; }
    // The kernels an action on `target` reaches: one kernel, a role's, or the whole session's.
    QList<KernelRecord> kernelsOf(const Target &target) const;

    Target currentTarget() const;
    Target targetAt(const QModelIndex &proxyIndex) const;
    // Selects the session's row (and makes it current).
    void selectSession(const QString &sessionId);

    // The question asked before restart / terminate; tests replace it to answer without a dialog.
    using Confirm = std::function<bool(const QString &title, const QString &text)>;
    void setConfirm(Confirm confirm) { m_confirm = std::move(confirm); }
    static QString confirmationText(const Target &target, const QString &verb);
    // Whether a port link may be opened: only absolute http/https URLs with a host. Links come
    // from the (possibly shared) store, so file:, javascript:, custom handlers… are refused.
    static bool isOpenableUrl(const QString &url);
    // How port links are opened (QDesktopServices by default); tests record them instead.
    void setUrlOpener(std::function<void(const QString &url)> opener)
    {
        m_urlOpener = std::move(opener);
    }

    // The context menu for a row (exposed so tests can trigger its actions).
    QMenu *contextMenuFor(const QModelIndex &proxyIndex);

    // Live CPU / memory: one stats stream per running kernel while the view is visible.
    StatsMonitor *statsMonitor() const;
    void syncStatsStreams();

    QByteArray saveState() const;
    void restoreState(const QByteArray &state);

public Q_SLOTS:
    void restartCurrent();
    void terminateCurrent();
    void removeCurrentFromHistory();
    void showLogsOfCurrent();
    void copyHostnamesOfCurrent();
    // A terminal in the current kernel (a session row: its primary kernel).
    void openTerminalOfCurrent();
    // "Run Command…" on the current session, role or kernel; returns the (shown) dialog.
    RunCommandDialog *runCommandOnCurrent();
    // "Scale Role…" on the current role row (of a running session); returns the (shown, modeless)
    // dialog, whose acceptance scales the role.
    ScaleRoleDialog *scaleCurrentRole();

Q_SIGNALS:
    void currentSessionChanged(const QString &sessionId);
    void openUrlRequested(const QString &url);
    // title = "session/kernel"
    void terminalRequested(const QString &title, const QString &host, const QString &containerId);
    // "Show Dashboard": the session's kernels (direct connections only).
    void dashboardRequested(const QString &title, const QList<ClusterDeck::KernelRecord> &kernels);
    // The first-run panel's buttons (the main window knows where these live).
    void addHostRequested();
    void localDockerRequested();
    void samplesRequested();
    void launchRequested();

protected:
    void showEvent(QShowEvent *event) override;
    void hideEvent(QHideEvent *event) override;

private:
    void updateWelcome();
    void updateActions();
    void updateProbeEndpoints();
    void openUrl(const QString &url);
    bool confirm(const QString &title, const QString &text);

    ConsoleController *m_controller;
    SessionTreeModel *m_model;
    SessionFilterProxyModel *m_proxy;
    QLineEdit *m_filter;
    QComboBox *m_status;
    QCheckBox *m_showFinished;
    QTreeView *m_tree;
    QSplitter *m_splitter;
    // Instead of an empty tree: what to do next (no host yet, or no session yet).
    QStackedWidget *m_stack;
    QWidget *m_welcome;
    QLabel *m_welcomeText;
    QPushButton *m_welcomeAddHost;
    QPushButton *m_welcomeLocal;
    QPushButton *m_welcomeSamples;
    QPushButton *m_welcomeLaunch;
    QString m_localSocket = QStringLiteral("/var/run/docker.sock");
    LogsPanel *m_logs;
    PortProber *m_prober;
    PortLinkDelegate *m_portDelegate;
    QAction *m_restart;
    QAction *m_terminate;
    QAction *m_removeFromHistory;
    QAction *m_showLogs;
    QAction *m_copyHostnames;
    QAction *m_openTerminal;
    QAction *m_runCommand;
    QAction *m_dashboard;
    QAction *m_scaleRole;
    QAction *m_expandAll;
    QAction *m_collapseAll;
    Confirm m_confirm;
    std::function<void(const QString &)> m_urlOpener;
    QTimer *m_probeTimer;
    QTimer *m_ageTimer;
    KernelStatsFeed *m_stats;
};

} // namespace ClusterDeck::Ui
