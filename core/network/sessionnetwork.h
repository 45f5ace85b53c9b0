#pragma once

#include "common/canceltoken.h"
#include "common/clustermode.h"
#include "common/error.h"
#include "docker/dockerhost.h"
#include "placement/placement.h"
#include "store/storeidentity.h"

#include <QHash>
#include <QMap>
#include <QSet>
#include <QString>
#include <QStringList>

#include <chrono>
#include <functional>
#include <memory>
#include <optional>

namespace ClusterDeck {

class StateStore;

// The network a session's kernels share, where each reaches the others by hostname: made before
// the first container, joined by each container's start, removed with the session. One driver
// per kind of network; the provisioner only asks the driver of its session's placement
// (forPlacement), so a new kind of network is one new class beside BridgeNetwork,
// SwarmOverlayNetwork and VxlanNetwork.
class SessionNetwork
{
public:
    // The session's network as the driver needs it, and the run's limits.
    struct Scope
    {
        QString sessionId;
        QString name; // "cd-<short session id>" (plan.networkName)
        std::optional<int> mtu;
        StoreIdentity self;
        Docker::CallOptions call; // every call's timeout, and the run's cancel
    };
    struct Made
    {
        QString id;
        bool reused = false; // this session's network was there already (restart, completion)
    };
    // What removal may use: a call bounded by what is left of the removal's deadline (nullopt:
    // out of time or cancelled), and the hosts that do not answer.
    struct Removal
    {
        std::function<std::optional<Docker::CallOptions>()> call;
        std::chrono::steady_clock::time_point deadline;
        QSet<QString> silentHosts;
    };
    // A start's history, kept by the caller for one container's start attempts.
    struct StartAttempts
    {
        bool attachmentFailed = false; // a start missed the attachment deadline
    };

    // One host of the session as the network needs it.
    struct Site
    {
        std::shared_ptr<Docker::DockerHost> client;
        QString address; // the host's IPv4 address as the other hosts reach it
    };
    using Sites = QHash<QString, Site>; // host name → site

    static std::unique_ptr<SessionNetwork> forMode(ClusterMode mode);
    // The driver of a session as placed (a multi-node session's recorded driver); `store`
    // claims and frees what a VXLAN network holds in the store.
    static std::unique_ptr<SessionNetwork> forPlacement(const Placement &placement,
                                                        StateStore *store);
    virtual ~SessionNetwork();

    virtual QString driverName() const = 0;

    // The hosts the network is made on and removed from: the placement's network host, by
    // default; a VXLAN network is on every host of the session.
    virtual QStringList hostsOf(const Placement &placement) const;
    // Makes the session's network on hostsOf(placement) (`sites` has them), or adopts what this
    // session's interrupted attempt made. Run again after a scale onto other hosts: converges.
    // The default is create() on the network host.
    virtual Result<Made> setUp(const Scope &scope, const Placement &placement,
                               const Sites &sites) const;
    // setUp() in two steps, for a launch that creates its kernels while the hosts are joined:
    // prepare() makes what a kernel's container needs to be created, connect() what it needs
    // only once it runs (VXLAN: the devices between the hosts). The caller starts no container
    // before connect() succeeded. connect() never changes what created containers depend on.
    // Default: setUp() in prepare(), nothing in connect().
    virtual Result<Made> prepare(const Scope &scope, const Placement &placement,
                                 const Sites &sites) const;
    virtual Result<void> connect(const Scope &scope, const Placement &placement,
                                 const Sites &sites) const;
    // Waits for what a successful prepare() left running for connect() (VXLAN: the helpers it
    // started early); for a run that ends without calling connect(), before it removes what it
    // made. Default: nothing runs.
    virtual void awaitBackground() const {}
    // After setUp (or to tear down): what a kernel's container needs on this network beyond its
    // endpoint's name and aliases (a static address, the other kernels' names). Default: nothing.
    virtual void configureKernel(const Placement &placement, const QString &hostname,
                                 Docker::ContainerSpec &spec) const;
    // Before remove() on one host: the host-side part of the network (default: nothing).
    virtual Result<void> removeHostSide(const Scope &scope, const QString &hostName,
                                        const Docker::DockerHost &host,
                                        const Removal &removal) const;
    // After the network is gone from every host: what the store held for it (default: nothing).
    virtual Result<void> released(const Scope &scope) const;
    // How many endpoints of the session's network one host may release at once (a container
    // stopped, removed or disconnected), given the caller's own limit `wanted` (0: no limit).
    // dockerd 20.10 can lose a decrement of a local network's endpoint count when several
    // endpoints of it are released at once (libnetwork shares one count object through its
    // cached network object and reloads it over another goroutine's unsaved change on a write
    // conflict); the network then answers "has active endpoints" with none listed until dockerd
    // restarts (moby/moby#42119). A driver whose network is a host-local bridge therefore
    // releases one endpoint at a time on each host. Default: `wanted`.
    virtual int endpointReleasesAtOnce(int wanted) const { return wanted; }
    // Before several of the session's containers on one host are stopped or removed together:
    // where the network releases a limited number of endpoints at once, each container leaves
    // it first, that many at a time, so what follows releases nothing of it and may run at
    // full width. Best effort: a container that does not leave (already off the network, gone)
    // is stopped or removed all the same. `call` gives each disconnect its bounds (nullopt:
    // out of time, the rest is skipped).
    void leaveFirst(const QString &networkName, const QString &hostName,
                    const Docker::DockerHost &host, const QStringList &containers,
                    const std::function<std::optional<Docker::CallOptions>()> &call) const;
    // The same on several hosts at once (host → its containers), each disconnect bounded by
    // `call` until its cancel token fires. `clientOf` gives a host's client (null: skipped).
    using ClientOf = std::function<std::shared_ptr<Docker::DockerHost>(const QString &host)>;
    void leaveFirst(const QString &networkName, const QMap<QString, QStringList> &onHost,
                    const ClientOf &clientOf, const Docker::CallOptions &call) const;

    // Makes the session's network on `host` (the single-node session's host, or the one that
    // creates it for all), or adopts the one this session's interrupted attempt made: only with
    // this session's and this store's labels (an earlier release's URL label counts, the
    // session is the store's).
    Result<Made> create(const Scope &scope, const QString &hostName,
                        const Docker::DockerHost &host) const;

    // Before the first start into a reused network on these hosts (host → client): the bounded
    // waits the driver needs. The default has none.
    virtual void awaitReuse(const Scope &scope,
                            const QHash<QString, std::shared_ptr<Docker::DockerHost>> &hosts,
                            int perHostLimit, const CancelToken &cancel) const;

    // Whether a failed start of a container on this network is the network's passing trouble,
    // worth another start after `prepareRetry`. `attempts` is this container's history.
    virtual bool isTransientStartError(const Error &error, bool reused,
                                       StartAttempts &attempts) const;
    // Before the next start on `hostName` after a transient failure: the default does nothing.
    virtual void prepareRetry(const Scope &scope, const QString &hostName,
                              const Docker::DockerHost &host, bool reused,
                              const StartAttempts &attempts) const;

    // Removes the network from `hostName`, where it was made: by id, after its labels say it is
    // this store's and this session's; anything else of that name is left alone. Gone is done.
    Result<void> remove(const Scope &scope, const QString &hostName, const Docker::DockerHost &host,
                        const Removal &removal) const;

protected:
    virtual Docker::NetworkSpec specFor(const Scope &scope) const = 0;
    // Removal is refused while endpoints remain: how long to keep trying, and what a refusal
    // that outlasted it should add to the daemon's message. Default: until the deadline, nothing.
    virtual std::chrono::steady_clock::time_point removalDeadline(const Removal &removal,
                                                                  const QString &hostName) const;
    virtual QString removalRefusedNote(const Removal &removal, const QString &hostName) const;

private:
    QStringList clearStrayEndpoints(const Scope &scope, const QString &hostName,
                                    const Docker::DockerHost &host, const QString &networkId,
                                    const Docker::CallOptions &call) const;
};

} // namespace ClusterDeck
