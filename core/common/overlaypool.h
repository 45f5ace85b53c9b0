#pragma once

#include "error.h"
#include "ipv4cidr.h"

#include <QList>
#include <QSet>

namespace ClusterDeck {

// What a claim must not hand out, beyond what other sessions of the store hold: networks and
// VXLAN ids in use on the session's hosts (another store, another tool; read by the caller from
// the hosts), or those that collided while a session's network was being made.
struct OverlayAvoid
{
    QList<Ipv4Cidr> subnets; // any prefix length; a /24 overlapping one of them is skipped
    QSet<quint32> vnis;

    bool isEmpty() const { return subnets.isEmpty() && vnis.isEmpty(); }
    void add(const OverlayAvoid &other);
    bool avoids(const Ipv4Cidr &subnet) const;
    friend bool operator==(const OverlayAvoid &, const OverlayAvoid &) = default;
};

// The pool multi-node session networks are claimed from (issue 26): a range of IPv4 addresses cut
// into /24s, one per session, and a range of VXLAN ids (VNIs), one per session. Pure: which /24 or
// VNI is free is decided from what the caller says is taken; the store claims atomically.
//
// The default, 100.64.0.0/10 (RFC 6598 shared address space, 16384 /24s), overlaps none of what
// Docker hands out by itself: its bridge pools (172.17.0.0/16 … 172.31.0.0/16 and 192.168.0.0/16
// cut into /20s) nor Swarm's 10.0.0.0/8; nor the usual Kubernetes ranges (10.x, Calico's
// 192.168.0.0/16). It is not routed on the internet, so a kernel never loses a public address to
// it. It does clash with Tailscale (100.64.0.0/10 on the host) and with a host whose own uplink
// is behind carrier-grade NAT: such sites configure another pool.
// The default VNIs, 1048576-16777215, stay clear of Swarm's (allocated upward from 4096),
// Flannel's (1) and Calico's (4096).
class OverlayPool
{
public:
    static constexpr int kSubnetPrefixLength = 24; // every session gets one /24
    static constexpr quint32 kMaxVni = (1u << 24) - 1;
    static constexpr quint32 kDefaultFirstVni = 1u << 20;
    static inline const char kDefaultSubnets[] = "100.64.0.0/10";

    static OverlayPool defaults();
    // `range`: IPv4 CIDR of /24 or wider, not loopback, link-local, multicast or reserved;
    // VNIs 1-16777215, first <= last.
    static Result<OverlayPool> make(const Ipv4Cidr &range, quint32 firstVni, quint32 lastVni);
    // From settings: subnets "100.64.0.0/10", VNIs "1048576-16777215" or a single "5005".
    // Empty strings take the default of that part.
    static Result<OverlayPool> parse(const QString &subnets, const QString &vnis);

    const Ipv4Cidr &range() const { return m_range; }
    quint32 firstVni() const { return m_firstVni; }
    quint32 lastVni() const { return m_lastVni; }
    quint32 subnetCount() const;
    quint32 vniCount() const { return m_lastVni - m_firstVni + 1; }
    bool containsSubnet(const Ipv4Cidr &subnet) const;
    bool containsVni(quint32 vni) const { return vni >= m_firstVni && vni <= m_lastVni; }

    // The lowest /24 of the pool that overlaps none of `taken`; Kind::Conflict when none is left.
    Result<Ipv4Cidr> nextFreeSubnet(const QList<Ipv4Cidr> &taken) const;
    // The lowest VNI of the pool not in `taken`; Kind::Conflict when none is left.
    Result<quint32> nextFreeVni(const QSet<quint32> &taken) const;

    QString toString() const; // "100.64.0.0/10, VNIs 1048576-16777215"
    friend bool operator==(const OverlayPool &, const OverlayPool &) = default;

private:
    Ipv4Cidr m_range;
    quint32 m_firstVni = 0;
    quint32 m_lastVni = 0;
};

} // namespace ClusterDeck
