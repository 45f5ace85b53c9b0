#pragma once

#include "common/error.h"
#include "common/ipv4cidr.h"
#include "placement/placement.h"

#include <QHash>
#include <QSet>
#include <QString>
#include <QStringList>

namespace ClusterDeck {

// Where the hosts and kernels of one session sit in the session's VXLAN subnet (issue 26). Each
// host's bridge has a gateway address of its own, because the hosts' bridges form one layer-2
// segment: from the bottom of the subnet, in the order the hosts joined (.1, .2, … at most
// kGatewaySlots). Each kernel has a static address above those, the lowest free one. Nothing moves
// while the session lives: a scale adds hosts and kernels and frees what it removed, a restarted
// kernel keeps its address. Pure: the driver restores a plan from what the session recorded, asks
// it for what is new, and records the answers.
class VxlanAddressPlan
{
public:
    static constexpr quint32 kGatewaySlots = 30;

    explicit VxlanAddressPlan(const Ipv4Cidr &subnet);

    // The slots of a VXLAN session's placement (Placement::gatewaySlots, addressSlots): those it
    // has stay, hosts and kernels no longer in it are freed, new ones get the lowest free slot
    // (hosts in the order of hostsUsed, kernels in the plan's order). Nothing else changes; an
    // error when the session outgrows its /24 (which host or kernel, and the capacity).
    static Result<void> assignSlots(Placement &placement, const ClusterPlan &plan);
    // The plan of a placement's slots in `subnet` (the session's claimed /24).
    static Result<VxlanAddressPlan> fromSlots(const Ipv4Cidr &subnet, const Placement &placement);

    const Ipv4Cidr &subnet() const { return m_subnet; }
    // How many kernels fit: the subnet's host addresses above the gateway slots (224 in a /24).
    int kernelCapacity() const;

    // What the session has already: an error naming the entry when its address is not an address,
    // lies outside its part of the subnet, or is another host's or kernel's.
    Result<void> restoreHost(const QString &host, const QString &gateway);
    Result<void> restoreKernel(const QString &hostname, const QString &address);

    // The host's gateway, the kernel's address: the one it has, else the lowest free one; an error
    // when none is left (more than kGatewaySlots hosts, more than kernelCapacity() kernels).
    Result<QString> gatewayFor(const QString &host);
    Result<QString> addressFor(const QString &hostname);

    void releaseHost(const QString &host);
    void releaseKernel(const QString &hostname);

    QHash<QString, QString> gateways() const;        // host → gateway
    QHash<QString, QString> kernelAddresses() const; // kernel hostname → address
    // Docker's ExtraHosts for every kernel of the session, by address ("master1:100.64.5.31"):
    // each kernel resolves every other by its cluster hostname, whichever host it is on.
    QStringList extraHosts() const;

private:
    struct Range
    {
        quint32 first = 0; // offsets into the subnet
        quint32 last = 0;  // inclusive; last < first: empty
    };
    Range gatewayRange() const;
    Range kernelRange() const;
    Result<void> restore(QHash<QString, quint32> &owners, const QString &name,
                         const QString &address, const Range &range, const QString &what);
    Result<QString> assign(QHash<QString, quint32> &owners, const QString &name, const Range &range,
                           const QString &what);

    Ipv4Cidr m_subnet;
    QHash<QString, quint32> m_gateways; // host → offset
    QHash<QString, quint32> m_kernels;  // kernel hostname → offset
    QSet<quint32> m_taken;              // every offset above
};

} // namespace ClusterDeck
