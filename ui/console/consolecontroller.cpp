#include "consolecontroller.h"

#include "provision/sessionhistory.h"

#include "control/controller.h"
#include "host/hostinspector.h"
#include "host/hostregistry.h"
#include "provision/sessioncontroller.h"
#include "provision/sessionhistory.h"
#include "provision/sessionscaler.h"
#include "models/sessiontreemodel.h"
#include "store/statestore.h"
#include "store/storefactory.h"
#include "store/storeurl.h"

#include <QCoreApplication>
#include <QLoggingCategory>
#include <QSysInfo>
#include <QThread>
#include <QTimer>
#include <QUrl>

Q_LOGGING_CATEGORY(lcConsole, "clusterdeck.ui.console")

namespace ClusterDeck::Ui {

namespace {
constexpr int kMaxEvents = 5000;
} // namespace

struct ConsoleController::SyncResult
{
    SyncRequest request;
    QList<SessionRecord> sessions;
    QHash<QString, QList<KernelRecord>> kernels;
    QStringList goneSessions;
    QList<KernelRecord> kernelUpdates;
    QList<EventRecord> events;
    std::optional<QList<HostRecord>> hosts;
    QStringList undecodable; // full syncs: records that cannot be read, "key: why"
    QString error;
};

ConsoleController::ConsoleController(QObject *parent)
    : QObject(parent)
    , m_sessionModel(new SessionTreeModel(this))
    , m_syncTimer(new QTimer(this))
    , m_hostTimer(new QTimer(this))
    , m_leaderTimer(new QTimer(this))
{
    // The global pool has one thread per core; long Docker calls must not starve each other.
    m_pool.setMaxThreadCount(std::max(8, QThread::idealThreadCount()));
    m_pool.setObjectName(QStringLiteral("ConsoleControllerPool"));
    m_syncTimer->setSingleShot(true);
    m_syncTimer->setInterval(30);
    connect(m_syncTimer, &QTimer::timeout, this, &ConsoleController::startSync);
    m_hostTimer->setInterval(20000);
    connect(m_hostTimer, &QTimer::timeout, this, &ConsoleController::refreshHosts);
    // A leader that dies only expires: look again now and then, not only on store changes.
    m_leaderTimer->setInterval(3000);
    connect(m_leaderTimer, &QTimer::timeout, this, &ConsoleController::refreshControllerStatus);

    const QString user = qEnvironmentVariable("USER", QStringLiteral("admin"));
    m_actor = user + u'@' + QSysInfo::machineHostName();
}

ConsoleController::~ConsoleController()
{
    m_syncTimer->stop();
    m_hostTimer->stop();
    m_leaderTimer->stop();
    // Resign first: another console or `clusterdeckctl controller` leads at once.
    if (m_controller)
        m_controller->stop();
    // Background work holds raw pointers to the store and the registry: let it finish first.
    m_pool.waitForDone();
}

void ConsoleController::openStore(const QString &url)
{
    QThread *guiThread = thread();
    // unique_ptr is not copyable, QFuture results must be: carry it in a shared holder.
    using Holder = std::shared_ptr<std::unique_ptr<StateStore>>;
    const bool embedded = m_embeddedEnabled;
    using Pair = std::pair<Holder, Holder>; // the console's store, the controller's own
    runInBackground(
        [url, guiThread, embedded]() -> Result<Pair> {
            auto resolved = StoreUrl::resolve(url);
            if (!resolved)
                return std::unexpected(resolved.error());
            auto store = ClusterDeck::openStore(*resolved);
            if (!store)
                return std::unexpected(store.error());
            // Opened here, lives on the GUI thread (its signals and timers belong there).
            (*store)->moveToThread(guiThread);
            Holder own;
            if (embedded) {
                auto second = ClusterDeck::openStore(*resolved);
                if (second) {
                    (*second)->moveToThread(guiThread);
                    own = std::make_shared<std::unique_ptr<StateStore>>(std::move(*second));
                } else {
                    qCWarning(lcConsole) << "no embedded controller:" << second.error().toString();
                }
            }
            return Pair{std::make_shared<std::unique_ptr<StateStore>>(std::move(*store)), own};
        },
        [this](const Result<Pair> &opened) {
            const Result<Holder> result = opened ? Result<Holder>(opened->first)
                                                 : Result<Holder>(std::unexpected(opened.error()));
            if (!result) {
                qCWarning(lcConsole) << "cannot open store:" << result.error().toString();
                m_connected = false;
                Q_EMIT connectionChanged(false, result.error().toString());
                Q_EMIT storeFailed(result.error().toString());
                return;
            }
            m_store = std::move(**result);
            attachStore();
            Q_EMIT storeOpened(storeDescription());
            if (opened->second && *opened->second)
                startController(std::move(*opened->second));
        });
}

void ConsoleController::startController(std::unique_ptr<StateStore> ownStore)
{
    if (m_controller || !ownStore)
        return;
    m_controllerStore = std::move(ownStore);
    m_controllerRegistry = std::make_unique<HostRegistry>(m_controllerStore.get());
    ControllerOptions options;
    options.actor = QStringLiteral("controller@%1 (console pid %2)")
                        .arg(QSysInfo::machineHostName())
                        .arg(QCoreApplication::applicationPid());
    m_controller =
        std::make_unique<Controller>(m_controllerStore.get(), m_controllerRegistry.get(), options);
    connect(m_controller.get(), &Controller::leadershipChanged, this,
            &ConsoleController::refreshControllerStatus, Qt::QueuedConnection);
    connect(
        m_controller.get(), &Controller::passFinished, this,
        [this](int changes, int) {
            if (changes > 0)
                Q_EMIT operationFinished(tr("Controller pass"), true,
                                         tr("%n change(s)", nullptr, changes));
        },
        Qt::QueuedConnection);
    m_controller->start();
}

void ConsoleController::refreshControllerStatus()
{
    if (!m_store || m_leaderFetchInFlight)
        return;
    m_leaderFetchInFlight = true;
    StateStore *store = m_store.get();
    const QString mine = m_controller ? m_controller->candidate().ownerId : QString();
    runInBackground([store]() { return store->controllerStatus(); },
                    [this](const Result<std::optional<ControllerStatus>> &status) {
                        QMap<QString, HostHealth> health;
                        if (status && *status)
                            health = (*status)->hosts;
                        if (health == m_hostHealth)
                            return;
                        m_hostHealth = health;
                        Q_EMIT hostHealthChanged();
                    });
    runInBackground([store]() { return store->leader(); },
                    [this, mine](const Result<std::optional<LeaderRecord>> &leader) {
                        m_leaderFetchInFlight = false;
                        QString text;
                        bool active = false;
                        if (!leader) {
                            text = tr("controller: unknown (%1)").arg(leader.error().message);
                        } else if (!*leader) {
                            text = tr("no controller — policies paused");
                        } else if (!mine.isEmpty() && (*leader)->ownerId == mine) {
                            text = tr("controller: this console");
                            active = true;
                        } else {
                            text = tr("controller: %1 (pid %2) since %3")
                                       .arg((*leader)->hostname)
                                       .arg((*leader)->pid)
                                       .arg((*leader)->since.toLocalTime().toString(
                                           QStringLiteral("yyyy-MM-dd HH:mm:ss")));
                            active = true;
                        }
                        if (text == m_controllerText && active == m_policiesActive)
                            return;
                        m_controllerText = text;
                        m_policiesActive = active;
                        Q_EMIT controllerStatusChanged(text, active);
                    });
}

void ConsoleController::setStore(std::unique_ptr<StateStore> store)
{
    m_store = std::move(store);
    attachStore();
    Q_EMIT storeOpened(storeDescription());
}

QString ConsoleController::storeDescription() const
{
    return m_store ? m_store->describe() : tr("no store");
}

void ConsoleController::attachStore()
{
    m_registry = std::make_unique<HostRegistry>(m_store.get());
    m_sessions = std::make_unique<SessionController>(m_store.get(), m_registry.get());
    m_sessions->setActor(m_actor + QStringLiteral(" (console)"));
    m_connected = true;
    Q_EMIT connectionChanged(true, storeDescription());

    StateStore *s = m_store.get();
    connect(s, &StateStore::sessionAdded, this, [this](const QString &id) {
        m_removedDuringSync.remove(id);
        m_pending.sessions.insert(id);
        scheduleSync();
    });
    connect(s, &StateStore::sessionChanged, this, [this](const QString &id) {
        m_pending.sessions.insert(id);
        scheduleSync();
    });
    connect(s, &StateStore::sessionRemoved, this, [this](const QString &id) {
        m_pending.sessions.remove(id);
        if (m_syncInFlight)
            m_removedDuringSync.insert(id);
        m_sessionModel->removeSession(id);
    });
    connect(s, &StateStore::kernelChanged, this,
            [this](const QString &sessionId, const QString &kernelId) {
                m_pending.kernels.insert(kernelId, sessionId);
                scheduleSync();
            });
    connect(s, &StateStore::hostChanged, this, [this] {
        m_pending.hosts = true;
        scheduleSync();
    });
    connect(s, &StateStore::hostRemoved, this, [this] {
        m_pending.hosts = true;
        scheduleSync();
    });
    connect(s, &StateStore::eventAppended, this, [this] {
        m_pending.events = true;
        scheduleSync();
    });
    connect(s, &StateStore::controllerChanged, this, &ConsoleController::refreshControllerStatus);
    connect(s, &StateStore::changesLost, this, &ConsoleController::refresh);
    refresh();
    refreshHosts();
    refreshControllerStatus();
    m_leaderTimer->start();
    if (m_hostTimer->interval() > 0)
        m_hostTimer->start();
}

int ConsoleController::reachableHosts() const
{
    return int(std::count_if(m_hostStatuses.cbegin(), m_hostStatuses.cend(),
                             [](const HostStatus &h) { return h.reachable; }));
}

void ConsoleController::setHostRefreshInterval(int msec)
{
    m_hostTimer->setInterval(msec);
    if (msec <= 0)
        m_hostTimer->stop();
    else if (m_store)
        m_hostTimer->start();
}

void ConsoleController::setCoalesceDelay(int msec)
{
    m_syncTimer->setInterval(msec);
}

void ConsoleController::refresh()
{
    if (!m_store)
        return;
    m_pending.full = true;
    m_pending.hosts = true;
    m_pending.events = true;
    scheduleSync();
}

void ConsoleController::scheduleSync()
{
    if (!m_syncInFlight && !m_syncTimer->isActive())
        m_syncTimer->start();
}

void ConsoleController::startSync()
{
    if (!m_store || m_syncInFlight)
        return;
    SyncRequest request = std::exchange(m_pending, SyncRequest{});
    request.afterSeq = m_lastEventSeq;
    if (!request.full && request.sessions.isEmpty() && request.kernels.isEmpty() &&
        !request.hosts && !request.events)
        return;
    m_syncInFlight = true;
    m_removedDuringSync.clear();
    StateStore *store = m_store.get();
    runInBackground(
        [store, request]() {
            SyncResult r;
            r.request = request;
            auto note = [&r](const Error &e) {
                if (r.error.isEmpty())
                    r.error = e.toString();
            };
            if (request.full) {
                auto sessions = store->listSessions();
                auto kernels = store->allKernels();
                if (sessions && kernels) {
                    r.sessions = sessions->sessions;
                    for (const UndecodableRecord &u : std::as_const(sessions->undecodable))
                        r.undecodable.append(u.toString());
                    for (const KernelRecord &k : std::as_const(*kernels))
                        r.kernels[k.sessionId].append(k);
                } else {
                    note(sessions ? kernels.error() : sessions.error());
                }
            } else {
                for (const QString &id : request.sessions) {
                    auto session = store->session(id);
                    if (!session) {
                        if (session.error().kind == Error::Kind::NotFound)
                            r.goneSessions.append(id);
                        else
                            note(session.error());
                        continue;
                    }
                    auto kernels = store->kernels(id);
                    if (!kernels) {
                        note(kernels.error());
                        continue;
                    }
                    r.sessions.append(*session);
                    r.kernels.insert(id, *kernels);
                }
                for (auto it = request.kernels.cbegin(); it != request.kernels.cend(); ++it) {
                    if (request.sessions.contains(it.value()))
                        continue; // fetched with its session
                    auto kernel = store->kernel(it.value(), it.key());
                    if (kernel)
                        r.kernelUpdates.append(*kernel);
                    else if (kernel.error().kind != Error::Kind::NotFound)
                        note(kernel.error());
                }
            }
            if (request.hosts || request.full) {
                if (auto hosts = store->hosts())
                    r.hosts = *hosts;
                else
                    note(hosts.error());
            }
            if (request.events || request.full) {
                if (auto events = store->events(request.full ? 0 : request.afterSeq, kMaxEvents))
                    r.events = *events;
                else
                    note(events.error());
            }
            return r;
        },
        [this](const SyncResult &result) {
            applySync(result);
            m_syncInFlight = false;
            scheduleSync();
        });
}

void ConsoleController::applySync(const SyncResult &r)
{
    const bool connected = r.error.isEmpty();
    if (connected != m_connected) {
        m_connected = connected;
        Q_EMIT connectionChanged(connected, connected ? storeDescription() : r.error);
    }
    if (!r.error.isEmpty())
        qCWarning(lcConsole) << "store:" << r.error;

    if (r.hosts) {
        m_hosts = *r.hosts;
        updateHostAddresses();
        Q_EMIT hostsChanged();
    }

    if (r.request.full && r.error.isEmpty()) {
        if (m_sessionModel->sessionCount() == 0) {
            m_sessionModel->setSessions(r.sessions, r.kernels);
        } else {
            // In place, so the tree keeps its expansion and selection.
            QSet<QString> present;
            for (const SessionRecord &s : r.sessions) {
                present.insert(s.id);
                if (!m_removedDuringSync.contains(s.id))
                    m_sessionModel->upsertSession(s, r.kernels.value(s.id));
            }
            QStringList stale;
            for (int row = 0; row < m_sessionModel->rowCount(); ++row) {
                const QString id =
                    m_sessionModel->index(row, 0).data(SessionTreeModel::IdRole).toString();
                if (!present.contains(id))
                    stale.append(id);
            }
            for (const QString &id : std::as_const(stale))
                m_sessionModel->removeSession(id);
        }
        if (r.undecodable != m_undecodable) {
            m_undecodable = r.undecodable;
            for (const QString &u : std::as_const(m_undecodable))
                qCWarning(lcConsole).noquote() << "cannot read session record" << u;
            Q_EMIT undecodableRecordsChanged(m_undecodable);
        }
        Q_EMIT sessionsLoaded();
    } else {
        for (const SessionRecord &s : r.sessions)
            if (!m_removedDuringSync.contains(s.id))
                m_sessionModel->upsertSession(s, r.kernels.value(s.id));
        for (const QString &id : r.goneSessions)
            m_sessionModel->removeSession(id);
        for (const KernelRecord &k : r.kernelUpdates)
            if (!m_removedDuringSync.contains(k.sessionId))
                m_sessionModel->updateKernel(k);
    }

    if (r.request.full && r.error.isEmpty()) {
        m_events = r.events;
        m_lastEventSeq = m_events.isEmpty() ? 0 : m_events.constLast().seq;
        Q_EMIT eventsReset();
    } else if (!r.events.isEmpty()) {
        QList<EventRecord> fresh;
        for (const EventRecord &e : r.events)
            if (e.seq > m_lastEventSeq)
                fresh.append(e);
        if (!fresh.isEmpty()) {
            m_events.append(fresh);
            if (m_events.size() > kMaxEvents)
                m_events.remove(0, m_events.size() - kMaxEvents);
            m_lastEventSeq = fresh.constLast().seq;
            Q_EMIT eventsAppended(fresh);
        }
    }
    m_removedDuringSync.clear();
}

void ConsoleController::updateHostAddresses()
{
    QHash<QString, QString> addresses;
    for (const HostRecord &h : std::as_const(m_hosts)) {
        QString address = h.publicAddress;
        if (address.isEmpty()) {
            const QUrl url(h.endpoint);
            if (url.scheme().startsWith(QStringLiteral("tcp")))
                address = url.host();
        }
        if (address.isEmpty())
            address = QStringLiteral("127.0.0.1");
        addresses.insert(h.name, address);
    }
    m_sessionModel->setHostAddresses(addresses);
}

void ConsoleController::refreshHosts()
{
    if (!m_store)
        return;
    // The answer in flight may predate what made the caller ask (a host just added): ask again
    // when it arrives rather than drop the request.
    if (m_hostRefreshInFlight) {
        m_hostRefreshQueued = true;
        return;
    }
    m_hostRefreshInFlight = true;
    HostRegistry *registry = m_registry.get();
    runInBackground(
        [registry]() {
            HostInspector inspector(registry, std::chrono::milliseconds(5000));
            return inspector.inspectAll();
        },
        [this](const Result<QList<HostStatus>> &result) {
            m_hostRefreshInFlight = false;
            if (std::exchange(m_hostRefreshQueued, false))
                refreshHosts();
            if (!result) {
                qCWarning(lcConsole) << "inspecting hosts:" << result.error().toString();
                return;
            }
            m_hostStatuses = *result;
            Q_EMIT hostStatusesChanged();
            Q_EMIT reachableHostsChanged(reachableHosts(), int(m_hostStatuses.size()));
        });
}

void ConsoleController::reconcile()
{
    if (!m_store)
        return;
    if (m_controller && m_controller->isLeading()) {
        m_controller->requestPass();
        Q_EMIT operationFinished(tr("Reconcile"), true,
                                 tr("this console's controller makes a pass now"));
        return;
    }
    // Another leader: ask it. Nobody leads: one pass here, on the controller's own store object
    // when there is one (a pass fences the writes of the store it runs on).
    StateStore *store = m_store.get();
    StateStore *passStore = m_controllerStore ? m_controllerStore.get() : m_store.get();
    HostRegistry *registry = m_controllerRegistry ? m_controllerRegistry.get() : m_registry.get();
    const QString actor = m_actor + QStringLiteral(" (console reconcile)");
    runOperation(tr("Reconcile"), [store, passStore, registry, actor]() -> Result<QString> {
        auto leader = store->leader();
        if (!leader)
            return std::unexpected(leader.error());
        if (*leader) {
            if (auto asked = store->requestControllerPass(); !asked)
                return std::unexpected(asked.error());
            return tr("asked the controller (%1) for a pass").arg((*leader)->actor);
        }
        ControllerOptions options;
        options.actor = actor;
        Controller once(passStore, registry, options);
        auto report = once.runOnce();
        if (!report)
            return std::unexpected(report.error());
        if (!report->refused.isEmpty())
            return std::unexpected(Error{Error::Kind::Decode, tr("reconcile refused"),
                                         report->refused});
        QString summary = tr("%n change(s)", nullptr, report->changes());
        if (!report->warnings.isEmpty())
            summary += u'\n' + report->warnings.join(u'\n');
        return summary;
    });
}

void ConsoleController::restartSession(const QString &sessionId)
{
    if (!m_sessions)
        return;
    SessionController *controller = m_sessions.get();
    const auto record = m_sessionModel->sessionRecord(sessionId);
    const QString name = record ? record->name : sessionId;
    runOperation(tr("Restart %1").arg(name), [controller, sessionId]() -> Result<QString> {
        auto result = controller->restart(sessionId, tr("restarted from the console"));
        if (!result)
            return std::unexpected(result.error());
        return tr("session %1 is %2").arg(result->name, toString(result->status));
    });
}

void ConsoleController::terminateSession(const QString &sessionId)
{
    if (!m_sessions)
        return;
    SessionController *controller = m_sessions.get();
    const auto record = m_sessionModel->sessionRecord(sessionId);
    const QString name = record ? record->name : sessionId;
    runOperation(tr("Terminate %1").arg(name), [controller, sessionId]() -> Result<QString> {
        auto result = controller->terminate(sessionId, tr("terminated from the console"));
        if (!result)
            return std::unexpected(result.error());
        return tr("session %1 is %2").arg(result->name, toString(result->status));
    });
}

void ConsoleController::scaleRole(const QString &sessionId, const QString &role, int count)
{
    if (!m_store || !m_registry)
        return;
    StateStore *store = m_store.get();
    HostRegistry *registry = m_registry.get();
    const QString actor = m_actor;
    const auto record = m_sessionModel->sessionRecord(sessionId);
    const QString name = record ? record->name : sessionId;
    runOperation(tr("Scale %1 %2=%3").arg(name, role).arg(count),
                 [store, registry, actor, sessionId, role, count]() -> Result<QString> {
                     SessionScaler scaler(store, registry);
                     scaler.setActor(actor);
                     auto done = scaler.scale(sessionId, {{role, count}});
                     if (!done)
                         return std::unexpected(done.error());
                     QString text =
                         tr("%1=%2: added %3, removed %4")
                             .arg(role)
                             .arg(count)
                             .arg(done->added.isEmpty() ? tr("none") : done->added.join(u", "),
                                  done->removed.isEmpty() ? tr("none") : done->removed.join(u", "));
                     if (!done->warnings.isEmpty())
                         text += u"; " + done->warnings.join(u"; ");
                     return text;
                 });
}

void ConsoleController::previewScale(const QString &sessionId, const QString &role, int count,
                                     std::function<void(bool ok, const QString &text)> done)
{
    if (!m_store || !m_registry)
        return;
    StateStore *store = m_store.get();
    HostRegistry *registry = m_registry.get();
    runInBackground(
        [store, registry, sessionId, role, count]() -> Result<ScalePreview> {
            SessionScaler scaler(store, registry);
            return scaler.preview(sessionId, {{role, count}});
        },
        [done = std::move(done)](const Result<ScalePreview> &p) {
            if (!p) {
                done(false, p.error().message);
                return;
            }
            if (p->added.isEmpty() && p->removed.isEmpty()) {
                done(true, tr("No change."));
                return;
            }
            QStringList lines;
            for (const QString &h : p->added)
                lines.append(tr("+ %1 on %2").arg(h, p->hostOf.value(h)));
            for (const QString &h : p->removed)
                lines.append(tr("− %1").arg(h));
            done(true, lines.join(u'\n'));
        });
}

void ConsoleController::removeFromHistory(const QString &sessionId)
{
    if (!m_store)
        return;
    StateStore *store = m_store.get();
    const auto record = m_sessionModel->sessionRecord(sessionId);
    const QString name = record ? record->name : sessionId;
    runOperation(tr("Remove %1 from history").arg(name),
                 [store, sessionId, name]() -> Result<QString> {
                     if (auto ok = SessionHistory::forget(store, sessionId); !ok)
                         return std::unexpected(ok.error());
                     return tr("session %1 removed from the store").arg(name);
                 });
}

void ConsoleController::runOperation(const QString &what, std::function<Result<QString>()> work)
{
    Q_EMIT operationStarted(what);
    runInBackground(std::move(work), [this, what](const Result<QString> &result) {
        if (result)
            Q_EMIT operationFinished(what, true, *result);
        else
            Q_EMIT operationFinished(what, false, result.error().toString());
    });
}

void ConsoleController::setBusyDelta(int delta)
{
    const bool was = m_running > 0;
    m_running += delta;
    if (was != (m_running > 0))
        Q_EMIT busyChanged(m_running > 0);
}

void ConsoleController::waitForIdle()
{
    // Finish the background work, then deliver its results (they are queued to this thread).
    while (m_running > 0 || m_syncTimer->isActive()) {
        m_pool.waitForDone(50);
        QCoreApplication::processEvents(QEventLoop::AllEvents, 50);
    }
}

} // namespace ClusterDeck::Ui
