#pragma once

#include "common/error.h"

#include <QByteArray>
#include <QProcessEnvironment>
#include <QString>

#include <optional>

namespace ClusterDeck {

// The key that encrypts a shared (etcd) store's secrets. It never goes into the store: each
// admin's console keeps it in $XDG_CONFIG_HOME/clusterdeck/store-keys/<store id>.key (0600, in a
// 0700 folder; $CLUSTERDECK_STORE_KEYS_DIR overrides the folder). The store holds only its
// fingerprint (<prefix>/meta/key-id), so a console can tell a wrong key from a missing one.
//
// The file, and what `clusterdeckctl store key export` prints, is one line:
//   clusterdeck-store-key v1 <store id> <base64 of the 32-byte key>
struct StoreKey
{
    QString storeId;
    QByteArray key;

    QString fingerprint() const;
    QByteArray toText() const;
    static Result<StoreKey> parse(const QByteArray &text, const QString &where);

    static QString
    directory(const QProcessEnvironment &env = QProcessEnvironment::systemEnvironment());
    static QString
    pathFor(const QString &storeId,
            const QProcessEnvironment &env = QProcessEnvironment::systemEnvironment());
    // The key of a store from the user's folder; nullopt when there is none.
    static Result<std::optional<StoreKey>> load(const QString &storeId);
    // Writes the key file (0600; the folder 0700).
    Result<void> save() const;

    // The documented error of a console without the key (Error::Kind::NotFound).
    static Error missing(const QString &storeId, const QString &what);
    // The key file holds a key whose fingerprint is not the store's (Error::Kind::Invalid).
    static Error mismatch(const QString &storeId, const QString &expected, const QString &found);
};

} // namespace ClusterDeck
