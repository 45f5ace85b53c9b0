#include "placement.h"
#include "common/bytesize.h"

#include <QSet>

#include <algorithm>
#include <limits>

namespace ClusterDeck {

namespace {

const QString kWhere = QStringLiteral("placement");

double cpusOf(const KernelSpec &k)
{
    return k.resources.cpus.value_or(0.0);
}

qint64 memOf(const KernelSpec &k)
{
    return std::max<qint64>(0, k.resources.memoryBytes.value_or(0));
}

// Memory requests add up without overflow: a sum past qint64 is the largest value, which fits
// nowhere (a wrapped sum would be negative and "fit").
qint64 addMemory(qint64 a, qint64 b)
{
    qint64 sum = 0;
    return __builtin_add_overflow(a, b, &sum) ? std::numeric_limits<qint64>::max() : sum;
}

QString formatCpus(double cpus)
{
    return QString::number(cpus, 'g', 4);
}

bool hasLabels(const HostCapacity &host, const QMap<QString, QString> &wanted)
{
    for (auto it = wanted.cbegin(); it != wanted.cend(); ++it) {
        if (host.labels.value(it.key()) != it.value())
            return false;
    }
    return true;
}

QString labelText(const QMap<QString, QString> &labels)
{
    QStringList parts;
    for (auto it = labels.cbegin(); it != labels.cend(); ++it)
        parts.append(it.key() + QLatin1Char('=') + it.value());
    return parts.join(QLatin1Char(','));
}

struct Load
{
    double cpus = 0;
    qint64 mem = 0;
    int kernels = 0;
};

// Why `need` does not fit on `host` given what is already planned there; empty when it fits.
QString shortfall(const HostCapacity &host, const Load &planned, double needCpus, qint64 needMem,
                  const QMap<QString, QString> &needLabels)
{
    if (!host.reachable)
        return QStringLiteral("unreachable");
    if (!hasLabels(host, needLabels))
        return QStringLiteral("lacks labels %1").arg(labelText(needLabels));
    QStringList missing;
    const double cpuFree = host.cpusFree() - planned.cpus;
    // Both are at least 0 and at most qint64's largest: the difference cannot overflow.
    const qint64 memFree = std::max<qint64>(0, host.memFree()) - planned.mem;
    if (needCpus > cpuFree + 1e-9)
        missing.append(
            QStringLiteral("%1 CPUs free, short by %2")
                .arg(formatCpus(std::max(0.0, cpuFree)), formatCpus(needCpus - cpuFree)));
    if (needMem > memFree)
        missing.append(QStringLiteral("%1 memory free, short by %2")
                           .arg(formatBytes(std::max<qint64>(0, memFree)),
                                formatBytes(memFree > 0 ? needMem - memFree : needMem)));
    return missing.join(QStringLiteral(", "));
}

Result<Placement> placeSingle(const ClusterPlan &plan, const QList<HostCapacity> &hosts,
                              PlacementStrategy strategy)
{
    double needCpus = 0;
    qint64 needMem = 0;
    QMap<QString, QString> needLabels;
    for (const KernelSpec &k : plan.kernels) {
        needCpus += cpusOf(k);
        needMem = addMemory(needMem, memOf(k));
        for (auto it = k.hostLabels.cbegin(); it != k.hostLabels.cend(); ++it) {
            if (needLabels.contains(it.key()) && needLabels.value(it.key()) != it.value()) {
                return fail(Error::Kind::Invalid, kWhere,
                            QStringLiteral("single-node is impossible: roles ask for host label %1 "
                                           "with different values (%2, %3)")
                                .arg(it.key(), needLabels.value(it.key()), it.value()));
            }
            needLabels.insert(it.key(), it.value());
        }
    }
    const HostCapacity *best = nullptr;
    QStringList reasons;
    for (const HostCapacity &h : hosts) {
        const QString why = shortfall(h, Load{}, needCpus, needMem, needLabels);
        if (!why.isEmpty()) {
            reasons.append(h.name + QStringLiteral(": ") + why);
            continue;
        }
        // Spread keeps the most headroom; pack fills the fullest host that still fits.
        if (!best || (strategy == PlacementStrategy::Spread ? h.cpusFree() > best->cpusFree()
                                                            : h.cpusFree() < best->cpusFree())) {
            best = &h;
        }
    }
    if (!best) {
        return fail(
            Error::Kind::Invalid, kWhere,
            QStringLiteral("the session (%1 kernels, %2 CPUs, %3) fits on no single host: %4")
                .arg(plan.kernels.size())
                .arg(formatCpus(needCpus), formatBytes(needMem),
                     hosts.isEmpty() ? QStringLiteral("no hosts registered")
                                     : reasons.join(QStringLiteral("; "))));
    }
    Placement p;
    p.mode = ClusterMode::SingleNode;
    for (const KernelSpec &k : plan.kernels)
        p.hostOf.insert(k.hostname, best->name);
    p.hostsUsed = {best->name};
    p.networkHost = best->name;
    return p;
}

Result<Placement> placeMulti(const ClusterPlan &plan, const QList<HostCapacity> &hosts,
                             PlacementStrategy strategy, NetworkDriver driver)
{
    const bool swarm = driver == NetworkDriver::Swarm;
    const QString cluster = swarm ? multiNodeSwarm(hosts) : QString();
    if (swarm && cluster.isEmpty()) {
        return fail(Error::Kind::Invalid, kWhere,
                    QStringLiteral("multi-node needs the hosts to be in one swarm, and none of the "
                                   "reachable hosts is in a swarm with a manager; run "
                                   "`clusterdeckctl network setup`"));
    }
    QList<const HostCapacity *> pool;
    QStringList outside;
    for (const HostCapacity &h : hosts) {
        if (h.reachable && (!swarm || (h.swarmActive && h.swarmClusterId == cluster)))
            pool.append(&h);
        else
            outside.append(h.name);
    }

    QMap<QString, Load> load;
    Placement p;
    p.mode = ClusterMode::MultiNode;
    p.driver = driver;
    for (const KernelSpec &k : plan.kernels) {
        const HostCapacity *chosen = nullptr;
        for (const HostCapacity *h : pool) {
            if (!shortfall(*h, load.value(h->name), cpusOf(k), memOf(k), k.hostLabels).isEmpty())
                continue;
            if (!chosen) {
                chosen = h;
                continue;
            }
            const Load &a = load[h->name];
            const Load &b = load[chosen->name];
            if (strategy == PlacementStrategy::Spread) {
                // Fewest kernels first, then most CPU left.
                const double freeA = h->cpusFree() - a.cpus;
                const double freeB = chosen->cpusFree() - b.cpus;
                if (a.kernels < b.kernels || (a.kernels == b.kernels && freeA > freeB + 1e-9))
                    chosen = h;
            } else {
                // Pack: keep filling a host that already has kernels, in host order.
                if (a.kernels > 0 && b.kernels == 0)
                    chosen = h;
            }
        }
        if (!chosen) {
            QStringList reasons;
            for (const HostCapacity *h : pool) {
                reasons.append(
                    h->name + QStringLiteral(": ") +
                    shortfall(*h, load.value(h->name), cpusOf(k), memOf(k), k.hostLabels));
            }
            if (!outside.isEmpty())
                reasons.append((swarm ? QStringLiteral("not in the swarm: %1")
                                      : QStringLiteral("unreachable: %1"))
                                   .arg(outside.join(QStringLiteral(", "))));
            int roleCount = 0;
            for (const RoleCount &rc : plan.roles) {
                if (rc.role == k.role)
                    roleCount = rc.count;
            }
            return fail(
                Error::Kind::Invalid, kWhere,
                QStringLiteral("role %1 does not fit (%2 of %3 kernels, each %4 CPUs, %5): %6")
                    .arg(k.role)
                    .arg(k.roleIdx)
                    .arg(roleCount)
                    .arg(formatCpus(cpusOf(k)), formatBytes(memOf(k)),
                         reasons.join(QStringLiteral("; "))));
        }
        Load &l = load[chosen->name];
        l.cpus += cpusOf(k);
        l.mem = addMemory(l.mem, memOf(k));
        ++l.kernels;
        p.hostOf.insert(k.hostname, chosen->name);
        if (!p.hostsUsed.contains(chosen->name))
            p.hostsUsed.append(chosen->name);
    }
    // VXLAN: a bridge network on every host of the session, no host apart.
    if (!swarm)
        return p;
    // The overlay is created on a manager, preferably one that runs kernels of the session.
    for (const HostCapacity *h : pool) {
        if (!h->swarmManager)
            continue;
        if (p.networkHost.isEmpty())
            p.networkHost = h->name;
        if (p.hostsUsed.contains(h->name)) {
            p.networkHost = h->name;
            break;
        }
    }
    return p;
}

} // namespace

QString multiNodeSwarm(const QList<HostCapacity> &hosts)
{
    // The swarm with the most reachable members that has a manager (ties: by id).
    QMap<QString, int> members;
    QMap<QString, bool> hasManager;
    for (const HostCapacity &h : hosts) {
        if (h.reachable && h.swarmActive && !h.swarmClusterId.isEmpty()) {
            ++members[h.swarmClusterId];
            hasManager[h.swarmClusterId] = hasManager.value(h.swarmClusterId) || h.swarmManager;
        }
    }
    QString cluster;
    for (auto it = members.cbegin(); it != members.cend(); ++it) {
        if (hasManager.value(it.key()) &&
            (cluster.isEmpty() || it.value() > members.value(cluster)))
            cluster = it.key();
    }
    return cluster;
}

Result<Placement> place(const ClusterPlan &plan, const QList<HostCapacity> &hosts,
                        PlacementStrategy strategy, NetworkDriver driver)
{
    if (plan.kernels.isEmpty())
        return fail(Error::Kind::Invalid, kWhere, QStringLiteral("the plan has no kernels"));
    // Stable host order so equal inputs always give equal placements.
    QList<HostCapacity> sorted = hosts;
    std::stable_sort(sorted.begin(), sorted.end(),
                     [](const HostCapacity &a, const HostCapacity &b) { return a.name < b.name; });
    auto placed = [&]() -> Result<Placement> {
        switch (plan.mode) {
        case ClusterMode::SingleNode:
            return placeSingle(plan, sorted, strategy);
        case ClusterMode::MultiNode:
            return placeMulti(plan, sorted, strategy, driver);
        case ClusterMode::Auto:
            if (auto single = placeSingle(plan, sorted, strategy))
                return single;
            if (auto multi = placeMulti(plan, sorted, strategy, driver))
                return multi;
            else
                return fail(multi.error().withContext(
                    QStringLiteral("fits on no single host, and as multi-node")));
        }
        return fail(Error::Kind::Invalid, kWhere, QStringLiteral("unknown cluster mode"));
    }();
    if (!placed)
        return placed;
    // Say why each host without a kernel has none, so a preview explains a host left out.
    QString cluster;
    for (const HostCapacity &h : sorted) {
        if (h.name == placed->networkHost || placed->hostsUsed.contains(h.name))
            cluster = cluster.isEmpty() ? h.swarmClusterId : cluster;
    }
    for (const HostCapacity &h : sorted) {
        if (placed->hostsUsed.contains(h.name))
            continue;
        QString why;
        if (!h.reachable)
            why = h.unreachableWhy.isEmpty()
                      ? QStringLiteral("unreachable")
                      : QStringLiteral("unreachable (%1)").arg(h.unreachableWhy);
        else if (placed->mode == ClusterMode::MultiNode && driver == NetworkDriver::Swarm &&
                 (!h.swarmActive || h.swarmClusterId != cluster))
            why = QStringLiteral("not in the session's swarm");
        else if (const KernelSpec &k = plan.kernels.first();
                 !shortfall(h, Load{}, cpusOf(k), memOf(k), k.hostLabels).isEmpty())
            why = shortfall(h, Load{}, cpusOf(k), memOf(k), k.hostLabels);
        else if (placed->mode == ClusterMode::SingleNode)
            why = QStringLiteral("single-node: the session runs on %1").arg(placed->networkHost);
        else
            why = QStringLiteral("not needed (the %1 strategy used the other hosts)")
                      .arg(toString(strategy));
        placed->unused.insert(h.name, why);
    }
    return placed;
}

QString toString(PlacementStrategy strategy)
{
    return strategy == PlacementStrategy::Pack ? QStringLiteral("pack") : QStringLiteral("spread");
}

std::optional<PlacementStrategy> placementStrategyFromString(const QString &text)
{
    if (text == QLatin1String("spread"))
        return PlacementStrategy::Spread;
    if (text == QLatin1String("pack"))
        return PlacementStrategy::Pack;
    return std::nullopt;
}

} // namespace ClusterDeck
