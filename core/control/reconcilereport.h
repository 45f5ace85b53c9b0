#pragma once

#include "reconcileplanner.h"

#include <QJsonObject>
#include <QList>
#include <QStringList>

namespace ClusterDeck {

// What one controller pass did: each planned action with its outcome, and what it left alone.
struct ReconcileReport
{
    struct Applied
    {
        ReconcileAction action;
        bool done = false; // false: skipped (busy, no longer planned) or failed
        QString outcome;   // "removed", "restart-session", "busy: …", the error …
    };
    QList<Applied> applied;
    QStringList notes;    // left alone on purpose
    QStringList warnings; // what went wrong
    // Why the pass did not act at all (e.g. the store holds an undecodable session record);
    // empty when it ran. `reconcile` then fails with this message.
    QString refused;
    QDateTime startedAt;
    QDateTime finishedAt;

    int changes() const;
    QJsonObject toJson() const;
    static ReconcileReport fromJson(const QJsonObject &object);
};

} // namespace ClusterDeck
