#include "sessionsecrets.h"

#include "secretbox.h"

#include "plan/planjson.h"

#include <QHash>
#include <QJsonArray>

#include <functional>

namespace ClusterDeck {

namespace {

const QString kFormatPlain = QStringLiteral("plain");
const QString kFormatGcm = QStringLiteral("aes-256-gcm");

QByteArray contextOf(const QString &storeId, const QString &sessionId, const QString &name)
{
    return QStringLiteral("clusterdeck-secret\n%1\n%2\n%3").arg(storeId, sessionId, name).toUtf8();
}

} // namespace

namespace {

// Calls `edit` for each entry of the spec's kernels[].files[]; the entries it changed (it
// returns true) are written back.
void editFiles(QJsonObject &spec, const std::function<bool(QJsonObject &file)> &edit)
{
    QJsonArray kernels = spec.value(QStringLiteral("kernels")).toArray();
    for (qsizetype k = 0; k < kernels.size(); ++k) {
        QJsonObject kernel = kernels[k].toObject();
        QJsonArray files = kernel.value(QStringLiteral("files")).toArray();
        bool changed = false;
        for (qsizetype f = 0; f < files.size(); ++f) {
            QJsonObject file = files[f].toObject();
            if (!edit(file))
                continue;
            files[f] = file;
            changed = true;
        }
        if (changed) {
            kernel.insert(QStringLiteral("files"), files);
            kernels[k] = kernel;
        }
    }
    spec.insert(QStringLiteral("kernels"), kernels);
}

} // namespace

QMap<QString, QByteArray> SessionSecrets::extract(QJsonObject &spec)
{
    QMap<QString, QByteArray> values;
    QHash<QByteArray, QString> nameOf;
    editFiles(spec, [&](QJsonObject &file) {
        PlannedFile planned;
        planned.mode = PlanJson::fileMode(file);
        if (!planned.isSecret() || !file.contains(QStringLiteral("content")))
            return false;
        const QByteArray content =
            QByteArray::fromBase64(file.value(QStringLiteral("content")).toString().toLatin1());
        QString name = nameOf.value(content);
        if (name.isEmpty()) {
            name = QStringLiteral("s%1").arg(values.size() + 1);
            nameOf.insert(content, name);
            values.insert(name, content);
        }
        file.remove(QStringLiteral("content"));
        file.insert(QStringLiteral("secret"), name);
        return true;
    });
    return values;
}

QStringList SessionSecrets::restore(QJsonObject &spec, const QMap<QString, QByteArray> &values)
{
    QStringList missing;
    editFiles(spec, [&](QJsonObject &file) {
        const QString name = file.value(QStringLiteral("secret")).toString();
        if (name.isEmpty())
            return false;
        if (!values.contains(name)) {
            if (!missing.contains(name))
                missing.append(name);
            return false;
        }
        file.insert(QStringLiteral("content"), QString::fromLatin1(values[name].toBase64()));
        return true;
    });
    return missing;
}

QJsonObject SessionSecrets::sealPlain(const QMap<QString, QByteArray> &values)
{
    QJsonObject o;
    for (auto it = values.cbegin(); it != values.cend(); ++it)
        o.insert(it.key(), QString::fromLatin1(it.value().toBase64()));
    return QJsonObject{{QStringLiteral("format"), kFormatPlain}, {QStringLiteral("values"), o}};
}

Result<QJsonObject> SessionSecrets::sealEncrypted(const StoreKey &key, const QString &sessionId,
                                                  const QMap<QString, QByteArray> &values)
{
    QJsonObject o;
    for (auto it = values.cbegin(); it != values.cend(); ++it) {
        auto sealed =
            SecretBox::seal(key.key, it.value(), contextOf(key.storeId, sessionId, it.key()));
        if (!sealed)
            return fail(sealed.error().withContext(
                QStringLiteral("sealing secret %1 of session %2").arg(it.key(), sessionId)));
        o.insert(it.key(), QString::fromLatin1(sealed->toBase64()));
    }
    return QJsonObject{{QStringLiteral("format"), kFormatGcm},
                       {QStringLiteral("key"), key.fingerprint()},
                       {QStringLiteral("values"), o}};
}

bool SessionSecrets::isEncrypted(const QJsonObject &sealed)
{
    return sealed.value(QStringLiteral("format")).toString() == kFormatGcm;
}

Result<QMap<QString, QByteArray>> SessionSecrets::openWithStoredKey(const QJsonObject &sealed,
                                                                    const QString &storeId,
                                                                    const QString &sessionId)
{
    std::optional<StoreKey> key;
    if (isEncrypted(sealed)) {
        auto loaded = StoreKey::load(storeId);
        if (!loaded)
            return fail(loaded.error());
        key = *loaded;
    }
    return open(sealed, storeId, sessionId, key);
}

Result<QMap<QString, QByteArray>> SessionSecrets::open(const QJsonObject &sealed,
                                                       const QString &storeId,
                                                       const QString &sessionId,
                                                       const std::optional<StoreKey> &key)
{
    const QString where = QStringLiteral("session %1").arg(sessionId);
    const QString format = sealed.value(QStringLiteral("format")).toString();
    const QJsonObject stored = sealed.value(QStringLiteral("values")).toObject();
    QMap<QString, QByteArray> values;
    if (format == kFormatPlain) {
        for (auto it = stored.begin(); it != stored.end(); ++it)
            values.insert(it.key(), QByteArray::fromBase64(it.value().toString().toLatin1()));
        return values;
    }
    if (format != kFormatGcm)
        return fail(
            Error::Kind::Decode, where,
            QStringLiteral("the session's secrets are in an unknown format \"%1\"").arg(format));
    if (!key)
        return fail(StoreKey::missing(storeId, QStringLiteral("the secrets of session %1 (such as "
                                                              "its SSH key)")
                                                   .arg(sessionId)));
    const QString expected = sealed.value(QStringLiteral("key")).toString();
    if (!expected.isEmpty() && expected != key->fingerprint())
        return fail(StoreKey::mismatch(storeId, expected, key->fingerprint()));
    for (auto it = stored.begin(); it != stored.end(); ++it) {
        auto value =
            SecretBox::open(key->key, QByteArray::fromBase64(it.value().toString().toLatin1()),
                            contextOf(storeId, sessionId, it.key()));
        if (!value)
            return fail(Error::Kind::Decode, where,
                        QStringLiteral("secret %1: %2").arg(it.key(), value.error().message));
        values.insert(it.key(), *value);
    }
    return values;
}

} // namespace ClusterDeck
