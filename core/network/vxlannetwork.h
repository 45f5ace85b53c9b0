#pragma once

#include "common/overlaypool.h"
#include "sessionnetwork.h"
#include "store/records.h"
#include "vxlanaddressplan.h"
#include "vxlanhostsetup.h"
#include "vxlansegment.h"

#include <memory>
#include <mutex>
#include <optional>

namespace ClusterDeck {

class NetHelperImage;

// A multi-node session's network without Swarm (issue 26): the session claims a VXLAN id and a
// /24 in the store; every host of the session gets a Docker bridge network with that subnet (its
// own gateway address) and, in its network namespace, a VXLAN device of that VNI attached to the
// bridge with one forwarding entry per other host (VxlanHostSetup, through a helper container).
// Kernels get static addresses (Placement::addressSlots) and every other kernel's name in their
// /etc/hosts. No manager: any host may be lost without taking the others' networks with it.
//
// One object per run of one session: prepare() (or setUp()) learns the session's subnet,
// configureKernel() uses it (from the kernels' threads).
class VxlanNetwork final : public SessionNetwork
{
public:
    struct Options
    {
        OverlayPool pool = OverlayPool::defaults();
        int port = VxlanSegment::kDefaultPort;
        int attempts = 4; // claims tried when a host refuses the subnet or the VNI
    };

    // The store's pool and port (NetworkSettings), read by setUp(); a setting that does not
    // parse fails it.
    explicit VxlanNetwork(StateStore *store);
    VxlanNetwork(StateStore *store, Options options);
    ~VxlanNetwork() override;

    QString driverName() const override { return QStringLiteral("vxlan"); }
    // A host-local bridge per host: one endpoint released at a time on each
    // (SessionNetwork::endpointReleasesAtOnce).
    int endpointReleasesAtOnce(int) const override { return 1; }

    QStringList hostsOf(const Placement &placement) const override;
    // prepare(), then connect().
    Result<Made> setUp(const Scope &scope, const Placement &placement,
                       const Sites &sites) const override;
    // Claims the VNI and subnet and makes the bridge network on every host: what the kernels'
    // containers need to be created. A subnet a host refuses is claimed again.
    Result<Made> prepare(const Scope &scope, const Placement &placement,
                         const Sites &sites) const override;
    // The VXLAN device on every host, with every other host as its peers. A VNI a host refuses
    // is claimed again (the subnet, the bridges and the kernels' addresses stay).
    Result<void> connect(const Scope &scope, const Placement &placement,
                         const Sites &sites) const override;
    void awaitBackground() const override;
    void configureKernel(const Placement &placement, const QString &hostname,
                         Docker::ContainerSpec &spec) const override;
    Result<void> removeHostSide(const Scope &scope, const QString &hostName,
                                const Docker::DockerHost &host,
                                const Removal &removal) const override;
    Result<void> released(const Scope &scope) const override;

    // The /etc/hosts a kernel of this session should have ("127.0.0.1 localhost", …, then one
    // line per kernel by address); empty before setUp() or segment() learned the subnet.
    QByteArray hostsFile(const Placement &placement) const;
    // The session's segment as the store holds it (learns the subnet); NotFound without a claim.
    Result<VxlanSegment> segment(const Scope &scope) const;

    // Before a session's bridge network is removed by labels alone (the reconciler: a session
    // torn down behind its back, an orphan): the VXLAN device of `networkLabels`' VNI on
    // `host`, when the labels are a VXLAN network's (io.clusterdeck.vni) and the device is this
    // store's and session's. Nothing to do for any other network.
    static Result<void> removeDeviceOf(const StoreIdentity &self,
                                       const QMap<QString, QString> &networkLabels,
                                       const Docker::DockerHost &host,
                                       const Docker::CallOptions &call);
    // The device of session `sessionId`'s VNI on `host`, when `setup`'s store made it for that
    // session (the device's alias says so); another's is left alone (Removal::NotOurs).
    static Result<VxlanHostSetup::Removal> removeDevice(const VxlanHostSetup &setup,
                                                        const Docker::DockerHost &host,
                                                        const QString &sessionId, quint32 vni,
                                                        const Docker::CallOptions &call);

    // "Pool overlaps with other one on this address space": Docker refused the subnet.
    static bool isSubnetCollision(const Error &error);

protected:
    Docker::NetworkSpec specFor(const Scope &scope) const override;

private:
    Result<Options> options() const;
    Result<VxlanSegment> segmentOf(const Scope &scope, const NetworkAllocation &allocation,
                                   int port) const;
    // Where the placement's slots are in the subnet setUp() or segment() learned; nullopt before.
    std::optional<VxlanAddressPlan> addressPlan(const Placement &placement) const;
    Result<const VxlanHostSetup *> hostSetup(const Scope &scope) const;
    // Subnets of the networks on the session's hosts that are not this session's.
    OverlayAvoid subnetsInUse(const Scope &scope, const Placement &placement,
                              const Sites &sites) const;
    // The bridge network on one host, with the segment's subnet and VNI: made, adopted, or made
    // again when this session's earlier one has another subnet (an earlier claim).
    Result<bool> ensureBridge(const Scope &scope, const VxlanSegment &segment,
                              const QString &gateway, const QString &hostName,
                              const Docker::DockerHost &host) const;

    // VxlanHostSetup::requestFor with the sites' addresses.
    static VxlanHostSetup::Request requestFor(const VxlanSegment &segment, const QStringList &hosts,
                                              const Sites &sites, const QString &host);
    // prepare()'s head start on connect(): every host's helper container is created beside the
    // host's bridge network and started once that bridge exists, so that the devices are ready
    // about when the kernels are created instead of a helper's create and start later.
    class EarlyConnect;
    std::shared_ptr<EarlyConnect> startEarlyConnect(const Scope &scope, const VxlanSegment &segment,
                                                    const QStringList &hosts, const Sites &sites,
                                                    const VxlanHostSetup &setup) const;
    std::shared_ptr<EarlyConnect> takeEarlyConnect() const;

    StateStore *m_store;
    std::optional<Options> m_options; // nullopt: the store's settings

    mutable std::mutex m_mutex; // guards the three below
    mutable std::optional<VxlanSegment> m_segment;
    mutable QSet<quint32> m_vnisInUse; // other networks' on the session's hosts, for connect()
    mutable std::unique_ptr<VxlanHostSetup> m_setup;
    mutable std::shared_ptr<EarlyConnect> m_early; // from prepare() until connect() takes it
};

} // namespace ClusterDeck
