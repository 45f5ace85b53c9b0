#pragma once

#include "common/error.h"
#include "http/httptypes.h"
#include "plan/scaleplanner.h"
#include "sessionspec.h"
#include "store/records.h"

#include <QMap>
#include <QObject>
#include <QStringList>

#include <chrono>
#include <functional>

namespace ClusterDeck {

class HostRegistry;
class StateStore;

struct ScaleOutcome
{
    SessionRecord session;
    QStringList added;    // hostnames
    QStringList removed;  // hostnames
    QStringList warnings; // files or onScale hooks that failed in some kernel
    qint64 elapsedMs = 0;
};

// What a scale would do, before it does it (the console's preview).
struct ScalePreview
{
    QStringList added;             // hostnames
    QStringList removed;           // hostnames
    QMap<QString, QString> hostOf; // new hostname → the host it would be placed on
};

// `scale SESSION ROLE=N…`: grows or shrinks roles of a running session within the template's
// min/max (planScale() decides what changes). A session lifecycle operation: under the session
// lock, the desired state and the intent (the launch record's ScaleIntent: phase, previous spec,
// kernels added and removed) are written first, then
//   grow   — the new kernels are placed and started, all-or-nothing for the batch;
//   shrink — the removed kernels are marked TERMINATING (their exits are expected), removed;
//   files  — the membership files are rewritten (write, then rename) in every kernel and each
//            kernel's onScale hook runs;
// and the intent is cleared. A scale killed at any point is repaired by repairLocked() (the
// controller's `finish-scale`): an unfinished grow is undone, a shrink is finished.
// Blocking: call from a worker thread (or the CLI's main thread).
class SessionScaler : public QObject
{
    Q_OBJECT

public:
    using ProgressCallback = std::function<void(const KernelRecord &kernel)>;

    SessionScaler(StateStore *store, HostRegistry *registry, QObject *parent = nullptr);

    void setActor(const QString &actor) { m_actor = actor; }
    void setSettlePeriod(std::chrono::milliseconds period) { m_settle = period; }
    void setProgressCallback(ProgressCallback callback) { m_progress = std::move(callback); }

    Result<ScaleOutcome> scale(const QString &sessionId, const QMap<QString, int> &counts,
                               const CancelToken &cancel = {});
    Result<ScaleOutcome> scaleLocked(const QString &sessionId, const QMap<QString, int> &counts,
                                     const CancelToken &cancel = {});

    // Checks bounds and places the new kernels against the hosts as they are now; changes
    // nothing.
    Result<ScalePreview> preview(const QString &sessionId, const QMap<QString, int> &counts);

    // Is a scale of this session unfinished (its intent is stored)?
    static bool isScaling(const SessionRecord &session);
    // Finishes or undoes an interrupted scale; the caller holds the session lock. Returns what
    // it did, for the event log.
    Result<QString> repairLocked(const QString &sessionId);

    // The membership files of `spec` into every running kernel (write, then rename), then the
    // onScale hooks. Returns what failed, kernel by kernel (the scale itself stands).
    QStringList rewriteFiles(const SessionSpec &spec, const QList<KernelRecord> &kernels);

private:
    Result<SessionSpec> currentSpec(const SessionRecord &session) const;
    // The session's spec after the scale (new kernels placed); `plan` gets what changes.
    Result<SessionSpec> target(const SessionRecord &session, const SessionSpec &current,
                               const QMap<QString, int> &counts, ScalePlan *plan) const;
    Result<void> removeKernelObjects(const SessionSpec &spec, const QStringList &hostnames);
    // After a shrink: the hosts of a VXLAN session that no kernel uses any more leave its
    // network (spec and store updated); nothing for any other session. Returns them.
    Result<QStringList> leaveVacatedHosts(SessionSpec &spec);
    Result<SessionRecord> clearIntent(const QString &sessionId, const QStringList &removeIds,
                                      const QJsonObject &specJson);
    void logEvent(const QString &sessionId, const QString &action, const QString &detail);
    void pauseForTests(const QString &phase) const;

    StateStore *m_store;
    HostRegistry *m_registry;
    QString m_actor;
    std::chrono::milliseconds m_settle{2000};
    ProgressCallback m_progress;
};

} // namespace ClusterDeck
