#include "sessionsview.h"
#include "common/shortid.h"

#include "dashboard/kernelstatsfeed.h"
#include "docker/dockerclient.h"
#include "host/hostregistry.h"
#include "provision/sessionspec.h"
#include "runcommanddialog.h"
#include "scaleroledialog.h"
#include "sessiontreeview.h"
#include "stats/statsmonitor.h"

#include "console/consolecontroller.h"
#include "logspanel.h"
#include "models/sessionfilterproxymodel.h"
#include "models/sessiontreemodel.h"
#include "portlinkdelegate.h"
#include "portprober.h"
#include "store/statestore.h"
#include "store/status.h"
#include "style/themeicon.h"
#include "widgets/detachedwindow.h"

#include <QAction>
#include <QApplication>
#include <QCheckBox>
#include <QClipboard>
#include <QComboBox>
#include <QDataStream>
#include <QDesktopServices>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QIODevice>
#include <QLabel>
#include <QLineEdit>
#include <QLoggingCategory>
#include <QMenu>
#include <QMessageBox>
#include <QPointer>
#include <QPushButton>
#include <QSet>
#include <QSplitter>
#include <QStackedWidget>
#include <QTextDocument>
#include <QThreadPool>
#include <QTimer>
#include <QToolButton>
#include <QTreeView>
#include <QUrl>
#include <QVBoxLayout>

Q_LOGGING_CATEGORY(lcSessionsView, "clusterdeck.ui.sessions")

namespace ClusterDeck::Ui {

using Model = SessionTreeModel;

SessionsView::SessionsView(ConsoleController *controller, QWidget *parent)
    : QWidget(parent)
    , m_controller(controller)
    , m_model(controller->sessionModel())
    , m_proxy(new SessionFilterProxyModel(this))
    , m_filter(new QLineEdit)
    , m_status(new QComboBox)
    , m_showFinished(new QCheckBox(tr("Show ended")))
    , m_tree(new SessionTreeView)
    , m_splitter(new QSplitter(Qt::Vertical))
    , m_stack(new QStackedWidget)
    , m_welcome(new QWidget)
    , m_welcomeText(new QLabel)
    , m_welcomeAddHost(
          new QPushButton(themeIcon(QStringLiteral("list-add")), tr("Add a Docker Host…")))
    , m_welcomeLocal(new QPushButton(themeIcon(QStringLiteral("computer")),
                                     tr("Use This Machine's Docker Daemon")))
    , m_welcomeSamples(new QPushButton(themeIcon(QStringLiteral("document-open")),
                                       tr("Open the Sample Templates")))
    , m_welcomeLaunch(new QPushButton(themeIcon(QStringLiteral("media-playback-start")),
                                      tr("Launch a Session…")))
    , m_logs(new LogsPanel)
    , m_prober(new PortProber(this))
    , m_portDelegate(new PortLinkDelegate(m_prober, this))
    , m_restart(
          new QAction(themeIcon(QStringLiteral("system-reboot")), tr("&Restart Session…"), this))
    , m_terminate(
          new QAction(themeIcon(QStringLiteral("process-stop")), tr("&Terminate Session…"), this))
    , m_removeFromHistory(
          new QAction(themeIcon(QStringLiteral("edit-delete")), tr("Remove from &History…"), this))
    , m_showLogs(new QAction(themeIcon(QStringLiteral("text-x-generic")), tr("Show &Logs"), this))
    , m_copyHostnames(
          new QAction(themeIcon(QStringLiteral("edit-copy")), tr("Copy &Hostnames"), this))
    , m_openTerminal(
          new QAction(themeIcon(QStringLiteral("utilities-terminal")), tr("Open &Terminal"), this))
    , m_runCommand(new QAction(themeIcon(QStringLiteral("system-run")), tr("Run &Command…"), this))
    , m_dashboard(
          new QAction(themeIcon(QStringLiteral("view-statistics")), tr("Show &Dashboard"), this))
    , m_scaleRole(new QAction(tr("&Scale Role…"), this))
    , m_expandAll(new QAction(tr("Expand All"), this))
    , m_collapseAll(new QAction(tr("Collapse All"), this))
    , m_probeTimer(new QTimer(this))
    , m_ageTimer(new QTimer(this))
    , m_stats(new KernelStatsFeed(
          controller->sessionModel(), [controller] { return controller->registry(); },
          controller->pool(), this))
{
    setObjectName(QStringLiteral("sessionsView"));
    m_proxy->setSourceModel(m_model);
    m_proxy->setShowFinished(false);

    m_filter->setObjectName(QStringLiteral("sessionFilter"));
    m_filter->setPlaceholderText(
        tr("Filter sessions and kernels: name, template:…, host:…, status:…, role:…"));
    m_filter->setClearButtonEnabled(true);
    // The placeholder is only a description: the filter has no label on screen.
    m_filter->setAccessibleName(tr("Filter sessions"));
    m_status->setObjectName(QStringLiteral("statusFilter"));
    m_status->addItem(tr("All statuses"));
    for (SessionStatus s : {SessionStatus::Running, SessionStatus::Degraded, SessionStatus::Error,
                            SessionStatus::Provisioning, SessionStatus::Restarting,
                            SessionStatus::Terminating, SessionStatus::Terminated}) {
        const QString text = toString(s);
        m_status->addItem(text.left(1) + text.mid(1).toLower(), QVariant::fromValue(s));
    }
    m_showFinished->setObjectName(QStringLiteral("showEnded"));
    m_showFinished->setToolTip(tr("Also show sessions that were terminated or cancelled"));

    m_tree->setObjectName(QStringLiteral("sessionTree"));
    m_tree->setAccessibleName(tr("Sessions"));
    m_tree->setModel(m_proxy);
    m_tree->setAlternatingRowColors(true);
    m_tree->setSortingEnabled(true);
    m_tree->sortByColumn(Model::AgeColumn, Qt::AscendingOrder);
    m_tree->setSelectionMode(QAbstractItemView::SingleSelection);
    m_tree->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_tree->setContextMenuPolicy(Qt::CustomContextMenu);
    m_tree->setItemDelegateForColumn(Model::PortsColumn, m_portDelegate);
    m_tree->setMouseTracking(true);
    m_tree->header()->setStretchLastSection(true);
    m_tree->setColumnWidth(Model::NameColumn, 220);
    m_tree->setColumnWidth(Model::StatusColumn, 120);
    m_tree->setColumnWidth(Model::TemplateColumn, 120);
    m_tree->setColumnWidth(Model::KernelsColumn, 230);
    m_tree->setColumnWidth(Model::HostsColumn, 110);
    m_tree->setColumnWidth(Model::ContainerColumn, 110);
    m_tree->setColumnWidth(Model::AgeColumn, 70);
    m_tree->setColumnWidth(Model::PortsColumn, 160);
    m_tree->setColumnWidth(Model::CpuColumn, 120);

    auto *filterBar = new QHBoxLayout;
    filterBar->addWidget(m_filter, 1);
    // A combo's name comes from its label (on Linux Qt gives its value as its name).
    auto *statusLabel = new QLabel(tr("St&atus:"));
    statusLabel->setBuddy(m_status);
    filterBar->addWidget(statusLabel);
    filterBar->addWidget(m_status);
    filterBar->addWidget(m_showFinished);

    auto *top = new QWidget;
    auto *topLayout = new QVBoxLayout(top);
    topLayout->setContentsMargins(0, 0, 0, 0);
    topLayout->addLayout(filterBar);
    m_stack->addWidget(m_tree);
    m_stack->addWidget(m_welcome);
    topLayout->addWidget(m_stack);
    m_splitter->addWidget(top);
    m_splitter->addWidget(m_logs);
    connect(m_logs, &LogsPanel::detachRequested, this, &SessionsView::detachLogs);
    m_splitter->setStretchFactor(0, 3);
    m_splitter->setStretchFactor(1, 1);
    m_splitter->setSizes({500, 160});

    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_splitter);

    // The first-run panel: a short text and the console actions that get an admin going.
    m_welcome->setObjectName(QStringLiteral("sessionsWelcome"));
    m_welcomeText->setObjectName(QStringLiteral("welcomeText"));
    m_welcomeText->setWordWrap(true);
    m_welcomeText->setAlignment(Qt::AlignCenter);
    m_welcomeText->setTextFormat(Qt::RichText);
    m_welcomeAddHost->setObjectName(QStringLiteral("welcomeAddHost"));
    m_welcomeLocal->setObjectName(QStringLiteral("welcomeLocalDocker"));
    m_welcomeSamples->setObjectName(QStringLiteral("welcomeSamples"));
    m_welcomeLaunch->setObjectName(QStringLiteral("welcomeLaunch"));
    {
        auto *column = new QVBoxLayout;
        column->addWidget(m_welcomeText);
        column->addSpacing(12);
        for (QPushButton *b : {m_welcomeLaunch, m_welcomeAddHost, m_welcomeLocal, m_welcomeSamples})
            column->addWidget(b);
        auto *centre = new QHBoxLayout;
        centre->addStretch();
        centre->addLayout(column);
        centre->addStretch();
        auto *outer = new QVBoxLayout(m_welcome);
        outer->addStretch();
        outer->addLayout(centre);
        outer->addStretch(2);
    }
    connect(m_welcomeAddHost, &QPushButton::clicked, this, &SessionsView::addHostRequested);
    connect(m_welcomeLocal, &QPushButton::clicked, this, &SessionsView::localDockerRequested);
    connect(m_welcomeSamples, &QPushButton::clicked, this, &SessionsView::samplesRequested);
    connect(m_welcomeLaunch, &QPushButton::clicked, this, &SessionsView::launchRequested);
    connect(controller, &ConsoleController::hostsChanged, this, &SessionsView::updateWelcome);
    connect(controller, &ConsoleController::sessionsLoaded, this, &SessionsView::updateWelcome);
    connect(controller, &ConsoleController::storeOpened, this, &SessionsView::updateWelcome);
    connect(m_model, &QAbstractItemModel::modelReset, this, &SessionsView::updateWelcome);
    connect(m_model, &QAbstractItemModel::rowsInserted, this, &SessionsView::updateWelcome);
    connect(m_model, &QAbstractItemModel::rowsRemoved, this, &SessionsView::updateWelcome);
    updateWelcome();

    m_logs->setController(controller->sessionController());
    connect(controller, &ConsoleController::storeOpened, this,
            [this] { m_logs->setController(m_controller->sessionController()); });

    m_restart->setObjectName(QStringLiteral("restartSession"));
    m_terminate->setObjectName(QStringLiteral("terminateSession"));
    m_removeFromHistory->setObjectName(QStringLiteral("removeFromHistory"));
    m_showLogs->setObjectName(QStringLiteral("showLogs"));
    m_copyHostnames->setObjectName(QStringLiteral("copyHostnames"));
    m_copyHostnames->setShortcut(QKeySequence::Copy);
    m_copyHostnames->setShortcutContext(Qt::WidgetWithChildrenShortcut);
    m_terminate->setShortcut(QKeySequence::Delete);
    m_terminate->setShortcutContext(Qt::WidgetWithChildrenShortcut);
    m_tree->addAction(m_copyHostnames);
    m_tree->addAction(m_terminate);
    connect(m_restart, &QAction::triggered, this, &SessionsView::restartCurrent);
    connect(m_terminate, &QAction::triggered, this, &SessionsView::terminateCurrent);
    connect(m_removeFromHistory, &QAction::triggered, this,
            &SessionsView::removeCurrentFromHistory);
    connect(m_showLogs, &QAction::triggered, this, &SessionsView::showLogsOfCurrent);
    connect(m_copyHostnames, &QAction::triggered, this, &SessionsView::copyHostnamesOfCurrent);
    m_openTerminal->setObjectName(QStringLiteral("openTerminal"));
    m_runCommand->setObjectName(QStringLiteral("runCommand"));
    connect(m_openTerminal, &QAction::triggered, this, &SessionsView::openTerminalOfCurrent);
    connect(m_runCommand, &QAction::triggered, this, [this] { runCommandOnCurrent(); });
    m_scaleRole->setObjectName(QStringLiteral("scaleRole"));
    connect(m_scaleRole, &QAction::triggered, this, [this] { scaleCurrentRole(); });
    m_dashboard->setObjectName(QStringLiteral("showDashboard"));
    connect(m_dashboard, &QAction::triggered, this, [this] {
        Target t = currentTarget();
        if (!t.isValid())
            return;
        t.kernelId.clear(); // the whole session
        t.hostname.clear();
        t.role.clear();
        Q_EMIT dashboardRequested(t.sessionName, kernelsOf(t));
    });
    connect(m_expandAll, &QAction::triggered, m_tree, &QTreeView::expandAll);
    connect(m_collapseAll, &QAction::triggered, m_tree, &QTreeView::collapseAll);

    connect(m_filter, &QLineEdit::textChanged, this, [this](const QString &text) {
        m_proxy->setFilterText(text);
        if (!text.isEmpty())
            m_tree->expandAll(); // show where the matches are
    });
    connect(m_status, &QComboBox::currentIndexChanged, this, [this] {
        const QVariant chosen = m_status->currentData();
        m_proxy->setStatusFilter(chosen.isValid()
                                     ? QList<SessionStatus>{chosen.value<SessionStatus>()}
                                     : QList<SessionStatus>{});
    });
    connect(m_showFinished, &QCheckBox::toggled, m_proxy,
            &SessionFilterProxyModel::setShowFinished);
    connect(m_tree, &QTreeView::customContextMenuRequested, this, [this](const QPoint &pos) {
        const QModelIndex index = m_tree->indexAt(pos);
        if (!index.isValid())
            return;
        QMenu *menu = contextMenuFor(index);
        menu->setAttribute(Qt::WA_DeleteOnClose);
        menu->popup(m_tree->viewport()->mapToGlobal(pos));
    });
    connect(m_tree, &QTreeView::activated, this, [this](const QModelIndex &index) {
        if (index.column() == Model::PortsColumn)
            return; // the delegate opens the clicked port
        // A kernel row opens a terminal in it (its logs are one right-click away).
        if (index.data(Model::KindRole).toInt() == int(Model::RowKind::Kernel))
            openTerminalOfCurrent();
    });
    connect(m_tree->selectionModel(), &QItemSelectionModel::currentChanged, this, [this] {
        updateActions();
        Q_EMIT currentSessionChanged(currentTarget().sessionId);
    });
    connect(m_portDelegate, &PortLinkDelegate::linkActivated, this, &SessionsView::openUrl);

    // Probe endpoints follow the model, gathered at most a few times a second.
    m_probeTimer->setSingleShot(true);
    m_probeTimer->setInterval(300);
    connect(m_probeTimer, &QTimer::timeout, this, &SessionsView::updateProbeEndpoints);
    auto scheduleProbe = [this] {
        m_probeTimer->start();
    };
    connect(m_model, &QAbstractItemModel::modelReset, this, scheduleProbe);
    connect(m_model, &QAbstractItemModel::rowsInserted, this, scheduleProbe);
    connect(m_model, &QAbstractItemModel::rowsRemoved, this, scheduleProbe);
    connect(m_model, &QAbstractItemModel::dataChanged, this, [this, scheduleProbe] {
        scheduleProbe();
        updateActions();
    });
    connect(m_prober, &PortProber::stateChanged, m_tree->viewport(), qOverload<>(&QWidget::update));
    // Ages tick.
    m_ageTimer->setInterval(30000);
    connect(m_ageTimer, &QTimer::timeout, m_tree->viewport(), qOverload<>(&QWidget::update));
    m_ageTimer->start();

    // Stats streams follow the running kernels while the view is visible.
    connect(m_stats, &KernelStatsFeed::sampled, m_model, &SessionTreeModel::setUsage);
    connect(m_stats, &KernelStatsFeed::ended, m_model, &SessionTreeModel::clearUsage);
    connect(m_stats, &KernelStatsFeed::cleared, m_model, &SessionTreeModel::clearAllUsage);

    m_confirm = [this](const QString &title, const QString &text) {
        return QMessageBox::question(this, title, text, QMessageBox::Yes | QMessageBox::Cancel,
                                     QMessageBox::Cancel) == QMessageBox::Yes;
    };
    m_urlOpener = [](const QString &url) {
        QDesktopServices::openUrl(QUrl(url));
    };
    updateActions();
}

SessionsView::~SessionsView() = default;

SessionsView::Target SessionsView::targetAt(const QModelIndex &proxyIndex) const
{
    Target t;
    if (!proxyIndex.isValid())
        return t;
    const QModelIndex i = proxyIndex.siblingAtColumn(0);
    t.sessionId = i.data(Model::SessionIdRole).toString();
    t.sessionName = i.data(Model::SessionNameRole).toString();
    const auto kind = Model::RowKind(i.data(Model::KindRole).toInt());
    if (kind == Model::RowKind::Kernel) {
        t.kernelId = i.data(Model::KernelIdRole).toString();
        t.hostname = i.data(Model::HostnameRole).toString();
    } else if (kind == Model::RowKind::Role) {
        t.role = i.data(Model::RoleNameRole).toString();
    }
    const QModelIndex session = m_model->sessionIndex(t.sessionId);
    t.kernelCount = session.data(Model::KernelCountRole).toInt();
    if (t.sessionName.isEmpty())
        t.sessionName = shortId(t.sessionId, 8);
    return t;
}

SessionsView::Target SessionsView::currentTarget() const
{
    return targetAt(m_tree->currentIndex());
}

void SessionsView::selectSession(const QString &sessionId)
{
    const QModelIndex index = m_proxy->mapFromSource(m_model->sessionIndex(sessionId));
    if (!index.isValid())
        return;
    m_tree->setCurrentIndex(index);
    m_tree->selectionModel()->select(index, QItemSelectionModel::ClearAndSelect |
                                                QItemSelectionModel::Rows);
    m_tree->scrollTo(index);
}

QString SessionsView::confirmationText(const Target &t, const QString &verb)
{
    const QString count =
        t.kernelCount == 1 ? tr("its 1 kernel") : tr("all %1 kernels").arg(t.kernelCount);
    QString text;
    if (!t.hostname.isEmpty()) {
        text = tr("%1 is a member kernel of session “%2”. Lifecycle operations always act on the "
                  "whole session: this will %3 session “%2” — %4.")
                   .arg(t.hostname, t.sessionName, verb, count);
    } else if (!t.role.isEmpty()) {
        text = tr("Role “%1” belongs to session “%2”. Lifecycle operations always act on the "
                  "whole session: this will %3 session “%2” — %4.")
                   .arg(t.role, t.sessionName, verb, count);
    } else {
        text = tr("This will %1 session “%2” — %3.").arg(verb, t.sessionName, count);
    }
    return text;
}

bool SessionsView::confirm(const QString &title, const QString &text)
{
    return !m_confirm || m_confirm(title, text);
}

void SessionsView::restartCurrent()
{
    const Target t = currentTarget();
    if (!t.isValid())
        return;
    if (!confirm(tr("Restart Session"), confirmationText(t, tr("restart"))))
        return;
    m_controller->restartSession(t.sessionId);
}

void SessionsView::terminateCurrent()
{
    const Target t = currentTarget();
    if (!t.isValid())
        return;
    if (!confirm(tr("Terminate Session"), confirmationText(t, tr("terminate")) + u'\n' +
                                              tr("Its containers and network are removed.")))
        return;
    m_controller->terminateSession(t.sessionId);
}

void SessionsView::removeCurrentFromHistory()
{
    const Target t = currentTarget();
    if (!t.isValid())
        return;
    const auto record = m_model->sessionRecord(t.sessionId);
    if (!record || !isFinal(record->status))
        return; // the action is disabled for sessions that have not ended
    if (!confirm(tr("Remove from History"),
                 tr("Session “%1” (%2) ended. Remove it, its kernels and their history from the "
                    "store? Its events stay in the event log.")
                     .arg(t.sessionName, toString(record->status))))
        return;
    m_controller->removeFromHistory(t.sessionId);
}

DetachedWindow *SessionsView::detachLogs()
{
    if (DetachedWindow *away = DetachedWindow::of(m_logs))
        return away;
    const QList<int> sizes = m_splitter->sizes();
    m_logs->detachButton()->hide();
    auto *window = new DetachedWindow(
        m_logs, tr("Logs — ClusterDeck"), QStringLiteral("logs"),
        [this, sizes](QWidget *content) {
            m_splitter->insertWidget(1, content);
            m_logs->detachButton()->show();
            m_splitter->setSizes(sizes);
        },
        this);
    window->show();
    return window;
}

void SessionsView::showLogsOfCurrent()
{
    const Target t = currentTarget();
    if (!t.isValid())
        return;
    if (!t.hostname.isEmpty())
        m_logs->showLogs(t.sessionId, t.hostname,
                         tr("Logs of %1 (session %2)").arg(t.hostname, t.sessionName));
    else
        m_logs->showLogs(t.sessionId, QString(),
                         tr("Logs of every kernel of session %1").arg(t.sessionName));
}

void SessionsView::copyHostnamesOfCurrent()
{
    const QModelIndex index = m_tree->currentIndex().siblingAtColumn(0);
    if (!index.isValid())
        return;
    const QStringList names = index.data(Model::HostnamesRole).toStringList();
    QApplication::clipboard()->setText(names.join(u'\n'));
}

void SessionsView::showEvent(QShowEvent *event)
{
    QWidget::showEvent(event);
    m_stats->setActive(true);
}

void SessionsView::hideEvent(QHideEvent *event)
{
    QWidget::hideEvent(event);
    m_stats->setActive(false); // not visible, nothing streams
}

void SessionsView::setLocalSocketPath(const QString &path)
{
    m_localSocket = path;
    updateWelcome();
}

QString SessionsView::welcomeText() const
{
    QTextDocument doc;
    doc.setHtml(m_welcomeText->text());
    return doc.toPlainText();
}

void SessionsView::updateWelcome()
{
    // Only a store with no session at all gets the panel; a filter that hides every row does not.
    const bool noSessions = m_controller->hasStore() && m_model->rowCount() == 0;
    const bool noHosts = m_controller->hosts().isEmpty();
    if (!noSessions) {
        m_stack->setCurrentWidget(m_tree);
        return;
    }
    const bool localDaemon = QFileInfo::exists(m_localSocket);
    if (noHosts) {
        m_welcomeText->setText(
            tr("<h2>Welcome to ClusterDeck</h2><p>No Docker host is registered yet. Sessions run "
               "on Docker hosts: add one (a local socket, <tt>tcp://</tt> with TLS, or one of "
               "your docker contexts)%1, then launch a session from a template.</p>")
                .arg(localDaemon ? tr(", or use the Docker daemon of this machine") : QString()));
    } else {
        m_welcomeText->setText(
            tr("<h2>No sessions yet</h2><p>%1 registered. Launch a session from one of the "
               "sample templates, or write your own in the Templates view.</p>")
                .arg(m_controller->hosts().size() == 1
                         ? tr("One host is")
                         : tr("%1 hosts are").arg(m_controller->hosts().size())));
    }
    m_welcomeAddHost->setVisible(noHosts);
    m_welcomeLocal->setVisible(noHosts && localDaemon);
    m_welcomeLaunch->setVisible(!noHosts);
    m_welcomeSamples->setVisible(true);
    m_stack->setCurrentWidget(m_welcome);
}

StatsMonitor *SessionsView::statsMonitor() const
{
    return m_stats->monitor();
}

void SessionsView::syncStatsStreams()
{
    m_stats->sync();
}

QList<KernelRecord> SessionsView::kernelsOf(const Target &t) const
{
    QList<KernelRecord> out;
    if (!t.kernelId.isEmpty()) {
        if (auto k = m_model->kernelRecord(t.kernelId))
            out.append(*k);
        return out;
    }
    const QModelIndex session = m_model->sessionIndex(t.sessionId);
    for (int r = 0; r < m_model->rowCount(session); ++r) {
        const QModelIndex role = m_model->index(r, 0, session);
        if (!t.role.isEmpty() && role.data(Model::RoleNameRole).toString() != t.role)
            continue;
        for (int k = 0; k < m_model->rowCount(role); ++k) {
            const QString id = m_model->index(k, 0, role).data(Model::KernelIdRole).toString();
            if (auto rec = m_model->kernelRecord(id))
                out.append(*rec);
        }
    }
    std::sort(out.begin(), out.end(), [](const KernelRecord &a, const KernelRecord &b) {
        return a.localRank < b.localRank;
    });
    return out;
}

void SessionsView::openTerminalOfCurrent()
{
    const Target t = currentTarget();
    if (!t.isValid())
        return;
    std::optional<KernelRecord> kernel;
    for (const KernelRecord &k : kernelsOf(t)) {
        if (!t.kernelId.isEmpty() || k.primary || (!t.role.isEmpty() && !kernel))
            kernel = k;
        if (kernel && (kernel->primary || !t.kernelId.isEmpty()))
            break;
    }
    if (!kernel)
        return;
    Q_EMIT terminalRequested(t.sessionName + u'/' + kernel->hostname, kernel->host,
                             kernel->containerId.isEmpty() ? kernel->containerName
                                                           : kernel->containerId);
}

RunCommandDialog *SessionsView::runCommandOnCurrent()
{
    const Target t = currentTarget();
    if (!t.isValid())
        return nullptr;
    const QList<KernelRecord> kernels = kernelsOf(t);
    if (kernels.isEmpty())
        return nullptr;
    QString title = t.sessionName;
    if (!t.role.isEmpty())
        title += u'/' + t.role;
    else if (!t.hostname.isEmpty())
        title += u'/' + t.hostname;
    auto *dialog = new RunCommandDialog(m_controller->registry(), title, kernels, this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    dialog->show();
    return dialog;
}

ScaleRoleDialog *SessionsView::scaleCurrentRole()
{
    const Target t = currentTarget();
    if (!t.isValid() || t.role.isEmpty())
        return nullptr;
    const auto record = m_model->sessionRecord(t.sessionId);
    if (!record || !m_controller->store())
        return nullptr;
    auto spec = SessionSpec::fromRecord(*record, *m_controller->store());
    if (!spec)
        return nullptr;
    const auto rc = std::find_if(spec->plan.roles.cbegin(), spec->plan.roles.cend(),
                                 [&](const RoleCount &r) { return r.role == t.role; });
    if (rc == spec->plan.roles.cend())
        return nullptr;
    const int current = int(kernelsOf(t).size());
    // Sessions launched before `scale` have no bounds in their spec: the controller says so.
    const int min = rc->min >= 0 ? rc->min : current;
    const int max = rc->max >= 0 ? rc->max : current;
    const QString sessionId = t.sessionId;
    const QString role = t.role;
    auto *dialog = new ScaleRoleDialog(
        t.sessionName, role, current, min, max,
        [this, sessionId, role](int count, std::function<void(bool, const QString &)> done) {
            m_controller->previewScale(sessionId, role, count, std::move(done));
        },
        this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    connect(dialog, &QDialog::accepted, this, [this, dialog, sessionId, role] {
        m_controller->scaleRole(sessionId, role, dialog->count());
    });
    dialog->show();
    return dialog;
}

QMenu *SessionsView::contextMenuFor(const QModelIndex &proxyIndex)
{
    m_tree->setCurrentIndex(proxyIndex);
    const Target t = targetAt(proxyIndex);
    auto *menu = new QMenu(this);
    menu->setObjectName(QStringLiteral("sessionContextMenu"));
    if (!t.hostname.isEmpty()) {
        QAction *header =
            menu->addSection(tr("%1 — acts on session %2").arg(t.hostname, t.sessionName));
        header->setObjectName(QStringLiteral("memberHeader"));
    }
    menu->addAction(m_restart);
    menu->addAction(m_terminate);
    // Only an ended session can be forgotten (a running one would leave its containers to the
    // reconciler as orphans).
    const auto record = m_model->sessionRecord(t.sessionId);
    m_removeFromHistory->setEnabled(record && isFinal(record->status));
    menu->addAction(m_removeFromHistory);
    menu->addSeparator();
    QAction *logs = menu->addAction(t.hostname.isEmpty() ? tr("Show Logs of the Session")
                                                         : tr("Show Logs of %1").arg(t.hostname));
    connect(logs, &QAction::triggered, this, &SessionsView::showLogsOfCurrent);
    if (!t.hostname.isEmpty()) {
        QAction *sessionLogs = menu->addAction(tr("Show Logs of the Whole Session"));
        const QString id = t.sessionId;
        const QString name = t.sessionName;
        connect(sessionLogs, &QAction::triggered, this, [this, id, name] {
            m_logs->showLogs(id, QString(), tr("Logs of every kernel of session %1").arg(name));
        });
    }
    menu->addAction(m_copyHostnames);
    menu->addSeparator();
    m_openTerminal->setText(t.hostname.isEmpty() ? tr("Open &Terminal (primary kernel)")
                                                 : tr("Open &Terminal in %1").arg(t.hostname));
    menu->addAction(m_openTerminal);
    menu->addAction(m_runCommand);
    menu->addAction(m_dashboard);
    if (!t.role.isEmpty())
        menu->addAction(m_scaleRole);

    const QVariantList ports = proxyIndex.siblingAtColumn(0).data(Model::PortsRole).toList();
    if (!ports.isEmpty()) {
        QMenu *open = menu->addMenu(tr("Open Port"));
        open->setObjectName(QStringLiteral("openPortMenu"));
        QMenu *copy = menu->addMenu(tr("Copy URL"));
        copy->setObjectName(QStringLiteral("copyUrlMenu"));
        for (const QVariant &v : ports) {
            const QVariantMap p = v.toMap();
            const QString url = p.value(QStringLiteral("url")).toString();
            const QString label =
                p.value(QStringLiteral("name")).toString() + QStringLiteral(" — ") + url;
            QAction *openIt = open->addAction(label);
            openIt->setEnabled(isOpenableUrl(url));
            connect(openIt, &QAction::triggered, this, [this, url] { openUrl(url); });
            connect(copy->addAction(label), &QAction::triggered, this,
                    [url] { QApplication::clipboard()->setText(url); });
        }
    }
    menu->addSeparator();
    menu->addAction(m_expandAll);
    menu->addAction(m_collapseAll);
    return menu;
}

bool SessionsView::isOpenableUrl(const QString &url)
{
    const QUrl u(url, QUrl::StrictMode);
    if (!u.isValid() || u.isRelative() || u.host().isEmpty())
        return false;
    const QString scheme = u.scheme().toLower();
    return scheme == QLatin1String("http") || scheme == QLatin1String("https");
}

void SessionsView::openUrl(const QString &url)
{
    if (!isOpenableUrl(url)) {
        qCWarning(lcSessionsView).noquote()
            << "not opening" << url << ": only http and https links are opened";
        return;
    }
    Q_EMIT openUrlRequested(url);
    if (m_urlOpener)
        m_urlOpener(url);
}

void SessionsView::updateActions()
{
    const Target t = currentTarget();
    const bool has = t.isValid() && m_controller->hasStore();
    m_restart->setEnabled(has);
    m_terminate->setEnabled(has);
    m_showLogs->setEnabled(t.isValid());
    m_copyHostnames->setEnabled(t.isValid());
    m_openTerminal->setEnabled(has);
    m_runCommand->setEnabled(has);
    m_dashboard->setEnabled(has);
    const auto record = t.isValid() ? m_model->sessionRecord(t.sessionId) : std::nullopt;
    m_scaleRole->setEnabled(
        has && !t.role.isEmpty() && record &&
        (record->status == SessionStatus::Running || record->status == SessionStatus::Degraded));
    const QString suffix = t.hostname.isEmpty() ? QString() : tr(" (whole session)");
    m_restart->setText(tr("&Restart Session…") + suffix);
    m_terminate->setText(tr("&Terminate Session…") + suffix);
}

void SessionsView::updateProbeEndpoints()
{
    QSet<QString> endpoints;
    for (int s = 0; s < m_model->rowCount(); ++s) {
        const QModelIndex session = m_model->index(s, 0);
        for (int r = 0; r < m_model->rowCount(session); ++r) {
            const QModelIndex role = m_model->index(r, 0, session);
            for (int k = 0; k < m_model->rowCount(role); ++k) {
                const QModelIndex kernel = m_model->index(k, 0, role);
                if (kernel.data(Model::KernelStatusRole).value<KernelStatus>() !=
                    KernelStatus::Running)
                    continue;
                for (const QVariant &v : kernel.data(Model::PortsRole).toList()) {
                    const QVariantMap p = v.toMap();
                    endpoints.insert(
                        PortProber::endpointKey(p.value(QStringLiteral("address")).toString(),
                                                p.value(QStringLiteral("port")).toInt()));
                }
            }
        }
    }
    m_prober->setEndpoints(endpoints);
}

QByteArray SessionsView::saveState() const
{
    QByteArray state;
    QDataStream out(&state, QIODevice::WriteOnly);
    out << quint32(1) << m_tree->header()->saveState() << m_splitter->saveState()
        << m_showFinished->isChecked();
    return state;
}

void SessionsView::restoreState(const QByteArray &state)
{
    QDataStream in(state);
    quint32 version = 0;
    QByteArray header;
    QByteArray splitter;
    bool showFinished = false;
    in >> version >> header >> splitter >> showFinished;
    if (version != 1 || in.status() != QDataStream::Ok)
        return;
    m_tree->header()->restoreState(header);
    m_splitter->restoreState(splitter);
    m_showFinished->setChecked(showFinished);
}

} // namespace ClusterDeck::Ui
