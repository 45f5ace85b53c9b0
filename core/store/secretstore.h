#pragma once

#include "common/error.h"
#include "storekey.h"

#include <QByteArray>
#include <QJsonObject>
#include <QMap>

namespace ClusterDeck {

// Secrets of one session (name → content: SSH private keys …), kept once per session in its
// launch_options["secrets"] (see SessionSecrets), and the key that seals them (a StateStore
// role). SQLite keeps them as they are, in its 0600 file; etcd encrypts them with the store key,
// which lives outside etcd (StoreKey). Without the key, sealing and opening fail with
// StoreKey::missing() and everything else works.
class SecretStore
{
public:
    virtual Result<QJsonObject> sealSecrets(const QString &sessionId,
                                            const QMap<QString, QByteArray> &values) = 0;
    virtual Result<QMap<QString, QByteArray>> openSecrets(const QString &sessionId,
                                                          const QJsonObject &sealed) const = 0;

    // The key that encrypts this store's secrets (etcd), from the user's folder; made (and its
    // fingerprint recorded in the store) when the store has none yet. A SQLite store has no key.
    virtual Result<StoreKey> storeKey() = 0;
    // Checks `key` against this store (its id and the fingerprint the store keeps) and saves it
    // in the user's folder.
    virtual Result<void> importStoreKey(const StoreKey &key) = 0;

protected:
    ~SecretStore() = default; // owned as the StateStore it is part of
};

} // namespace ClusterDeck
