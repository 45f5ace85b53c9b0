#pragma once

#include "common/error.h"
#include "docker/pullprogress.h"
#include "http/httptypes.h"
#include "registrycredentials.h"

#include <QList>
#include <QString>

#include <chrono>
#include <functional>
#include <memory>
#include <optional>

namespace ClusterDeck::Docker {
class DockerHost;
}

namespace ClusterDeck::Registry {

// One image on one host.
struct PullTarget
{
    QString host; // registered host name
    std::shared_ptr<Docker::DockerHost> client;
    QString image;             // as written: "registry.example:5000/team/train:3"
    bool onlyIfMissing = true; // pull-policy if-not-present; false: always
};

struct PullOutcome
{
    QString host;
    QString image;
    bool pulled = false;  // false: the host had it (and onlyIfMissing)
    QString repoDigest;   // "name@sha256:…" from the registry; empty for images never pushed
    QString imageId;      // "sha256:…" of the image on the host
    qint64 bytes = 0;     // downloaded
    std::optional<Error> error;

    // What a kernel is pinned to: the repo digest, else the image id.
    QString pinnedReference() const { return repoDigest.isEmpty() ? imageId : repoDigest; }
};

// Pulls images onto hosts, every (host, image) pair at once on its own thread and each pair once,
// with the logins of the user's Docker config (X-Registry-Auth), reporting per-layer progress.
// With stopOnFirstFailure, the first failure cancels the pulls still running (gang semantics);
// the daemon drops a cancelled pull, so nothing half-pulled stays tagged.
class ImagePuller
{
public:
    using CredentialLookup =
        std::function<Result<std::optional<RegistryCredentials>>(const QString &registryKey)>;
    using ProgressCallback =
        std::function<void(const PullTarget &target, const Docker::PullProgress &progress)>;

    // Looks logins up in the Docker config in `directory` (empty: $DOCKER_CONFIG or ~/.docker),
    // read once when the lookup is made.
    static CredentialLookup dockerConfigLookup(const QString &directory = {});

    void setCredentialLookup(CredentialLookup lookup) { m_lookup = std::move(lookup); }
    // Called on the pulling threads, after every change of one pull.
    void setProgressCallback(ProgressCallback callback) { m_progress = std::move(callback); }
    // For inspections; a pull itself has no deadline, only the cancel token.
    void setCallTimeout(std::chrono::milliseconds timeout) { m_timeout = timeout; }
    void setStopOnFirstFailure(bool stop) { m_stopOnFirstFailure = stop; }

    // Pairs named twice are pulled once. Outcomes in the order of the (deduplicated) targets.
    QList<PullOutcome> run(const QList<PullTarget> &targets, const CancelToken &cancel = {});

    // The first failed outcome, as an error that names the host, the image and the registry.
    static std::optional<Error> firstError(const QList<PullOutcome> &outcomes);

private:
    PullOutcome pullOne(const PullTarget &target, const QByteArray &auth,
                        const CancelToken &ops);

    CredentialLookup m_lookup;
    ProgressCallback m_progress;
    std::chrono::milliseconds m_timeout{60000};
    bool m_stopOnFirstFailure = true;
};

} // namespace ClusterDeck::Registry
