// The Add Host dialog against a lab host's real sshd (issue 27, item 1): an ssh:// endpoint whose
// host key is not in known_hosts is refused with the key's fingerprint and offers Trust Host Key…;
// accepting shows the fingerprint, adds the key to the known_hosts file ssh uses, and the
// connection then succeeds. With CLUSTERDECK_SCREENSHOT_DIR set, the dialog offering the trust is
// saved there (add-host-ssh.png).

#include "console/consolecontroller.h"
#include "hosts/addhostdialog.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QProcess>
#include <QPushButton>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>

using namespace ClusterDeck;
using namespace ClusterDeck::Ui;

class TestAddHostLab : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void trustsAnUnknownSshHostKey();
};

void TestAddHostLab::trustsAnUnknownSshHostKey()
{
    const QString labConfig = qEnvironmentVariable("CLUSTERDECK_LAB_SSH_CONFIG");
    const QString endpoint = qEnvironmentVariable("CLUSTERDECK_LAB_H1_DOCKER_SSH");
    if (labConfig.isEmpty() || endpoint.isEmpty())
        QFAIL("the lab environment is missing (CLUSTERDECK_LAB_SSH_CONFIG): run `eval \"$(scripts/"
              "lab.sh env)\"` with the lab up");
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    // The lab's ssh_config with an empty known_hosts of our own.
    QFile in(labConfig);
    QVERIFY(in.open(QIODevice::ReadOnly));
    const QString knownHosts = dir.filePath(QStringLiteral("known_hosts"));
    QFile(knownHosts).open(QIODevice::WriteOnly);
    QString config = QString::fromUtf8(in.readAll());
    config.replace(QRegularExpression(QStringLiteral("UserKnownHostsFile .*")),
                   QStringLiteral("UserKnownHostsFile ") + knownHosts);
    QFile out(dir.filePath(QStringLiteral("ssh_config")));
    QVERIFY(out.open(QIODevice::WriteOnly));
    out.write(config.toUtf8());
    out.close();
    qputenv("CLUSTERDECK_SSH_CONFIG", QFile::encodeName(out.fileName()));

    // h1's fingerprint from the key file the lab made.
    QProcess keygen;
    keygen.start(QStringLiteral("ssh-keygen"),
                 {QStringLiteral("-lf"), QFileInfo(labConfig).dir().path() +
                                             QStringLiteral("/../h1/ssh_host_ed25519_key.pub")});
    QVERIFY(keygen.waitForFinished(10000));
    const QString fingerprint =
        QString::fromUtf8(keygen.readAllStandardOutput()).section(u' ', 1, 1);
    QVERIFY(fingerprint.startsWith(QLatin1String("SHA256:")));

    ConsoleController controller;
    controller.openStore(QStringLiteral("sqlite://") + dir.filePath(QStringLiteral("state.db")));
    QTRY_VERIFY_WITH_TIMEOUT(controller.hasStore(), 10000);
    AddHostDialog dialog(&controller);
    dialog.show();
    QVERIFY(QTest::qWaitForWindowExposed(&dialog));
    dialog.findChild<QLineEdit *>(QStringLiteral("hostName"))->setText(QStringLiteral("gpu-ssh"));
    dialog.findChild<QLineEdit *>(QStringLiteral("hostEndpoint"))->setText(endpoint);
    QVERIFY(!dialog.trustButton()->isVisible());

    dialog.testConnection();
    QTRY_VERIFY_WITH_TIMEOUT(dialog.trustButton()->isVisible(), 20000);
    QVERIFY2(dialog.resultLabel()->text().contains(QLatin1String("host key is not known")),
             qPrintable(dialog.resultLabel()->text()));
    QVERIFY2(dialog.resultLabel()->text().contains(fingerprint),
             qPrintable(dialog.resultLabel()->text()));
    if (const QString shots = qEnvironmentVariable("CLUSTERDECK_SCREENSHOT_DIR");
        !shots.isEmpty()) {
        QDir().mkpath(shots);
        QVERIFY(dialog.grab().save(shots + QStringLiteral("/add-host-ssh.png")));
    }

    // Trust Host Key…: the question shows the same fingerprint; Yes adds it and tests again.
    QString asked;
    QTimer answer;
    answer.setInterval(50);
    connect(&answer, &QTimer::timeout, &dialog, [&] {
        auto *box = dialog.findChild<QMessageBox *>(QStringLiteral("trustHostKeyQuestion"));
        if (!box || !box->isVisible())
            return;
        asked = box->text();
        box->button(QMessageBox::Yes)->click();
        answer.stop();
    });
    answer.start();
    dialog.trustButton()->click();
    QTRY_VERIFY_WITH_TIMEOUT(!asked.isEmpty(), 20000);
    QVERIFY2(asked.contains(fingerprint), qPrintable(asked));
    QTRY_VERIFY2_WITH_TIMEOUT(dialog.resultLabel()->text().contains(QLatin1String("Connected")),
                              qPrintable(dialog.resultLabel()->text()), 20000);
    QVERIFY(!dialog.trustButton()->isVisible());
    QVERIFY(QFileInfo(knownHosts).size() > 0);
}

QTEST_MAIN(TestAddHostLab)
#include "tst_addhost_lab.moc"
