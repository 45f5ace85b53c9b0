// Secrets at rest (issue 13, item 4): the AES-256-GCM helper, the store key's file format, a
// session's secrets kept once (not once per kernel), and the SQLite state file's modes.

#include "common/privatefiles.h"
#include "plan/composelabels.h"
#include "provision/provisioner.h"
#include "store/secretbox.h"
#include "store/sessionsecrets.h"
#include "store/sqlitestore.h"
#include "store/storekey.h"

#include <QDir>
#include <QFile>
#include <QJsonDocument>
#include <QTemporaryDir>
#include <QTest>

#include <sqlite3.h>
#include <sys/stat.h>

using namespace ClusterDeck;

#define VERIFY_OK(r) QVERIFY2(bool(r), qPrintable((r) ? QString() : (r).error().toString()))

namespace {

const QByteArray kPrivateKey = "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n"
                               "-----END OPENSSH PRIVATE KEY-----\n";
const QByteArray kPublicKey = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI clusterdeck@t\n";

QByteArray fixedKey(char fill)
{
    return QByteArray(SecretBox::kKeySize, fill);
}

// A session of `n` kernels, each with the ssh preset's files (private key 0600, public key 0644,
// authorized_keys 0600, config 0644).
SessionSpec sshSpec(int n)
{
    SessionSpec spec;
    spec.plan.sessionId = QStringLiteral("5e551011-0000-4000-8000-000000000001");
    spec.plan.sessionName = QStringLiteral("ssh-test");
    spec.plan.networkName = QStringLiteral("cd-5e551011");
    spec.plan.roles = {{QStringLiteral("worker"), n}};
    spec.placement.mode = ClusterMode::MultiNode;
    for (int i = 1; i <= n; ++i) {
        KernelSpec k;
        k.kernelId = QStringLiteral("k%1").arg(i);
        k.hostname = QStringLiteral("worker%1").arg(i);
        k.containerName = QStringLiteral("cd-5e551011-worker%1").arg(i);
        k.role = QStringLiteral("worker");
        k.roleIdx = i;
        k.localRank = i - 1;
        k.image = QStringLiteral("clusterdeck/lab:latest");
        k.files = {{QStringLiteral("/root/.ssh/id_ed25519"), kPrivateKey, 0600, QString()},
                   {QStringLiteral("/root/.ssh/id_ed25519.pub"), kPublicKey, 0644, QString()},
                   {QStringLiteral("/root/.ssh/authorized_keys"), kPublicKey, 0600, QString()},
                   {QStringLiteral("/root/.ssh/config"), "Host *\n", 0644, QString()}};
        // As the resolver leaves every kernel (a stored spec without them gets them on reading).
        ComposeLabels::apply(k, spec.plan.sessionName);
        spec.plan.kernels.append(k);
        spec.placement.hostOf.insert(k.hostname, QStringLiteral("h%1").arg(i));
    }
    return spec;
}

} // namespace

class TestSecretsAtRest : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void roundTrip_data();
    void roundTrip();
    void tamperIsAnError_data();
    void tamperIsAnError();
    void wrongKeyIsAnError_data();
    void wrongKeyIsAnError();
    void storeKeyText_data();
    void storeKeyText();
    void secretsOncePerSession_data();
    void secretsOncePerSession();
    void sealedSecretsNeedTheKey();
    void stateFileModes_data();
    void stateFileModes();
    void oldRecordsAreMigrated();
};

void TestSecretsAtRest::roundTrip_data()
{
    QTest::addColumn<QByteArray>("plaintext");
    QTest::addColumn<QByteArray>("context");
    QTest::newRow("empty") << QByteArray() << QByteArray("ctx");
    QTest::newRow("one byte") << QByteArray("x") << QByteArray("ctx");
    QTest::newRow("ssh private key") << kPrivateKey << QByteArray("store/session/s1");
    QByteArray big(64 * 1024, Qt::Uninitialized);
    for (int i = 0; i < big.size(); ++i)
        big[i] = char(i * 31 + 7);
    QTest::newRow("64 KiB binary") << big << QByteArray();
}

void TestSecretsAtRest::roundTrip()
{
    QFETCH(QByteArray, plaintext);
    QFETCH(QByteArray, context);
    const QByteArray key = SecretBox::randomKey();
    QCOMPARE(key.size(), SecretBox::kKeySize);
    const auto sealed = SecretBox::seal(key, plaintext, context);
    VERIFY_OK(sealed);
    QCOMPARE(sealed->size(), 5 + SecretBox::kNonceSize + plaintext.size() + SecretBox::kTagSize);
    if (plaintext.size() > 4)
        QVERIFY(!sealed->contains(plaintext.left(16)));
    const auto again = SecretBox::seal(key, plaintext, context);
    VERIFY_OK(again);
    QVERIFY(*again != *sealed); // a fresh nonce every time
    const auto opened = SecretBox::open(key, *sealed, context);
    VERIFY_OK(opened);
    QCOMPARE(*opened, plaintext);
}

void TestSecretsAtRest::tamperIsAnError_data()
{
    QTest::addColumn<int>("offset"); // byte flipped; -1: truncated by one byte; -2: extended
    QTest::newRow("format tag") << 0;
    QTest::newRow("nonce") << 5 + 3;
    QTest::newRow("ciphertext first byte") << 5 + SecretBox::kNonceSize;
    QTest::newRow("ciphertext middle") << 5 + SecretBox::kNonceSize + 20;
    QTest::newRow("tag last byte")
        << 5 + SecretBox::kNonceSize + int(kPrivateKey.size()) + SecretBox::kTagSize - 1;
    QTest::newRow("truncated") << -1;
    QTest::newRow("byte appended") << -2;
}

void TestSecretsAtRest::tamperIsAnError()
{
    QFETCH(int, offset);
    const QByteArray key = fixedKey('k');
    auto sealed = SecretBox::seal(key, kPrivateKey, "ctx");
    VERIFY_OK(sealed);
    QByteArray bad = *sealed;
    if (offset == -1)
        bad.chop(1);
    else if (offset == -2)
        bad.append('\0');
    else
        bad[offset] = char(bad[offset] ^ 0x01);
    const auto opened = SecretBox::open(key, bad, "ctx");
    QVERIFY(!opened);
    QVERIFY(!opened.error().message.contains(QLatin1String("PRIVATE KEY")));
    QVERIFY(SecretBox::open(key, *sealed, "ctx")); // the untouched value still opens
}

void TestSecretsAtRest::wrongKeyIsAnError_data()
{
    QTest::addColumn<QByteArray>("openKey");
    QTest::addColumn<QByteArray>("openContext");
    QTest::newRow("another key") << fixedKey('x') << QByteArray("store/s1/n1");
    QTest::newRow("one bit off") << QByteArray(fixedKey('k')).replace(31, 1, "j")
                                 << QByteArray("store/s1/n1");
    QTest::newRow("another session") << fixedKey('k') << QByteArray("store/s2/n1");
    QTest::newRow("no context") << fixedKey('k') << QByteArray();
    QTest::newRow("short key") << QByteArray(16, 'k') << QByteArray("store/s1/n1");
    QTest::newRow("empty key") << QByteArray() << QByteArray("store/s1/n1");
}

void TestSecretsAtRest::wrongKeyIsAnError()
{
    QFETCH(QByteArray, openKey);
    QFETCH(QByteArray, openContext);
    auto sealed = SecretBox::seal(fixedKey('k'), kPrivateKey, "store/s1/n1");
    VERIFY_OK(sealed);
    const auto opened = SecretBox::open(openKey, *sealed, openContext);
    QVERIFY(!opened);
    QVERIFY(!opened.error().toString().isEmpty());
    // The fingerprint tells a different key from the right one.
    QCOMPARE(SecretBox::fingerprint(openKey) == SecretBox::fingerprint(fixedKey('k')),
             openKey == fixedKey('k'));
}

void TestSecretsAtRest::storeKeyText_data()
{
    QTest::addColumn<QByteArray>("text");
    QTest::addColumn<bool>("valid");
    const QByteArray id = "0b9c1f8e-2a7d-4f5e-9c3b-1d2e3f4a5b6c";
    const QByteArray key = fixedKey('q').toBase64();
    const QByteArray v1 = "clusterdeck-store-key v1 ";
    QTest::newRow("as exported") << QByteArray(v1 + id + ' ' + key + '\n') << true;
    QTest::newRow("spaces and CRLF")
        << QByteArray("  clusterdeck-store-key  v1 " + id + '\t' + key + "\r\n") << true;
    QTest::newRow("other header") << QByteArray("store-key v1 " + id + ' ' + key) << false;
    QTest::newRow("unknown version")
        << QByteArray("clusterdeck-store-key v2 " + id + ' ' + key) << false;
    QTest::newRow("id not a uuid") << QByteArray(v1 + "prod " + key) << false;
    QTest::newRow("short key") << QByteArray(v1 + id + ' ' + QByteArray(16, 'q').toBase64())
                               << false;
    QTest::newRow("not base64") << QByteArray(v1 + id + " !!!!") << false;
    QTest::newRow("missing key") << QByteArray(v1 + id) << false;
    QTest::newRow("empty") << QByteArray() << false;
}

void TestSecretsAtRest::storeKeyText()
{
    QFETCH(QByteArray, text);
    QFETCH(bool, valid);
    const auto key = StoreKey::parse(text, QStringLiteral("test"));
    QCOMPARE(bool(key), valid);
    if (!valid)
        return;
    QCOMPARE(key->key, fixedKey('q'));
    const auto again = StoreKey::parse(key->toText(), QStringLiteral("again"));
    VERIFY_OK(again);
    QCOMPARE(again->storeId, key->storeId);
    QCOMPARE(again->key, key->key);
    QVERIFY(key->fingerprint().startsWith(QLatin1String("sha256:")));
    QVERIFY(!key->fingerprint().contains(QString::fromLatin1(key->key.toBase64())));
}

void TestSecretsAtRest::secretsOncePerSession_data()
{
    QTest::addColumn<int>("kernels");
    QTest::newRow("1 kernel") << 1;
    QTest::newRow("3 kernels") << 3;
    QTest::newRow("12 kernels") << 12;
}

void TestSecretsAtRest::secretsOncePerSession()
{
    QFETCH(int, kernels);
    const SessionSpec spec = sshSpec(kernels);
    QJsonObject json = spec.toJson();
    const QMap<QString, QByteArray> values = SessionSecrets::extract(json);
    // The private key and authorized_keys (0600): two secrets, whatever the number of kernels.
    QCOMPARE(values.size(), 2);
    QCOMPARE(values.value(QStringLiteral("s1")), kPrivateKey);
    const QByteArray stored = QJsonDocument(json).toJson(QJsonDocument::Compact);
    QVERIFY(!stored.contains("PRIVATE KEY"));
    QVERIFY(!stored.contains(kPrivateKey.toBase64().left(20)));
    QCOMPARE(stored.count("\"secret\":\"s1\""), kernels);
    const QByteArray inline_ = QJsonDocument(spec.toJson()).toJson(QJsonDocument::Compact);
    QCOMPARE(inline_.count(kPrivateKey.toBase64()), kernels); // what earlier builds stored
    qInfo().noquote() << QStringLiteral("%1 kernels: spec %2 bytes with secrets inline, %3 + %4 "
                                        "sealed once")
                             .arg(kernels)
                             .arg(inline_.size())
                             .arg(stored.size())
                             .arg(QJsonDocument(SessionSecrets::sealPlain(values))
                                      .toJson(QJsonDocument::Compact)
                                      .size());

    // Sealed plain (SQLite) and back: the same spec.
    const QJsonObject sealed = SessionSecrets::sealPlain(values);
    const auto opened =
        SessionSecrets::open(sealed, QStringLiteral("store"), spec.plan.sessionId, std::nullopt);
    VERIFY_OK(opened);
    QJsonObject restored = json;
    QVERIFY(SessionSecrets::restore(restored, *opened).isEmpty());
    const auto back = SessionSpec::fromJson(restored, QStringLiteral("test"));
    VERIFY_OK(back);
    QCOMPARE(back->plan.kernels, spec.plan.kernels);

    // A record from before (contents inline in every kernel) still reads the same.
    const auto legacy = SessionSpec::fromJson(spec.toJson(), QStringLiteral("legacy"));
    VERIFY_OK(legacy);
    QCOMPARE(legacy->plan.kernels, spec.plan.kernels);
}

void TestSecretsAtRest::sealedSecretsNeedTheKey()
{
    const SessionSpec spec = sshSpec(2);
    QJsonObject json = spec.toJson();
    const auto values = SessionSecrets::extract(json);
    const StoreKey key{QStringLiteral("0b9c1f8e-2a7d-4f5e-9c3b-1d2e3f4a5b6c"), fixedKey('z')};
    const auto sealed = SessionSecrets::sealEncrypted(key, spec.plan.sessionId, values);
    VERIFY_OK(sealed);
    const QByteArray text = QJsonDocument(*sealed).toJson();
    QVERIFY(!text.contains("PRIVATE KEY"));
    QVERIFY(!text.contains(kPrivateKey.toBase64().left(20)));

    const auto opened = SessionSecrets::open(*sealed, key.storeId, spec.plan.sessionId, key);
    VERIFY_OK(opened);
    QCOMPARE(*opened, values);

    const auto without = SessionSecrets::open(*sealed, key.storeId, spec.plan.sessionId, {});
    QVERIFY(!without);
    QCOMPARE(without.error().kind, Error::Kind::NotFound);
    QVERIFY2(without.error().message.contains(QLatin1String("the store key is missing")),
             qPrintable(without.error().message));
    QVERIFY(without.error().message.contains(QLatin1String("clusterdeckctl store key import")));

    const StoreKey other{key.storeId, fixedKey('y')};
    const auto wrong = SessionSecrets::open(*sealed, key.storeId, spec.plan.sessionId, other);
    QVERIFY(!wrong);
    QVERIFY(wrong.error().message.contains(key.fingerprint()));

    // Moved to another session: does not open.
    const auto moved = SessionSecrets::open(*sealed, key.storeId, QStringLiteral("other"), key);
    QVERIFY(!moved);
}

void TestSecretsAtRest::stateFileModes_data()
{
    QTest::addColumn<int>("folderMode"); // -1: the folder does not exist yet
    QTest::addColumn<int>("fileMode");   // -1: the file does not exist yet
    QTest::newRow("new folder, new file") << -1 << -1;
    QTest::newRow("open folder, new file") << 0755 << -1;
    QTest::newRow("open folder, readable file") << 0755 << 0644;
    QTest::newRow("private folder, group-writable file") << 0700 << 0660;
}

void TestSecretsAtRest::stateFileModes()
{
    QFETCH(int, folderMode);
    QFETCH(int, fileMode);
    QTemporaryDir tmp;
    QVERIFY(tmp.isValid());
    const QString dir = tmp.filePath(QStringLiteral("data/clusterdeck"));
    const QString path = dir + QStringLiteral("/state.db");
    if (folderMode >= 0) {
        QVERIFY(QDir().mkpath(dir));
        QCOMPARE(::chmod(QFile::encodeName(dir).constData(), mode_t(folderMode)), 0);
    }
    if (fileMode >= 0) {
        {
            auto first = SqliteStore::open(path);
            VERIFY_OK(first);
        }
        for (const QString &f :
             QStringList{path, path + QStringLiteral("-wal"), path + QStringLiteral("-shm")})
            ::chmod(QFile::encodeName(f).constData(), mode_t(fileMode));
    }
    auto store = SqliteStore::open(path);
    VERIFY_OK(store);
    SessionRecord s;
    s.id = QStringLiteral("5e551011-0000-4000-8000-000000000002");
    s.name = QStringLiteral("modes");
    VERIFY_OK((*store)->createSession(s, {}));
    QCOMPARE(PrivateFiles::modeOf(dir), 0700);
    QCOMPARE(PrivateFiles::modeOf(path), 0600);
    QCOMPARE(PrivateFiles::modeOf(path + QStringLiteral("-wal")), 0600);
    QCOMPARE(PrivateFiles::modeOf(path + QStringLiteral("-shm")), 0600);
}

// A schema-3 file whose session carries its private key inline in every kernel: opening it with
// this build keeps the key once, and the spec still reads the same.
void TestSecretsAtRest::oldRecordsAreMigrated()
{
    QTemporaryDir tmp;
    QVERIFY(tmp.isValid());
    const QString path = tmp.filePath(QStringLiteral("state.db"));
    const SessionSpec spec = sshSpec(3);
    SessionRecord s;
    s.id = spec.plan.sessionId;
    s.name = spec.plan.sessionName;
    s.launch.spec = spec.toJson(); // the old layout: secret contents inline, no "secrets"
    {
        auto store = SqliteStore::open(path);
        VERIFY_OK(store);
        VERIFY_OK((*store)->createSession(s, {}));
    }
    sqlite3 *db = nullptr;
    QCOMPARE(sqlite3_open(QFile::encodeName(path).constData(), &db), SQLITE_OK);
    QCOMPARE(sqlite3_exec(db, "PRAGMA user_version=3", nullptr, nullptr, nullptr), SQLITE_OK);
    sqlite3_close(db);

    auto store = SqliteStore::open(path);
    VERIFY_OK(store);
    const auto migrated = (*store)->session(s.id);
    VERIFY_OK(migrated);
    const QByteArray stored =
        QJsonDocument(migrated->launch.toJson()).toJson(QJsonDocument::Compact);
    QCOMPARE(stored.count(kPrivateKey.toBase64()), 1); // once, in "secrets"
    QVERIFY(!migrated->launch.secrets.isEmpty());
    const auto back = SessionSpec::fromRecord(*migrated, **store);
    VERIFY_OK(back);
    QVERIFY(!back->secretsUnavailable);
    QCOMPARE(back->plan.kernels, spec.plan.kernels);
}

QTEST_GUILESS_MAIN(TestSecretsAtRest)
#include "tst_secretsatrest.moc"
