// Template ▸ Export… (issue 29, item 5): the dialog's YAML is exactly what `clusterdeckctl export`
// prints for the same template, format and counts (ExportModel and the exporters of core/export),
// counts stay within a role's min..max, warnings are shown, and Save writes the preview.

#include "export/composeexporter.h"
#include "export/exportmodel.h"
#include "export/jobsetexporter.h"
#include "template/templateloader.h"
#include "templates/exportdialog.h"
#include "templates/templateeditor.h"

#include <QFile>
#include <QLabel>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSpinBox>
#include <QTemporaryDir>
#include <QTest>

using namespace ClusterDeck;
using namespace ClusterDeck::Ui;

namespace {

const QByteArray kTemplate = R"(apiVersion: clusterdeck/v1
kind: Cluster
name: export-me
mode: multi-node
roles:
  - name: master
    count: 1
    task:
      image: clusterdeck/lab:latest
      command: [sleep, "3600"]
  - name: worker
    count: 2
    min: 1
    max: 8
    task:
      image: clusterdeck/lab:latest
      # names its master by the short hostname: a JobSet warns (its pods are named otherwise),
      # a Compose file does not (its services are master1, worker1, …)
      command: [/bin/sh, -c, "until ping -c1 master1; do sleep 1; done; sleep 3600"]
)";

// The highest workerN service a Compose export has (one service per kernel).
int composeWorkers(const QString &yaml)
{
    int highest = 0;
    for (int i = 1; i <= 8; ++i) {
        if (yaml.contains(QStringLiteral("  worker%1:").arg(i)))
            highest = i;
    }
    return highest;
}

} // namespace

class TestExportDialog : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void sameAsTheCli_data();
    void sameAsTheCli();
    void savesThePreview();
    void fromTheTemplateEditor();

private:
    ClusterTemplate m_template;
};

void TestExportDialog::initTestCase()
{
    TemplateLoader loader;
    auto t = loader.loadClusterFromData(kTemplate, QStringLiteral("export-me.yaml"));
    QVERIFY2(t, qPrintable(t ? QString() : t.error().toString()));
    m_template = *t;
}

void TestExportDialog::sameAsTheCli_data()
{
    QTest::addColumn<int>("format");
    QTest::addColumn<int>("asked");    // the worker count typed into the spin box; 0: untouched
    QTest::addColumn<int>("expected"); // the count the export has
    QTest::addColumn<QString>("marker");
    QTest::newRow("JobSet, the template's counts")
        << int(ExportDialog::Format::JobSet) << 0 << 2 << QStringLiteral("kind: JobSet");
    QTest::newRow("JobSet, 5 workers")
        << int(ExportDialog::Format::JobSet) << 5 << 5 << QStringLiteral("kind: JobSet");
    QTest::newRow("Compose, 3 workers")
        << int(ExportDialog::Format::Compose) << 3 << 3 << QStringLiteral("services:");
    QTest::newRow("Compose, 20 asked: the role's max, 8")
        << int(ExportDialog::Format::Compose) << 20 << 8 << QStringLiteral("services:");
    QTest::newRow("Compose, 0 asked: the role's min, 1")
        << int(ExportDialog::Format::Compose) << -1 << 1 << QStringLiteral("services:");
}

void TestExportDialog::sameAsTheCli()
{
    QFETCH(int, format);
    QFETCH(int, asked);
    QFETCH(int, expected);
    QFETCH(QString, marker);
    ExportDialog dialog(m_template);
    dialog.setFormat(ExportDialog::Format(format));
    if (asked != 0)
        QVERIFY(dialog.setCount(QStringLiteral("worker"), asked < 0 ? 0 : asked));
    QVERIFY(!dialog.setCount(QStringLiteral("no-such-role"), 1));

    // What the CLI prints for `export --format … --count worker=<expected>`.
    const auto model = ExportModel::build(m_template, {{QStringLiteral("worker"), expected}});
    QVERIFY2(model, qPrintable(model ? QString() : model.error().toString()));
    const auto cli = ExportDialog::Format(format) == ExportDialog::Format::JobSet
                         ? JobSetExporter::exportModel(*model)
                         : ComposeExporter::exportModel(*model);
    QVERIFY2(cli, qPrintable(cli ? QString() : cli.error().toString()));

    QVERIFY(!dialog.hasError());
    QCOMPARE(dialog.yaml(), cli->yaml);
    QVERIFY(dialog.yaml().contains(marker));
    QCOMPARE(dialog.messages(), cli->warnings);
    const bool jobSet = ExportDialog::Format(format) == ExportDialog::Format::JobSet;
    QCOMPARE(dialog.messages().join(u' ').contains(QLatin1String("master1")), jobSet);
    const auto *preview = dialog.findChild<QPlainTextEdit *>(QStringLiteral("exportPreview"));
    QVERIFY(preview);
    QCOMPARE(preview->toPlainText(), cli->yaml);
    const auto *shown = dialog.findChild<QLabel *>(QStringLiteral("exportMessages"));
    QVERIFY(shown);
    QCOMPARE(shown->text().contains(QLatin1String("master1")), jobSet);
    QCOMPARE(shown->isVisibleTo(&dialog), !dialog.messages().isEmpty());
    if (ExportDialog::Format(format) == ExportDialog::Format::Compose)
        QCOMPARE(composeWorkers(dialog.yaml()), expected);
    QCOMPARE(dialog.findChild<QSpinBox *>(QStringLiteral("count-worker"))->value(), expected);
}

void TestExportDialog::savesThePreview()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    ExportDialog dialog(m_template);
    dialog.setFormat(ExportDialog::Format::Compose);
    QCOMPARE(dialog.suggestedFileName(), QStringLiteral("export-me-compose.yaml"));
    dialog.setFormat(ExportDialog::Format::JobSet);
    QCOMPARE(dialog.suggestedFileName(), QStringLiteral("export-me-jobset.yaml"));
    const QString path = dir.filePath(dialog.suggestedFileName());
    QVERIFY(dialog.saveTo(path));
    QFile file(path);
    QVERIFY(file.open(QIODevice::ReadOnly));
    QCOMPARE(QString::fromUtf8(file.readAll()), dialog.yaml());
    // A directory that does not exist: an error naming the file, nothing written.
    const QString nowhere = dir.filePath(QStringLiteral("missing/dir/x.yaml"));
    const auto refused = dialog.saveTo(nowhere);
    QVERIFY(!refused);
    QVERIFY2(refused.error().toString().contains(nowhere), qPrintable(refused.error().toString()));
    QVERIFY(!QFile::exists(nowhere));
}

void TestExportDialog::fromTheTemplateEditor()
{
    // The editor's Export… exports what it shows, unsaved edits included.
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString file = dir.filePath(QStringLiteral("export-me.yaml"));
    {
        QFile f(file);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(kTemplate);
    }
    TemplateEditor editor;
    editor.setDirectories({}, dir.path());
    QVERIFY(editor.openFile(file));
    auto *yaml = editor.findChild<QPlainTextEdit *>(QStringLiteral("yamlEdit"));
    QVERIFY(yaml);
    yaml->setPlainText(
        QString::fromUtf8(kTemplate).replace(QLatin1String("count: 2"), QLatin1String("count: 4")));
    QVERIFY(editor.findChild<QPushButton *>(QStringLiteral("exportTemplate")));
    std::unique_ptr<ExportDialog> dialog(editor.exportDialog());
    QVERIFY(dialog);
    dialog->setFormat(ExportDialog::Format::Compose);
    QCOMPARE(composeWorkers(dialog->yaml()), 4);
}

QTEST_MAIN(TestExportDialog)
#include "tst_exportdialog.moc"
