#pragma once

#include "common/error.h"
#include "records.h"

namespace ClusterDeck {

// Sessions: their desired and actual state, created and removed with their kernels (a
// StateStore role; the kernels' own changes are KernelStore's).
class SessionStore
{
public:
    // Writes the session and its kernels at once (desired state first).
    virtual Result<void> createSession(const SessionRecord &session,
                                       const QList<KernelRecord> &kernels) = 0;
    virtual Result<void> updateSession(const SessionRecord &session) = 0;
    virtual Result<void> removeSession(const QString &sessionId) = 0; // with its kernels
    // `scale`: writes the session, adds `added` (new ids) and removes the kernels `removedIds`,
    // in one transaction. Announced as sessionChanged plus kernelChanged for each added kernel.
    virtual Result<void> resizeSession(const SessionRecord &session,
                                       const QList<KernelRecord> &added,
                                       const QStringList &removedIds) = 0;
    // Every session that decodes; an undecodable record is left out with a warning in the log
    // (callers that must know — `ls`, the console, the controller — use listSessions()).
    Result<QList<SessionRecord>> sessions() const;
    // The sessions that decode and, apart, the records that do not (naming their key or row).
    virtual Result<SessionListing> listSessions() const = 0;
    virtual Result<SessionRecord> session(const QString &sessionId) const = 0;

protected:
    ~SessionStore() = default; // owned as the StateStore it is part of
};

} // namespace ClusterDeck
