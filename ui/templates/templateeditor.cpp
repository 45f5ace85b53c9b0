#include "templateeditor.h"

#include "exportdialog.h"
#include "keyvaluetable.h"
#include "mountstable.h"
#include "roletable.h"
#include "roletaskeditor.h"

#include "template/templateloader.h"
#include "template/templatepatcher.h"
#include "template/templatevalues.h"
#include "template/templatewriter.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QFontDatabase>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QLoggingCategory>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QScopedValueRollback>
#include <QScrollArea>
#include <QSpinBox>
#include <QSplitter>
#include <QTabWidget>
#include <QTableWidget>
#include <QTextBlock>
#include <QTimer>
#include <QVBoxLayout>

#include <QRegularExpression>

namespace ClusterDeck::Ui {

Q_LOGGING_CATEGORY(lcTemplateEditor, "clusterdeck.ui.templates")

namespace {
const char *kErrorStyle = "background: #fbe3e3;";
// Below the loader's smallest MTU (576): the spin box's "unset".
const int kMtuUnset = 575;
// What the name cell of a roles row carries besides its text: the whole role as last edited (the
// table shows only some of its fields) and the memory size as typed.
const int kRoleData = Qt::UserRole + 1;
const int kMemoryData = Qt::UserRole + 2;
// Stands in for a memory size the writer cannot express (it only writes valid values), replaced
// by the typed text in the YAML so the loader reports it at its line.
const qint64 kMemoryPlaceholder = 987654321000;
// The same for a TTL that is not a duration (an odd number of seconds, so written as "…s").
const qint64 kTtlPlaceholder = 987654321;

QTableWidgetItem *item(const QString &text)
{
    return new QTableWidgetItem(text);
}

void setCellText(QTableWidget *table, int row, int column, const QString &text)
{
    if (QTableWidgetItem *it = table->item(row, column)) {
        if (it->text() != text)
            it->setText(text);
    } else {
        table->setItem(row, column, item(text));
    }
}

QString cpusText(const std::optional<double> &cpus)
{
    return cpus ? TemplateValues::formatCpus(*cpus) : QString();
}

QString yamlQuoted(QString text)
{
    text.replace(QLatin1Char('\\'), QStringLiteral("\\\\"));
    text.replace(QLatin1Char('"'), QStringLiteral("\\\""));
    return QLatin1Char('"') + text + QLatin1Char('"');
}
} // namespace

TemplateEditor::TemplateEditor(QWidget *parent)
    : QWidget(parent)
{
    setObjectName(QStringLiteral("templateEditor"));
    buildUi();
    m_askUnsaved = [this](const QString &file) {
        const auto answer = QMessageBox::question(
            this, tr("Unsaved Changes"),
            tr("“%1” has unsaved changes. Save them?").arg(QFileInfo(file).fileName()),
            QMessageBox::Save | QMessageBox::Discard | QMessageBox::Cancel, QMessageBox::Save);
        return answer == QMessageBox::Save      ? Answer::Save
               : answer == QMessageBox::Discard ? Answer::Discard
                                                : Answer::Cancel;
    };
}

void TemplateEditor::buildUi()
{
    m_list = new QListWidget;
    m_list->setObjectName(QStringLiteral("templateList"));
    m_list->setAccessibleName(tr("Templates")); // item views take no name from a label
    auto *newButton = new QPushButton(tr("&New"));
    auto *duplicate = new QPushButton(tr("D&uplicate"));
    auto *remove = new QPushButton(tr("&Delete"));
    auto *listButtons = new QHBoxLayout;
    listButtons->addWidget(newButton);
    listButtons->addWidget(duplicate);
    listButtons->addWidget(remove);
    auto *left = new QWidget;
    auto *leftLayout = new QVBoxLayout(left);
    leftLayout->setContentsMargins(0, 0, 0, 0);
    leftLayout->addWidget(m_list);
    leftLayout->addLayout(listButtons);

    m_name = new QLineEdit;
    m_name->setObjectName(QStringLiteral("templateName"));
    m_description = new QLineEdit;
    m_description->setObjectName(QStringLiteral("templateDescription"));
    m_mode = new QComboBox;
    m_mode->setObjectName(QStringLiteral("templateMode"));
    for (ClusterMode m : {ClusterMode::Auto, ClusterMode::SingleNode, ClusterMode::MultiNode})
        m_mode->addItem(modeName(m), int(m));
    m_failure = new QComboBox;
    m_failure->setObjectName(QStringLiteral("failurePolicy"));
    for (auto a : {FailurePolicy::Action::TerminateSession, FailurePolicy::Action::RestartSession,
                   FailurePolicy::Action::Ignore})
        m_failure->addItem(TemplateValues::failureActionName(a), int(a));
    m_success = new QComboBox;
    m_success->setObjectName(QStringLiteral("successPolicy"));
    const QList<std::pair<SuccessPolicy::Kind, QString>> successKinds{
        {SuccessPolicy::Kind::None, tr("every exit is a failure for the failure policy")},
        {SuccessPolicy::Kind::PrimaryExits,
         tr("a zero exit of the primary kernel completes the session")},
        {SuccessPolicy::Kind::AllExit, tr("the session completes once every kernel exited with 0")},
        {SuccessPolicy::Kind::RoleExits,
         tr("the session completes once every kernel of the role exited with 0")}};
    for (const auto &[kind, help] : successKinds) {
        m_success->addItem(TemplateValues::successKindName(kind), int(kind));
        m_success->setItemData(m_success->count() - 1, help, Qt::ToolTipRole);
    }
    m_maxRestarts = new QSpinBox;
    m_maxRestarts->setObjectName(QStringLiteral("maxRestarts"));
    m_maxRestarts->setRange(0, 1000); // as the loader accepts
    m_maxRestarts->setToolTip(tr("How often restart-session restarts the whole session before "
                                 "it gives up (failurePolicy.maxRestarts)"));
    m_mtu = new QSpinBox;
    m_mtu->setObjectName(QStringLiteral("networkMtu"));
    m_mtu->setRange(kMtuUnset, 9216);
    m_mtu->setSpecialValueText(tr("unset (the driver's)"));
    m_mtu->setToolTip(tr("The session network's MTU (network.mtu, 576-9216)"));
    m_env = new KeyValueTable(tr("Variable"), tr("Value"));
    m_env->setObjectName(QStringLiteral("templateEnv"));
    m_env->setAccessibleName(tr("Environment of every role"));
    m_env->setToolTip(tr("env: every kernel of every role gets these (a role's own env wins)"));
    m_env->setMaximumHeight(5 * m_env->fontMetrics().lineSpacing() + 8);
    m_mounts = new MountsTable;
    m_mounts->setObjectName(QStringLiteral("templateMounts"));
    m_mounts->setAccessibleName(tr("Mounts of every role"));
    m_mounts->setToolTip(tr("mounts: every kernel of every role gets these"));
    m_mounts->setMaximumHeight(5 * m_mounts->fontMetrics().lineSpacing() + 8);
    m_successRole = new QComboBox;
    m_successRole->setObjectName(QStringLiteral("successRole"));
    m_successRole->setToolTip(tr("The role whose kernels must all exit with 0"));
    m_ttl = new QLineEdit;
    m_ttl->setObjectName(QStringLiteral("ttlAfterFinished"));
    m_ttl->setPlaceholderText(tr("keep until removed (e.g. 30s, 10m, 2h)"));
    m_ttl->setToolTip(tr("How long a completed session keeps its stopped containers"));
    m_startup = new QComboBox;
    m_startup->setObjectName(QStringLiteral("startupOrder"));
    for (StartupOrder o : {StartupOrder::Parallel, StartupOrder::InOrder})
        m_startup->addItem(TemplateValues::startupOrderName(o), int(o));
    m_allowHostPaths = new QCheckBox(tr("Kernels may mount paths of their hosts"));
    m_allowHostPaths->setObjectName(QStringLiteral("allowHostPaths"));
    m_allowHostPaths->setToolTip(
        tr("allowHostPaths: bind mounts and volumes that bind a host path give the kernels "
           "whatever is there (the Docker socket gives them the host)"));
    m_presets = new QLineEdit;
    m_presets->setObjectName(QStringLiteral("templatePresets"));
    m_presets->setPlaceholderText(tr("pytorch, tensorflow, mpi, ssh"));
    m_roles = new RoleTable(RoleColumns);
    m_roles->setObjectName(QStringLiteral("rolesTable"));
    m_roles->setHorizontalHeaderLabels(
        {tr("Role"), tr("Image"), tr("Min"), tr("Max"), tr("Default"), tr("CPUs")});
    m_roles->horizontalHeader()->setSectionResizeMode(RoleImage, QHeaderView::Stretch);
    for (int c : {RoleMin, RoleMax, RoleCount, RoleCpus})
        m_roles->horizontalHeader()->setSectionResizeMode(c, QHeaderView::ResizeToContents);
    m_roles->verticalHeader()->hide();
    m_roles->setToolTip(tr("Drag a role to change the order"));
    m_roles->setAccessibleName(tr("Roles"));
    m_task = new RoleTaskEditor;
    auto *addRoleButton = new QPushButton(tr("Add Role"));
    auto *removeRoleButton = new QPushButton(tr("Remove Role"));
    auto *up = new QPushButton(tr("Move Up"));
    auto *down = new QPushButton(tr("Move Down"));
    auto *roleButtons = new QHBoxLayout;
    for (QPushButton *b : {addRoleButton, removeRoleButton, up, down})
        roleButtons->addWidget(b);
    roleButtons->addStretch();

    auto *general = new QWidget;
    auto *form = new QFormLayout;
    form->addRow(tr("&Name:"), m_name);
    form->addRow(tr("&Description:"), m_description);
    form->addRow(tr("&Mode:"), m_mode);
    auto *failureRow = new QHBoxLayout;
    failureRow->addWidget(m_failure, 1);
    auto *maxRestartsLabel = new QLabel(tr("Max &restarts:"));
    maxRestartsLabel->setBuddy(m_maxRestarts);
    failureRow->addWidget(maxRestartsLabel);
    failureRow->addWidget(m_maxRestarts);
    auto *failureLabel = new QLabel(tr("&Failure policy:"));
    failureLabel->setBuddy(m_failure); // a layout row gets no buddy of its own
    form->addRow(failureLabel, failureRow);
    auto *successRow = new QHBoxLayout;
    successRow->addWidget(m_success, 1);
    // A combo's name comes from its label (on Linux Qt gives its value as its name).
    m_successRoleLabel = new QLabel(tr("Ro&le:"));
    m_successRoleLabel->setBuddy(m_successRole);
    successRow->addWidget(m_successRoleLabel);
    successRow->addWidget(m_successRole, 1);
    auto *successLabel = new QLabel(tr("S&uccess policy:"));
    successLabel->setBuddy(m_success); // a layout row gets no buddy of its own
    form->addRow(successLabel, successRow);
    form->addRow(tr("&TTL after finished:"), m_ttl);
    form->addRow(tr("&Startup order:"), m_startup);
    form->addRow(tr("&Presets:"), m_presets);
    form->addRow(tr("Net&work MTU:"), m_mtu);
    // A table with its Add / Remove buttons beside it, as one form row.
    auto tableRow = [form](const QString &label, QTableWidget *table, QPushButton *add,
                           QPushButton *remove) {
        auto *buttons = new QVBoxLayout;
        buttons->addWidget(add);
        buttons->addWidget(remove);
        buttons->addStretch();
        auto *row = new QHBoxLayout;
        row->addWidget(table, 1);
        row->addLayout(buttons);
        auto *rowLabel = new QLabel(label);
        rowLabel->setBuddy(table);
        form->addRow(rowLabel, row);
    };
    auto *addEnv = new QPushButton(tr("Add Variable"));
    addEnv->setToolTip(tr("Add a variable every role gets"));
    auto *removeEnv = new QPushButton(tr("Remove"));
    removeEnv->setToolTip(tr("Remove the selected variable of every role"));
    tableRow(tr("En&vironment:"), m_env, addEnv, removeEnv);
    auto *addMount = new QPushButton(tr("Add Mount"));
    addMount->setToolTip(tr("Add a mount every role gets"));
    auto *removeMount = new QPushButton(tr("Remove"));
    removeMount->setToolTip(tr("Remove the selected mount of every role"));
    tableRow(tr("M&ounts:"), m_mounts, addMount, removeMount);
    connect(addEnv, &QPushButton::clicked, m_env, &KeyValueTable::addEmptyRow);
    connect(addMount, &QPushButton::clicked, m_mounts, &MountsTable::addEmptyRow);
    connect(removeEnv, &QPushButton::clicked, this, [this] { removeSelectedRow(m_env); });
    connect(removeMount, &QPushButton::clicked, this, [this] { removeSelectedRow(m_mounts); });
    connect(m_env, &QTableWidget::itemChanged, this, &TemplateEditor::formEdited);
    connect(m_mounts, &MountsTable::edited, this, &TemplateEditor::formEdited);
    form->addRow(tr("&Host paths:"), m_allowHostPaths);
    auto *formLayout = new QVBoxLayout(general);
    formLayout->setContentsMargins(0, 0, 0, 0);
    formLayout->addLayout(form);
    auto *rolesLabel = new QLabel(tr("Roles, in template order (the first kernel of the first "
                                     "role is the primary):"));
    rolesLabel->setWordWrap(true);
    formLayout->addWidget(rolesLabel);
    formLayout->addWidget(m_roles, 1);
    formLayout->addLayout(roleButtons);
    // The selected role's task beside the roles: both stay visible at 1280x800.
    auto *formPage = new QSplitter(Qt::Horizontal);
    formPage->setObjectName(QStringLiteral("formSplitter"));
    formPage->setChildrenCollapsible(false);
    // The form scrolls rather than making the window taller than a small screen.
    auto *generalScroll = new QScrollArea;
    generalScroll->setWidgetResizable(true);
    generalScroll->setFrameShape(QFrame::NoFrame);
    generalScroll->setFocusPolicy(Qt::NoFocus); // the fields are the stops
    generalScroll->setAccessibleName(tr("Template fields"));
    generalScroll->setWidget(general);
    formPage->addWidget(generalScroll);
    formPage->addWidget(m_task);
    formPage->setStretchFactor(0, 4);
    formPage->setStretchFactor(1, 5);

    m_yaml = new QPlainTextEdit;
    m_yaml->setObjectName(QStringLiteral("yamlEdit"));
    m_yaml->setAccessibleName(tr("Template YAML"));
    m_yaml->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    m_yaml->setLineWrapMode(QPlainTextEdit::NoWrap);
    m_tabs = new QTabWidget;
    m_tabs->addTab(formPage, tr("Form"));
    m_tabs->addTab(m_yaml, tr("YAML"));

    m_problems = new QListWidget;
    m_problems->setObjectName(QStringLiteral("problemsList"));
    m_problems->setAccessibleName(tr("Problems"));
    m_problems->setMaximumHeight(110);
    m_save = new QPushButton(tr("&Save"));
    m_save->setObjectName(QStringLiteral("saveTemplate"));
    m_export = new QPushButton(tr("Exp&ort…"));
    m_export->setObjectName(QStringLiteral("exportTemplate"));
    m_export->setToolTip(tr("The template as a Kubernetes JobSet or a Compose file"));
    auto *right = new QWidget;
    auto *rightLayout = new QVBoxLayout(right);
    rightLayout->setContentsMargins(0, 0, 0, 0);
    rightLayout->addWidget(m_tabs, 1);
    rightLayout->addWidget(m_problems);
    auto *saveRow = new QHBoxLayout;
    saveRow->addStretch();
    saveRow->addWidget(m_export);
    saveRow->addWidget(m_save);
    rightLayout->addLayout(saveRow);

    auto *split = new QSplitter;
    split->addWidget(left);
    split->addWidget(right);
    split->setStretchFactor(1, 3);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(split);

    m_validateTimer = new QTimer(this);
    m_validateTimer->setSingleShot(true);
    m_validateTimer->setInterval(300);
    connect(m_validateTimer, &QTimer::timeout, this, &TemplateEditor::validateNow);

    for (QLineEdit *e : {m_name, m_description, m_presets, m_ttl})
        connect(e, &QLineEdit::textEdited, this, &TemplateEditor::formEdited);
    for (QComboBox *c : {m_mode, m_failure, m_startup, m_successRole})
        connect(c, &QComboBox::activated, this, &TemplateEditor::formEdited);
    for (QSpinBox *s : {m_maxRestarts, m_mtu})
        connect(s, &QSpinBox::valueChanged, this, &TemplateEditor::formEdited);
    connect(m_failure, &QComboBox::currentIndexChanged, this, [this] {
        m_maxRestarts->setEnabled(FailurePolicy::Action(m_failure->currentData().toInt()) ==
                                  FailurePolicy::Action::RestartSession);
    });
    connect(m_allowHostPaths, &QCheckBox::clicked, this, &TemplateEditor::setAllowHostPaths);
    connect(m_success, &QComboBox::activated, this, [this] {
        // Without a success policy nothing ever finishes: a TTL would be an error.
        if (SuccessPolicy::Kind(m_success->currentData().toInt()) == SuccessPolicy::Kind::None)
            m_ttl->clear();
        updateSuccessFields();
        formEdited();
    });
    connect(m_roles, &QTableWidget::itemChanged, this, [this](QTableWidgetItem *it) {
        if (m_syncing)
            return;
        if (it->row() == m_roles->currentRow())
            showSelectedRole();
        formEdited();
    });
    // Also on a removed row: the same index is then another role.
    connect(m_roles, &QTableWidget::currentCellChanged, this, &TemplateEditor::showSelectedRole);
    connect(m_roles, &RoleTable::rowMoved, this, [this] {
        showSelectedRole();
        formEdited();
    });
    connect(m_task, &RoleTaskEditor::edited, this, &TemplateEditor::taskEdited);
    connect(m_yaml, &QPlainTextEdit::textChanged, this, &TemplateEditor::yamlEdited);
    connect(m_export, &QPushButton::clicked, this, [this] {
        if (ExportDialog *dialog = exportDialog())
            dialog->open();
    });
    connect(addRoleButton, &QPushButton::clicked, this, &TemplateEditor::addRole);
    connect(removeRoleButton, &QPushButton::clicked, this, &TemplateEditor::removeRole);
    connect(up, &QPushButton::clicked, this, [this] { moveRole(-1); });
    connect(down, &QPushButton::clicked, this, [this] { moveRole(+1); });
    connect(m_save, &QPushButton::clicked, this, &TemplateEditor::save);
    connect(newButton, &QPushButton::clicked, this, &TemplateEditor::newTemplate);
    connect(duplicate, &QPushButton::clicked, this, &TemplateEditor::duplicateTemplate);
    connect(remove, &QPushButton::clicked, this, &TemplateEditor::deleteTemplate);
    connect(m_list, &QListWidget::currentRowChanged, this, [this](int row) {
        if (row < 0 || m_syncing)
            return;
        const QString path = m_list->item(row)->data(Qt::UserRole).toString();
        if (path == m_file)
            return;
        if (!openFile(path)) {
            // Stay on the file with unsaved changes.
            QSignalBlocker block(m_list);
            for (int i = 0; i < m_list->count(); ++i)
                if (m_list->item(i)->data(Qt::UserRole).toString() == m_file)
                    m_list->setCurrentRow(i);
        }
    });
    connect(m_problems, &QListWidget::itemActivated, this, [this](QListWidgetItem *it) {
        const int line = it->data(Qt::UserRole).toInt();
        if (line <= 0)
            return;
        m_tabs->setCurrentWidget(m_yaml);
        QTextCursor cursor(m_yaml->document()->findBlockByLineNumber(line - 1));
        m_yaml->setTextCursor(cursor);
        m_yaml->setFocus();
    });
}

QTableWidget *TemplateEditor::templateEnvTable() const
{
    return m_env;
}

void TemplateEditor::setDirectories(const QStringList &sampleDirs, const QString &userDir)
{
    m_sampleDirs = sampleDirs;
    m_userDir = userDir;
    refreshList();
    if (m_file.isEmpty() && m_list->count() > 0)
        m_list->setCurrentRow(0);
}

void TemplateEditor::refreshList()
{
    QSignalBlocker block(m_list);
    m_list->clear();
    auto addDir = [this](const QString &dir, const QString &suffix) {
        const QFileInfoList files = QDir(dir).entryInfoList(
            {QStringLiteral("*.yaml"), QStringLiteral("*.yml")}, QDir::Files, QDir::Name);
        for (const QFileInfo &f : files) {
            auto *it = new QListWidgetItem(f.completeBaseName() + suffix, m_list);
            it->setData(Qt::UserRole, f.absoluteFilePath());
            it->setToolTip(f.absoluteFilePath());
            if (f.absoluteFilePath() == m_file)
                m_list->setCurrentItem(it);
        }
    };
    for (const QString &dir : std::as_const(m_sampleDirs))
        addDir(dir, tr("  (sample)"));
    if (!m_userDir.isEmpty())
        addDir(m_userDir, QString());
}

bool TemplateEditor::maybeKeepChanges()
{
    if (!m_modified)
        return true;
    switch (m_askUnsaved ? m_askUnsaved(m_file) : Answer::Cancel) {
    case Answer::Save:
        return save();
    case Answer::Discard:
        return true;
    case Answer::Cancel:
        return false;
    }
    return false;
}

bool TemplateEditor::openFile(const QString &path)
{
    if (!maybeKeepChanges())
        return false;
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return false;
    m_file = QFileInfo(path).absoluteFilePath();
    {
        // The list shows which template is open (none of its items when it is not listed).
        const QSignalBlocker block(m_list);
        m_list->setCurrentRow(-1);
        for (int row = 0; row < m_list->count(); ++row)
            if (m_list->item(row)->data(Qt::UserRole).toString() == m_file)
                m_list->setCurrentRow(row);
    }
    m_syncing = true;
    m_yaml->setPlainText(QString::fromUtf8(file.readAll()));
    m_roles->setRowCount(0); // another template: start at its first role
    m_syncing = false;
    m_template.reset();
    validateNow();
    setModified(false);
    return true;
}

void TemplateEditor::yamlEdited()
{
    if (m_syncing)
        return;
    setModified(true);
    m_validateTimer->start();
}

ExportDialog *TemplateEditor::exportDialog()
{
    // What the editor shows, unsaved edits included; a text that does not load is said so.
    validateNow();
    if (!m_template || !m_diagnostics.isEmpty()) {
        QMessageBox::information(this, tr("Export"),
                                 tr("The template has problems (listed below the editor): fix "
                                    "them to export it."));
        return nullptr;
    }
    auto *dialog = new ExportDialog(*m_template, this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    return dialog;
}

void TemplateEditor::validateNow()
{
    m_validateTimer->stop();
    TemplateLoader loader;
    auto loaded =
        loader.loadClusterFromData(m_yaml->toPlainText().toUtf8(), QFileInfo(m_file).fileName(),
                                   QFileInfo(m_file).absolutePath());
    m_diagnostics = loader.diagnostics();
    if (loaded) {
        m_template = *loaded;
        // The form's edits are patched into this text from now on.
        m_baseYaml = m_yaml->toPlainText().toUtf8();
        m_baseTemplate = *loaded;
        showTemplateInForm(*loaded);
    } else if (m_diagnostics.isEmpty()) {
        TemplateDiagnostic d;
        d.message = loaded.error().toString();
        m_diagnostics.append(d);
    }
    showDiagnostics();
}

void TemplateEditor::showTemplateInForm(const ClusterTemplate &t)
{
    {
        const QScopedValueRollback syncing(m_syncing, true);
        if (m_name->text() != t.name)
            m_name->setText(t.name);
        if (m_description->text() != t.description)
            m_description->setText(t.description);
        m_mode->setCurrentIndex(m_mode->findData(int(t.mode)));
        m_failure->setCurrentIndex(m_failure->findData(int(t.failurePolicy.action)));
        m_maxRestarts->setValue(t.failurePolicy.maxRestarts);
        m_mtu->setValue(t.mtu.value_or(kMtuUnset));
        if (m_env->pairs() != t.env)
            m_env->setPairs(t.env);
        if (m_mounts->mounts() != t.mounts)
            m_mounts->setMounts(t.mounts);
        m_startup->setCurrentIndex(m_startup->findData(int(t.startupOrder)));
        m_presets->setText(t.presets.join(QStringLiteral(", ")));
        m_allowHostPaths->setChecked(t.allowHostPaths);
        m_roles->setRowCount(int(t.roles.size()));
        for (int i = 0; i < t.roles.size(); ++i) {
            const RoleTemplate &r = t.roles.at(i);
            setRoleRow(i, r,
                       r.task.resources.memoryBytes
                           ? TemplateValues::formatMemory(*r.task.resources.memoryBytes)
                           : QString());
        }
        m_success->setCurrentIndex(m_success->findData(int(t.successPolicy.kind)));
        refreshSuccessRoles(t.successPolicy.role);
        const QString ttl = t.ttlAfterFinishedSeconds
                                ? TemplateValues::formatDuration(*t.ttlAfterFinishedSeconds)
                                : QString();
        if (m_ttl->text() != ttl)
            m_ttl->setText(ttl);
        updateSuccessFields();
        if (m_roles->currentRow() < 0 && m_roles->rowCount() > 0)
            m_roles->setCurrentCell(0, RoleName);
    }
    showSelectedRole();
}

void TemplateEditor::setRoleRow(int row, const RoleTemplate &r, const QString &memoryText)
{
    const QScopedValueRollback syncing(m_syncing, true);
    setCellText(m_roles, row, RoleName, r.name);
    QTableWidgetItem *name = m_roles->item(row, RoleName);
    name->setData(kRoleData, QVariant::fromValue(r));
    name->setData(kMemoryData, memoryText);
    setCellText(m_roles, row, RoleImage, r.task.image);
    setCellText(m_roles, row, RoleMin, QString::number(r.min));
    setCellText(m_roles, row, RoleMax, QString::number(r.max));
    setCellText(m_roles, row, RoleCount, QString::number(r.count));
    setCellText(m_roles, row, RoleCpus, cpusText(r.task.resources.cpus));
    // A task file's fields are not written back into the template: not editable here.
    for (int c : {RoleImage, RoleCpus}) {
        QTableWidgetItem *it = m_roles->item(row, c);
        const Qt::ItemFlags flags = it->flags();
        it->setFlags(r.taskFile.isEmpty() ? flags | Qt::ItemIsEditable
                                          : flags & ~Qt::ItemIsEditable);
        it->setToolTip(r.taskFile.isEmpty() ? QString() : tr("From %1").arg(r.taskFile));
    }
}

void TemplateEditor::refreshSuccessRoles(const QString &selected)
{
    const QScopedValueRollback syncing(m_syncing, true);
    QStringList names;
    for (int row = 0; row < m_roles->rowCount(); ++row) {
        const QTableWidgetItem *it = m_roles->item(row, RoleName);
        const QString name = it ? it->text().trimmed() : QString();
        if (!name.isEmpty() && !names.contains(name))
            names.append(name);
    }
    // A role that is gone stays selectable, so the problem shows instead of a silent change.
    if (!selected.isEmpty() && !names.contains(selected))
        names.append(selected);
    QStringList current;
    for (int i = 0; i < m_successRole->count(); ++i)
        current.append(m_successRole->itemText(i));
    if (current != names) {
        m_successRole->clear();
        m_successRole->addItems(names);
    }
    m_successRole->setCurrentIndex(selected.isEmpty() ? (names.isEmpty() ? -1 : 0)
                                                      : int(names.indexOf(selected)));
}

void TemplateEditor::updateSuccessFields()
{
    const auto kind = SuccessPolicy::Kind(m_success->currentData().toInt());
    m_successRole->setEnabled(kind == SuccessPolicy::Kind::RoleExits);
    m_successRoleLabel->setEnabled(m_successRole->isEnabled());
    m_ttl->setEnabled(kind != SuccessPolicy::Kind::None);
}

RoleTemplate TemplateEditor::roleAt(int row) const
{
    auto text = [this, row](int column) {
        const QTableWidgetItem *it = m_roles->item(row, column);
        return it ? it->text().trimmed() : QString();
    };
    const QTableWidgetItem *nameItem = m_roles->item(row, RoleName);
    RoleTemplate r = nameItem ? nameItem->data(kRoleData).value<RoleTemplate>() : RoleTemplate{};
    r.name = text(RoleName);
    r.min = text(RoleMin).toInt();
    r.max = text(RoleMax).toInt();
    r.count = text(RoleCount).toInt();
    if (r.taskFile.isEmpty()) {
        r.task.image = text(RoleImage);
        if (text(RoleCpus) != cpusText(r.task.resources.cpus)) {
            bool ok = false;
            const double cpus = text(RoleCpus).toDouble(&ok);
            r.task.resources.cpus = ok ? std::optional<double>(cpus) : std::nullopt;
        }
    }
    return r;
}

QString TemplateEditor::memoryTextAt(int row) const
{
    const QTableWidgetItem *nameItem = m_roles->item(row, RoleName);
    return nameItem ? nameItem->data(kMemoryData).toString() : QString();
}

ClusterTemplate TemplateEditor::templateFromForm() const
{
    ClusterTemplate t = m_template.value_or(ClusterTemplate{});
    t.name = m_name->text().trimmed();
    t.description = m_description->text().trimmed();
    t.mode = ClusterMode(m_mode->currentData().toInt());
    t.failurePolicy.action = FailurePolicy::Action(m_failure->currentData().toInt());
    t.failurePolicy.maxRestarts = m_maxRestarts->value();
    t.mtu = m_mtu->value() > kMtuUnset ? std::optional<int>(m_mtu->value()) : std::nullopt;
    t.env = m_env->pairs();
    t.mounts = m_mounts->mounts();
    t.successPolicy.kind = SuccessPolicy::Kind(m_success->currentData().toInt());
    t.successPolicy.role = t.successPolicy.kind == SuccessPolicy::Kind::RoleExits
                               ? m_successRole->currentText()
                               : QString();
    const QString ttl = m_ttl->text().trimmed();
    if (ttl.isEmpty() || t.successPolicy.kind == SuccessPolicy::Kind::None)
        t.ttlAfterFinishedSeconds.reset();
    else
        t.ttlAfterFinishedSeconds = TemplateValues::parseDuration(ttl).value_or(kTtlPlaceholder);
    t.startupOrder = StartupOrder(m_startup->currentData().toInt());
    t.allowHostPaths = m_allowHostPaths->isChecked();
    t.presets.clear();
    for (const QString &p : m_presets->text().split(u',', Qt::SkipEmptyParts))
        t.presets << p.trimmed();
    t.roles.clear();
    for (int row = 0; row < m_roles->rowCount(); ++row)
        t.roles << roleAt(row);
    return t;
}

QByteArray TemplateEditor::yamlFromForm() const
{
    ClusterTemplate t = templateFromForm();
    QList<std::pair<QString, QString>> typed; // placeholder spelling -> typed memory size
    for (int row = 0; row < t.roles.size(); ++row) {
        const QString memory = memoryTextAt(row);
        RoleTemplate &r = t.roles[row];
        if (!r.taskFile.isEmpty() || memory.isEmpty() || TemplateValues::parseMemory(memory))
            continue;
        r.task.resources.memoryBytes = kMemoryPlaceholder + row;
        typed.append({TemplateValues::formatMemory(kMemoryPlaceholder + row), memory});
    }
    QString yaml = QString::fromUtf8(yamlFor(t));
    if (const QString ttl = m_ttl->text().trimmed();
        t.ttlAfterFinishedSeconds == kTtlPlaceholder && !TemplateValues::parseDuration(ttl)) {
        // The patched line may keep the admin's comment after the value.
        const QRegularExpression at(QStringLiteral("^ttlAfterFinished: (%1)(\\s+#.*)?$")
                                        .arg(TemplateValues::formatDuration(kTtlPlaceholder)),
                                    QRegularExpression::MultilineOption);
        if (const auto m = at.match(yaml); m.hasMatch())
            yaml.replace(m.capturedStart(1), m.capturedLength(1), yamlQuoted(ttl));
    }
    for (const auto &[placeholder, memory] : std::as_const(typed)) {
        const QRegularExpression at(QStringLiteral("^\\s*memory: (%1)(\\s+#.*)?$").arg(placeholder),
                                    QRegularExpression::MultilineOption);
        if (const auto m = at.match(yaml); m.hasMatch())
            yaml.replace(m.capturedStart(1), m.capturedLength(1), yamlQuoted(memory));
    }
    return yaml.toUtf8();
}

QByteArray TemplateEditor::yamlFor(const ClusterTemplate &t) const
{
    if (m_baseTemplate) {
        auto patched = TemplatePatcher::patch(m_baseYaml, *m_baseTemplate, t,
                                              QFileInfo(m_file).absolutePath());
        if (patched)
            return *patched;
        // Only a text the patcher cannot parse gets here, and it loaded a moment ago.
        qCWarning(lcTemplateEditor) << "writing the whole template:" << patched.error().toString();
    }
    return TemplateWriter::toYaml(t);
}

void TemplateEditor::showSelectedRole()
{
    const int row = m_roles->currentRow();
    {
        const QScopedValueRollback syncing(m_syncing, true);
        if (row < 0 || row >= m_roles->rowCount())
            m_task->clear();
        else
            m_task->setRole(roleAt(row), memoryTextAt(row));
    }
    markTaskFields();
}

void TemplateEditor::taskEdited()
{
    const int row = m_roles->currentRow();
    if (m_syncing || row < 0)
        return;
    // The task editor's role replaces the row's, and the cells that show the same fields follow.
    setRoleRow(row, m_task->role(), m_task->memoryText());
    formEdited();
}

void TemplateEditor::setKnownImages(const QStringList &images)
{
    m_task->setKnownImages(images);
}

QStringList TemplateEditor::imagesOf(const QList<HostStatus> &hosts)
{
    QStringList images;
    for (const HostStatus &host : hosts) {
        for (const QString &image : host.images) {
            // Dangling and untagged images (listed by id) are nothing a template should name.
            if (!image.contains(QLatin1String("<none>")) && image.contains(QLatin1Char(':')))
                images << image;
        }
    }
    images.sort();
    images.removeDuplicates();
    return images;
}

// The box is what makes a host path in the YAML acceptable, so it is most often ticked while the
// YAML does not load: one line of the text changes, not the whole text rewritten from the last
// template that loaded (which would drop the mount being allowed).
void TemplateEditor::setAllowHostPaths(bool allow)
{
    static const QRegularExpression existing(QStringLiteral("^allowHostPaths:[^\\n]*\\n?"),
                                             QRegularExpression::MultilineOption);
    static const QRegularExpression roles(QStringLiteral("^roles:"),
                                          QRegularExpression::MultilineOption);
    QString text = m_yaml->toPlainText();
    text.remove(existing);
    if (allow) {
        const QRegularExpressionMatch at = roles.match(text);
        const QString line = QStringLiteral("allowHostPaths: true\n");
        if (at.hasMatch())
            text.insert(at.capturedStart(), line);
        else
            text +=
                (text.isEmpty() || text.endsWith(u'\n') ? QString() : QStringLiteral("\n")) + line;
    }
    {
        const QScopedValueRollback syncing(m_syncing, true);
        m_yaml->setPlainText(text);
    }
    setModified(true);
    validateNow();
}

void TemplateEditor::removeSelectedRow(FormTable *table)
{
    if (table->removeCurrentRow())
        formEdited();
}

void TemplateEditor::formEdited()
{
    if (m_syncing)
        return;
    // Roles may have been renamed, added or removed: the success role box follows.
    const bool roleExits =
        SuccessPolicy::Kind(m_success->currentData().toInt()) == SuccessPolicy::Kind::RoleExits;
    refreshSuccessRoles(roleExits ? m_successRole->currentText() : QString());
    // Form → YAML through the core's writer, then validate what it wrote.
    m_syncing = true;
    m_yaml->setPlainText(QString::fromUtf8(yamlFromForm()));
    m_syncing = false;
    setModified(true);
    TemplateLoader loader;
    auto loaded =
        loader.loadClusterFromData(m_yaml->toPlainText().toUtf8(), QFileInfo(m_file).fileName(),
                                   QFileInfo(m_file).absolutePath());
    m_diagnostics = loader.diagnostics();
    if (loaded)
        m_template = *loaded;
    showDiagnostics();
}

void TemplateEditor::showDiagnostics()
{
    m_problems->clear();
    for (const TemplateDiagnostic &d : std::as_const(m_diagnostics)) {
        const QString where =
            d.line > 0
                ? tr("line %1, %2").arg(d.line).arg(d.path.isEmpty() ? tr("document") : d.path)
                : d.path;
        auto *it = new QListWidgetItem(
            where.isEmpty() ? d.message : where + QStringLiteral(": ") + d.message, m_problems);
        it->setData(Qt::UserRole, d.line);
        it->setForeground(QColor(0xcc, 0x33, 0x33));
    }
    if (m_diagnostics.isEmpty())
        new QListWidgetItem(tr("No problems."), m_problems);
    m_save->setEnabled(m_diagnostics.isEmpty());
    markFields();
}

void TemplateEditor::markFields()
{
    for (QWidget *w :
         std::initializer_list<QWidget *>{m_name, m_description, m_success, m_successRole, m_ttl,
                                          m_failure, m_maxRestarts, m_mtu, m_env, m_mounts}) {
        w->setStyleSheet(QString());
        w->setToolTip(QString());
    }
    m_successRole->setToolTip(tr("The role whose kernels must all exit with 0"));
    m_ttl->setToolTip(tr("How long a completed session keeps its stopped containers"));
    m_maxRestarts->setToolTip(tr("How often restart-session restarts the whole session before "
                                 "it gives up (failurePolicy.maxRestarts)"));
    m_mtu->setToolTip(tr("The session network's MTU (network.mtu, 576-9216)"));
    m_env->setToolTip(tr("env: every kernel of every role gets these (a role's own env wins)"));
    m_mounts->setToolTip(tr("mounts: every kernel of every role gets these"));
    m_syncing = true;
    for (int r = 0; r < m_roles->rowCount(); ++r)
        for (int c = 0; c < RoleColumns; ++c)
            if (QTableWidgetItem *it = m_roles->item(r, c))
                it->setBackground(QBrush());
    static const QRegularExpression rolePath(QStringLiteral(R"(^roles\[(\d+)\](?:\.(.*))?$)"));
    for (const TemplateDiagnostic &d : std::as_const(m_diagnostics)) {
        if (d.path == u"name")
            m_name->setStyleSheet(QString::fromLatin1(kErrorStyle));
        else if (d.path == u"description")
            m_description->setStyleSheet(QString::fromLatin1(kErrorStyle));
        QWidget *policyField = nullptr;
        if (d.path == u"successPolicy.role" || d.path == u"successPolicy.role-exits")
            policyField = m_successRole;
        else if (d.path.startsWith(u"successPolicy"))
            policyField = m_success;
        else if (d.path == u"ttlAfterFinished")
            policyField = m_ttl;
        else if (d.path == u"failurePolicy.maxRestarts")
            policyField = m_maxRestarts;
        else if (d.path.startsWith(u"failurePolicy"))
            policyField = m_failure;
        else if (d.path.startsWith(u"network"))
            policyField = m_mtu;
        else if (d.path == u"env" || d.path.startsWith(u"env."))
            policyField = m_env;
        else if (d.path == u"mounts" || d.path.startsWith(u"mounts["))
            policyField = m_mounts;
        if (policyField) {
            policyField->setStyleSheet(QString::fromLatin1(kErrorStyle));
            policyField->setToolTip(d.message);
        }
        const auto m = rolePath.match(d.path);
        if (!m.hasMatch())
            continue;
        const int row = m.captured(1).toInt();
        const QString field = m.captured(2);
        int column = RoleName;
        if (field == u"min")
            column = RoleMin;
        else if (field == u"max")
            column = RoleMax;
        else if (field == u"count")
            column = RoleCount;
        else if (field.contains(QStringLiteral("image")))
            column = RoleImage;
        else if (field.contains(QStringLiteral("cpus")))
            column = RoleCpus;
        if (QTableWidgetItem *it = m_roles->item(row, column)) {
            it->setBackground(QColor(0xfb, 0xe3, 0xe3));
            it->setToolTip(d.message);
        }
    }
    m_syncing = false;
    markTaskFields();
}

void TemplateEditor::markTaskFields()
{
    // Only the selected role is in the task editor; the table row marks the others.
    m_task->clearMarks();
    const int row = m_roles->currentRow();
    if (row < 0)
        return;
    const QString prefix = QStringLiteral("roles[%1].").arg(row);
    for (const TemplateDiagnostic &d : std::as_const(m_diagnostics))
        if (d.path.startsWith(prefix))
            m_task->markField(d.path.mid(prefix.size()), d.message);
}

void TemplateEditor::setModified(bool modified)
{
    if (m_modified == modified)
        return;
    m_modified = modified;
    Q_EMIT modifiedChanged(modified);
}

bool TemplateEditor::save()
{
    validateNow();
    if (!m_diagnostics.isEmpty() || !m_template) {
        QMessageBox::warning(
            this, tr("Cannot Save"),
            tr("The template has problems; fix them first:\n%1")
                .arg(m_diagnostics.isEmpty() ? QString() : m_diagnostics.first().toString()));
        return false;
    }
    QString path = m_file;
    // Samples are not edited in place: they go to the user's folder under the template's name.
    if (path.isEmpty() ||
        (!m_userDir.isEmpty() && QFileInfo(path).absolutePath() != QDir(m_userDir).absolutePath()))
        path = QDir(m_userDir).filePath(m_template->name + QStringLiteral(".yaml"));
    return saveAs(path);
}

bool TemplateEditor::saveAs(const QString &path)
{
    QDir().mkpath(QFileInfo(path).absolutePath());
    // The text as shown (the admin's file with the form's edits patched in), not a re-emitted one.
    auto saved = TemplateWriter::saveYaml(m_yaml->toPlainText().toUtf8(), path);
    if (!saved) {
        QMessageBox::warning(this, tr("Cannot Save"), saved.error().toString());
        return false;
    }
    m_file = QFileInfo(path).absoluteFilePath();
    setModified(false);
    refreshList();
    return true;
}

void TemplateEditor::addRole()
{
    const int row = m_roles->rowCount();
    m_syncing = true;
    m_roles->insertRow(row);
    m_roles->setItem(row, RoleName,
                     item(QStringLiteral("role%1x").arg(row + 1).remove(
                         QRegularExpression(QStringLiteral("\\d")))));
    m_roles->setItem(row, RoleImage, item(QStringLiteral("clusterdeck/lab:latest")));
    m_roles->setItem(row, RoleMin, item(QStringLiteral("1")));
    m_roles->setItem(row, RoleMax, item(QStringLiteral("1")));
    m_roles->setItem(row, RoleCount, item(QStringLiteral("1")));
    m_roles->setItem(row, RoleCpus, item(QString()));
    m_syncing = false;
    m_roles->setCurrentCell(row, RoleName); // its task is what one edits next
    formEdited();
}

void TemplateEditor::removeRole()
{
    if (m_roles->currentRow() < 0)
        return;
    m_roles->removeRow(m_roles->currentRow());
    showSelectedRole();
    formEdited();
}

void TemplateEditor::moveRole(int delta)
{
    const int row = m_roles->currentRow();
    const int target = row + delta;
    if (row < 0 || target < 0 || target >= m_roles->rowCount())
        return;
    m_roles->moveRow(row, target); // as a drop does; rowMoved() updates the YAML
}

void TemplateEditor::newTemplate()
{
    if (!maybeKeepChanges())
        return;
    ClusterTemplate t;
    t.name = QStringLiteral("new-template");
    RoleTemplate r;
    r.name = QStringLiteral("main");
    r.task.image = QStringLiteral("clusterdeck/lab:latest");
    t.roles << r;
    m_file = QDir(m_userDir).filePath(t.name + QStringLiteral(".yaml"));
    m_template = t;
    m_syncing = true;
    m_yaml->setPlainText(QString::fromUtf8(TemplateWriter::toYaml(t)));
    m_syncing = false;
    validateNow();
    setModified(true);
}

void TemplateEditor::duplicateTemplate()
{
    if (!m_template || !maybeKeepChanges())
        return;
    ClusterTemplate t = *m_template;
    t.name += QStringLiteral("-copy");
    const QByteArray yaml = yamlFor(t); // the copy keeps the original's comments and layout
    m_template = t;
    m_file = QDir(m_userDir).filePath(t.name + QStringLiteral(".yaml"));
    m_syncing = true;
    m_yaml->setPlainText(QString::fromUtf8(yaml));
    m_syncing = false;
    validateNow();
    setModified(true);
}

void TemplateEditor::deleteTemplate()
{
    if (m_file.isEmpty() || QFileInfo(m_file).absolutePath() != QDir(m_userDir).absolutePath()) {
        QMessageBox::information(this, tr("Delete Template"),
                                 tr("Only your own templates can be deleted; samples stay."));
        return;
    }
    if (QMessageBox::question(this, tr("Delete Template"),
                              tr("Delete “%1”?").arg(QFileInfo(m_file).fileName())) !=
        QMessageBox::Yes)
        return;
    QFile::remove(m_file);
    m_file.clear();
    setModified(false);
    refreshList();
    if (m_list->count() > 0)
        m_list->setCurrentRow(0);
}

} // namespace ClusterDeck::Ui
