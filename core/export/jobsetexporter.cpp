#include "jobsetexporter.h"

#include "exportyaml.h"

#include <QRegularExpression>

#include <yaml-cpp/yaml.h>

#include <cmath>

namespace ClusterDeck {

using namespace ExportYaml;

namespace {

// The longest DNS label (RFC 1123): a pod's hostname must fit.
constexpr int kMaxLabel = 63;

QStringList hostsOf(const QString &jobSet, const ExportedRole &r)
{
    QStringList hosts;
    for (int i = 1; i <= r.count; ++i)
        hosts.append(JobSetExporter::podDnsName(jobSet, r.name, i));
    return hosts;
}

// The container's shell: the per-pod BACKEND_* values from the Job's completion index, the
// bootstrap script (as ClusterDeck runs /etc/cluster/bootstrap.sh: sh -e, before the command),
// then the command itself, given as the container's args.
QString wrapperScript(const QString &jobSet, const ExportedRole &r)
{
    QString s = QStringLiteral("export BACKEND_CLUSTER_ROLE_IDX=$((JOB_COMPLETION_INDEX + 1))\n"
                               "export BACKEND_CLUSTER_LOCAL_RANK=$((JOB_COMPLETION_INDEX + %1))\n"
                               "export BACKEND_CLUSTER_HOST=%2-%3-0-$JOB_COMPLETION_INDEX.%2\n")
                    .arg(r.firstRank)
                    .arg(jobSet, r.name);
    if (!r.task.bootstrap.isEmpty()) {
        QString bootstrap = r.task.bootstrap;
        if (!bootstrap.endsWith(QLatin1Char('\n')))
            bootstrap += QLatin1Char('\n');
        s += QStringLiteral("/bin/sh -e <<'CLUSTERDECK_BOOTSTRAP' || exit\n") + bootstrap +
             QStringLiteral("CLUSTERDECK_BOOTSTRAP\n");
    }
    return s + QStringLiteral("exec \"$@\"\n");
}

void emitResources(YAML::Emitter &out, const Resources &res)
{
    if (res.isEmpty())
        return;
    auto emitAmounts = [&](bool limits) {
        out << YAML::BeginMap;
        if (res.cpus)
            emitKeyValue(out, "cpu", JobSetExporter::cpuQuantity(*res.cpus));
        if (res.memoryBytes)
            emitKeyValue(out, "memory", JobSetExporter::memoryQuantity(*res.memoryBytes));
        if (limits && res.gpus)
            emitKeyValue(out, "nvidia.com/gpu", QString::number(*res.gpus));
        out << YAML::EndMap;
    };
    out << YAML::Key << "resources" << YAML::Value << YAML::BeginMap;
    if (res.cpus || res.memoryBytes) {
        out << YAML::Key << "requests" << YAML::Value;
        emitAmounts(false);
    }
    out << YAML::Key << "limits" << YAML::Value;
    emitAmounts(true);
    out << YAML::EndMap;
}

QString pullPolicyValue(PullPolicy p)
{
    switch (p) {
    case PullPolicy::Always:
        return QStringLiteral("Always");
    case PullPolicy::Never:
        return QStringLiteral("Never");
    case PullPolicy::IfNotPresent:
        break;
    }
    return QStringLiteral("IfNotPresent");
}

} // namespace

QString JobSetExporter::jobSetName(const QString &templateName)
{
    QString name;
    for (const QChar c : templateName.toLower()) {
        if ((c >= u'a' && c <= u'z') || (c >= u'0' && c <= u'9'))
            name += c;
        else if (!name.endsWith(QLatin1Char('-')))
            name += QLatin1Char('-');
    }
    while (name.startsWith(QLatin1Char('-')))
        name.remove(0, 1);
    while (name.endsWith(QLatin1Char('-')))
        name.chop(1);
    return name.isEmpty() ? QStringLiteral("clusterdeck") : name;
}

QString JobSetExporter::podDnsName(const QString &jobSet, const QString &role, int idx)
{
    return QStringLiteral("%1-%2-0-%3.%1").arg(jobSet, role).arg(idx - 1);
}

QString JobSetExporter::escapeDollars(const QString &text)
{
    QString out;
    out.reserve(text.size());
    for (qsizetype i = 0; i < text.size(); ++i) {
        const QChar c = text.at(i);
        out += c;
        const QChar next = i + 1 < text.size() ? text.at(i + 1) : QChar();
        if (c == u'$' && (next == u'$' || next == u'('))
            out += c;
    }
    return out;
}

QString JobSetExporter::cpuQuantity(double cpus)
{
    const qint64 milli = qint64(std::llround(cpus * 1000));
    return milli % 1000 == 0 ? QString::number(milli / 1000) : QStringLiteral("%1m").arg(milli);
}

QString JobSetExporter::memoryQuantity(qint64 bytes)
{
    const std::pair<qint64, const char *> units[] = {
        {qint64(1) << 40, "Ti"}, {qint64(1) << 30, "Gi"}, {qint64(1) << 20, "Mi"}, {1024, "Ki"}};
    for (const auto &[size, suffix] : units) {
        if (bytes >= size && bytes % size == 0)
            return QString::number(bytes / size) + QLatin1String(suffix);
    }
    return QString::number(bytes);
}

Result<ExportOutput> JobSetExporter::exportModel(const ExportModel &model)
{
    const ClusterTemplate &t = model.cluster();
    const QString js = jobSetName(t.name);
    ExportOutput result;
    result.warnings = model.sourceWarnings();
    QStringList notes;

    QStringList allHosts;
    for (const ExportedRole &r : model.roles()) {
        const QString longest = podDnsName(js, r.name, r.count).section(QLatin1Char('.'), 0, 0);
        if (longest.size() > kMaxLabel)
            return fail(Error::Kind::Invalid, t.name,
                        QStringLiteral("the pod hostname '%1' of role %2 is longer than %3 "
                                       "characters (a DNS label); shorten the template or role "
                                       "name")
                            .arg(longest, r.name)
                            .arg(kMaxLabel));
        if (r.task.command.isEmpty() && r.task.entrypoint.isEmpty() && !r.task.bootstrap.isEmpty())
            return fail(Error::Kind::Invalid, QStringLiteral("role %1").arg(r.name),
                        QStringLiteral("the task has a bootstrap script but no command: the "
                                       "export cannot run it before the image's own command "
                                       "(give the task its command)"));
        allHosts += hostsOf(js, r);
    }

    const QStringList shortNames = model.shortNameReferences();
    if (!shortNames.isEmpty())
        result.warnings.append(
            QStringLiteral("the template names kernels by their short hostnames, which do not "
                           "resolve in a JobSet (use $BACKEND_CLUSTER_HOSTS, "
                           "$BACKEND_CLUSTER_<ROLE>_HOSTS or the DNS names): ") +
            shortNames.join(QStringLiteral("; ")));
    if (!t.presets.isEmpty())
        result.warnings.append(
            QStringLiteral("presets are not exported (%1): their variables and files "
                           "(MASTER_ADDR, WORLD_SIZE, TF_CONFIG, the MPI hostfile, SSH keys) are "
                           "missing")
                .arg(t.presets.join(QStringLiteral(", "))));
    for (const ExportedRole &r : model.roles()) {
        if (const QString w = ExportModel::bootstrapWarning(r); !w.isEmpty())
            result.warnings.append(w);
        if (!r.task.mounts.isEmpty()) {
            QStringList targets;
            for (const Mount &m : r.task.mounts)
                targets.append(m.target);
            result.warnings.append(
                QStringLiteral("role %1: mounts are not exported (%2): add volumes to its pod "
                               "template")
                    .arg(r.name, targets.join(QStringLiteral(", "))));
        }
        if (r.task.command.isEmpty() && r.task.entrypoint.isEmpty())
            result.warnings.append(
                QStringLiteral("role %1 runs the image's command: its pods get no "
                               "BACKEND_CLUSTER_ROLE_IDX, BACKEND_CLUSTER_LOCAL_RANK or "
                               "BACKEND_CLUSTER_HOST (JOB_COMPLETION_INDEX is set, from 0)")
                    .arg(r.name));
        static const QRegularExpression numericUser(QStringLiteral("^([0-9]+)(?::([0-9]+))?$"));
        if (!r.task.user.isEmpty() && !numericUser.match(r.task.user).hasMatch())
            result.warnings.append(QStringLiteral("role %1: user '%2' is not exported "
                                                  "(Kubernetes takes a numeric uid[:gid])")
                                       .arg(r.name, r.task.user));
    }

    // failurePolicy → spec.failurePolicy.maxRestarts: JobSet restarts the whole set, as
    // ClusterDeck restarts the whole session.
    int maxRestarts = 0;
    switch (t.failurePolicy.action) {
    case FailurePolicy::Action::RestartSession:
        maxRestarts = t.failurePolicy.maxRestarts;
        notes.append(QStringLiteral("failurePolicy restart-session (maxRestarts %1) → "
                                    "spec.failurePolicy.maxRestarts %1: a failed Job restarts "
                                    "the whole JobSet")
                         .arg(maxRestarts));
        break;
    case FailurePolicy::Action::TerminateSession:
        notes.append(QStringLiteral("failurePolicy terminate-session → "
                                    "spec.failurePolicy.maxRestarts 0: a failed Job fails the "
                                    "JobSet"));
        break;
    case FailurePolicy::Action::Ignore:
        result.warnings.append(QStringLiteral(
            "failurePolicy ignore has no JobSet equivalent: a failed Job fails the JobSet "
            "(maxRestarts 0)"));
        break;
    }
    const ExportedRole &first = model.roles().first();
    QStringList successTargets;
    bool success = true;
    switch (t.successPolicy.kind) {
    case SuccessPolicy::Kind::None:
        success = false;
        notes.append(QStringLiteral("successPolicy none: a ClusterDeck session never completes; "
                                    "a JobSet completes once every Job has"));
        break;
    case SuccessPolicy::Kind::AllExit:
        notes.append(QStringLiteral("successPolicy all-exit → spec.successPolicy operator All "
                                    "(every replicated job)"));
        break;
    case SuccessPolicy::Kind::PrimaryExits:
        successTargets.append(first.name);
        notes.append(QStringLiteral("successPolicy primary-exits → spec.successPolicy operator "
                                    "All, targetReplicatedJobs [%1]")
                         .arg(first.name));
        if (first.count > 1)
            result.warnings.append(
                QStringLiteral("successPolicy primary-exits: a JobSet targets whole replicated "
                               "jobs, so it succeeds when every kernel of role %1 has exited "
                               "0, not %2 alone")
                    .arg(first.name, first.name + QLatin1Char('1')));
        break;
    case SuccessPolicy::Kind::RoleExits:
        successTargets.append(t.successPolicy.role);
        notes.append(QStringLiteral("successPolicy role-exits %1 → spec.successPolicy operator "
                                    "All, targetReplicatedJobs [%1]")
                         .arg(t.successPolicy.role));
        break;
    }

    QStringList header{
        QStringLiteral("Kubernetes JobSet exported by clusterdeckctl from %1 (%2).")
            .arg(model.sourceName(), model.replicas()),
        QStringLiteral("Kernel hostnames are the JobSet's pod DNS names "
                       "<jobset>-<replicatedJob>-<jobIndex>-<podIndex>.<subdomain> "
                       "(spec.network.enableDNSHostnames): %1 is %2.")
            .arg(first.name + QLatin1Char('1'), podDnsName(js, first.name, 1)),
        QStringLiteral("BACKEND_CLUSTER_HOSTS and BACKEND_CLUSTER_<ROLE>_HOSTS hold these names, "
                       "in rank order."),
        QStringLiteral("Each container runs /bin/sh -c: it sets BACKEND_CLUSTER_ROLE_IDX, "
                       "BACKEND_CLUSTER_LOCAL_RANK and BACKEND_CLUSTER_HOST from "
                       "JOB_COMPLETION_INDEX, runs the role's bootstrap script with sh -e (a "
                       "failing one fails the pod), then execs the command given as args. The "
                       "image's ENTRYPOINT is used only where the template names one."),
        QStringLiteral("'$$' is Kubernetes' escape for '$' in command, args and env."),
        QStringLiteral("Not exported: BACKEND_SESSION_ID, BACKEND_KERNEL_ID, the /etc/cluster "
                       "files, service ports' publishing (ports become containerPorts)."),
    };
    header += notes;
    for (const QString &w : std::as_const(result.warnings))
        header.append(QStringLiteral("WARNING: ") + w);

    YAML::Emitter out;
    out << YAML::BeginMap;
    out << YAML::Key << "apiVersion" << YAML::Value << "jobset.x-k8s.io/v1alpha2";
    out << YAML::Key << "kind" << YAML::Value << "JobSet";
    out << YAML::Key << "metadata" << YAML::Value << YAML::BeginMap;
    emitKeyValue(out, "name", js);
    out << YAML::Key << "labels" << YAML::Value << YAML::BeginMap;
    emitKeyValue(out, "app.kubernetes.io/name", js);
    emitKeyValue(out, "app.kubernetes.io/managed-by", QStringLiteral("clusterdeckctl-export"));
    out << YAML::EndMap << YAML::EndMap;

    out << YAML::Key << "spec" << YAML::Value << YAML::BeginMap;
    out << YAML::Key << "network" << YAML::Value << YAML::BeginMap;
    out << YAML::Key << "enableDNSHostnames" << YAML::Value << true;
    emitKeyValue(out, "subdomain", js);
    out << YAML::EndMap;
    out << YAML::Key << "failurePolicy" << YAML::Value << YAML::BeginMap;
    out << YAML::Key << "maxRestarts" << YAML::Value << maxRestarts;
    out << YAML::EndMap;
    if (success) {
        out << YAML::Key << "successPolicy" << YAML::Value << YAML::BeginMap;
        out << YAML::Key << "operator" << YAML::Value << "All";
        if (!successTargets.isEmpty()) {
            out << YAML::Key << "targetReplicatedJobs" << YAML::Value;
            emitStringList(out, successTargets);
        }
        out << YAML::EndMap;
        if (t.ttlAfterFinishedSeconds)
            out << YAML::Key << "ttlSecondsAfterFinished" << YAML::Value
                << *t.ttlAfterFinishedSeconds;
    }

    out << YAML::Key << "replicatedJobs" << YAML::Value << YAML::BeginSeq;
    const ExportedRole *previous = nullptr;
    for (const ExportedRole &r : model.roles()) {
        out << YAML::BeginMap;
        emitKeyValue(out, "name", r.name);
        out << YAML::Key << "replicas" << YAML::Value << 1;
        if (previous && t.startupOrder == StartupOrder::InOrder) {
            // startupOrder in-order: a role starts once the one before it is ready.
            out << YAML::Key << "dependsOn" << YAML::Value << YAML::BeginSeq << YAML::BeginMap;
            emitKeyValue(out, "name", previous->name);
            emitKeyValue(out, "status", QStringLiteral("Ready"));
            out << YAML::EndMap << YAML::EndSeq;
        }
        previous = &r;
        out << YAML::Key << "template" << YAML::Value << YAML::BeginMap;
        out << YAML::Key << "spec" << YAML::Value << YAML::BeginMap;
        out << YAML::Key << "parallelism" << YAML::Value << r.count;
        out << YAML::Key << "completions" << YAML::Value << r.count;
        out << YAML::Key << "completionMode" << YAML::Value << "Indexed";
        // A failed pod fails its Job, and so the JobSet (restarted whole by failurePolicy).
        out << YAML::Key << "backoffLimit" << YAML::Value << 0;
        out << YAML::Key << "template" << YAML::Value << YAML::BeginMap;
        out << YAML::Key << "spec" << YAML::Value << YAML::BeginMap;
        emitKeyValue(out, "restartPolicy", QStringLiteral("Never"));
        if (!model.cluster().role(r.name)->hostLabels.isEmpty()) {
            const auto &labels = model.cluster().role(r.name)->hostLabels;
            out << YAML::Key << "nodeSelector" << YAML::Value << YAML::BeginMap;
            for (auto it = labels.cbegin(); it != labels.cend(); ++it)
                emitKeyValue(out, it.key().toUtf8().constData(), it.value());
            out << YAML::EndMap;
        }
        const auto user =
            QRegularExpression(QStringLiteral("^([0-9]+)(?::([0-9]+))?$")).match(r.task.user);
        if (!r.task.user.isEmpty() && user.hasMatch()) {
            out << YAML::Key << "securityContext" << YAML::Value << YAML::BeginMap;
            out << YAML::Key << "runAsUser" << YAML::Value << user.captured(1).toLongLong();
            if (!user.captured(2).isEmpty())
                out << YAML::Key << "runAsGroup" << YAML::Value << user.captured(2).toLongLong();
            out << YAML::EndMap;
        }
        out << YAML::Key << "containers" << YAML::Value << YAML::BeginSeq << YAML::BeginMap;
        emitKeyValue(out, "name", r.name);
        emitKeyValue(out, "image", r.task.image);
        if (r.task.pullPolicy)
            emitKeyValue(out, "imagePullPolicy", pullPolicyValue(*r.task.pullPolicy));
        const QStringList argv = r.task.entrypoint + r.task.command;
        if (!argv.isEmpty()) {
            out << YAML::Key << "command" << YAML::Value;
            emitStringList(out, {QStringLiteral("/bin/sh"), QStringLiteral("-c"),
                                 escapeDollars(wrapperScript(js, r)), QStringLiteral("sh")});
            QStringList args;
            for (const QString &a : argv)
                args.append(escapeDollars(a));
            out << YAML::Key << "args" << YAML::Value;
            emitStringList(out, args);
        }
        if (!r.task.workingDir.isEmpty())
            emitKeyValue(out, "workingDir", r.task.workingDir);

        QList<std::pair<QString, QString>> env;
        for (auto it = r.task.env.cbegin(); it != r.task.env.cend(); ++it) {
            if (!it.key().startsWith(QLatin1String("BACKEND_")))
                env.append({it.key(), escapeDollars(it.value())});
        }
        env.append({QStringLiteral("BACKEND_CLUSTER_ROLE"), r.name});
        env.append({QStringLiteral("BACKEND_CLUSTER_HOSTS"), allHosts.join(QLatin1Char(','))});
        for (const ExportedRole &other : model.roles())
            env.append({ExportModel::roleHostsVariable(other.name),
                        hostsOf(js, other).join(QLatin1Char(','))});
        env.append({QStringLiteral("BACKEND_CLUSTER_SIZE"), QString::number(model.size())});
        env.append({QStringLiteral("BACKEND_CLUSTER_REPLICAS"), model.replicas()});
        env.append({QStringLiteral("BACKEND_CLUSTER_MODE"), QStringLiteral("multi-node")});
        out << YAML::Key << "env" << YAML::Value << YAML::BeginSeq;
        for (const auto &[name, value] : std::as_const(env)) {
            out << YAML::BeginMap;
            emitKeyValue(out, "name", name);
            emitKeyValue(out, "value", value);
            out << YAML::EndMap;
        }
        out << YAML::EndSeq;
        if (!r.task.ports.isEmpty()) {
            out << YAML::Key << "ports" << YAML::Value << YAML::BeginSeq;
            for (const ServicePort &p : r.task.ports) {
                out << YAML::BeginMap;
                // A container port's name is an IANA service name: at most 15 characters.
                if (p.name.size() <= 15)
                    emitKeyValue(out, "name", p.name);
                out << YAML::Key << "containerPort" << YAML::Value << p.port;
                emitKeyValue(out, "protocol", QStringLiteral("TCP"));
                out << YAML::EndMap;
            }
            out << YAML::EndSeq;
        }
        emitResources(out, r.task.resources);
        out << YAML::EndMap << YAML::EndSeq; // the container
        out << YAML::EndMap << YAML::EndMap; // pod spec, pod template
        out << YAML::EndMap << YAML::EndMap; // job spec, job template
        out << YAML::EndMap;                 // the replicated job
    }
    out << YAML::EndSeq;
    out << YAML::EndMap << YAML::EndMap;
    if (!out.good())
        return fail(Error::Kind::Invalid, t.name,
                    QStringLiteral("writing the JobSet failed: %1")
                        .arg(QString::fromStdString(out.GetLastError())));
    result.yaml = ExportModel::commentBlock(header) + text(out);
    return result;
}

} // namespace ClusterDeck
