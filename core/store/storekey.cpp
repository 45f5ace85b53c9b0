#include "storekey.h"

#include "common/privatefiles.h"
#include "secretbox.h"
#include "storeidentity.h"

#include <QDir>
#include <QFile>
#include <QUuid>

namespace ClusterDeck {

namespace {

constexpr QByteArrayView kHeader = "clusterdeck-store-key";
constexpr QByteArrayView kVersion = "v1";

} // namespace

QString StoreKey::fingerprint() const
{
    return SecretBox::fingerprint(key);
}

QByteArray StoreKey::toText() const
{
    return kHeader.toByteArray() + ' ' + kVersion.toByteArray() + ' ' + storeId.toUtf8() + ' ' +
           key.toBase64() + '\n';
}

Result<StoreKey> StoreKey::parse(const QByteArray &text, const QString &where)
{
    const QList<QByteArray> words = text.simplified().split(' ');
    if (words.size() != 4 || words[0] != kHeader.toByteArray())
        return fail(Error::Kind::Decode, where,
                    QStringLiteral("not a ClusterDeck store key (expected one line "
                                   "\"clusterdeck-store-key v1 <store id> <key>\")"));
    if (words[1] != kVersion.toByteArray())
        return fail(Error::Kind::Decode, where,
                    QStringLiteral("store key format %1 is unknown to this build (it knows v1)")
                        .arg(QString::fromUtf8(words[1])));
    StoreKey k;
    k.storeId = QString::fromUtf8(words[2]);
    if (!StoreIdentity::isWellFormed(k.storeId))
        return fail(Error::Kind::Decode, where,
                    QStringLiteral("the store id \"%1\" is not a UUID").arg(k.storeId.left(80)));
    auto key = QByteArray::fromBase64Encoding(words[3], QByteArray::AbortOnBase64DecodingErrors);
    if (!key || key.decoded.size() != SecretBox::kKeySize)
        return fail(Error::Kind::Decode, where,
                    QStringLiteral("the key is not %1 bytes of base64").arg(SecretBox::kKeySize));
    k.key = key.decoded;
    return k;
}

QString StoreKey::directory(const QProcessEnvironment &env)
{
    const QString own = env.value(QStringLiteral("CLUSTERDECK_STORE_KEYS_DIR"));
    if (!own.isEmpty() && QDir::isAbsolutePath(own))
        return own;
    QString base = env.value(QStringLiteral("XDG_CONFIG_HOME"));
    if (base.isEmpty() || !QDir::isAbsolutePath(base)) {
        const QString home = env.value(QStringLiteral("HOME"));
        base = (home.isEmpty() ? QDir::homePath() : home) + QStringLiteral("/.config");
    }
    return base + QStringLiteral("/clusterdeck/store-keys");
}

QString StoreKey::pathFor(const QString &storeId, const QProcessEnvironment &env)
{
    return directory(env) + QLatin1Char('/') + storeId + QStringLiteral(".key");
}

Result<std::optional<StoreKey>> StoreKey::load(const QString &storeId)
{
    // The id names the file: never a path out of the key folder.
    if (!StoreIdentity::isWellFormed(storeId))
        return fail(Error::Kind::Invalid, QStringLiteral("store key"),
                    StoreIdentity::malformed(storeId));
    const QString path = pathFor(storeId);
    QFile f(path);
    if (!f.exists())
        return std::optional<StoreKey>{};
    if (auto ok = PrivateFiles::restrictFile(path); !ok)
        return fail(ok.error());
    if (!f.open(QIODevice::ReadOnly))
        return fail(Error::Kind::Io, QStringLiteral("store key %1").arg(path), f.errorString());
    auto key = parse(f.readAll(), QStringLiteral("store key %1").arg(path));
    if (!key)
        return fail(key.error());
    if (key->storeId != storeId)
        return fail(Error::Kind::Invalid, QStringLiteral("store key %1").arg(path),
                    QStringLiteral("the file is the key of store %1, not of store %2")
                        .arg(key->storeId, storeId));
    return std::optional<StoreKey>(*key);
}

Result<void> StoreKey::save() const
{
    if (!StoreIdentity::isWellFormed(storeId))
        return fail(Error::Kind::Invalid, QStringLiteral("store key"),
                    StoreIdentity::malformed(storeId));
    return PrivateFiles::writeFile(pathFor(storeId), toText());
}

Error StoreKey::missing(const QString &storeId, const QString &what)
{
    return Error::make(
        Error::Kind::NotFound, QStringLiteral("store %1").arg(storeId),
        QStringLiteral("the store key is missing: %1 cannot be read or written without it, and "
                       "this console does not have it (no %2). On a console that has it run "
                       "`clusterdeckctl store key export --output FILE`, copy FILE here safely "
                       "and run `clusterdeckctl store key import FILE`")
            .arg(what, pathFor(storeId)));
}

Error StoreKey::mismatch(const QString &storeId, const QString &expected, const QString &found)
{
    return Error::make(
        Error::Kind::Invalid, QStringLiteral("store %1").arg(storeId),
        QStringLiteral("the store key in %1 (%2) is not the one this store's secrets are "
                       "encrypted with (%3); import the right one with `clusterdeckctl store key "
                       "import FILE`")
            .arg(pathFor(storeId), found, expected));
}

} // namespace ClusterDeck
