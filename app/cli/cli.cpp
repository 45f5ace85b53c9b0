#include "cli.h"

#include "clicontext.h"
#include "commandspec.h"
#include "common/version.h"
#include "completecommand.h"
#include "controllercommands.h"
#include "execcommands.h"
#include "exportcommands.h"
#include "hostcommands.h"
#include "imagecommands.h"
#include "networkcommands.h"
#include "prunecommands.h"
#include "sessioncommands.h"
#include "storecommands.h"
#include "templatecommands.h"
#include "topcommand.h"

#include <QCoreApplication>

#include <utility>

namespace ClusterDeck::Cli {

namespace {

// Command groups register here; each lives in its own file.
struct CommandEntry
{
    const char *name;
    CommandFunction run;
};

const CommandEntry kCommands[] = {
    {"", nullptr}, // keeps the array non-empty while groups are added
    {"template", templateCommand},
    {"export", exportCommand},
    {"host", runHostCommand},
    {"network", runNetworkCommand},
    {"launch", launchCommand},
    {"ls", lsCommand},
    {"show", showCommand},
    {"restart", restartCommand},
    {"rm", rmCommand},
    {"scale", scaleCommand},
    {"logs", logsCommand},
    {"reconcile", reconcileCommand},
    {"controller", controllerCommand},
    {"watch", watchCommand},
    {"prune", pruneCommand},
    {"image", imageCommand},
    {"registry", registryCommand},
    {"exec", execCommand},
    {"shell", shellCommand},
    {"top", topCommand},
    {"store", storeCommand},
    {"__complete", completeCommand},
};

// `clusterdeckctl help [COMMAND...]`: the overview, a command's or a group's help.
// `help --markdown` (not in the overview: for docs/contracts.md, scripts/cli-reference.sh) prints
// the whole reference as Markdown.
int helpCommand(Context &context, const QStringList &words)
{
    if (words.isEmpty()) {
        context.out() << overviewText();
        return 0;
    }
    if (words == QStringList{QStringLiteral("--markdown")}) {
        context.out() << markdownReference();
        return 0;
    }
    int consumed = 0;
    if (const CommandSpec *spec = findCommandSpec(words, &consumed); spec && !spec->hidden) {
        context.out() << helpText(*spec);
        return 0;
    }
    const QString group = words.join(QLatin1Char(' '));
    if (!subcommandsOf(group).isEmpty()) {
        context.out() << groupHelpText(group);
        return 0;
    }
    return context.usage(QStringLiteral("no command '%1' (see clusterdeckctl --help)").arg(group));
}

} // namespace

int run(const QStringList &arguments)
{
    QStringList args = arguments.mid(1);
    QString storeOption;
    // Global options come before the command.
    while (!args.isEmpty() && args.first().startsWith(QLatin1Char('-'))) {
        const QString opt = args.takeFirst();
        if (opt == QLatin1String("--help") || opt == QLatin1String("-h")) {
            Context(QString()).out() << overviewText();
            return 0;
        }
        if (opt == QLatin1String("--version")) {
            Context(QString()).out() << "clusterdeckctl " << versionString() << '\n';
            return 0;
        }
        if (opt == QLatin1String("--store")) {
            if (args.isEmpty())
                return Context(QString()).usage(QStringLiteral("--store needs a URL"));
            storeOption = args.takeFirst();
        } else if (opt.startsWith(QLatin1String("--store="))) {
            storeOption = opt.mid(8);
        } else {
            return Context(QString()).usage(
                QStringLiteral("unknown option '%1' (see clusterdeckctl --help)").arg(opt));
        }
    }
    Context context(storeOption);
    if (args.isEmpty()) {
        context.err() << overviewText();
        return 2;
    }
    const QString command = args.takeFirst();
    if (command == QLatin1String("help"))
        return helpCommand(context, args);
    if (command == QLatin1String("version")) {
        context.out() << "clusterdeckctl " << versionString() << '\n';
        return 0;
    }
    for (const CommandEntry &entry : kCommands) {
        if (entry.run && command == QLatin1String(entry.name))
            return entry.run(context, args);
    }
    return context.usage(
        QStringLiteral("unknown command '%1' (see clusterdeckctl --help)").arg(command));
}

} // namespace ClusterDeck::Cli
