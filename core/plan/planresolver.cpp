#include "planresolver.h"

#include "common/labels.h"
#include "common/logging.h"
#include "composelabels.h"
#include "planvalidator.h"
#include "presets.h"
#include "template/templatevalues.h"

#include <QUuid>

namespace ClusterDeck {

namespace {

using namespace TemplateValues;

// The one place precedence is decided: later levels replace earlier ones key by key.
QMap<QString, QString> layered(std::initializer_list<const QMap<QString, QString> *> levels)
{
    QMap<QString, QString> result;
    for (const QMap<QString, QString> *level : levels)
        result.insert(*level);
    return result;
}

QString envRoleName(const QString &role)
{
    return role.toUpper().replace(QLatin1Char('-'), QLatin1Char('_'));
}

QString bootstrapRunner()
{
    return QStringLiteral(
               "#!/bin/sh\n"
               "# Written by ClusterDeck: runs the template's bootstrap script, then the\n"
               "# kernel's own command (passed as arguments, never spliced into a string).\n"
               "set -e\n"
               "%1\n"
               "exec \"$@\"\n")
        .arg(QLatin1String(PlanPaths::kBootstrapScript));
}

Result<void> checkOptions(const ClusterTemplate &t, const LaunchOptions &opts)
{
    QStringList roleNames;
    for (const RoleTemplate &r : t.roles)
        roleNames.append(r.name);
    for (auto it = opts.counts.cbegin(); it != opts.counts.cend(); ++it) {
        const RoleTemplate *role = t.role(it.key());
        if (!role) {
            QString msg = QStringLiteral("template '%1' has no role '%2' (roles: %3)")
                              .arg(t.name, it.key(), roleNames.join(QStringLiteral(", ")));
            const QString suggestion = closestMatch(it.key(), roleNames);
            if (!suggestion.isEmpty())
                msg += QStringLiteral("; did you mean '%1'?").arg(suggestion);
            return fail(Error::Kind::Invalid, QStringLiteral("--count %1").arg(it.key()), msg);
        }
        if (it.value() < role->min || it.value() > role->max)
            return fail(Error::Kind::Invalid, QStringLiteral("--count %1").arg(it.key()),
                        QStringLiteral("count %1 is outside %2-%3 for role %4")
                            .arg(it.value())
                            .arg(role->min)
                            .arg(role->max)
                            .arg(role->name));
    }
    for (auto it = opts.env.cbegin(); it != opts.env.cend(); ++it) {
        if (!isValidEnvName(it.key()))
            return fail(Error::Kind::Invalid, QStringLiteral("--env %1").arg(it.key()),
                        QStringLiteral("'%1' is not a valid variable name").arg(it.key()));
    }
    for (const Mount &m : opts.mounts) {
        QString problem = checkMount(m);
        if (const QString hostPath = hostPathOf(m);
            problem.isEmpty() && !hostPath.isEmpty() && !t.allowHostPaths)
            problem = hostPathRefusal(hostPath, t.name);
        if (!problem.isEmpty())
            return fail(Error::Kind::Invalid,
                        QStringLiteral("--mount %1:%2").arg(m.source, m.target), problem);
    }
    if (!opts.sessionId.isEmpty() && QUuid::fromString(opts.sessionId).isNull())
        return fail(Error::Kind::Invalid, QStringLiteral("session id"),
                    QStringLiteral("'%1' is not a UUID").arg(opts.sessionId));
    if (t.roles.isEmpty())
        return fail(Error::Kind::Invalid, t.name, QStringLiteral("the template has no roles"));
    return {};
}

} // namespace

Result<ClusterPlan> resolvePlan(const ClusterTemplate &t, const LaunchOptions &opts,
                                const ImageDefaultsMap &images)
{
    if (auto ok = checkOptions(t, opts); !ok)
        return fail(ok.error());

    const QUuid sessionUuid =
        opts.sessionId.isEmpty() ? QUuid() : QUuid::fromString(opts.sessionId);
    const QString sessionId = sessionUuid.toString(QUuid::WithoutBraces);
    const QString shortId = sessionId.left(8);

    ClusterPlan plan;
    plan.sessionId = sessionId;
    plan.templateName = t.name;
    plan.sessionName = opts.name.isEmpty() ? t.name + QLatin1Char('-') + shortId : opts.name;
    plan.networkName = QStringLiteral("cd-") + shortId;
    plan.mode = opts.mode.value_or(t.mode);
    plan.mtu = t.mtu;
    plan.failurePolicy = t.failurePolicy;
    plan.successPolicy = t.successPolicy;
    plan.ttlAfterFinishedSeconds = t.ttlAfterFinishedSeconds;
    plan.startupOrder = t.startupOrder;
    plan.presets = Presets::effective(t.presets);
    plan.allowHostPaths = t.allowHostPaths;

    int total = 0;
    for (const RoleTemplate &r : t.roles) {
        plan.roles.append({r.name, opts.counts.value(r.name, r.count), r.min, r.max, 0});
        total += plan.roles.last().count;
    }

    // Session-wide BACKEND_* values, the same in every kernel.
    QStringList allHosts, replicas;
    QMap<QString, QString> sessionEnv;
    for (const RoleCount &rc : std::as_const(plan.roles)) {
        QStringList roleHosts;
        for (int idx = 1; idx <= rc.count; ++idx)
            roleHosts.append(hostname(rc.role, idx));
        allHosts += roleHosts;
        replicas.append(rc.role + QLatin1Char(':') + QString::number(rc.count));
        sessionEnv.insert(QStringLiteral("BACKEND_CLUSTER_%1_HOSTS").arg(envRoleName(rc.role)),
                          roleHosts.join(QLatin1Char(',')));
    }
    // `auto` is decided by placement; until then a one-kernel session is single-node.
    const ClusterMode envMode =
        plan.mode != ClusterMode::Auto
            ? plan.mode
            : (total == 1 ? ClusterMode::SingleNode : ClusterMode::MultiNode);
    sessionEnv.insert(QStringLiteral("BACKEND_SESSION_ID"), sessionId);
    sessionEnv.insert(QStringLiteral("BACKEND_CLUSTER_HOSTS"), allHosts.join(QLatin1Char(',')));
    sessionEnv.insert(QStringLiteral("BACKEND_CLUSTER_SIZE"), QString::number(total));
    sessionEnv.insert(QStringLiteral("BACKEND_CLUSTER_MODE"), modeName(envMode));
    sessionEnv.insert(QStringLiteral("BACKEND_CLUSTER_REPLICAS"), replicas.join(QLatin1Char(',')));

    int rank = 0;
    for (qsizetype r = 0; r < t.roles.size(); ++r) {
        const RoleTemplate &role = t.roles.at(r);
        const TaskTemplate &task = role.task;
        const ImageDefaults image = images.value(task.image);

        QList<ServicePort> imagePorts;
        if (const QString label = image.labels.value(Labels::servicePorts());
            !label.isEmpty()) {
            QString problem;
            const auto parsed = parseServicePortList(label, &problem);
            if (!parsed)
                return fail(Error::Kind::Invalid,
                            QStringLiteral("image %1 label %2")
                                .arg(task.image, Labels::servicePorts()),
                            problem);
            imagePorts = *parsed;
        }

        const QMap<QString, QString> env =
            layered({&image.env, &task.env, &t.env, &role.overrides.env, &opts.env});
        const QList<ServicePort> ports =
            mergePorts(mergePorts(imagePorts, task.ports), role.overrides.ports);
        const QList<Mount> mounts = mergeMounts(mergeMounts(task.mounts, t.mounts), opts.mounts);
        const Resources resources = mergeResources(task.resources, role.overrides.resources);
        const QStringList entrypoint =
            task.entrypoint.isEmpty() ? image.entrypoint : task.entrypoint;
        // Docker drops the image CMD when the entrypoint is replaced; so does the plan.
        const QStringList command = !task.command.isEmpty()     ? task.command
                                    : task.entrypoint.isEmpty() ? image.command
                                                                : QStringList();

        for (int idx = 1; idx <= plan.roles.at(r).count; ++idx, ++rank) {
            KernelSpec k;
            k.hostname = hostname(role.name, idx);
            k.kernelId =
                QUuid::createUuidV5(sessionUuid, k.hostname).toString(QUuid::WithoutBraces);
            k.containerName = QStringLiteral("cd-%1-%2").arg(shortId, k.hostname);
            k.role = role.name;
            k.roleIdx = idx;
            k.localRank = rank;
            k.primary = rank == 0;
            k.image = task.image;
            k.pullPolicy = task.pullPolicy.value_or(PullPolicy::IfNotPresent);
            k.entrypoint = entrypoint;
            k.command = command;
            k.workingDir = task.workingDir.isEmpty() ? image.workingDir : task.workingDir;
            k.user = task.user.isEmpty() ? image.user : task.user;
            k.onScale = task.onScale;
            k.env = env;
            k.env.insert(sessionEnv);
            k.env.insert(QStringLiteral("BACKEND_KERNEL_ID"), k.kernelId);
            k.env.insert(QStringLiteral("BACKEND_CLUSTER_ROLE"), role.name);
            k.env.insert(QStringLiteral("BACKEND_CLUSTER_ROLE_IDX"), QString::number(idx));
            k.env.insert(QStringLiteral("BACKEND_CLUSTER_LOCAL_RANK"), QString::number(rank));
            k.env.insert(QStringLiteral("BACKEND_CLUSTER_HOST"), k.hostname);
            k.ports = ports;
            k.bindAddress = task.bindAddress;
            k.resources = resources;
            k.mounts = mounts;
            k.hostLabels = role.hostLabels;
            k.labels = task.labels;
            k.labels.insert(Labels::session(), sessionId);
            k.labels.insert(Labels::kernel(), k.kernelId);
            k.labels.insert(Labels::role(), role.name);
            k.labels.insert(Labels::roleIdx(), QString::number(idx));
            k.labels.insert(Labels::hostname(), k.hostname);
            if (!task.bootstrap.isEmpty()) {
                k.files.append({QLatin1String(PlanPaths::kBootstrapScript), task.bootstrap.toUtf8(),
                                0755, QString()});
                k.files.append({QLatin1String(PlanPaths::kBootstrapRunner),
                                bootstrapRunner().toUtf8(), 0755, QString()});
                k.command = k.entrypoint + k.command;
                k.entrypoint = QStringList{QStringLiteral("/bin/sh"),
                                           QLatin1String(PlanPaths::kBootstrapRunner)};
            }
            plan.kernels.append(k);
        }
    }

    if (auto ok = Presets::apply(plan, opts.sshKeyPair); !ok)
        return fail(ok.error());
    Presets::applyMembershipFiles(plan);
    // Last: the config hash is of the kernel as the presets left it.
    const QString project = ComposeLabels::projectName(plan.sessionName, sessionId);
    for (KernelSpec &k : plan.kernels)
        ComposeLabels::apply(k, project);

    // Whatever the template, options and image labels gave, the plan obeys the same rules a
    // stored spec is held to.
    if (auto ok = PlanValidator::validate(plan, QStringLiteral("template %1").arg(t.name)); !ok)
        return fail(ok.error());
    qCDebug(lcPlan) << "resolved" << t.name << "into" << plan.kernels.size() << "kernels";
    return plan;
}

} // namespace ClusterDeck
