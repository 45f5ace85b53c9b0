#pragma once

#include "eventstore.h"
#include "hoststore.h"
#include "kernelstore.h"
#include "leaderelection.h"
#include "networkallocationstore.h"
#include "secretstore.h"
#include "sessionlocks.h"
#include "sessionstore.h"
#include "settingstore.h"
#include "storeidentity.h"

#include <QObject>

#include <chrono>

namespace ClusterDeck {

// Where ClusterDeck remembers hosts, sessions (desired + actual), kernels and its event log.
// Two backends (sqlite:, etcd:) pass one contract suite. Every mutating call is one transaction:
// it either fully happens or not at all. Notifications arrive as Qt signals on the receiver's
// thread. What it does comes in roles (hoststore.h … settingstore.h), so that code which needs
// one of them can say which; a backend implements them all.
class StateStore
    : public QObject
    , public HostStore
    , public SessionStore
    , public KernelStore
    , public SecretStore
    , public NetworkAllocationStore
    , public SettingStore
    , public EventStore
    , public SessionLocks
    , public LeaderElection
{
    Q_OBJECT

public:
    using QObject::QObject;
    ~StateStore() override = default;

    virtual QString url() const = 0;
    // The random UUID made when the store was created (SQLite: the meta table; etcd:
    // <prefix>/meta/id). Objects are labelled io.clusterdeck.store=<storeId()>.
    virtual QString storeId() const = 0;
    // Store label values written by builds before the store id (the store's URL), recorded when
    // the store was migrated; empty for a store created with an id.
    virtual QStringList legacyStoreLabels() const = 0;
    StoreIdentity identity() const { return {storeId(), legacyStoreLabels()}; }
    // For the status bar: "sqlite /path" / "etcd a:2379,b:2379".
    virtual QString describe() const = 0;

    // Removes what an interrupted multi-step write left behind for longer than `grace` (etcd:
    // kernels of a session whose record never came, the undo records of an unfinished chunked
    // kernel update, which it undoes, the network allocation of a session record removed by a
    // build from before them); returns how many it cleaned. The controller's pass calls
    // it. A store whose every write is one transaction (SQLite) has nothing to do.
    virtual Result<int> removeStrayRecords(std::chrono::milliseconds grace)
    {
        Q_UNUSED(grace);
        return 0;
    }

Q_SIGNALS:
    // The change feed had a gap (an etcd watch was compacted): re-read everything.
    void changesLost();
    // The leader or its published status changed; someone asked the leader for a pass.
    void controllerChanged();
    void controllerPassRequested();
    void hostChanged(const QString &name);
    void hostRemoved(const QString &name);
    void sessionAdded(const QString &sessionId);
    void sessionChanged(const QString &sessionId);
    void sessionRemoved(const QString &sessionId);
    void kernelChanged(const QString &sessionId, const QString &kernelId);
    void eventAppended(qint64 seq);
    // A store-wide setting was written or removed (see setting()).
    void settingChanged(const QString &key);
};

} // namespace ClusterDeck
