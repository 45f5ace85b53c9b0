#include "scaleplanner.h"

#include "common/labels.h"
#include "composelabels.h"
#include "presets.h"
#include "template/templatevalues.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QUuid>

namespace ClusterDeck {

namespace {

QString envRoleName(const QString &role)
{
    return role.toUpper().replace(QLatin1Char('-'), QLatin1Char('_'));
}

// BACKEND_* values that describe the whole session, as they are now: what a kernel started now
// is given (kernels started earlier keep their launch-time values).
void setSessionEnv(KernelSpec &k, const ClusterPlan &plan)
{
    QStringList all, replicas;
    for (const RoleCount &rc : plan.roles) {
        QStringList roleHosts;
        for (const KernelSpec &o : plan.kernels) {
            if (o.role == rc.role)
                roleHosts.append(o.hostname);
        }
        replicas.append(rc.role + QLatin1Char(':') + QString::number(rc.count));
        k.env.insert(QStringLiteral("BACKEND_CLUSTER_%1_HOSTS").arg(envRoleName(rc.role)),
                     roleHosts.join(QLatin1Char(',')));
    }
    for (const KernelSpec &o : plan.kernels)
        all.append(o.hostname);
    k.env.insert(QStringLiteral("BACKEND_CLUSTER_HOSTS"), all.join(QLatin1Char(',')));
    k.env.insert(QStringLiteral("BACKEND_CLUSTER_SIZE"), QString::number(plan.kernels.size()));
    k.env.insert(QStringLiteral("BACKEND_CLUSTER_REPLICAS"), replicas.join(QLatin1Char(',')));
    if (k.env.contains(QStringLiteral("WORLD_SIZE"))) // pytorch preset
        k.env.insert(QStringLiteral("WORLD_SIZE"), QString::number(plan.kernels.size()));
    if (k.env.contains(QStringLiteral("TF_CONFIG"))) {
        const QJsonObject old =
            QJsonDocument::fromJson(k.env.value(QStringLiteral("TF_CONFIG")).toUtf8()).object();
        QJsonObject cluster;
        for (const RoleCount &rc : plan.roles) {
            QJsonArray addresses;
            for (const KernelSpec &o : plan.kernels) {
                if (o.role != rc.role)
                    continue;
                int port = Presets::kTensorFlowPort;
                for (const ServicePort &p : o.ports) {
                    if (p.name == QLatin1String("tf"))
                        port = p.port;
                }
                addresses.append(QString(o.hostname + QLatin1Char(':') + QString::number(port)));
            }
            cluster.insert(rc.role, addresses);
        }
        const QJsonObject task{{QStringLiteral("type"), k.role},
                               {QStringLiteral("index"), k.roleIdx - 1}};
        QJsonObject config = old;
        config.insert(QStringLiteral("cluster"), cluster);
        config.insert(QStringLiteral("task"), task);
        k.env.insert(QStringLiteral("TF_CONFIG"),
                     QString::fromUtf8(QJsonDocument(config).toJson(QJsonDocument::Compact)));
    }
}

KernelSpec newKernelFrom(const KernelSpec &base, const QString &sessionId, int idx, int rank)
{
    KernelSpec k = base;
    const QUuid sessionUuid = QUuid::fromString(sessionId);
    k.hostname = TemplateValues::hostname(base.role, idx);
    k.kernelId = QUuid::createUuidV5(sessionUuid, k.hostname).toString(QUuid::WithoutBraces);
    k.containerName = QStringLiteral("cd-%1-%2").arg(sessionId.left(8), k.hostname);
    k.roleIdx = idx;
    k.localRank = rank;
    k.primary = false;
    // A bare image id ("sha256:…") is one host's: the new kernel may land on another host, so it
    // pins its own when it is made. A repository digest ("name@sha256:…") holds everywhere.
    if (!k.imageDigest.contains(QLatin1Char('@')))
        k.imageDigest.clear();
    k.env.insert(QStringLiteral("BACKEND_KERNEL_ID"), k.kernelId);
    k.env.insert(QStringLiteral("BACKEND_CLUSTER_ROLE_IDX"), QString::number(idx));
    k.env.insert(QStringLiteral("BACKEND_CLUSTER_LOCAL_RANK"), QString::number(rank));
    k.env.insert(QStringLiteral("BACKEND_CLUSTER_HOST"), k.hostname);
    if (k.env.contains(QStringLiteral("RANK")))
        k.env.insert(QStringLiteral("RANK"), QString::number(rank));
    if (k.env.contains(QStringLiteral("NODE_RANK")))
        k.env.insert(QStringLiteral("NODE_RANK"), QString::number(rank));
    k.labels.insert(Labels::kernel(), k.kernelId);
    k.labels.insert(Labels::roleIdx(), QString::number(idx));
    k.labels.insert(Labels::hostname(), k.hostname);
    return k;
}

} // namespace

Result<ScalePlan> planScale(const ClusterPlan &current, const QMap<QString, int> &counts)
{
    const QString where = QStringLiteral("scale %1").arg(current.sessionName);
    QStringList roleNames;
    for (const RoleCount &rc : current.roles)
        roleNames.append(rc.role);
    for (auto it = counts.cbegin(); it != counts.cend(); ++it) {
        const auto rc = std::find_if(current.roles.cbegin(), current.roles.cend(),
                                     [&](const RoleCount &r) { return r.role == it.key(); });
        if (rc == current.roles.cend())
            return fail(
                Error::Kind::Invalid, where,
                QStringLiteral("session %1 has no role '%2' (roles: %3)")
                    .arg(current.sessionName, it.key(), roleNames.join(QStringLiteral(", "))));
        if (rc->min < 0 || rc->max < 0)
            return fail(Error::Kind::Invalid, where,
                        QStringLiteral("the bounds of role %1 are unknown").arg(rc->role));
        if (it.value() < rc->min || it.value() > rc->max)
            return fail(Error::Kind::Invalid, where,
                        QStringLiteral("%1=%2 is outside %3-%4 (the template's min and max for "
                                       "role %1); nothing changed")
                            .arg(rc->role)
                            .arg(it.value())
                            .arg(rc->min)
                            .arg(rc->max));
    }

    ScalePlan out;
    out.plan = current;
    ClusterPlan &plan = out.plan;

    // Shrink: highest index first; the primary stays whatever is asked.
    for (RoleCount &rc : plan.roles) {
        if (!counts.contains(rc.role) || counts.value(rc.role) >= rc.count)
            continue;
        QList<const KernelSpec *> ofRole = plan.kernelsOf(rc.role);
        std::sort(ofRole.begin(), ofRole.end(),
                  [](const KernelSpec *a, const KernelSpec *b) { return a->roleIdx > b->roleIdx; });
        const int drop = rc.count - counts.value(rc.role);
        QStringList going;
        for (const KernelSpec *k : std::as_const(ofRole)) {
            if (going.size() == drop)
                break;
            if (k->primary)
                return fail(Error::Kind::Invalid, where,
                            QStringLiteral("%1=%2 would remove the primary kernel %3, which never "
                                           "goes; nothing changed")
                                .arg(rc.role)
                                .arg(counts.value(rc.role))
                                .arg(k->hostname));
            going.append(k->hostname);
        }
        rc.lastIdx = rc.highestIdx();
        rc.count -= int(going.size());
        out.removed += going;
    }
    plan.kernels.removeIf([&](const KernelSpec &k) { return out.removed.contains(k.hostname); });

    // Grow: next indices, next ranks, in template role order.
    int nextRank = 0;
    for (const KernelSpec &k : std::as_const(plan.kernels))
        nextRank = std::max(nextRank, k.localRank + 1);
    QList<KernelSpec> fresh;
    for (RoleCount &rc : plan.roles) {
        if (!counts.contains(rc.role) || counts.value(rc.role) <= rc.count)
            continue;
        const KernelSpec *base = nullptr;
        for (const KernelSpec &k : std::as_const(plan.kernels)) {
            if (k.role == rc.role && (!base || k.roleIdx > base->roleIdx))
                base = &k;
        }
        if (!base)
            return fail(Error::Kind::Invalid, where,
                        QStringLiteral("role %1 has no kernel left to copy; scaling a role up from "
                                       "0 is not supported")
                            .arg(rc.role));
        const int add = counts.value(rc.role) - rc.count;
        int idx = rc.highestIdx();
        for (int i = 0; i < add; ++i) {
            fresh.append(newKernelFrom(*base, plan.sessionId, ++idx, nextRank++));
            out.added.append(fresh.last().hostname);
        }
        rc.count += add;
        rc.lastIdx = idx;
    }
    plan.kernels += fresh;
    const QString project = ComposeLabels::projectName(plan.sessionName, plan.sessionId);
    for (KernelSpec &k : plan.kernels) {
        if (out.added.contains(k.hostname)) {
            setSessionEnv(k, plan);
            ComposeLabels::apply(k, project);
        }
    }
    Presets::refreshMembership(plan);
    return out;
}

} // namespace ClusterDeck
