#pragma once

#include "common/error.h"

#include <QDateTime>
#include <QString>

namespace ClusterDeck {

// Who holds a session lock, as both backends record it (SQLite: the lock row; etcd: the lock
// key's value) and as a "busy" error names it.
struct LockHolder
{
    QString owner; // "user@machine (pid N)"
    QDateTime since;

    // This process, now.
    static LockHolder thisProcess();
    // "session X is busy: locked by OWNER since TIME" (Kind::Conflict); an unknown holder is
    // "another console", an unknown time "an unknown time".
    Error busyError(const QString &sessionId) const;
};

} // namespace ClusterDeck
