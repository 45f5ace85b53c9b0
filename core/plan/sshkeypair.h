#pragma once

#include "common/error.h"

#include <QByteArray>
#include <QString>

namespace ClusterDeck {

// One keypair per session, for the ssh preset. Generated outside the pure resolver and handed to
// it through LaunchOptions.
struct SshKeyPair
{
    QByteArray privateKey; // OpenSSH format ("-----BEGIN OPENSSH PRIVATE KEY-----")
    QByteArray publicKey;  // one authorized_keys line: "ssh-ed25519 AAAA... comment"

    bool isValid() const { return !privateKey.isEmpty() && !publicKey.isEmpty(); }
    friend bool operator==(const SshKeyPair &, const SshKeyPair &) = default;

    // A fresh Ed25519 keypair from OpenSSL's random generator.
    static Result<SshKeyPair> generate(const QString &comment);
    // Both OpenSSH encodings of a given Ed25519 key (32-byte seed and public key); deterministic.
    static SshKeyPair fromEd25519(const QByteArray &seed, const QByteArray &publicKey,
                                  const QString &comment);
};

} // namespace ClusterDeck
