#include "sessionnetwork.h"

#include "bridgenetwork.h"
#include "common/concurrent.h"
#include "common/labels.h"
#include "networklogging.h"
#include "swarmoverlaynetwork.h"
#include "vxlannetwork.h"

#include <algorithm>
#include <atomic>
#include <thread>

Q_LOGGING_CATEGORY(lcNetwork, "clusterdeck.network")

namespace ClusterDeck {

using namespace std::chrono_literals;

std::unique_ptr<SessionNetwork> SessionNetwork::forMode(ClusterMode mode)
{
    if (mode == ClusterMode::MultiNode)
        return std::make_unique<SwarmOverlayNetwork>();
    return std::make_unique<BridgeNetwork>();
}

std::unique_ptr<SessionNetwork> SessionNetwork::forPlacement(const Placement &placement,
                                                             StateStore *store)
{
    if (placement.mode == ClusterMode::MultiNode && placement.driver == NetworkDriver::Vxlan)
        return std::make_unique<VxlanNetwork>(store);
    return forMode(placement.mode);
}

SessionNetwork::~SessionNetwork() = default;

QStringList SessionNetwork::hostsOf(const Placement &placement) const
{
    if (placement.networkHost.isEmpty())
        return {};
    return {placement.networkHost};
}

Result<SessionNetwork::Made> SessionNetwork::setUp(const Scope &scope, const Placement &placement,
                                                   const Sites &sites) const
{
    const QString host = placement.networkHost;
    const Site site = sites.value(host);
    if (!site.client)
        return fail(Error::Kind::Invalid, QStringLiteral("host %1").arg(host),
                    QStringLiteral("the session's network host is not connected"));
    return create(scope, host, *site.client);
}

Result<SessionNetwork::Made> SessionNetwork::prepare(const Scope &scope, const Placement &placement,
                                                     const Sites &sites) const
{
    return setUp(scope, placement, sites);
}

Result<void> SessionNetwork::connect(const Scope &, const Placement &, const Sites &) const
{
    return {};
}

void SessionNetwork::configureKernel(const Placement &, const QString &,
                                     Docker::ContainerSpec &) const
{}

void SessionNetwork::leaveFirst(
    const QString &networkName, const QString &hostName, const Docker::DockerHost &host,
    const QStringList &containers,
    const std::function<std::optional<Docker::CallOptions>()> &call) const
{
    const int atOnce = endpointReleasesAtOnce(0);
    if (atOnce <= 0 || networkName.isEmpty())
        return;
    // A host that stops answering costs one call's bound here, not one per container: what
    // follows (the stops or removals) meets it with its own bounds and reports it.
    std::atomic_bool silent{false};
    Concurrent::forEachPerHost(
        int(containers.size()), [&](int) { return hostName; },
        [&](int i) {
            if (silent)
                return;
            const auto options = call();
            if (!options)
                return;
            auto ok = host.disconnectNetwork(networkName, containers.at(i), true, *options);
            if (ok)
                return;
            const Error::Kind kind = ok.error().kind;
            if (kind == Error::Kind::Timeout || kind == Error::Kind::Transport ||
                kind == Error::Kind::Cancelled)
                silent = true;
            qCDebug(lcNetwork).noquote()
                << "container" << containers.at(i).left(12) << "on host" << hostName
                << "did not leave network" << networkName << "first:" << ok.error().toString();
        },
        atOnce);
}

void SessionNetwork::leaveFirst(const QString &networkName,
                                const QMap<QString, QStringList> &onHost, const ClientOf &clientOf,
                                const Docker::CallOptions &call) const
{
    const QStringList hosts = onHost.keys();
    Concurrent::forEach(int(hosts.size()), [&](int h) {
        const auto client = clientOf(hosts.at(h));
        if (!client)
            return;
        leaveFirst(networkName, hosts.at(h), *client, onHost.value(hosts.at(h)),
                   [&]() -> std::optional<Docker::CallOptions> {
                       if (call.cancel.isCancelled())
                           return std::nullopt;
                       return call;
                   });
    });
}

Result<void> SessionNetwork::removeHostSide(const Scope &, const QString &,
                                            const Docker::DockerHost &, const Removal &) const
{
    return {};
}

Result<void> SessionNetwork::released(const Scope &) const
{
    return {};
}

Result<SessionNetwork::Made> SessionNetwork::create(const Scope &scope, const QString &hostName,
                                                    const Docker::DockerHost &host) const
{
    Docker::NetworkSpec spec = specFor(scope);
    spec.name = scope.name;
    spec.labels.insert(Labels::session(), scope.sessionId);
    spec.labels.insert(Labels::store(), scope.self.id);
    if (scope.mtu)
        spec.options.insert(QStringLiteral("com.docker.network.driver.mtu"),
                            QString::number(*scope.mtu));
    auto id = host.createNetwork(spec, scope.call);
    if (id)
        return Made{*id, false};
    if (id.error().kind == Error::Kind::Conflict) {
        // Completing an interrupted launch, or restarting a session: adopt our own network.
        auto existing = host.inspectNetwork(scope.name, scope.call);
        if (existing && scope.self.ownsSessionObject(existing->labels, scope.sessionId))
            return Made{existing->id, true};
    }
    return fail(id.error().withContext(QStringLiteral("creating %1 network %2 on host %3")
                                           .arg(driverName(), scope.name, hostName)));
}

void SessionNetwork::awaitReuse(const Scope &,
                                const QHash<QString, std::shared_ptr<Docker::DockerHost>> &, int,
                                const CancelToken &) const
{}

bool SessionNetwork::isTransientStartError(const Error &, bool, StartAttempts &) const
{
    return false;
}

void SessionNetwork::prepareRetry(const Scope &, const QString &, const Docker::DockerHost &, bool,
                                  const StartAttempts &) const
{}

std::chrono::steady_clock::time_point SessionNetwork::removalDeadline(const Removal &removal,
                                                                      const QString &) const
{
    return removal.deadline;
}

QString SessionNetwork::removalRefusedNote(const Removal &, const QString &) const
{
    return {};
}

Result<void> SessionNetwork::remove(const Scope &scope, const QString &hostName,
                                    const Docker::DockerHost &host, const Removal &removal) const
{
    using Clock = std::chrono::steady_clock;
    if (auto ok = removeHostSide(scope, hostName, host, removal); !ok)
        return ok;
    const auto first = removal.call();
    if (!first)
        return fail(Error::Kind::Timeout, QStringLiteral("host %1").arg(hostName),
                    QStringLiteral("network %1 not removed in time").arg(scope.name));
    // The network by id, after its labels say it is this store's of this session.
    auto info = host.inspectNetwork(scope.name, *first);
    if (!info) {
        if (info.error().isGone())
            return {};
        return fail(info.error());
    }
    if (!scope.self.ownsSessionObject(info->labels, scope.sessionId)) {
        qCInfo(lcNetwork) << "left alone: network" << scope.name
                          << "(labels of another store or session)";
        return {};
    }
    const auto deadline = removalDeadline(removal, hostName);
    std::optional<Clock::time_point> firstRefusal;
    Clock::time_point lastSweep;
    QStringList attached;
    for (;;) {
        const auto call = removal.call();
        if (!call)
            return fail(Error::Kind::Timeout, QStringLiteral("host %1").arg(hostName),
                        QStringLiteral("network %1 not removed in time").arg(scope.name));
        auto ok = host.removeNetwork(info->id, *call);
        if (ok || ok.error().isGone())
            return {};
        // A network keeps "active endpoints" for a moment after its last container left:
        // retried until the deadline, not a fixed number of times. Past the first second, what
        // holds it is looked at every two seconds: an endpoint whose container is gone is one
        // dockerd failed to release, and no wait ends it.
        const auto now = Clock::now();
        if (!firstRefusal)
            firstRefusal = now;
        if (ok.error().httpStatus == 403 && now - *firstRefusal >= 1s && now - lastSweep >= 2s) {
            lastSweep = now;
            attached = clearStrayEndpoints(scope, hostName, host, info->id, *call);
        }
        if (ok.error().kind == Error::Kind::Timeout || ok.error().kind == Error::Kind::Cancelled ||
            ok.error().kind == Error::Kind::Transport || Clock::now() + 250ms >= deadline) {
            Error e = ok.error();
            if (!attached.isEmpty())
                e.message += QStringLiteral("; what holds it on host %1: %2")
                                 .arg(hostName, attached.join(QStringLiteral(", ")));
            e.message += removalRefusedNote(removal, hostName);
            return fail(e);
        }
        std::this_thread::sleep_for(250ms);
    }
}

QStringList SessionNetwork::clearStrayEndpoints(const Scope &scope, const QString &hostName,
                                                const Docker::DockerHost &host,
                                                const QString &networkId,
                                                const Docker::CallOptions &call) const
{
    QStringList attached;
    auto info = host.inspectNetwork(networkId, call);
    if (!info)
        return attached;
    for (auto it = info->containers.cbegin(); it != info->containers.cend(); ++it) {
        if (it.key().startsWith(QLatin1String("lb-")))
            continue; // a swarm overlay's own load balancer: it goes with the overlay
        const QString endpoint = it.value().name;
        // The container by id, or for an endpoint without one ("ep-…") by the endpoint's name.
        auto container = host.inspectContainer(
            it.key().startsWith(QLatin1String("ep-")) ? endpoint : it.key(), call);
        if (!container && container.error().isGone() && !it.key().startsWith(QLatin1String("ep-")))
            container = host.inspectContainer(endpoint, call); // the name taken by another
        if (container) {
            attached.append(
                QStringLiteral("%1 (container %2, %3: left alone)")
                    .arg(container->name, container->id.left(12),
                         scope.self.ownsSessionObject(container->labels, scope.sessionId)
                             ? QStringLiteral("this session's")
                             : QStringLiteral("not this session's")));
            continue;
        }
        if (!container.error().isGone() || endpoint.isEmpty()) {
            attached.append(QStringLiteral("endpoint %1").arg(endpoint));
            continue;
        }
        // No container has it: dockerd failed to release it when its container went
        // (moby/moby#42119). A forced disconnect by name deletes the endpoint alone.
        qCWarning(lcNetwork).noquote()
            << "network" << scope.name << "on host" << hostName << "holds endpoint" << endpoint
            << "of a container that is gone: deleting it";
        if (auto ok = host.disconnectNetwork(networkId, endpoint, true, call);
            !ok && !ok.error().isGone())
            attached.append(QStringLiteral("endpoint %1 of a removed container (%2)")
                                .arg(endpoint, ok.error().message));
    }
    const bool none =
        std::all_of(info->containers.keyBegin(), info->containers.keyEnd(),
                    [](const QString &key) { return key.startsWith(QLatin1String("lb-")); });
    if (none && info->scope == QLatin1String("local"))
        attached.append(QStringLiteral("no endpoint, yet dockerd counts some (its count went "
                                       "stale, moby/moby#42119): the network goes when dockerd "
                                       "on host %1 restarts")
                            .arg(hostName));
    return attached;
}

} // namespace ClusterDeck
