#include "roletaskeditor.h"

#include "keyvaluetable.h"
#include "scriptedit.h"

#include "registry/imagereference.h"
#include "registry/registryclient.h"
#include "template/templatevalues.h"

#include <QFutureWatcher>
#include <QtConcurrent>

#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFontDatabase>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QProcess>
#include <QPushButton>
#include <QRegularExpression>
#include <QScopedValueRollback>
#include <QScrollArea>
#include <QSpinBox>
#include <QStackedWidget>
#include <QTabBar>
#include <QTabWidget>
#include <QTableWidget>
#include <QVBoxLayout>

namespace ClusterDeck::Ui {

namespace {
const char *kErrorStyle = "background: #fbe3e3;";
const QColor kErrorColor(0xfb, 0xe3, 0xe3);
const QColor kErrorText(0xcc, 0x33, 0x33);
const int kMaxCount = 100000; // as the loader accepts

QString cellText(const QTableWidget *table, int row, int column)
{
    const QTableWidgetItem *it = table->item(row, column);
    return it ? it->text().trimmed() : QString();
}

QStringList linesOf(const QPlainTextEdit *edit)
{
    QStringList lines = edit->toPlainText().split(QLatin1Char('\n'));
    while (!lines.isEmpty() && lines.last().isEmpty())
        lines.removeLast();
    return lines;
}

// A table with Add / Remove buttons under it.
QWidget *withButtons(QTableWidget *table, QPushButton *add, QPushButton *remove)
{
    auto *page = new QWidget;
    auto *layout = new QVBoxLayout(page);
    auto *buttons = new QHBoxLayout;
    buttons->addWidget(add);
    buttons->addWidget(remove);
    buttons->addStretch();
    layout->addWidget(table, 1);
    layout->addLayout(buttons);
    return page;
}
// A page of fields that scrolls when the window is small.
QScrollArea *scrolled(QWidget *page, const QString &accessibleName)
{
    auto *scroll = new QScrollArea;
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    scroll->setFocusPolicy(Qt::NoFocus); // the fields are the stops; it scrolls to them
    scroll->setAccessibleName(accessibleName);
    scroll->setWidget(page);
    return scroll;
}
} // namespace

RoleTaskEditor::RoleTaskEditor(QWidget *parent)
    : QWidget(parent)
{
    setObjectName(QStringLiteral("roleTaskEditor"));
    buildUi();
    clear();
}

void RoleTaskEditor::buildUi()
{
    m_taskFileNote = new QLabel;
    m_taskFileNote->setWordWrap(true);
    m_inline = new QPushButton(tr("Edit &Inline"));
    m_inline->setObjectName(QStringLiteral("inlineTask"));
    m_inline->setToolTip(tr("Copy the task file's content into this role, to edit it here"));

    m_image = new QComboBox;
    m_image->setObjectName(QStringLiteral("taskImage"));
    m_image->setEditable(true);
    m_image->setInsertPolicy(QComboBox::NoInsert);
    m_image->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    m_image->setMinimumContentsLength(20);
    m_commandKind = new QComboBox;
    m_commandKind->setObjectName(QStringLiteral("taskCommandKind"));
    m_commandKind->setAccessibleName(tr("Command kind"));
    m_commandKind->insertItem(ScriptCommand, tr("Shell script"));
    m_commandKind->setItemData(ScriptCommand, tr("Run by /bin/sh -c (command: | in the YAML)"),
                               Qt::ToolTipRole);
    m_commandKind->insertItem(ArgumentsCommand, tr("Arguments, one per line"));
    m_commandKind->setItemData(ArgumentsCommand,
                               tr("Run as given, without a shell (command: [...] in the YAML)"),
                               Qt::ToolTipRole);
    m_commandScript = new ScriptEdit;
    m_commandScript->setObjectName(QStringLiteral("taskCommandScript"));
    m_commandScript->setAccessibleName(tr("Command script"));
    m_commandScript->setPlaceholderText(tr("the image's default command"));
    m_commandArgs = new QPlainTextEdit;
    m_commandArgs->setObjectName(QStringLiteral("taskCommandArguments"));
    m_commandArgs->setAccessibleName(tr("Command arguments"));
    m_commandArgs->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    m_commandArgs->setLineWrapMode(QPlainTextEdit::NoWrap);
    m_commandArgs->setTabChangesFocus(true);
    m_commandArgs->setPlaceholderText(tr("the image's default command (one argument per line)"));
    m_commandPages = new QStackedWidget;
    m_commandPages->insertWidget(ScriptCommand, m_commandScript);
    m_commandPages->insertWidget(ArgumentsCommand, m_commandArgs);
    // A few lines of script in view without crowding out the sections below.
    const int line = m_commandScript->fontMetrics().lineSpacing();
    m_commandPages->setMinimumHeight(4 * line + 12);
    m_commandPages->setMaximumHeight(10 * line + 12);

    auto spin = [](const QString &name) {
        auto *s = new QSpinBox;
        s->setObjectName(name);
        s->setRange(1, kMaxCount);
        return s;
    };
    m_min = spin(QStringLiteral("roleMin"));
    m_max = spin(QStringLiteral("roleMax"));
    m_count = spin(QStringLiteral("roleCount"));
    m_cpus = new QDoubleSpinBox;
    m_cpus->setObjectName(QStringLiteral("taskCpus"));
    m_cpus->setRange(0, 4096);
    m_cpus->setDecimals(2);
    m_cpus->setSingleStep(0.25);
    m_cpus->setSpecialValueText(tr("unset")); // 0 cpus is not a limit the loader accepts
    m_memory = new QLineEdit;
    m_memory->setObjectName(QStringLiteral("taskMemory"));
    m_memory->setPlaceholderText(tr("unset (e.g. 512m, 4g)"));

    // Without buddies these fields would all be named after the group box ("Role “worker”").
    auto labelled = [](const QString &text, QWidget *field) {
        auto *label = new QLabel(text);
        label->setBuddy(field);
        return label;
    };
    auto *counts = new QHBoxLayout;
    counts->addWidget(labelled(tr("Min:"), m_min));
    counts->addWidget(m_min);
    counts->addSpacing(8);
    counts->addWidget(labelled(tr("Ma&x:"), m_max));
    counts->addWidget(m_max);
    counts->addSpacing(8);
    counts->addWidget(labelled(tr("D&efault:"), m_count));
    counts->addWidget(m_count);
    counts->addStretch();
    auto *resources = new QHBoxLayout;
    resources->addWidget(labelled(tr("CPUs:"), m_cpus));
    resources->addWidget(m_cpus);
    resources->addSpacing(8);
    resources->addWidget(labelled(tr("Memor&y:"), m_memory));
    resources->addWidget(m_memory, 1);

    m_env = new KeyValueTable(tr("Variable"), tr("Value"));
    m_env->setObjectName(QStringLiteral("taskEnv"));
    m_env->setAccessibleName(tr("Environment of the role"));
    m_mounts = new MountsTable;
    m_mounts->setObjectName(QStringLiteral("taskMounts"));
    m_mounts->setAccessibleName(tr("Mounts of the role"));
    m_ports = new PortsTable;
    m_ports->setObjectName(QStringLiteral("taskPorts"));
    m_ports->setAccessibleName(tr("Service ports of the role"));
    m_bootstrap = new ScriptEdit;
    m_bootstrap->setObjectName(QStringLiteral("taskBootstrap"));
    m_bootstrap->setAccessibleName(tr("Bootstrap script"));
    m_bootstrap->setTabChangesFocus(false); // a page of its own: Tab indents there
    m_bootstrap->setPlaceholderText(tr("#!/bin/sh\n# runs in every kernel of this role before "
                                       "the command"));

    auto *addEnv = new QPushButton(tr("Add Variable"));
    auto *removeEnv = new QPushButton(tr("Remove"));
    auto *addMount = new QPushButton(tr("Add Mount"));
    auto *removeMount = new QPushButton(tr("Remove"));
    auto *addPort = new QPushButton(tr("Add Port"));
    auto *removePort = new QPushButton(tr("Remove"));
    // "Remove" alone does not say what goes (the tooltip is also the accessible description).
    removeEnv->setToolTip(tr("Remove the selected variable"));
    removeMount->setToolTip(tr("Remove the selected mount"));
    removePort->setToolTip(tr("Remove the selected port"));
    m_sections = new QTabWidget;
    m_sections->addTab(withButtons(m_env, addEnv, removeEnv), tr("Environment"));
    m_sections->addTab(withButtons(m_mounts, addMount, removeMount), tr("Mounts"));
    m_sections->addTab(withButtons(m_ports, addPort, removePort), tr("Ports"));
    m_sections->addTab(m_bootstrap, tr("Bootstrap"));
    m_overridesPage = buildOverridesPage();
    m_sections->addTab(m_overridesPage, tr("Overrides"));
    m_morePage = buildMorePage();
    m_sections->addTab(m_morePage, tr("More"));

    m_box = new QGroupBox;
    auto *note = new QHBoxLayout;
    note->addWidget(m_taskFileNote, 1);
    note->addWidget(m_inline);
    auto *form = new QFormLayout;
    form->addRow(tr("I&mage:"), m_image);
    auto *command = new QWidget;
    auto *commandLayout = new QVBoxLayout(command);
    commandLayout->setContentsMargins(0, 0, 0, 0);
    auto *kindRow = new QHBoxLayout;
    kindRow->addWidget(m_commandKind);
    kindRow->addStretch();
    commandLayout->addLayout(kindRow);
    commandLayout->addWidget(m_commandPages);
    m_commandLabel = new QLabel(tr("&Command:"));
    m_commandLabel->setBuddy(m_commandScript); // follows the kind (showCommand)
    form->addRow(m_commandLabel, command);
    form->addRow(tr("Kernels:"), counts);
    form->addRow(tr("Resources:"), resources);
    auto *boxLayout = new QVBoxLayout(m_box);
    boxLayout->addLayout(note);
    boxLayout->addLayout(form);
    boxLayout->addWidget(m_sections, 1);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_box);

    connect(m_image, &QComboBox::editTextChanged, this, &RoleTaskEditor::changed);
    connect(m_image->lineEdit(), &QLineEdit::editingFinished, this, &RoleTaskEditor::offerRegistryTags);
    connect(m_commandScript, &QPlainTextEdit::textChanged, this, &RoleTaskEditor::changed);
    connect(m_commandArgs, &QPlainTextEdit::textChanged, this, &RoleTaskEditor::changed);
    connect(m_commandKind, &QComboBox::activated, this, &RoleTaskEditor::commandKindChosen);
    connect(m_memory, &QLineEdit::textEdited, this, &RoleTaskEditor::changed);
    for (QSpinBox *s : {m_min, m_max, m_count})
        connect(s, &QSpinBox::valueChanged, this, &RoleTaskEditor::changed);
    connect(m_cpus, &QDoubleSpinBox::valueChanged, this, &RoleTaskEditor::changed);
    connect(m_env, &QTableWidget::itemChanged, this, &RoleTaskEditor::changed);
    connect(m_mounts, &MountsTable::edited, this, &RoleTaskEditor::changed);
    connect(m_ports, &PortsTable::edited, this, &RoleTaskEditor::changed);
    connect(m_bootstrap, &QPlainTextEdit::textChanged, this, &RoleTaskEditor::changed);

    connect(addEnv, &QPushButton::clicked, m_env, &KeyValueTable::addEmptyRow);
    connect(addMount, &QPushButton::clicked, m_mounts, &MountsTable::addEmptyRow);
    connect(addPort, &QPushButton::clicked, m_ports, &PortsTable::addEmptyRow);
    connect(removeEnv, &QPushButton::clicked, this, [this] { removeCurrentRow(m_env); });
    connect(removeMount, &QPushButton::clicked, this, [this] { removeCurrentRow(m_mounts); });
    connect(removePort, &QPushButton::clicked, this, [this] { removeCurrentRow(m_ports); });
    connect(m_inline, &QPushButton::clicked, this, [this] {
        m_base.taskFile.clear();
        updateTaskFileState();
        changed();
    });
}

void RoleTaskEditor::removeCurrentRow(FormTable *table)
{
    if (table->removeCurrentRow())
        changed();
}

void RoleTaskEditor::changed()
{
    if (m_updating || !m_hasRole)
        return;
    Q_EMIT edited();
}

void RoleTaskEditor::clear()
{
    const QScopedValueRollback updating(m_updating, true);
    clearMarks();
    m_hasRole = false;
    m_base = RoleTemplate{};
    m_box->setTitle(tr("No role selected"));
    m_image->setEditText(QString());
    showCommand({});
    m_memory->clear();
    m_cpus->setValue(0);
    for (QTableWidget *t : std::initializer_list<QTableWidget *>{
             m_env, m_mounts, m_ports, m_labels, m_hostLabels, m_overrideEnv, m_overridePorts})
        t->setRowCount(0);
    m_overrideCpus->setValue(0);
    m_overrideMemory->clear();
    m_overrideGpus->setValue(-1);
    m_bootstrap->clear();
    m_pullPolicy->setCurrentIndex(0);
    m_gpus->setValue(-1);
    for (QLineEdit *e : {m_user, m_workingDir, m_onScale, m_bindAddress})
        e->clear();
    m_entrypoint->clear();
    m_box->setEnabled(false);
    updateTaskFileState();
}

void RoleTaskEditor::setRole(const RoleTemplate &role, const QString &memoryText)
{
    const QScopedValueRollback updating(m_updating, true);
    const bool otherRole = !m_hasRole || role.name != m_base.name;
    m_base = role;
    m_hasRole = true;
    m_box->setEnabled(true);
    m_box->setTitle(tr("Role “%1”").arg(role.name));
    const TaskTemplate &task = role.task;
    if (m_image->currentText() != task.image)
        m_image->setEditText(task.image);
    if (otherRole || shownCommand() != task.command)
        showCommand(task.command);
    m_min->setValue(role.min);
    m_max->setValue(role.max);
    m_count->setValue(role.count);
    m_cpus->setValue(task.resources.cpus.value_or(0));
    if (m_memory->text() != memoryText) {
        const auto shown = TemplateValues::parseMemory(m_memory->text());
        const auto wanted = TemplateValues::parseMemory(memoryText);
        if (otherRole || !shown || shown != wanted)
            m_memory->setText(memoryText);
    }
    if (otherRole || env() != task.env)
        setEnv(task.env);
    if (otherRole || m_mounts->mounts() != task.mounts)
        m_mounts->setMounts(task.mounts);
    if (otherRole || m_ports->ports() != task.ports)
        m_ports->setPorts(task.ports);
    if (m_bootstrap->toPlainText() != task.bootstrap)
        m_bootstrap->setPlainText(task.bootstrap);
    m_pullPolicy->setCurrentIndex(task.pullPolicy ? m_pullPolicy->findData(int(*task.pullPolicy))
                                                  : 0);
    m_gpus->setValue(task.resources.gpus.value_or(-1));
    for (auto [edit, value] :
         {std::pair{m_user, &task.user}, std::pair{m_workingDir, &task.workingDir},
          std::pair{m_onScale, &task.onScale}, std::pair{m_bindAddress, &task.bindAddress}})
        if (edit->text() != *value)
            edit->setText(*value);
    if (otherRole || linesOf(m_entrypoint) != task.entrypoint)
        m_entrypoint->setPlainText(task.entrypoint.join(QLatin1Char('\n')));
    if (otherRole || m_labels->pairs() != task.labels)
        m_labels->setPairs(task.labels);
    if (otherRole || m_hostLabels->pairs() != role.hostLabels)
        m_hostLabels->setPairs(role.hostLabels);
    setOverrides(role.overrides, otherRole);
    updateTaskFileState();
}

void RoleTaskEditor::updateTaskFileState()
{
    const bool fromFile = !m_base.taskFile.isEmpty();
    m_taskFileNote->setVisible(fromFile);
    m_inline->setVisible(fromFile);
    if (fromFile)
        m_taskFileNote->setText(
            tr("The task comes from <b>%1</b> (shared with the roles that name it); edit that "
               "file, or copy its content into this role.")
                .arg(m_base.taskFile.toHtmlEscaped()));
    for (QWidget *w : std::initializer_list<QWidget *>{m_image, m_commandKind, m_commandPages,
                                                       m_cpus, m_memory, m_taskMore})
        w->setEnabled(!fromFile);
    // The task's pages; the overrides and the More page's host labels are the role's own,
    // editable either way.
    for (int i = 0; i < m_sections->count(); ++i)
        if (QWidget *page = m_sections->widget(i); page != m_overridesPage && page != m_morePage)
            page->setEnabled(!fromFile);
}

RoleTemplate RoleTaskEditor::role() const
{
    RoleTemplate r = m_base;
    r.min = m_min->value();
    r.max = m_max->value();
    r.count = m_count->value();
    r.hostLabels = m_hostLabels->pairs();
    r.overrides = overrides();
    if (!r.taskFile.isEmpty())
        return r; // the writer keeps the reference; the file's task is not edited here
    TaskTemplate &task = r.task;
    task.image = m_image->currentText().trimmed();
    task.command = shownCommand();
    // The spin box rounds to its decimals: an untouched value keeps the template's own.
    const double shownCpus = m_base.task.resources.cpus.value_or(0);
    if (qAbs(m_cpus->value() - shownCpus) >= 0.005)
        task.resources.cpus =
            m_cpus->value() > 0 ? std::optional<double>(m_cpus->value()) : std::nullopt;
    task.resources.memoryBytes = TemplateValues::parseMemory(m_memory->text());
    task.env = env();
    task.mounts = m_mounts->mounts();
    task.ports = m_ports->ports();
    task.bootstrap = m_bootstrap->toPlainText();
    const QVariant policy = m_pullPolicy->currentData();
    task.pullPolicy =
        policy.isValid() ? std::optional<PullPolicy>(PullPolicy(policy.toInt())) : std::nullopt;
    task.resources.gpus = m_gpus->value() >= 0 ? std::optional<int>(m_gpus->value()) : std::nullopt;
    task.user = m_user->text().trimmed();
    task.workingDir = m_workingDir->text().trimmed();
    task.onScale = m_onScale->text().trimmed();
    task.bindAddress = m_bindAddress->text().trimmed();
    task.entrypoint = linesOf(m_entrypoint);
    task.labels = m_labels->pairs();
    return r;
}

QString RoleTaskEditor::memoryText() const
{
    return m_memory->text().trimmed();
}

void RoleTaskEditor::setKnownImages(const QStringList &images)
{
    const QScopedValueRollback updating(m_updating, true);
    const QString current = m_image->currentText();
    m_image->clear();
    m_image->addItems(images);
    m_image->setCurrentIndex(-1); // no item is "current" unless the text is one
    m_image->setEditText(current);
}

void RoleTaskEditor::offerRegistryTags()
{
    const QString text = m_image->currentText().trimmed();
    auto ref = Registry::ImageReference::parse(text);
    if (!ref || ref->isDockerHub() || ref->name() == m_tagsAskedFor)
        return;
    m_tagsAskedFor = ref->name();
    auto *watcher = new QFutureWatcher<Result<QStringList>>(this);
    connect(watcher, &QFutureWatcherBase::finished, this, [this, watcher] {
        watcher->deleteLater();
        const Result<QStringList> tags = watcher->result();
        if (!tags) {
            m_image->setToolTip(tags.error().toString());
            return;
        }
        const QScopedValueRollback updating(m_updating, true);
        const QString current = m_image->currentText();
        for (const QString &t : *tags) {
            if (m_image->findText(t) < 0)
                m_image->addItem(t);
        }
        m_image->setEditText(current);
        m_image->setToolTip(tr("%n tag(s) in the registry", nullptr, int(tags->size())));
    });
    watcher->setFuture(QtConcurrent::run([text] { return Registry::RegistryClient::tagReferences(text); }));
}

QPlainTextEdit *RoleTaskEditor::commandScriptEdit() const
{
    return m_commandScript;
}

QPlainTextEdit *RoleTaskEditor::bootstrapEdit() const
{
    return m_bootstrap;
}

bool RoleTaskEditor::isShellScript(const QStringList &command)
{
    static const QStringList shells{QStringLiteral("/bin/sh"), QStringLiteral("sh"),
                                    QStringLiteral("/bin/bash"), QStringLiteral("bash")};
    return command.size() == 3 && shells.contains(command.at(0)) && command.at(1) == u"-c";
}

QString RoleTaskEditor::shellQuoted(const QStringList &args)
{
    static const QRegularExpression plain(QStringLiteral(R"(^[A-Za-z0-9_@%+=:,./-]+$)"));
    QStringList words;
    for (const QString &arg : args) {
        if (plain.match(arg).hasMatch())
            words << arg;
        else // '...' keeps everything but ' itself, which is written '\''
            words << u'\'' + QString(arg).replace(u'\'', QStringLiteral("'\\''")) + u'\'';
    }
    return words.join(u' ');
}

// Puts `command` in the editor of its kind. Untouched, shownCommand() gives it back exactly.
void RoleTaskEditor::showCommand(const QStringList &command)
{
    const bool script = isShellScript(command) || command.isEmpty();
    const int kind = script ? ScriptCommand : ArgumentsCommand;
    m_commandKind->setCurrentIndex(kind);
    m_commandPages->setCurrentIndex(kind);
    m_commandLabel->setBuddy(m_commandPages->currentWidget());
    const QString scriptText = script && !command.isEmpty() ? command.at(2) : QString();
    if (m_commandScript->toPlainText() != scriptText)
        m_commandScript->setPlainText(scriptText);
    const QString argsText = script ? QString() : command.join(u'\n');
    if (m_commandArgs->toPlainText() != argsText)
        m_commandArgs->setPlainText(argsText);
    // An argument with a line break has no one-per-line form: the YAML tab edits that list.
    const bool representable = std::none_of(command.cbegin(), command.cend(),
                                            [](const QString &a) { return a.contains(u'\n'); });
    m_commandArgs->setReadOnly(!script && !representable);
    m_commandArgs->setToolTip(m_commandArgs->isReadOnly()
                                  ? tr("An argument has a line break: edit it in the YAML tab")
                                  : QString());
}

QStringList RoleTaskEditor::shownCommand() const
{
    const QStringList &base = m_base.task.command;
    // The page, not the combo: while a new kind is being chosen, the page still shows the old.
    if (m_commandPages->currentIndex() == ScriptCommand) {
        const QString script = m_commandScript->toPlainText();
        if (isShellScript(base))
            return {base.at(0), base.at(1), script}; // bash stays bash
        if (script.isEmpty())
            return {};
        return {QStringLiteral("/bin/sh"), QStringLiteral("-c"), script};
    }
    if (m_commandArgs->isReadOnly() || m_commandArgs->toPlainText() == base.join(u'\n'))
        return base;
    QStringList args = m_commandArgs->toPlainText().split(u'\n');
    while (!args.isEmpty() && args.last().isEmpty()) // the line a final Return opened
        args.removeLast();
    return args;
}

void RoleTaskEditor::commandKindChosen(int kind)
{
    if (kind == m_commandPages->currentIndex())
        return;
    const QString script = m_commandScript->toPlainText();
    if (kind == ArgumentsCommand && script.trimmed().contains(u'\n')) {
        // Lines of a script are no argument list; nothing is converted.
        m_commandKind->setCurrentIndex(ScriptCommand);
        m_commandKind->setToolTip(tr("A script of several lines cannot be an argument list"));
        return;
    }
    m_commandKind->setToolTip(QString());
    const QStringList command = kind == ArgumentsCommand
                                    ? splitCommand(script.trimmed())
                                    : QStringList{QStringLiteral("/bin/sh"), QStringLiteral("-c"),
                                                  shellQuoted(shownCommand())};
    {
        const QScopedValueRollback updating(m_updating, true);
        showCommand(command);
        m_commandKind->setCurrentIndex(kind); // also for an empty command
        m_commandPages->setCurrentIndex(kind);
        m_commandLabel->setBuddy(m_commandPages->currentWidget());
    }
    changed();
}

QStringList RoleTaskEditor::splitCommand(const QString &line)
{
    return QProcess::splitCommand(line);
}

void RoleTaskEditor::setEnv(const QMap<QString, QString> &env)
{
    m_env->setPairs(env);
}

QMap<QString, QString> RoleTaskEditor::env() const
{
    return m_env->pairs();
}

QWidget *RoleTaskEditor::buildMorePage()
{
    m_pullPolicy = new QComboBox;
    m_pullPolicy->setObjectName(QStringLiteral("taskPullPolicy"));
    m_pullPolicy->addItem(tr("unset (if not present)"));
    for (PullPolicy p : {PullPolicy::IfNotPresent, PullPolicy::Always, PullPolicy::Never})
        m_pullPolicy->addItem(TemplateValues::pullPolicyName(p), int(p));
    m_pullPolicy->setToolTip(tr("When a host pulls the image: only when it lacks it, before "
                                "every launch, or never"));
    m_gpus = new QSpinBox;
    m_gpus->setObjectName(QStringLiteral("taskGpus"));
    m_gpus->setRange(-1, 64);
    m_gpus->setSpecialValueText(tr("unset"));
    m_gpus->setToolTip(tr("GPUs per kernel, passed to Docker as a device request"));
    auto line = [](const QString &name, const QString &placeholder) {
        auto *e = new QLineEdit;
        e->setObjectName(name);
        e->setPlaceholderText(placeholder);
        return e;
    };
    m_user = line(QStringLiteral("taskUser"), tr("the image's user (e.g. 1000:1000, app)"));
    m_workingDir = line(QStringLiteral("taskWorkingDir"), tr("the image's (an absolute path)"));
    m_onScale = line(QStringLiteral("taskOnScale"),
                     tr("run in every kernel after a scale (an absolute path)"));
    m_bindAddress = line(QStringLiteral("taskBindAddress"),
                         tr("the host's registered address; 0.0.0.0: every interface"));
    m_entrypoint = new QPlainTextEdit;
    m_entrypoint->setObjectName(QStringLiteral("taskEntrypoint"));
    m_entrypoint->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    m_entrypoint->setLineWrapMode(QPlainTextEdit::NoWrap);
    m_entrypoint->setTabChangesFocus(true);
    m_entrypoint->setPlaceholderText(tr("the image's entrypoint (one argument per line)"));
    m_entrypoint->setFixedHeight(3 * m_entrypoint->fontMetrics().lineSpacing() + 12);
    m_labels = new KeyValueTable(tr("Label"), tr("Value"));
    m_labels->setObjectName(QStringLiteral("taskLabels"));
    m_labels->setAccessibleName(tr("Container labels of the role"));
    m_hostLabels = new KeyValueTable(tr("Host label"), tr("Value"));
    m_hostLabels->setObjectName(QStringLiteral("roleHostLabels"));
    m_hostLabels->setAccessibleName(tr("Host labels the role is placed by"));
    m_hostLabels->setToolTip(tr("Kernels of this role go only to hosts carrying every label"));
    for (QTableWidget *t : std::initializer_list<QTableWidget *>{m_labels, m_hostLabels})
        t->setMinimumHeight(4 * t->fontMetrics().lineSpacing());

    auto *task = new QFormLayout;
    auto row = [task](const QString &text, QWidget *field) {
        auto *label = new QLabel(text);
        label->setBuddy(field);
        task->addRow(label, field);
    };
    row(tr("&Pull policy:"), m_pullPolicy);
    row(tr("&GPUs:"), m_gpus);
    row(tr("&User:"), m_user);
    row(tr("&Working directory:"), m_workingDir);
    row(tr("&Entrypoint:"), m_entrypoint);
    row(tr("On &scale:"), m_onScale);
    row(tr("&Bind address:"), m_bindAddress);
    auto *addLabel = new QPushButton(tr("Add Label"));
    auto *removeLabel = new QPushButton(tr("Remove"));
    removeLabel->setToolTip(tr("Remove the selected label"));
    auto *labelsLabel = new QLabel(tr("&Labels:"));
    labelsLabel->setBuddy(m_labels);
    task->addRow(labelsLabel, withButtons(m_labels, addLabel, removeLabel));
    m_taskMore = new QWidget;
    m_taskMore->setLayout(task);

    auto *addHostLabel = new QPushButton(tr("Add Host Label"));
    auto *removeHostLabel = new QPushButton(tr("Remove"));
    removeHostLabel->setToolTip(tr("Remove the selected host label"));
    auto *placement = new QFormLayout;
    auto *hostLabelsLabel = new QLabel(tr("&Host labels:"));
    hostLabelsLabel->setBuddy(m_hostLabels);
    placement->addRow(hostLabelsLabel, withButtons(m_hostLabels, addHostLabel, removeHostLabel));

    auto *page = new QWidget;
    auto *layout = new QVBoxLayout(page);
    layout->addWidget(m_taskMore);
    layout->addLayout(placement);
    layout->addStretch();
    QScrollArea *scroll = scrolled(page, tr("More fields of the role"));

    connect(m_pullPolicy, &QComboBox::activated, this, &RoleTaskEditor::changed);
    connect(m_gpus, &QSpinBox::valueChanged, this, &RoleTaskEditor::changed);
    for (QLineEdit *e : {m_user, m_workingDir, m_onScale, m_bindAddress})
        connect(e, &QLineEdit::textEdited, this, &RoleTaskEditor::changed);
    connect(m_entrypoint, &QPlainTextEdit::textChanged, this, &RoleTaskEditor::changed);
    for (QTableWidget *t : std::initializer_list<QTableWidget *>{m_labels, m_hostLabels})
        connect(t, &QTableWidget::itemChanged, this, &RoleTaskEditor::changed);
    connect(addLabel, &QPushButton::clicked, m_labels, &KeyValueTable::addEmptyRow);
    connect(removeLabel, &QPushButton::clicked, this, [this] { removeCurrentRow(m_labels); });
    connect(addHostLabel, &QPushButton::clicked, m_hostLabels, &KeyValueTable::addEmptyRow);
    connect(removeHostLabel, &QPushButton::clicked, this,
            [this] { removeCurrentRow(m_hostLabels); });
    return scroll;
}

QWidget *RoleTaskEditor::buildOverridesPage()
{
    m_overrideEnv = new KeyValueTable(tr("Variable"), tr("Value"));
    m_overrideEnv->setObjectName(QStringLiteral("overrideEnv"));
    m_overrideEnv->setAccessibleName(tr("Environment the role overrides"));
    m_overrideEnv->setToolTip(tr("overrides.env: over the task's and the template's env"));
    m_overridePorts = new PortsTable;
    m_overridePorts->setObjectName(QStringLiteral("overridePorts"));
    m_overridePorts->setAccessibleName(tr("Ports the role overrides"));
    m_overridePorts->setToolTip(
        tr("overrides.ports: a port replaces the task's port of the same name, or is added"));
    for (QTableWidget *t : std::initializer_list<QTableWidget *>{m_overrideEnv, m_overridePorts})
        t->setMinimumHeight(4 * t->fontMetrics().lineSpacing());
    m_overrideCpus = new QDoubleSpinBox;
    m_overrideCpus->setObjectName(QStringLiteral("overrideCpus"));
    m_overrideCpus->setRange(0, 4096);
    m_overrideCpus->setDecimals(2);
    m_overrideCpus->setSingleStep(0.25);
    m_overrideCpus->setSpecialValueText(tr("the task's"));
    m_overrideMemory = new QLineEdit;
    m_overrideMemory->setObjectName(QStringLiteral("overrideMemory"));
    m_overrideMemory->setPlaceholderText(tr("the task's (e.g. 512m, 4g)"));
    m_overrideGpus = new QSpinBox;
    m_overrideGpus->setObjectName(QStringLiteral("overrideGpus"));
    m_overrideGpus->setRange(-1, 1024);
    m_overrideGpus->setSpecialValueText(tr("the task's"));
    // Their labels read as the task's own fields' do: the names tell them apart.
    m_overrideCpus->setAccessibleName(tr("CPUs the role overrides"));
    m_overrideMemory->setAccessibleName(tr("Memory the role overrides"));
    m_overrideGpus->setAccessibleName(tr("GPUs the role overrides"));

    auto *note = new QLabel(tr("What this role's kernels get over the task's: variables added or "
                               "replaced, ports replaced by name or added, single resources "
                               "replaced."));
    note->setWordWrap(true);
    auto *form = new QFormLayout;
    auto row = [form](const QString &text, QWidget *buddy, QWidget *field) {
        auto *label = new QLabel(text);
        label->setBuddy(buddy);
        form->addRow(label, field);
    };
    auto *addEnv = new QPushButton(tr("Add Variable"));
    auto *removeEnv = new QPushButton(tr("Remove"));
    removeEnv->setToolTip(tr("Remove the selected overridden variable"));
    row(tr("Env&ironment:"), m_overrideEnv, withButtons(m_overrideEnv, addEnv, removeEnv));
    auto *addPort = new QPushButton(tr("Add Port"));
    auto *removePort = new QPushButton(tr("Remove"));
    removePort->setToolTip(tr("Remove the selected overridden port"));
    row(tr("P&orts:"), m_overridePorts, withButtons(m_overridePorts, addPort, removePort));
    auto *resources = new QHBoxLayout;
    const std::initializer_list<std::pair<QString, QWidget *>> fields{
        {tr("CP&Us:"), m_overrideCpus},
        {tr("Memo&ry:"), m_overrideMemory},
        {tr("&GPUs:"), m_overrideGpus}};
    for (const auto &[text, field] : fields) {
        auto *label = new QLabel(text);
        label->setBuddy(field);
        resources->addWidget(label);
        resources->addWidget(field, field == m_overrideMemory ? 1 : 0);
    }
    auto *resourcesLabel = new QLabel(tr("Resources:"));
    form->addRow(resourcesLabel, resources);

    auto *page = new QWidget;
    auto *layout = new QVBoxLayout(page);
    layout->addWidget(note);
    layout->addLayout(form);
    layout->addStretch();
    QScrollArea *scroll = scrolled(page, tr("Overrides of the role"));

    connect(m_overrideEnv, &QTableWidget::itemChanged, this, &RoleTaskEditor::changed);
    connect(m_overridePorts, &PortsTable::edited, this, &RoleTaskEditor::changed);
    connect(m_overrideCpus, &QDoubleSpinBox::valueChanged, this, &RoleTaskEditor::changed);
    connect(m_overrideGpus, &QSpinBox::valueChanged, this, &RoleTaskEditor::changed);
    connect(m_overrideMemory, &QLineEdit::textEdited, this, [this](const QString &text) {
        // Not kept as typed like the task's size: say at once that it is not a size.
        const bool bad = !text.trimmed().isEmpty() && !TemplateValues::parseMemory(text.trimmed());
        m_overrideMemory->setStyleSheet(bad ? QString::fromLatin1(kErrorStyle) : QString());
        m_overrideMemory->setToolTip(bad ? tr("“%1” is not a size: a number with k, m, g or t "
                                              "(e.g. 512m, 4g)")
                                               .arg(text.trimmed())
                                         : QString());
        if (!bad)
            changed();
    });
    connect(addEnv, &QPushButton::clicked, m_overrideEnv, &KeyValueTable::addEmptyRow);
    connect(removeEnv, &QPushButton::clicked, this, [this] { removeCurrentRow(m_overrideEnv); });
    connect(addPort, &QPushButton::clicked, m_overridePorts, &PortsTable::addEmptyRow);
    connect(removePort, &QPushButton::clicked, this, [this] { removeCurrentRow(m_overridePorts); });
    return scroll;
}

void RoleTaskEditor::setOverrides(const RoleOverrides &overrides, bool otherRole)
{
    if (otherRole || m_overrideEnv->pairs() != overrides.env)
        m_overrideEnv->setPairs(overrides.env);
    if (otherRole || m_overridePorts->ports() != overrides.ports)
        m_overridePorts->setPorts(overrides.ports);
    m_overrideCpus->setValue(overrides.resources.cpus.value_or(0));
    const auto shown = TemplateValues::parseMemory(m_overrideMemory->text().trimmed());
    if (otherRole || shown != overrides.resources.memoryBytes) {
        m_overrideMemory->setText(
            overrides.resources.memoryBytes
                ? TemplateValues::formatMemory(*overrides.resources.memoryBytes)
                : QString());
        m_overrideMemory->setStyleSheet(QString());
        m_overrideMemory->setToolTip(QString());
    }
    m_overrideGpus->setValue(overrides.resources.gpus.value_or(-1));
}

RoleOverrides RoleTaskEditor::overrides() const
{
    RoleOverrides o = m_base.overrides;
    o.env = m_overrideEnv->pairs();
    o.ports = m_overridePorts->ports();
    const double shownCpus = m_base.overrides.resources.cpus.value_or(0);
    if (qAbs(m_overrideCpus->value() - shownCpus) >= 0.005)
        o.resources.cpus = m_overrideCpus->value() > 0
                               ? std::optional<double>(m_overrideCpus->value())
                               : std::nullopt;
    const QString memory = m_overrideMemory->text().trimmed();
    if (memory.isEmpty())
        o.resources.memoryBytes.reset();
    else if (const auto bytes = TemplateValues::parseMemory(memory))
        o.resources.memoryBytes = bytes;
    o.resources.gpus =
        m_overrideGpus->value() >= 0 ? std::optional<int>(m_overrideGpus->value()) : std::nullopt;
    return o;
}

void RoleTaskEditor::markWidget(QWidget *widget, const QString &message)
{
    widget->setStyleSheet(QString::fromLatin1(kErrorStyle));
    widget->setToolTip(message);
    m_marked << widget;
}

void RoleTaskEditor::markRow(QTableWidget *table, int row, const QString &message)
{
    for (int c = 0; c < table->columnCount(); ++c) {
        if (QTableWidgetItem *it = table->item(row, c)) {
            it->setBackground(kErrorColor);
            it->setToolTip(message);
        } else if (QWidget *w = table->cellWidget(row, c)) {
            markWidget(w, message);
        }
    }
    m_markedTables << table;
}

void RoleTaskEditor::markKey(QTableWidget *table, const QString &key, const QString &message)
{
    for (int r = 0; !key.isEmpty() && r < table->rowCount(); ++r) {
        if (cellText(table, r, EnvKey) == key) {
            markRow(table, r, message);
            return;
        }
    }
    markWidget(table, message);
}

bool RoleTaskEditor::markField(const QString &path, const QString &message)
{
    const QScopedValueRollback updating(m_updating, true);
    static const QRegularExpression indexed(QStringLiteral(R"(^task\.(ports|mounts)\[(\d+)\])"));
    static const QRegularExpression overridePort(QStringLiteral(R"(^overrides\.ports\[(\d+)\])"));
    QWidget *section = nullptr; // the tab that holds the field, if any
    bool marked = true;
    if (path == u"min")
        markWidget(m_min, message);
    else if (path == u"max")
        markWidget(m_max, message);
    else if (path == u"count")
        markWidget(m_count, message);
    else if (path == u"task.image")
        markWidget(m_image, message);
    else if (path == u"task.command" || path.startsWith(u"task.command["))
        markWidget(m_commandPages->currentWidget(), message);
    else if (path.startsWith(u"task.resources.memory"))
        markWidget(m_memory, message);
    else if (path.startsWith(u"task.resources.cpus"))
        markWidget(m_cpus, message);
    else if (path == u"task.bootstrap")
        markWidget(section = m_bootstrap, message);
    else if (const QHash<QString, QWidget *> more{
                 {QStringLiteral("task.pullPolicy"), m_pullPolicy},
                 {QStringLiteral("task.resources.gpus"), m_gpus},
                 {QStringLiteral("task.user"), m_user},
                 {QStringLiteral("task.workingDir"), m_workingDir},
                 {QStringLiteral("task.entrypoint"), m_entrypoint},
                 {QStringLiteral("task.onScale"), m_onScale},
                 {QStringLiteral("task.bindAddress"), m_bindAddress}};
             more.contains(path.section(u'[', 0, 0)))
        markWidget(section = more.value(path.section(u'[', 0, 0)), message);
    else if (path == u"task.labels" || path.startsWith(u"task.labels."))
        markWidget(section = m_labels, message);
    else if (path == u"hostLabels" || path.startsWith(u"hostLabels."))
        markWidget(section = m_hostLabels, message);
    else if (path == u"task.env" || path.startsWith(u"task.env.")) {
        section = m_env;
        markKey(m_env, path.mid(int(qstrlen("task.env."))), message);
    } else if (path == u"overrides.env" || path.startsWith(u"overrides.env.")) {
        section = m_overrideEnv;
        markKey(m_overrideEnv, path.mid(int(qstrlen("overrides.env."))), message);
    } else if (const auto m = overridePort.match(path); m.hasMatch()) {
        section = m_overridePorts;
        const int row = m_overridePorts->usedRows().value(m.captured(1).toInt(), -1);
        if (row >= 0)
            markRow(m_overridePorts, row, message);
        else
            markWidget(m_overridePorts, message);
    } else if (path.startsWith(u"overrides.resources.cpus")) {
        markWidget(section = m_overrideCpus, message);
    } else if (path.startsWith(u"overrides.resources.memory")) {
        markWidget(section = m_overrideMemory, message);
    } else if (path.startsWith(u"overrides.resources.gpus")) {
        markWidget(section = m_overrideGpus, message);
    } else if (path.startsWith(u"overrides")) {
        markWidget(section = m_overridePorts, message);
    } else if (const auto m = indexed.match(path); m.hasMatch()) {
        const bool ports = m.captured(1) == u"ports";
        QTableWidget *table = ports ? static_cast<QTableWidget *>(m_ports) : m_mounts;
        section = table;
        const int row =
            (ports ? m_ports->usedRows() : m_mounts->usedRows()).value(m.captured(2).toInt(), -1);
        if (row >= 0)
            markRow(table, row, message);
        else
            markWidget(table, message);
    } else if (path == u"task.ports" || path == u"task.mounts") {
        section = path == u"task.ports" ? static_cast<QWidget *>(m_ports) : m_mounts;
        markWidget(section, message);
    } else {
        marked = false;
    }
    if (section) {
        for (int i = 0; i < m_sections->count(); ++i)
            if (m_sections->widget(i) == section || m_sections->widget(i)->isAncestorOf(section))
                m_sections->tabBar()->setTabTextColor(i, kErrorText);
    }
    return marked;
}

void RoleTaskEditor::clearMarks()
{
    const QScopedValueRollback updating(m_updating, true);
    for (const QPointer<QWidget> &w : std::as_const(m_marked)) {
        if (!w)
            continue;
        w->setStyleSheet(QString());
        w->setToolTip(QString());
    }
    m_marked.clear();
    for (QTableWidget *table : std::as_const(m_markedTables)) {
        for (int r = 0; r < table->rowCount(); ++r)
            for (int c = 0; c < table->columnCount(); ++c)
                if (QTableWidgetItem *it = table->item(r, c)) {
                    it->setBackground(QBrush());
                    it->setToolTip(QString());
                }
    }
    m_markedTables.clear();
    for (int i = 0; i < m_sections->count(); ++i)
        m_sections->tabBar()->setTabTextColor(i, QColor());
}

} // namespace ClusterDeck::Ui
