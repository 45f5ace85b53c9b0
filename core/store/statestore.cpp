#include "statestore.h"

#include "common/logging.h"

#include <QHash>
#include <QRegularExpression>

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

Result<void> StateStore::checkSettingKey(const QString &key)
{
    // Anchored: "$" alone would let a trailing newline through.
    static const QRegularExpression valid(
        QRegularExpression::anchoredPattern(QStringLiteral("[a-z0-9.-]+")));
    if (valid.match(key).hasMatch())
        return {};
    return fail(Error::Kind::Invalid, QStringLiteral("setting \"%1\"").arg(key),
                key.isEmpty() ? QStringLiteral("a setting needs a name (like network.driver)")
                              : QStringLiteral("a setting's name is made of lower-case letters, "
                                               "digits, '.' and '-' (like network.driver)"));
}

Result<void> StateStore::recordKernelProgress(const QList<KernelProgress> &progress,
                                              const std::optional<SessionRecord> &session)
{
    QList<KernelRef> refs;
    QHash<QString, const KernelProgress *> byId;
    refs.reserve(progress.size());
    for (const KernelProgress &p : progress) {
        refs.append(p.kernel);
        byId.insert(p.kernel.sessionId + u'/' + p.kernel.kernelId, &p);
    }
    const auto apply = [&byId](KernelRecord &k) {
        const KernelProgress *p = byId.value(k.sessionId + u'/' + k.id);
        if (!p)
            return false;
        for (const KernelStatusChange &change : p->changes) {
            k.status = change.status;
            k.history.append(change);
        }
        if (p->containerId)
            k.containerId = *p->containerId;
        if (p->ports)
            k.ports = *p->ports;
        if (p->desired)
            k.desired = *p->desired;
        k.updatedAt = p->updatedAt;
        return true;
    };
    if (session) {
        // With the session in the same transaction: updateKernels() is the one that takes both.
        auto current = kernels(session->id);
        if (!current)
            return fail(current.error());
        QList<KernelRecord> changed;
        for (KernelRecord &k : *current) {
            if (apply(k))
                changed.append(std::move(k));
        }
        return updateKernels(changed, session);
    }
    auto changed = modifyKernels(refs, apply);
    if (!changed)
        return fail(changed.error());
    return {};
}

Result<QList<SessionRecord>> StateStore::sessions() const
{
    auto listing = listSessions();
    if (!listing)
        return fail(listing.error());
    for (const UndecodableRecord &r : std::as_const(listing->undecodable))
        qCWarning(lcStore).noquote() << "left out an undecodable session record:" << r.toString();
    return std::move(listing->sessions);
}

Result<NetworkAllocation> StateStore::claimNetworkAllocation(const QString &sessionId,
                                                             const OverlayPool &pool,
                                                             const OverlayAvoid &inUse)
{
    NetworkClaim claim;
    claim.sessionId = sessionId;
    claim.pool = pool;
    claim.inUse = inUse;
    return claimNetwork(claim);
}

Result<NetworkAllocation> StateStore::reclaimNetworkAllocation(const QString &sessionId,
                                                               const OverlayPool &pool,
                                                               const OverlayAvoid &collided,
                                                               const OverlayAvoid &inUse)
{
    NetworkClaim claim;
    claim.sessionId = sessionId;
    claim.pool = pool;
    claim.inUse = inUse;
    claim.reclaim = true;
    claim.collided = collided;
    return claimNetwork(claim);
}

} // namespace ClusterDeck
