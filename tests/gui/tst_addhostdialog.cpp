// The Add Host dialog's "From Docker context" (issue 27, item 2): the docker CLI's contexts of a
// DOCKER_CONFIG listed, one chosen fills the name, endpoint and TLS files, an unsupported one says
// why and changes nothing. Offscreen, no daemon.

#include "console/consolecontroller.h"
#include "hosts/addhostdialog.h"

#include <QComboBox>
#include <QCryptographicHash>
#include <QDir>
#include <QLabel>
#include <QLineEdit>
#include <QTemporaryDir>
#include <QTest>

using namespace ClusterDeck;
using namespace ClusterDeck::Ui;

namespace {

// A context as the docker CLI stores it: meta.json under the hash of its name, TLS files beside.
void writeContext(const QString &configDir, const QString &name, const QString &host,
                  const QString &description = {}, bool tls = false)
{
    const QString hash = QString::fromLatin1(
        QCryptographicHash::hash(name.toUtf8(), QCryptographicHash::Sha256).toHex());
    const QString meta = configDir + QStringLiteral("/contexts/meta/") + hash;
    QDir().mkpath(meta);
    QFile f(meta + QStringLiteral("/meta.json"));
    if (!f.open(QIODevice::WriteOnly))
        qFatal("cannot write %s", qPrintable(f.fileName()));
    f.write(QStringLiteral(R"({"Name":"%1","Metadata":{"Description":"%2"},)"
                           R"("Endpoints":{"docker":{"Host":"%3","SkipTLSVerify":false}}})")
                .arg(name, description, host)
                .toUtf8());
    if (tls) {
        const QString dir = configDir + QStringLiteral("/contexts/tls/") + hash + u"/docker/";
        QDir().mkpath(dir);
        for (const char *file : {"ca.pem", "cert.pem", "key.pem"}) {
            QFile pem(dir + QLatin1String(file));
            if (!pem.open(QIODevice::WriteOnly))
                qFatal("cannot write %s", qPrintable(pem.fileName()));
            pem.write("pem");
        }
    }
}

} // namespace

class TestAddHostDialog : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void fillsFromAContext();
    void noContexts();
};

void TestAddHostDialog::fillsFromAContext()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    writeContext(dir.path(), "gpu3", "ssh://admin@gpu3");
    writeContext(dir.path(), "lab-h1", "unix:///run/cdlab/h1/docker.sock", "the lab's first host");
    writeContext(dir.path(), "lab-h2", "tcp://192.168.213.12:2376", {}, true);
    writeContext(dir.path(), "winbox", "npipe:////./pipe/docker_engine");
    ConsoleController controller;
    AddHostDialog dialog(&controller);
    dialog.loadContexts(dir.path());
    QComboBox *box = dialog.contextBox();
    QVERIFY(box->isEnabled());
    QCOMPARE(box->count(), 5); // "none" and the four contexts, by name
    QCOMPARE(box->itemData(1).toString(), "gpu3");
    QCOMPARE(box->itemText(2), "lab-h1 — unix:///run/cdlab/h1/docker.sock (the lab's first host)");
    auto *name = dialog.findChild<QLineEdit *>("hostName");
    auto *endpoint = dialog.findChild<QLineEdit *>("hostEndpoint");
    QVERIFY(name && endpoint);

    box->setCurrentIndex(3);
    Q_EMIT box->activated(3);
    QCOMPARE(name->text(), "lab-h2");
    QCOMPARE(endpoint->text(), "tcp+tls://192.168.213.12:2376");
    QCOMPARE(dialog.host().tlsKey,
             dir.path() + "/contexts/tls/" +
                 QString::fromLatin1(
                     QCryptographicHash::hash("lab-h2", QCryptographicHash::Sha256).toHex()) +
                 "/docker/key.pem");

    // A name typed by the admin stays; the endpoint and TLS files follow the context.
    name->setText("first");
    box->setCurrentIndex(2);
    Q_EMIT box->activated(2);
    QCOMPARE(name->text(), "first");
    QCOMPARE(endpoint->text(), "unix:///run/cdlab/h1/docker.sock");
    QVERIFY(dialog.host().tlsCa.isEmpty());

    // ssh://: taken as it is (the admin's ssh reaches it).
    box->setCurrentIndex(1);
    Q_EMIT box->activated(1);
    QCOMPARE(endpoint->text(), "ssh://admin@gpu3");
    QCOMPARE(dialog.validationError(), QString());

    // Unsupported: said, nothing changed.
    box->setCurrentIndex(4);
    Q_EMIT box->activated(4);
    QVERIFY2(dialog.resultLabel()->text().contains("only unix://, ssh:// and tcp://"),
             qPrintable(dialog.resultLabel()->text()));
    QCOMPARE(endpoint->text(), "ssh://admin@gpu3");
}

void TestAddHostDialog::noContexts()
{
    QTemporaryDir dir;
    ConsoleController controller;
    AddHostDialog dialog(&controller);
    dialog.loadContexts(dir.path());
    QCOMPARE(dialog.contextBox()->count(), 1);
    QVERIFY(!dialog.contextBox()->isEnabled());
    QCOMPARE(dialog.contextBox()->currentText(), "(no docker contexts)");
}

QTEST_MAIN(TestAddHostDialog)
#include "tst_addhostdialog.moc"
