#include "templates/roletable.h"
#include "templates/roletaskeditor.h"
#include "templates/templateeditor.h"

#include "support/linediff.h"

#include "template/templateloader.h"
#include "template/templatevalues.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDir>
#include <QDoubleSpinBox>
#include <QDropEvent>
#include <QFile>
#include <QFileInfo>
#include <QLineEdit>
#include <QListWidget>
#include <QMimeData>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QRegularExpression>
#include <QSpinBox>
#include <QTabWidget>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QTextBlock>

using namespace ClusterDeck;
using namespace ClusterDeck::Ui;

class TestTemplateEditor : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void init();
    void editRoleInFormShowsInYaml();
    void invalidValueShowsErrorWithLineAndField();
    void yamlEditUpdatesForm();
    void savedFileLoadsBackIdentical();
    void unsavedChangesAreNotLostSilently();
    void taskEditShowsInYaml_data();
    void taskEditShowsInYaml();
    void yamlEditShowsInTaskEditor();
    void invalidTaskValueIsListedAndMarked_data();
    void invalidTaskValueIsListedAndMarked();
    void knownImagesFillTheImageBox();
    void imagesOfHosts_data();
    void imagesOfHosts();
    void dropReordersRoles_data();
    void dropReordersRoles();
    void moveButtonsReorderRoles_data();
    void moveButtonsReorderRoles();
    void sampleSavedUntouchedLoadsBackIdentical_data();
    void sampleSavedUntouchedLoadsBackIdentical();
    void sampleSurvivesTaskEditorRewrite_data();
    void sampleSurvivesTaskEditorRewrite();
    void successPolicyInForm_data();
    void successPolicyInForm();
    void successPolicyFromYaml();
    void renamedSuccessRoleIsMarked();
    void hostPathNeedsTheBoxTicked();
    void formEditKeepsTheFile_data();
    void formEditKeepsTheFile();
    void savedEditKeepsComments();
    void commandShownAsWritten_data();
    void commandShownAsWritten();
    void scriptLineIsOneYamlLine();
    void scriptTypedAndDeletedKeepsTheFile();
    void commandKindSwitchConverts();
    void invalidMemoryKeepsLineComment();
    void failurePolicyAndMtuInForm();
    void templateEnvInForm();
    void templateMountsInForm();
    void roleOverridesInForm();
    void roleOverridesOfASharedTaskFile();
    void pageTitles();
    void everyLoaderKeyHasAField();

private:
    std::unique_ptr<QTemporaryDir> m_user;
    std::unique_ptr<TemplateEditor> m_editor;
};

void TestTemplateEditor::init()
{
    m_user = std::make_unique<QTemporaryDir>();
    const QString samples =
        qEnvironmentVariable("CLUSTERDECK_SOURCE_DIR") + QStringLiteral("/templates");
    QFile::copy(samples + QStringLiteral("/lab-basic.yaml"),
                m_user->filePath(QStringLiteral("lab-basic.yaml")));
    m_editor = std::make_unique<TemplateEditor>();
    m_editor->setDirectories({}, m_user->path());
    m_editor->show();
    QVERIFY(QTest::qWaitForWindowExposed(m_editor.get()));
    QVERIFY(m_editor->currentFile().endsWith(QStringLiteral("lab-basic.yaml")));
    QVERIFY(m_editor->diagnostics().isEmpty());
    QVERIFY(!m_editor->isModified());
}

// Types into the cell editor that is open in `table` and commits it.
static void typeIntoOpenEditor(QTableWidget *table, const QString &text)
{
    // A spin box (int cells) has a line edit inside: look for it first.
    QWidget *editor = table->viewport()->findChild<QSpinBox *>();
    if (!editor)
        editor = table->viewport()->findChild<QLineEdit *>();
    QVERIFY(editor);
    editor->setFocus();
    if (auto *spin = qobject_cast<QSpinBox *>(editor))
        spin->selectAll();
    else
        static_cast<QLineEdit *>(editor)->selectAll();
    QTest::keyClicks(editor, text);
    // Commit as the delegate does on Return (key delivery to an editor is unreliable offscreen).
    QMetaObject::invokeMethod(table, "commitData", Q_ARG(QWidget *, editor));
    QMetaObject::invokeMethod(
        table, "closeEditor", Q_ARG(QWidget *, editor),
        Q_ARG(QAbstractItemDelegate::EndEditHint, QAbstractItemDelegate::NoHint));
    QCoreApplication::sendPostedEvents(nullptr, QEvent::DeferredDelete);
}

static void editCell(QTableWidget *table, int row, int column, const QString &text)
{
    QTableWidgetItem *item = table->item(row, column);
    QVERIFY(item);
    table->setCurrentItem(item);
    table->editItem(item); // what a double click or F2 does
    typeIntoOpenEditor(table, text);
    QCOMPARE(item->text(), text);
}

static QPushButton *button(QWidget *in, const QString &text)
{
    const auto buttons = in->findChildren<QPushButton *>();
    for (QPushButton *b : buttons)
        if (b->text() == text && b->isVisible())
            return b;
    return nullptr;
}

// Replaces the text of a line edit (or spin box) by typing, as a user does.
static void retype(QWidget *edit, const QString &text)
{
    edit->setFocus();
    QTest::keyClick(edit, Qt::Key_A, Qt::ControlModifier);
    if (text.isEmpty())
        QTest::keyClick(edit, Qt::Key_Backspace);
    else
        QTest::keyClicks(edit, text);
}

// Shows the task editor's page of that title, as a click on its tab does.
static void showSection(RoleTaskEditor *task, const QString &title)
{
    for (int i = 0; i < task->sections()->count(); ++i)
        if (task->sections()->tabText(i) == title)
            return task->sections()->setCurrentIndex(i);
    QFAIL(qPrintable(QStringLiteral("no page ") + title));
}

static ClusterTemplate loadYaml(const QString &yaml)
{
    TemplateLoader loader;
    auto t = loader.loadClusterFromData(yaml.toUtf8(), QStringLiteral("edited.yaml"));
    if (!t)
        qWarning() << t.error().toString() << yaml;
    return t.value_or(ClusterTemplate{});
}

// Mounts start with a combo box cell: the first cell that is an item.
static QTableWidgetItem *firstItem(QTableWidget *table, int row)
{
    for (int c = 0; c < table->columnCount(); ++c)
        if (QTableWidgetItem *it = table->item(row, c))
            return it;
    return nullptr;
}

static QStringList sampleTemplates()
{
    const QDir samples(qEnvironmentVariable("CLUSTERDECK_SOURCE_DIR") +
                       QStringLiteral("/templates"));
    QStringList files;
    for (const QString &f : samples.entryList({QStringLiteral("*.yaml")}, QDir::Files, QDir::Name))
        files << samples.filePath(f);
    return files;
}

void TestTemplateEditor::editRoleInFormShowsInYaml()
{
    QTableWidget *roles = m_editor->rolesTable();
    QCOMPARE(roles->rowCount(), 2);
    editCell(roles, 1, TemplateEditor::RoleMax, QStringLiteral("7"));
    QVERIFY(m_editor->isModified());
    QVERIFY(m_editor->diagnostics().isEmpty());
    QVERIFY2(m_editor->yamlEdit()->toPlainText().contains(QStringLiteral("max: 7")),
             qPrintable(m_editor->yamlEdit()->toPlainText()));
    QCOMPARE(m_editor->currentTemplate()->roles.at(1).max, 7);
}

void TestTemplateEditor::invalidValueShowsErrorWithLineAndField()
{
    QTableWidget *roles = m_editor->rolesTable();
    editCell(roles, 1, TemplateEditor::RoleMin, QStringLiteral("20")); // min > max (12)
    QVERIFY(!m_editor->diagnostics().isEmpty());
    const TemplateDiagnostic d = m_editor->diagnostics().first();
    QVERIFY(d.line > 0);
    QVERIFY2(d.path.startsWith(QStringLiteral("roles[1].")), qPrintable(d.path));
    const QString listed = m_editor->problemsList()->item(0)->text();
    QVERIFY2(listed.contains(QStringLiteral("line %1").arg(d.line)), qPrintable(listed));
    QVERIFY2(listed.contains(d.path), qPrintable(listed));
    // The field is marked.
    const int column = d.path.endsWith(QStringLiteral("min"))   ? TemplateEditor::RoleMin
                       : d.path.endsWith(QStringLiteral("max")) ? TemplateEditor::RoleMax
                                                                : TemplateEditor::RoleCount;
    QVERIFY(roles->item(1, column)->background().style() != Qt::NoBrush);
}

void TestTemplateEditor::yamlEditUpdatesForm()
{
    QPlainTextEdit *yaml = m_editor->yamlEdit();
    QString text = yaml->toPlainText();
    text.replace(QStringLiteral("name: lab-basic"), QStringLiteral("name: lab-renamed"));
    yaml->selectAll();
    QTest::keyClicks(yaml, QString()); // focus
    yaml->setPlainText(text);
    m_editor->validateNow();
    QCOMPARE(m_editor->nameEdit()->text(), QStringLiteral("lab-renamed"));
    QVERIFY(m_editor->isModified());
    // A YAML error lists line and field.
    yaml->setPlainText(text.replace(QStringLiteral("count: 2"), QStringLiteral("count: many")));
    m_editor->validateNow();
    QVERIFY(!m_editor->diagnostics().isEmpty());
    QVERIFY(m_editor->diagnostics().first().line > 0);
}

void TestTemplateEditor::savedFileLoadsBackIdentical()
{
    editCell(m_editor->rolesTable(), 1, TemplateEditor::RoleCount, QStringLiteral("3"));
    const ClusterTemplate edited = *m_editor->currentTemplate();
    QVERIFY(m_editor->save());
    QVERIFY(!m_editor->isModified());
    QVERIFY(m_editor->openFile(m_editor->currentFile()));
    QCOMPARE(*m_editor->currentTemplate(), edited);
}

void TestTemplateEditor::unsavedChangesAreNotLostSilently()
{
    editCell(m_editor->rolesTable(), 1, TemplateEditor::RoleMax, QStringLiteral("5"));
    int asked = 0;
    m_editor->setAskUnsaved([&asked](const QString &) {
        ++asked;
        return TemplateEditor::Answer::Cancel;
    });
    QVERIFY(!m_editor->openFile(m_editor->currentFile()));
    QCOMPARE(asked, 1);
    QVERIFY(m_editor->isModified());
    QCOMPARE(m_editor->currentTemplate()->roles.at(1).max, 5);
    m_editor->setAskUnsaved([](const QString &) { return TemplateEditor::Answer::Discard; });
    QVERIFY(m_editor->openFile(m_editor->currentFile()));
    QCOMPARE(m_editor->currentTemplate()->roles.at(1).max, 12);
}

void TestTemplateEditor::taskEditShowsInYaml_data()
{
    QTest::addColumn<int>("role");
    QTest::addColumn<QString>("field");
    QTest::addColumn<QString>("input");
    QTest::addColumn<QString>("expected"); // the loaded-back field, spelled as below

    // lab-basic: roles[0] master, roles[1] worker.
    // The worker's command is a script: a line typed at its end.
    QTest::newRow("command script") << 1 << "command"
                                    << "echo hi there"
                                    << "/bin/sh|-c|echo hi there";
    // The master's is an argument list, one argument per line.
    QTest::newRow("command arguments") << 0 << "arguments"
                                       << "sh\n-c\necho hi there"
                                       << "sh|-c|echo hi there";
    QTest::newRow("env entry") << 0 << "env"
                               << "GREETING_TOO"
                               << "GREETING_TOO=two words";
    QTest::newRow("service port") << 1 << "port"
                                  << "metrics"
                                  << "metrics:tcp:9100";
    QTest::newRow("bootstrap") << 1 << "bootstrap"
                               << "echo ready"
                               << "#!/bin/sh\necho ready\n";
    QTest::newRow("memory") << 0 << "memory"
                            << "2g"
                            << "2147483648";
    QTest::newRow("image") << 1 << "image"
                           << "busybox:1.36"
                           << "busybox:1.36";
    QTest::newRow("cpus") << 0 << "cpus"
                          << "1.5"
                          << "1.5";
    QTest::newRow("mount") << 1 << "mount"
                           << "/data"
                           << "/srv/data:/data:ro";
    // The More page (issue 29, item 2: every field the loader knows).
    QTest::newRow("pull policy") << 0 << "pull policy"
                                 << "always"
                                 << "always";
    QTest::newRow("gpus") << 1 << "gpus"
                          << "2"
                          << "2";
    QTest::newRow("user") << 0 << "user"
                          << "1000:1000"
                          << "1000:1000";
    QTest::newRow("working dir") << 1 << "working dir"
                                 << "/work"
                                 << "/work";
    QTest::newRow("entrypoint") << 0 << "entrypoint"
                                << "tini\n--"
                                << "tini|--";
    QTest::newRow("on scale") << 1 << "on scale"
                              << "/opt/rescale.sh"
                              << "/opt/rescale.sh";
    QTest::newRow("bind address") << 0 << "bind address"
                                  << "127.0.0.1"
                                  << "127.0.0.1";
    QTest::newRow("label") << 1 << "label"
                           << "team"
                           << "team=ml";
    QTest::newRow("host label") << 0 << "host label"
                                << "zone"
                                << "zone=ml";
}

void TestTemplateEditor::taskEditShowsInYaml()
{
    QFETCH(int, role);
    QFETCH(QString, field);
    QFETCH(QString, input);
    QFETCH(QString, expected);
    RoleTaskEditor *task = m_editor->taskEditor();
    m_editor->rolesTable()->setCurrentCell(role, TemplateEditor::RoleName);
    QVERIFY(!m_editor->isModified()); // selecting is not editing
    QCOMPARE(task->imageCombo()->currentText(), QStringLiteral("clusterdeck/lab:latest"));

    if (field == u"command") {
        QCOMPARE(task->commandKindCombo()->currentIndex(), int(RoleTaskEditor::ScriptCommand));
        QPlainTextEdit *script = task->commandScriptEdit();
        script->setFocus();
        script->moveCursor(QTextCursor::End);
        QTest::keyClicks(script, input);
        QTest::keyClick(script, Qt::Key_Return);
    } else if (field == u"arguments") {
        QCOMPARE(task->commandKindCombo()->currentIndex(), int(RoleTaskEditor::ArgumentsCommand));
        QPlainTextEdit *args = task->commandArgumentsEdit();
        args->setFocus();
        args->selectAll();
        const QStringList lines = input.split(u'\n');
        for (qsizetype i = 0; i < lines.size(); ++i) {
            if (i > 0)
                QTest::keyClick(args, Qt::Key_Return);
            QTest::keyClicks(args, lines.at(i));
        }
    } else if (field == u"env") {
        task->sections()->setCurrentIndex(0);
        QTest::mouseClick(button(task, QStringLiteral("Add Variable")), Qt::LeftButton);
        typeIntoOpenEditor(task->envTable(), input);
        editCell(task->envTable(), task->envTable()->rowCount() - 1, RoleTaskEditor::EnvValue,
                 QStringLiteral("two words"));
    } else if (field == u"port") {
        task->sections()->setCurrentIndex(2);
        QTest::mouseClick(button(task, QStringLiteral("Add Port")), Qt::LeftButton);
        typeIntoOpenEditor(task->portsTable(), input);
        editCell(task->portsTable(), 0, PortsTable::Number, QStringLiteral("9100"));
    } else if (field == u"bootstrap") {
        task->sections()->setCurrentIndex(3);
        task->bootstrapEdit()->setFocus();
        QTest::keyClicks(task->bootstrapEdit(), QStringLiteral("#!/bin/sh"));
        QTest::keyClick(task->bootstrapEdit(), Qt::Key_Return);
        QTest::keyClicks(task->bootstrapEdit(), input);
        QTest::keyClick(task->bootstrapEdit(), Qt::Key_Return);
    } else if (field == u"memory") {
        retype(task->memoryEdit(), input);
    } else if (field == u"image") {
        retype(task->imageCombo()->lineEdit(), input);
    } else if (field == u"cpus") {
        retype(task->cpusSpin(), input);
    } else if (field == u"mount") {
        m_editor->allowHostPathsBox()->click(); // a bind mount is a host path
        task->sections()->setCurrentIndex(1);
        QTest::mouseClick(button(task, QStringLiteral("Add Mount")), Qt::LeftButton);
        typeIntoOpenEditor(task->mountsTable(), QStringLiteral("/srv/data")); // the source
        editCell(task->mountsTable(), 0, MountsTable::Target, input);
        auto *type =
            qobject_cast<QComboBox *>(task->mountsTable()->cellWidget(0, MountsTable::Type));
        QVERIFY(type);
        type->setCurrentIndex(type->findText(QStringLiteral("bind")));
        Q_EMIT type->activated(type->currentIndex()); // what picking it does
        task->mountsTable()->item(0, MountsTable::ReadOnly)->setCheckState(Qt::Checked);
    } else if (field == u"pull policy") {
        showSection(task, QStringLiteral("More"));
        QComboBox *policy = task->pullPolicyCombo();
        policy->setCurrentIndex(policy->findText(input));
        Q_EMIT policy->activated(policy->currentIndex()); // what picking it does
    } else if (field == u"gpus") {
        showSection(task, QStringLiteral("More"));
        retype(task->gpusSpin(), input);
    } else if (field == u"entrypoint") {
        showSection(task, QStringLiteral("More"));
        QPlainTextEdit *entry = task->entrypointEdit();
        entry->setFocus();
        const QStringList lines = input.split(u'\n');
        for (qsizetype i = 0; i < lines.size(); ++i) {
            if (i > 0)
                QTest::keyClick(entry, Qt::Key_Return);
            QTest::keyClicks(entry, lines.at(i));
        }
    } else if (field == u"label" || field == u"host label") {
        showSection(task, QStringLiteral("More"));
        const bool host = field == u"host label";
        QTableWidget *table = host ? task->hostLabelsTable() : task->labelsTable();
        QTest::mouseClick(
            button(task, host ? QStringLiteral("Add Host Label") : QStringLiteral("Add Label")),
            Qt::LeftButton);
        typeIntoOpenEditor(table, input);
        editCell(table, table->rowCount() - 1, 1, QStringLiteral("ml"));
    } else if (QLineEdit *line = field == u"user"           ? task->userEdit()
                                 : field == u"working dir"  ? task->workingDirEdit()
                                 : field == u"on scale"     ? task->onScaleEdit()
                                 : field == u"bind address" ? task->bindAddressEdit()
                                                            : nullptr) {
        showSection(task, QStringLiteral("More"));
        retype(line, input);
    }

    QVERIFY(m_editor->isModified());
    QVERIFY2(m_editor->diagnostics().isEmpty(),
             qPrintable(m_editor->diagnostics().value(0).toString()));
    const QString yaml = m_editor->yamlEdit()->toPlainText();
    const ClusterTemplate t = loadYaml(yaml);
    QCOMPARE(t.roles.size(), 2);
    const TaskTemplate &edited = t.roles.at(role).task;
    QString actual;
    if (field == u"command") // the script's last line
        actual = edited.command.mid(0, 2).join(u'|') + u'|' +
                 edited.command.value(2).section(u'\n', -2, -2);
    else if (field == u"arguments")
        actual = edited.command.join(u'|');
    else if (field == u"env")
        actual = input + u'=' + edited.env.value(input);
    else if (field == u"port")
        actual = edited.ports.value(0).toString();
    else if (field == u"bootstrap")
        actual = edited.bootstrap;
    else if (field == u"memory")
        actual = QString::number(edited.resources.memoryBytes.value_or(0));
    else if (field == u"image")
        actual = edited.image;
    else if (field == u"cpus")
        actual = QString::number(edited.resources.cpus.value_or(0));
    else if (field == u"mount" && edited.mounts.size() == 1)
        actual = edited.mounts.first().source + u':' + edited.mounts.first().target +
                 (edited.mounts.first().readOnly ? QStringLiteral(":ro") : QString());
    else if (field == u"pull policy" && edited.pullPolicy)
        actual = TemplateValues::pullPolicyName(*edited.pullPolicy);
    else if (field == u"gpus")
        actual = QString::number(edited.resources.gpus.value_or(-1));
    else if (field == u"user")
        actual = edited.user;
    else if (field == u"working dir")
        actual = edited.workingDir;
    else if (field == u"entrypoint")
        actual = edited.entrypoint.join(u'|');
    else if (field == u"on scale")
        actual = edited.onScale;
    else if (field == u"bind address")
        actual = edited.bindAddress;
    else if (field == u"label")
        actual = input + u'=' + edited.labels.value(input);
    else if (field == u"host label")
        actual = input + u'=' + t.roles.at(role).hostLabels.value(input);
    QCOMPARE(actual, expected);
    // Only that role changed: the other one is as loaded.
    const ClusterTemplate before = loadYaml(QString::fromUtf8([] {
        QFile f(qEnvironmentVariable("CLUSTERDECK_SOURCE_DIR") +
                QStringLiteral("/templates/lab-basic.yaml"));
        return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
    }()));
    QCOMPARE(t.roles.at(1 - role), before.roles.at(1 - role));
    QCOMPARE(*m_editor->currentTemplate(), t);
}

void TestTemplateEditor::yamlEditShowsInTaskEditor()
{
    RoleTaskEditor *task = m_editor->taskEditor();
    m_editor->rolesTable()->setCurrentCell(1, TemplateEditor::RoleName);
    QCOMPARE(task->envTable()->rowCount(), 0);

    QPlainTextEdit *yaml = m_editor->yamlEdit();
    QString text = yaml->toPlainText();
    // The worker's task is the second one: give it an env entry.
    const qsizetype at = text.lastIndexOf(QStringLiteral("      image: clusterdeck/lab:latest\n"));
    QVERIFY(at > 0);
    text.insert(at, QStringLiteral("      env:\n        FROM_YAML: \"yes\"\n"));
    yaml->setPlainText(text);
    m_editor->validateNow();
    QVERIFY2(m_editor->diagnostics().isEmpty(),
             qPrintable(m_editor->diagnostics().value(0).toString()));
    QCOMPARE(task->envTable()->rowCount(), 1);
    QCOMPARE(task->envTable()->item(0, RoleTaskEditor::EnvKey)->text(),
             QStringLiteral("FROM_YAML"));
    QCOMPARE(task->envTable()->item(0, RoleTaskEditor::EnvValue)->text(), QStringLiteral("yes"));
    // The master (no env of its own) does not show it.
    m_editor->rolesTable()->setCurrentCell(0, TemplateEditor::RoleName);
    QCOMPARE(task->envTable()->rowCount(), 0);
    QCOMPARE(task->memoryEdit()->text(), QStringLiteral("64m"));
    m_editor->rolesTable()->setCurrentCell(1, TemplateEditor::RoleName);

    // Typing in the YAML: the task editor follows after the pause; the YAML and its cursor are
    // left alone (no round trip through the writer).
    yaml->setFocus();
    const int typedAt = int(text.indexOf(QStringLiteral("yes\"")) + 3);
    QTextCursor cursor = yaml->textCursor();
    cursor.setPosition(typedAt);
    yaml->setTextCursor(cursor);
    QTest::keyClicks(yaml, QStringLiteral("!!"));
    QTRY_COMPARE(task->envTable()->item(0, RoleTaskEditor::EnvValue)->text(),
                 QStringLiteral("yes!!"));
    QCOMPARE(yaml->textCursor().position(), typedAt + 2);
    QCOMPARE(yaml->toPlainText(),
             QString(text).replace(QStringLiteral("\"yes\""), QStringLiteral("\"yes!!\"")));
    QVERIFY(m_editor->isModified());
}

void TestTemplateEditor::invalidTaskValueIsListedAndMarked_data()
{
    QTest::addColumn<int>("role");
    QTest::addColumn<QString>("field");
    QTest::addColumn<QString>("input");
    QTest::addColumn<QString>("path");    // of the diagnostic
    QTest::addColumn<QString>("lineHas"); // what its YAML line holds
    QTest::addColumn<QString>("widget");  // object name of the marked widget
    QTest::addColumn<int>("row");         // the marked row of a table, -1 for a widget

    QTest::newRow("memory lots") << 0 << "memory"
                                 << "lots"
                                 << "roles[0].task.resources.memory"
                                 << "memory: \"lots\""
                                 << "taskMemory" << -1;
    QTest::newRow("port 70000") << 0 << "port"
                                << "70000"
                                << "roles[0].task.ports[0]"
                                << "web:http:70000"
                                << "taskPorts" << 0;
    QTest::newRow("min > max") << 1 << "min"
                               << "20"
                               << "roles[1].max"
                               << "max: 12"
                               << "roleMax" << -1;
    QTest::newRow("env name") << 1 << "env"
                              << "1FOO"
                              << "roles[1].task.env.1FOO"
                              << "1FOO:"
                              << "taskEnv" << 0;
    QTest::newRow("no image") << 1 << "image"
                              << ""
                              << "roles[1].task.image"
                              << ""
                              << "taskImage" << -1;
    QTest::newRow("relative bind") << 0 << "mount"
                                   << "data"
                                   << "roles[0].task.mounts[0]"
                                   << ""
                                   << "taskMounts" << 0;
    QTest::newRow("relative working dir") << 1 << "working dir"
                                          << "work"
                                          << "roles[1].task.workingDir"
                                          << "workingDir: work"
                                          << "taskWorkingDir" << -1;
    QTest::newRow("bind address no IP") << 0 << "bind address"
                                        << "localhost"
                                        << "roles[0].task.bindAddress"
                                        << "bindAddress: localhost"
                                        << "taskBindAddress" << -1;
}

void TestTemplateEditor::invalidTaskValueIsListedAndMarked()
{
    QFETCH(int, role);
    QFETCH(QString, field);
    QFETCH(QString, input);
    QFETCH(QString, path);
    QFETCH(QString, lineHas);
    QFETCH(QString, widget);
    QFETCH(int, row);
    RoleTaskEditor *task = m_editor->taskEditor();
    m_editor->rolesTable()->setCurrentCell(role, TemplateEditor::RoleName);

    if (field == u"memory") {
        retype(task->memoryEdit(), input);
    } else if (field == u"port") {
        editCell(task->portsTable(), 0, PortsTable::Number, input);
    } else if (field == u"min") {
        retype(task->minSpin(), input);
    } else if (field == u"env") {
        QTest::mouseClick(button(task, QStringLiteral("Add Variable")), Qt::LeftButton);
        typeIntoOpenEditor(task->envTable(), input);
        editCell(task->envTable(), 0, RoleTaskEditor::EnvValue, QStringLiteral("x"));
    } else if (field == u"image") {
        retype(task->imageCombo()->lineEdit(), input);
    } else if (field == u"mount") {
        task->sections()->setCurrentIndex(1);
        QTest::mouseClick(button(task, QStringLiteral("Add Mount")), Qt::LeftButton);
        typeIntoOpenEditor(task->mountsTable(), QStringLiteral("/srv"));
        editCell(task->mountsTable(), 0, MountsTable::Target, input); // not absolute
    } else if (field == u"working dir" || field == u"bind address") {
        showSection(task, QStringLiteral("More")); // More
        retype(field == u"working dir" ? task->workingDirEdit() : task->bindAddressEdit(), input);
    }

    const TemplateDiagnostics diagnostics = m_editor->diagnostics();
    const auto d = std::find_if(diagnostics.cbegin(), diagnostics.cend(),
                                [&](const TemplateDiagnostic &x) { return x.path == path; });
    QVERIFY2(d != diagnostics.cend(), qPrintable(diagnostics.value(0).toString()));
    QVERIFY(d->line > 0);
    const QString yamlLine =
        m_editor->yamlEdit()->document()->findBlockByNumber(d->line - 1).text();
    QVERIFY2(yamlLine.contains(lineHas), qPrintable(yamlLine));
    // Listed with line and field.
    bool listed = false;
    for (int i = 0; i < m_editor->problemsList()->count(); ++i) {
        const QString text = m_editor->problemsList()->item(i)->text();
        listed = listed || (text.contains(QStringLiteral("line %1, %2").arg(d->line).arg(path)) &&
                            text.contains(d->message));
    }
    QVERIFY(listed);
    // The widget that shows the field is marked, with the message as its tooltip.
    auto *marked = task->findChild<QWidget *>(widget);
    QVERIFY(marked);
    if (row < 0) {
        QVERIFY2(marked->styleSheet().contains(QStringLiteral("background")),
                 qPrintable(marked->styleSheet()));
        QCOMPARE(marked->toolTip(), d->message);
    } else {
        auto *table = qobject_cast<QTableWidget *>(marked);
        QVERIFY(table);
        const QTableWidgetItem *cell = firstItem(table, row);
        QVERIFY(cell);
        QCOMPARE(cell->background().color(), QColor(0xfb, 0xe3, 0xe3));
        QCOMPARE(cell->toolTip(), d->message);
    }
    QVERIFY(!m_editor->findChild<QPushButton *>(QStringLiteral("saveTemplate"))->isEnabled());
    // Another role shows no mark; the one with the error shows it again.
    auto markText = [&] {
        if (row < 0)
            return marked->toolTip();
        const QTableWidgetItem *it = firstItem(static_cast<QTableWidget *>(marked), row);
        return it ? it->toolTip() : QString();
    };
    m_editor->rolesTable()->setCurrentCell(1 - role, TemplateEditor::RoleName);
    QCOMPARE(markText(), QString());
    QVERIFY(row >= 0 || marked->styleSheet().isEmpty());
    m_editor->rolesTable()->setCurrentCell(role, TemplateEditor::RoleName);
    QCOMPARE(markText(), d->message);
}

void TestTemplateEditor::knownImagesFillTheImageBox()
{
    const QString yaml = m_editor->yamlEdit()->toPlainText();
    QComboBox *image = m_editor->taskEditor()->imageCombo();
    QCOMPARE(image->currentText(), QStringLiteral("clusterdeck/lab:latest"));
    m_editor->setKnownImages({QStringLiteral("alpine:3.20"), QStringLiteral("busybox:1.36")});
    QCOMPARE(image->count(), 2);
    QCOMPARE(image->itemText(0), QStringLiteral("alpine:3.20"));
    QCOMPARE(image->itemText(1), QStringLiteral("busybox:1.36"));
    QCOMPARE(image->currentText(), QStringLiteral("clusterdeck/lab:latest"));
    QVERIFY(!m_editor->isModified());
    QCOMPARE(m_editor->yamlEdit()->toPlainText(), yaml);
    // Picking one is an edit like typing it.
    image->setCurrentIndex(1);
    QCOMPARE(m_editor->currentTemplate()->roles.at(0).task.image, QStringLiteral("busybox:1.36"));
    m_editor->setKnownImages({QStringLiteral("alpine:3.20")});
    QCOMPARE(image->currentText(), QStringLiteral("busybox:1.36"));
}

void TestTemplateEditor::imagesOfHosts_data()
{
    QTest::addColumn<QList<QStringList>>("hosts");
    QTest::addColumn<QStringList>("expected");
    QTest::newRow("union, sorted, once")
        << QList<QStringList>{{QStringLiteral("busybox:1.36"), QStringLiteral("lab:latest")},
                              {QStringLiteral("alpine:3.20"), QStringLiteral("lab:latest")}}
        << QStringList{QStringLiteral("alpine:3.20"), QStringLiteral("busybox:1.36"),
                       QStringLiteral("lab:latest")};
    QTest::newRow("skips <none> and bare ids")
        << QList<QStringList>{{QStringLiteral("<none>:<none>"), QStringLiteral("0123456789ab"),
                               QStringLiteral("lab:latest")}}
        << QStringList{QStringLiteral("lab:latest")};
    QTest::newRow("no hosts") << QList<QStringList>{} << QStringList{};
}

void TestTemplateEditor::imagesOfHosts()
{
    QFETCH(QList<QStringList>, hosts);
    QFETCH(QStringList, expected);
    QList<HostStatus> statuses;
    for (const QStringList &images : hosts) {
        HostStatus s;
        s.images = images;
        statuses << s;
    }
    QCOMPARE(TemplateEditor::imagesOf(statuses), expected);
}

void TestTemplateEditor::dropReordersRoles_data()
{
    QTest::addColumn<int>("from");
    QTest::addColumn<int>("onto");       // the row under the cursor
    QTest::addColumn<bool>("lowerHalf"); // of that row
    QTest::addColumn<QStringList>("order");
    QTest::newRow("first below second") << 0 << 1 << true << QStringList{"worker", "master"};
    QTest::newRow("second above first") << 1 << 0 << false << QStringList{"worker", "master"};
    QTest::newRow("first onto itself") << 0 << 0 << true << QStringList{"master", "worker"};
}

void TestTemplateEditor::dropReordersRoles()
{
    QFETCH(int, from);
    QFETCH(int, onto);
    QFETCH(bool, lowerHalf);
    QFETCH(QStringList, order);
    RoleTable *roles = m_editor->rolesTable();
    const QString dragged = roles->item(from, TemplateEditor::RoleName)->text();
    roles->setCurrentCell(from, TemplateEditor::RoleName);
    // The drop as the view receives it at the end of a drag (a real drag needs a window system).
    std::unique_ptr<QMimeData> data(roles->model()->mimeData({roles->model()->index(from, 0)}));
    QVERIFY(data);
    const QRect cell = roles->visualRect(roles->model()->index(onto, 0));
    const QPoint pos =
        lowerHalf ? cell.bottomLeft() + QPoint(4, -2) : cell.topLeft() + QPoint(4, 2);
    // The actions the view's own drag offers (its model's supportedDragActions()).
    const Qt::DropActions actions = roles->model()->supportedDragActions();
    QCOMPARE(actions, Qt::CopyAction | Qt::MoveAction);
    QDragEnterEvent enter(pos, actions, data.get(), Qt::LeftButton, Qt::NoModifier);
    QApplication::sendEvent(roles->viewport(), &enter);
    QVERIFY(enter.isAccepted());
    QDropEvent drop(pos, actions, data.get(), Qt::LeftButton, Qt::NoModifier);
    QApplication::sendEvent(roles->viewport(), &drop);
    QVERIFY(drop.isAccepted());
    QCOMPARE(drop.dropAction(), Qt::CopyAction); // else the view would delete the dragged row

    QStringList tableOrder, yamlOrder;
    for (int r = 0; r < roles->rowCount(); ++r)
        tableOrder << roles->item(r, TemplateEditor::RoleName)->text();
    for (const RoleTemplate &r : loadYaml(m_editor->yamlEdit()->toPlainText()).roles)
        yamlOrder << r.name;
    QCOMPARE(tableOrder, order);
    QCOMPARE(yamlOrder, order);
    QCOMPARE(m_editor->isModified(), order.first() != QStringLiteral("master"));
    // The dragged role stays selected and its task moved with it.
    QCOMPARE(roles->item(roles->currentRow(), TemplateEditor::RoleName)->text(), dragged);
    const RoleTemplate *master = m_editor->currentTemplate()->role(QStringLiteral("master"));
    QVERIFY(master && master->task.bootstrap.contains(QStringLiteral("mkdir -p /srv/www")));
    QCOMPARE(
        roles->item(int(order.indexOf(QStringLiteral("worker"))), TemplateEditor::RoleMax)->text(),
        QStringLiteral("12"));
}

void TestTemplateEditor::moveButtonsReorderRoles_data()
{
    QTest::addColumn<int>("selected");
    QTest::addColumn<QString>("buttonText");
    QTest::addColumn<QStringList>("order");
    QTest::newRow("down") << 0 << "Move Down" << QStringList{"worker", "master"};
    QTest::newRow("up") << 1 << "Move Up" << QStringList{"worker", "master"};
    QTest::newRow("up at the top") << 0 << "Move Up" << QStringList{"master", "worker"};
}

void TestTemplateEditor::moveButtonsReorderRoles()
{
    QFETCH(int, selected);
    QFETCH(QString, buttonText);
    QFETCH(QStringList, order);
    m_editor->rolesTable()->setCurrentCell(selected, TemplateEditor::RoleName);
    QPushButton *b = button(m_editor.get(), buttonText);
    QVERIFY(b);
    QTest::mouseClick(b, Qt::LeftButton);
    QStringList yamlOrder;
    for (const RoleTemplate &r : loadYaml(m_editor->yamlEdit()->toPlainText()).roles)
        yamlOrder << r.name;
    QCOMPARE(yamlOrder, order);
    QCOMPARE(m_editor->taskEditor()->countSpin()->value(),
             m_editor->currentTemplate()->roles.at(m_editor->rolesTable()->currentRow()).count);
}

void TestTemplateEditor::sampleSavedUntouchedLoadsBackIdentical_data()
{
    QTest::addColumn<QString>("file");
    const QStringList files = sampleTemplates();
    QVERIFY(files.size() >= 5);
    for (const QString &f : files)
        QTest::newRow(qPrintable(QFileInfo(f).fileName())) << f;
}

// Copies the samples' task files next to `dir`, where saved templates look for them.
static bool copyTaskFiles(const QString &dir)
{
    const QDir from(qEnvironmentVariable("CLUSTERDECK_SOURCE_DIR") +
                    QStringLiteral("/templates/tasks"));
    if (!QDir(dir).mkpath(QStringLiteral("tasks")))
        return false;
    for (const QString &f : from.entryList(QDir::Files))
        if (!QFile::copy(from.filePath(f), dir + QStringLiteral("/tasks/") + f))
            return false;
    return true;
}

void TestTemplateEditor::sampleSavedUntouchedLoadsBackIdentical()
{
    QFETCH(QString, file);
    QTemporaryDir out;
    QVERIFY(copyTaskFiles(out.path()));
    m_editor->setDirectories({}, out.path());
    QVERIFY(m_editor->openFile(file));
    TemplateLoader loader;
    const auto original = loader.loadClusterFile(file);
    QVERIFY(original);
    QVERIFY2(m_editor->diagnostics().isEmpty(),
             qPrintable(m_editor->diagnostics().value(0).toString()));
    // Looking at every role in the task editor is not an edit.
    for (int r = 0; r < m_editor->rolesTable()->rowCount(); ++r)
        m_editor->rolesTable()->setCurrentCell(r, TemplateEditor::RoleName);
    QVERIFY(!m_editor->isModified());
    QFile f(file);
    QVERIFY(f.open(QIODevice::ReadOnly));
    QCOMPARE(m_editor->yamlEdit()->toPlainText(), QString::fromUtf8(f.readAll()));

    QVERIFY(m_editor->save());
    QVERIFY(m_editor->currentFile().startsWith(out.path()));
    const auto saved = loader.loadClusterFile(m_editor->currentFile());
    QVERIFY2(saved, qPrintable(saved ? QString() : saved.error().toString()));
    QCOMPARE(*saved, *original);
}

void TestTemplateEditor::sampleSurvivesTaskEditorRewrite_data()
{
    sampleSavedUntouchedLoadsBackIdentical_data();
}

void TestTemplateEditor::sampleSurvivesTaskEditorRewrite()
{
    // Every role goes once through the task editor and back into the YAML: nothing is lost or
    // reworded (cpus rounding, command quoting, memory spelling, mounts, task files).
    QFETCH(QString, file);
    QVERIFY(m_editor->openFile(file));
    const ClusterTemplate original = *m_editor->currentTemplate();
    for (int r = 0; r < m_editor->rolesTable()->rowCount(); ++r) {
        m_editor->rolesTable()->setCurrentCell(r, TemplateEditor::RoleName);
        Q_EMIT m_editor->taskEditor()->edited();
    }
    QVERIFY(m_editor->isModified());
    QVERIFY2(m_editor->diagnostics().isEmpty(),
             qPrintable(m_editor->diagnostics().value(0).toString()));
    QCOMPARE(*m_editor->currentTemplate(), original);
    TemplateLoader loader;
    const auto reloaded =
        loader.loadClusterFromData(m_editor->yamlEdit()->toPlainText().toUtf8(),
                                   QFileInfo(file).fileName(), QFileInfo(file).absolutePath());
    QVERIFY(reloaded);
    QCOMPARE(*reloaded, original);
}

// QVERIFY2 evaluates its message even when the check passes.
static QString firstProblem(const TemplateDiagnostics &diagnostics)
{
    return diagnostics.isEmpty() ? QString() : diagnostics.first().toString();
}

// Picks `text` in a combo box with the keyboard, as a user does (emits activated()).
static void choose(QComboBox *combo, const QString &text)
{
    const int target = combo->findText(text);
    QVERIFY2(target >= 0, qPrintable(text));
    combo->setFocus();
    QTest::keyClick(combo, Qt::Key_Home);
    for (int i = 0; i < target; ++i)
        QTest::keyClick(combo, Qt::Key_Down);
    QCOMPARE(combo->currentText(), text);
}

void TestTemplateEditor::successPolicyInForm_data()
{
    QTest::addColumn<QString>("kind");
    QTest::addColumn<QString>("role");
    QTest::addColumn<QString>("ttl");     // typed
    QTest::addColumn<QString>("yaml");    // expected between failurePolicy and startupOrder
    QTest::addColumn<QString>("problem"); // path of the expected diagnostic, or empty
    QTest::addColumn<qint64>("seconds");  // -1: keep
    QTest::newRow("primary-exits, 10m") << "primary-exits"
                                        << ""
                                        << "10m"
                                        << "successPolicy: primary-exits\nttlAfterFinished: 10m\n"
                                        << "" << qint64(600);
    QTest::newRow("all-exit, kept") << "all-exit"
                                    << ""
                                    << ""
                                    << "successPolicy: all-exit\n"
                                    << "" << qint64(-1);
    QTest::newRow("role-exits worker, 2h")
        << "role-exits"
        << "worker"
        << "2h"
        << "successPolicy:\n  role-exits: worker\nttlAfterFinished: 2h\n"
        << "" << qint64(7200);
    QTest::newRow("role-exits master, typed 1h30m")
        << "role-exits"
        << "master"
        << "1h30m"
        << "successPolicy:\n  role-exits: master\nttlAfterFinished: 90m\n"
        << "" << qint64(5400);
    QTest::newRow("ttl that is no duration")
        << "primary-exits"
        << ""
        << "ten minutes"
        << "successPolicy: primary-exits\nttlAfterFinished: \"ten minutes\"\n"
        << "ttlAfterFinished" << qint64(-1);
    QTest::newRow("ttl over a year") << "all-exit"
                                     << ""
                                     << "400d"
                                     << "successPolicy: all-exit\nttlAfterFinished: 400d\n"
                                     << "ttlAfterFinished" << qint64(-1);
    QTest::newRow("back to none: no ttl") << "none"
                                          << ""
                                          << ""
                                          << ""
                                          << "" << qint64(-1);
}

void TestTemplateEditor::successPolicyInForm()
{
    QFETCH(QString, kind);
    QFETCH(QString, role);
    QFETCH(QString, ttl);
    QFETCH(QString, yaml);
    QFETCH(QString, problem);
    QFETCH(qint64, seconds);
    QComboBox *success = m_editor->successCombo();
    QComboBox *roleBox = m_editor->successRoleCombo();
    QLineEdit *ttlEdit = m_editor->ttlEdit();
    // lab-basic has no success policy: nothing to pick a role for, nothing to keep.
    QCOMPARE(success->currentText(), QStringLiteral("none"));
    QVERIFY(!roleBox->isEnabled());
    QVERIFY(!ttlEdit->isEnabled());
    QCOMPARE(roleBox->count(), 2); // master, worker

    if (kind == QLatin1String("none")) {
        // A policy with a TTL first, then none again: the TTL goes with the policy.
        choose(success, QStringLiteral("primary-exits"));
        retype(ttlEdit, QStringLiteral("5m"));
        QVERIFY(m_editor->yamlEdit()->toPlainText().contains(QStringLiteral("ttlAfterFinished")));
    }
    choose(success, kind);
    QCOMPARE(roleBox->isEnabled(), kind == QLatin1String("role-exits"));
    QCOMPARE(ttlEdit->isEnabled(), kind != QLatin1String("none"));
    if (!role.isEmpty())
        choose(roleBox, role);
    if (!ttl.isEmpty())
        retype(ttlEdit, ttl);
    QVERIFY(m_editor->isModified());

    const QString text = m_editor->yamlEdit()->toPlainText();
    QVERIFY2(
        text.contains(QStringLiteral("  maxRestarts: 2\n%1startupOrder: in-order\n").arg(yaml)),
        qPrintable(text));
    if (!problem.isEmpty()) {
        QVERIFY(!m_editor->diagnostics().isEmpty());
        const TemplateDiagnostic d = m_editor->diagnostics().first();
        QCOMPARE(d.path, problem);
        QCOMPARE(d.line, int(text.left(text.indexOf(QStringLiteral("ttlAfterFinished")))
                                 .count(QLatin1Char('\n'))) +
                             1);
        QVERIFY(!ttlEdit->styleSheet().isEmpty()); // the field is marked
        QCOMPARE(ttlEdit->toolTip(), d.message);
        return;
    }
    QVERIFY2(m_editor->diagnostics().isEmpty(), qPrintable(firstProblem(m_editor->diagnostics())));
    QVERIFY(ttlEdit->styleSheet().isEmpty());
    const ClusterTemplate edited = *m_editor->currentTemplate();
    QCOMPARE(TemplateValues::successKindName(edited.successPolicy.kind), kind);
    QCOMPARE(edited.successPolicy.role, role);
    QCOMPARE(edited.ttlAfterFinishedSeconds,
             seconds < 0 ? std::optional<qint64>() : std::optional<qint64>(seconds));

    // Saved and opened again: the same template, and the form shows it.
    QVERIFY(m_editor->save());
    QVERIFY(m_editor->openFile(m_editor->currentFile()));
    QCOMPARE(*m_editor->currentTemplate(), edited);
    QCOMPARE(success->currentText(), kind);
    QCOMPARE(roleBox->isEnabled(), kind == QLatin1String("role-exits"));
    if (!role.isEmpty())
        QCOMPARE(roleBox->currentText(), role);
    QCOMPARE(ttlEdit->text(), seconds < 0 ? QString() : TemplateValues::formatDuration(seconds));
}

void TestTemplateEditor::successPolicyFromYaml()
{
    QPlainTextEdit *yaml = m_editor->yamlEdit();
    QString text = yaml->toPlainText();
    text.replace(QStringLiteral("startupOrder: in-order\n"),
                 QStringLiteral("startupOrder: in-order\nsuccessPolicy: {kind: role-exits, "
                                "role: worker}\nttlAfterFinished: 45s\n"));
    yaml->setPlainText(text);
    m_editor->validateNow();
    QVERIFY2(m_editor->diagnostics().isEmpty(), qPrintable(firstProblem(m_editor->diagnostics())));
    QCOMPARE(m_editor->successCombo()->currentText(), QStringLiteral("role-exits"));
    QVERIFY(m_editor->successRoleCombo()->isEnabled());
    QCOMPARE(m_editor->successRoleCombo()->currentText(), QStringLiteral("worker"));
    QVERIFY(m_editor->ttlEdit()->isEnabled());
    QCOMPARE(m_editor->ttlEdit()->text(), QStringLiteral("45s"));

    // Back to none from the form: the TTL goes with it (it would be an error without a policy).
    choose(m_editor->successCombo(), QStringLiteral("none"));
    QVERIFY(m_editor->ttlEdit()->text().isEmpty());
    QVERIFY(!m_editor->ttlEdit()->isEnabled());
    QVERIFY(m_editor->diagnostics().isEmpty());
    QVERIFY(!yaml->toPlainText().contains(QStringLiteral("successPolicy")));
    QVERIFY(!yaml->toPlainText().contains(QStringLiteral("ttlAfterFinished")));
}

// A host path in the YAML is an error naming allowHostPaths; ticking the form's box writes it and
// the error goes; unticking brings it back (issue 24 D.6).
void TestTemplateEditor::hostPathNeedsTheBoxTicked()
{
    QPlainTextEdit *yaml = m_editor->yamlEdit();
    QString text = yaml->toPlainText();
    text.replace(QStringLiteral("startupOrder: in-order\n"),
                 QStringLiteral("startupOrder: in-order\nmounts: [/var/run/docker.sock:/s]\n"));
    yaml->setPlainText(text);
    m_editor->validateNow();
    QCOMPARE(m_editor->diagnostics().size(), 1);
    QVERIFY2(m_editor->diagnostics().first().message.contains(QStringLiteral("allowHostPaths")),
             qPrintable(firstProblem(m_editor->diagnostics())));
    QCOMPARE(m_editor->diagnostics().first().path, QStringLiteral("mounts[0]"));
    QVERIFY(!m_editor->allowHostPathsBox()->isChecked());

    m_editor->allowHostPathsBox()->click();
    m_editor->validateNow();
    QVERIFY2(m_editor->diagnostics().isEmpty(), qPrintable(firstProblem(m_editor->diagnostics())));
    QVERIFY2(yaml->toPlainText().contains(QStringLiteral("allowHostPaths: true")),
             qPrintable(yaml->toPlainText()));
    // The mount it allows is still there (the YAML did not load when the box was ticked).
    QVERIFY(yaml->toPlainText().contains(QStringLiteral("mounts: [/var/run/docker.sock:/s]")));
    QVERIFY(m_editor->currentTemplate()->allowHostPaths);
    QCOMPARE(m_editor->currentTemplate()->mounts.value(0).source,
             QStringLiteral("/var/run/docker.sock"));

    m_editor->allowHostPathsBox()->click();
    m_editor->validateNow();
    QVERIFY(!yaml->toPlainText().contains(QStringLiteral("allowHostPaths")));
    QCOMPARE(m_editor->diagnostics().size(), 1);
}

void TestTemplateEditor::renamedSuccessRoleIsMarked()
{
    choose(m_editor->successCombo(), QStringLiteral("role-exits"));
    choose(m_editor->successRoleCombo(), QStringLiteral("worker"));
    QVERIFY(m_editor->diagnostics().isEmpty());
    // The role is renamed in the table: the policy still names the old one, and says so.
    editCell(m_editor->rolesTable(), 1, TemplateEditor::RoleName, QStringLiteral("node"));
    QCOMPARE(m_editor->diagnostics().size(), 1);
    const TemplateDiagnostic d = m_editor->diagnostics().first();
    QCOMPARE(d.path, QStringLiteral("successPolicy.role-exits"));
    QCOMPARE(d.message, QStringLiteral("role 'worker' is not one of the template's roles: "
                                       "master, node"));
    QComboBox *roleBox = m_editor->successRoleCombo();
    QVERIFY(!roleBox->styleSheet().isEmpty());
    QCOMPARE(roleBox->currentText(), QStringLiteral("worker"));
    QVERIFY(roleBox->findText(QStringLiteral("node")) >= 0);
    choose(roleBox, QStringLiteral("node"));
    QVERIFY(m_editor->diagnostics().isEmpty());
    QVERIFY(roleBox->styleSheet().isEmpty());
    QCOMPARE(roleBox->count(), 2); // the stale name is gone once nothing names it
    QCOMPARE(m_editor->currentTemplate()->successPolicy.role, QStringLiteral("node"));
}

void TestTemplateEditor::formEditKeepsTheFile_data()
{
    QTest::addColumn<QString>("file");
    QTest::addColumn<QString>("field"); // the form field
    QTest::addColumn<int>("role");      // for role and task fields
    QTest::addColumn<QString>("key");   // the YAML key whose line changes

    for (const QString &file : sampleTemplates()) {
        TemplateLoader loader;
        const auto t = loader.loadClusterFile(file);
        QVERIFY(t);
        const QString name = QFileInfo(file).completeBaseName();
        auto row = [&](const QString &field, int role, const QString &key) {
            const QString where =
                role < 0 ? field : QStringLiteral("%1 of role %2").arg(field).arg(role);
            QTest::newRow(qPrintable(name + u' ' + where)) << file << field << role << key;
        };
        row(QStringLiteral("name"), -1, QStringLiteral("name"));
        row(QStringLiteral("description"), -1, QStringLiteral("description"));
        if (t->ttlAfterFinishedSeconds)
            row(QStringLiteral("ttl"), -1, QStringLiteral("ttlAfterFinished"));
        if (QFile f(file); f.open(QIODevice::ReadOnly) && f.readAll().contains("maxRestarts:"))
            row(QStringLiteral("max restarts"), -1, QStringLiteral("maxRestarts"));
        for (int r = 0; r < t->roles.size(); ++r) {
            row(QStringLiteral("role name"), r, QStringLiteral("name"));
            if (t->roles.at(r).taskFile.isEmpty()) {
                row(QStringLiteral("image cell"), r, QStringLiteral("image"));
                row(QStringLiteral("task memory"), r, QStringLiteral("memory"));
                if (!t->roles.at(r).task.workingDir.isEmpty())
                    row(QStringLiteral("task working dir"), r, QStringLiteral("workingDir"));
            }
        }
    }
}

// Typing one character into a form field and deleting it gives the file back byte for byte;
// with the character kept, only that field's line changed - every comment, block scalar and
// quote of the sample stays (issue 29: a `command: |` script turned into a one-line list).
void TestTemplateEditor::formEditKeepsTheFile()
{
    QFETCH(QString, file);
    QFETCH(QString, field);
    QFETCH(int, role);
    QFETCH(QString, key);
    QVERIFY(m_editor->openFile(file));
    QFile f(file);
    QVERIFY(f.open(QIODevice::ReadOnly));
    const QString original = QString::fromUtf8(f.readAll());
    QCOMPARE(m_editor->yamlEdit()->toPlainText(), original);
    if (role >= 0)
        m_editor->rolesTable()->setCurrentCell(role, TemplateEditor::RoleName);

    QWidget *edit = nullptr;
    if (field == u"name")
        edit = m_editor->nameEdit();
    else if (field == u"description")
        edit = m_editor->descriptionEdit();
    else if (field == u"ttl")
        edit = m_editor->ttlEdit();
    else if (field == u"max restarts")
        edit = m_editor->maxRestartsSpin();
    else if (field == u"task memory")
        edit = m_editor->taskEditor()->memoryEdit();
    else if (field == u"task working dir") {
        showSection(m_editor->taskEditor(), QStringLiteral("More"));
        edit = m_editor->taskEditor()->workingDirEdit();
    }
    auto type = [&](auto keys) {
        if (edit) {
            edit->setFocus();
            QTest::keyClick(edit, Qt::Key_End);
            keys(edit);
            return;
        }
        // A roles table cell: its editor is a line edit.
        QTableWidget *roles = m_editor->rolesTable();
        const int column =
            field == u"role name" ? TemplateEditor::RoleName : TemplateEditor::RoleImage;
        QTableWidgetItem *item = roles->item(role, column);
        roles->setCurrentItem(item);
        roles->editItem(item);
        auto *cell = roles->viewport()->findChild<QLineEdit *>();
        QVERIFY(cell);
        cell->setFocus();
        QTest::keyClick(cell, Qt::Key_End);
        keys(cell);
        QMetaObject::invokeMethod(roles, "commitData", Q_ARG(QWidget *, cell));
        QMetaObject::invokeMethod(
            roles, "closeEditor", Q_ARG(QWidget *, cell),
            Q_ARG(QAbstractItemDelegate::EndEditHint, QAbstractItemDelegate::NoHint));
        QCoreApplication::sendPostedEvents(nullptr, QEvent::DeferredDelete);
    };
    // A memory size takes no letter; "0" keeps every field valid (64m -> 64m0 is a problem the
    // loader reports, which is fine: the text is what is compared).
    const QString typed = field == u"task memory" || field == u"max restarts" ? QStringLiteral("0")
                                                                              : QStringLiteral("x");

    type([&](QWidget *w) { QTest::keyClicks(w, typed); });
    QVERIFY(m_editor->isModified());
    const QString edited = m_editor->yamlEdit()->toPlainText();
    QVERIFY2(edited != original, qPrintable(field));
    auto [removed, added] = Test::diffLines(original.split(u'\n'), edited.split(u'\n'));
    const QStringList before = original.split(u'\n'), after = edited.split(u'\n');
    // A role whose task is an alias of an anchor (`task: *tf`) gets a task of its own when either
    // changes: those lines are rewritten too (see TemplatePatcher).
    static const QRegularExpression alias(QStringLiteral(R"(^\s*task: \*\w+$)"));
    const qsizetype aliases =
        removed.removeIf([&](int line) { return alias.match(before.at(line)).hasMatch(); });
    // The anchor's role changes its field's line; an alias's role only the alias.
    QVERIFY2(removed.size() == 1 || (aliases > 0 && removed.isEmpty()), qPrintable(edited));
    for (int line : std::as_const(removed))
        QVERIFY2(before.at(line).trimmed().startsWith(key + u':') ||
                     before.at(line).trimmed().startsWith(QStringLiteral("- ") + key + u':'),
                 qPrintable(before.at(line)));
    if (aliases == 0) {
        QCOMPARE(added.size(), 1);
        QCOMPARE(added.first(), removed.first());
        QVERIFY2(after.at(added.first()).contains(typed), qPrintable(after.at(added.first())));
    }

    type([](QWidget *w) { QTest::keyClick(w, Qt::Key_Backspace); });
    QCOMPARE(m_editor->yamlEdit()->toPlainText(), original);
}

void TestTemplateEditor::savedEditKeepsComments()
{
    // batch-job: the worker count changes; the file saved has the sample's comments and its
    // `command: |` scripts, and differs from it in that one line.
    const QString sample = qEnvironmentVariable("CLUSTERDECK_SOURCE_DIR") +
                           QStringLiteral("/templates/batch-job.yaml");
    QVERIFY(m_editor->openFile(sample));
    QFile f(sample);
    QVERIFY(f.open(QIODevice::ReadOnly));
    const QString original = QString::fromUtf8(f.readAll());
    editCell(m_editor->rolesTable(), 1, TemplateEditor::RoleCount, QStringLiteral("3"));
    QVERIFY(m_editor->save());
    QFile saved(m_editor->currentFile());
    QVERIFY(saved.open(QIODevice::ReadOnly));
    const QString text = QString::fromUtf8(saved.readAll());
    QCOMPARE(text, QString(original).replace(QStringLiteral("    count: 2\n"),
                                             QStringLiteral("    count: 3\n")));
    // The diff, as `diff` would print it (the closing note of issue 29 quotes it).
    const auto [removed, added] = Test::diffLines(original.split(u'\n'), text.split(u'\n'));
    for (int line : removed)
        qInfo().noquote()
            << QStringLiteral("line %1: -%2").arg(line + 1).arg(original.split(u'\n').at(line));
    for (int line : added)
        qInfo().noquote()
            << QStringLiteral("line %1: +%2").arg(line + 1).arg(text.split(u'\n').at(line));
}

void TestTemplateEditor::commandShownAsWritten_data()
{
    QTest::addColumn<QString>("file");
    QTest::addColumn<int>("role");
    QTest::addColumn<int>("kind");
    QTest::addColumn<QString>("text"); // what the command's editor holds

    const QString batchLauncher =
        QStringLiteral("for h in $(echo \"$BACKEND_CLUSTER_WORKER_HOSTS\" | tr , ' '); do\n"
                       "  n=0\n"
                       "  until wget -q -O - \"http://$h:8080/\"; do\n"
                       "    n=$((n + 1))\n"
                       "    [ \"$n\" -lt 60 ] || { echo \"$h does not answer\" >&2; exit 1; }\n"
                       "    sleep 1\n"
                       "  done\n"
                       "done\n"
                       "echo \"all $BACKEND_CLUSTER_SIZE kernels answered: job done\"\n");
    // `command: |` (issue 29: shown as one line of re-quoted text).
    QTest::newRow("batch-job launcher script")
        << "batch-job.yaml" << 0 << int(RoleTaskEditor::ScriptCommand) << batchLauncher;
    // `[/bin/sh, -c, |]`: the script, not the list.
    QTest::newRow("lab-basic worker script in a list")
        << "lab-basic.yaml" << 1 << int(RoleTaskEditor::ScriptCommand)
        << QStringLiteral("mkdir -p /srv/www && echo \"worker $BACKEND_CLUSTER_HOST\" > "
                          "/srv/www/index.html\n"
                          "busybox httpd -p 8080 -h /srv/www\n"
                          "while true; do wget -q -O - http://master1:8080/ || true; sleep 30; "
                          "done\n");
    // A flow list with a quoted "8080": the arguments, unquoted.
    QTest::newRow("lab-basic master arguments")
        << "lab-basic.yaml" << 0 << int(RoleTaskEditor::ArgumentsCommand)
        << QStringLiteral("busybox\nhttpd\n-f\n-p\n8080\n-h\n/srv/www");
    QTest::newRow("tensorflow arguments")
        << "tensorflow.yaml" << 0 << int(RoleTaskEditor::ArgumentsCommand)
        << QStringLiteral("python3\ntrain.py");
    // `>-` folded: one line of script.
    QTest::newRow("pytorch folded script")
        << "pytorch-ddp.yaml" << 1 << int(RoleTaskEditor::ScriptCommand)
        << QStringLiteral("exec torchrun --nnodes=\"$WORLD_SIZE\" --nproc_per_node=1 "
                          "--node_rank=\"$NODE_RANK\" --master_addr=\"$MASTER_ADDR\" "
                          "--master_port=\"$MASTER_PORT\" train.py");
}

// The form shows a command as the admin wrote it: a script as the script, a list one argument
// per line; never quoted or escaped, and looking at it changes nothing.
void TestTemplateEditor::commandShownAsWritten()
{
    QFETCH(QString, file);
    QFETCH(int, role);
    QFETCH(int, kind);
    QFETCH(QString, text);
    QVERIFY(m_editor->openFile(qEnvironmentVariable("CLUSTERDECK_SOURCE_DIR") +
                               QStringLiteral("/templates/") + file));
    const QString yaml = m_editor->yamlEdit()->toPlainText();
    m_editor->rolesTable()->setCurrentCell(role, TemplateEditor::RoleName);
    RoleTaskEditor *task = m_editor->taskEditor();
    QCOMPARE(task->commandKindCombo()->currentIndex(), kind);
    QPlainTextEdit *shown = kind == RoleTaskEditor::ScriptCommand ? task->commandScriptEdit()
                                                                  : task->commandArgumentsEdit();
    QVERIFY(shown->isVisible());
    QCOMPARE(shown->toPlainText(), text);
    QVERIFY(!m_editor->isModified());
    QCOMPARE(m_editor->yamlEdit()->toPlainText(), yaml);
}

// Opens the batch-job sample and puts the focus into its launcher's `command: |` script.
static QPlainTextEdit *batchJobLauncherScript(TemplateEditor *editor)
{
    if (!editor->openFile(qEnvironmentVariable("CLUSTERDECK_SOURCE_DIR") +
                          QStringLiteral("/templates/batch-job.yaml")))
        return nullptr;
    editor->rolesTable()->setCurrentCell(0, TemplateEditor::RoleName);
    QPlainTextEdit *script = editor->taskEditor()->commandScriptEdit();
    script->setFocus();
    return script;
}

void TestTemplateEditor::scriptLineIsOneYamlLine()
{
    // A line typed at the end of batch-job's `command: |` script is one more line of that block.
    QPlainTextEdit *script = batchJobLauncherScript(m_editor.get());
    QVERIFY(script);
    const QString original = m_editor->yamlEdit()->toPlainText();
    script->moveCursor(QTextCursor::End);
    QTest::keyClicks(script, QStringLiteral("date"));
    QTest::keyClick(script, Qt::Key_Return);
    const QString edited = m_editor->yamlEdit()->toPlainText();
    const auto [removed, added] = Test::diffLines(original.split(u'\n'), edited.split(u'\n'));
    QVERIFY2(removed.isEmpty(), qPrintable(edited));
    QCOMPARE(added.size(), 1);
    QCOMPARE(edited.split(u'\n').at(added.first()), QStringLiteral("        date"));
    QVERIFY(m_editor->diagnostics().isEmpty());
}

void TestTemplateEditor::commandKindSwitchConverts()
{
    RoleTaskEditor *task = m_editor->taskEditor();
    // lab-basic's master: [busybox, httpd, -f, -p, "8080", -h, /srv/www] becomes a script.
    m_editor->rolesTable()->setCurrentCell(0, TemplateEditor::RoleName);
    choose(task->commandKindCombo(), QStringLiteral("Shell script"));
    QCOMPARE(task->commandScriptEdit()->toPlainText(),
             QStringLiteral("busybox httpd -f -p 8080 -h /srv/www"));
    QCOMPARE(m_editor->currentTemplate()->roles.at(0).task.command,
             (QStringList{QStringLiteral("/bin/sh"), QStringLiteral("-c"),
                          QStringLiteral("busybox httpd -f -p 8080 -h /srv/www")}));
    // And back: one argument per line.
    choose(task->commandKindCombo(), QStringLiteral("Arguments, one per line"));
    QCOMPARE(task->commandArgumentsEdit()->toPlainText(),
             QStringLiteral("busybox\nhttpd\n-f\n-p\n8080\n-h\n/srv/www"));
    QCOMPARE(m_editor->currentTemplate()->roles.at(0).task.command,
             (QStringList{QStringLiteral("busybox"), QStringLiteral("httpd"), QStringLiteral("-f"),
                          QStringLiteral("-p"), QStringLiteral("8080"), QStringLiteral("-h"),
                          QStringLiteral("/srv/www")}));

    // The worker's three-line script has no argument-list form: it stays a script.
    m_editor->rolesTable()->setCurrentCell(1, TemplateEditor::RoleName);
    const QStringList before = m_editor->currentTemplate()->roles.at(1).task.command;
    task->commandKindCombo()->setCurrentIndex(RoleTaskEditor::ArgumentsCommand);
    Q_EMIT task->commandKindCombo()->activated(RoleTaskEditor::ArgumentsCommand);
    QCOMPARE(task->commandKindCombo()->currentIndex(), int(RoleTaskEditor::ScriptCommand));
    QVERIFY(!task->commandKindCombo()->toolTip().isEmpty());
    QCOMPARE(m_editor->currentTemplate()->roles.at(1).task.command, before);
}

void TestTemplateEditor::invalidMemoryKeepsLineComment()
{
    // A size the loader refuses is written as typed, for its diagnostic; the comment after it on
    // the line stays.
    const QString path = m_user->filePath(QStringLiteral("commented.yaml"));
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write("apiVersion: clusterdeck/v1\n"
            "kind: Cluster\n"
            "name: commented\n"
            "roles:\n"
            "  - name: main\n"
            "    task:\n"
            "      image: clusterdeck/lab:latest\n"
            "      resources:\n"
            "        memory: 64m  # per kernel\n");
    f.close();
    QVERIFY(m_editor->openFile(path));
    m_editor->rolesTable()->setCurrentCell(0, TemplateEditor::RoleName);
    QLineEdit *memory = m_editor->taskEditor()->memoryEdit();
    memory->setFocus();
    QTest::keyClick(memory, Qt::Key_End);
    QTest::keyClicks(memory, QStringLiteral("x"));
    QVERIFY2(m_editor->yamlEdit()->toPlainText().endsWith(
                 QStringLiteral("        memory: \"64mx\"  # per kernel\n")),
             qPrintable(m_editor->yamlEdit()->toPlainText()));
    QVERIFY(!m_editor->diagnostics().isEmpty());
    QCOMPARE(m_editor->diagnostics().first().path,
             QStringLiteral("roles[0].task.resources.memory"));
}

void TestTemplateEditor::scriptTypedAndDeletedKeepsTheFile()
{
    // Issue 29's report: in batch-job, one character typed into the launcher's command and
    // deleted again turned the `command: |` script into a one-line list and dropped the
    // comments. Now the character changes that one line of the script, and deleting it gives
    // the sample back byte for byte.
    QPlainTextEdit *script = batchJobLauncherScript(m_editor.get());
    QVERIFY(script);
    const QString original = m_editor->yamlEdit()->toPlainText();
    script->moveCursor(QTextCursor::Start);
    script->moveCursor(QTextCursor::EndOfLine); // after `...| tr , ' '); do`
    QTest::keyClicks(script, QStringLiteral("x"));
    const QString edited = m_editor->yamlEdit()->toPlainText();
    const auto [removed, added] = Test::diffLines(original.split(u'\n'), edited.split(u'\n'));
    QCOMPARE(removed.size(), 1);
    QCOMPARE(added.size(), 1);
    QCOMPARE(edited.split(u'\n').at(added.first()),
             QStringLiteral("        for h in $(echo \"$BACKEND_CLUSTER_WORKER_HOSTS\" | tr , "
                            "' '); dox"));
    QTest::keyClick(script, Qt::Key_Backspace);
    QCOMPARE(m_editor->yamlEdit()->toPlainText(), original);
}

// failurePolicy.maxRestarts and network.mtu in the form: each writes its own lines, reverting
// gives the file back, a value the loader refuses marks its field (issue 29, item 2).
void TestTemplateEditor::failurePolicyAndMtuInForm()
{
    const QString original = m_editor->yamlEdit()->toPlainText(); // lab-basic: restart-session
    QSpinBox *restarts = m_editor->maxRestartsSpin();
    QSpinBox *mtu = m_editor->mtuSpin();
    QCOMPARE(restarts->value(), 2);
    QVERIFY(restarts->isEnabled());
    QCOMPARE(mtu->value(), mtu->minimum()); // unset
    QCOMPARE(mtu->text(), mtu->specialValueText());

    restarts->setValue(5);
    mtu->setValue(1400);
    QVERIFY(m_editor->isModified());
    QVERIFY2(m_editor->diagnostics().isEmpty(),
             qPrintable(m_editor->diagnostics().value(0).toString()));
    ClusterTemplate t = loadYaml(m_editor->yamlEdit()->toPlainText());
    QCOMPARE(t.failurePolicy.maxRestarts, 5);
    QCOMPARE(t.mtu, std::optional<int>(1400));
    auto [removed, added] =
        Test::diffLines(original.split(u'\n'), m_editor->yamlEdit()->toPlainText().split(u'\n'));
    QCOMPARE(removed.size(), 1); // maxRestarts: 2; the network block is new
    QVERIFY(original.split(u'\n').at(removed.first()).contains(QLatin1String("maxRestarts: 2")));

    restarts->setValue(2);
    mtu->setValue(mtu->minimum());
    QCOMPARE(m_editor->yamlEdit()->toPlainText(), original);

    // Another action: no restarts to count.
    QComboBox *failure = m_editor->findChild<QComboBox *>(QStringLiteral("failurePolicy"));
    QVERIFY(failure);
    failure->setCurrentIndex(failure->findText(QStringLiteral("terminate-session")));
    Q_EMIT failure->activated(failure->currentIndex());
    QVERIFY(!restarts->isEnabled());
    t = loadYaml(m_editor->yamlEdit()->toPlainText());
    QCOMPARE(t.failurePolicy.action, FailurePolicy::Action::TerminateSession);
    QVERIFY(!m_editor->yamlEdit()->toPlainText().contains(QLatin1String("maxRestarts")));

    // Written in the YAML tab beyond what the loader accepts: listed and marked in the form.
    m_editor->yamlEdit()->setPlainText(QString(original).replace(
        QStringLiteral("maxRestarts: 2"), QStringLiteral("maxRestarts: 5000")));
    QTRY_VERIFY(!m_editor->diagnostics().isEmpty());
    QCOMPARE(m_editor->diagnostics().first().path, QStringLiteral("failurePolicy.maxRestarts"));
    QVERIFY2(restarts->styleSheet().contains(QLatin1String("background")),
             qPrintable(restarts->styleSheet()));
    QCOMPARE(restarts->toolTip(), m_editor->diagnostics().first().message);
}

// The template's env (every role gets it) in the form: shown, edited line by line, a new
// variable written and loaded back, removing it gives the file back.
void TestTemplateEditor::templateEnvInForm()
{
    const QString original = m_editor->yamlEdit()->toPlainText(); // lab-basic
    QTableWidget *env = m_editor->templateEnvTable();
    QCOMPARE(env->rowCount(), 1);
    QCOMPARE(env->item(0, 0)->text(), QStringLiteral("GREETING"));
    QCOMPARE(env->item(0, 1)->text(), QStringLiteral("hello from clusterdeck"));

    editCell(env, 0, 1, QStringLiteral("hi there"));
    QVERIFY(m_editor->isModified());
    auto [removed, added] =
        Test::diffLines(original.split(u'\n'), m_editor->yamlEdit()->toPlainText().split(u'\n'));
    QCOMPARE(removed.size(), 1);
    QCOMPARE(added.size(), 1);
    QVERIFY(m_editor->yamlEdit()
                ->toPlainText()
                .split(u'\n')
                .at(added.first())
                .contains(QLatin1String("GREETING: hi there")));
    editCell(env, 0, 1, QStringLiteral("hello from clusterdeck"));
    QCOMPARE(m_editor->yamlEdit()->toPlainText(), original);

    // The template's own Add Variable, not the role's (its tooltip tells them apart).
    auto byTip = [&](const QString &tip) -> QPushButton * {
        for (QPushButton *b : m_editor->findChildren<QPushButton *>())
            if (b->toolTip() == tip)
                return b;
        return nullptr;
    };
    QPushButton *add = byTip(QStringLiteral("Add a variable every role gets"));
    QVERIFY(add);
    QTest::mouseClick(add, Qt::LeftButton);
    typeIntoOpenEditor(env, QStringLiteral("EXTRA"));
    editCell(env, env->rowCount() - 1, 1, QStringLiteral("yes"));
    QVERIFY2(m_editor->diagnostics().isEmpty(),
             qPrintable(m_editor->diagnostics().value(0).toString()));
    const ClusterTemplate t = loadYaml(m_editor->yamlEdit()->toPlainText());
    QCOMPARE(t.env.value(QStringLiteral("EXTRA")), QStringLiteral("yes"));
    QCOMPARE(t.env.value(QStringLiteral("GREETING")), QStringLiteral("hello from clusterdeck"));

    env->setCurrentCell(env->rowCount() - 1, 0);
    QPushButton *remove = byTip(QStringLiteral("Remove the selected variable of every role"));
    QVERIFY(remove);
    remove->click();
    QCOMPARE(m_editor->yamlEdit()->toPlainText(), original);
}

// The template's mounts (every role gets them) in the form: a volume added is written and loads
// back, removing it gives the file back, a target the loader refuses marks the table.
void TestTemplateEditor::templateMountsInForm()
{
    const QString original = m_editor->yamlEdit()->toPlainText(); // lab-basic: no mounts
    MountsTable *mounts = m_editor->templateMountsTable();
    QVERIFY(mounts);
    QCOMPARE(mounts->rowCount(), 0);
    QCOMPARE(mounts->accessibleName(), QStringLiteral("Mounts of every role"));

    QPushButton *add = nullptr;
    QPushButton *remove = nullptr;
    for (QPushButton *b : m_editor->findChildren<QPushButton *>()) {
        if (b->toolTip() == u"Add a mount every role gets")
            add = b;
        else if (b->toolTip() == u"Remove the selected mount of every role")
            remove = b;
    }
    QVERIFY(add && remove);
    QTest::mouseClick(add, Qt::LeftButton);
    QVERIFY(!m_editor->isModified()); // an empty row is no edit
    typeIntoOpenEditor(mounts, QStringLiteral("cd-scratch"));
    editCell(mounts, 0, MountsTable::Target, QStringLiteral("/scratch"));
    QVERIFY(m_editor->isModified());
    QVERIFY2(m_editor->diagnostics().isEmpty(),
             qPrintable(m_editor->diagnostics().value(0).toString()));
    ClusterTemplate t = loadYaml(m_editor->yamlEdit()->toPlainText());
    QCOMPARE(t.mounts.size(), 1);
    QCOMPARE(t.mounts.first().type, Mount::Type::Volume);
    QCOMPARE(t.mounts.first().source, QStringLiteral("cd-scratch"));
    QCOMPARE(t.mounts.first().target, QStringLiteral("/scratch"));
    QVERIFY(!t.mounts.first().readOnly);
    // Only lines were added: every line of the file is still there, in order.
    auto [removed, added] =
        Test::diffLines(original.split(u'\n'), m_editor->yamlEdit()->toPlainText().split(u'\n'));
    QCOMPARE(removed.size(), 0);
    QVERIFY(!added.isEmpty());

    mounts->item(0, MountsTable::ReadOnly)->setCheckState(Qt::Checked);
    t = loadYaml(m_editor->yamlEdit()->toPlainText());
    QVERIFY(t.mounts.value(0).readOnly);

    mounts->setCurrentCell(0, MountsTable::Source);
    remove->click();
    QCOMPARE(mounts->rowCount(), 0);
    QCOMPARE(m_editor->yamlEdit()->toPlainText(), original);

    // Written in the YAML tab with a relative target: listed and the table marked.
    m_editor->yamlEdit()->setPlainText(QString(original).replace(
        QStringLiteral("env:\n"), QStringLiteral("mounts:\n  - cd-scratch:scratch\nenv:\n")));
    QTRY_VERIFY(!m_editor->diagnostics().isEmpty());
    QVERIFY2(m_editor->diagnostics().first().path.startsWith(QLatin1String("mounts[0]")),
             qPrintable(m_editor->diagnostics().first().toString()));
    QVERIFY2(mounts->styleSheet().contains(QLatin1String("background")),
             qPrintable(mounts->styleSheet()));
    QCOMPARE(mounts->toolTip(), m_editor->diagnostics().first().message);
}

// A role's overrides (env, ports, resources over its task's) in the form, on lab-basic's worker:
// each written under `overrides:`, loaded back, and reverting gives the file back; a size that
// is not one is said at once; a port the loader refuses marks its row.
void TestTemplateEditor::roleOverridesInForm()
{
    const QString original = m_editor->yamlEdit()->toPlainText();
    m_editor->rolesTable()->setCurrentCell(1, TemplateEditor::RoleName); // worker
    RoleTaskEditor *task = m_editor->taskEditor();
    QVERIFY(task->overrideEnvTable() && task->overridePortsTable());
    QCOMPARE(task->overrideEnvTable()->rowCount(), 0);
    QCOMPARE(task->overridePortsTable()->rowCount(), 0);
    QVERIFY(task->overrideCpusSpin()->isEnabled());
    showSection(task, QStringLiteral("Overrides"));

    task->overrideEnvTable()->addEmptyRow();
    typeIntoOpenEditor(task->overrideEnvTable(), QStringLiteral("ROLE_ONLY"));
    editCell(task->overrideEnvTable(), 0, 1, QStringLiteral("worker"));
    task->overridePortsTable()->addEmptyRow();
    typeIntoOpenEditor(task->overridePortsTable(), QStringLiteral("metrics"));
    editCell(task->overridePortsTable(), 0, PortsTable::Number, QStringLiteral("9100"));
    retype(task->overrideMemoryEdit(), QStringLiteral("128m"));
    task->overrideCpusSpin()->setValue(0.5);
    task->overrideGpusSpin()->setValue(1);
    QVERIFY2(m_editor->diagnostics().isEmpty(),
             qPrintable(m_editor->diagnostics().value(0).toString()));
    ClusterTemplate t = loadYaml(m_editor->yamlEdit()->toPlainText());
    QCOMPARE(t.roles.size(), 2);
    const RoleOverrides &o = t.roles.at(1).overrides;
    QCOMPARE(o.env,
             (QMap<QString, QString>{{QStringLiteral("ROLE_ONLY"), QStringLiteral("worker")}}));
    QCOMPARE(o.ports.size(), 1);
    QCOMPARE(o.ports.first().name, QStringLiteral("metrics"));
    QCOMPARE(o.ports.first().port, 9100);
    QCOMPARE(o.resources.memoryBytes, std::optional<qint64>(128LL << 20));
    QCOMPARE(o.resources.cpus, std::optional<double>(0.5));
    QCOMPARE(o.resources.gpus, std::optional<int>(1));
    QVERIFY(t.roles.at(0).overrides.isEmpty()); // the master's untouched
    // The role's lines only: nothing of the file was removed.
    auto [removed, added] =
        Test::diffLines(original.split(u'\n'), m_editor->yamlEdit()->toPlainText().split(u'\n'));
    QCOMPARE(removed.size(), 0);
    QVERIFY(m_editor->yamlEdit()->toPlainText().contains(QLatin1String("    overrides:")));

    // Not a size: said on the field at once, and the YAML keeps the last good value.
    const QString before = m_editor->yamlEdit()->toPlainText();
    retype(task->overrideMemoryEdit(), QStringLiteral("lots"));
    QVERIFY(task->overrideMemoryEdit()->styleSheet().contains(QLatin1String("background")));
    QVERIFY(task->overrideMemoryEdit()->toolTip().contains(QLatin1String("not a size")));
    QCOMPARE(m_editor->yamlEdit()->toPlainText(), before);

    // Back to nothing overridden: the file as it was.
    retype(task->overrideMemoryEdit(), QString());
    QVERIFY(task->overrideMemoryEdit()->styleSheet().isEmpty());
    task->overrideCpusSpin()->setValue(0);
    task->overrideGpusSpin()->setValue(-1);
    for (QTableWidget *table : std::initializer_list<QTableWidget *>{task->overrideEnvTable(),
                                                                     task->overridePortsTable()}) {
        table->setCurrentCell(0, 0);
        QPushButton *remove = nullptr;
        for (QPushButton *b : task->findChildren<QPushButton *>())
            if (b->toolTip().startsWith(u"Remove the selected overridden") && b->isVisible() &&
                b->parentWidget()->isAncestorOf(table))
                remove = b;
        QVERIFY(remove);
        remove->click();
    }
    QCOMPARE(m_editor->yamlEdit()->toPlainText(), original);

    // A port the loader refuses: listed, and its row marked.
    task->overridePortsTable()->addEmptyRow();
    typeIntoOpenEditor(task->overridePortsTable(), QStringLiteral("metrics"));
    editCell(task->overridePortsTable(), 0, PortsTable::Number, QStringLiteral("70000"));
    m_editor->validateNow();
    QVERIFY(!m_editor->diagnostics().isEmpty());
    const TemplateDiagnostic d = m_editor->diagnostics().first();
    QVERIFY2(d.path.startsWith(QLatin1String("roles[1].overrides.ports[0]")),
             qPrintable(d.toString()));
    QTableWidgetItem *name = task->overridePortsTable()->item(0, PortsTable::Name);
    QVERIFY(name);
    QCOMPARE(name->toolTip(), d.message);
}

// The spark sample's worker takes its task from a file shared with no other role, and overrides
// two variables: the task's pages are read-only there, its overrides are not, and editing one
// changes that one line of the file.
void TestTemplateEditor::roleOverridesOfASharedTaskFile()
{
    QTemporaryDir out;
    QVERIFY(copyTaskFiles(out.path()));
    const QString sample = out.filePath(QStringLiteral("spark.yaml"));
    QVERIFY(QFile::copy(qEnvironmentVariable("CLUSTERDECK_SOURCE_DIR") +
                            QStringLiteral("/templates/spark.yaml"),
                        sample));
    m_editor->setDirectories({}, out.path());
    QVERIFY(m_editor->openFile(sample));
    QVERIFY2(m_editor->diagnostics().isEmpty(),
             qPrintable(m_editor->diagnostics().value(0).toString()));
    // The list shows the opened file.
    auto *list = m_editor->findChild<QListWidget *>(QStringLiteral("templateList"));
    QVERIFY(list && list->currentItem());
    QCOMPARE(list->currentItem()->data(Qt::UserRole).toString(),
             QFileInfo(sample).absoluteFilePath());
    const QString original = m_editor->yamlEdit()->toPlainText();
    m_editor->rolesTable()->setCurrentCell(1, TemplateEditor::RoleName); // worker
    RoleTaskEditor *task = m_editor->taskEditor();
    QVERIFY(!task->envTable()->isEnabled()); // the task file's
    QVERIFY(task->overrideEnvTable()->isEnabled());
    QVERIFY(task->overrideMemoryEdit()->isEnabled());
    KeyValueTable *env = task->overrideEnvTable();
    QCOMPARE(env->pairs(), (QMap<QString, QString>{
                               {QStringLiteral("SPARK_WORKER_CORES"), QStringLiteral("2")},
                               {QStringLiteral("SPARK_WORKER_MEMORY"), QStringLiteral("3g")}}));
    int row = -1;
    for (int r = 0; r < env->rowCount(); ++r)
        if (env->item(r, 0)->text() == u"SPARK_WORKER_CORES")
            row = r;
    editCell(env, row, 1, QStringLiteral("4"));
    auto [removed, added] =
        Test::diffLines(original.split(u'\n'), m_editor->yamlEdit()->toPlainText().split(u'\n'));
    QCOMPARE(removed.size(), 1);
    QCOMPARE(added.size(), 1);
    QCOMPARE(m_editor->yamlEdit()->toPlainText().split(u'\n').at(added.first()).trimmed(),
             QStringLiteral("SPARK_WORKER_CORES: 4"));
    QVERIFY(m_editor->save());
    TemplateLoader loader;
    const auto saved = loader.loadClusterFile(m_editor->currentFile());
    QVERIFY2(saved, qPrintable(saved ? QString() : saved.error().toString()));
    QCOMPARE(saved->roles.at(1).overrides.env.value(QStringLiteral("SPARK_WORKER_CORES")),
             QStringLiteral("4"));
    QCOMPARE(saved->roles.at(1).taskFile, QStringLiteral("tasks/spark-worker.yaml"));
}

// The task editor's pages, in order (tst_accessibility walks each by its index).
void TestTemplateEditor::pageTitles()
{
    QStringList titles;
    for (int i = 0; i < m_editor->taskEditor()->sections()->count(); ++i)
        titles << m_editor->taskEditor()->sections()->tabText(i);
    QCOMPARE(titles,
             (QStringList{"Environment", "Mounts", "Ports", "Bootstrap", "Overrides", "More"}));
}

// Issue 29, item 2: every field the loader knows is editable in the form. The loader's own key
// lists are walked, so a key it learns without a field here fails this test.
void TestTemplateEditor::everyLoaderKeyHasAField()
{
    // key path -> the object name of the widget that edits it
    const QHash<QString, QString> fields{
        {"name", "templateName"},
        {"description", "templateDescription"},
        {"mode", "templateMode"},
        {"network", "networkMtu"},
        {"failurePolicy", "failurePolicy"},
        {"failurePolicy.maxRestarts", "maxRestarts"},
        {"successPolicy", "successPolicy"},
        {"ttlAfterFinished", "ttlAfterFinished"},
        {"startupOrder", "startupOrder"},
        {"presets", "templatePresets"},
        {"env", "templateEnv"},
        {"mounts", "templateMounts"},
        {"allowHostPaths", "allowHostPaths"},
        {"roles", "rolesTable"},
        {"role.name", "rolesTable"},
        {"role.task", "roleTaskEditor"},
        {"role.count", "roleCount"},
        {"role.min", "roleMin"},
        {"role.max", "roleMax"},
        {"role.overrides", "overrideEnv"},
        {"role.overrides.env", "overrideEnv"},
        {"role.overrides.ports", "overridePorts"},
        {"role.overrides.resources.cpus", "overrideCpus"},
        {"role.overrides.resources.memory", "overrideMemory"},
        {"role.overrides.resources.gpus", "overrideGpus"},
        {"role.hostLabels", "roleHostLabels"},
        {"task.image", "taskImage"},
        {"task.pullPolicy", "taskPullPolicy"},
        {"task.entrypoint", "taskEntrypoint"},
        {"task.command", "taskCommandKind"},
        {"task.workingDir", "taskWorkingDir"},
        {"task.user", "taskUser"},
        {"task.env", "taskEnv"},
        {"task.resources", "taskCpus"},
        {"task.resources.cpus", "taskCpus"},
        {"task.resources.memory", "taskMemory"},
        {"task.resources.gpus", "taskGpus"},
        {"task.mounts", "taskMounts"},
        {"task.bootstrap", "taskBootstrap"},
        {"task.ports", "taskPorts"},
        {"task.bindAddress", "taskBindAddress"},
        {"task.labels", "taskLabels"},
        {"task.onScale", "taskOnScale"},
    };
    // Not fields of a template: the file's header, and what only task files have.
    const QStringList notFields{"apiVersion", "kind", "task.apiVersion", "task.kind",
                                "task.extends"};
    QStringList keys = TemplateLoader::clusterKeys();
    for (const QString &k : TemplateLoader::roleKeys())
        keys << QStringLiteral("role.") + k;
    for (const QString &k : TemplateLoader::taskKeys())
        keys << QStringLiteral("task.") + k;
    keys << "failurePolicy.maxRestarts"
         << "role.overrides.env"
         << "role.overrides.ports"
         << "role.overrides.resources.cpus"
         << "role.overrides.resources.memory"
         << "role.overrides.resources.gpus"
         << "task.resources.cpus"
         << "task.resources.memory"
         << "task.resources.gpus";
    int checked = 0;
    for (const QString &key : std::as_const(keys)) {
        if (notFields.contains(key))
            continue;
        QVERIFY2(fields.contains(key), qPrintable(QStringLiteral("no form field for ") + key));
        QWidget *w = m_editor->findChild<QWidget *>(fields.value(key));
        QVERIFY2(w, qPrintable(key + QStringLiteral(": no widget ") + fields.value(key)));
        ++checked;
    }
    qInfo("%d template keys, each with its field in the form", checked);
}

QTEST_MAIN(TestTemplateEditor)
#include "tst_templateeditor.moc"
