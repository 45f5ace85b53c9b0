// The first-start offer to register the local Docker socket, against a real store and, for the
// "yes" case, a real dockerd (the lab's h1 socket stands in for /var/run/docker.sock).

#include "console/consolecontroller.h"
#include "host/hostregistry.h"
#include "hosts/localdockeroffer.h"
#include "store/statestore.h"
#include "store/storefactory.h"

#include <QFileInfo>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <QUrl>
#include <QWidget>

using namespace ClusterDeck;
using namespace ClusterDeck::Ui;

class TestLocalDockerOffer : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void init();
    void offer_data();
    void offer();
    void noIsRemembered();

private:
    struct Outcome
    {
        int asks = 0;
        bool asked = false;
        bool added = false;
        QString error;
        QList<HostRecord> hosts;
    };
    Outcome run(const QString &socket, bool answer, bool hostAlready);

    QTemporaryDir m_dir;
    int m_stores = 0;
};

void TestLocalDockerOffer::initTestCase()
{
    QStandardPaths::setTestModeEnabled(true); // QSettings go to a test location
    QCoreApplication::setOrganizationName(QStringLiteral("ClusterDeckTest"));
    QCoreApplication::setApplicationName(QStringLiteral("tst_localdockeroffer"));
    QVERIFY(m_dir.isValid());
}

void TestLocalDockerOffer::init()
{
    QSettings().remove(QLatin1String(LocalDockerOffer::kSettingsKey));
}

TestLocalDockerOffer::Outcome TestLocalDockerOffer::run(const QString &socket, bool answer,
                                                        bool hostAlready)
{
    Outcome o;
    auto store =
        openStore(QStringLiteral("sqlite://%1/state%2.db").arg(m_dir.path()).arg(++m_stores));
    if (!store)
        return o;
    if (hostAlready) {
        HostRecord existing;
        existing.name = QStringLiteral("elsewhere");
        existing.endpoint = QStringLiteral("unix:///run/elsewhere.sock");
        if (auto put = (*store)->putHost(existing); !put) {
            qWarning().noquote() << "registering the existing host:" << put.error().toString();
            return o;
        }
    }
    ConsoleController controller;
    controller.setHostRefreshInterval(0);
    QWidget parent;
    auto *offer = new LocalDockerOffer(&controller, &parent);
    offer->setSocketPath(socket);
    offer->setAsk([&o, answer](const QString &) {
        ++o.asks;
        return answer;
    });
    QSignalSpy finished(offer, &LocalDockerOffer::finished);
    controller.setStore(std::move(*store));
    if (!finished.wait(20000))
        return o;
    o.asked = finished.at(0).at(0).toBool();
    o.added = finished.at(0).at(1).toBool();
    o.error = finished.at(0).at(2).toString();
    controller.waitForIdle();
    if (auto hosts = controller.store()->hosts())
        o.hosts = *hosts;
    return o;
}

void TestLocalDockerOffer::offer_data()
{
    QTest::addColumn<QString>("socket");
    QTest::addColumn<bool>("answer");
    QTest::addColumn<bool>("hostAlready");
    QTest::addColumn<bool>("expectAsked");
    QTest::addColumn<bool>("expectAdded");

    const QString labSocket =
        QUrl(qEnvironmentVariable("CLUSTERDECK_LAB_H1_DOCKER")).path(); // unix:///run/…/docker.sock
    const QString missing = m_dir.filePath(QStringLiteral("no-such-docker.sock"));
    QTest::newRow("socket, yes: registered") << labSocket << true << false << true << true;
    QTest::newRow("socket, no: nothing registered") << labSocket << false << false << true << false;
    QTest::newRow("no socket: not asked") << missing << true << false << false << false;
    QTest::newRow("hosts exist: not asked") << labSocket << true << true << false << false;
}

void TestLocalDockerOffer::offer()
{
    QFETCH(QString, socket);
    QFETCH(bool, answer);
    QFETCH(bool, hostAlready);
    QFETCH(bool, expectAsked);
    QFETCH(bool, expectAdded);
    if (expectAsked || hostAlready)
        QVERIFY2(QFileInfo::exists(socket), "start the lab: CLUSTERDECK_LAB_H1_DOCKER is needed");

    const Outcome o = run(socket, answer, hostAlready);
    QVERIFY2(o.error.isEmpty(), qPrintable(o.error));
    QCOMPARE(o.asked, expectAsked);
    QCOMPARE(o.asks, expectAsked ? 1 : 0);
    QCOMPARE(o.added, expectAdded);
    QStringList names;
    for (const HostRecord &h : o.hosts)
        names << h.name;
    if (expectAdded) {
        QCOMPARE(names, QStringList{QStringLiteral("local")});
        QCOMPARE(o.hosts.first().endpoint, QStringLiteral("unix://") + socket);
    } else {
        QCOMPARE(names, hostAlready ? QStringList{QStringLiteral("elsewhere")} : QStringList{});
    }
}

void TestLocalDockerOffer::noIsRemembered()
{
    const QString socket = QUrl(qEnvironmentVariable("CLUSTERDECK_LAB_H1_DOCKER")).path();
    QVERIFY2(QFileInfo::exists(socket), "start the lab: CLUSTERDECK_LAB_H1_DOCKER is needed");
    const Outcome first = run(socket, false, false);
    QCOMPARE(first.asks, 1);
    // Next start, still no host: the admin said no once, so the console does not ask again.
    const Outcome second = run(socket, true, false);
    QCOMPARE(second.asked, false);
    QCOMPARE(second.asks, 0);
    QVERIFY(second.hosts.isEmpty());
}

QTEST_MAIN(TestLocalDockerOffer)
#include "tst_localdockeroffer.moc"
