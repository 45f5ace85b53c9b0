#include "sessionhistory.h"

#include "store/statestore.h"
#include "store/status.h"

#include <QRegularExpression>

#include <algorithm>

namespace ClusterDeck {

using namespace std::chrono_literals;

bool SessionHistory::hasEnded(const SessionRecord &session, const QList<KernelRecord> &kernels)
{
    if (!isFinal(session.status))
        return false;
    return std::all_of(kernels.cbegin(), kernels.cend(),
                       [](const KernelRecord &k) { return isFinal(k.status); });
}

QDateTime SessionHistory::endedAt(const SessionRecord &session)
{
    if (session.finishedAt.isValid())
        return session.finishedAt;
    if (session.updatedAt.isValid())
        return session.updatedAt;
    return session.createdAt;
}

QList<SessionRecord> SessionHistory::prunable(const QList<SessionRecord> &sessions,
                                              const QHash<QString, QList<KernelRecord>> &kernels,
                                              std::optional<std::chrono::seconds> olderThan,
                                              const QDateTime &now)
{
    QList<SessionRecord> chosen;
    for (const SessionRecord &s : sessions) {
        if (!hasEnded(s, kernels.value(s.id)))
            continue;
        if (olderThan) {
            const QDateTime ended = endedAt(s);
            // Without any time the age is unknown: keep it rather than guess.
            if (!ended.isValid() || ended.secsTo(now) < olderThan->count())
                continue;
        }
        chosen.append(s);
    }
    std::sort(chosen.begin(), chosen.end(), [](const SessionRecord &a, const SessionRecord &b) {
        return endedAt(a) < endedAt(b);
    });
    return chosen;
}

Result<std::chrono::seconds> SessionHistory::parseDuration(const QString &text)
{
    static const QRegularExpression whole(QStringLiteral(R"(^(\d+[smhdw])+$)"));
    static const QRegularExpression part(QStringLiteral(R"((\d+)([smhdw]))"));
    const QString t = text.trimmed();
    if (!whole.match(t).hasMatch())
        return fail(
            Error::Kind::Invalid, QString(),
            QStringLiteral("'%1' is not a duration (e.g. 90s, 30m, 12h, 7d, 2w, 1h30m)").arg(text));
    qint64 total = 0;
    for (auto it = part.globalMatch(t); it.hasNext();) {
        const auto m = it.next();
        const qint64 n = m.captured(1).toLongLong();
        const QChar unit = m.captured(2).at(0);
        const qint64 scale = unit == u's'   ? 1
                             : unit == u'm' ? 60
                             : unit == u'h' ? 3600
                             : unit == u'd' ? 86400
                                            : 7 * 86400;
        total += n * scale;
    }
    return std::chrono::seconds(total);
}

Result<void> SessionHistory::forget(StateStore *store, const QString &sessionId)
{
    auto lock = store->lockSession(sessionId, 10s);
    if (!lock)
        return fail(lock.error());
    auto session = store->session(sessionId);
    if (!session)
        return fail(session.error());
    auto kernels = store->kernels(sessionId);
    if (!kernels)
        return fail(kernels.error());
    if (!hasEnded(*session, *kernels))
        return fail(Error::Kind::Invalid, QStringLiteral("session %1").arg(session->name),
                    QStringLiteral("it is %1, not ended: terminate it first (rm)")
                        .arg(toString(session->status)));
    return store->removeSession(sessionId);
}

} // namespace ClusterDeck
