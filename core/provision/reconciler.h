#pragma once

#include "common/error.h"

#include <QJsonObject>
#include <QList>
#include <QString>
#include <QStringList>

#include <chrono>

namespace ClusterDeck {

class HostRegistry;
class StateStore;

// One thing the reconciler changed (or chose not to touch).
struct ReconcileChange
{
    QString action; // "remove-container", "remove-network", "complete-session", "rollback-session",
                    // "mark-status"
    QString sessionId;
    QString host;
    QString object; // container / network name, or the session name
    QString detail;
};

struct ReconcileReport
{
    QList<ReconcileChange> changes;
    QStringList warnings; // unreachable hosts, busy sessions, objects of other stores left alone

    QJsonObject toJson() const;
};

// Converges the hosts towards the store's desired state. Looks only at containers and networks
// carrying io.clusterdeck.session; completes sessions that should run (or rolls them back to
// nothing and ERROR when that is impossible), removes what belongs to terminated or unknown
// sessions, and fixes statuses. Holds each session's lock while it works on it. Blocking.
//
// Orphans (a session unknown to this store) are removed when they carry this store's label, or
// no store label and are older than the grace period; objects of another store are left alone,
// so two consoles (or a test's temporary store) never remove each other's sessions.
class Reconciler
{
public:
    Reconciler(StateStore *store, HostRegistry *registry);

    void setOrphanGrace(std::chrono::seconds grace) { m_orphanGrace = grace; }
    void setActor(const QString &actor) { m_actor = actor; }

    Result<ReconcileReport> reconcile();

private:
    StateStore *m_store;
    HostRegistry *m_registry;
    std::chrono::seconds m_orphanGrace{600};
    QString m_actor;
};

} // namespace ClusterDeck
