#include "exportcommands.h"

#include "args.h"
#include "commandspec.h"
#include "commandsupport.h"
#include "export/composeexporter.h"
#include "export/exportmodel.h"
#include "export/jobsetexporter.h"
#include "plan/clusterplan.h"
#include "plan/launchvalues.h"
#include "provision/sessioncontroller.h"
#include "provision/sessionspec.h"
#include "store/statestore.h"
#include "store/storeurl.h"
#include "template/templateloader.h"

#include <QFileInfo>
#include <QSaveFile>
#include <QTextStream>

namespace ClusterDeck::Cli {

int runExportCommand(const QStringList &args, QTextStream &out, QTextStream &err,
                     const SessionPlanLookup &sessions)
{
    const CommandSpec &spec = commandSpec(QStringLiteral("export"));
    const Args a = Args::parse(args, spec);
    if (a.helpRequested) {
        out << helpText(spec);
        out.flush();
        return 0;
    }
    if (!a.error.isEmpty())
        return usageError(err, a.error, QStringLiteral("export"));
    if (a.positional.size() != 1)
        return usageError(err, QStringLiteral("export takes one TEMPLATE"),
                          QStringLiteral("export"));
    const QString format = a.value(QStringLiteral("--format"));
    if (format.isEmpty())
        return usageError(err, QStringLiteral("export needs --format jobset or --format compose"),
                          QStringLiteral("export"));
    if (format != QLatin1String("jobset") && format != QLatin1String("compose"))
        return usageError(err,
                          QStringLiteral("--format: '%1' is not jobset or compose").arg(format),
                          QStringLiteral("export"));
    const auto counts = LaunchValues::parseRoleCounts(a.all(QStringLiteral("--count")));
    if (!counts)
        return usageError(err, QStringLiteral("--count: ") + counts.error().toString(),
                          QStringLiteral("export"));

    const QString ref = a.positional.first();
    std::optional<Result<ExportModel>> model;
    if (QFileInfo(ref).isFile()) {
        TemplateLoader loader;
        const auto t = loader.loadClusterFile(ref);
        if (!t) {
            for (const TemplateDiagnostic &d : loader.diagnostics())
                err << "error: " << d.toString() << '\n';
            if (loader.diagnostics().isEmpty())
                err << "error: " << t.error().toString() << '\n';
            err.flush();
            return 1;
        }
        model = ExportModel::build(*t, *counts);
    } else {
        if (!sessions)
            return failWith(err, QStringLiteral("no template file '%1'").arg(ref));
        if (!counts->isEmpty())
            return usageError(err,
                              QStringLiteral("--count is for a TEMPLATE file; a session is "
                                             "exported with the counts it has"),
                              QStringLiteral("export"));
        const auto plan = sessions(ref);
        if (!plan)
            return failWith(err, QStringLiteral("'%1' is no template file, and %2")
                                     .arg(ref, plan.error().toString()));
        model = ExportModel::fromPlan(*plan);
    }
    if (!*model)
        return failWith(err, model->error().toString());
    const auto exported = format == QLatin1String("jobset") ? JobSetExporter::exportModel(**model)
                                                            : ComposeExporter::exportModel(**model);
    if (!exported)
        return failWith(err, exported.error().toString());
    for (const QString &w : exported->warnings)
        err << "warning: " << w << '\n';
    err.flush();

    const QString output = a.value(QStringLiteral("--output"));
    if (output.isEmpty() || output == QLatin1String("-")) {
        out << exported->yaml;
        out.flush();
        return 0;
    }
    QSaveFile save(output);
    if (!save.open(QIODevice::WriteOnly) || save.write(exported->yaml.toUtf8()) < 0 ||
        !save.commit())
        return failWith(err, QStringLiteral("%1: %2").arg(output, save.errorString()));
    return 0;
}

int exportCommand(Context &context, const QStringList &args)
{
    // Only a store that exists is asked (a template export creates none).
    auto lookup = [&context](const QString &ref) -> Result<ClusterPlan> {
        auto url = StoreUrl::resolve(context.storeOption());
        if (!url)
            return fail(url.error().kind, url.error().where, url.error().message);
        if (url->kind == StoreUrl::Kind::Sqlite && !QFileInfo::exists(url->path))
            return fail(
                Error::Kind::NotFound, QString(),
                QStringLiteral("there is no store to find a session in (%1)").arg(url->path));
        auto store = context.store();
        if (!store)
            return fail(store.error().kind, store.error().where, store.error().message);
        auto session = SessionController::findSession(**store, ref);
        if (!session)
            return fail(session.error().kind, session.error().where, session.error().message);
        auto spec = SessionSpec::fromRecord(*session, **store);
        if (!spec)
            return fail(spec.error().kind, spec.error().where, spec.error().message);
        return spec->plan;
    };
    return runExportCommand(args, context.out(), context.err(), lookup);
}

} // namespace ClusterDeck::Cli
