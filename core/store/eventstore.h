#pragma once

#include "common/error.h"
#include "records.h"

namespace ClusterDeck {

// The event log: what happened to sessions, kernels and the controller, in order (a
// StateStore role).
class EventStore
{
public:
    // Returns the event's sequence number.
    virtual Result<qint64> appendEvent(const EventRecord &event) = 0;
    virtual Result<QList<EventRecord>> events(qint64 afterSeq = 0, int limit = 1000) const = 0;

protected:
    ~EventStore() = default; // owned as the StateStore it is part of
};

} // namespace ClusterDeck
