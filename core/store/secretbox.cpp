#include "secretbox.h"

#include <QCryptographicHash>

#include <openssl/evp.h>
#include <openssl/rand.h>

#include <memory>

namespace ClusterDeck {

namespace {

constexpr QByteArrayView kMagic = "cdsb1";

struct CipherCtxDeleter
{
    void operator()(EVP_CIPHER_CTX *ctx) const { EVP_CIPHER_CTX_free(ctx); }
};
using CipherCtx = std::unique_ptr<EVP_CIPHER_CTX, CipherCtxDeleter>;

std::unexpected<Error> cryptoError(const QString &what)
{
    return fail(Error::Kind::Invalid, QStringLiteral("secret"), what);
}

} // namespace

QByteArray SecretBox::randomKey()
{
    QByteArray key(kKeySize, Qt::Uninitialized);
    if (RAND_bytes(reinterpret_cast<unsigned char *>(key.data()), kKeySize) != 1)
        return {};
    return key;
}

Result<QByteArray> SecretBox::seal(const QByteArray &key, const QByteArray &plaintext,
                                   const QByteArray &context)
{
    if (key.size() != kKeySize)
        return cryptoError(QStringLiteral("the key is not %1 bytes long").arg(kKeySize));
    QByteArray nonce(kNonceSize, Qt::Uninitialized);
    if (RAND_bytes(reinterpret_cast<unsigned char *>(nonce.data()), kNonceSize) != 1)
        return cryptoError(QStringLiteral("no random bytes for a nonce"));
    CipherCtx ctx(EVP_CIPHER_CTX_new());
    int len = 0;
    QByteArray out = kMagic.toByteArray() + nonce;
    const qsizetype head = out.size();
    out.resize(head + plaintext.size() + kTagSize);
    auto *ct = reinterpret_cast<unsigned char *>(out.data() + head);
    if (!ctx || EVP_EncryptInit_ex(ctx.get(), EVP_aes_256_gcm(), nullptr, nullptr, nullptr) != 1 ||
        EVP_CIPHER_CTX_ctrl(ctx.get(), EVP_CTRL_GCM_SET_IVLEN, kNonceSize, nullptr) != 1 ||
        EVP_EncryptInit_ex(ctx.get(), nullptr, nullptr,
                           reinterpret_cast<const unsigned char *>(key.constData()),
                           reinterpret_cast<const unsigned char *>(nonce.constData())) != 1 ||
        EVP_EncryptUpdate(ctx.get(), nullptr, &len,
                          reinterpret_cast<const unsigned char *>(context.constData()),
                          int(context.size())) != 1 ||
        EVP_EncryptUpdate(ctx.get(), ct, &len,
                          reinterpret_cast<const unsigned char *>(plaintext.constData()),
                          int(plaintext.size())) != 1)
        return cryptoError(QStringLiteral("encryption failed"));
    int total = len;
    if (EVP_EncryptFinal_ex(ctx.get(), ct + total, &len) != 1)
        return cryptoError(QStringLiteral("encryption failed"));
    total += len;
    if (EVP_CIPHER_CTX_ctrl(ctx.get(), EVP_CTRL_GCM_GET_TAG, kTagSize, ct + total) != 1)
        return cryptoError(QStringLiteral("encryption failed (tag)"));
    out.resize(head + total + kTagSize);
    return out;
}

Result<QByteArray> SecretBox::open(const QByteArray &key, const QByteArray &sealed,
                                   const QByteArray &context)
{
    if (key.size() != kKeySize)
        return cryptoError(QStringLiteral("the key is not %1 bytes long").arg(kKeySize));
    const qsizetype head = kMagic.size() + kNonceSize;
    if (sealed.size() < head + kTagSize || !sealed.startsWith(kMagic))
        return cryptoError(QStringLiteral("not a sealed secret (wrong format or truncated)"));
    const auto *nonce = reinterpret_cast<const unsigned char *>(sealed.constData() + kMagic.size());
    const auto *ct = reinterpret_cast<const unsigned char *>(sealed.constData() + head);
    const int ctLen = int(sealed.size() - head - kTagSize);
    QByteArray tag = sealed.right(kTagSize);
    QByteArray out(ctLen, Qt::Uninitialized);
    CipherCtx ctx(EVP_CIPHER_CTX_new());
    int len = 0;
    if (!ctx || EVP_DecryptInit_ex(ctx.get(), EVP_aes_256_gcm(), nullptr, nullptr, nullptr) != 1 ||
        EVP_CIPHER_CTX_ctrl(ctx.get(), EVP_CTRL_GCM_SET_IVLEN, kNonceSize, nullptr) != 1 ||
        EVP_DecryptInit_ex(ctx.get(), nullptr, nullptr,
                           reinterpret_cast<const unsigned char *>(key.constData()), nonce) != 1 ||
        EVP_DecryptUpdate(ctx.get(), nullptr, &len,
                          reinterpret_cast<const unsigned char *>(context.constData()),
                          int(context.size())) != 1 ||
        EVP_DecryptUpdate(ctx.get(), reinterpret_cast<unsigned char *>(out.data()), &len, ct,
                          ctLen) != 1)
        return cryptoError(QStringLiteral("decryption failed"));
    int total = len;
    if (EVP_CIPHER_CTX_ctrl(ctx.get(), EVP_CTRL_GCM_SET_TAG, kTagSize, tag.data()) != 1 ||
        EVP_DecryptFinal_ex(ctx.get(), reinterpret_cast<unsigned char *>(out.data()) + total,
                            &len) != 1) {
        out.fill('\0');
        return cryptoError(QStringLiteral(
            "the secret does not open with this key (a different store key, or the stored value "
            "was altered)"));
    }
    total += len;
    out.resize(total);
    return out;
}

QString SecretBox::fingerprint(const QByteArray &key)
{
    const QByteArray digest = QCryptographicHash::hash(
        QByteArray(QByteArrayLiteral("clusterdeck store key\n") + key), QCryptographicHash::Sha256);
    return QStringLiteral("sha256:") + QString::fromLatin1(digest.left(8).toHex());
}

} // namespace ClusterDeck
