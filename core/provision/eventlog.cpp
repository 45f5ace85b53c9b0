#include "eventlog.h"

#include "common/logging.h"
#include "store/eventstore.h"

#include <QDateTime>

namespace ClusterDeck {

void logLifecycleEvent(EventStore *store, const QString &actor, const QString &sessionId,
                       const QString &kernelId, const QString &action, const QString &detail)
{
    EventRecord e;
    e.at = QDateTime::currentDateTimeUtc();
    e.actor = actor;
    e.sessionId = sessionId;
    e.kernelId = kernelId;
    e.action = action;
    e.detail = detail;
    if (auto ok = store->appendEvent(e); !ok)
        qCWarning(lcProvision) << "event log:" << ok.error().toString();
}

} // namespace ClusterDeck
