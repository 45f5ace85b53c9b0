#pragma once

#include "common/error.h"
#include "host/hoststatus.h"
#include "store/records.h"

#include <QFutureWatcher>
#include <QHash>
#include <QObject>
#include <QSet>
#include <QThreadPool>
#include <QtConcurrent/QtConcurrentRun>

#include <functional>
#include <memory>

class QTimer;

namespace ClusterDeck {
class Controller;
class HostRegistry;
class SessionController;
class StateStore;
} // namespace ClusterDeck

namespace ClusterDeck::Ui {

class SessionTreeModel;

// The console's one owner of the store and of everything that talks to Docker: subscribes to the
// store's signals and keeps the models current; runs every store, Docker and etcd call on its own
// thread pool (never on the GUI thread) and reports back through signals.
//
// Store notifications are coalesced: a burst of kernel changes becomes one background fetch, and
// only one fetch runs at a time, so results are applied in order.
class ConsoleController : public QObject
{
    Q_OBJECT

public:
    explicit ConsoleController(QObject *parent = nullptr);
    ~ConsoleController() override;

    // Opens the store a URL names (empty: CLUSTERDECK_STORE, the config file, the default) in the
    // background; storeOpened() or storeFailed() follows.
    void openStore(const QString &url = {});
    // Takes an already open store (tests, or a store opened elsewhere); loads it at once.
    void setStore(std::unique_ptr<StateStore> store);
    StateStore *store() const { return m_store.get(); }
    HostRegistry *registry() const { return m_registry.get(); }
    // Background work that uses the store or the registry runs here: waited for before they go.
    QThreadPool *pool() { return &m_pool; }
    SessionController *sessionController() const { return m_sessions.get(); }
    bool hasStore() const { return m_store != nullptr; }
    QString storeDescription() const;
    QString actor() const { return m_actor; }

    SessionTreeModel *sessionModel() const { return m_sessionModel; }

    QList<HostRecord> hosts() const { return m_hosts; }
    QList<HostStatus> hostStatuses() const { return m_hostStatuses; }
    // Each host as the leading controller last saw it (empty when no controller reported).
    QMap<QString, HostHealth> hostHealth() const { return m_hostHealth; }
    QList<EventRecord> events() const { return m_events; }
    int reachableHosts() const;

    // How often hosts are inspected (0 = never on its own).
    void setHostRefreshInterval(int msec);
    // Delay that gathers a burst of store notifications into one fetch.
    void setCoalesceDelay(int msec);

    // Everything again from the store (keeps the tree's expansion: rows are updated in place).
    void refresh();
    // Ask every registered host how it is (reachability, versions, swarm, capacity).
    void refreshHosts();
    // A controller pass soon: by the console's own controller when it leads, else by the leader;
    // with no controller anywhere, one pass here.
    void reconcile();

    // The console embeds a controller (docs/architecture.md) that campaigns once the store is open
    // and resigns when the console quits. Off: only commands; policies wait for another controller.
    void setEmbeddedControllerEnabled(bool enabled) { m_embeddedEnabled = enabled; }
    // Starts the embedded controller on its own store object (tests give one; openStore() opens
    // a second connection to the same store by itself).
    void startController(std::unique_ptr<StateStore> ownStore);
    Controller *embeddedController() const { return m_controller.get(); }
    // "controller: this console", "controller: HOST (pid N) since …", "no controller — …".
    QString controllerText() const { return m_controllerText; }
    bool policiesActive() const { return m_policiesActive; }
    // Session records the last full sync could not decode ("key: why"); the others are shown.
    QStringList undecodableRecords() const { return m_undecodable; }
    // Reads who leads now (in the background); controllerStatusChanged() follows.
    void refreshControllerStatus();

    // Whole-session operations (asking for one kernel acts on its session).
    void restartSession(const QString &sessionId);
    void terminateSession(const QString &sessionId);
    // "Scale Role…": grow or shrink one role of a running session (within min/max).
    void scaleRole(const QString &sessionId, const QString &role, int count);
    // What scaleRole() would do (bounds, the new kernels and their hosts), computed in the
    // background; `done` gets a line for people, or the error, on the GUI thread.
    void previewScale(const QString &sessionId, const QString &role, int count,
                      std::function<void(bool ok, const QString &text)> done);
    // Forgets an ended session (its record, kernels' records and history); refused, with a
    // message, for one that has not ended.
    void removeFromHistory(const QString &sessionId);

    // Runs `work` on the controller's pool; `done` gets its result on the GUI thread (unless the
    // controller is gone by then).
    template<typename Work, typename Done>
    void runInBackground(Work work, Done done);

    // Blocks until the background work finished (tests and shutdown only).
    void waitForIdle();
    bool isBusy() const { return m_running > 0; }

Q_SIGNALS:
    void storeOpened(const QString &description);
    void storeFailed(const QString &error);
    void connectionChanged(bool connected, const QString &message);
    void hostsChanged();
    void hostStatusesChanged();
    void hostHealthChanged();
    void reachableHostsChanged(int reachable, int total);
    void eventsAppended(const QList<ClusterDeck::EventRecord> &events);
    void eventsReset();
    void sessionsLoaded();
    void busyChanged(bool busy);
    // Long operations (restart, terminate, reconcile, …): started and finished with their outcome.
    void operationStarted(const QString &what);
    void operationFinished(const QString &what, bool ok, const QString &message);
    // Who leads the store's controller changed (text as controllerText()).
    void controllerStatusChanged(const QString &text, bool policiesActive);
    // The session records that cannot be decoded ("key: why"), after a full sync changed them.
    void undecodableRecordsChanged(const QStringList &records);

private:
    struct SyncRequest
    {
        bool full = false;
        QSet<QString> sessions;          // session ids to fetch with their kernels
        QHash<QString, QString> kernels; // kernel id → session id
        bool hosts = false;
        bool events = false;
        qint64 afterSeq = 0;
    };
    struct SyncResult;

    void attachStore();
    void scheduleSync();
    void startSync();
    void applySync(const SyncResult &result);
    void runOperation(const QString &what, std::function<Result<QString>()> work);
    void setBusyDelta(int delta);
    void updateHostAddresses();

    std::unique_ptr<StateStore> m_store;
    std::unique_ptr<HostRegistry> m_registry;
    // The embedded controller, with a store object and registry of its own (its writes are
    // fenced while it leads); declared after the store so it is destroyed first.
    std::unique_ptr<StateStore> m_controllerStore;
    std::unique_ptr<HostRegistry> m_controllerRegistry;
    std::unique_ptr<Controller> m_controller;
    bool m_embeddedEnabled = true;
    QString m_storeUrl;
    QStringList m_undecodable;
    QString m_controllerText;
    QMap<QString, HostHealth> m_hostHealth;
    bool m_policiesActive = false;
    bool m_leaderFetchInFlight = false;
    std::unique_ptr<SessionController> m_sessions;
    SessionTreeModel *m_sessionModel = nullptr;
    QThreadPool m_pool;
    QTimer *m_syncTimer = nullptr;
    QTimer *m_hostTimer = nullptr;
    QTimer *m_leaderTimer = nullptr;
    SyncRequest m_pending;
    bool m_syncInFlight = false;
    bool m_hostRefreshInFlight = false;
    bool m_hostRefreshQueued = false;
    QSet<QString> m_removedDuringSync;
    QList<HostRecord> m_hosts;
    QList<HostStatus> m_hostStatuses;
    QList<EventRecord> m_events; // newest last, capped
    qint64 m_lastEventSeq = 0;
    bool m_connected = false;
    int m_running = 0;
    QString m_actor;
};

template<typename Work, typename Done>
void ConsoleController::runInBackground(Work work, Done done)
{
    using R = std::invoke_result_t<Work>;
    auto *watcher = new QFutureWatcher<R>(this);
    setBusyDelta(+1);
    connect(watcher, &QFutureWatcherBase::finished, this, [this, watcher, done = std::move(done)] {
        setBusyDelta(-1);
        done(watcher->result());
        watcher->deleteLater();
    });
    watcher->setFuture(QtConcurrent::run(&m_pool, std::move(work)));
}

} // namespace ClusterDeck::Ui
