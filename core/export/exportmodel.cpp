#include "exportmodel.h"

#include "plan/clusterplan.h"
#include "plan/planresolver.h"

#include <QRegularExpression>

namespace ClusterDeck {

namespace {

// The role's task as resolvePlan would see it (lowest first): task, cluster-wide env and
// mounts, role overrides (env by name, ports by name, resources field by field).
TaskTemplate mergedTask(const ClusterTemplate &t, const RoleTemplate &role)
{
    TaskTemplate task = role.task;
    for (auto it = t.env.cbegin(); it != t.env.cend(); ++it)
        task.env.insert(it.key(), it.value());
    for (const Mount &m : t.mounts) {
        bool replaced = false;
        for (Mount &own : task.mounts) {
            if (own.target == m.target) {
                own = m;
                replaced = true;
            }
        }
        if (!replaced)
            task.mounts.append(m);
    }
    const RoleOverrides &o = role.overrides;
    for (auto it = o.env.cbegin(); it != o.env.cend(); ++it)
        task.env.insert(it.key(), it.value());
    for (const ServicePort &p : o.ports) {
        bool replaced = false;
        for (ServicePort &own : task.ports) {
            if (own.name == p.name) {
                own = p;
                replaced = true;
            }
        }
        if (!replaced)
            task.ports.append(p);
    }
    if (o.resources.cpus)
        task.resources.cpus = o.resources.cpus;
    if (o.resources.memoryBytes)
        task.resources.memoryBytes = o.resources.memoryBytes;
    if (o.resources.gpus)
        task.resources.gpus = o.resources.gpus;
    return task;
}

} // namespace

Result<ExportModel> ExportModel::build(const ClusterTemplate &t, const QMap<QString, int> &counts)
{
    if (t.roles.isEmpty())
        return fail(Error::Kind::Invalid, t.name, QStringLiteral("the template has no roles"));
    QStringList roleNames;
    for (const RoleTemplate &r : t.roles)
        roleNames.append(r.name);
    for (auto it = counts.cbegin(); it != counts.cend(); ++it) {
        const RoleTemplate *role = t.role(it.key());
        if (!role)
            return fail(Error::Kind::Invalid,
                        QStringLiteral("--count %1=%2").arg(it.key()).arg(it.value()),
                        QStringLiteral("template '%1' has no role '%2' (its roles: %3)")
                            .arg(t.name, it.key(), roleNames.join(QStringLiteral(", "))));
        if (it.value() < role->min || it.value() > role->max)
            return fail(Error::Kind::Invalid,
                        QStringLiteral("--count %1=%2").arg(it.key()).arg(it.value()),
                        QStringLiteral("role '%1' takes %2 to %3 kernels")
                            .arg(it.key())
                            .arg(role->min)
                            .arg(role->max));
    }
    ExportModel model;
    model.m_template = t;
    int rank = 0;
    for (const RoleTemplate &r : t.roles) {
        ExportedRole role;
        role.name = r.name;
        role.count = counts.value(r.name, r.count);
        role.firstRank = rank;
        role.task = mergedTask(t, r);
        rank += role.count;
        model.m_roles.append(role);
    }
    model.m_size = rank;
    model.m_sourceName = QStringLiteral("template '%1'").arg(t.name);
    return model;
}

Result<ExportModel> ExportModel::fromPlan(const ClusterPlan &plan)
{
    ClusterTemplate t;
    t.name = plan.templateName;
    t.mtu = plan.mtu;
    t.failurePolicy = plan.failurePolicy;
    t.successPolicy = plan.successPolicy;
    t.ttlAfterFinishedSeconds = plan.ttlAfterFinishedSeconds;
    t.startupOrder = plan.startupOrder;
    t.allowHostPaths = plan.allowHostPaths;
    QStringList warnings;
    for (const RoleCount &rc : plan.roles) {
        const QList<const KernelSpec *> kernels = plan.kernelsOf(rc.role);
        if (kernels.isEmpty())
            continue;
        const KernelSpec &k = *kernels.first();
        RoleTemplate r;
        r.name = rc.role;
        r.count = int(kernels.size());
        r.min = std::min(rc.min > 0 ? rc.min : 1, r.count);
        r.max = std::max(rc.max, r.count);
        r.hostLabels = k.hostLabels;
        TaskTemplate &task = r.task;
        task.image = k.imageDigest.contains(QLatin1Char('@')) ? k.imageDigest : k.image;
        if (k.pullPolicy != PullPolicy::IfNotPresent)
            task.pullPolicy = k.pullPolicy;
        task.entrypoint = k.entrypoint;
        task.command = k.command;
        if (const PlannedFile *bootstrap = k.file(QLatin1String(PlanPaths::kBootstrapScript))) {
            task.bootstrap = QString::fromUtf8(bootstrap->content);
            // The plan runs it through /etc/cluster/run.sh with entrypoint + command as its
            // arguments; the exports run it their own way before the same arguments.
            if (task.entrypoint ==
                QStringList{QStringLiteral("/bin/sh"), QLatin1String(PlanPaths::kBootstrapRunner)})
                task.entrypoint.clear();
        }
        task.workingDir = k.workingDir;
        task.user = k.user;
        for (auto it = k.env.cbegin(); it != k.env.cend(); ++it) {
            if (!it.key().startsWith(QLatin1String("BACKEND_")))
                task.env.insert(it.key(), it.value());
        }
        task.ports = k.ports;
        task.bindAddress = k.bindAddress;
        task.resources = k.resources;
        task.mounts = k.mounts;

        QStringList differing;
        QStringList names;
        for (int i = 0; i < kernels.size(); ++i) {
            names.append(kernels.at(i)->hostname);
            for (auto it = kernels.at(i)->env.cbegin(); it != kernels.at(i)->env.cend(); ++it) {
                if (!it.key().startsWith(QLatin1String("BACKEND_")) &&
                    task.env.value(it.key()) != it.value() && !differing.contains(it.key()))
                    differing.append(it.key());
            }
        }
        if (!differing.isEmpty())
            warnings.append(QStringLiteral("role %1: %2 differ between its kernels (per-kernel "
                                           "values of a preset): exported with %3's values")
                                .arg(r.name, differing.join(QStringLiteral(", ")), k.hostname));
        QStringList expected;
        for (int i = 1; i <= r.count; ++i)
            expected.append(r.name + QString::number(i));
        if (names != expected)
            warnings.append(
                QStringLiteral("role %1: the session's kernels %2 (indices after a "
                               "scale) are exported as %3")
                    .arg(r.name, names.join(QLatin1Char(',')), expected.join(QLatin1Char(','))));
        t.roles.append(r);
    }
    if (!plan.presets.isEmpty())
        warnings.append(QStringLiteral("the files of the presets (%1: the MPI hostfile, SSH keys) "
                                       "are not exported; their variables are, as the session "
                                       "has them")
                            .arg(plan.presets.join(QStringLiteral(", "))));
    auto model = build(t, {});
    if (!model)
        return model;
    model->m_sourceWarnings = warnings;
    model->m_sourceName =
        QStringLiteral("session '%1' (template '%2')").arg(plan.sessionName, plan.templateName);
    return model;
}

QString ExportModel::replicas() const
{
    QStringList pairs;
    for (const ExportedRole &r : m_roles)
        pairs.append(r.name + QLatin1Char(':') + QString::number(r.count));
    return pairs.join(QLatin1Char(','));
}

QString ExportModel::roleHostsVariable(const QString &role)
{
    QString upper = role.toUpper();
    upper.replace(QLatin1Char('-'), QLatin1Char('_'));
    return QStringLiteral("BACKEND_CLUSTER_%1_HOSTS").arg(upper);
}

QStringList ExportModel::shortNameReferences() const
{
    QStringList alternatives;
    for (const ExportedRole &r : m_roles)
        alternatives.append(QRegularExpression::escape(r.name));
    // A role name and an index, not inside a longer name ("xmaster1", "master1a", "master1.x"
    // would be another host; "master1:8080", "//master1/" and "$h master1" are the kernel).
    const QRegularExpression shortName(
        QStringLiteral("(?<![A-Za-z0-9_.-])(?:%1)[1-9][0-9]*(?![A-Za-z0-9_-]|\\.[A-Za-z0-9])")
            .arg(alternatives.join(QLatin1Char('|'))));
    QStringList found;
    for (const ExportedRole &r : m_roles) {
        QList<std::pair<QString, QString>> texts{
            {QStringLiteral("entrypoint"), r.task.entrypoint.join(QLatin1Char(' '))},
            {QStringLiteral("command"), r.task.command.join(QLatin1Char(' '))},
            {QStringLiteral("bootstrap"), r.task.bootstrap}};
        for (auto it = r.task.env.cbegin(); it != r.task.env.cend(); ++it)
            texts.append({QStringLiteral("env %1").arg(it.key()), it.value()});
        for (const auto &[what, text] : std::as_const(texts)) {
            QStringList names;
            for (auto m = shortName.globalMatch(text); m.hasNext();) {
                const QString name = m.next().captured(0);
                if (!names.contains(name))
                    names.append(name);
            }
            if (!names.isEmpty())
                found.append(QStringLiteral("role %1: %2 names %3")
                                 .arg(r.name, what, names.join(QStringLiteral(", "))));
        }
    }
    return found;
}

QString ExportModel::bootstrapWarning(const ExportedRole &role)
{
    if (!role.task.bootstrap.startsWith(QLatin1String("#!")))
        return {};
    const QString line = role.task.bootstrap.section(QLatin1Char('\n'), 0, 0);
    static const QRegularExpression shell(
        QStringLiteral("^#!\\s*(/usr)?/bin/(env\\s+)?(sh|bash|dash|ash)(\\s|$)"));
    if (shell.match(line).hasMatch())
        return {};
    return QStringLiteral("role %1: the bootstrap script runs with /bin/sh -e, not with its "
                          "'%2' line")
        .arg(role.name, line);
}

QString ExportModel::commentBlock(const QStringList &lines)
{
    QString out;
    for (const QString &line : lines) {
        for (const QString &part : line.split(QLatin1Char('\n')))
            out += (part.isEmpty() ? QStringLiteral("#") : QStringLiteral("# ") + part) +
                   QLatin1Char('\n');
    }
    return out;
}

} // namespace ClusterDeck
