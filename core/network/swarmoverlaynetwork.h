#pragma once

#include "sessionnetwork.h"

namespace ClusterDeck {

// A multi-node session's network: an attachable Docker Swarm overlay, made on a swarm manager
// and joined by containers on any node of the swarm. What Swarm's attachment machinery needs
// is here: the waits for a node dropping its instance, the starts worth trying again, and the
// attachments that hosts which do not answer keep.
class SwarmOverlayNetwork final : public SessionNetwork
{
public:
    QString driverName() const override { return QStringLiteral("overlay"); }

    void awaitReuse(const Scope &scope,
                    const QHash<QString, std::shared_ptr<Docker::DockerHost>> &hosts,
                    int perHostLimit, const CancelToken &cancel) const override;
    bool isTransientStartError(const Error &error, bool reused,
                               StartAttempts &attempts) const override;
    void prepareRetry(const Scope &scope, const QString &hostName, const Docker::DockerHost &host,
                      bool reused, const StartAttempts &attempts) const override;

    // Until `host` no longer holds an instance of the network without containers (bounded).
    void awaitTeardownOn(const Scope &scope, const QString &hostName,
                         const Docker::DockerHost &host) const;

    static bool isAttachmentTimeout(const Error &error);
    static bool isNetworkNotFound(const Error &error);

protected:
    Docker::NetworkSpec specFor(const Scope &scope) const override;
    std::chrono::steady_clock::time_point removalDeadline(const Removal &removal,
                                                          const QString &hostName) const override;
    QString removalRefusedNote(const Removal &removal, const QString &hostName) const override;
};

} // namespace ClusterDeck
