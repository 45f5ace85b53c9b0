#include "templates/templateeditor.h"

#include <QFile>
#include <QLineEdit>
#include <QListWidget>
#include <QPlainTextEdit>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>

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

static void editCell(QTableWidget *table, int row, int column, const QString &text)
{
    QTableWidgetItem *item = table->item(row, column);
    QVERIFY(item);
    table->setCurrentItem(item);
    table->editItem(item); // what a double click or F2 does
    auto *line = table->viewport()->findChild<QLineEdit *>();
    QVERIFY(line);
    line->setFocus();
    line->selectAll();
    QTest::keyClicks(line, text);
    // Commit as the delegate does on Return (key delivery to an editor is unreliable offscreen).
    QMetaObject::invokeMethod(table, "commitData", Q_ARG(QWidget *, line));
    QCOMPARE(item->text(), text);
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

QTEST_MAIN(TestTemplateEditor)
#include "tst_templateeditor.moc"
