#include "vxlanaddressplan.h"

#include <algorithm>

namespace ClusterDeck {

VxlanAddressPlan::VxlanAddressPlan(const Ipv4Cidr &subnet)
    : m_subnet(subnet)
{}

VxlanAddressPlan::Range VxlanAddressPlan::gatewayRange() const
{
    if (!m_subnet.isValid() || m_subnet.addressCount() < 4)
        return {1, 0};
    // Neither the network address (0) nor the broadcast address.
    return {1, quint32(std::min<quint64>(kGatewaySlots, m_subnet.addressCount() - 2))};
}

VxlanAddressPlan::Range VxlanAddressPlan::kernelRange() const
{
    if (!m_subnet.isValid() || m_subnet.addressCount() < 4)
        return {1, 0};
    return {kGatewaySlots + 1, quint32(m_subnet.addressCount() - 2)};
}

Result<void> VxlanAddressPlan::assignSlots(Placement &placement, const ClusterPlan &plan)
{
    // Any /24 does: the offsets are what is kept.
    auto slots = fromSlots(Ipv4Cidr::parse(QStringLiteral("10.0.0.0/24")).value(), placement);
    if (!slots)
        return fail(slots.error());
    VxlanAddressPlan &p = *slots;
    for (const QString &host : p.m_gateways.keys()) {
        if (!placement.hostsUsed.contains(host))
            p.releaseHost(host);
    }
    for (const QString &hostname : p.m_kernels.keys()) {
        if (!plan.kernel(hostname))
            p.releaseKernel(hostname);
    }
    for (const QString &host : std::as_const(placement.hostsUsed)) {
        if (auto ok = p.gatewayFor(host); !ok)
            return fail(ok.error());
    }
    for (const KernelSpec &k : plan.kernels) {
        if (auto ok = p.addressFor(k.hostname); !ok)
            return fail(ok.error());
    }
    placement.gatewaySlots.clear();
    for (auto it = p.m_gateways.cbegin(); it != p.m_gateways.cend(); ++it)
        placement.gatewaySlots.insert(it.key(), int(it.value()));
    placement.addressSlots.clear();
    for (auto it = p.m_kernels.cbegin(); it != p.m_kernels.cend(); ++it)
        placement.addressSlots.insert(it.key(), int(it.value()));
    return {};
}

Result<VxlanAddressPlan> VxlanAddressPlan::fromSlots(const Ipv4Cidr &subnet,
                                                     const Placement &placement)
{
    VxlanAddressPlan p(subnet);
    auto at = [&](int offset) {
        return offset > 0 && quint64(offset) < subnet.addressCount()
                   ? Ipv4Cidr::addressToString(subnet.address(quint32(offset)))
                   : QStringLiteral("offset %1").arg(offset);
    };
    for (auto it = placement.gatewaySlots.cbegin(); it != placement.gatewaySlots.cend(); ++it) {
        if (auto ok = p.restoreHost(it.key(), at(it.value())); !ok)
            return fail(ok.error());
    }
    for (auto it = placement.addressSlots.cbegin(); it != placement.addressSlots.cend(); ++it) {
        if (auto ok = p.restoreKernel(it.key(), at(it.value())); !ok)
            return fail(ok.error());
    }
    return p;
}

int VxlanAddressPlan::kernelCapacity() const
{
    const Range r = kernelRange();
    return r.last < r.first ? 0 : int(r.last - r.first + 1);
}

Result<void> VxlanAddressPlan::restore(QHash<QString, quint32> &owners, const QString &name,
                                       const QString &address, const Range &range,
                                       const QString &what)
{
    const QString where = QStringLiteral("%1 %2 in %3").arg(what, name, m_subnet.toString());
    auto parsed = Ipv4Cidr::parseAddress(address, where);
    if (!parsed)
        return std::unexpected(parsed.error());
    if (!m_subnet.contains(*parsed))
        return fail(Error::Kind::Invalid, where,
                    QStringLiteral("%1 lies outside the session's subnet").arg(address));
    const quint32 offset = *parsed - m_subnet.network();
    if (offset < range.first || offset > range.last)
        return fail(Error::Kind::Invalid, where,
                    QStringLiteral("%1 lies outside the %2 addresses (%3 … %4)")
                        .arg(address,
                             what == QLatin1String("host") ? QStringLiteral("gateway")
                                                           : QStringLiteral("kernel"),
                             Ipv4Cidr::addressToString(m_subnet.address(range.first)),
                             Ipv4Cidr::addressToString(m_subnet.address(range.last))));
    if (const auto mine = owners.constFind(name); mine != owners.cend()) {
        if (*mine == offset)
            return {};
        return fail(Error::Kind::Conflict, where,
                    QStringLiteral("it has %1 already, not %2")
                        .arg(Ipv4Cidr::addressToString(m_subnet.address(*mine)), address));
    }
    if (m_taken.contains(offset))
        return fail(Error::Kind::Conflict, where,
                    QStringLiteral("%1 is another's address already").arg(address));
    owners.insert(name, offset);
    m_taken.insert(offset);
    return {};
}

Result<QString> VxlanAddressPlan::assign(QHash<QString, quint32> &owners, const QString &name,
                                         const Range &range, const QString &what)
{
    if (const auto mine = owners.constFind(name); mine != owners.cend())
        return Ipv4Cidr::addressToString(m_subnet.address(*mine));
    for (quint32 offset = range.first; offset <= range.last && range.first <= range.last;
         ++offset) {
        if (m_taken.contains(offset))
            continue;
        owners.insert(name, offset);
        m_taken.insert(offset);
        return Ipv4Cidr::addressToString(m_subnet.address(offset));
    }
    const QString where = QStringLiteral("%1 %2 in %3").arg(what, name, m_subnet.toString());
    if (what == QLatin1String("host"))
        return fail(Error::Kind::Invalid, where,
                    QStringLiteral("the session spans more hosts than its network has gateway "
                                   "addresses for (%1)")
                        .arg(owners.size()));
    return fail(Error::Kind::Invalid, where,
                QStringLiteral("the session's network has room for %1 kernels, all taken: a "
                               "larger subnet per session is needed")
                    .arg(kernelCapacity()));
}

Result<void> VxlanAddressPlan::restoreHost(const QString &host, const QString &gateway)
{
    return restore(m_gateways, host, gateway, gatewayRange(), QStringLiteral("host"));
}

Result<void> VxlanAddressPlan::restoreKernel(const QString &hostname, const QString &address)
{
    return restore(m_kernels, hostname, address, kernelRange(), QStringLiteral("kernel"));
}

Result<QString> VxlanAddressPlan::gatewayFor(const QString &host)
{
    return assign(m_gateways, host, gatewayRange(), QStringLiteral("host"));
}

Result<QString> VxlanAddressPlan::addressFor(const QString &hostname)
{
    return assign(m_kernels, hostname, kernelRange(), QStringLiteral("kernel"));
}

void VxlanAddressPlan::releaseHost(const QString &host)
{
    if (const auto it = m_gateways.constFind(host); it != m_gateways.cend()) {
        m_taken.remove(*it);
        m_gateways.erase(it);
    }
}

void VxlanAddressPlan::releaseKernel(const QString &hostname)
{
    if (const auto it = m_kernels.constFind(hostname); it != m_kernels.cend()) {
        m_taken.remove(*it);
        m_kernels.erase(it);
    }
}

QHash<QString, QString> VxlanAddressPlan::gateways() const
{
    QHash<QString, QString> out;
    for (auto it = m_gateways.cbegin(); it != m_gateways.cend(); ++it)
        out.insert(it.key(), Ipv4Cidr::addressToString(m_subnet.address(it.value())));
    return out;
}

QHash<QString, QString> VxlanAddressPlan::kernelAddresses() const
{
    QHash<QString, QString> out;
    for (auto it = m_kernels.cbegin(); it != m_kernels.cend(); ++it)
        out.insert(it.key(), Ipv4Cidr::addressToString(m_subnet.address(it.value())));
    return out;
}

QStringList VxlanAddressPlan::extraHosts() const
{
    QList<std::pair<quint32, QString>> byAddress;
    byAddress.reserve(m_kernels.size());
    for (auto it = m_kernels.cbegin(); it != m_kernels.cend(); ++it)
        byAddress.append({it.value(), it.key()});
    std::sort(byAddress.begin(), byAddress.end());
    QStringList out;
    out.reserve(byAddress.size());
    for (const auto &[offset, hostname] : byAddress)
        out.append(hostname + u':' + Ipv4Cidr::addressToString(m_subnet.address(offset)));
    return out;
}

} // namespace ClusterDeck
