#pragma once

#include <QString>

namespace ClusterDeck {

class EventStore;

// One lifecycle event into the store's event log (Events view, `watch`). Logging never fails the
// operation it describes: a store error is only warned about.
void logLifecycleEvent(EventStore *store, const QString &actor, const QString &sessionId,
                       const QString &kernelId, const QString &action, const QString &detail);

} // namespace ClusterDeck
