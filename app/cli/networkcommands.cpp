#include "networkcommands.h"

#include "commandspec.h"
#include "commandsupport.h"
#include "host/hostregistry.h"
#include "host/swarmsetup.h"
#include "store/statestore.h"

#include <QElapsedTimer>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

namespace ClusterDeck::Cli {

namespace {

int usage(Context &context, const QString &message)
{
    return context.usage(message + QStringLiteral(" (see clusterdeckctl network --help)"));
}

int setup(Context &context, const QStringList &args)
{
    Args a;
    if (const auto stop = parseArgs(context, args, QStringLiteral("network setup"), &a))
        return *stop;
    if (!a.positional.isEmpty())
        return usage(context, QStringLiteral("unexpected argument '%1'").arg(a.positional.first()));
    const bool json = a.has(QStringLiteral("--json"));
    auto store = context.store();
    if (!store)
        return context.fail(store.error());
    HostRegistry registry(*store);
    SwarmSetup setup(&registry);
    QElapsedTimer timer;
    timer.start();
    auto report = setup.run();
    if (!report)
        return context.fail(report.error());

    if (json) {
        QJsonArray hosts;
        for (const SwarmSetup::Entry &e : std::as_const(report->entries))
            hosts.append(QJsonObject{{QStringLiteral("host"), e.host},
                                     {QStringLiteral("action"), SwarmSetup::actionName(e.action)},
                                     {QStringLiteral("detail"), e.detail}});
        const QJsonObject object{{QStringLiteral("manager"), report->managerHost},
                                 {QStringLiteral("cluster_id"), report->clusterId},
                                 {QStringLiteral("changed"), report->changed()},
                                 {QStringLiteral("one_swarm"), report->oneSwarm()},
                                 {QStringLiteral("hosts"), hosts}};
        context.out() << QJsonDocument(object).toJson(QJsonDocument::Indented);
    } else {
        qsizetype nameWidth = 4;
        for (const SwarmSetup::Entry &e : std::as_const(report->entries))
            nameWidth = std::max(nameWidth, e.host.size());
        for (const SwarmSetup::Entry &e : std::as_const(report->entries)) {
            context.out() << e.host.leftJustified(nameWidth + 2)
                          << SwarmSetup::actionName(e.action).leftJustified(17);
            QString detail = e.detail;
            detail.replace(QLatin1Char('\n'), QStringLiteral("; "));
            context.out() << detail << '\n';
        }
        if (!report->managerHost.isEmpty())
            context.out() << "swarm " << report->clusterId.left(12) << " managed by "
                          << report->managerHost << ": "
                          << (report->changed() ? QStringLiteral("changed")
                                                : QStringLiteral("no change"))
                          << " (" << timer.elapsed() << " ms)\n";
    }
    context.out().flush();
    if (!report->oneSwarm()) {
        QStringList problems;
        for (const SwarmSetup::Entry &e : std::as_const(report->entries)) {
            if (e.action == SwarmSetup::Action::DifferentSwarm ||
                e.action == SwarmSetup::Action::Failed)
                problems.append(e.host + QStringLiteral(" ") + SwarmSetup::actionName(e.action));
        }
        return context.fail(QStringLiteral("not all reachable hosts are in one swarm (%1)")
                                .arg(problems.join(QStringLiteral(", "))));
    }
    return 0;
}

} // namespace

int runNetworkCommand(Context &context, const QStringList &args)
{
    if (args.isEmpty())
        return usage(context, QStringLiteral("network needs a subcommand: setup"));
    if (args.first() == QLatin1String("setup"))
        return setup(context, args.mid(1));
    if (args.first() == QLatin1String("--help") || args.first() == QLatin1String("-h")) {
        context.out() << groupHelpText(QStringLiteral("network"));
        return 0;
    }
    return usage(context, QStringLiteral("unknown network subcommand '%1'").arg(args.first()));
}

} // namespace ClusterDeck::Cli
