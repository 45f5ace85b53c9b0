#pragma once

#include "common/canceltoken.h"
#include "common/error.h"
#include "sessionspec.h"
#include "store/storeidentity.h"

#include <QHash>
#include <QMap>
#include <QSet>
#include <QStringList>

#include <chrono>

namespace ClusterDeck {

class HostRegistry;
class StateStore;

// How far a removal (a rollback, a terminate) may go before it leaves the rest to the controller.
struct RemovalOptions
{
    std::chrono::milliseconds deadline{30000}; // the whole removal, every host, every retry
    CancelToken cancel;                        // stops it at once (the controller finishes)
    QHash<QString, CancelToken> hostCancel;    // per host, used instead of `cancel`
    QSet<QString> skipHosts; // known not to answer: not asked (their objects wait for them)
    // The network leaves the spec's hosts only: what the store holds for it stays (a VXLAN
    // session scaled away from a host keeps its VNI and subnet).
    bool keepClaim = false;
};

// Removes what a session made on its hosts: every container of its kernels, its network and the
// volumes it made, each only after its labels say it is this store's and this session's. Bounded
// by one deadline for everything; a host that does not answer costs it once, not per object.
class SessionTeardown
{
public:
    // `store`: its identity (whose objects these are) and what a network holds in it.
    SessionTeardown(StateStore *store, HostRegistry *registry, int perHostLimit = 0);

    // Every container, the network and the volumes listed in `volumes` (host → names) of a
    // session, on every host involved, within options.deadline. Objects already gone are fine.
    // `unfinished` (optional) receives the hosts whose objects may remain.
    Result<void> remove(const SessionSpec &spec, const QMap<QString, QStringList> &volumes = {},
                        const RemovalOptions &options = {},
                        QStringList *unfinished = nullptr) const;

private:
    StateStore *m_store;
    StoreIdentity m_self;
    HostRegistry *m_registry;
    int m_perHostLimit;
};

} // namespace ClusterDeck
