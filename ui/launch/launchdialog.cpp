#include "launchdialog.h"

#include "common/bytesize.h"
#include "common/datapaths.h"
#include "console/consolecontroller.h"
#include "host/hostregistry.h"
#include "network/networksettings.h"
#include "placement/placement.h"
#include "plan/launchvalues.h"
#include "plan/planvalidator.h"
#include "plan/presets.h"
#include "plan/sshkeypair.h"
#include "provision/hostcapacities.h"
#include "provision/provisioner.h"
#include "store/statestore.h"
#include "template/templateloader.h"
#include "template/templatevalues.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QDir>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QLoggingCategory>
#include <QPlainTextEdit>
#include <QPointer>
#include <QProgressBar>
#include <QPushButton>
#include <QSpinBox>
#include <QSplitter>
#include <QTableWidget>
#include <QTextDocument>
#include <QToolButton>
#include <QTreeWidget>
#include <QVBoxLayout>

Q_LOGGING_CATEGORY(lcLaunchDialog, "clusterdeck.ui.launch")

namespace ClusterDeck::Ui {

namespace {

// The progress list's status column shows the text; its UserRole holds the KernelStatus counted.
constexpr int kStatusColumn = 2;

void showStatus(QTreeWidgetItem *item, KernelStatus status)
{
    item->setText(kStatusColumn, toString(status));
    item->setData(kStatusColumn, Qt::UserRole, QVariant::fromValue(status));
}

QWidget *tableWithButtons(QTableWidget *table, const QString &what)
{
    auto *box = new QWidget;
    // "+" and "−" say nothing to a screen reader: the tooltips are the names.
    auto *add = new QToolButton;
    add->setText(QStringLiteral("+"));
    add->setToolTip(QObject::tr("Add %1").arg(what));
    add->setAccessibleName(add->toolTip());
    auto *remove = new QToolButton;
    remove->setText(QStringLiteral("−"));
    remove->setToolTip(QObject::tr("Remove the selected %1").arg(what));
    remove->setAccessibleName(remove->toolTip());
    QObject::connect(add, &QToolButton::clicked, table, [table] {
        table->insertRow(table->rowCount());
        table->setCurrentCell(table->rowCount() - 1, 0);
        table->editItem(table->currentItem());
    });
    QObject::connect(remove, &QToolButton::clicked, table, [table] {
        if (table->currentRow() >= 0)
            table->removeRow(table->currentRow());
    });
    auto *buttons = new QVBoxLayout;
    buttons->addWidget(add);
    buttons->addWidget(remove);
    buttons->addStretch();
    auto *layout = new QHBoxLayout(box);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(table);
    layout->addLayout(buttons);
    table->horizontalHeader()->setStretchLastSection(true);
    table->verticalHeader()->hide();
    table->setMinimumHeight(80);
    return box;
}

QString cell(const QTableWidget *t, int row, int column)
{
    const QTableWidgetItem *item = t->item(row, column);
    return item ? item->text().trimmed() : QString();
}

} // namespace

LaunchDialog::LaunchDialog(ConsoleController *controller, QWidget *parent)
    : QDialog(parent)
    , m_controller(controller)
    , m_template(new QComboBox)
    , m_description(new QLabel)
    , m_hostPaths(new QLabel)
    , m_rolesForm(nullptr)
    , m_rolesBox(new QWidget)
    , m_name(new QLineEdit)
    , m_mode(new QComboBox)
    , m_env(new QTableWidget(0, 2))
    , m_mounts(new QTableWidget(0, 1))
    , m_preview(new QTreeWidget)
    , m_previewStatus(new QLabel)
    , m_progress(new QTreeWidget)
    , m_bar(new QProgressBar)
    , m_pullBox(new QWidget)
    , m_pullForm(new QFormLayout(m_pullBox))
    , m_pullTotal(new QProgressBar)
    , m_error(new QPlainTextEdit)
    , m_launch(new QPushButton(tr("&Launch")))
    , m_cancel(new QPushButton(tr("Cancel Launch")))
    , m_close(new QPushButton(tr("Close")))
{
    setWindowTitle(tr("Launch Cluster Session"));
    setObjectName(QStringLiteral("launchDialog"));
    m_template->setObjectName(QStringLiteral("templateCombo"));
    m_name->setObjectName(QStringLiteral("sessionName"));
    m_name->setPlaceholderText(tr("<template>-<short id>"));
    m_mode->setObjectName(QStringLiteral("modeCombo"));
    m_mode->addItem(tr("Template's mode"), QString());
    m_mode->addItem(tr("auto"), QStringLiteral("auto"));
    m_mode->addItem(tr("single-node"), QStringLiteral("single-node"));
    m_mode->addItem(tr("multi-node"), QStringLiteral("multi-node"));
    m_description->setWordWrap(true);
    m_hostPaths->setObjectName(QStringLiteral("hostPathsWarning"));
    m_hostPaths->setWordWrap(true);
    m_hostPaths->hide();
    m_env->setObjectName(QStringLiteral("envTable"));
    // Item views take no name from a label: theirs is set.
    m_env->setAccessibleName(tr("Environment overrides"));
    m_env->setAccessibleDescription(tr("Variables set in every kernel, over the template's"));
    m_env->setHorizontalHeaderLabels({tr("Variable"), tr("Value")});
    m_mounts->setObjectName(QStringLiteral("mountsTable"));
    m_mounts->setAccessibleName(tr("Mount overrides"));
    m_mounts->setAccessibleDescription(tr("SOURCE:TARGET[:ro], mounted in every kernel"));
    m_mounts->setHorizontalHeaderLabels({tr("Mount (SOURCE:TARGET[:ro])")});
    m_preview->setObjectName(QStringLiteral("placementPreview"));
    m_preview->setAccessibleName(tr("Placement preview"));
    m_preview->setHeaderLabels({tr("Kernel"), tr("Role"), tr("Host")});
    m_preview->setRootIsDecorated(false);
    m_previewStatus->setWordWrap(true);
    m_previewStatus->setObjectName(QStringLiteral("previewStatus"));
    m_previewStatus->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_progress->setObjectName(QStringLiteral("launchProgress"));
    m_progress->setAccessibleName(tr("Launch progress"));
    m_progress->setHeaderLabels({tr("Kernel"), tr("Host"), tr("Status")});
    m_progress->setRootIsDecorated(false);
    m_error->setObjectName(QStringLiteral("launchError"));
    m_error->setAccessibleName(tr("Launch error"));
    m_error->setReadOnly(true);
    m_error->setMaximumHeight(90);
    m_error->hide();
    m_launch->setObjectName(QStringLiteral("launchButton"));
    m_launch->setDefault(true);
    m_cancel->setObjectName(QStringLiteral("cancelLaunch"));
    m_cancel->setEnabled(false);

    auto *browse = new QToolButton;
    browse->setText(QStringLiteral("…"));
    browse->setToolTip(tr("Open a template file"));
    browse->setAccessibleName(browse->toolTip()); // "…" is no name
    connect(browse, &QToolButton::clicked, this, [this] {
        const QString file = QFileDialog::getOpenFileName(this, tr("Cluster Template"), {},
                                                          tr("Templates (*.yaml *.yml)"));
        if (!file.isEmpty()) {
            addTemplateFile(file);
            selectTemplate(file);
        }
    });
    auto *templateRow = new QHBoxLayout;
    templateRow->addWidget(m_template, 1);
    templateRow->addWidget(browse);

    auto *form = new QFormLayout;
    // A row whose field is a layout gets no buddy from QFormLayout.
    auto *templateLabel = new QLabel(tr("&Template:"));
    templateLabel->setBuddy(m_template);
    form->addRow(templateLabel, templateRow);
    form->addRow(QString(), m_description);
    form->addRow(QString(), m_hostPaths);
    form->addRow(tr("&Name:"), m_name);
    form->addRow(tr("&Mode:"), m_mode);

    auto *rolesGroup = new QGroupBox(tr("Kernels per role"));
    auto *rolesLayout = new QVBoxLayout(rolesGroup);
    rolesLayout->addWidget(m_rolesBox);
    m_rolesForm = new QFormLayout(m_rolesBox);
    m_rolesForm->setContentsMargins(0, 0, 0, 0);

    auto *overrides = new QGroupBox(tr("Overrides (apply to every kernel)"));
    auto *overridesLayout = new QHBoxLayout(overrides);
    overridesLayout->addWidget(tableWithButtons(m_env, tr("variable")), 3);
    overridesLayout->addWidget(tableWithButtons(m_mounts, tr("mount")), 2);

    auto *left = new QWidget;
    auto *leftLayout = new QVBoxLayout(left);
    leftLayout->setContentsMargins(0, 0, 0, 0);
    leftLayout->addLayout(form);
    leftLayout->addWidget(rolesGroup);
    leftLayout->addWidget(overrides, 1);

    auto *previewGroup = new QGroupBox(tr("Placement preview"));
    auto *previewLayout = new QVBoxLayout(previewGroup);
    previewLayout->addWidget(m_previewStatus);
    previewLayout->addWidget(m_preview);
    auto *progressGroup = new QGroupBox(tr("Progress"));
    auto *progressLayout = new QVBoxLayout(progressGroup);
    progressLayout->addWidget(m_bar);
    // Shown once a host starts pulling an image it lacks.
    m_pullForm->setContentsMargins(0, 0, 0, 0);
    m_pullTotal->setRange(0, 1000);
    m_pullTotal->setFormat(tr("pulling images: %p%"));
    m_pullForm->addRow(tr("All hosts:"), m_pullTotal);
    m_pullBox->hide();
    progressLayout->addWidget(m_pullBox);
    progressLayout->addWidget(m_progress);
    auto *right = new QSplitter(Qt::Vertical);
    right->addWidget(previewGroup);
    right->addWidget(progressGroup);

    auto *split = new QSplitter;
    split->addWidget(left);
    split->addWidget(right);
    split->setStretchFactor(0, 1);
    split->setStretchFactor(1, 1);

    auto *buttons = new QDialogButtonBox;
    buttons->addButton(m_launch, QDialogButtonBox::AcceptRole);
    buttons->addButton(m_cancel, QDialogButtonBox::ActionRole);
    buttons->addButton(m_close, QDialogButtonBox::RejectRole);
    auto *layout = new QVBoxLayout(this);
    layout->addWidget(split, 1);
    layout->addWidget(m_error);
    layout->addWidget(buttons);
    resize(980, 640);

    connect(m_launch, &QPushButton::clicked, this, &LaunchDialog::launch);
    connect(m_cancel, &QPushButton::clicked, this, &LaunchDialog::cancelLaunch);
    connect(m_close, &QPushButton::clicked, this, &LaunchDialog::reject);
    connect(m_template, &QComboBox::currentIndexChanged, this, &LaunchDialog::loadTemplate);
    connect(m_mode, &QComboBox::currentIndexChanged, this, &LaunchDialog::updatePreview);
    connect(m_name, &QLineEdit::textChanged, this, &LaunchDialog::updatePreview);
    connect(m_env, &QTableWidget::itemChanged, this, &LaunchDialog::updatePreview);
    connect(m_mounts, &QTableWidget::itemChanged, this, &LaunchDialog::updatePreview);
    connect(controller, &ConsoleController::hostStatusesChanged, this,
            &LaunchDialog::updatePreview);

    QStringList dirs = sampleTemplateDirectories();
    dirs << userTemplateDirectory();
    for (const QString &dir : std::as_const(dirs)) {
        const QFileInfoList files = QDir(dir).entryInfoList(
            {QStringLiteral("*.yaml"), QStringLiteral("*.yml")}, QDir::Files, QDir::Name);
        for (const QFileInfo &f : files)
            addTemplateFile(f.absoluteFilePath());
    }
    if (m_template->count() > 0)
        loadTemplate(m_template->currentIndex());

    // The store's multi-node network driver decides what a multi-node preview needs (a swarm
    // or nothing): read off the UI thread, the preview redone when it arrives.
    if (StateStore *store = m_controller->store()) {
        QPointer<LaunchDialog> self(this);
        m_controller->runInBackground([store] { return NetworkSettings::driver(*store); },
                                      [self](const Result<NetworkDriver> &driver) {
                                          if (!self || !driver)
                                              return;
                                          self->m_networkDriver = *driver;
                                          self->updatePreview();
                                      });
    }
}

LaunchDialog::~LaunchDialog()
{
    m_cancelToken.cancel();
}

void LaunchDialog::addTemplateFile(const QString &path)
{
    const QString absolute = QFileInfo(path).absoluteFilePath();
    if (m_template->findData(absolute) >= 0)
        return;
    const QString label = QFileInfo(path).completeBaseName() + QStringLiteral("  —  ") +
                          QDir::toNativeSeparators(QFileInfo(path).absolutePath());
    m_template->addItem(label, absolute);
}

bool LaunchDialog::selectTemplate(const QString &pathOrName)
{
    for (int i = 0; i < m_template->count(); ++i) {
        const QString path = m_template->itemData(i).toString();
        if (path == QFileInfo(pathOrName).absoluteFilePath() ||
            QFileInfo(path).completeBaseName() == pathOrName) {
            m_template->setCurrentIndex(i);
            if (!m_loaded || templatePath() != path)
                loadTemplate(i);
            return true;
        }
    }
    return false;
}

QString LaunchDialog::templatePath() const
{
    return m_template->currentData().toString();
}

const ClusterTemplate *LaunchDialog::currentTemplate() const
{
    return m_loaded ? &*m_loaded : nullptr;
}

void LaunchDialog::loadTemplate(int index)
{
    m_loaded.reset();
    m_loadError.clear();
    const QString path = m_template->itemData(index).toString();
    // Local files only: small, and read before anything talks to a daemon.
    QFile file(path);
    if (file.open(QIODevice::ReadOnly))
        m_loadedSource = QString::fromUtf8(file.readAll());
    TemplateLoader loader;
    auto loaded = loader.loadClusterFile(path);
    if (loaded) {
        m_loaded = *loaded;
        m_description->setText(m_loaded->description);
    } else {
        m_loadError = loaded.error().toString();
        m_description->setText(QStringLiteral("<span style='color:#cc3333'>%1</span>")
                                   .arg(m_loadError.toHtmlEscaped()));
    }
    rebuildRoles();
    requestImageDefaults();
    updatePreview();
}

void LaunchDialog::rebuildRoles()
{
    while (m_rolesForm->rowCount() > 0)
        m_rolesForm->removeRow(0);
    m_counts.clear();
    if (!m_loaded)
        return;
    for (const RoleTemplate &role : std::as_const(m_loaded->roles)) {
        auto *box = new QSpinBox;
        box->setObjectName(QStringLiteral("count_") + role.name);
        box->setRange(role.min, role.max);
        box->setValue(role.count);
        box->setSuffix(role.min == role.max ? tr("  (fixed)")
                                            : tr("  (%1–%2)").arg(role.min).arg(role.max));
        box->setEnabled(role.min != role.max);
        connect(box, &QSpinBox::valueChanged, this, &LaunchDialog::updatePreview);
        m_counts.insert(role.name, box);
        m_rolesForm->addRow(role.name + u':', box);
    }
}

Result<LaunchOptions> LaunchDialog::launchOptions() const
{
    if (!m_loaded)
        return fail(Error::Kind::Invalid, templatePath(),
                    m_loadError.isEmpty() ? tr("no template") : m_loadError);
    LaunchOptions opts;
    opts.name = m_name->text().trimmed();
    for (auto it = m_counts.cbegin(); it != m_counts.cend(); ++it)
        opts.counts.insert(it.key(), it.value()->value());
    for (int r = 0; r < m_env->rowCount(); ++r) {
        const QString key = cell(m_env, r, 0);
        if (key.isEmpty())
            continue;
        // The same reading as `launch --env K=V` (plan/launchvalues.h).
        const auto kv = LaunchValues::parseEnv(key + u'=' + cell(m_env, r, 1));
        if (!kv)
            return fail(Error::Kind::Invalid, tr("environment row %1").arg(r + 1),
                        kv.error().message);
        opts.env.insert(kv->first, kv->second);
    }
    for (int r = 0; r < m_mounts->rowCount(); ++r) {
        const QString spec = cell(m_mounts, r, 0);
        if (spec.isEmpty())
            continue;
        const auto mount = LaunchValues::parseMount(spec);
        if (!mount)
            return fail(Error::Kind::Invalid, tr("mount %1").arg(r + 1), mount.error().message);
        opts.mounts.append(*mount);
    }
    if (const QString mode = m_mode->currentData().toString(); !mode.isEmpty())
        opts.mode = parseMode(mode);
    return opts;
}

QList<HostCapacity> LaunchDialog::capacities() const
{
    if (m_hostsOverride)
        return *m_hostsOverride;
    // The workers' swarm ids are not known from statuses alone; the managers' are enough to
    // tell whether hosts share a swarm for the preview.
    QHash<QString, QString> clusterOfNode;
    for (const HostStatus &s : m_controller->hostStatuses())
        if (!s.swarmNodeId.isEmpty() && !s.swarmClusterId.isEmpty())
            clusterOfNode.insert(s.swarmNodeId, s.swarmClusterId);
    QList<HostCapacity> hosts =
        HostCapacities::fromStatuses(m_controller->hostStatuses(), clusterOfNode);
    // A worker's cluster id is unknown here: assume one swarm when a manager has one.
    QString cluster;
    for (const HostCapacity &h : std::as_const(hosts))
        if (!h.swarmClusterId.isEmpty())
            cluster = h.swarmClusterId;
    for (HostCapacity &h : hosts)
        if (h.swarmActive && h.swarmClusterId.isEmpty())
            h.swarmClusterId = cluster;
    return hosts;
}

void LaunchDialog::setHostCapacities(const QList<HostCapacity> &hosts)
{
    m_hostsOverride = hosts;
    updatePreview();
}

void LaunchDialog::setNetworkDriver(NetworkDriver driver)
{
    m_networkDriver = driver;
    updatePreview();
}

Result<LaunchPlan> LaunchDialog::previewLaunchPlan() const
{
    if (!m_loaded)
        return fail(Error::Kind::Invalid, QString(), tr("No template is loaded."));
    auto opts = launchOptions();
    if (!opts)
        return std::unexpected(opts.error());
    if (Presets::needsSshKeyPair(m_loaded->presets))
        opts->sshKeyPair = SshKeyPair::fromEd25519(QByteArray(32, '\0'), QByteArray(32, '\0'),
                                                   QStringLiteral("preview"));
    return LaunchPlanner::plan(*m_loaded, *opts, capacities(), m_imageDefaults,
                               PlacementStrategy::Spread, m_networkDriver);
}

Result<ClusterPlan> LaunchDialog::previewPlan() const
{
    auto planned = previewLaunchPlan();
    if (!planned)
        return std::unexpected(planned.error());
    return std::move(planned->plan);
}

Result<Placement> LaunchDialog::previewPlacement() const
{
    auto planned = previewLaunchPlan();
    if (!planned)
        return std::unexpected(planned.error());
    return std::move(planned->placement);
}

void LaunchDialog::setImageDefaults(const ImageDefaultsMap &images)
{
    m_imageDefaultsOverride = true;
    ++m_imageDefaultsRequest; // a request under way no longer counts
    m_imageDefaults = images;
    updatePreview();
}

void LaunchDialog::requestImageDefaults()
{
    const quint64 request = ++m_imageDefaultsRequest;
    if (m_imageDefaultsOverride)
        return;
    m_imageDefaults.clear();
    StateStore *store = m_controller->store();
    HostRegistry *registry = m_controller->registry();
    if (!m_loaded || !store || !registry)
        return;
    QStringList reachable;
    for (const HostCapacity &h : capacities())
        if (h.reachable)
            reachable.append(h.name);
    // Image inspects and registry lookups (up to 10 s each): never on the UI thread.
    QPointer<LaunchDialog> self(this);
    m_controller->runInBackground(
        [store, registry, t = *m_loaded, reachable] {
            return Provisioner(store, registry).imageDefaultsFor(t, reachable);
        },
        [self, request](const ImageDefaultsMap &images) {
            if (!self || request != self->m_imageDefaultsRequest)
                return;
            self->m_imageDefaults = images;
            self->updatePreview();
        });
}

void LaunchDialog::updateHostPaths(const ClusterPlan *plan)
{
    const QStringList paths = plan ? PlanValidator::hostPaths(*plan) : QStringList();
    m_hostPaths->setVisible(!paths.isEmpty());
    m_hostPaths->setText(
        QStringLiteral("<span style='color:#b36b00'>%1</span>")
            .arg(tr("This template allows host paths: its kernels mount %1 of every host they "
                    "run on, and can read (rw: also change) what is there.")
                     .arg(paths.join(QStringLiteral(", ")))
                     .toHtmlEscaped()));
}

QString LaunchDialog::previewStatusText() const
{
    QTextDocument doc;
    doc.setHtml(m_previewStatus->text());
    return doc.toPlainText();
}

void LaunchDialog::updatePreview()
{
    if (m_launching)
        return;
    m_preview->clear();
    // Planned once per update: the host paths and the placement come from the same plan.
    const auto planned = previewLaunchPlan();
    updateHostPaths(planned ? &planned->plan : nullptr);
    auto refuse = [this](const QString &why) {
        m_previewStatus->setText(
            QStringLiteral("<span style='color:#cc3333'>%1</span>").arg(why.toHtmlEscaped()));
        m_launch->setEnabled(false);
    };
    // What keeps a launch from starting is said in the console's terms: its actions, not the
    // CLI's commands.
    const QList<HostCapacity> hosts = capacities();
    if (m_hostsOverride ? hosts.isEmpty() : m_controller->hosts().isEmpty())
        return refuse(tr("No host registered yet: add one in the Hosts view (Add Host…), or "
                         "register this machine's Docker daemon there."));
    if (!hosts.isEmpty() && std::none_of(hosts.cbegin(), hosts.cend(),
                                         [](const HostCapacity &h) { return h.reachable; }))
        return refuse(hosts.size() == 1
                          ? tr("The registered host does not answer: see the Hosts view.")
                          : tr("None of the %1 registered hosts answers: see the Hosts view.")
                                .arg(hosts.size()));
    const Result<Placement> placement =
        planned ? planned->placement : Result<Placement>(std::unexpected(planned.error()));
    if (!placement) {
        const auto opts = launchOptions();
        const ClusterMode mode = opts && opts->mode ? *opts->mode
                                 : m_loaded         ? m_loaded->mode
                                                    : ClusterMode::Auto;
        if (mode != ClusterMode::SingleNode && hosts.size() > 1 &&
            m_networkDriver == NetworkDriver::Swarm && multiNodeSwarm(hosts).isEmpty())
            return refuse(
                mode == ClusterMode::MultiNode
                    ? tr("Multi-node needs the hosts in one swarm: use “Set Up Multi-Host "
                         "Networking” in the Hosts view, or choose single-node.")
                    : tr("The session fits on no single host, and spreading it over "
                         "several needs them in one swarm: use “Set Up Multi-Host "
                         "Networking” in the Hosts view."));
        return refuse(placement.error().toString());
    }
    QStringList unused;
    for (auto it = placement->unused.cbegin(); it != placement->unused.cend(); ++it)
        unused.append(QStringLiteral("%1: %2").arg(it.key(), it.value()));
    m_previewStatus->setText(tr("Fits: %1 on %2")
                                 .arg(modeName(placement->mode),
                                      placement->hostsUsed.join(QStringLiteral(", "))) +
                             (unused.isEmpty()
                                  ? QString()
                                  : tr(". Not used: %1").arg(unused.join(QStringLiteral("; ")))));
    m_launch->setEnabled(true);
    // hostOf is keyed by hostname; show kernels in template order.
    const ClusterTemplate &t = *m_loaded;
    for (const RoleTemplate &role : t.roles) {
        const int count =
            m_counts.contains(role.name) ? m_counts.value(role.name)->value() : role.count;
        for (int i = 1; i <= count; ++i) {
            const QString hostname = role.name + QString::number(i);
            auto *item = new QTreeWidgetItem(
                m_preview, {hostname, role.name, placement->hostOf.value(hostname)});
            item->setData(0, Qt::UserRole, hostname);
        }
    }
}

void LaunchDialog::launch()
{
    if (m_launching || !m_loaded)
        return;
    auto opts = launchOptions();
    if (!opts) {
        m_error->setPlainText(opts.error().toString());
        m_error->show();
        return;
    }
    if (!m_controller->store()) {
        m_error->setPlainText(tr("No store is open."));
        m_error->show();
        return;
    }
    m_launching = true;
    m_cancelToken = CancelToken();
    m_error->hide();
    m_launch->setEnabled(false);
    m_cancel->setEnabled(true);
    m_progress->clear();
    int total = 0;
    for (int i = 0; i < m_preview->topLevelItemCount(); ++i) {
        const QTreeWidgetItem *p = m_preview->topLevelItem(i);
        showStatus(new QTreeWidgetItem(m_progress, {p->text(0), p->text(2)}),
                   KernelStatus::Pending);
        ++total;
    }
    m_bar->setRange(0, std::max(total, 1));
    m_bar->setValue(0);
    for (QProgressBar *b : std::as_const(m_pullBars)) {
        m_pullForm->removeRow(b);
    }
    m_pullBars.clear();
    m_pullFractions.clear();
    m_pullTotal->setValue(0);
    m_pullBox->hide();

    LaunchRequest request;
    request.clusterTemplate = *m_loaded;
    request.templateSource = m_loadedSource;
    request.options = *opts;
    request.strategy = PlacementStrategy::Spread;
    request.actor = m_controller->actor() + QStringLiteral(" (console)");
    StateStore *store = m_controller->store();
    HostRegistry *registry = m_controller->registry();
    const CancelToken cancel = m_cancelToken;
    QPointer<LaunchDialog> self(this);
    m_controller->runInBackground(
        [store, registry, request, cancel, self]() -> Result<SessionRecord> {
            Provisioner provisioner(store, registry);
            provisioner.setActor(request.actor);
            provisioner.setProgressCallback([self](const KernelRecord &k) {
                QMetaObject::invokeMethod(
                    self.data(),
                    [self, k] {
                        if (!self)
                            return;
                        self->m_sessionId = k.sessionId;
                        self->setKernelStatus(k.hostname, k.status);
                    },
                    Qt::QueuedConnection);
            });
            provisioner.setPullProgressCallback(
                [self](const QString &host, const QString &image, const Docker::PullProgress &p) {
                    const double fraction = p.fraction();
                    const qint64 down = p.downloadedBytes(), total = p.totalBytes();
                    const QString error = p.error;
                    QMetaObject::invokeMethod(
                        self.data(),
                        [=] {
                            if (self)
                                self->setPullProgress(host, image, fraction, down, total, error);
                        },
                        Qt::QueuedConnection);
                });
            return provisioner.launch(request, cancel);
        },
        [self](const Result<SessionRecord> &result) {
            if (!self)
                return;
            if (result)
                self->finishLaunch(
                    true, result->id,
                    tr("Session %1 is %2").arg(result->name, toString(result->status)));
            else
                self->finishLaunch(false, QString(), result.error().toString());
        });
}

void LaunchDialog::setKernelStatus(const QString &hostname, KernelStatus status)
{
    int running = 0;
    bool found = false;
    for (int i = 0; i < m_progress->topLevelItemCount(); ++i) {
        QTreeWidgetItem *item = m_progress->topLevelItem(i);
        if (item->text(0) == hostname) {
            showStatus(item, status);
            found = true;
        }
        if (item->data(kStatusColumn, Qt::UserRole).value<KernelStatus>() == KernelStatus::Running)
            ++running;
    }
    if (!found) {
        showStatus(new QTreeWidgetItem(m_progress, {hostname}), status);
        m_bar->setMaximum(m_progress->topLevelItemCount());
    }
    m_bar->setValue(running);
}

void LaunchDialog::setPullProgress(const QString &host, const QString &image, double fraction,
                                   qint64 downloaded, qint64 total, const QString &error)
{
    m_pullBox->show();
    QProgressBar *bar = m_pullBars.value(host);
    if (!bar) {
        bar = new QProgressBar;
        bar->setRange(0, 1000);
        m_pullBars.insert(host, bar);
        m_pullForm->addRow(host + QLatin1Char(':'), bar);
    }
    m_pullFractions[host][image] = fraction;
    double hostSum = 0;
    for (double f : std::as_const(m_pullFractions[host]))
        hostSum += f;
    bar->setValue(int(1000 * hostSum / double(m_pullFractions[host].size())));
    bar->setFormat(error.isEmpty() ? tr("%1  %2 of %3")
                                         .arg(image.section(QLatin1Char('/'), -1),
                                              formatBytes(downloaded), formatBytes(total))
                                   : tr("failed: %1").arg(error));
    double all = 0;
    int n = 0;
    for (const auto &images : std::as_const(m_pullFractions)) {
        for (double f : images) {
            all += f;
            ++n;
        }
    }
    m_pullTotal->setValue(n ? int(1000 * all / n) : 0);
}

void LaunchDialog::finishLaunch(bool ok, const QString &sessionId, const QString &message)
{
    m_launching = false;
    m_cancel->setEnabled(false);
    m_launch->setEnabled(true);
    if (ok) {
        m_sessionId = sessionId;
        m_bar->setValue(m_bar->maximum());
        m_previewStatus->setText(message);
        Q_EMIT launched(sessionId);
        accept();
        return;
    }
    m_error->setPlainText(message); // in full: which host, which kernel, what the daemon said
    m_error->show();
    Q_EMIT launchFailed(message);
}

void LaunchDialog::cancelLaunch()
{
    if (!m_launching)
        return;
    m_cancel->setEnabled(false);
    m_cancel->setText(tr("Rolling back…"));
    m_cancelToken.cancel();
}

void LaunchDialog::reject()
{
    if (m_launching) {
        cancelLaunch(); // closes once the rollback has finished
        return;
    }
    QDialog::reject();
}

} // namespace ClusterDeck::Ui
