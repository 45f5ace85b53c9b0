#include "vxlansegment.h"

#include "common/ipv4cidr.h"
#include "common/labels.h"

#include <QRegularExpression>
#include <QStringList>

namespace ClusterDeck {

namespace {

// The session's subnet, prefix 8-30 (a /31 or /32 leaves no address for a kernel).
std::optional<Ipv4Cidr> parseSubnet(const QString &subnet)
{
    const auto cidr = Ipv4Cidr::parse(subnet);
    if (!cidr || cidr->prefixLength() < 8 || cidr->prefixLength() > 30)
        return std::nullopt;
    return *cidr;
}

} // namespace

Result<void> VxlanSegment::validate() const
{
    const QString where = QStringLiteral("session %1").arg(sessionId);
    static const QRegularExpression idPattern(QStringLiteral("^[0-9A-Za-z-]{8,64}$"));
    if (!idPattern.match(sessionId).hasMatch())
        return fail(Error::Kind::Invalid, where,
                    QStringLiteral("invalid session id for a VXLAN network"));
    if (vni < 1 || vni > kMaxVni)
        return fail(Error::Kind::Invalid, where,
                    QStringLiteral("VXLAN id %1 is outside 1…%2").arg(vni).arg(kMaxVni));
    if (!parseSubnet(subnet))
        return fail(
            Error::Kind::Invalid, where,
            QStringLiteral("subnet \"%1\" is not an IPv4 network (a.b.c.0/8…30)").arg(subnet));
    if (port < 1 || port > 65535)
        return fail(Error::Kind::Invalid, where,
                    QStringLiteral("VXLAN UDP port %1 is outside 1…65535").arg(port));
    if (mtu < 576 || mtu > 9000)
        return fail(Error::Kind::Invalid, where,
                    QStringLiteral("MTU %1 is outside 576…9000").arg(mtu));
    return {};
}

QString VxlanSegment::networkName() const
{
    return QStringLiteral("cd-%1").arg(sessionId.left(8));
}

QString VxlanSegment::bridgeName() const
{
    return QStringLiteral("cdbr%1").arg(sessionId.left(8));
}

QString VxlanSegment::deviceName() const
{
    return QStringLiteral("cdvx%1").arg(vni);
}

std::optional<QString> VxlanSegment::addressAt(quint32 offset) const
{
    const auto cidr = parseSubnet(subnet);
    if (!cidr || offset < 1 || offset >= cidr->addressCount() - 1)
        return std::nullopt; // neither the network nor the broadcast address
    return Ipv4Cidr::addressToString(cidr->address(offset));
}

Docker::NetworkSpec VxlanSegment::networkSpec(const QString &storeId, const QString &gateway) const
{
    Docker::NetworkSpec spec;
    spec.name = networkName();
    spec.driver = QStringLiteral("bridge");
    spec.labels.insert(Labels::session(), sessionId);
    spec.labels.insert(Labels::store(), storeId);
    spec.labels.insert(Labels::vni(), QString::number(vni));
    spec.options.insert(QStringLiteral("com.docker.network.bridge.name"), bridgeName());
    spec.options.insert(QStringLiteral("com.docker.network.driver.mtu"), QString::number(mtu));
    spec.ipam.append(Docker::IpamConfig{subnet, QString(), gateway});
    return spec;
}

} // namespace ClusterDeck
