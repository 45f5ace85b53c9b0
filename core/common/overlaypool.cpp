#include "overlaypool.h"

#include <algorithm>

namespace ClusterDeck {

namespace {

const QString &poolWhere()
{
    static const QString where = QStringLiteral("network pool");
    return where;
}

// Ranges a pool of session networks must not touch, and why (RFC 6890).
struct Special
{
    const char *cidr;
    const char *what;
};
constexpr Special kSpecial[] = {
    {"0.0.0.0/8", "reserved (\"this network\")"},
    {"127.0.0.0/8", "loopback"},
    {"169.254.0.0/16", "link-local"},
    {"224.0.0.0/4", "multicast"},
    {"240.0.0.0/4", "reserved"},
};

} // namespace

void OverlayAvoid::add(const OverlayAvoid &other)
{
    for (const Ipv4Cidr &s : other.subnets)
        if (!subnets.contains(s))
            subnets.append(s);
    vnis.unite(other.vnis);
}

bool OverlayAvoid::avoids(const Ipv4Cidr &subnet) const
{
    return std::any_of(subnets.cbegin(), subnets.cend(),
                       [&](const Ipv4Cidr &s) { return s.overlaps(subnet); });
}

OverlayPool OverlayPool::defaults()
{
    OverlayPool pool;
    pool.m_range = *Ipv4Cidr::parse(QString::fromLatin1(kDefaultSubnets));
    pool.m_firstVni = kDefaultFirstVni;
    pool.m_lastVni = kMaxVni;
    return pool;
}

Result<OverlayPool> OverlayPool::make(const Ipv4Cidr &range, quint32 firstVni, quint32 lastVni)
{
    if (!range.isValid())
        return fail(Error::Kind::Invalid, poolWhere(), QStringLiteral("the pool has no subnets"));
    if (range.prefixLength() > kSubnetPrefixLength)
        return fail(Error::Kind::Invalid, poolWhere(),
                    QStringLiteral("%1 is too small: the pool must hold at least one /24 (a prefix "
                                   "length of 24 or less)")
                        .arg(range.toString()));
    for (const Special &s : kSpecial) {
        const Ipv4Cidr special = *Ipv4Cidr::parse(QString::fromLatin1(s.cidr));
        if (range.overlaps(special))
            return fail(Error::Kind::Invalid, poolWhere(),
                        QStringLiteral("%1 overlaps %2, which is %3; choose private or shared "
                                       "address space (the default is %4)")
                            .arg(range.toString(), special.toString(), QLatin1StringView(s.what),
                                 QLatin1StringView(kDefaultSubnets)));
    }
    if (firstVni < 1 || lastVni > kMaxVni)
        return fail(Error::Kind::Invalid, poolWhere(),
                    QStringLiteral("VXLAN ids are 1-16777215; %1-%2 is outside")
                        .arg(firstVni)
                        .arg(lastVni));
    if (firstVni > lastVni)
        return fail(Error::Kind::Invalid, poolWhere(),
                    QStringLiteral("the VNI range %1-%2 must name its first id first")
                        .arg(firstVni)
                        .arg(lastVni));
    OverlayPool pool;
    pool.m_range = range;
    pool.m_firstVni = firstVni;
    pool.m_lastVni = lastVni;
    return pool;
}

Result<OverlayPool> OverlayPool::parse(const QString &subnets, const QString &vnis)
{
    const OverlayPool fallback = defaults();
    Ipv4Cidr range = fallback.m_range;
    if (!subnets.trimmed().isEmpty()) {
        auto parsed = Ipv4Cidr::parse(subnets, poolWhere());
        if (!parsed)
            return fail(parsed.error());
        range = *parsed;
    }
    quint32 first = fallback.m_firstVni;
    quint32 last = fallback.m_lastVni;
    if (!vnis.trimmed().isEmpty()) {
        const QStringList parts = vnis.split(u'-');
        bool ok = parts.size() <= 2;
        qulonglong numbers[2] = {0, 0};
        for (qsizetype i = 0; ok && i < parts.size(); ++i) {
            const QString part = parts[i].trimmed();
            ok = !part.isEmpty() && part.front().isDigit(); // no sign, no blank
            if (ok)
                numbers[i] = part.toULongLong(&ok);
        }
        if (!ok)
            return fail(Error::Kind::Invalid, poolWhere(),
                        QStringLiteral("\"%1\" is not a VNI range (like 1048576-16777215, or one "
                                       "id)")
                            .arg(vnis.trimmed()));
        first = quint32(std::min<qulonglong>(numbers[0], quint64(kMaxVni) + 1));
        last = parts.size() == 2 ? quint32(std::min<qulonglong>(numbers[1], quint64(kMaxVni) + 1))
                                 : first;
    }
    return make(range, first, last);
}

quint32 OverlayPool::subnetCount() const
{
    if (!m_range.isValid() || m_range.prefixLength() > kSubnetPrefixLength)
        return 0;
    return quint32(1) << (kSubnetPrefixLength - m_range.prefixLength());
}

bool OverlayPool::containsSubnet(const Ipv4Cidr &subnet) const
{
    return subnet.prefixLength() == kSubnetPrefixLength && m_range.contains(subnet);
}

Result<Ipv4Cidr> OverlayPool::nextFreeSubnet(const QList<Ipv4Cidr> &taken) const
{
    // The taken ranges that touch the pool, in address order; the candidate /24 moves past each
    // one it overlaps, so this is linear in what is taken, not in the size of the pool.
    QList<std::pair<quint64, quint64>> blocked;
    for (const Ipv4Cidr &t : taken) {
        if (t.isValid() && t.overlaps(m_range))
            blocked.append({t.network(), t.last()});
    }
    std::sort(blocked.begin(), blocked.end());
    const quint64 end = quint64(m_range.last()) + 1;
    const quint64 step = quint64(1) << (32 - kSubnetPrefixLength);
    quint64 candidate = m_range.network();
    for (const auto &[first, last] : std::as_const(blocked)) {
        if (candidate >= end)
            break;
        if (last < candidate)
            continue;
        if (first > candidate + step - 1)
            break; // a gap before this range: the candidate is free
        candidate = (last / step + 1) * step;
    }
    if (candidate >= end)
        return fail(Error::Kind::Conflict, poolWhere() + u' ' + m_range.toString(),
                    QStringLiteral("no free /24 is left: all %1 are claimed by sessions of this "
                                   "store or in use on the hosts; remove ended sessions or "
                                   "configure a wider pool")
                        .arg(subnetCount()));
    return Ipv4Cidr::containing(quint32(candidate), kSubnetPrefixLength);
}

Result<quint32> OverlayPool::nextFreeVni(const QSet<quint32> &taken) const
{
    // At most taken.size() + 1 steps before a free one, whatever the size of the range.
    for (quint64 vni = m_firstVni; vni <= m_lastVni; ++vni) {
        if (!taken.contains(quint32(vni)))
            return quint32(vni);
    }
    return fail(Error::Kind::Conflict,
                poolWhere() + QStringLiteral(" VNIs %1-%2").arg(m_firstVni).arg(m_lastVni),
                QStringLiteral("no free VXLAN id is left: all %1 are claimed by sessions of this "
                               "store or in use on the hosts; remove ended sessions or configure "
                               "a wider range")
                    .arg(vniCount()));
}

QString OverlayPool::toString() const
{
    return QStringLiteral("%1, VNIs %2-%3").arg(m_range.toString()).arg(m_firstVni).arg(m_lastVni);
}

} // namespace ClusterDeck
