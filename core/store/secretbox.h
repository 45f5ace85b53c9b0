#pragma once

#include "common/error.h"

#include <QByteArray>

namespace ClusterDeck {

// Authenticated encryption of small secrets (SSH private keys, registry credentials) with
// AES-256-GCM (OpenSSL EVP). A sealed value is "cdsb1" ‖ 12-byte random nonce ‖ ciphertext ‖
// 16-byte tag; `context` (the store id, the session id and the secret's name) is bound as
// additional data, so a value copied to another session or store does not open there.
// Opening with a wrong key, a wrong context or an altered value fails; it never yields garbage.
class SecretBox
{
public:
    static constexpr int kKeySize = 32;
    static constexpr int kNonceSize = 12;
    static constexpr int kTagSize = 16;

    static QByteArray randomKey(); // kKeySize bytes from the OpenSSL CSPRNG
    static Result<QByteArray> seal(const QByteArray &key, const QByteArray &plaintext,
                                   const QByteArray &context);
    static Result<QByteArray> open(const QByteArray &key, const QByteArray &sealed,
                                   const QByteArray &context);
    // A short, non-secret name of a key ("sha256:" + 16 hex digits of SHA-256 over a domain
    // string and the key), stored next to the data so a console can tell a wrong key from a
    // missing one.
    static QString fingerprint(const QByteArray &key);
};

} // namespace ClusterDeck
