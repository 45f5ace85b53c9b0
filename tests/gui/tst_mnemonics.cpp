// Labels with a mnemonic have a buddy (issue 29, item 3): a QLabel whose text marks a mnemonic
// ("TLS &CA:") but has no buddy shows the "&" itself and gives the keyboard nothing. Walks every
// label of the dialogs and forms that have such rows, data-driven over them.

#include "console/consolecontroller.h"
#include "hosts/addhostdialog.h"
#include "launch/launchdialog.h"
#include "templates/exportdialog.h"
#include "templates/templateeditor.h"

#include <QLabel>
#include <QRegularExpression>
#include <QTest>

#include <functional>
#include <memory>

using namespace ClusterDeck;
using namespace ClusterDeck::Ui;

using Factory = std::function<QWidget *(ConsoleController *)>;
Q_DECLARE_METATYPE(Factory)

class TestMnemonics : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void labelsWithAMnemonicHaveABuddy_data();
    void labelsWithAMnemonicHaveABuddy();
};

void TestMnemonics::labelsWithAMnemonicHaveABuddy_data()
{
    QTest::addColumn<Factory>("make");
    QTest::newRow("Add Host dialog")
        << Factory([](ConsoleController *c) -> QWidget * { return new AddHostDialog(c); });
    QTest::newRow("Launch dialog")
        << Factory([](ConsoleController *c) -> QWidget * { return new LaunchDialog(c); });
    QTest::newRow("template editor")
        << Factory([](ConsoleController *) -> QWidget * { return new TemplateEditor; });
    QTest::newRow("Export dialog") << Factory([](ConsoleController *) -> QWidget * {
        ClusterTemplate t;
        t.name = QStringLiteral("two-roles");
        RoleTemplate master;
        master.name = QStringLiteral("master");
        RoleTemplate worker;
        worker.name = QStringLiteral("worker");
        worker.max = 8;
        worker.count = 2;
        t.roles = {master, worker};
        return new ExportDialog(t);
    });
}

void TestMnemonics::labelsWithAMnemonicHaveABuddy()
{
    QFETCH(Factory, make);
    ConsoleController controller;
    std::unique_ptr<QWidget> widget(make(&controller));
    widget->show();
    QVERIFY(QTest::qWaitForWindowExposed(widget.get()));
    // "&x" marks a mnemonic; "&&" is a literal ampersand.
    static const QRegularExpression mnemonic(QStringLiteral("(^|[^&])&[^&\\s]"));
    QStringList bare;
    int checked = 0;
    for (const QLabel *label : widget->findChildren<QLabel *>()) {
        if (label->textFormat() == Qt::RichText || !mnemonic.match(label->text()).hasMatch())
            continue;
        ++checked;
        if (!label->buddy())
            bare.append(label->text());
    }
    qInfo("%d label(s) with a mnemonic", checked);
    QVERIFY(checked > 0);
    QVERIFY2(bare.isEmpty(), qPrintable(QStringLiteral("no buddy: ") + bare.join(u", ")));
}

QTEST_MAIN(TestMnemonics)
#include "tst_mnemonics.moc"
