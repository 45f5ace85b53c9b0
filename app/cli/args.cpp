#include "args.h"

#include <algorithm>

namespace ClusterDeck::Cli {

Args Args::parse(const QStringList &args, const QStringList &valued, const QStringList &flagNames)
{
    Args a;
    bool optionsEnded = false;
    for (int i = 0; i < args.size(); ++i) {
        QString arg = args.at(i);
        // Short options ("-u") only where a command names them; other words with one '-' stay
        // positional (a negative number, a command's own options after the first word).
        const bool shortOption = !arg.startsWith(QLatin1String("--")) &&
                                 arg.startsWith(QLatin1Char('-')) &&
                                 (valued.contains(arg) || flagNames.contains(arg));
        if (optionsEnded || (!arg.startsWith(QLatin1String("--")) && !shortOption)) {
            a.positional.append(arg);
            continue;
        }
        if (arg == QLatin1String("--")) {
            // Everything after `--` is positional (a command to run, say).
            optionsEnded = true;
            continue;
        }
        QString value;
        bool hasValue = false;
        if (arg.contains(QLatin1Char('='))) {
            value = arg.section(QLatin1Char('='), 1);
            arg = arg.section(QLatin1Char('='), 0, 0);
            hasValue = true;
        }
        if (valued.contains(arg)) {
            if (!hasValue) {
                if (i + 1 >= args.size()) {
                    a.error = QStringLiteral("%1 needs a value").arg(arg);
                    return a;
                }
                value = args.at(++i);
            }
            a.values.insert(arg, value);
        } else if (flagNames.contains(arg) && !hasValue) {
            a.flags.insert(arg);
        } else {
            a.error = QStringLiteral("unknown option '%1'").arg(arg);
            return a;
        }
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
