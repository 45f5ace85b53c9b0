#include "mainwindow/mainwindow.h"

#include <QMenuBar>
#include <QTabWidget>
#include <QTest>

using namespace ClusterDeck::Ui;

class TestMainWindow : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void opensWithTabs_data();
    void opensWithTabs();
};

void TestMainWindow::opensWithTabs_data()
{
    QTest::addColumn<int>("index");
    QTest::addColumn<QString>("title");
    QTest::newRow("sessions") << 0 << "Sessions";
    QTest::newRow("hosts") << 1 << "Hosts";
    QTest::newRow("templates") << 2 << "Templates";
}

void TestMainWindow::opensWithTabs()
{
    QFETCH(int, index);
    QFETCH(QString, title);
    MainWindow window;
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    auto *tabs = window.findChild<QTabWidget *>();
    QVERIFY(tabs);
    QCOMPARE(tabs->tabText(index), title);
    QCOMPARE(window.windowTitle(), QStringLiteral("ClusterDeck"));
}

QTEST_MAIN(TestMainWindow)
#include "tst_mainwindow.moc"
