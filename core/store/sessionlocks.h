#pragma once

#include "common/error.h"
#include "sessionlock.h"

#include <chrono>
#include <memory>

namespace ClusterDeck {

// Exclusive per-session work (a StateStore role): one console, CLI or controller at a time
// provisions, restarts, terminates or reconciles a session.
class SessionLocks
{
public:
    // Waits up to `wait`, then fails with Kind::Conflict ("busy").
    virtual Result<std::unique_ptr<SessionLock>> lockSession(const QString &sessionId,
                                                             std::chrono::milliseconds wait) = 0;

protected:
    ~SessionLocks() = default; // owned as the StateStore it is part of
};

} // namespace ClusterDeck
