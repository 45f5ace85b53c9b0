#include "ipv4cidr.h"

namespace ClusterDeck {

namespace {

quint32 maskOf(int prefixLength)
{
    return prefixLength <= 0 ? 0 : ~quint32(0) << (32 - prefixLength);
}

// A decimal number without sign or leading zero ("0" itself is fine), at most `max`.
std::optional<quint32> strictNumber(QStringView text, quint32 max)
{
    if (text.isEmpty() || text.size() > 10 || (text.size() > 1 && text.front() == u'0'))
        return std::nullopt;
    quint64 value = 0;
    for (QChar c : text) {
        if (c < u'0' || c > u'9')
            return std::nullopt;
        value = value * 10 + (c.unicode() - u'0');
    }
    if (value > max)
        return std::nullopt;
    return quint32(value);
}

} // namespace

Ipv4Cidr Ipv4Cidr::containing(quint32 address, int prefixLength)
{
    Ipv4Cidr c;
    c.m_prefixLength = std::clamp(prefixLength, 0, 32);
    c.m_network = address & maskOf(c.m_prefixLength);
    return c;
}

Result<quint32> Ipv4Cidr::parseAddress(QStringView text, const QString &where)
{
    const QStringView trimmed = text.trimmed();
    const auto octets = trimmed.split(u'.');
    quint32 address = 0;
    bool ok = octets.size() == 4;
    for (qsizetype i = 0; ok && i < octets.size(); ++i) {
        const auto octet = strictNumber(octets[i], 255);
        ok = octet.has_value();
        address = (address << 8) | octet.value_or(0);
    }
    if (!ok)
        return fail(Error::Kind::Invalid, where,
                    QStringLiteral("\"%1\" is not an IPv4 address (four numbers 0-255 separated by "
                                   "dots, without leading zeros)")
                        .arg(trimmed));
    return address;
}

Result<Ipv4Cidr> Ipv4Cidr::parse(QStringView text, const QString &where)
{
    const QStringView trimmed = text.trimmed();
    const qsizetype slash = trimmed.indexOf(u'/');
    auto address = parseAddress(slash < 0 ? trimmed : trimmed.left(slash), where);
    if (!address)
        return fail(Error::Kind::Invalid, where,
                    QStringLiteral("\"%1\" is not an IPv4 address with a prefix length, like "
                                   "100.64.0.0/10")
                        .arg(trimmed));
    const auto prefix = slash < 0 ? std::nullopt : strictNumber(trimmed.mid(slash + 1), 32);
    if (!prefix)
        return fail(Error::Kind::Invalid, where,
                    QStringLiteral("\"%1\" needs a prefix length 0-32 after a slash, like "
                                   "100.64.0.0/10")
                        .arg(trimmed));
    const Ipv4Cidr cidr = containing(*address, int(*prefix));
    if (cidr.m_network != *address)
        return fail(Error::Kind::Invalid, where,
                    QStringLiteral("\"%1\" has host bits set: did you mean %2?")
                        .arg(trimmed, cidr.toString()));
    return cidr;
}

QString Ipv4Cidr::addressToString(quint32 a)
{
    return QStringLiteral("%1.%2.%3.%4")
        .arg(a >> 24)
        .arg((a >> 16) & 0xff)
        .arg((a >> 8) & 0xff)
        .arg(a & 0xff);
}

quint32 Ipv4Cidr::last() const
{
    return m_network | ~maskOf(m_prefixLength);
}

bool Ipv4Cidr::contains(quint32 address) const
{
    return isValid() && (address & maskOf(m_prefixLength)) == m_network;
}

bool Ipv4Cidr::contains(const Ipv4Cidr &other) const
{
    return isValid() && other.isValid() && other.m_prefixLength >= m_prefixLength &&
           contains(other.m_network);
}

bool Ipv4Cidr::overlaps(const Ipv4Cidr &other) const
{
    // Two CIDR blocks overlap only when one contains the other.
    return contains(other) || other.contains(*this);
}

QString Ipv4Cidr::toString() const
{
    if (!isValid())
        return {};
    return addressToString(m_network) + u'/' + QString::number(m_prefixLength);
}

} // namespace ClusterDeck
