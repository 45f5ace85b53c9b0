#include "composeexporter.h"

#include "exportyaml.h"
#include "template/templatevalues.h"

#include <yaml-cpp/yaml.h>

namespace ClusterDeck {

using namespace ExportYaml;

namespace {

QString pullPolicyValue(PullPolicy p)
{
    switch (p) {
    case PullPolicy::Always:
        return QStringLiteral("always");
    case PullPolicy::Never:
        return QStringLiteral("never");
    case PullPolicy::IfNotPresent:
        break;
    }
    return QStringLiteral("missing");
}

QStringList escaped(const QStringList &list)
{
    QStringList out;
    for (const QString &s : list)
        out.append(ComposeExporter::escapeDollars(s));
    return out;
}

QStringList hostsOf(const ExportedRole &r)
{
    QStringList hosts;
    for (int i = 1; i <= r.count; ++i)
        hosts.append(TemplateValues::hostname(r.name, i));
    return hosts;
}

} // namespace

QString ComposeExporter::projectName(const QString &templateName)
{
    QString name;
    for (const QChar c : templateName.toLower()) {
        if ((c >= u'a' && c <= u'z') || (c >= u'0' && c <= u'9') || c == u'_' || c == u'-')
            name += c;
        else if (!name.endsWith(QLatin1Char('-')))
            name += QLatin1Char('-');
    }
    while (name.startsWith(QLatin1Char('-')) || name.startsWith(QLatin1Char('_')))
        name.remove(0, 1);
    while (name.endsWith(QLatin1Char('-')))
        name.chop(1);
    return name.isEmpty() ? QStringLiteral("clusterdeck") : name;
}

QString ComposeExporter::escapeDollars(const QString &text)
{
    QString out = text;
    out.replace(QLatin1Char('$'), QStringLiteral("$$"));
    return out;
}

QString ComposeExporter::memoryValue(qint64 bytes)
{
    const std::pair<qint64, const char *> units[] = {
        {qint64(1) << 30, "g"}, {qint64(1) << 20, "m"}, {1024, "k"}};
    for (const auto &[size, suffix] : units) {
        if (bytes >= size && bytes % size == 0)
            return QString::number(bytes / size) + QLatin1String(suffix);
    }
    return QString::number(bytes) + QLatin1Char('b');
}

Result<ExportOutput> ComposeExporter::exportModel(const ExportModel &model)
{
    const ClusterTemplate &t = model.cluster();
    ExportOutput result;
    result.warnings = model.sourceWarnings();
    QStringList notes;

    QStringList allHosts;
    for (const ExportedRole &r : model.roles()) {
        if (r.task.command.isEmpty() && r.task.entrypoint.isEmpty() && !r.task.bootstrap.isEmpty())
            return fail(Error::Kind::Invalid, QStringLiteral("role %1").arg(r.name),
                        QStringLiteral("the task has a bootstrap script but no command: the "
                                       "export cannot run it before the image's own command "
                                       "(give the task its command)"));
        allHosts += hostsOf(r);
    }
    if (!t.presets.isEmpty())
        result.warnings.append(
            QStringLiteral("presets are not exported (%1): their variables and files "
                           "(MASTER_ADDR, WORLD_SIZE, TF_CONFIG, the MPI hostfile, SSH keys) are "
                           "missing")
                .arg(t.presets.join(QStringLiteral(", "))));
    for (const ExportedRole &r : model.roles()) {
        if (const QString w = ExportModel::bootstrapWarning(r); !w.isEmpty())
            result.warnings.append(w);
    }
    switch (t.failurePolicy.action) {
    case FailurePolicy::Action::RestartSession:
        notes.append(QStringLiteral("failurePolicy restart-session (maxRestarts %1) → restart "
                                    "on-failure:%1: Compose restarts the failed container, not "
                                    "the whole session")
                         .arg(t.failurePolicy.maxRestarts));
        break;
    case FailurePolicy::Action::TerminateSession:
        notes.append(QStringLiteral("failurePolicy terminate-session: Compose leaves the other "
                                    "containers running when one fails"));
        break;
    case FailurePolicy::Action::Ignore:
        break;
    }
    if (t.successPolicy.kind != SuccessPolicy::Kind::None)
        notes.append(QStringLiteral("successPolicy %1 is not exported (`docker compose up "
                                    "--exit-code-from SERVICE` is the closest)")
                         .arg(TemplateValues::successKindName(t.successPolicy.kind)));

    QStringList header{
        QStringLiteral("Compose file exported by clusterdeckctl from %1 (%2), for "
                       "one Docker host.")
            .arg(model.sourceName(), model.replicas()),
        QStringLiteral("One service per kernel, its hostname the kernel's, all on the network "
                       "'%1': the short hostnames (%2) resolve as in a ClusterDeck session.")
            .arg(QLatin1String(kNetwork), allHosts.first()),
        QStringLiteral("A role's bootstrap script runs with sh -e before its command (the "
                       "service's entrypoint is /bin/sh -c)."),
        QStringLiteral("'$$' is Compose's escape for '$'."),
        QStringLiteral("Not exported: BACKEND_SESSION_ID, BACKEND_KERNEL_ID, the /etc/cluster "
                       "files, ClusterDeck's labels."),
    };
    header += notes;
    for (const QString &w : std::as_const(result.warnings))
        header.append(QStringLiteral("WARNING: ") + w);

    YAML::Emitter out;
    out << YAML::BeginMap;
    emitKeyValue(out, "name", projectName(t.name));
    out << YAML::Key << "services" << YAML::Value << YAML::BeginMap;
    QMap<QString, Mount> volumes;
    const ExportedRole *previous = nullptr;
    for (const ExportedRole &r : model.roles()) {
        for (int idx = 1; idx <= r.count; ++idx) {
            const QString host = TemplateValues::hostname(r.name, idx);
            out << YAML::Key << host.toStdString() << YAML::Value << YAML::BeginMap;
            emitKeyValue(out, "image", r.task.image);
            if (r.task.pullPolicy)
                emitKeyValue(out, "pull_policy", pullPolicyValue(*r.task.pullPolicy));
            emitKeyValue(out, "hostname", host);
            if (!r.task.bootstrap.isEmpty()) {
                QString bootstrap = r.task.bootstrap;
                if (!bootstrap.endsWith(QLatin1Char('\n')))
                    bootstrap += QLatin1Char('\n');
                const QString script = QStringLiteral("/bin/sh -e <<'CLUSTERDECK_BOOTSTRAP' || "
                                                      "exit\n") +
                                       bootstrap +
                                       QStringLiteral("CLUSTERDECK_BOOTSTRAP\nexec \"$@\"\n");
                out << YAML::Key << "entrypoint" << YAML::Value;
                emitStringList(out, {QStringLiteral("/bin/sh"), QStringLiteral("-c"),
                                     escapeDollars(script), QStringLiteral("sh")});
                out << YAML::Key << "command" << YAML::Value;
                emitStringList(out, escaped(r.task.entrypoint + r.task.command));
            } else {
                if (!r.task.entrypoint.isEmpty()) {
                    out << YAML::Key << "entrypoint" << YAML::Value;
                    emitStringList(out, escaped(r.task.entrypoint));
                }
                if (!r.task.command.isEmpty()) {
                    out << YAML::Key << "command" << YAML::Value;
                    emitStringList(out, escaped(r.task.command));
                }
            }
            if (!r.task.workingDir.isEmpty())
                emitKeyValue(out, "working_dir", r.task.workingDir);
            if (!r.task.user.isEmpty())
                emitKeyValue(out, "user", r.task.user);

            out << YAML::Key << "environment" << YAML::Value << YAML::BeginMap;
            for (auto it = r.task.env.cbegin(); it != r.task.env.cend(); ++it) {
                if (!it.key().startsWith(QLatin1String("BACKEND_")))
                    emitKeyValue(out, it.key().toUtf8().constData(), escapeDollars(it.value()));
            }
            emitKeyValue(out, "BACKEND_CLUSTER_ROLE", r.name);
            emitKeyValue(out, "BACKEND_CLUSTER_ROLE_IDX", QString::number(idx));
            emitKeyValue(out, "BACKEND_CLUSTER_LOCAL_RANK", QString::number(r.firstRank + idx - 1));
            emitKeyValue(out, "BACKEND_CLUSTER_HOST", host);
            emitKeyValue(out, "BACKEND_CLUSTER_HOSTS", allHosts.join(QLatin1Char(',')));
            for (const ExportedRole &other : model.roles())
                emitKeyValue(out, ExportModel::roleHostsVariable(other.name).toUtf8().constData(),
                             hostsOf(other).join(QLatin1Char(',')));
            emitKeyValue(out, "BACKEND_CLUSTER_SIZE", QString::number(model.size()));
            emitKeyValue(out, "BACKEND_CLUSTER_REPLICAS", model.replicas());
            emitKeyValue(out, "BACKEND_CLUSTER_MODE", QStringLiteral("single-node"));
            out << YAML::EndMap;

            const Resources &res = r.task.resources;
            if (res.cpus) // as written in templates ("0.1", not yaml-cpp's 0.10000000000000001)
                out << YAML::Key << "cpus" << YAML::Value
                    << TemplateValues::formatCpus(*res.cpus).toStdString();
            if (res.memoryBytes)
                emitKeyValue(out, "mem_limit", memoryValue(*res.memoryBytes));
            if (res.gpus) {
                out << YAML::Key << "deploy" << YAML::Value << YAML::BeginMap;
                out << YAML::Key << "resources" << YAML::Value << YAML::BeginMap;
                out << YAML::Key << "reservations" << YAML::Value << YAML::BeginMap;
                out << YAML::Key << "devices" << YAML::Value << YAML::BeginSeq << YAML::BeginMap;
                emitKeyValue(out, "driver", QStringLiteral("nvidia"));
                out << YAML::Key << "count" << YAML::Value << *res.gpus;
                out << YAML::Key << "capabilities" << YAML::Value;
                emitStringList(out, {QStringLiteral("gpu")});
                out << YAML::EndMap << YAML::EndSeq;
                out << YAML::EndMap << YAML::EndMap << YAML::EndMap;
            }
            if (!r.task.ports.isEmpty()) {
                // As ClusterDeck publishes them: a free host port for each service port.
                out << YAML::Key << "ports" << YAML::Value << YAML::BeginSeq;
                for (const ServicePort &p : r.task.ports) {
                    out << YAML::BeginMap;
                    emitKeyValue(out, "name", p.name);
                    out << YAML::Key << "target" << YAML::Value << p.port;
                    emitKeyValue(out, "protocol", QStringLiteral("tcp"));
                    if (!r.task.bindAddress.isEmpty())
                        emitKeyValue(out, "host_ip", r.task.bindAddress);
                    out << YAML::EndMap;
                }
                out << YAML::EndSeq;
            }
            if (!r.task.mounts.isEmpty()) {
                out << YAML::Key << "volumes" << YAML::Value << YAML::BeginSeq;
                for (const Mount &m : r.task.mounts) {
                    out << YAML::BeginMap;
                    emitKeyValue(out, "type",
                                 m.type == Mount::Type::Bind ? QStringLiteral("bind")
                                                             : QStringLiteral("volume"));
                    emitKeyValue(out, "source", m.source);
                    emitKeyValue(out, "target", m.target);
                    if (m.readOnly)
                        out << YAML::Key << "read_only" << YAML::Value << true;
                    out << YAML::EndMap;
                    if (m.type == Mount::Type::Volume)
                        volumes.insert(m.source, m);
                }
                out << YAML::EndSeq;
            }
            out << YAML::Key << "networks" << YAML::Value;
            emitStringList(out, {QLatin1String(kNetwork)});
            if (previous && t.startupOrder == StartupOrder::InOrder) {
                // startupOrder in-order: a role starts after the one before it.
                out << YAML::Key << "depends_on" << YAML::Value;
                emitStringList(out, hostsOf(*previous));
            }
            // Docker reads on-failure:0 as "no limit": a limit of 0 restarts is no restart.
            if (t.failurePolicy.action == FailurePolicy::Action::RestartSession &&
                t.failurePolicy.maxRestarts > 0)
                emitKeyValue(out, "restart",
                             QStringLiteral("on-failure:%1").arg(t.failurePolicy.maxRestarts));
            out << YAML::EndMap;
        }
        previous = &r;
    }
    out << YAML::EndMap;

    out << YAML::Key << "networks" << YAML::Value << YAML::BeginMap;
    out << YAML::Key << kNetwork << YAML::Value << YAML::BeginMap;
    emitKeyValue(out, "driver", QStringLiteral("bridge"));
    if (t.mtu) {
        out << YAML::Key << "driver_opts" << YAML::Value << YAML::BeginMap;
        emitKeyValue(out, "com.docker.network.driver.mtu", QString::number(*t.mtu));
        out << YAML::EndMap;
    }
    out << YAML::EndMap << YAML::EndMap;
    if (!volumes.isEmpty()) {
        out << YAML::Key << "volumes" << YAML::Value << YAML::BeginMap;
        for (auto it = volumes.cbegin(); it != volumes.cend(); ++it) {
            out << YAML::Key << it.key().toStdString() << YAML::Value << YAML::BeginMap;
            if (!it->driver.isEmpty())
                emitKeyValue(out, "driver", it->driver);
            if (!it->driverOptions.isEmpty()) {
                out << YAML::Key << "driver_opts" << YAML::Value << YAML::BeginMap;
                for (auto o = it->driverOptions.cbegin(); o != it->driverOptions.cend(); ++o)
                    emitKeyValue(out, o.key().toUtf8().constData(), o.value());
                out << YAML::EndMap;
            }
            out << YAML::EndMap;
        }
        out << YAML::EndMap;
    }
    out << YAML::EndMap;
    if (!out.good())
        return fail(Error::Kind::Invalid, t.name,
                    QStringLiteral("writing the Compose file failed: %1")
                        .arg(QString::fromStdString(out.GetLastError())));
    result.yaml = ExportModel::commentBlock(header) + text(out);
    return result;
}

} // namespace ClusterDeck
