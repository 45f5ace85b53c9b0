// The console's terminal against a real kernel container in the lab, through h1's TLS port and
// through its sshd (ssh://, issue 27): a Docker exec TTY feeds the libvterm screen; typed keys
// reach the shell; a resize of the widget resizes the exec's TTY; `top` draws its table (busybox's
// without the alternate screen); `exit` marks the tab. The screen is read back from the libvterm
// model. With CLUSTERDECK_SCREENSHOT_DIR set, the terminal running top is saved there.

#include "docker/dockerclient.h"
#include "terminal/terminalscreen.h"
#include "terminal/terminaltabs.h"
#include "terminal/terminalwidget.h"

#include <QDir>
#include <QSignalSpy>
#include <QTest>
#include <QUuid>

using namespace ClusterDeck;
using namespace ClusterDeck::Docker;
using namespace ClusterDeck::Ui;

class TestTerminalLab : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void cleanupTestCase();
    void shellThroughTheScreen_data();
    void shellThroughTheScreen();

private:
    std::shared_ptr<DockerClient> m_client;
    QString m_container;
};

void TestTerminalLab::initTestCase()
{
    const QString url = qEnvironmentVariable("CLUSTERDECK_LAB_H1_DOCKER_TLS");
    if (url.isEmpty())
        QFAIL(
            "the lab environment is missing: run `eval \"$(scripts/lab.sh env)\"` with the lab up");
    qputenv("CLUSTERDECK_SSH_CONFIG", qgetenv("CLUSTERDECK_LAB_SSH_CONFIG"));
    auto endpoint = DockerEndpoint::parse(url, {qEnvironmentVariable("CLUSTERDECK_LAB_TLS_CA"),
                                                qEnvironmentVariable("CLUSTERDECK_LAB_TLS_CERT"),
                                                qEnvironmentVariable("CLUSTERDECK_LAB_TLS_KEY")});
    QVERIFY(endpoint);
    m_client = std::make_shared<DockerClient>(*endpoint, QStringLiteral("h1"));
    ContainerSpec spec;
    spec.name = QStringLiteral("cdtest-%1-terminal")
                    .arg(QUuid::createUuid().toString(QUuid::WithoutBraces).left(8));
    spec.image = QStringLiteral("clusterdeck/lab:latest");
    spec.hostname = QStringLiteral("worker3");
    spec.labels = {{QStringLiteral("io.clusterdeck.session"), QStringLiteral("cdtest-terminal")}};
    spec.env = {QStringLiteral("BACKEND_CLUSTER_HOST=worker3")};
    spec.cmd = {QStringLiteral("sleep"), QStringLiteral("3600")};
    auto created = m_client->createContainer(spec);
    QVERIFY2(created, qPrintable(created ? QString() : created.error().toString()));
    m_container = created->id;
    QVERIFY(m_client->startContainer(m_container));
}

void TestTerminalLab::cleanupTestCase()
{
    if (!m_container.isEmpty())
        (void)m_client->removeContainer(m_container, {true, true});
}

void TestTerminalLab::shellThroughTheScreen_data()
{
    QTest::addColumn<QString>("endpoint"); // empty: h1's TLS client of initTestCase
    QTest::newRow("tcp+tls") << QString();
    QTest::newRow("ssh") << qEnvironmentVariable("CLUSTERDECK_LAB_H1_DOCKER_SSH");
}

void TestTerminalLab::shellThroughTheScreen()
{
    QFETCH(QString, endpoint);
    std::shared_ptr<DockerClient> client = m_client;
    if (!endpoint.isEmpty()) {
        // The same container, reached over SSH (the lab's sshd, scripts/lab.sh).
        auto ssh = DockerEndpoint::parse(endpoint);
        QVERIFY(ssh);
        client = std::make_shared<DockerClient>(*ssh, QStringLiteral("h1"));
    }
    TerminalTabs tabs;
    tabs.resize(800, 480);
    tabs.show();
    QVERIFY(QTest::qWaitForWindowExposed(&tabs));
    TerminalWidget *terminal =
        tabs.openTerminal(client, m_container, QStringLiteral("lab-session/worker3"));
    QCOMPARE(tabs.count(), 1);
    QCOMPARE(tabs.tabText(0), QStringLiteral("lab-session/worker3"));
    TerminalScreen *screen = terminal->screen();
    QTRY_VERIFY_WITH_TIMEOUT(screen->screenText().contains(QLatin1String("~ #")), 10000);
    QTest::qWait(300); // ash's cursor query is answered by libvterm itself

    QTest::keyClicks(terminal, QStringLiteral("echo host=$BACKEND_CLUSTER_HOST; stty size"));
    QTest::keyClick(terminal, Qt::Key_Return);
    const QString size = QStringLiteral("%1 %2").arg(screen->rows()).arg(screen->cols());
    QTRY_VERIFY2_WITH_TIMEOUT(screen->screenText().contains(QLatin1String("host=worker3")),
                              qPrintable(screen->screenText()), 10000);
    QTRY_VERIFY2_WITH_TIMEOUT(screen->screenText().contains(size), qPrintable(screen->screenText()),
                              10000);

    // A wider window: the widget resizes the screen and the exec's TTY follows.
    tabs.resize(1000, 560);
    QTRY_VERIFY(screen->cols() > 0 &&
                QStringLiteral("%1 %2").arg(screen->rows()).arg(screen->cols()) != size);
    const QString bigger = QStringLiteral("%1 %2").arg(screen->rows()).arg(screen->cols());
    QTest::qWait(500);
    QTest::keyClicks(terminal, QStringLiteral("clear; stty size"));
    QTest::keyClick(terminal, Qt::Key_Return);
    QTRY_VERIFY2_WITH_TIMEOUT(screen->screenText().contains(bigger),
                              qPrintable(screen->screenText()), 10000);

    // top draws its table and refreshes it; q gives the shell back.
    QTest::keyClicks(terminal, QStringLiteral("top"));
    QTest::keyClick(terminal, Qt::Key_Return);
    QTRY_VERIFY_WITH_TIMEOUT(screen->screenText().contains(QLatin1String("PID")), 10000);
    QTRY_VERIFY_WITH_TIMEOUT(screen->screenText().contains(QLatin1String("sleep 3600")), 10000);
    if (const QString dir = qEnvironmentVariable("CLUSTERDECK_SCREENSHOT_DIR");
        !dir.isEmpty() && endpoint.isEmpty()) {
        QTest::qWait(1200);
        QDir().mkpath(dir);
        QVERIFY(tabs.grab().save(dir + QStringLiteral("/terminal-top.png")));
    }
    QTest::keyClick(terminal, Qt::Key_Q);
    QTest::qWait(300);
    QTest::keyClicks(terminal, QStringLiteral("echo back-$((1+1))"));
    QTest::keyClick(terminal, Qt::Key_Return);
    QTRY_VERIFY2_WITH_TIMEOUT(screen->screenText().contains(QLatin1String("back-2")),
                              qPrintable(screen->screenText()), 10000);

    QSignalSpy finished(&tabs, &TerminalTabs::terminalFinished);
    QTest::keyClicks(terminal, QStringLiteral("exit 5"));
    QTest::keyClick(terminal, Qt::Key_Return);
    QTRY_COMPARE_WITH_TIMEOUT(finished.count(), 1, 10000);
    QCOMPARE(finished.first().at(1).toInt(), 5);
    QCOMPARE(tabs.tabText(0), QStringLiteral("lab-session/worker3 (exited 5)"));
    QVERIFY(screen->screenText().contains(QLatin1String("process exited with code 5")));
    tabs.closeTerminal(0);
    QCOMPARE(tabs.count(), 0);
}

QTEST_MAIN(TestTerminalLab)
#include "tst_terminal_lab.moc"
