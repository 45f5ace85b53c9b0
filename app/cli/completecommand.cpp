#include "completecommand.h"

#include "commandspec.h"
#include "common/logging.h"
#include "provision/sessioncontroller.h"
#include "store/statestore.h"
#include "store/storeurl.h"
#include "template/templateloader.h"

#include <QFileInfo>
#include <QRegularExpression>
#include <QSet>

namespace ClusterDeck::Cli {

namespace {

const QString kFiles = QStringLiteral(":files");

QStringList topLevelWords()
{
    QStringList words;
    for (const CommandSpec &s : commandSpecs()) {
        const QString first = s.name.section(QLatin1Char(' '), 0, 0);
        if (!s.hidden && !words.contains(first))
            words.append(first);
    }
    words << QStringLiteral("help") << QStringLiteral("version");
    return words;
}

QStringList withPrefix(const QStringList &candidates, const QString &current,
                       const QString &prepend = {})
{
    QStringList out;
    for (const QString &c : candidates) {
        if (c.startsWith(current) && !out.contains(prepend + c))
            out.append(prepend + c);
    }
    return out;
}

QStringList call(const std::function<QStringList()> &f)
{
    return f ? f() : QStringList{};
}

QStringList call(const std::function<QStringList(const QString &)> &f, const QString &arg)
{
    return f && !arg.isEmpty() ? f(arg) : QStringList{};
}

} // namespace

QStringList completions(const QStringList &allWords, const CompletionNames &names)
{
    QStringList words = allWords;
    const QString current = words.isEmpty() ? QString() : words.takeLast();
    // Global options before the command.
    while (!words.isEmpty() && words.first().startsWith(QLatin1Char('-'))) {
        const QString opt = words.takeFirst();
        if (opt == QLatin1String("--store")) {
            if (words.isEmpty())
                return {}; // the URL itself
            words.removeFirst();
        }
    }
    if (words.isEmpty()) {
        if (current.startsWith(QLatin1Char('-')))
            return withPrefix(
                {QStringLiteral("--store"), QStringLiteral("--help"), QStringLiteral("--version")},
                current);
        return withPrefix(topLevelWords(), current);
    }
    if (words.first() == QLatin1String("help")) {
        words.removeFirst();
        words.append(current);
        if (words.size() == 1)
            return withPrefix(topLevelWords(), current);
        return completions(words, {}).filter(QRegularExpression(QStringLiteral("^[^-:]")));
    }

    int consumed = 0;
    const CommandSpec *spec = findCommandSpec(words, &consumed);
    if (!spec) {
        // A group word so far ("host", "store key"): its subcommands.
        return withPrefix(subcommandsOf(words.join(QLatin1Char(' '))), current);
    }

    // Where the words after the command leave us.
    const QStringList rest = words.mid(consumed);
    QStringList positionals;
    QSet<QString> used;
    const OptionSpec *pending = nullptr;
    bool optionsEnded = false;
    for (const QString &w : rest) {
        if (pending) {
            pending = nullptr;
            continue;
        }
        if (optionsEnded) {
            positionals.append(w);
            continue;
        }
        if (w == QLatin1String("--")) {
            optionsEnded = true;
            continue;
        }
        const OptionSpec *o = spec->option(w.section(QLatin1Char('='), 0, 0));
        if (o) {
            used.insert(o->name);
            if (o->takesValue() && !w.contains(QLatin1Char('=')))
                pending = o;
            continue;
        }
        if (w.startsWith(QLatin1String("--")))
            continue; // unknown: the command will say so
        positionals.append(w);
    }

    ValueKind kind = ValueKind::None;
    QStringList choices;
    QString typed = current; // the part of CURRENT being completed
    QString prepend;         // what stays in front of each candidate
    if (pending) {
        kind = pending->kind;
        choices = pending->choices;
    } else if (!optionsEnded && current.startsWith(QLatin1String("--")) &&
               current.contains(QLatin1Char('='))) {
        const OptionSpec *o = spec->option(current.section(QLatin1Char('='), 0, 0));
        if (!o)
            return {};
        kind = o->kind;
        choices = o->choices;
        prepend = current.section(QLatin1Char('='), 0, 0) + QLatin1Char('=');
        typed = current.section(QLatin1Char('='), 1);
    } else if (!optionsEnded && current.startsWith(QLatin1Char('-'))) {
        QStringList flags;
        for (const OptionSpec &o : spec->options) {
            if (o.repeatable || !used.contains(o.name))
                flags.append(o.name);
        }
        flags.append(QStringLiteral("--help"));
        return withPrefix(flags, current);
    } else {
        kind = optionsEnded ? ValueKind::Command : spec->positionalKind(int(positionals.size()));
    }
    if (kind == ValueKind::Host && typed.contains(QLatin1Char(','))) {
        // --hosts h1,h2,…: complete the last name of the list.
        prepend += typed.left(typed.lastIndexOf(QLatin1Char(',')) + 1);
        typed = typed.mid(typed.lastIndexOf(QLatin1Char(',')) + 1);
    }

    // The session (or template) the words named first.
    const QString first = positionals.value(0);
    const bool sessionFirst = spec->positionalKind(0) == ValueKind::Session;
    switch (kind) {
    case ValueKind::File:
        return {kFiles};
    case ValueKind::Choice:
        return withPrefix(choices, typed, prepend);
    case ValueKind::Session:
        return withPrefix(call(names.sessions), typed, prepend);
    case ValueKind::Host:
        return withPrefix(call(names.hosts), typed, prepend);
    case ValueKind::Kernel:
        return withPrefix(sessionFirst ? call(names.kernels, first) : QStringList{}, typed,
                          prepend);
    case ValueKind::Role:
        return withPrefix(sessionFirst ? call(names.roles, first) : QStringList{}, typed, prepend);
    case ValueKind::RoleCount: {
        const QStringList roles =
            sessionFirst ? call(names.roles, first) : call(names.templateRoles, first);
        QStringList counts;
        for (const QString &r : roles)
            counts.append(r + QLatin1Char('='));
        return withPrefix(counts, typed, prepend);
    }
    case ValueKind::None:
    case ValueKind::Text:
    case ValueKind::Command:
        break;
    }
    return {};
}

int completeCommand(Context &context, const QStringList &args)
{
    // Nothing but candidates on stdout; no library chatter on stderr.
    Logging::apply(Logging::Level::Quiet);
    // The store the words name (--store before the command), else the context's; only one that
    // exists (an SQLite file that is not there is not created by a TAB).
    QString storeOption = context.storeOption();
    for (qsizetype i = 0; i + 1 < args.size() && args.at(i).startsWith(QLatin1Char('-')); ++i) {
        if (args.at(i) == QLatin1String("--store")) {
            storeOption = args.at(i + 1);
            break;
        }
    }
    Context storeContext(storeOption);
    auto store = [&storeContext, storeOption]() -> StateStore * {
        auto url = StoreUrl::resolve(storeOption);
        if (!url || (url->kind == StoreUrl::Kind::Sqlite && !QFileInfo::exists(url->path)))
            return nullptr;
        auto s = storeContext.store();
        return s ? *s : nullptr;
    };
    auto kernelsOf = [store](const QString &ref) -> QList<KernelRecord> {
        StateStore *s = store();
        if (!s)
            return {};
        auto session = SessionController::findSession(*s, ref);
        if (!session)
            return {};
        auto kernels = s->kernels(session->id);
        return kernels ? *kernels : QList<KernelRecord>{};
    };

    CompletionNames names;
    names.sessions = [store] {
        QStringList out;
        if (StateStore *s = store()) {
            if (auto listing = s->listSessions()) {
                for (const SessionRecord &r : std::as_const(listing->sessions))
                    out.append(r.name.isEmpty() ? r.id : r.name);
            }
        }
        return out;
    };
    names.hosts = [store] {
        QStringList out;
        if (StateStore *s = store()) {
            if (auto hosts = s->hosts()) {
                for (const HostRecord &h : std::as_const(*hosts))
                    out.append(h.name);
            }
        }
        return out;
    };
    names.kernels = [kernelsOf](const QString &ref) {
        QStringList out;
        for (const KernelRecord &k : kernelsOf(ref))
            out.append(k.hostname);
        return out;
    };
    names.roles = [kernelsOf](const QString &ref) {
        QStringList out;
        for (const KernelRecord &k : kernelsOf(ref)) {
            if (!out.contains(k.role))
                out.append(k.role);
        }
        return out;
    };
    names.templateRoles = [](const QString &file) {
        QStringList out;
        TemplateLoader loader;
        if (auto t = loader.loadClusterFile(file)) {
            for (const RoleTemplate &r : std::as_const(t->roles))
                out.append(r.name);
        }
        return out;
    };
    for (const QString &line : completions(args, names))
        context.out() << line << '\n';
    context.out().flush();
    return 0;
}

} // namespace ClusterDeck::Cli
