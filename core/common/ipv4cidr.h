#pragma once

#include "error.h"

#include <QString>

#include <compare>

namespace ClusterDeck {

// An IPv4 network in CIDR notation ("100.64.5.0/24"): the network address (host order, host bits
// zero) and the prefix length. A plain value; the default one is invalid (prefix length -1).
class Ipv4Cidr
{
public:
    Ipv4Cidr() = default;
    // The network of `address`/`prefixLength`, host bits cleared.
    static Ipv4Cidr containing(quint32 address, int prefixLength);
    // Strict: four decimal octets without leading zeros (inet_aton would read "010" as octal),
    // a prefix length 0-32, and no host bits set ("100.64.1.0/10" names no network: an error
    // that says which one was meant). `where` names the setting or source in the error.
    static Result<Ipv4Cidr> parse(QStringView text, const QString &where = {});
    // "100.64.5.7" as a number in host order.
    static Result<quint32> parseAddress(QStringView text, const QString &where = {});
    static QString addressToString(quint32 address);

    bool isValid() const { return m_prefixLength >= 0; }
    quint32 network() const { return m_network; }
    int prefixLength() const { return m_prefixLength; }
    quint32 last() const; // the broadcast address
    quint64 addressCount() const { return isValid() ? quint64(1) << (32 - m_prefixLength) : 0; }
    // The n-th address of the network (1: the usual gateway); no bounds check.
    quint32 address(quint32 n) const { return m_network + n; }
    bool contains(quint32 address) const;
    bool contains(const Ipv4Cidr &other) const;
    bool overlaps(const Ipv4Cidr &other) const;
    QString toString() const; // "" when invalid

    friend bool operator==(const Ipv4Cidr &, const Ipv4Cidr &) = default;
    friend auto operator<=>(const Ipv4Cidr &, const Ipv4Cidr &) = default;

private:
    quint32 m_network = 0;
    int m_prefixLength = -1;
};

} // namespace ClusterDeck
