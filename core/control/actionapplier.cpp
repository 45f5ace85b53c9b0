#include "actionapplier.h"

#include "common/concurrent.h"
#include "common/inerttext.h"
#include "common/labels.h"
#include "common/logging.h"
#include "docker/dockerhost.h"
#include "host/hostregistry.h"
#include "network/sessionnetwork.h"
#include "network/vxlannetwork.h"
#include "provision/eventlog.h"
#include "provision/hostprobe.h"
#include "provision/ownedcontainer.h"
#include "provision/provisioner.h"
#include "provision/sessioncontroller.h"
#include "provision/sessionscaler.h"
#include "provision/sessionspec.h"
#include "store/statestore.h"

#include <QDateTime>
#include <QSet>

#include <algorithm>

#include <mutex>
#include <thread>

namespace ClusterDeck {

using namespace std::chrono_literals;
using Kind = ReconcileAction::Kind;

namespace {

// Docker answers 409 "removal of container … is already in progress" while another client's
// removal (say, of an `rm` that was killed) still runs: that removal will finish it.
bool isBeingRemoved(const Error &e)
{
    return e.httpStatus == 409 && e.message.contains(QLatin1String("already in progress"));
}

// Does a fresh plan still call for `a`? Same kind on the same object.
bool stillPlanned(const ReconcileAction &a, const ReconcilePlan &fresh, ReconcileAction *match)
{
    for (const ReconcileAction &f : fresh.actions) {
        if (f.kind != a.kind || f.sessionId != a.sessionId || f.kernelId != a.kernelId)
            continue;
        const bool byObject = a.kind == Kind::RemoveOrphanContainer ||
                              a.kind == Kind::RemoveOrphanNetwork ||
                              a.kind == Kind::RemoveStrayContainer;
        if (byObject && (f.objectId != a.objectId || f.host != a.host))
            continue;
        *match = f;
        return true;
    }
    return false;
}

} // namespace

ActionApplier::ActionApplier(StateStore *store, HostRegistry *registry, StoreIdentity self,
                             QString actor)
    : m_store(store)
    , m_registry(registry)
    , m_self(std::move(self))
    , m_actor(std::move(actor))
{}

void ActionApplier::logEvent(const QString &sessionId, const QString &kernelId,
                             const QString &action, const QString &detail) const
{
    logLifecycleEvent(m_store, m_actor, sessionId, kernelId, action, detail);
}

ActionApplier::HeldLock::HeldLock(ActionApplier *applier, const SessionLock *lock)
    : m_applier(applier)
    , m_outerCancel(applier->m_cancel)
    , m_outerLock(applier->m_heldLock)
{
    m_applier->m_cancel = CancelToken::anyOf(m_outerCancel, lock->lostToken());
    m_applier->m_heldLock = lock;
}

ActionApplier::HeldLock::~HeldLock()
{
    m_applier->m_cancel = m_outerCancel;
    m_applier->m_heldLock = m_outerLock;
}

bool ActionApplier::mayAct(QString *why) const
{
    if (m_heldLock && m_heldLock->isLost()) {
        *why = QStringLiteral("not done: ") + m_heldLock->lostError().message;
        return false;
    }
    if (m_cancel.isCancelled() || (m_stillLeading && !m_stillLeading())) {
        *why = QStringLiteral("not done: this controller is no longer the leader");
        return false;
    }
    return true;
}

QHash<QString, HostListing> ActionApplier::listHosts(const QList<HostRecord> &hosts,
                                                     const QString &label,
                                                     std::chrono::milliseconds timeout) const
{
    QList<HostListing> listings(hosts.size());
    Concurrent::forEach(int(hosts.size()), [&](int i) {
        HostListing &l = listings[i];
        auto client = m_registry->dockerHost(hosts.at(i));
        if (!client) {
            l.error = client.error().message;
            return;
        }
        Docker::CallOptions call;
        call.timeout = timeout;
        call.cancel = m_cancel;
        Docker::ContainerListOptions list;
        list.all = true;
        list.labels = {label};
        auto containers = (*client)->listContainers(list, call);
        if (!containers) {
            l.error = containers.error().message;
            return;
        }
        auto networks = (*client)->listNetworks({label}, call);
        if (!networks) {
            l.error = networks.error().message;
            return;
        }
        l.reachable = true;
        l.containers = *containers;
        l.networks = *networks;
    });
    QHash<QString, HostListing> byHost;
    for (qsizetype i = 0; i < hosts.size(); ++i)
        byHost.insert(hosts.at(i).name, listings.at(i));
    return byHost;
}

Result<Observed> ActionApplier::observe(const QList<HostRecord> &hosts,
                                        std::chrono::milliseconds timeout) const
{
    Observed o;
    o.listedAt = QDateTime::currentDateTimeUtc();
    o.hosts = listHosts(hosts, Labels::session(), timeout);
    // The store after the hosts (see Observed).
    auto sessions = m_store->listSessions();
    if (!sessions)
        return fail(sessions.error());
    if (!sessions->undecodable.isEmpty()) {
        // Its containers would look like orphans: removing them could destroy live work.
        QStringList bad;
        for (const UndecodableRecord &r : std::as_const(sessions->undecodable))
            bad.append(r.toString());
        return fail(Error::Kind::Decode, QString(),
                    QStringLiteral("the store holds %1 undecodable session record(s), so the "
                                   "controller does not act until it is repaired or removed: %2")
                        .arg(bad.size())
                        .arg(bad.join(QStringLiteral("; "))));
    }
    auto kernels = m_store->allKernels();
    if (!kernels)
        return fail(kernels.error());
    o.sessions = sessions->sessions;
    for (const KernelRecord &k : std::as_const(*kernels))
        o.kernels[k.sessionId].append(k);
    o.now = QDateTime::currentDateTimeUtc();
    return o;
}

Observed ActionApplier::observeSession(const QString &sessionId,
                                       const QList<HostRecord> &hosts) const
{
    Observed o;
    o.listedAt = QDateTime::currentDateTimeUtc();
    o.hosts = listHosts(hosts, Labels::session() + QLatin1Char('=') + sessionId, 10s);
    if (auto s = m_store->session(sessionId); s) {
        o.sessions = {*s};
        if (auto k = m_store->kernels(sessionId); k)
            o.kernels.insert(sessionId, *k);
    }
    o.now = QDateTime::currentDateTimeUtc();
    return o;
}

ReconcileReport ActionApplier::apply(const ReconcilePlan &plan, const QList<HostRecord> &hosts)
{
    ReconcileReport report;
    report.notes = plan.notes;
    // Keep the plan's order, grouped by session.
    QStringList order;
    QHash<QString, QList<ReconcileAction>> bySession;
    for (const ReconcileAction &a : plan.actions) {
        if (!bySession.contains(a.sessionId))
            order.append(a.sessionId);
        bySession[a.sessionId].append(a);
    }
    for (const QString &sid : std::as_const(order)) {
        const QList<ReconcileAction> actions = bySession.value(sid);
        auto skipAll = [&](const QString &why) {
            for (const ReconcileAction &a : actions)
                report.applied.append({a, false, why});
        };
        QString why;
        if (!mayAct(&why)) {
            skipAll(why);
            continue;
        }
        auto lock = m_store->lockSession(sid, 200ms);
        if (!lock) {
            skipAll(QStringLiteral("busy: ") + lock.error().message);
            continue;
        }
        const HeldLock held(this, lock->get());
        const Observed fresh = observeSession(sid, hosts);
        const ReconcilePlan again = planReconcile(fresh, m_self, m_grace);
        bool removedObjects = false;
        for (const ReconcileAction &a : actions) {
            ReconcileAction current;
            if (!stillPlanned(a, again, &current)) {
                report.applied.append({a, false, QStringLiteral("no longer needed")});
                continue;
            }
            if (!mayAct(&why)) {
                report.applied.append({a, false, why});
                continue;
            }
            const Outcome out = execute(current, fresh);
            qCInfo(lcControl).noquote()
                << ReconcileAction::name(a.kind) << a.objectName << ":" << out.text;
            report.applied.append({current, out.done, out.text});
            if (!out.done)
                report.warnings.append(
                    QStringLiteral("%1 %2: %3")
                        .arg(ReconcileAction::name(a.kind), a.objectName, out.text));
            removedObjects = removedObjects || (out.done && a.kind == Kind::RemoveSessionObjects);
        }
        if (removedObjects)
            followThrough(sid, hosts, &report);
    }
    return report;
}

void ActionApplier::followThrough(const QString &sessionId, const QList<HostRecord> &hosts,
                                  ReconcileReport *report)
{
    // Still under the session's lock: once its objects are gone, the session is TERMINATED (or
    // TERMINATING while a host does not answer) in this pass, not the next one. A worker drops
    // its copy of an overlay a moment after the last container left: look again, briefly.
    for (int look = 0; look < 10 && !m_cancel.isCancelled(); ++look) {
        if (look > 0)
            std::this_thread::sleep_for(500ms);
        const Observed after = observeSession(sessionId, hosts);
        const QList<ReconcileAction> actions = planReconcile(after, m_self, m_grace).actions;
        const auto mark = std::find_if(actions.cbegin(), actions.cend(), [&](const auto &a) {
            return a.sessionId == sessionId &&
                   (a.kind == Kind::MarkTerminated || a.kind == Kind::MarkTerminating);
        });
        if (mark == actions.cend())
            continue;
        QString why;
        if (!mayAct(&why)) {
            report->applied.append({*mark, false, why});
            return;
        }
        const Outcome out = execute(*mark, after);
        report->applied.append({*mark, out.done, out.text});
        if (!out.done)
            report->warnings.append(
                QStringLiteral("%1 %2: %3")
                    .arg(ReconcileAction::name(mark->kind), mark->objectName, out.text));
        return;
    }
}

ActionApplier::Outcome ActionApplier::execute(const ReconcileAction &a, const Observed &fresh)
{
    switch (a.kind) {
    case Kind::RemoveOrphanContainer:
    case Kind::RemoveStrayContainer:
    case Kind::RemoveOrphanNetwork:
        return removeObject(a);
    case Kind::RemoveSessionObjects:
        return removeSessionObjects(a, fresh);
    case Kind::MarkTerminated: {
        const QList<KernelRecord> kernels = fresh.kernels.value(a.sessionId);
        QList<KernelRef> refs;
        for (const KernelRecord &k : kernels)
            refs.append({k.sessionId, k.id});
        const QDateTime now = QDateTime::currentDateTimeUtc();
        auto marked = m_store->modifyKernels(refs, [&](KernelRecord &k) {
            if (isFinal(k.status))
                return false;
            k.changeStatus(KernelStatus::Terminated, now, a.why);
            return true;
        });
        if (!marked)
            return {false, marked.error().toString()};
        // A session that ended already (a failed launch) keeps its final status.
        if (const SessionRecord s = fresh.sessions.value(0);
            s.id == a.sessionId && isFinal(s.status))
            return {true, QStringLiteral("%1 kernel(s) terminated").arg(marked->size())};
        const Outcome out = markSession(a.sessionId, SessionStatus::Terminated, a.why);
        if (out.done)
            logEvent(a.sessionId, {}, QStringLiteral("reconcile"),
                     QStringLiteral("terminated: ") + a.why);
        return out;
    }
    case Kind::MarkTerminating:
        return markSession(a.sessionId, SessionStatus::Terminating, a.why);
    case Kind::MarkUnknown:
        return markKernel(a.sessionId, a.kernelId, KernelStatus::Unknown, a.why);
    case Kind::MarkRecovered:
        return markKernel(a.sessionId, a.kernelId, KernelStatus::Running, a.why);
    case Kind::KernelExited:
    case Kind::KernelVanished: {
        const SessionRecord s = fresh.sessions.value(0);
        KernelExit exit;
        exit.kernelId = a.kernelId;
        exit.containerId = a.objectId;
        exit.exitCode = a.exitCode;
        exit.vanished = a.kind == Kind::KernelVanished;
        exit.host = a.host;
        auto decided = decideAndAct(s, fresh.kernels.value(a.sessionId), exit);
        if (!decided)
            return {false, decided.error().toString()};
        return {true,
                ExitDecision::name(decided->outcome) + QStringLiteral(": ") + decided->reason};
    }
    case Kind::CompleteSession:
        return completeSession(a);
    case Kind::FinishScale: {
        SessionScaler scaler(m_store, m_registry);
        scaler.setActor(m_actor);
        auto done = scaler.repairLocked(a.sessionId);
        if (!done)
            return {false, done.error().toString()};
        return {true, *done};
    }
    }
    return {false, QStringLiteral("unknown action")};
}

ActionApplier::Outcome ActionApplier::removeObject(const ReconcileAction &a)
{
    const bool network = a.kind == Kind::RemoveOrphanNetwork;
    auto client = m_registry->dockerHost(a.host);
    if (!client)
        return {false, client.error().toString()};
    Docker::CallOptions call;
    call.timeout = 30s;
    call.cancel = m_cancel;
    // By id, and only after the labels say it is this store's object of this session (a stray
    // container: of this kernel too). An orphan container's session is unknown to the store:
    // only this store's id makes it ours.
    QString id;
    QMap<QString, QString> labels;
    bool kernelName = true; // a container also has the name its labels give it
    if (network) {
        auto info = (*client)->inspectNetwork(a.objectId, call);
        if (!info)
            return info.error().isGone() ? Outcome{true, QStringLiteral("already gone")}
                                         : Outcome{false, info.error().toString()};
        id = info->id;
        labels = info->labels;
    } else {
        auto info = (*client)->inspectContainer(a.objectId, call);
        if (!info)
            return info.error().isGone() ? Outcome{true, QStringLiteral("already gone")}
                                         : Outcome{false, info.error().toString()};
        id = info->id;
        labels = info->labels;
        kernelName = Labels::isKernelContainerName(info->name, labels);
    }
    const bool knownSession = a.kind == Kind::RemoveStrayContainer;
    const bool checkKernel = a.kind == Kind::RemoveStrayContainer;
    if (!m_self.owns(labels.value(Labels::store()), knownSession) ||
        labels.value(Labels::session()) != a.sessionId ||
        (checkKernel && labels.value(Labels::kernel()) != a.kernelId))
        return {false, QStringLiteral("left alone: its labels changed")};
    if (!kernelName)
        return {false, QStringLiteral("left alone: its name is not the one its labels give a "
                                      "kernel's container (made from a committed image?)")};
    // A VXLAN network's device first: it lives in the host's namespace, not in Docker.
    if (network) {
        if (auto device = VxlanNetwork::removeDeviceOf(m_self, labels, **client, call); !device)
            return {false, device.error().toString()};
    }
    Docker::RemoveContainerOptions rm;
    rm.force = true;
    auto removed =
        network ? (*client)->removeNetwork(id, call) : (*client)->removeContainer(id, rm, call);
    if (!removed && !removed.error().isGone())
        return {false, removed.error().toString()};
    logEvent(a.sessionId, network ? QString() : a.kernelId, QStringLiteral("reconcile"),
             QStringLiteral("removed %1 %2 on host %3: %4")
                 .arg(network ? QStringLiteral("network") : QStringLiteral("container"),
                      a.objectName, a.host, a.why));
    return {true, QStringLiteral("removed")};
}

ActionApplier::Outcome ActionApplier::removeSessionObjects(const ReconcileAction &a,
                                                           const Observed &fresh)
{
    std::mutex mutex;
    QStringList failures;
    int removed = 0;
    const QStringList hosts = fresh.hosts.keys();
    // The whole removal is bounded: a host that stops answering meanwhile costs it once.
    const auto deadline = std::chrono::steady_clock::now() + 30s;
    auto bounded = [&](Docker::CallOptions call) {
        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
            deadline - std::chrono::steady_clock::now());
        call.timeout = std::clamp<std::chrono::milliseconds>(left, 1ms, 30s);
        return call;
    };
    Concurrent::forEach(int(hosts.size()), [&](int i) {
        const QString host = hosts.at(i);
        const HostListing listing = fresh.hosts.value(host);
        if (!listing.reachable)
            return;
        auto client = m_registry->dockerHost(host);
        if (!client) {
            std::lock_guard lock(mutex);
            failures.append(client.error().toString());
            return;
        }
        Docker::CallOptions call;
        call.timeout = 30s;
        call.cancel = m_cancel;
        for (const Docker::ContainerSummary &c : listing.containers) {
            if (!m_self.ownsSessionObject(c.labels, a.sessionId) ||
                !Labels::isKernelContainerName(c.names.value(0), c.labels))
                continue;
            Docker::RemoveContainerOptions rm;
            rm.force = true;
            auto ok = (*client)->removeContainer(c.id, rm, bounded(call));
            // Someone else's removal is under way: wait (bounded) until it is done.
            for (int wait = 0; !ok && isBeingRemoved(ok.error()) && wait < 40; ++wait) {
                if (m_cancel.isCancelled())
                    break;
                std::this_thread::sleep_for(250ms);
                auto info = (*client)->inspectContainer(c.id, bounded(call));
                ok = info ? Result<void>(fail(ok.error())) : Result<void>(fail(info.error()));
            }
            std::lock_guard lock(mutex);
            if (ok || ok.error().isGone())
                ++removed;
            else
                failures.append(
                    ok.error().withContext(QStringLiteral("host %1").arg(host)).toString());
        }
        for (const Docker::NetworkInfo &n : listing.networks) {
            if (!m_self.ownsSessionObject(n.labels, a.sessionId))
                continue;
            // A VXLAN network's device first: it lives in the host's namespace, not in Docker.
            if (auto device =
                    VxlanNetwork::removeDeviceOf(m_self, n.labels, **client, bounded(call));
                !device) {
                std::lock_guard lock(mutex);
                failures.append(
                    device.error().withContext(QStringLiteral("host %1").arg(host)).toString());
                continue;
            }
            // An overlay keeps its endpoints for a moment after the last container left.
            Result<void> ok;
            for (int attempt = 0; attempt < 8; ++attempt) {
                ok = (*client)->removeNetwork(n.id, bounded(call));
                if (ok || ok.error().isGone() || m_cancel.isCancelled() ||
                    std::chrono::steady_clock::now() >= deadline)
                    break;
                std::this_thread::sleep_for(250ms);
            }
            std::lock_guard lock(mutex);
            if (ok || ok.error().isGone())
                ++removed;
            else
                failures.append(
                    ok.error().withContext(QStringLiteral("host %1").arg(host)).toString());
        }
    });
    logEvent(a.sessionId, {}, QStringLiteral("reconcile"),
             QStringLiteral("removed %1 object(s): %2%3")
                 .arg(removed)
                 .arg(a.why, failures.isEmpty() ? QString()
                                                : QStringLiteral("; failed: ") +
                                                      failures.join(QStringLiteral("; "))));
    if (!failures.isEmpty())
        return {false, failures.join(QStringLiteral("; "))};
    return {true, QStringLiteral("removed %1 object(s)").arg(removed)};
}

ActionApplier::Outcome ActionApplier::markSession(const QString &sessionId, SessionStatus status,
                                                  const QString &why)
{
    auto session = m_store->session(sessionId);
    if (!session)
        return {false, session.error().toString()};
    SessionRecord s = *session;
    if (s.status == status)
        return {true, QStringLiteral("already %1").arg(toString(status))};
    s.changeStatus(status, QDateTime::currentDateTimeUtc(), why);
    if (auto ok = m_store->updateSession(s); !ok)
        return {false, ok.error().toString()};
    return {true, toString(status)};
}

ActionApplier::Outcome ActionApplier::markKernel(const QString &sessionId, const QString &kernelId,
                                                 KernelStatus status, const QString &why)
{
    const QDateTime now = QDateTime::currentDateTimeUtc();
    auto changed = m_store->modifyKernels({{sessionId, kernelId}}, [&](KernelRecord &k) {
        if (k.status == status)
            return false;
        k.changeStatus(status, now, why);
        return true;
    });
    if (!changed)
        return {false, changed.error().toString()};
    if (!changed->isEmpty())
        logEvent(sessionId, kernelId, QStringLiteral("kernel-status"),
                 QStringLiteral("%1: %2").arg(toString(status), why));
    return {true, toString(status)};
}

// Session control on behalf of the controller: its actor, stop timeout, cancel and held lock.
void ActionApplier::configure(SessionController &sessions) const
{
    sessions.setActor(m_actor);
    sessions.setStopTimeout(m_stopTimeout);
    sessions.setCancel(m_cancel);
    // Losing the lease or the session's lock stops the work; it never rolls a session back.
    sessions.setStopToken(m_cancel);
    sessions.setHeldLock(m_heldLock);
    // A restart the controller makes waits for a host that does not answer (a reboot) instead
    // of ending the session; every later pass tries it again.
    sessions.setWaitForHosts(true);
}

ActionApplier::Outcome ActionApplier::waitForHosts(const QString &sessionId,
                                                   const QMap<QString, Error> &down)
{
    SessionController sessions(m_store, m_registry);
    configure(sessions);
    return {false, sessions.recordWaitForHosts(sessionId, down).toString()};
}

ActionApplier::Outcome ActionApplier::completeSession(const ReconcileAction &a)
{
    auto session = m_store->session(a.sessionId);
    if (!session)
        return {false, session.error().toString()};
    if (session->status == SessionStatus::Restarting && session->mode == ClusterMode::MultiNode) {
        // An interrupted whole-session restart is done again from its start: the stops and
        // removals of the process that was killed may still run in the daemons, and a kernel
        // started on a node that one of them empties meanwhile leaves a swarm attachment that no
        // API call removes (see SwarmOverlayNetwork::awaitReuse). restartLocked removes
        // every container of the session first, each removal awaited, then provisions.
        SessionController sessions(m_store, m_registry);
        configure(sessions);
        auto restarted = sessions.restartLocked(
            a.sessionId, QStringLiteral("completing an interrupted restart"));
        if (!restarted) {
            // A wait for a host is recorded once (restart-waits), not at every pass.
            if (restarted.error().kind != Error::Kind::Unavailable)
                logEvent(a.sessionId, {}, QStringLiteral("reconcile"),
                         QStringLiteral("could not complete the restart: ") +
                             restarted.error().toString());
            return {false, restarted.error().toString()};
        }
        logEvent(a.sessionId, {}, QStringLiteral("reconcile"),
                 QStringLiteral("completed the interrupted %1").arg(a.why));
        return {true, QStringLiteral("restarted anew")};
    }
    const bool restarting = session->status == SessionStatus::Restarting;
    if (restarting) {
        // A restart waits for every host of the session to answer (see restartLocked).
        auto kernels = m_store->kernels(a.sessionId);
        if (!kernels)
            return {false, kernels.error().toString()};
        if (const auto down = HostProbe::unanswered(
                m_registry, SessionController::hostsOf(*session, *kernels), 5s, m_cancel);
            !down.isEmpty())
            return waitForHosts(a.sessionId, down);
    }
    auto spec = SessionSpec::fromRecord(*session, *m_store);
    if (!spec)
        return {false, spec.error().toString()};
    Provisioner provisioner(m_store, m_registry);
    provisioner.setActor(m_actor);
    provisioner.setDeferOnUnansweredHosts(restarting);
    provisioner.setStopToken(m_cancel);
    auto done = provisioner.provision(*spec, m_cancel, m_heldLock);
    if (!done && done.error().kind == Error::Kind::Unavailable)
        return waitForHosts(a.sessionId, provisioner.unansweredHosts());
    if (!done && provisioner.stopped()) // no longer leading: stopped where it was, as it was
        return {false, done.error().toString()};
    if (!done) {
        logEvent(a.sessionId, {}, QStringLiteral("reconcile"),
                 QStringLiteral("could not complete (rolled back): ") + done.error().toString());
        return {false, QStringLiteral("rolled back: ") + done.error().toString()};
    }
    logEvent(a.sessionId, {}, QStringLiteral("reconcile"),
             QStringLiteral("completed the interrupted %1").arg(a.why));
    return {true, QStringLiteral("all %1 kernels running").arg(spec->plan.kernels.size())};
}

QString ActionApplier::lastLines(const QString &host, const QString &containerId) const
{
    if (containerId.isEmpty())
        return {};
    auto client = m_registry->dockerHost(host);
    if (!client)
        return {};
    Docker::LogOptions options;
    options.tail = QStringLiteral("10");
    Docker::CallOptions call;
    call.timeout = 3s;
    call.cancel = m_cancel;
    auto logs = (*client)->containerLogs(containerId, options, call);
    if (!logs)
        return {};
    QByteArray all;
    for (const Docker::LogFrame &f : std::as_const(logs->frames))
        all += f.data;
    QStringList lines = QString::fromUtf8(all).split(QLatin1Char('\n'), Qt::SkipEmptyParts);
    while (lines.size() > 10)
        lines.removeFirst();
    // They go into the session's error and the event log: nothing in them may act on the
    // terminal of whoever prints those.
    return InertText::of(lines.join(QStringLiteral(" | ")));
}

Result<std::optional<ExitDecision>> ActionApplier::handleExit(const QString &sessionId,
                                                              const KernelExit &exit)
{
    auto decided = handleExits(sessionId, {exit});
    if (!decided)
        return fail(decided.error());
    if (decided->isEmpty())
        return std::optional<ExitDecision>{};
    return std::optional<ExitDecision>{decided->first()};
}

std::optional<KernelExit> ActionApplier::recheck(const KernelExit &exit) const
{
    KernelExit checked = exit;
    if (exit.containerId.isEmpty())
        return checked;
    auto client = m_registry->dockerHost(exit.host);
    if (!client)
        return checked;
    Docker::CallOptions call;
    call.timeout = 10s;
    call.cancel = m_cancel;
    auto info = (*client)->inspectContainer(exit.containerId, call);
    if (info && info->state.running)
        return std::nullopt;
    // A container that never started reports exit code 0: that is no success.
    if (info && !checked.exitCode && info->state.status != ContainerStatus::Created)
        checked.exitCode = info->state.exitCode;
    if (!info && info.error().isGone() && !checked.exitCode)
        checked.vanished = true;
    return checked;
}

Result<QList<ExitDecision>> ActionApplier::handleExits(const QString &sessionId,
                                                       const QList<KernelExit> &exits)
{
    using Outcome = ExitDecision::Outcome;
    QList<ExitDecision> decided;
    // A command holding the lock is restarting or terminating the session: its exits are
    // expected, and a real failure is found by the next pass anyway.
    auto lock = m_store->lockSession(sessionId, 2s);
    if (!lock)
        return decided;
    const HeldLock held(this, lock->get());
    auto session = m_store->session(sessionId);
    if (!session)
        return session.error().isGone() ? Result<QList<ExitDecision>>(decided)
                                        : Result<QList<ExitDecision>>(fail(session.error()));
    auto kernels = m_store->kernels(sessionId);
    if (!kernels)
        return fail(kernels.error());
    SessionPolicies policies = SessionPolicies::of(*session);
    QList<Recorded> recorded;
    const auto flush = [&]() -> Result<void> {
        if (recorded.isEmpty())
            return {};
        auto ok = record(*session, recorded);
        for (const Recorded &r : std::as_const(recorded))
            decided.append(r.decision);
        recorded.clear();
        return ok;
    };
    for (const KernelExit &exit : exits) {
        // Running again by now (restarted by someone)? Then there is nothing to decide.
        const std::optional<KernelExit> checked = recheck(exit);
        if (!checked)
            continue;
        const ExitDecision d = decideExit(*session, *kernels, policies, *checked);
        if (d.outcome == Outcome::Expected)
            continue;
        if (d.outcome == Outcome::Ignore || d.outcome == Outcome::KernelSucceeded) {
            // Recorded with the others; the exits after it are decided on what it leaves.
            recorded.append({*checked, d});
            for (KernelRecord &k : *kernels) {
                if (k.id == checked->kernelId)
                    k.status = d.outcome == Outcome::Ignore ? KernelStatus::Error
                                                            : KernelStatus::Terminated;
            }
            if (d.outcome == Outcome::Ignore)
                session->status = SessionStatus::Degraded;
            continue;
        }
        // It restarts, terminates or completes the session: what came before is written
        // first, then it is acted on alone (on the records in memory, which the writes match;
        // every write of decideAndAct reads afresh), and the rest is decided on the session it
        // leaves.
        if (auto ok = flush(); !ok)
            return fail(ok.error());
        auto acted = decideAndAct(*session, *kernels, *checked);
        if (!acted)
            return fail(acted.error());
        if (acted->outcome != Outcome::Expected)
            decided.append(*acted);
        session = m_store->session(sessionId);
        if (!session)
            return session.error().isGone() ? Result<QList<ExitDecision>>(decided)
                                            : Result<QList<ExitDecision>>(fail(session.error()));
        kernels = m_store->kernels(sessionId);
        if (!kernels)
            return fail(kernels.error());
        policies = SessionPolicies::of(*session);
    }
    if (auto ok = flush(); !ok)
        return fail(ok.error());
    return decided;
}

Result<void> ActionApplier::record(const SessionRecord &session, const QList<Recorded> &recorded)
{
    using Outcome = ExitDecision::Outcome;
    QHash<QString, const Recorded *> byKernel;
    QList<KernelRef> refs;
    QStringList details;
    for (const Recorded &r : recorded) {
        byKernel.insert(r.exit.kernelId, &r);
        refs.append({session.id, r.exit.kernelId});
        const QString lines =
            r.exit.vanished ? QString() : lastLines(r.exit.host, r.exit.containerId);
        details.append(lines.isEmpty()
                           ? r.decision.reason
                           : r.decision.reason + QStringLiteral("; last lines: ") + lines);
    }
    // The kernels' new statuses first: a fenced write, so a deposed leader stops right here.
    const QDateTime now = QDateTime::currentDateTimeUtc();
    auto marked = m_store->modifyKernels(refs, [&](KernelRecord &k) {
        const Recorded *r = byKernel.value(k.id);
        if (!r)
            return false;
        k.changeStatus(r->decision.outcome == Outcome::Ignore ? KernelStatus::Error
                                                              : KernelStatus::Terminated,
                       now, r->exit.describe(k.hostname));
        if (r->exit.exitCode)
            k.observed.exitCode = r->exit.exitCode;
        return true;
    });
    if (!marked)
        return fail(marked.error());
    bool ignored = false;
    for (qsizetype i = 0; i < recorded.size(); ++i) {
        logEvent(session.id, recorded.at(i).exit.kernelId, QStringLiteral("kernel-exit"),
                 details.at(i));
        ignored = ignored || recorded.at(i).decision.outcome == Outcome::Ignore;
    }
    QString why;
    if (!mayAct(&why))
        return fail(Error::Kind::Cancelled, QString(), why);
    if (!ignored)
        return {};
    auto fresh = m_store->session(session.id);
    if (!fresh)
        return fail(fresh.error());
    for (qsizetype i = 0; i < recorded.size(); ++i) {
        if (recorded.at(i).decision.outcome != Outcome::Ignore)
            continue;
        fresh->lastError = details.at(i);
        fresh->changeStatus(SessionStatus::Degraded, now, details.at(i));
    }
    if (auto ok = m_store->updateSession(*fresh); !ok)
        return fail(ok.error());
    for (const Recorded &r : recorded) {
        if (r.decision.outcome == Outcome::Ignore)
            logEvent(session.id, r.exit.kernelId, QStringLiteral("policy"), r.decision.reason);
    }
    return {};
}

Result<ExitDecision> ActionApplier::decideAndAct(const SessionRecord &session,
                                                 const QList<KernelRecord> &kernels,
                                                 const KernelExit &exit)
{
    using Outcome = ExitDecision::Outcome;
    const SessionPolicies policies = SessionPolicies::of(session);
    ExitDecision d = decideExit(session, kernels, policies, exit);
    if (d.outcome == Outcome::Expected)
        return d;
    const QString lines = exit.vanished ? QString() : lastLines(exit.host, exit.containerId);
    const QString detail =
        lines.isEmpty() ? d.reason : d.reason + QStringLiteral("; last lines: ") + lines;
    const bool succeeded =
        d.outcome == Outcome::KernelSucceeded || d.outcome == Outcome::SessionCompleted;

    // The kernel's new status first: a fenced write, so a deposed leader stops right here.
    const QDateTime now = QDateTime::currentDateTimeUtc();
    auto marked = m_store->modifyKernels({{session.id, exit.kernelId}}, [&](KernelRecord &k) {
        k.changeStatus(succeeded ? KernelStatus::Terminated : KernelStatus::Error, now,
                       exit.describe(k.hostname));
        if (exit.exitCode)
            k.observed.exitCode = exit.exitCode;
        return true;
    });
    if (!marked)
        return fail(marked.error());
    logEvent(session.id, exit.kernelId, QStringLiteral("kernel-exit"), detail);
    QString why;
    if (!mayAct(&why))
        return fail(Error::Kind::Cancelled, QString(), why);

    // The session as the store has it now, changed by `change` and written back.
    const auto updateSession =
        [this, &session](const std::function<void(SessionRecord &)> &change) -> Result<void> {
        auto fresh = m_store->session(session.id);
        if (!fresh)
            return fail(fresh.error());
        change(*fresh);
        return m_store->updateSession(*fresh);
    };
    SessionController sessions(m_store, m_registry);
    configure(sessions);
    switch (d.outcome) {
    case Outcome::Expected:
    case Outcome::KernelSucceeded:
        break;
    case Outcome::SessionCompleted: {
        // Stop (not remove) the others: their logs stay until ttlAfterFinished or `rm`.
        QList<KernelRecord> others;
        for (const KernelRecord &k : kernels) {
            if (k.id != exit.kernelId && !isFinal(k.status))
                others.append(k);
        }
        auto callFor = [&] {
            Docker::CallOptions call;
            call.timeout = std::chrono::seconds(m_stopTimeout + 30);
            call.cancel = m_cancel;
            return call;
        };
        // The kernels' own containers only (labels and name), never a same-named other.
        QList<std::optional<QString>> targets(others.size());
        Concurrent::forEach(int(others.size()), [&](int i) {
            const KernelRecord &k = others.at(i);
            auto client = m_registry->dockerHost(k.host);
            if (!client || k.containerId.isEmpty())
                return;
            auto owned = OwnedContainer::of(**client, k, m_self, callFor());
            if (owned)
                targets[i] = *owned;
            else if (!owned.error().isGone())
                qCWarning(lcControl) << "stopping" << k.hostname << ":" << owned.error().toString();
        });
        // On a host-local bridge (single-node, VXLAN) they leave the session's network one at
        // a time first: stopped together, their endpoints would be released together, which
        // dockerd 20.10 can miscount, and the network could then never be removed.
        if (auto spec = SessionSpec::fromJson(session.launch.spec, session.id)) {
            QMap<QString, QStringList> onHost;
            for (qsizetype i = 0; i < others.size(); ++i) {
                if (targets.at(i))
                    onHost[others.at(i).host].append(*targets.at(i));
            }
            auto clientOf = [&](const QString &host) {
                auto client = m_registry->dockerHost(host);
                return client ? *client : nullptr;
            };
            SessionNetwork::forPlacement(spec->placement, m_store)
                ->leaveFirst(spec->plan.networkName, onHost, clientOf, callFor());
        } else {
            qCWarning(lcControl) << "stopping the others of" << session.name
                                 << "without leaving the network first:" << spec.error().toString();
        }
        Concurrent::forEach(int(others.size()), [&](int i) {
            const KernelRecord &k = others.at(i);
            auto client = m_registry->dockerHost(k.host);
            if (!client || !targets.at(i))
                return;
            if (auto ok = (*client)->stopContainer(*targets.at(i), m_stopTimeout, callFor());
                !ok && !ok.error().isGone())
                qCWarning(lcControl) << "stopping" << k.hostname << ":" << ok.error().toString();
        });
        QList<KernelRef> refs;
        for (const KernelRecord &k : std::as_const(others))
            refs.append({k.sessionId, k.id});
        auto stopped = m_store->modifyKernels(refs, [&](KernelRecord &k) {
            if (isFinal(k.status))
                return false;
            k.changeStatus(KernelStatus::Terminated, now, QStringLiteral("the session completed"));
            return true;
        });
        if (!stopped)
            return fail(stopped.error());
        if (auto ok = updateSession([&](SessionRecord &s) {
                s.finishedAt = QDateTime::currentDateTimeUtc();
                s.changeStatus(SessionStatus::Completed, s.finishedAt, d.reason);
            });
            !ok)
            return fail(ok.error());
        logEvent(session.id, {}, QStringLiteral("completed"), d.reason);
        break;
    }
    case Outcome::Ignore: {
        if (auto ok = updateSession([&](SessionRecord &s) {
                s.lastError = detail;
                s.changeStatus(SessionStatus::Degraded, QDateTime::currentDateTimeUtc(), detail);
            });
            !ok)
            return fail(ok.error());
        logEvent(session.id, exit.kernelId, QStringLiteral("policy"), d.reason);
        break;
    }
    case Outcome::RestartSession: {
        if (auto ok = updateSession([&](SessionRecord &s) {
                s.restartCount += 1;
                s.lastError = detail;
            });
            !ok)
            return fail(ok.error());
        logEvent(session.id, exit.kernelId, QStringLiteral("policy"), d.reason);
        if (auto ok = sessions.restartLocked(session.id, d.reason); !ok) {
            d.reason += (ok.error().kind == Error::Kind::Unavailable
                             ? QStringLiteral("; the restart waits: ")
                             : QStringLiteral("; the restart failed: ")) +
                        ok.error().toString();
            logEvent(session.id, {}, QStringLiteral("policy"), d.reason);
        }
        break;
    }
    case Outcome::TerminateSession: {
        logEvent(session.id, exit.kernelId, QStringLiteral("policy"), d.reason);
        if (auto fresh = m_store->session(session.id); fresh) {
            SessionRecord s = *fresh;
            s.lastError = detail;
            if (auto ok = m_store->updateSession(s); !ok)
                return fail(ok.error());
        }
        if (auto ok = sessions.terminateLocked(session.id, detail); !ok) {
            d.reason += QStringLiteral("; the terminate is incomplete: ") + ok.error().toString();
            logEvent(session.id, {}, QStringLiteral("policy"), d.reason);
        }
        break;
    }
    }
    return d;
}

} // namespace ClusterDeck
