#include "templatecommands.h"

#include "args.h"
#include "columns.h"
#include "commandspec.h"
#include "commandsupport.h"
#include "host/hostregistry.h"
#include "plan/launchvalues.h"
#include "plan/planjson.h"
#include "plan/planresolver.h"
#include "plan/planvalidator.h"
#include "plan/presets.h"
#include "provision/provisioner.h"
#include "store/statestore.h"
#include "store/storeurl.h"
#include "template/templateloader.h"
#include "template/templatevalues.h"

#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QRegularExpression>
#include <QTextStream>

namespace ClusterDeck::Cli {

namespace {

using namespace TemplateValues;

// The words after `template SUB` by that subcommand's spec; an exit status when it stops here
// (its --help, or a usage error).
std::optional<int> parseTemplateArgs(const QStringList &args, const QString &command, Args *out,
                                     QTextStream &stdOut, QTextStream &err)
{
    const CommandSpec &spec = commandSpec(command);
    *out = Args::parse(args, spec);
    if (out->helpRequested) {
        stdOut << helpText(spec);
        stdOut.flush();
        return 0;
    }
    if (!out->error.isEmpty()) {
        err << "error: " << out->error << " (see clusterdeckctl " << command << " --help)\n";
        err.flush();
        return 2;
    }
    return std::nullopt;
}

bool isTaskFile(const QString &path)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return false;
    static const QRegularExpression kind(QStringLiteral("^kind:\\s*[\"']?Task[\"']?\\s*$"),
                                         QRegularExpression::MultilineOption);
    return kind.match(QString::fromUtf8(file.readAll())).hasMatch();
}

int validate(const QStringList &args, QTextStream &out, QTextStream &err)
{
    Args a;
    if (const auto stop =
            parseTemplateArgs(args, QStringLiteral("template validate"), &a, out, err))
        return *stop;
    const QStringList &files = a.positional;
    if (files.isEmpty())
        return usageError(err, QStringLiteral("template validate needs at least one FILE"));
    int status = 0;
    for (const QString &file : files) {
        TemplateLoader loader;
        const bool ok =
            isTaskFile(file) ? bool(loader.loadTaskFile(file)) : bool(loader.loadClusterFile(file));
        if (ok) {
            out << file << ": ok\n";
            continue;
        }
        status = 1;
        for (const TemplateDiagnostic &d : loader.diagnostics())
            err << d.toString() << '\n';
    }
    out.flush();
    err.flush();
    return status;
}

// What the kernels may touch on their hosts, said before anything starts.
QString hostPathsLine(const ClusterPlan &plan)
{
    const QStringList paths = PlanValidator::hostPaths(plan);
    if (!plan.allowHostPaths)
        return QStringLiteral("none (the template does not allow them)");
    return paths.isEmpty() ? QStringLiteral("allowed, none mounted")
                           : QStringLiteral("allowed: ") + paths.join(QStringLiteral(", "));
}

void printTable(const ClusterPlan &plan, QTextStream &out)
{
    const KernelSpec &primary = plan.kernels.first();
    out << "session   " << plan.sessionName << " (" << plan.sessionId << ")\n"
        << "template  " << plan.templateName << '\n'
        << "network   " << plan.networkName
        << (plan.mtu ? QStringLiteral(" (mtu %1)").arg(*plan.mtu) : QString()) << '\n'
        << "mode      " << modeName(plan.mode) << " (kernels see "
        << primary.env.value(QStringLiteral("BACKEND_CLUSTER_MODE")) << ")\n"
        << "failure   " << failureActionName(plan.failurePolicy.action)
        << (plan.failurePolicy.action == FailurePolicy::Action::RestartSession
                ? QStringLiteral(" (max %1 restarts)").arg(plan.failurePolicy.maxRestarts)
                : QString())
        << '\n'
        << "success   " << successKindName(plan.successPolicy.kind)
        << (plan.successPolicy.kind == SuccessPolicy::Kind::RoleExits
                ? QStringLiteral(" %1").arg(plan.successPolicy.role)
                : QString())
        << (plan.ttlAfterFinishedSeconds ? QStringLiteral(" (removed %1 after finishing)")
                                               .arg(formatDuration(*plan.ttlAfterFinishedSeconds))
                                         : QString())
        << '\n'
        << "startup   " << startupOrderName(plan.startupOrder) << '\n'
        << "presets   "
        << (plan.presets.isEmpty() ? QStringLiteral("-") : plan.presets.join(QStringLiteral(", ")))
        << '\n'
        << "hostpaths " << hostPathsLine(plan) << '\n'
        << "kernels   " << plan.kernels.size() << " ("
        << primary.env.value(QStringLiteral("BACKEND_CLUSTER_REPLICAS")) << ")\n\n";

    const QStringList header{
        QStringLiteral("RANK"),   QStringLiteral("HOSTNAME"), QStringLiteral("ROLE"),
        QStringLiteral("IDX"),    QStringLiteral("IMAGE"),    QStringLiteral("CPUS"),
        QStringLiteral("MEMORY"), QStringLiteral("GPUS"),     QStringLiteral("PORTS")};
    QList<QStringList> rows{header};
    for (const KernelSpec &k : plan.kernels) {
        QStringList ports;
        for (const ServicePort &p : k.ports)
            ports.append(p.toString());
        rows.append(
            {QString::number(k.localRank) + (k.primary ? QStringLiteral("*") : QString()),
             k.hostname, k.role, QString::number(k.roleIdx), k.image,
             k.resources.cpus ? formatCpus(*k.resources.cpus) : QStringLiteral("-"),
             k.resources.memoryBytes ? formatMemory(*k.resources.memoryBytes) : QStringLiteral("-"),
             k.resources.gpus ? QString::number(*k.resources.gpus) : QStringLiteral("-"),
             ports.isEmpty() ? QStringLiteral("-") : ports.join(QLatin1Char(','))});
    }
    for (const QString &line : alignColumns(rows))
        out << line << '\n';
    out << "(* = primary)\n";

    for (const KernelSpec &k : plan.kernels) {
        out << '\n' << k.hostname << " (" << k.containerName << ", kernel " << k.kernelId << ")\n";
        if (!k.entrypoint.isEmpty())
            out << "  entrypoint: " << k.entrypoint.join(QLatin1Char(' ')) << '\n';
        if (!k.command.isEmpty())
            out << "  command:    " << k.command.join(QLatin1Char(' ')) << '\n';
        if (!k.workingDir.isEmpty())
            out << "  workdir:    " << k.workingDir << '\n';
        if (!k.user.isEmpty())
            out << "  user:       " << k.user << '\n';
        if (!k.hostLabels.isEmpty()) {
            QStringList labels;
            for (auto it = k.hostLabels.cbegin(); it != k.hostLabels.cend(); ++it)
                labels.append(it.key() + QLatin1Char('=') + it.value());
            out << "  placement:  hosts with " << labels.join(QStringLiteral(", ")) << '\n';
        }
        out << "  env:\n";
        for (auto it = k.env.cbegin(); it != k.env.cend(); ++it)
            out << "    " << it.key() << '=' << it.value() << '\n';
        if (!k.mounts.isEmpty()) {
            out << "  mounts:\n";
            for (const Mount &m : k.mounts)
                out << "    " << mountTypeName(m.type) << ' ' << m.source << " -> " << m.target
                    << (m.readOnly ? QStringLiteral(" (ro)") : QString()) << '\n';
        }
        if (!k.files.isEmpty()) {
            out << "  files:\n";
            for (const PlannedFile &f : k.files)
                out << "    " << f.path << " ("
                    << QStringLiteral("%1").arg(f.mode, 4, 8, QLatin1Char('0')) << ", "
                    << f.content.size() << " bytes"
                    << (f.isSecret() ? QStringLiteral(", secret") : QString()) << ")\n";
        }
    }
}

int render(const QStringList &args, QTextStream &out, QTextStream &err,
           const ImageDefaultsLookup &images)
{
    Args a;
    if (const auto stop = parseTemplateArgs(args, QStringLiteral("template render"), &a, out, err))
        return *stop;
    if (a.positional.size() > 1)
        return usageError(err, QStringLiteral("template render takes one FILE"));
    const QString file = a.positional.value(0);
    const bool json = a.has(QStringLiteral("--json"));
    LaunchOptions opts;
    if (auto values = LaunchValues::apply(opts, a.all(QStringLiteral("--count")),
                                          a.all(QStringLiteral("--env")), {});
        !values)
        return usageError(err, values.error().toString());
    if (file.isEmpty())
        return usageError(err, QStringLiteral("template render needs a FILE"));

    TemplateLoader loader;
    const auto t = loader.loadClusterFile(file);
    if (!t) {
        for (const TemplateDiagnostic &d : loader.diagnostics())
            err << "error: " << d.toString() << '\n';
        err.flush();
        return 1;
    }
    // A preview: the nil session id (launch assigns one); image defaults (ENV, service ports)
    // when the registered hosts (or the image's registry) know the image.
    if (Presets::needsSshKeyPair(t->presets)) {
        const auto keys = SshKeyPair::generate(QStringLiteral("clusterdeck@%1").arg(t->name));
        if (!keys)
            return failWith(err, keys.error().toString());
        opts.sshKeyPair = *keys;
    }
    const ImageDefaultsMap defaults = images ? images(*t) : ImageDefaultsMap{};
    for (const RoleTemplate &role : t->roles) {
        if (!defaults.contains(role.task.image))
            err << "note: defaults of image " << role.task.image
                << " (ENV, service ports) are not shown: no registered host has it\n";
    }
    err.flush();
    const auto plan = resolvePlan(*t, opts, defaults);
    if (!plan)
        return failWith(err, plan.error().toString());
    if (json)
        out << QJsonDocument(PlanJson::toJson(*plan)).toJson(QJsonDocument::Indented);
    else
        printTable(*plan, out);
    out.flush();
    return 0;
}

} // namespace

int runTemplateCommand(const QStringList &args, QTextStream &out, QTextStream &err,
                       const ImageDefaultsLookup &images)
{
    if (args.isEmpty())
        return usageError(err, QStringLiteral("template needs a subcommand (validate or render)"));
    const QString sub = args.first();
    if (sub == QLatin1String("--help") || sub == QLatin1String("-h")) {
        out << groupHelpText(QStringLiteral("template"));
        out.flush();
        return 0;
    }
    if (sub == QLatin1String("validate"))
        return validate(args.mid(1), out, err);
    if (sub == QLatin1String("render"))
        return render(args.mid(1), out, err, images);
    return usageError(err, QStringLiteral("unknown template subcommand '%1'").arg(sub));
}

} // namespace ClusterDeck::Cli

namespace ClusterDeck::Cli {

int templateCommand(Context &context, const QStringList &args)
{
    // Only a store that exists is asked (a preview creates none).
    auto lookup = [&context](const ClusterTemplate &t) -> ImageDefaultsMap {
        auto url = StoreUrl::resolve(context.storeOption());
        if (!url || (url->kind == StoreUrl::Kind::Sqlite && !QFileInfo::exists(url->path)))
            return {};
        auto store = context.store();
        if (!store)
            return {};
        auto hosts = (*store)->hosts();
        if (!hosts)
            return {};
        QStringList names;
        for (const HostRecord &h : std::as_const(*hosts))
            names.append(h.name);
        HostRegistry registry(*store);
        Provisioner provisioner(*store, &registry);
        return provisioner.imageDefaultsFor(t, names);
    };
    return runTemplateCommand(args, context.out(), context.err(), lookup);
}

} // namespace ClusterDeck::Cli
