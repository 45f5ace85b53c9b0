#pragma once

#include "common/error.h"
#include "registrycredentials.h"

#include <QJsonObject>
#include <QList>
#include <QString>

#include <chrono>
#include <optional>

namespace ClusterDeck::Registry {

// The docker CLI's own configuration ($DOCKER_CONFIG/config.json, else ~/.docker/config.json),
// read and written the way the docker CLI does, so that both share logins:
//   auths.<registry>.auth     base64 "user:password" (identitytoken beside it when given)
//   credsStore: NAME          every login through `docker-credential-NAME get|store|erase|list`
//   credHelpers.<registry>    a helper for one registry, before credsStore
// Everything else in the file is kept as it is.
class DockerConfig
{
public:
    struct Login
    {
        QString registry; // the key as written
        QString username; // empty when the helper does not say
        QString store;    // "config.json" or "docker-credential-<name>"
    };

    // $DOCKER_CONFIG, else $HOME/.docker.
    static QString defaultDirectory();
    // A missing file is an empty configuration; an unreadable or malformed one is an error.
    static Result<DockerConfig> load(const QString &directory = {});

    QString directory() const { return m_directory; }
    QString filePath() const;

    // The helper (without the docker-credential- prefix) that holds this registry's login, if any.
    QString helperFor(const QString &registryKey) const;
    // Looks the login up like Docker: credHelpers, then credsStore, then auths. Absent: nullopt.
    Result<std::optional<RegistryCredentials>> credentials(const QString &registry) const;
    // Stores the login (through the helper when one is configured) and saves the file.
    Result<void> store(const RegistryCredentials &credentials);
    // Forgets the login (helper and file). Not logged in: an error of kind NotFound.
    Result<void> erase(const QString &registry);
    // Every registry with a login, usernames where known (no secrets).
    Result<QList<Login>> logins() const;

    // How long a credential helper may take (it may ask a keyring).
    void setHelperTimeout(std::chrono::milliseconds timeout) { m_helperTimeout = timeout; }

private:
    QString authsKeyFor(const QString &normalized) const;
    Result<QByteArray> runHelper(const QString &helper, const QString &action,
                                 const QByteArray &input, bool *notFound = nullptr) const;
    Result<void> save() const;

    QString m_directory;
    QJsonObject m_json;
    std::chrono::milliseconds m_helperTimeout{15000};
};

} // namespace ClusterDeck::Registry
