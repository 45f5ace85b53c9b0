#include "prunecommands.h"

#include "args.h"
#include "commandsupport.h"
#include "provision/sessionhistory.h"
#include "store/statestore.h"

#include <QDateTime>

namespace ClusterDeck::Cli {

int pruneCommand(Context &context, const QStringList &args)
{
    Args a;
    if (const auto stop = parseArgs(context, args, QStringLiteral("prune"), &a))
        return *stop;
    if (!a.positional.isEmpty())
        return context.usage(QStringLiteral("prune takes no arguments"));
    std::optional<std::chrono::seconds> olderThan;
    if (a.values.contains(QStringLiteral("--older-than"))) {
        auto d = SessionHistory::parseDuration(a.value(QStringLiteral("--older-than")));
        if (!d)
            return context.usage(QStringLiteral("--older-than: ") + d.error().message);
        olderThan = *d;
    }
    auto store = context.store();
    if (!store)
        return context.fail(store.error());
    auto sessions = (*store)->sessions();
    if (!sessions)
        return context.fail(sessions.error());
    auto all = (*store)->allKernels();
    if (!all)
        return context.fail(all.error());
    QHash<QString, QList<KernelRecord>> kernels;
    for (const KernelRecord &k : std::as_const(*all))
        kernels[k.sessionId].append(k);
    const QList<SessionRecord> chosen =
        SessionHistory::prunable(*sessions, kernels, olderThan, QDateTime::currentDateTimeUtc());
    const bool dryRun = a.has(QStringLiteral("--dry-run"));
    int removed = 0;
    int failed = 0;
    for (const SessionRecord &s : chosen) {
        if (!dryRun) {
            // Re-checked under the session's lock: it may have been restarted meanwhile.
            if (auto ok = SessionHistory::forget(*store, s.id); !ok) {
                context.err() << "warning: " << s.name << " (" << s.id
                              << ") kept: " << ok.error().toString() << '\n';
                ++failed;
                continue;
            }
        }
        ++removed;
        context.out() << (dryRun ? "would remove " : "removed ") << s.name << " (" << s.id.left(8)
                      << ", " << toString(s.status) << ", ended "
                      << SessionHistory::endedAt(s).toLocalTime().toString(
                             QStringLiteral("yyyy-MM-dd HH:mm:ss"))
                      << ")\n";
    }
    context.out() << (dryRun ? "would remove " : "removed ") << removed << " of "
                  << sessions->size() << " session(s) from the store\n";
    return failed > 0 ? 1 : 0;
}

} // namespace ClusterDeck::Cli
