// The first-start offer to register the daemon the docker CLI talks to (DOCKER_HOST, the current
// docker context, else the local socket), against a real store and, for the "yes" cases, a real
// dockerd (the lab's h1 socket stands in for /var/run/docker.sock).

#include "console/consolecontroller.h"
#include "host/hostregistry.h"
#include "hosts/localdockeroffer.h"
#include "store/statestore.h"
#include "store/storefactory.h"

#include <QFileInfo>
#include <QProcess>
#include <QProcessEnvironment>
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
    Outcome run(const QString &socket, bool answer, bool hostAlready,
                const QStringList &environment = {});
    QString dockerConfigWithContext(const QString &socket);

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

// A DOCKER_CONFIG whose current context, made by the docker CLI, is "lab-h1" on `socket`.
QString TestLocalDockerOffer::dockerConfigWithContext(const QString &socket)
{
    const QString dir = m_dir.filePath(QStringLiteral("docker-config-with-context"));
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("DOCKER_CONFIG"), dir);
    for (const QStringList &args :
         {QStringList{"context", "create", "lab-h1", "--docker", "host=unix://" + socket},
          QStringList{"context", "use", "lab-h1"}}) {
        QProcess docker;
        docker.setProcessEnvironment(env);
        docker.start(QStringLiteral("docker"), args);
        if (!docker.waitForFinished(30000) || docker.exitCode() != 0)
            qWarning() << "docker" << args << docker.readAllStandardError();
    }
    return dir;
}

TestLocalDockerOffer::Outcome TestLocalDockerOffer::run(const QString &socket, bool answer,
                                                        bool hostAlready,
                                                        const QStringList &environment)
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
    // Hermetic: no DOCKER_HOST, and a docker config folder without contexts unless the row has
    // its own.
    QProcessEnvironment env;
    env.insert(QStringLiteral("DOCKER_CONFIG"), m_dir.filePath(QStringLiteral("no-contexts")));
    for (const QString &pair : environment)
        env.insert(pair.section(u'=', 0, 0), pair.section(u'=', 1));
    offer->setEnvironment(env);
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
    QTest::addColumn<QStringList>("environment");
    QTest::addColumn<QString>("expectName");

    const QString labSocket =
        QUrl(qEnvironmentVariable("CLUSTERDECK_LAB_H1_DOCKER")).path(); // unix:///run/…/docker.sock
    const QString missing = m_dir.filePath(QStringLiteral("no-such-docker.sock"));
    QTest::newRow("socket, yes: registered")
        << labSocket << true << false << true << true << QStringList{} << "local";
    QTest::newRow("socket, no: nothing registered")
        << labSocket << false << false << true << false << QStringList{} << "";
    QTest::newRow("no socket: not asked")
        << missing << true << false << false << false << QStringList{} << "";
    QTest::newRow("hosts exist: not asked")
        << labSocket << true << true << false << false << QStringList{} << "";
    QTest::newRow("DOCKER_HOST, no socket: registered")
        << missing << true << false << true << true
        << QStringList{"DOCKER_HOST=unix://" + labSocket} << "local";
    QTest::newRow("current docker context, no socket: registered as it")
        << missing << true << false << true << true
        << QStringList{"DOCKER_CONFIG=" + dockerConfigWithContext(labSocket)} << "lab-h1";
}

void TestLocalDockerOffer::offer()
{
    QFETCH(QString, socket);
    QFETCH(bool, answer);
    QFETCH(bool, hostAlready);
    QFETCH(bool, expectAsked);
    QFETCH(bool, expectAdded);
    QFETCH(QStringList, environment);
    QFETCH(QString, expectName);
    const QString labSocket = QUrl(qEnvironmentVariable("CLUSTERDECK_LAB_H1_DOCKER")).path();
    QVERIFY2(QFileInfo::exists(labSocket), "start the lab: CLUSTERDECK_LAB_H1_DOCKER is needed");

    const Outcome o = run(socket, answer, hostAlready, environment);
    QVERIFY2(o.error.isEmpty(), qPrintable(o.error));
    QCOMPARE(o.asked, expectAsked);
    QCOMPARE(o.asks, expectAsked ? 1 : 0);
    QCOMPARE(o.added, expectAdded);
    QStringList names;
    for (const HostRecord &h : o.hosts)
        names << h.name;
    if (expectAdded) {
        QCOMPARE(names, QStringList{expectName});
        QCOMPARE(o.hosts.first().endpoint, QStringLiteral("unix://") + labSocket);
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
