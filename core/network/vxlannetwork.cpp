#include "vxlannetwork.h"

#include "common/concurrent.h"
#include "common/labels.h"
#include "nethelperimage.h"
#include "networklogging.h"
#include "networksettings.h"
#include "store/statestore.h"
#include "vxlanaddressplan.h"
#include "vxlanhostsetup.h"

#include <condition_variable>
#include <future>
#include <map>

namespace ClusterDeck {

using namespace std::chrono_literals;

namespace {

QString onHost(const QString &host)
{
    return QStringLiteral("host %1").arg(host);
}

} // namespace

// The helpers prepare() starts ahead of connect(), in a thread of their own: each is created at
// once and started when its host's bridge network is reported made (bridgeDone()); one whose
// bridge failed is removed unstarted. prepare() returns once they have started (awaitStarts()):
// the kernels' creates that follow crowd the daemons, and a helper's start among them took
// 0.4-0.5 s instead of 0.1 s. connect() takes a success, or a VNI conflict, of the very request
// it would make; anything else it applies again itself.
class VxlanNetwork::EarlyConnect
{
public:
    using Results = std::map<QString, Result<VxlanHostSetup::DeviceState>>;

    explicit EarlyConnect(QHash<QString, VxlanHostSetup::Request> requests)
        : m_requests(std::move(requests))
    {}
    ~EarlyConnect() { wait(); }
    EarlyConnect(const EarlyConnect &) = delete;
    EarlyConnect &operator=(const EarlyConnect &) = delete;

    // `setup` and the sites' clients outlive the run (the network waits for it before it goes).
    void start(const VxlanHostSetup &setup, const Sites &sites, const Docker::CallOptions &call)
    {
        m_results = std::async(std::launch::async, [this, &setup, sites, call] {
                        const QStringList hosts = m_requests.keys();
                        std::mutex mutex;
                        Results results;
                        Concurrent::forEach(int(hosts.size()), [&](int i) {
                            const QString &h = hosts.at(i);
                            HelperContainer::Hooks hooks;
                            hooks.beforeStart = [&] {
                                return waitForBridge(h, call);
                            };
                            hooks.afterStart = [&] {
                                markStarted(h);
                            };
                            auto applied = setup.apply(*sites.value(h).client, m_requests.value(h),
                                                       call, hooks);
                            markStarted(h); // or never will: done trying
                            std::lock_guard lock(mutex);
                            results.insert_or_assign(h, std::move(applied));
                        });
                        return results;
                    }).share();
    }
    void bridgeDone(const QString &host, bool made)
    {
        {
            std::lock_guard lock(m_mutex);
            m_bridges.insert(host, made);
        }
        m_changed.notify_all();
    }
    void wait() const
    {
        if (m_results.valid())
            m_results.wait();
    }
    // Until every helper has started (or is done trying), at most `timeout`.
    void awaitStarts(std::chrono::milliseconds timeout) const
    {
        std::unique_lock lock(m_mutex);
        m_changed.wait_for(lock, timeout, [&] { return m_started.size() >= m_requests.size(); });
    }
    // The result of exactly `request` on `host`, when connect() can take it.
    std::optional<Result<VxlanHostSetup::DeviceState>>
    resultFor(const QString &host, const VxlanHostSetup::Request &request) const
    {
        if (!m_results.valid() || m_requests.value(host) != request)
            return std::nullopt;
        const Results &results = m_results.get();
        const auto it = results.find(host);
        if (it == results.end() ||
            (!it->second && it->second.error().kind != Error::Kind::Conflict))
            return std::nullopt;
        return it->second;
    }

private:
    void markStarted(const QString &host)
    {
        {
            std::lock_guard lock(m_mutex);
            m_started.insert(host);
        }
        m_changed.notify_all();
    }
    Result<void> waitForBridge(const QString &host, const Docker::CallOptions &call) const
    {
        const auto end = std::chrono::steady_clock::now() + call.timeout;
        std::unique_lock lock(m_mutex);
        while (!m_bridges.contains(host)) {
            if (call.cancel.isCancelled())
                return fail(Error::Kind::Cancelled, onHost(host),
                            QStringLiteral("cancelled while its bridge network was made"));
            const auto now = std::chrono::steady_clock::now();
            if (now >= end)
                return fail(Error::Kind::Timeout, onHost(host),
                            QStringLiteral("its bridge network was not made in time"));
            m_changed.wait_until(lock, std::min(end, now + 100ms));
        }
        if (!m_bridges.value(host))
            return fail(Error::Kind::Cancelled, onHost(host),
                        QStringLiteral("its bridge network was not made"));
        return {};
    }

    const QHash<QString, VxlanHostSetup::Request> m_requests;
    mutable std::mutex m_mutex;
    mutable std::condition_variable m_changed;
    QHash<QString, bool> m_bridges; // host → its bridge made; guarded by m_mutex
    QSet<QString> m_started;        // hosts whose helper started or is done; guarded by m_mutex
    std::shared_future<Results> m_results;
};

VxlanNetwork::VxlanNetwork(StateStore *store)
    : m_store(store)
{}

VxlanNetwork::VxlanNetwork(StateStore *store, Options options)
    : m_store(store)
    , m_options(std::move(options))
{}

VxlanNetwork::~VxlanNetwork()
{
    awaitBackground(); // the early helpers use m_setup
}

void VxlanNetwork::awaitBackground() const
{
    if (const auto early = takeEarlyConnect())
        early->wait();
}

std::shared_ptr<VxlanNetwork::EarlyConnect> VxlanNetwork::takeEarlyConnect() const
{
    std::lock_guard lock(m_mutex);
    return std::exchange(m_early, nullptr);
}

VxlanHostSetup::Request VxlanNetwork::requestFor(const VxlanSegment &segment,
                                                 const QStringList &hosts, const Sites &sites,
                                                 const QString &host)
{
    return VxlanHostSetup::requestFor(segment, hosts, host,
                                      [&](const QString &h) { return sites.value(h).address; });
}

std::shared_ptr<VxlanNetwork::EarlyConnect>
VxlanNetwork::startEarlyConnect(const Scope &scope, const VxlanSegment &segment,
                                const QStringList &hosts, const Sites &sites,
                                const VxlanHostSetup &setup) const
{
    QHash<QString, VxlanHostSetup::Request> requests;
    for (const QString &h : hosts)
        requests.insert(h, requestFor(segment, hosts, sites, h));
    auto early = std::make_shared<EarlyConnect>(std::move(requests));
    early->start(setup, sites, scope.call);
    return early;
}

bool VxlanNetwork::isSubnetCollision(const Error &error)
{
    return error.message.contains(QLatin1String("overlaps"), Qt::CaseInsensitive);
}

Docker::NetworkSpec VxlanNetwork::specFor(const Scope &) const
{
    // Unused: setUp() makes one bridge per host from the session's segment.
    return {};
}

QStringList VxlanNetwork::hostsOf(const Placement &placement) const
{
    // Every host of the session (a removal that keeps the network passes none).
    return placement.hostsUsed;
}

Result<const VxlanHostSetup *> VxlanNetwork::hostSetup(const Scope &scope) const
{
    std::lock_guard lock(m_mutex);
    if (!m_setup) {
        auto image = NetHelperImage::local();
        if (!image)
            return fail(image.error().withContext(
                QStringLiteral("preparing the VXLAN helper image for session %1")
                    .arg(scope.sessionId.left(8))));
        m_setup = std::make_unique<VxlanHostSetup>(scope.self, *image);
    }
    return m_setup.get();
}

Result<VxlanSegment> VxlanNetwork::segmentOf(const Scope &scope,
                                             const NetworkAllocation &allocation, int port) const
{
    VxlanSegment segment;
    segment.sessionId = scope.sessionId;
    segment.vni = allocation.vni;
    segment.subnet = allocation.subnet.toString();
    segment.port = port;
    segment.mtu = scope.mtu.value_or(VxlanSegment::kDefaultMtu);
    if (auto ok = segment.validate(); !ok)
        return fail(ok.error());
    return segment;
}

Result<VxlanSegment> VxlanNetwork::segment(const Scope &scope) const
{
    auto allocation = m_store->networkAllocation(scope.sessionId);
    if (!allocation)
        return fail(allocation.error());
    if (!*allocation)
        return fail(
            Error::Kind::NotFound, QString(),
            QStringLiteral("session %1 holds no VXLAN network").arg(scope.sessionId.left(8)));
    // The port is the device's, not needed to find or remove it: the default names none wrong.
    auto segment =
        segmentOf(scope, **allocation, m_options ? m_options->port : VxlanSegment::kDefaultPort);
    if (segment) {
        std::lock_guard lock(m_mutex);
        m_segment = *segment;
    }
    return segment;
}

OverlayAvoid VxlanNetwork::subnetsInUse(const Scope &scope, const Placement &placement,
                                        const Sites &sites) const
{
    const QStringList hosts = hostsOf(placement);
    std::mutex mutex;
    OverlayAvoid inUse;
    Concurrent::forEach(int(hosts.size()), [&](int i) {
        const Site site = sites.value(hosts.at(i));
        if (!site.client)
            return;
        auto networks = site.client->listNetworks({}, scope.call);
        if (!networks)
            return; // the creation that follows names the host's trouble
        for (const Docker::NetworkInfo &n : std::as_const(*networks)) {
            if (scope.self.ownsSessionObject(n.labels, scope.sessionId))
                continue;
            // Another store's (or session's) VXLAN network: its VNI names its bridge too.
            bool numeric = false;
            const quint32 vni = n.labels.value(Labels::vni()).toUInt(&numeric);
            if (numeric) {
                std::lock_guard lock(mutex);
                inUse.vnis.insert(vni);
            }
            for (const Docker::IpamConfig &c : n.ipam) {
                if (auto cidr = Ipv4Cidr::parse(c.subnet)) {
                    std::lock_guard lock(mutex);
                    inUse.subnets.append(*cidr);
                }
            }
        }
    });
    return inUse;
}

Result<bool> VxlanNetwork::ensureBridge(const Scope &scope, const VxlanSegment &segment,
                                        const QString &gateway, const QString &hostName,
                                        const Docker::DockerHost &host) const
{
    const Docker::NetworkSpec spec = segment.networkSpec(scope.self.id, gateway);
    auto where = [&](const Error &e) {
        return e.withContext(
            QStringLiteral("creating vxlan network %1 on host %2").arg(spec.name, hostName));
    };
    auto made = host.createNetwork(spec, scope.call);
    if (made)
        return false;
    if (made.error().kind != Error::Kind::Conflict)
        return fail(where(made.error()));
    // This session's network from an interrupted attempt: kept when it has this segment.
    auto existing = host.inspectNetwork(spec.name, scope.call);
    if (!existing)
        return fail(where(existing.error()));
    if (!scope.self.ownsSessionObject(existing->labels, scope.sessionId))
        return fail(Error::Kind::Conflict, onHost(hostName),
                    QStringLiteral("a network named %1 exists on host %2 and is not this "
                                   "session's: left alone")
                        .arg(spec.name, hostName));
    // The VNI is not compared: a collision found while connecting renumbers it, the bridge stays.
    const bool same = !existing->ipam.isEmpty() &&
                      existing->ipam.first().subnet == segment.subnet &&
                      existing->ipam.first().gateway == gateway;
    if (same)
        return true;
    // Made for an earlier claim (a subnet or VNI that collided elsewhere): made again, unless
    // kernels are on it already.
    if (existing->hasContainerEndpoints())
        return fail(Error::Kind::Conflict, onHost(hostName),
                    QStringLiteral("network %1 on host %2 has subnet %3, the session's is %4, and "
                                   "containers are attached to it")
                        .arg(spec.name, hostName,
                             existing->ipam.isEmpty() ? QString() : existing->ipam.first().subnet,
                             segment.subnet));
    qCInfo(lcNetwork).noquote() << "network" << spec.name << "on host" << hostName
                                << "was made for an earlier claim: made again";
    if (auto ok = host.removeNetwork(existing->id, scope.call); !ok && !ok.error().isGone())
        return fail(where(ok.error()));
    made = host.createNetwork(spec, scope.call);
    if (!made)
        return fail(where(made.error()));
    return false;
}

Result<VxlanNetwork::Options> VxlanNetwork::options() const
{
    // The store's pool and port (network setup), read where they are used: only making a
    // network claims from the pool and sets the port.
    if (m_options)
        return *m_options;
    auto values = NetworkSettings::read(*m_store);
    if (!values)
        return fail(values.error());
    Options options;
    options.pool = values->pool;
    options.port = values->vxlanPort;
    return options;
}

Result<SessionNetwork::Made> VxlanNetwork::setUp(const Scope &scope, const Placement &placement,
                                                 const Sites &sites) const
{
    auto made = prepare(scope, placement, sites);
    if (!made)
        return fail(made.error());
    if (auto connected = connect(scope, placement, sites); !connected)
        return fail(connected.error());
    return made;
}

Result<SessionNetwork::Made> VxlanNetwork::prepare(const Scope &scope, const Placement &placement,
                                                   const Sites &sites) const
{
    auto options = this->options();
    if (!options)
        return fail(options.error());
    const QStringList hosts = hostsOf(placement);
    if (hosts.isEmpty())
        return fail(Error::Kind::Invalid, QString(),
                    QStringLiteral("session %1 has no hosts").arg(scope.sessionId.left(8)));
    for (const QString &h : hosts) {
        const Site site = sites.value(h);
        if (!site.client)
            return fail(Error::Kind::Invalid, onHost(h),
                        QStringLiteral("host %1 of the session is not connected").arg(h));
        if (hosts.size() > 1 &&
            (!Ipv4Cidr::parseAddress(site.address) || site.address.startsWith(u"127.")))
            return fail(Error::Kind::Invalid, onHost(h),
                        QStringLiteral("host %1 has no IPv4 address its peers can reach ('%2'): "
                                       "register it with `clusterdeckctl host add … --address "
                                       "IP`")
                            .arg(h, site.address));
    }
    // The helper image first: a machine without iproute2 fails before anything is made.
    auto setup = hostSetup(scope);
    if (!setup)
        return fail(setup.error());

    const OverlayAvoid inUse = subnetsInUse(scope, placement, sites);
    OverlayAvoid collided;
    std::optional<Error> lastCollision;
    for (int attempt = 0; attempt < options->attempts; ++attempt) {
        auto allocation =
            collided.isEmpty()
                ? m_store->claimNetworkAllocation(scope.sessionId, options->pool, inUse)
                : m_store->reclaimNetworkAllocation(scope.sessionId, options->pool, collided,
                                                    inUse);
        if (!allocation)
            return fail(allocation.error().withContext(
                QStringLiteral("claiming a VXLAN id and subnet for session %1")
                    .arg(scope.sessionId.left(8))));
        auto segment = segmentOf(scope, *allocation, options->port);
        if (!segment)
            return fail(segment.error());
        auto plan = VxlanAddressPlan::fromSlots(allocation->subnet, placement);
        if (!plan)
            return fail(plan.error());
        const QHash<QString, QString> gateways = plan->gateways();

        // The helpers now (the first claim only; a collision's retry leaves them to connect()),
        // each started once its host's bridge exists.
        const std::shared_ptr<EarlyConnect> early =
            attempt == 0 ? startEarlyConnect(scope, *segment, hosts, sites, **setup) : nullptr;
        // The bridge network on every host, all at once.
        std::mutex mutex;
        std::optional<Error> error;
        std::optional<Error> subnetCollision;
        int adopted = 0;
        Concurrent::forEach(int(hosts.size()), [&](int i) {
            const QString &h = hosts.at(i);
            const QString gateway = gateways.value(h);
            auto made =
                gateway.isEmpty()
                    ? Result<bool>(fail(Error::Kind::Invalid, onHost(h),
                                        QStringLiteral("host %1 has no gateway slot").arg(h)))
                    : ensureBridge(scope, *segment, gateway, h, *sites.value(h).client);
            if (early)
                early->bridgeDone(h, made.has_value());
            std::lock_guard lock(mutex);
            if (made)
                adopted += *made ? 1 : 0;
            else if (isSubnetCollision(made.error()))
                subnetCollision = made.error();
            else if (!error)
                error = made.error();
        });
        // Every host reported its bridge above, so no helper still waits for one.
        if (early && (error || subnetCollision))
            early->wait(); // what they made is removed with the rest, or set right next
        if (error)
            return fail(*error);
        if (subnetCollision) {
            qCInfo(lcNetwork).noquote()
                << "subnet" << segment->subnet << "collided:" << subnetCollision->toString()
                << "- claiming another";
            collided.subnets.append(allocation->subnet);
            lastCollision = subnetCollision;
            continue;
        }
        if (early)
            early->awaitStarts(scope.call.timeout);
        {
            std::lock_guard lock(m_mutex);
            m_segment = *segment;
            m_vnisInUse = inUse.vnis;
            m_early = early;
        }
        return Made{QStringLiteral("vxlan:%1").arg(segment->networkName()),
                    adopted == hosts.size()};
    }
    return fail(
        lastCollision
            ? lastCollision->withContext(
                  QStringLiteral("no free subnet after %1 claims").arg(options->attempts))
            : Error::make(Error::Kind::Conflict, QString(), QStringLiteral("no free subnet")));
}

Result<void> VxlanNetwork::connect(const Scope &scope, const Placement &placement,
                                   const Sites &sites) const
{
    auto options = this->options();
    if (!options)
        return fail(options.error());
    auto setup = hostSetup(scope);
    if (!setup)
        return fail(setup.error());
    std::optional<VxlanSegment> segment;
    OverlayAvoid avoid;
    {
        std::lock_guard lock(m_mutex);
        segment = m_segment;
        avoid.vnis = m_vnisInUse;
    }
    if (!segment) {
        auto stored = this->segment(scope); // connect() without prepare(): the stored claim
        if (!stored)
            return fail(stored.error());
        segment = *stored;
        segment->port = options->port;
    }
    // prepare()'s helpers first, all of them: a host runs one helper of a session at a time.
    const std::shared_ptr<EarlyConnect> early = takeEarlyConnect();
    if (early)
        early->wait();
    const QStringList hosts = hostsOf(placement);
    OverlayAvoid collided;
    std::optional<Error> lastCollision;
    for (int attempt = 0; attempt < options->attempts; ++attempt) {
        // The VXLAN device on every host, with every other host as its peers.
        std::mutex mutex;
        std::optional<Error> error;
        std::optional<Error> vniCollision;
        QStringList madeOn;
        Concurrent::forEach(int(hosts.size()), [&](int i) {
            const QString &h = hosts.at(i);
            const VxlanHostSetup::Request request = requestFor(*segment, hosts, sites, h);
            auto applied = [&]() -> Result<VxlanHostSetup::DeviceState> {
                if (early && attempt == 0) {
                    if (auto done = early->resultFor(h, request))
                        return *done;
                }
                if (!sites.value(h).client)
                    return fail(Error::Kind::Invalid, onHost(h),
                                QStringLiteral("host %1 of the session is not connected").arg(h));
                return (*setup)->apply(*sites.value(h).client, request, scope.call);
            }();
            std::lock_guard lock(mutex);
            if (applied)
                madeOn.append(h);
            else if (applied.error().kind == Error::Kind::Conflict)
                vniCollision = applied.error();
            else if (!error)
                error = applied.error();
        });
        if (error)
            return fail(*error);
        if (!vniCollision) {
            qCInfo(lcNetwork).noquote()
                << "vxlan network" << segment->networkName() << "VNI" << segment->vni
                << segment->subnet << "on" << hosts.join(QStringLiteral(", "));
            return {};
        }
        qCInfo(lcNetwork).noquote()
            << "VNI" << segment->vni << "collided:" << vniCollision->toString()
            << "- claiming another";
        // The devices this claim made on the other hosts go: the next has another VNI, so
        // another device name.
        Concurrent::forEach(int(madeOn.size()), [&](int i) {
            const QString &h = madeOn.at(i);
            if (auto gone = (*setup)->teardown(*sites.value(h).client, *segment, scope.call); !gone)
                qCWarning(lcNetwork).noquote()
                    << "removing" << segment->deviceName() << "from host" << h
                    << "after the collision:" << gone.error().toString();
        });
        lastCollision = vniCollision;
        collided.vnis.insert(segment->vni);
        // Only the VNI is claimed again: the subnet, the bridges and the kernels' addresses
        // (made already, or being made) stay.
        auto allocation =
            m_store->reclaimNetworkAllocation(scope.sessionId, options->pool, collided, avoid);
        if (!allocation)
            return fail(allocation.error().withContext(
                QStringLiteral("claiming another VXLAN id for session %1")
                    .arg(scope.sessionId.left(8))));
        if (allocation->subnet.toString() != segment->subnet)
            return fail(
                Error::Kind::Conflict, QString(),
                QStringLiteral("session %1: claiming another VXLAN id moved its subnet "
                               "from %2 to %3")
                    .arg(scope.sessionId.left(8), segment->subnet, allocation->subnet.toString()));
        auto renumbered = segmentOf(scope, *allocation, options->port);
        if (!renumbered)
            return fail(renumbered.error());
        segment = *renumbered;
        std::lock_guard lock(m_mutex);
        m_segment = *segment;
    }
    return fail(
        lastCollision
            ? lastCollision->withContext(
                  QStringLiteral("no free VXLAN id after %1 claims").arg(options->attempts))
            : Error::make(Error::Kind::Conflict, QString(), QStringLiteral("no free VXLAN id")));
}

std::optional<VxlanAddressPlan> VxlanNetwork::addressPlan(const Placement &placement) const
{
    std::optional<VxlanSegment> segment;
    {
        std::lock_guard lock(m_mutex);
        segment = m_segment;
    }
    if (!segment)
        return std::nullopt;
    auto subnet = Ipv4Cidr::parse(segment->subnet);
    if (!subnet)
        return std::nullopt;
    auto plan = VxlanAddressPlan::fromSlots(*subnet, placement);
    if (!plan)
        return std::nullopt;
    return *plan;
}

void VxlanNetwork::configureKernel(const Placement &placement, const QString &hostname,
                                   Docker::ContainerSpec &spec) const
{
    const auto plan = addressPlan(placement);
    if (!plan)
        return;
    const QString address = plan->kernelAddresses().value(hostname);
    for (auto it = spec.endpoints.begin(); it != spec.endpoints.end(); ++it)
        it->ipv4Address = address;
    spec.extraHosts.append(plan->extraHosts());
}

QByteArray VxlanNetwork::hostsFile(const Placement &placement) const
{
    const auto plan = addressPlan(placement);
    if (!plan)
        return {};
    // Docker's own lines, then every kernel of the session.
    QByteArray out = "127.0.0.1\tlocalhost\n"
                     "::1\tlocalhost ip6-localhost ip6-loopback\n"
                     "fe00::0\tip6-localnet\n"
                     "ff00::0\tip6-mcastprefix\n"
                     "ff02::1\tip6-allnodes\n"
                     "ff02::2\tip6-allrouters\n";
    for (const QString &entry : plan->extraHosts()) {
        const QString name = entry.section(u':', 0, 0);
        const QString address = entry.section(u':', 1);
        out += (address + u'\t' + name + u'\n').toUtf8();
    }
    return out;
}

Result<void> VxlanNetwork::removeHostSide(const Scope &scope, const QString &hostName,
                                          const Docker::DockerHost &host,
                                          const Removal &removal) const
{
    awaitBackground(); // a helper of prepare() must not make a device after this removal
    auto segment = this->segment(scope);
    if (!segment) {
        if (segment.error().kind == Error::Kind::NotFound)
            return {}; // never claimed: no device was made
        return fail(segment.error());
    }
    auto setup = hostSetup(scope);
    if (!setup)
        return fail(setup.error());
    const auto call = removal.call();
    if (!call)
        return fail(
            Error::Kind::Timeout, onHost(hostName),
            QStringLiteral("VXLAN device of network %1 not removed in time").arg(scope.name));
    auto removed = (*setup)->teardown(host, *segment, *call);
    if (!removed)
        return fail(removed.error().withContext(
            QStringLiteral("removing the VXLAN device of %1 from host %2")
                .arg(scope.name, hostName)));
    return {};
}

Result<void> VxlanNetwork::removeDeviceOf(const StoreIdentity &self,
                                          const QMap<QString, QString> &networkLabels,
                                          const Docker::DockerHost &host,
                                          const Docker::CallOptions &call)
{
    bool numeric = false;
    const quint32 vni = networkLabels.value(Labels::vni()).toUInt(&numeric);
    if (!numeric)
        return {}; // not a VXLAN network
    auto image = NetHelperImage::local();
    if (!image)
        return fail(image.error());
    auto removed = removeDevice(VxlanHostSetup(self, *image), host,
                                networkLabels.value(Labels::session()), vni, call);
    if (!removed)
        return fail(removed.error());
    return {};
}

Result<VxlanHostSetup::Removal> VxlanNetwork::removeDevice(const VxlanHostSetup &setup,
                                                           const Docker::DockerHost &host,
                                                           const QString &sessionId, quint32 vni,
                                                           const Docker::CallOptions &call)
{
    VxlanSegment segment;
    segment.sessionId = sessionId;
    segment.vni = vni;
    segment.subnet = QStringLiteral("10.0.0.0/24"); // a removal goes by the device's name
    return setup.teardown(host, segment, call);
}

Result<void> VxlanNetwork::released(const Scope &scope) const
{
    return m_store->releaseNetworkAllocation(scope.sessionId);
}

} // namespace ClusterDeck
