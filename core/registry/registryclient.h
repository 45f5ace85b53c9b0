#pragma once

#include "common/error.h"
#include "http/httptypes.h"
#include "plan/imagedefaults.h"
#include "registrycredentials.h"

#include <QString>
#include <QStringList>

#include <chrono>
#include <memory>
#include <optional>

namespace ClusterDeck::Http {
class HttpTransport;
}

namespace ClusterDeck::Registry {

// Talks to a registry itself (Distribution API v2), for what the daemons do not offer: the tags
// of a repository (/v2/<name>/tags/list) and an image's configuration before any host has it.
// TLS is trusted as Docker does: the system CAs plus /etc/docker/certs.d/<registry>/ca.crt.
// Logins: Basic, or a Bearer token fetched from the realm the registry names.
class RegistryClient
{
public:
    RegistryClient(QString domain, std::optional<RegistryCredentials> credentials,
                   QString certsDirectory = QStringLiteral("/etc/docker/certs.d"));
    ~RegistryClient();
    RegistryClient(const RegistryClient &) = delete;
    RegistryClient &operator=(const RegistryClient &) = delete;

    void setTimeout(std::chrono::milliseconds timeout) { m_timeout = timeout; }

    Result<QStringList> tags(const QString &repository) const;
    // For an image box: "registry.example:5000/team/train:3" → every "…/team/train:<tag>" the
    // registry has, with the login of the user's Docker config. Docker Hub is not asked.
    static Result<QStringList> tagReferences(const QString &image);
    // ENV, labels, entrypoint, cmd, working dir and user of `reference` (a tag or a digest),
    // the linux/amd64 one of a multi-platform image.
    Result<ImageDefaults> imageDefaults(const QString &repository, const QString &reference) const;

private:
    Result<Http::HttpResponse> get(const QString &path, const QByteArray &accept = {}) const;
    Result<QByteArray> bearerToken(const QByteArray &challenge) const;

    QString m_domain;
    std::optional<RegistryCredentials> m_credentials;
    std::unique_ptr<Http::HttpTransport> m_transport;
    std::chrono::milliseconds m_timeout{15000};
    mutable QByteArray m_authorization; // the header that worked last
};

} // namespace ClusterDeck::Registry
