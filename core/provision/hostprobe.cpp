#include "hostprobe.h"

#include "common/concurrent.h"
#include "docker/dockerhost.h"
#include "host/hostregistry.h"

#include <mutex>

namespace ClusterDeck {

QMap<QString, Error> HostProbe::unanswered(HostRegistry *registry, const QStringList &hosts,
                                           std::chrono::milliseconds timeout,
                                           const CancelToken &cancel)
{
    std::mutex mutex;
    QMap<QString, Error> down;
    Concurrent::forEach(int(hosts.size()), [&](int i) {
        const QString &host = hosts.at(i);
        auto client = registry->dockerHost(host);
        Result<void> answered;
        if (!client) {
            answered = fail(client.error());
        } else {
            Docker::CallOptions call;
            call.timeout = timeout;
            call.cancel = cancel;
            if (auto pong = (*client)->ping(call); !pong)
                answered = fail(pong.error());
        }
        if (!answered) {
            std::lock_guard lock(mutex);
            down.insert(host, answered.error());
        }
    });
    return down;
}

Error HostProbe::describe(const QMap<QString, Error> &down)
{
    QStringList why;
    for (auto it = down.cbegin(); it != down.cend(); ++it)
        why.append(down.size() == 1 ? it->message
                                    : QStringLiteral("%1: %2").arg(it.key(), it->message));
    const QStringList hosts = down.keys();
    return Error::make(Error::Kind::Unavailable,
                       (hosts.size() == 1 ? QStringLiteral("host ") : QStringLiteral("hosts ")) +
                           hosts.join(QStringLiteral(", ")),
                       QStringLiteral("%1: %2").arg(hosts.size() == 1
                                                        ? QStringLiteral("does not answer")
                                                        : QStringLiteral("do not answer"),
                                                    why.join(QStringLiteral("; "))));
}

} // namespace ClusterDeck
