#pragma once

#include "common/error.h"
#include "storekey.h"

#include <QByteArray>
#include <QJsonObject>
#include <QMap>
#include <QStringList>

#include <optional>

namespace ClusterDeck {

// The secret files of a session (SSH private keys and every other file whose mode gives nothing
// to group and others) are kept once per session, apart from the session spec: the spec's
// kernels[].files[] entry says {"secret": "s1"} instead of carrying the content, and the
// session's launch_options["secrets"] holds each content once, sealed by the store:
//   {"format": "plain", "values": {"s1": "<base64>"}}                       (SQLite: a 0600 file)
//   {"format": "aes-256-gcm", "key": "sha256:…", "values": {"s1": "<base64 of SecretBox::seal>"}}
// Records from before this layout (contents inline in every kernel) still read as they are.
class SessionSecrets
{
public:
    // Moves every secret file's content out of `spec` (a SessionSpec JSON) into name → content.
    // Equal contents share one name; names follow the kernels' and files' order.
    static QMap<QString, QByteArray> extract(QJsonObject &spec);
    // Puts the contents back; returns the names `values` lacks (their files stay empty).
    static QStringList restore(QJsonObject &spec, const QMap<QString, QByteArray> &values);

    static QJsonObject sealPlain(const QMap<QString, QByteArray> &values);
    static Result<QJsonObject> sealEncrypted(const StoreKey &key, const QString &sessionId,
                                             const QMap<QString, QByteArray> &values);
    // Opens either format; an encrypted one needs `key` (else StoreKey::missing).
    static Result<QMap<QString, QByteArray>> open(const QJsonObject &sealed, const QString &storeId,
                                                  const QString &sessionId,
                                                  const std::optional<StoreKey> &key);
    // The same, loading the store key from the user's key folder when the secrets are encrypted.
    static Result<QMap<QString, QByteArray>>
    openWithStoredKey(const QJsonObject &sealed, const QString &storeId, const QString &sessionId);
    static bool isEncrypted(const QJsonObject &sealed);
};

} // namespace ClusterDeck
