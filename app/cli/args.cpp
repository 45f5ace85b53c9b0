#include "args.h"

#include "commandspec.h"

#include <algorithm>

namespace ClusterDeck::Cli {

Args Args::parse(const QStringList &args, const CommandSpec &spec)
{
    Args a;
    bool optionsEnded = false;
    for (int i = 0; i < args.size(); ++i) {
        QString arg = args.at(i);
        if (optionsEnded) {
            a.positional.append(arg);
            continue;
        }
        if (arg == QLatin1String("--")) {
            // Everything after `--` is positional (a command to run, say).
            optionsEnded = true;
            continue;
        }
        if (arg == QLatin1String("--help") || arg == QLatin1String("-h")) {
            a.helpRequested = true;
            continue;
        }
        // Short options ("-u") only where a command names them; other words with one '-' stay
        // positional (a negative number, "-" for stdin).
        const bool longOption = arg.startsWith(QLatin1String("--"));
        if (!longOption && !(arg.startsWith(QLatin1Char('-')) && spec.option(arg))) {
            a.positional.append(arg);
            continue;
        }
        QString value;
        bool hasValue = false;
        if (longOption && arg.contains(QLatin1Char('='))) {
            value = arg.section(QLatin1Char('='), 1);
            arg = arg.section(QLatin1Char('='), 0, 0);
            hasValue = true;
        }
        const OptionSpec *option = spec.option(arg);
        if (!option || (!option->takesValue() && hasValue)) {
            if (a.error.isEmpty())
                a.error = QStringLiteral("unknown option '%1'").arg(arg);
            continue;
        }
        if (!option->takesValue()) {
            a.flags.insert(option->name);
            continue;
        }
        if (!hasValue) {
            if (i + 1 >= args.size()) {
                if (a.error.isEmpty())
                    a.error = QStringLiteral("%1 needs a value").arg(arg);
                continue;
            }
            value = args.at(++i);
        }
        if (!option->repeatable && a.values.contains(option->name) && a.error.isEmpty())
            a.error = QStringLiteral("%1 given more than once").arg(option->name);
        a.values.insert(option->name, value);
    }
    return a;
}

QStringList Args::all(const QString &key) const
{
    QStringList list = values.values(key);
    std::reverse(list.begin(), list.end()); // QMultiMap returns the newest first
    return list;
}

} // namespace ClusterDeck::Cli
