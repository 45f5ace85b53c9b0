#include "imagepuller.h"

#include "common/logging.h"
#include "docker/dockerhost.h"
#include "dockerconfig.h"
#include "imagereference.h"
#include "common/concurrent.h"

#include <QHash>
#include <QSet>

#include <atomic>
#include <mutex>
#include <thread>
#include <vector>

namespace ClusterDeck::Registry {

using namespace std::chrono_literals;

ImagePuller::CredentialLookup ImagePuller::dockerConfigLookup(const QString &directory)
{
    auto config = DockerConfig::load(directory);
    return [config](const QString &key) -> Result<std::optional<RegistryCredentials>> {
        if (!config)
            return fail(config.error());
        return config->credentials(key);
    };
}

QList<PullOutcome> ImagePuller::run(const QList<PullTarget> &input, const CancelToken &cancel)
{
    QList<PullTarget> targets;
    QSet<QString> seen;
    for (const PullTarget &t : input) {
        const QString key = t.host + QLatin1Char('\n') + t.image;
        if (!seen.contains(key)) {
            seen.insert(key);
            targets.append(t);
        }
    }
    // One slot per target, written by its own thread.
    std::vector<PullOutcome> outcomes(size_t(targets.size()));

    // One lookup per registry, before any thread starts (a helper may ask a keyring).
    QHash<QString, QByteArray> authOf; // registry key → header
    QHash<QString, Error> authErrorOf;
    for (const PullTarget &t : std::as_const(targets)) {
        auto ref = ImageReference::parse(t.image);
        if (!ref)
            continue;
        const QString key = ref->authKey();
        if (authOf.contains(key) || authErrorOf.contains(key) || !m_lookup)
            continue;
        auto creds = m_lookup(key);
        if (!creds)
            authErrorOf.insert(key, creds.error());
        else
            authOf.insert(key, *creds ? (*creds)->registryAuthHeader() : QByteArray());
    }

    CancelToken ops;
    std::atomic_bool finished = false;
    // The caller's token cancels the pulls still running; so does the first failure.
    std::thread watcher([&] {
        while (!finished.load()) {
            if (cancel.isCancelled()) {
                ops.cancel();
                return;
            }
            std::this_thread::sleep_for(50ms);
        }
    });
    Concurrent::forEach(int(targets.size()), [&](int i) {
        const PullTarget &t = targets.at(i);
        auto ref = ImageReference::parse(t.image);
        PullOutcome out;
        if (!ref) {
            out.host = t.host;
            out.image = t.image;
            out.error = ref.error();
        } else if (authErrorOf.contains(ref->authKey())) {
            out.host = t.host;
            out.image = t.image;
            out.error = authErrorOf.value(ref->authKey())
                            .withContext(QStringLiteral("the login for registry %1").arg(ref->domain));
        } else {
            out = pullOne(t, authOf.value(ref->authKey()), ops);
        }
        if (out.error && m_stopOnFirstFailure)
            ops.cancel();
        outcomes[size_t(i)] = out;
    });
    finished = true;
    watcher.join();
    return QList<PullOutcome>(outcomes.begin(), outcomes.end());
}

PullOutcome ImagePuller::pullOne(const PullTarget &t, const QByteArray &auth,
                                 const CancelToken &ops)
{
    PullOutcome out;
    out.host = t.host;
    out.image = t.image;
    const ImageReference ref = *ImageReference::parse(t.image);
    Docker::CallOptions call;
    call.timeout = m_timeout;
    call.cancel = ops;

    auto record = [&](const Docker::ImageInfo &info) {
        out.imageId = info.id;
        // The repo digest of this very repository (an image can carry several).
        const QString prefix = ref.name() + QLatin1Char('@');
        for (const QString &d : info.repoDigests) {
            if (d.startsWith(prefix) || (ref.isDockerHub() && d.startsWith(QString(ref.repository + QLatin1Char('@'))))) {
                out.repoDigest = ref.pinned(d.mid(d.indexOf(QLatin1Char('@')) + 1));
                break;
            }
        }
    };
    if (t.onlyIfMissing) {
        auto info = t.client->inspectImage(t.image, call);
        if (info) {
            record(*info);
            return out;
        }
        if (info.error().kind != Error::Kind::NotFound && info.error().httpStatus != 404) {
            out.error = info.error().withContext(QStringLiteral("checking image %1").arg(t.image));
            return out;
        }
    }
    Docker::ImagePullSpec spec;
    spec.fromImage = ref.name();
    spec.tag = ref.digest.isEmpty() ? ref.tag : ref.digest;
    spec.registryAuth = auth;
    Docker::CallOptions pullCall = call;
    pullCall.timeout = 0ms; // as long as it takes; Cancel stops it
    qCInfo(lcRegistry).noquote() << "pulling" << t.image << "on" << t.host;
    auto pulled = t.client->pullImage(
        spec,
        [&](const Docker::PullProgress &p) {
            out.bytes = p.downloadedBytes();
            if (m_progress)
                m_progress(t, p);
            return !ops.isCancelled();
        },
        pullCall);
    if (!pulled) {
        Error e = pulled.error();
        if (ops.isCancelled() && e.kind != Error::Kind::Http)
            e.kind = Error::Kind::Cancelled;
        e.where = QStringLiteral("host %1").arg(t.host);
        QString message = e.message;
        // The daemon's words stay; the context says which image from which registry.
        if (!message.startsWith(QLatin1String("pulling ")))
            message = QStringLiteral("pulling %1: %2").arg(t.image, message);
        message.replace(QStringLiteral("pulling %1:").arg(QString(spec.fromImage + QLatin1Char(':') + spec.tag)),
                        QStringLiteral("pulling %1:").arg(t.image));
        e.message = QStringLiteral("%1 (registry %2)").arg(message, ref.domain);
        out.error = e;
        return out;
    }
    out.pulled = true;
    out.bytes = pulled->downloadedBytes();
    auto info = t.client->inspectImage(t.image, call);
    if (!info) {
        out.error = info.error().withContext(QStringLiteral("inspecting %1 after the pull").arg(t.image));
        return out;
    }
    record(*info);
    if (out.repoDigest.isEmpty() && !pulled->digest.isEmpty())
        out.repoDigest = ref.pinned(pulled->digest);
    return out;
}

std::optional<Error> ImagePuller::firstError(const QList<PullOutcome> &outcomes)
{
    // A real failure before the cancellations it caused.
    for (const PullOutcome &o : outcomes) {
        if (o.error && o.error->kind != Error::Kind::Cancelled)
            return o.error;
    }
    for (const PullOutcome &o : outcomes) {
        if (o.error)
            return o.error;
    }
    return std::nullopt;
}

} // namespace ClusterDeck::Registry
