#include "sshkeypair.h"

#include <QtEndian>

#include <openssl/evp.h>

#include <memory>

namespace ClusterDeck {

namespace {

void putUint32(QByteArray &out, quint32 value)
{
    char buf[4];
    qToBigEndian(value, buf);
    out.append(buf, 4);
}

void putString(QByteArray &out, const QByteArray &value)
{
    putUint32(out, quint32(value.size()));
    out.append(value);
}

QByteArray publicBlob(const QByteArray &publicKey)
{
    QByteArray blob;
    putString(blob, QByteArrayLiteral("ssh-ed25519"));
    putString(blob, publicKey);
    return blob;
}

} // namespace

SshKeyPair SshKeyPair::fromEd25519(const QByteArray &seed, const QByteArray &publicKey,
                                   const QString &comment)
{
    // The "openssh-key-v1" container, unencrypted (PROTOCOL.key in the OpenSSH sources).
    const QByteArray pub = publicBlob(publicKey);
    QByteArray secret;
    const quint32 check = qFromBigEndian<quint32>(publicKey.constData());
    putUint32(secret, check);
    putUint32(secret, check);
    putString(secret, QByteArrayLiteral("ssh-ed25519"));
    putString(secret, publicKey);
    putString(secret, seed + publicKey);
    putString(secret, comment.toUtf8());
    for (char pad = 1; secret.size() % 8 != 0; ++pad)
        secret.append(pad);

    QByteArray body("openssh-key-v1", 15); // includes the terminating NUL
    putString(body, QByteArrayLiteral("none"));
    putString(body, QByteArrayLiteral("none"));
    putString(body, QByteArray());
    putUint32(body, 1);
    putString(body, pub);
    putString(body, secret);

    const QByteArray encoded = body.toBase64();
    QByteArray pem = QByteArrayLiteral("-----BEGIN OPENSSH PRIVATE KEY-----\n");
    for (qsizetype i = 0; i < encoded.size(); i += 70)
        pem += encoded.mid(i, 70) + '\n';
    pem += QByteArrayLiteral("-----END OPENSSH PRIVATE KEY-----\n");

    SshKeyPair pair;
    pair.privateKey = pem;
    pair.publicKey = QByteArrayLiteral("ssh-ed25519 ") + pub.toBase64();
    if (!comment.isEmpty())
        pair.publicKey += ' ' + comment.toUtf8();
    pair.publicKey += '\n';
    return pair;
}

Result<SshKeyPair> SshKeyPair::generate(const QString &comment)
{
    std::unique_ptr<EVP_PKEY_CTX, decltype(&EVP_PKEY_CTX_free)> ctx(
        EVP_PKEY_CTX_new_id(EVP_PKEY_ED25519, nullptr), &EVP_PKEY_CTX_free);
    EVP_PKEY *raw = nullptr;
    if (!ctx || EVP_PKEY_keygen_init(ctx.get()) <= 0 || EVP_PKEY_keygen(ctx.get(), &raw) <= 0)
        return fail(Error::Kind::Invalid, QStringLiteral("ssh keypair"),
                    QStringLiteral("OpenSSL could not generate an Ed25519 key"));
    std::unique_ptr<EVP_PKEY, decltype(&EVP_PKEY_free)> key(raw, &EVP_PKEY_free);
    QByteArray seed(32, '\0'), pub(32, '\0');
    size_t seedLen = size_t(seed.size()), pubLen = size_t(pub.size());
    if (EVP_PKEY_get_raw_private_key(key.get(), reinterpret_cast<unsigned char *>(seed.data()),
                                     &seedLen) <= 0 ||
        EVP_PKEY_get_raw_public_key(key.get(), reinterpret_cast<unsigned char *>(pub.data()),
                                    &pubLen) <= 0 ||
        seedLen != 32 || pubLen != 32)
        return fail(Error::Kind::Invalid, QStringLiteral("ssh keypair"),
                    QStringLiteral("OpenSSL returned an unexpected Ed25519 key"));
    return fromEd25519(seed, pub, comment);
}

} // namespace ClusterDeck
