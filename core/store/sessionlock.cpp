#include "sessionlock.h"

#include "common/logging.h"

namespace ClusterDeck {

Error SessionLock::lostError() const
{
    std::lock_guard lock(m_lostMutex);
    return m_lostError.value_or(Error::make(Error::Kind::Conflict, QString(),
                                            QStringLiteral("the session lock was not lost")));
}

void SessionLock::onLost(std::function<void(const Error &)> callback)
{
    std::optional<Error> already;
    {
        std::lock_guard lock(m_lostMutex);
        if (!m_lostError) {
            m_lostCallbacks.append(std::move(callback));
            return;
        }
        already = m_lostError;
    }
    callback(*already);
}

void SessionLock::markLost(const QString &sessionId, const QString &why)
{
    QList<std::function<void(const Error &)>> callbacks;
    Error error;
    {
        std::lock_guard lock(m_lostMutex);
        if (m_lostError)
            return;
        m_lostError = Error::make(
            Error::Kind::Conflict, QStringLiteral("session %1").arg(sessionId),
            QStringLiteral("lost the lock of session %1 (%2): stopped; the controller finishes it")
                .arg(sessionId, why));
        error = *m_lostError;
        callbacks = std::exchange(m_lostCallbacks, {});
    }
    m_lost.cancel();
    qCWarning(lcStore).noquote() << error.toString();
    for (const auto &callback : std::as_const(callbacks))
        callback(error);
}

} // namespace ClusterDeck
