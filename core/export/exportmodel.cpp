#include "exportmodel.h"

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
