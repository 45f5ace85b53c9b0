#pragma once

#include "common/error.h"
#include "store/records.h"

#include <QDateTime>
#include <QHash>
#include <QList>
#include <QString>

#include <chrono>
#include <optional>

namespace ClusterDeck {

class StateStore;

// Ended sessions stay in the store (their history, events and last error) until someone forgets
// them: `clusterdeckctl prune` and the console's "Remove from history". A session that has not
// ended (or any of whose kernels has not) is never forgotten.
class SessionHistory
{
public:
    // Ended: a final status (TERMINATED, COMPLETED, ERROR, CANCELLED) and every kernel final.
    static bool hasEnded(const SessionRecord &session, const QList<KernelRecord> &kernels);
    // When it ended: finished_at, else the last update, else its creation.
    static QDateTime endedAt(const SessionRecord &session);
    // Pure: the ended sessions among `sessions` that ended at least `olderThan` before `now`
    // (all ended ones without `olderThan`), oldest first.
    static QList<SessionRecord> prunable(const QList<SessionRecord> &sessions,
                                         const QHash<QString, QList<KernelRecord>> &kernels,
                                         std::optional<std::chrono::seconds> olderThan,
                                         const QDateTime &now);
    // "90s", "30m", "12h", "7d", "2w", "1h30m" → seconds; an error names what is wrong.
    static Result<std::chrono::seconds> parseDuration(const QString &text);

    // Removes one ended session (with its kernels) under its lock, re-checking that it ended.
    // Invalid (naming its status) when it has not.
    static Result<void> forget(StateStore *store, const QString &sessionId);
};

} // namespace ClusterDeck
