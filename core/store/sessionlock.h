#pragma once

#include "common/canceltoken.h"
#include "common/error.h"

#include <QList>
#include <QString>

#include <functional>
#include <mutex>
#include <optional>

namespace ClusterDeck {

// Held while a console provisions, restarts, terminates or reconciles one session; released on
// destruction. For SQLite a row with an expiry, renewed by a thread while held; for etcd a
// lease-based lock kept alive in the background. The holder can tell when it was lost (the row
// expired or was taken, the lease died): lostToken() is cancelled and the callbacks given to
// onLost() run, once, on the thread that noticed. A holder stops making side effects then and
// leaves the rest to the controller (lostError() says so).
class SessionLock
{
public:
    virtual ~SessionLock() = default;

    bool isLost() const { return m_lost.isCancelled(); }
    CancelToken lostToken() const { return m_lost; }
    // "lost the lock of session X (why): stopped; the controller finishes it"; Kind::Conflict.
    Error lostError() const;
    // Runs `callback` when the lock is lost (at once, on this thread, if it already is).
    void onLost(std::function<void(const Error &)> callback);

protected:
    // For implementations: the first call wins, later ones are ignored.
    void markLost(const QString &sessionId, const QString &why);

private:
    mutable std::mutex m_lostMutex;
    CancelToken m_lost;
    std::optional<Error> m_lostError;
    QList<std::function<void(const Error &)>> m_lostCallbacks;
};

} // namespace ClusterDeck
