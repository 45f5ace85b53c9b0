#include "vxlansegment.h"

#include "common/labels.h"

#include <QRegularExpression>
#include <QStringList>

namespace ClusterDeck {

namespace {

struct Cidr
{
    quint32 base = 0;
    int prefix = 0;
};

std::optional<Cidr> parseCidr(const QString &cidr)
{
    const QStringList parts = cidr.split(u'/');
    if (parts.size() != 2)
        return std::nullopt;
    const auto base = VxlanSegment::parseIpv4(parts[0]);
    bool ok = false;
    const int prefix = parts[1].toInt(&ok);
    if (!base || !ok || prefix < 8 || prefix > 30)
        return std::nullopt;
    const quint32 mask = prefix == 0 ? 0 : ~quint32(0) << (32 - prefix);
    if ((*base & ~mask) != 0)
        return std::nullopt; // "10.200.5.7/24" is an address, not a network
    return Cidr{*base, prefix};
}

} // namespace

std::optional<quint32> VxlanSegment::parseIpv4(const QString &address)
{
    const QStringList octets = address.split(u'.');
    if (octets.size() != 4)
        return std::nullopt;
    quint32 value = 0;
    for (const QString &octet : octets) {
        if (octet.isEmpty() || octet.size() > 3)
            return std::nullopt;
        for (const QChar c : octet) {
            if (!c.isDigit() || c.unicode() > 127)
                return std::nullopt;
        }
        const int n = octet.toInt();
        if (n > 255)
            return std::nullopt;
        value = (value << 8) | quint32(n);
    }
    return value;
}

QString VxlanSegment::formatIpv4(quint32 address)
{
    return QStringLiteral("%1.%2.%3.%4")
        .arg(address >> 24)
        .arg((address >> 16) & 0xFF)
        .arg((address >> 8) & 0xFF)
        .arg(address & 0xFF);
}

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
    if (!parseCidr(subnet))
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
    return QStringLiteral("cdbr%1").arg(vni);
}

QString VxlanSegment::deviceName() const
{
    return QStringLiteral("cdvx%1").arg(vni);
}

std::optional<QString> VxlanSegment::addressAt(quint32 offset) const
{
    const auto cidr = parseCidr(subnet);
    if (!cidr)
        return std::nullopt;
    const quint32 size = quint32(1) << (32 - cidr->prefix);
    if (offset < 1 || offset >= size - 1) // neither the network nor the broadcast address
        return std::nullopt;
    return formatIpv4(cidr->base + offset);
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
