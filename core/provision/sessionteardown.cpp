#include "sessionteardown.h"

#include "common/concurrent.h"
#include "common/labels.h"
#include "common/logging.h"
#include "docker/dockerhost.h"
#include "host/hostregistry.h"
#include "network/sessionnetwork.h"
#include "store/statestore.h"

#include <mutex>
#include <thread>

namespace ClusterDeck {

using namespace std::chrono_literals;

SessionTeardown::SessionTeardown(StateStore *store, HostRegistry *registry, int perHostLimit)
    : m_store(store)
    , m_self(store->identity())
    , m_registry(registry)
    , m_perHostLimit(perHostLimit)
{}

Result<void> SessionTeardown::remove(const SessionSpec &spec,
                                     const QMap<QString, QStringList> &volumes,
                                     const RemovalOptions &options, QStringList *unfinished) const
{
    const QString sessionId = spec.plan.sessionId;
    QStringList hosts = spec.placement.hostOf.values();
    hosts.append(spec.placement.hostsUsed);
    if (!spec.placement.networkHost.isEmpty())
        hosts.append(spec.placement.networkHost);
    hosts.removeDuplicates();
    hosts.removeAll(QString());

    using Clock = std::chrono::steady_clock;
    const auto deadline = Clock::now() + options.deadline;
    std::mutex mutex;
    std::optional<Error> error;
    QSet<QString> leftOn; // hosts whose objects may remain
    // `containers`: the host's containers may remain (not only the network).
    auto note = [&](const QString &host, const Error &e, bool containers = true) {
        std::lock_guard lock(mutex);
        const Error here =
            e.withContext(QStringLiteral("removing session %1's objects from host %2")
                              .arg(sessionId.left(8), host));
        if (!error)
            error = here;
        else if (!error->message.contains(e.message) && error->message.size() < 2000)
            error->message += QStringLiteral("; ") + here.toString();
        if (containers)
            leftOn.insert(host);
    };
    // Every call gets what is left of the whole removal's time (at most 30 s), and the host's
    // cancel: a daemon that stopped answering costs the deadline once, not once per object.
    auto callFor = [&](const QString &host) -> std::optional<Docker::CallOptions> {
        const auto left =
            std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
        Docker::CallOptions call;
        call.cancel = options.hostCancel.value(host, options.cancel);
        if (left <= 0ms || call.cancel.isCancelled() || options.cancel.isCancelled())
            return std::nullopt;
        call.timeout = std::min<std::chrono::milliseconds>(left, 30s);
        return call;
    };
    auto outOfTime = [&](const QString &host) {
        note(host, Error::make(Error::Kind::Timeout, QStringLiteral("host %1").arg(host),
                               options.cancel.isCancelled() ||
                                       options.hostCancel.value(host).isCancelled()
                                   ? QStringLiteral("stopped: host %1 does not answer, or the "
                                                    "removal was abandoned; the controller "
                                                    "finishes it")
                                         .arg(host)
                                   : QStringLiteral("not done within %1 s; the controller "
                                                    "finishes it")
                                         .arg(double(options.deadline.count()) / 1000.0)));
    };
    for (const QString &h : std::as_const(options.skipHosts)) {
        if (hosts.contains(h))
            note(h, Error::make(Error::Kind::Timeout, QStringLiteral("host %1").arg(h),
                                QStringLiteral("host %1 does not answer: what it holds is "
                                               "removed when it does")
                                    .arg(h)));
    }
    QSet<QString> kernelIds;
    for (const KernelSpec &k : spec.plan.kernels)
        kernelIds.insert(k.kernelId);
    // The session is this store's (the caller read it from the store): its legacy URL label
    // counts too.
    const StoreIdentity &self = m_self;
    auto ownsObject = [&](const Docker::Labels &labels, const QString &session,
                          const QSet<QString> &kernels) {
        return self.ownsSessionObject(labels, session) &&
               (kernels.isEmpty() || kernels.contains(labels.value(Labels::kernel())));
    };

    const auto network = SessionNetwork::forPlacement(spec.placement, m_store);
    Concurrent::forEach(int(hosts.size()), [&](int h) {
        const QString host = hosts.at(h);
        if (options.skipHosts.contains(host))
            return;
        auto client = m_registry->dockerHost(host);
        if (!client) {
            note(host, client.error());
            return;
        }
        // By id, and only what the labels say is this store's object of this session and of
        // one of its kernels: never by name (a same-named container may be someone else's).
        QStringList targets;
        Docker::ContainerListOptions list;
        list.all = true;
        list.labels = {Labels::session() + QLatin1Char('=') + sessionId};
        const auto call = callFor(host);
        if (!call)
            return outOfTime(host);
        auto listed = (*client)->listContainers(list, *call);
        if (!listed) {
            note(host, listed.error());
            return;
        }
        for (const Docker::ContainerSummary &c : std::as_const(*listed)) {
            if (ownsObject(c.labels, sessionId, kernelIds) &&
                Labels::isKernelContainerName(c.names.value(0), c.labels))
                targets.append(c.id);
            else
                qCInfo(lcProvision) << "left alone:" << c.names.value(0) << "on host" << host
                                    << "(labels of another store or kernel, or not a kernel's "
                                       "name)";
        }
        // Each container leaves a network that must not lose several endpoints at once first
        // (SessionNetwork::leaveFirst), so the removals release nothing of it and run together:
        // 16 containers of one loaded host went in 7.4 s this way, in 13.4-14.9 s removed one
        // at a time.
        network->leaveFirst(spec.plan.networkName, host, **client, targets,
                            [&] { return callFor(host); });
        // At most m_perHostLimit DELETEs at this host at once, not all of them.
        Concurrent::forEachPerHost(
            int(targets.size()), [&](int) { return host; },
            [&](int i) {
                Docker::RemoveContainerOptions rm;
                rm.force = true;
                rm.volumes = true;
                const auto call = callFor(host);
                if (!call)
                    return outOfTime(host);
                auto ok = (*client)->removeContainer(targets.at(i), rm, *call);
                if (!ok && !ok.error().isGone())
                    note(host, ok.error());
            },
            m_perHostLimit);
    });

    // The network, from every host it is on (one host, or every host of a VXLAN session), then
    // what the store holds for it once it is gone from all of them.
    const QStringList networkHosts = network->hostsOf(spec.placement);
    bool networkGone = true;
    Concurrent::forEach(int(networkHosts.size()), [&](int i) {
        const QString &networkHost = networkHosts.at(i);
        auto gone = [&](bool ok) {
            if (!ok) {
                std::lock_guard lock(mutex);
                networkGone = false;
            }
        };
        if (options.skipHosts.contains(networkHost))
            return gone(false);
        auto client = m_registry->dockerHost(networkHost);
        if (!client) {
            note(networkHost, client.error());
            return gone(false);
        }
        const auto call = callFor(networkHost);
        if (!call) {
            outOfTime(networkHost);
            return gone(false);
        }
        SessionNetwork::Removal removal;
        removal.call = [&] {
            return callFor(networkHost);
        };
        removal.deadline = deadline;
        removal.silentHosts = options.skipHosts;
        {
            std::lock_guard lock(mutex);
            removal.silentHosts.unite(leftOn);
        }
        const SessionNetwork::Scope scope{sessionId, spec.plan.networkName, spec.plan.mtu, self,
                                          *call};
        if (auto ok = network->remove(scope, networkHost, **client, removal); !ok) {
            note(networkHost, ok.error(), false);
            return gone(false);
        }
    });
    if (networkGone && !networkHosts.isEmpty() && !options.keepClaim) {
        const SessionNetwork::Scope scope{
            sessionId, spec.plan.networkName, spec.plan.mtu, self, {}};
        if (auto ok = network->released(scope); !ok)
            note(networkHosts.first(), ok.error(), false);
    }
    for (auto it = volumes.cbegin(); it != volumes.cend(); ++it) {
        if (options.skipHosts.contains(it.key()) || leftOn.contains(it.key()))
            continue;
        auto client = m_registry->dockerHost(it.key());
        if (!client)
            continue;
        for (const QString &v : it.value()) {
            const auto call = callFor(it.key());
            if (!call) {
                outOfTime(it.key());
                break;
            }
            // By name only after its labels say it is this session's, made by this store: a
            // volume is found by name, and the admin's (or another session's) must survive.
            auto info = (*client)->inspectVolume(v, *call);
            if (!info) {
                if (!info.error().isGone())
                    note(it.key(), info.error());
                continue;
            }
            if (!self.ownsSessionObject(info->labels, spec.plan.sessionId)) {
                qCInfo(lcProvision).noquote() << "volume" << v << "on host" << it.key()
                                              << "is not this session's: left alone";
                continue;
            }
            auto ok = (*client)->removeVolume(v, true, *call);
            if (!ok && !ok.error().isGone())
                note(it.key(), ok.error());
        }
    }
    if (unfinished) {
        QStringList left(leftOn.cbegin(), leftOn.cend());
        left.sort();
        *unfinished = left;
    }
    if (error)
        return fail(*error);
    return {};
}

} // namespace ClusterDeck
