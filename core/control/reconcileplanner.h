#pragma once

#include "docker/dockertypes.h"
#include "store/records.h"
#include "store/storeidentity.h"

#include <QDateTime>
#include <QHash>
#include <QJsonObject>
#include <QList>
#include <QString>

#include <chrono>
#include <optional>

namespace ClusterDeck {

// What one host holds of ClusterDeck's objects (everything carrying io.clusterdeck.session,
// whichever store made it), or why it could not be asked.
struct HostListing
{
    bool reachable = false;
    QString error;
    QList<Docker::ContainerSummary> containers;
    QList<Docker::NetworkInfo> networks;
};

// A snapshot of the world. The host listings are taken *before* the store is read: desired state
// is written before any side effect, so every object a listing shows belongs to a session the
// later store read knows — unless that session really is gone. (The other order would take a
// session launched between the two reads for an orphan.)
struct Observed
{
    QHash<QString, HostListing> hosts; // every registered host
    QList<SessionRecord> sessions;
    QHash<QString, QList<KernelRecord>> kernels; // session id → its kernels
    QDateTime listedAt;                          // when the listings began
    QDateTime now;
};

// One thing to do, with the reason. The controller applies each under the session's lock, after
// planning that session again from a fresh look (so nothing stale is ever acted on).
struct ReconcileAction
{
    enum class Kind {
        RemoveOrphanContainer, // this store's label, a session the store does not know, old enough
        RemoveOrphanNetwork,
        RemoveStrayContainer, // of a known session, but not one of its kernels on this host
        RemoveSessionObjects, // desired terminated, or finished past ttlAfterFinished
        MarkTerminated,       // desired terminated and nothing is left on any host
        MarkTerminating,      // desired terminated, but a host that may hold objects is down
        MarkUnknown,          // a kernel whose host does not answer
        MarkRecovered,        // an UNKNOWN kernel whose host answers again with it running
        KernelExited,         // a RUNNING kernel's container has stopped: the policies decide
        KernelVanished,       // a RUNNING kernel's container is gone: the policies decide
        CompleteSession,      // a launch or restart was interrupted: finish it (all-or-nothing)
        FinishScale,          // a scale was interrupted: undo its grow or finish its shrink
    };
    Kind kind;
    QString sessionId;
    QString kernelId;
    QString host;
    QString objectId;   // container or network id
    QString objectName; // for people
    std::optional<int> exitCode;
    QString why;

    static QString name(Kind kind);
    QJsonObject toJson() const;
    friend bool operator==(const ReconcileAction &, const ReconcileAction &) = default;
};

struct ReconcilePlan
{
    QList<ReconcileAction> actions;
    QStringList notes; // what was deliberately left alone, and why
};

// Pure: no I/O, no clock (everything is in `observed`). `self` is this store's identity: objects
// whose io.clusterdeck.store label is absent or another store's are never acted on; a legacy (URL)
// label counts only on objects of sessions the store knows.
// `grace`: how old an orphan must be (by its Docker creation time) before it is removed.
ReconcilePlan planReconcile(const Observed &observed, const StoreIdentity &self,
                            std::chrono::seconds grace);

// "Exited (137) 3 seconds ago" → 137.
std::optional<int> exitCodeFromStatus(const QString &dockerStatus);

} // namespace ClusterDeck
