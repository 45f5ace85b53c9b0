// The Hosts view's "Set Up Multi-Host Networking…" (issue 26, item 3): the dialog opens with the
// store's driver and VXLAN port, and the choice is written to the store's setting off the GUI
// thread; VXLAN sets nothing up, Swarm runs the swarm setup (with no host registered it fails, as
// before, after recording the driver). Offscreen, a real SQLite store, no daemon.

#include "console/consolecontroller.h"
#include "hosts/hostsview.h"
#include "hosts/networksetupdialog.h"
#include "network/networksettings.h"
#include "store/sqlitestore.h"

#include <QDialogButtonBox>
#include <QLabel>
#include <QMessageBox>
#include <QPushButton>
#include <QRadioButton>
#include <QTemporaryDir>
#include <QTest>

#include <memory>

using namespace ClusterDeck;
using namespace ClusterDeck::Ui;

class TestNetworkSetupDialog : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void init();
    void cleanup();

    void choiceWritesTheSetting_data();
    void choiceWritesTheSetting();
    void cancelWritesNothing();
    void unreadableSettingsAreShown();

private:
    // The Hosts view's action: its dialog, once the settings were read in the background.
    NetworkSetupDialog *openDialog();
    QString storedDriver() const;

    std::unique_ptr<QTemporaryDir> m_dir;
    StateStore *m_store = nullptr; // owned by m_controller
    std::unique_ptr<ConsoleController> m_controller;
    std::unique_ptr<HostsView> m_view;
};

void TestNetworkSetupDialog::init()
{
    m_dir = std::make_unique<QTemporaryDir>();
    QVERIFY(m_dir->isValid());
    auto store = SqliteStore::open(m_dir->filePath(QStringLiteral("state.db")));
    QVERIFY2(store, qPrintable(store ? QString() : store.error().toString()));
    m_store = store->get();
    m_controller = std::make_unique<ConsoleController>();
    m_controller->setHostRefreshInterval(0);
    m_controller->setCoalesceDelay(0);
    m_controller->setStore(std::unique_ptr<StateStore>(store->release()));
    m_controller->waitForIdle();
    m_view = std::make_unique<HostsView>(m_controller.get());
    m_view->show();
    QVERIFY(QTest::qWaitForWindowExposed(m_view.get()));
}

void TestNetworkSetupDialog::cleanup()
{
    if (m_controller)
        m_controller->waitForIdle();
    m_view.reset();
    m_controller.reset();
    m_store = nullptr;
    m_dir.reset();
}

NetworkSetupDialog *TestNetworkSetupDialog::openDialog()
{
    auto *button = m_view->findChild<QPushButton *>(QStringLiteral("setUpNetworking"));
    if (!button || !button->text().endsWith(QStringLiteral("…")))
        qWarning("the Hosts view's button is missing or does not say it opens a dialog");
    m_view->setUpNetworking();
    m_controller->waitForIdle();
    return m_view->findChild<NetworkSetupDialog *>();
}

QString TestNetworkSetupDialog::storedDriver() const
{
    auto value = m_store->setting(QString::fromLatin1(NetworkSettings::kDriverKey));
    return value ? *value : QStringLiteral("<error: %1>").arg(value.error().toString());
}

void TestNetworkSetupDialog::choiceWritesTheSetting_data()
{
    QTest::addColumn<QString>("before");  // the stored driver ("" unset)
    QTest::addColumn<bool>("swarmFirst"); // what the dialog preselects
    QTest::addColumn<bool>("chooseSwarm");
    QTest::addColumn<QString>("after");
    QTest::addColumn<QString>("message"); // the box that follows, by object name
    QTest::newRow("VXLAN on a new store") << "" << false << false << "vxlan"
                                          << "networkSetupDone";
    QTest::newRow("from Swarm to VXLAN") << "swarm" << true << false << "vxlan"
                                         << "networkSetupDone";
    QTest::newRow("Swarm, no host registered") << "" << false << true << "swarm"
                                               << "networkSetupFailed";
    QTest::newRow("Swarm again") << "swarm" << true << true << "swarm"
                                 << "networkSetupFailed";
}

void TestNetworkSetupDialog::choiceWritesTheSetting()
{
    QFETCH(QString, before);
    QFETCH(bool, swarmFirst);
    QFETCH(bool, chooseSwarm);
    QFETCH(QString, after);
    QFETCH(QString, message);
    QVERIFY(m_store->setSetting(QString::fromLatin1(NetworkSettings::kDriverKey), before));
    QVERIFY(NetworkSettings::setVxlanPort(*m_store, 4790));

    NetworkSetupDialog *dialog = openDialog();
    QVERIFY(dialog);
    QVERIFY(dialog->isVisible());
    QCOMPARE(dialog->swarmButton()->isChecked(), swarmFirst);
    QCOMPARE(dialog->vxlanButton()->isChecked(), !swarmFirst);
    bool saysPort = false;
    for (const QLabel *label : dialog->findChildren<QLabel *>())
        saysPort |= label->text().contains(QStringLiteral("UDP 4790 open between them"));
    QVERIFY2(saysPort, "the VXLAN choice names the store's port");
    QVERIFY(!dialog->findChild<QLabel *>(QStringLiteral("networkSettingsProblem"))->isVisible());

    // On the indicator: the button is as wide as the dialog, its text is not.
    QRadioButton *choice = chooseSwarm ? dialog->swarmButton() : dialog->vxlanButton();
    QTest::mouseClick(choice, Qt::LeftButton, {}, QPoint(6, choice->height() / 2));
    QCOMPARE(dialog->driver(), chooseSwarm ? NetworkDriver::Swarm : NetworkDriver::Vxlan);
    auto *apply = dialog->findChild<QDialogButtonBox *>()->button(QDialogButtonBox::Ok);
    QCOMPARE(apply->text(), QStringLiteral("&Apply"));
    QTest::mouseClick(apply, Qt::LeftButton);
    m_controller->waitForIdle();

    QCOMPARE(storedDriver(), after);
    QTRY_VERIFY(!m_view->findChild<NetworkSetupDialog *>()); // closed and deleted
    auto *box = m_view->findChild<QMessageBox *>(message);
    QVERIFY2(box, qPrintable(message));
    QVERIFY(box->isVisible());
    if (chooseSwarm)
        QVERIFY2(box->text().contains(QStringLiteral("no hosts are registered")),
                 qPrintable(box->text()));
    else
        QVERIFY2(box->text().contains(QStringLiteral("UDP port 4790")), qPrintable(box->text()));
    box->close();
    QTRY_VERIFY(!m_view->findChild<QMessageBox *>());
}

void TestNetworkSetupDialog::cancelWritesNothing()
{
    NetworkSetupDialog *dialog = openDialog();
    QVERIFY(dialog);
    QVERIFY(dialog->vxlanButton()->isChecked()); // the default of a new store
    QTest::mouseClick(dialog->swarmButton(), Qt::LeftButton, {},
                      QPoint(6, dialog->swarmButton()->height() / 2));
    QVERIFY(dialog->swarmButton()->isChecked());
    dialog->reject();
    m_controller->waitForIdle();
    QCOMPARE(storedDriver(), QString());
    QVERIFY(!m_view->findChild<QMessageBox *>());
}

// A stored driver that does not parse: the dialog says so, preselects VXLAN, and applying
// records a valid driver again.
void TestNetworkSetupDialog::unreadableSettingsAreShown()
{
    QVERIFY(m_store->setSetting(QString::fromLatin1(NetworkSettings::kDriverKey),
                                QStringLiteral("overlay")));
    NetworkSetupDialog *dialog = openDialog();
    QVERIFY(dialog);
    const auto *problem = dialog->findChild<QLabel *>(QStringLiteral("networkSettingsProblem"));
    QVERIFY(problem->isVisible());
    QVERIFY2(problem->text().contains(QStringLiteral("network.driver")) &&
                 problem->text().contains(QStringLiteral("overlay")),
             qPrintable(problem->text()));
    QVERIFY(dialog->vxlanButton()->isChecked());
    dialog->accept();
    m_controller->waitForIdle();
    QCOMPARE(storedDriver(), QStringLiteral("vxlan"));
    auto *box = m_view->findChild<QMessageBox *>(QStringLiteral("networkSetupDone"));
    QVERIFY(box);
    box->close();
}

QTEST_MAIN(TestNetworkSetupDialog)
#include "tst_networksetupdialog.moc"
