#pragma once

#include <QByteArray>
#include <QString>

namespace ClusterDeck::Registry {

// One login to one registry. A secret: never stored in the state store, never printed.
struct RegistryCredentials
{
    QString serverAddress; // the config.json key: "registry.example:5000"
    QString username;
    QString password;
    QString identityToken; // OAuth refresh token some registries hand out instead of a password

    bool isEmpty() const { return username.isEmpty() && password.isEmpty() && identityToken.isEmpty(); }

    // The X-Registry-Auth header value: base64url of the JSON AuthConfig the daemon expects.
    QByteArray registryAuthHeader() const;
    // The base64 "user:password" that config.json keeps under auths.<key>.auth.
    QByteArray basicAuth() const;
};

} // namespace ClusterDeck::Registry
