#pragma once

#include "common/error.h"
#include "docker/dockertypes.h"

#include <QString>

#include <optional>

namespace ClusterDeck {

// One session's VXLAN network as every host of it shares it: the VXLAN id and the /24 the store
// claimed for the session (issue 26), and the names derived from them on each host. Pure: the
// driver builds one from the session's claim and hands it to VxlanHostSetup and networkSpec().
struct VxlanSegment
{
    static constexpr int kDefaultPort = 4789;
    // 1500 on the underlay less the 50 bytes of outer Ethernet, IPv4, UDP and VXLAN headers.
    static constexpr int kDefaultMtu = 1450;
    static constexpr quint32 kMaxVni = 0xFFFFFF; // 24 bits

    QString sessionId;
    quint32 vni = 0;
    QString subnet; // "10.200.5.0/24"
    int port = kDefaultPort;
    int mtu = kDefaultMtu;

    friend bool operator==(const VxlanSegment &, const VxlanSegment &) = default;

    // Every field in range, the subnet an IPv4 network address with its prefix.
    Result<void> validate() const;

    // Docker's name of the bridge network on each host: cd-<short session id>.
    QString networkName() const;
    // Kernel device names (IFNAMSIZ: at most 15 characters, these at most 12). The bridge is
    // named after the session, like its Docker network: the kernels attached to it keep it when
    // the VNI is claimed again (a collision found while the kernels were being created). The
    // device is named after the VNI: the kernel refuses a second VXLAN device with the same VNI
    // and port anyway, so another's device of this VNI is found by its name too.
    QString bridgeName() const; // "cdbr3f2c8a1e"
    QString deviceName() const; // "cdvx5005"

    // The address `offset` into the subnet ("10.200.5.0/24", 2 → "10.200.5.2"); nullopt outside
    // the subnet's host addresses.
    std::optional<QString> addressAt(quint32 offset) const;
    // The gateway of the `ordinal`-th host of the session (1-based: .1 on the first, .2 on the
    // second): each host's bridge has its own gateway address, the subnet is one.
    std::optional<QString> gatewayFor(int ordinal) const { return addressAt(quint32(ordinal)); }

    // The bridge network `cd-<sid8>` on one host: this subnet with `gateway`, the Linux bridge
    // named bridgeName() (the host step attaches the VXLAN device to it), the MTU, the session's
    // and store's labels and the VNI first claimed (a hint for other stores: the store's claim,
    // not this label, is the session's VNI).
    Docker::NetworkSpec networkSpec(const QString &storeId, const QString &gateway) const;
};

} // namespace ClusterDeck
