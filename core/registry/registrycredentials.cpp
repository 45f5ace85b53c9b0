#include "registrycredentials.h"

#include <QJsonDocument>
#include <QJsonObject>

namespace ClusterDeck::Registry {

QByteArray RegistryCredentials::registryAuthHeader() const
{
    QJsonObject o;
    if (!identityToken.isEmpty()) {
        o.insert(QStringLiteral("identitytoken"), identityToken);
    } else {
        o.insert(QStringLiteral("username"), username);
        o.insert(QStringLiteral("password"), password);
    }
    o.insert(QStringLiteral("serveraddress"), serverAddress);
    return QJsonDocument(o).toJson(QJsonDocument::Compact).toBase64(QByteArray::Base64UrlEncoding);
}

QByteArray RegistryCredentials::basicAuth() const
{
    return QString(username + QLatin1Char(':') + password).toUtf8().toBase64();
}

} // namespace ClusterDeck::Registry
