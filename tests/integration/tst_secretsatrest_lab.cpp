// Secrets at rest (issue 13, item 4), against the lab (scripts/lab.sh): real dockerd hosts and
// the lab's etcd. A session launched with the ssh preset keeps its private key
//  - on SQLite: once, in a state file (and -wal/-shm) of mode 0600 in a 0700 folder;
//  - on etcd: nowhere in plain text (every value under the prefix, read back with the etcd
//    client, raw and base64-decoded), encrypted with the store key from the user's folder;
// and never in `show --json` or `render`. A console without the store key lists and shows the
// session but its restart fails with the documented error, touching nothing; after
// `store key export` / `store key import` the same restart works.
// Endpoints come from `eval "$(scripts/lab.sh env)"`; without them the test FAILS, never skips.

#include "common/privatefiles.h"
#include "etcd/etcdclient.h"
#include "labcli.h"
#include "store/statestore.h"
#include "store/storefactory.h"

#include <QDateTime>
#include <QDir>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcessEnvironment>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>
#include <QUrl>
#include <QUuid>

#include <sys/stat.h>

using namespace ClusterDeck;

#ifndef CLUSTERDECKCTL
#error "CLUSTERDECKCTL must name the clusterdeckctl binary"
#endif

namespace {

const QString kTemplate = QStringLiteral(R"(apiVersion: clusterdeck/v1
kind: Cluster
name: secrets
mode: multi-node
presets: [ssh]
roles:
  - name: master
    count: 1
    task:
      image: clusterdeck/lab:latest
      command: [sleep, "3600"]
      resources: {cpus: 0.1, memory: 32m}
  - name: worker
    count: 2
    task:
      image: clusterdeck/lab:latest
      command: [sleep, "3600"]
      resources: {cpus: 0.1, memory: 32m}
)");

// "-----BEGIN OPENSSH PRIVATE KEY" as base64 starting at each of the three byte offsets, so a
// key hidden in a base64 field is found whatever its alignment.
QList<QByteArray> privateKeyNeedles()
{
    const QByteArray header = "-----BEGIN OPENSSH PRIVATE KEY";
    QList<QByteArray> needles{"PRIVATE KEY"};
    for (int shift = 0; shift < 3; ++shift) {
        const QByteArray b64 = QByteArray(QByteArray(shift, 'x') + header).toBase64();
        needles.append(b64.mid((shift * 4 + 2) / 3 + 2, 24));
    }
    return needles;
}

} // namespace

class TestSecretsAtRestLab : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void sqliteFileModesAndOneCopy();
    void etcdHoldsNoPrivateKey();

private:
    // clusterdeckctl with the config folder `config` (XDG_CONFIG_HOME: where store keys live).
    Proc cli(const QString &storeUrl, const QString &config, const QStringList &args,
             const QByteArray &input = {}, int timeoutMs = 240000) const
    {
        QProcess p;
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.remove(QStringLiteral("CLUSTERDECK_STORE_KEYS_DIR"));
        env.insert(QStringLiteral("XDG_CONFIG_HOME"), config);
        env.insert(QStringLiteral("XDG_DATA_HOME"), m_dir.filePath(QStringLiteral("data-home")));
        p.setProcessEnvironment(env);
        p.start(QStringLiteral(CLUSTERDECKCTL),
                QStringList{QStringLiteral("--store"), storeUrl} + args);
        if (!input.isEmpty()) {
            p.waitForStarted();
            p.write(input);
        }
        p.closeWriteChannel();
        return finishProcess(p, timeoutMs);
    }
    void addHosts(const QString &storeUrl, const QString &config);
    QString launch(const QString &storeUrl, const QString &config);
    // The private key a kernel got (what must never be stored in plain text).
    QByteArray kernelPrivateKey(const QString &sessionId) const;
    QStringList startTimes(const QString &sessionId) const;

    LabHosts m_lab;
    QTemporaryDir m_dir;
    QString m_template;
};

void TestSecretsAtRestLab::initTestCase()
{
    m_lab = LabHosts::fromEnvironment();
    if (m_lab.names().size() < 3)
        QFAIL(qPrintable(LabHosts::error()));
    QVERIFY2(!qEnvironmentVariableIsEmpty("CLUSTERDECK_LAB_ETCD"), "CLUSTERDECK_LAB_ETCD unset");
    QVERIFY(m_dir.isValid());
    m_template = m_dir.filePath(QStringLiteral("secrets.yaml"));
    QVERIFY(writeTextFile(m_template, kTemplate));
}

void TestSecretsAtRestLab::addHosts(const QString &storeUrl, const QString &config)
{
    for (const QString &h : m_lab.names()) {
        const Proc added =
            cli(storeUrl, config,
                {QStringLiteral("host"), QStringLiteral("add"), h, QStringLiteral("--docker"),
                 m_lab.unixEndpoint(h), QStringLiteral("--address"), m_lab.address(h)});
        QVERIFY2(added.exitCode == 0, added.err.constData());
    }
}

QString TestSecretsAtRestLab::launch(const QString &storeUrl, const QString &config)
{
    const Proc launched =
        cli(storeUrl, config, {QStringLiteral("launch"), m_template, QStringLiteral("--json")});
    if (launched.exitCode != 0) {
        qWarning() << launched.err;
        return {};
    }
    for (const QByteArray &needle : privateKeyNeedles()) {
        if (launched.out.contains(needle) || launched.err.contains(needle))
            return QStringLiteral("leak");
    }
    return QJsonDocument::fromJson(launched.out).object().value(QStringLiteral("id")).toString();
}

QByteArray TestSecretsAtRestLab::kernelPrivateKey(const QString &sessionId) const
{
    for (const QString &h : m_lab.names()) {
        const QString name = m_lab.containersOf(sessionId).value(h).value(0);
        if (name.isEmpty())
            continue;
        return m_lab
            .docker(h, {QStringLiteral("exec"), name, QStringLiteral("cat"),
                        QStringLiteral("/root/.ssh/id_ed25519")})
            .out;
    }
    return {};
}

QStringList TestSecretsAtRestLab::startTimes(const QString &sessionId) const
{
    QStringList times;
    const auto containers = m_lab.containersOf(sessionId);
    for (auto it = containers.cbegin(); it != containers.cend(); ++it) {
        for (const QString &c : it.value())
            times.append(c + QLatin1Char('@') + m_lab.startedAt(it.key(), c));
    }
    times.sort();
    return times;
}

void TestSecretsAtRestLab::sqliteFileModesAndOneCopy()
{
    // The folder is made by ClusterDeck; a looser one left by an earlier build is repaired.
    const QString dir = m_dir.filePath(QStringLiteral("sqlite-data/clusterdeck"));
    QVERIFY(QDir().mkpath(dir));
    QCOMPARE(::chmod(QFile::encodeName(dir).constData(), 0755), 0);
    const QString path = dir + QStringLiteral("/state.db");
    const QString url = QStringLiteral("sqlite://") + path;
    const QString config = m_dir.filePath(QStringLiteral("config-sqlite"));
    addHosts(url, config);
    const QString sid = launch(url, config);
    QVERIFY(!sid.isEmpty());
    QVERIFY2(sid != QLatin1String("leak"), "launch --json printed the private key");

    // After the CLI (SQLite removes -wal and -shm when the last connection closes) and while a
    // store is open (they exist then).
    QCOMPARE(PrivateFiles::modeOf(dir), 0700);
    QCOMPARE(QDir(dir).entryList(QDir::Files), QStringList{QStringLiteral("state.db")});
    QCOMPARE(PrivateFiles::modeOf(path), 0600);

    // The key the kernels got is stored exactly once (the session's secrets), not per kernel.
    const QByteArray key = kernelPrivateKey(sid);
    QVERIFY2(key.contains("PRIVATE KEY"), key.constData());
    {
        auto store = openStore(url);
        QVERIFY(store);
        EventRecord written;
        written.at = QDateTime::currentDateTimeUtc();
        written.actor = QStringLiteral("tst_secretsatrest_lab");
        written.action = QStringLiteral("test");
        written.detail = QStringLiteral("a write, so -wal has content");
        QVERIFY((*store)->appendEvent(written));
        const QStringList open = QDir(dir).entryList(QDir::Files);
        QCOMPARE(open, (QStringList{QStringLiteral("state.db"), QStringLiteral("state.db-shm"),
                                    QStringLiteral("state.db-wal")}));
        for (const QString &f : open)
            QCOMPARE(PrivateFiles::modeOf(dir + QLatin1Char('/') + f), 0600);
        qInfo() << "state files while open:" << open << "all 0600, folder 0700";
        auto session = (*store)->session(sid);
        QVERIFY(session);
        const QByteArray stored =
            QJsonDocument(session->launch.toJson()).toJson(QJsonDocument::Compact);
        QCOMPARE(stored.count(key.toBase64()), 1);
    }
    // Not in what show, ls and render print.
    for (const QStringList &args :
         {QStringList{QStringLiteral("show"), sid, QStringLiteral("--json")},
          QStringList{QStringLiteral("show"), sid},
          QStringList{QStringLiteral("ls"), QStringLiteral("--json")},
          QStringList{QStringLiteral("template"), QStringLiteral("render"), m_template,
                      QStringLiteral("--json")},
          QStringList{QStringLiteral("template"), QStringLiteral("render"), m_template}}) {
        const Proc p = cli(url, config, args);
        QVERIFY2(p.exitCode == 0, p.err.constData());
        for (const QByteArray &needle : privateKeyNeedles() + QList<QByteArray>{key.toBase64()})
            QVERIFY2(!p.out.contains(needle) && !p.err.contains(needle),
                     qPrintable(args.join(QLatin1Char(' '))));
    }
    // A SQLite store has no store key to share.
    const Proc exported = cli(
        url, config, {QStringLiteral("store"), QStringLiteral("key"), QStringLiteral("export")});
    QCOMPARE(exported.exitCode, 1);
    QVERIFY2(exported.err.contains("has no store key"), exported.err.constData());

    const Proc removed = cli(url, config, {QStringLiteral("rm"), sid});
    QVERIFY2(removed.exitCode == 0, removed.err.constData());
    QCOMPARE(LabHosts::count(m_lab.containersOf(sid)), 0);
}

void TestSecretsAtRestLab::etcdHoldsNoPrivateKey()
{
    const QString endpoint = qEnvironmentVariable("CLUSTERDECK_LAB_ETCD");
    const QString prefix =
        QStringLiteral("/cdtest-secrets/") + QUuid::createUuid().toString(QUuid::Id128).left(12);
    const QString url = QStringLiteral("etcd://") + QUrl(endpoint).authority() + prefix;
    const QString alice = m_dir.filePath(QStringLiteral("config-alice"));
    const QString bob = m_dir.filePath(QStringLiteral("config-bob"));
    addHosts(url, alice);
    const QString sid = launch(url, alice);
    QVERIFY(!sid.isEmpty());
    QVERIFY2(sid != QLatin1String("leak"), "launch --json printed the private key");
    const QByteArray key = kernelPrivateKey(sid);
    QVERIFY2(key.contains("PRIVATE KEY"), key.constData());

    // Every value under the prefix, raw and with every base64 run in it decoded.
    Etcd::EtcdConfig config;
    config.endpoints = {endpoint};
    Etcd::EtcdClient etcd(config);
    auto all = etcd.rangePrefix((prefix + u'/').toUtf8());
    QVERIFY2(all, qPrintable(all ? QString() : all.error().toString()));
    QVERIFY(all->kvs.size() > 5);
    const QRegularExpression base64Run(QStringLiteral("[A-Za-z0-9+/=]{40,}"));
    const QByteArray keyBody = key.split('\n').value(1); // one line of the key's own base64
    QVERIFY(keyBody.size() > 40);
    const QList<QByteArray> needles =
        privateKeyNeedles() + QList<QByteArray>{keyBody, key.toBase64().left(40)};
    int scanned = 0;
    auto leaks = [&](const QByteArray &value) {
        QList<QByteArray> views{value};
        auto runs = base64Run.globalMatch(QString::fromUtf8(value));
        while (runs.hasNext())
            views.append(QByteArray::fromBase64(runs.next().captured().toLatin1()));
        for (const QByteArray &v : std::as_const(views)) {
            ++scanned;
            for (const QByteArray &needle : needles) {
                if (v.contains(needle))
                    return true;
            }
        }
        return false;
    };
    // The scan finds the key as earlier builds stored it (base64 in a JSON field).
    QVERIFY(leaks(QByteArray(R"({"content":")" + key.toBase64() + R"("})")));
    QVERIFY(leaks(key));
    scanned = 0;
    for (const Etcd::KeyValue &kv : std::as_const(all->kvs))
        QVERIFY2(!leaks(kv.value), kv.key.constData());
    qInfo() << "scanned" << all->kvs.size() << "keys under" << prefix << "(" << scanned
            << "raw and base64-decoded views): no private key";

    // Alice's store key: 0600 in a 0700 folder, named after the store id.
    QString storeId;
    {
        auto store = openStore(url);
        QVERIFY(store);
        storeId = (*store)->storeId();
    }
    const QString keyDir = alice + QStringLiteral("/clusterdeck/store-keys");
    QCOMPARE(PrivateFiles::modeOf(keyDir), 0700);
    QCOMPARE(PrivateFiles::modeOf(keyDir + QLatin1Char('/') + storeId + QStringLiteral(".key")),
             0600);

    // Bob has no key: he sees the session, but its restart fails with the documented error and
    // leaves the kernels running as they were.
    const Proc ls = cli(url, bob, {QStringLiteral("ls")});
    QVERIFY2(ls.exitCode == 0 && ls.out.contains(sid.left(8).toUtf8()), ls.err.constData());
    const Proc show = cli(url, bob, {QStringLiteral("show"), sid, QStringLiteral("--json")});
    QVERIFY2(show.exitCode == 0, show.err.constData());
    QCOMPARE(QJsonDocument::fromJson(show.out).object().value(QStringLiteral("status")).toString(),
             QStringLiteral("RUNNING"));
    const QStringList before = startTimes(sid);
    QCOMPARE(before.size(), 3);
    const Proc refused = cli(url, bob, {QStringLiteral("restart"), sid});
    QCOMPARE(refused.exitCode, 1);
    QVERIFY2(refused.err.startsWith("error: ") && refused.err.count('\n') == 1,
             refused.err.constData());
    QVERIFY2(refused.err.contains("the store key is missing"), refused.err.constData());
    QVERIFY2(refused.err.contains("clusterdeckctl store key import"), refused.err.constData());
    for (const QByteArray &needle : privateKeyNeedles())
        QVERIFY(!refused.err.contains(needle));
    qInfo() << "without the key:" << refused.err.trimmed();
    QCOMPARE(startTimes(sid), before);
    const Proc after = cli(url, bob, {QStringLiteral("show"), sid, QStringLiteral("--json")});
    QCOMPARE(QJsonDocument::fromJson(after.out).object().value(QStringLiteral("status")).toString(),
             QStringLiteral("RUNNING"));

    // A wrong key (right store id) is refused by the import.
    const QByteArray wrong = "clusterdeck-store-key v1 " + storeId.toUtf8() + ' ' +
                             QByteArray(32, 'w').toBase64() + '\n';
    const Proc refusedImport = cli(url, bob,
                                   {QStringLiteral("store"), QStringLiteral("key"),
                                    QStringLiteral("import"), QStringLiteral("-")},
                                   wrong);
    QCOMPARE(refusedImport.exitCode, 1);
    QVERIFY2(refusedImport.err.contains("is not the one"), refusedImport.err.constData());

    // Alice exports (0600 file, and the same line on stdout); Bob imports; the restart works.
    const QString file = m_dir.filePath(QStringLiteral("alice.key"));
    const Proc exported = cli(url, alice,
                              {QStringLiteral("store"), QStringLiteral("key"),
                               QStringLiteral("export"), QStringLiteral("--output"), file});
    QVERIFY2(exported.exitCode == 0, exported.err.constData());
    QCOMPARE(PrivateFiles::modeOf(file), 0600);
    const Proc printed =
        cli(url, alice, {QStringLiteral("store"), QStringLiteral("key"), QStringLiteral("export")});
    QVERIFY2(printed.exitCode == 0, printed.err.constData());
    QFile f(file);
    QVERIFY(f.open(QIODevice::ReadOnly));
    QCOMPARE(printed.out, f.readAll());
    QVERIFY(
        printed.out.startsWith(QByteArray("clusterdeck-store-key v1 " + storeId.toUtf8() + ' ')));
    const Proc imported = cli(
        url, bob, {QStringLiteral("store"), QStringLiteral("key"), QStringLiteral("import"), file});
    QVERIFY2(imported.exitCode == 0, imported.err.constData());
    QCOMPARE(PrivateFiles::modeOf(bob + QStringLiteral("/clusterdeck/store-keys/") + storeId +
                                  QStringLiteral(".key")),
             0600);
    const Proc restarted = cli(url, bob, {QStringLiteral("restart"), sid});
    QVERIFY2(restarted.exitCode == 0, restarted.err.constData());
    QVERIFY(startTimes(sid) != before);
    QCOMPARE(kernelPrivateKey(sid), key); // the same key, from the encrypted copy

    const Proc removed = cli(url, alice, {QStringLiteral("rm"), sid});
    QVERIFY2(removed.exitCode == 0, removed.err.constData());
    QCOMPARE(LabHosts::count(m_lab.containersOf(sid)), 0);
    auto cleaned = etcd.removePrefix((prefix + u'/').toUtf8());
    QVERIFY(cleaned);
}

QTEST_GUILESS_MAIN(TestSecretsAtRestLab)
#include "tst_secretsatrest_lab.moc"
