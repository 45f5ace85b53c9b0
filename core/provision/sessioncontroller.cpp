#include "sessioncontroller.h"

#include "common/concurrent.h"
#include "common/failpoint.h"
#include "common/labels.h"
#include "common/linesplitter.h"
#include "common/logging.h"
#include "containerspecbuilder.h"
#include "docker/dockerhost.h"
#include "eventlog.h"
#include "host/hostregistry.h"
#include "hostprobe.h"
#include "network/sessionnetwork.h"
#include "ownedcontainer.h"
#include "provisioner.h"
#include "sessionteardown.h"
#include "store/statestore.h"

#include <QDateTime>

#include <mutex>
#include <thread>

namespace ClusterDeck {

using namespace std::chrono_literals;

SessionController::SessionController(StateStore *store, HostRegistry *registry)
    : m_store(store)
    , m_registry(registry)
{}

Result<SessionRecord> SessionController::findSession(const SessionStore &store, const QString &ref)
{
    if (ref.isEmpty())
        return fail(Error::Kind::Invalid, QString(), QStringLiteral("no session given"));
    auto sessions = store.sessions();
    if (!sessions)
        return fail(sessions.error());
    return matchSession(*sessions, ref);
}

Result<SessionRecord> SessionController::matchSession(const QList<SessionRecord> &sessions,
                                                      const QString &ref)
{
    if (ref.isEmpty())
        return fail(Error::Kind::Invalid, QString(), QStringLiteral("no session given"));
    QList<SessionRecord> byPrefix, byName;
    for (const SessionRecord &s : sessions) {
        if (s.id == ref)
            return s;
        if (s.name == ref)
            byName.append(s);
        if (s.id.startsWith(ref))
            byPrefix.append(s);
    }
    auto candidates = [](const QList<SessionRecord> &list) {
        QStringList lines;
        for (const SessionRecord &s : list)
            lines.append(QStringLiteral("%1 (%2, %3)").arg(s.id, s.name, toString(s.status)));
        lines.sort();
        return lines.join(QStringLiteral("; "));
    };
    // An exact name before an id prefix: `rm db` means the session named db. A name may be
    // reused after its session ended: the one session still wanted running is meant.
    if (byName.size() == 1)
        return byName.first();
    if (byName.size() > 1) {
        QList<SessionRecord> live;
        for (const SessionRecord &s : std::as_const(byName)) {
            if (s.desired == DesiredState::Running)
                live.append(s);
        }
        if (live.size() == 1)
            return live.first();
        return fail(Error::Kind::Conflict, QString(),
                    QStringLiteral("'%1' names %2 sessions; give the id of one: %3")
                        .arg(ref)
                        .arg(byName.size())
                        .arg(candidates(byName)));
    }
    if (byPrefix.size() == 1)
        return byPrefix.first();
    if (byPrefix.size() > 1)
        return fail(Error::Kind::Conflict, QString(),
                    QStringLiteral("'%1' is the start of %2 session ids; give more of the id: %3")
                        .arg(ref)
                        .arg(byPrefix.size())
                        .arg(candidates(byPrefix)));
    return fail(Error::Kind::NotFound, QString(), QStringLiteral("no session '%1'").arg(ref));
}

SessionSpec SessionController::specFromRecords(const SessionRecord &session,
                                               const QList<KernelRecord> &kernels)
{
    SessionSpec spec;
    spec.plan.sessionId = session.id;
    spec.plan.sessionName = session.name;
    spec.plan.networkName = session.networkName;
    spec.placement.mode =
        session.mode == ClusterMode::SingleNode ? ClusterMode::SingleNode : ClusterMode::MultiNode;
    spec.placement.networkHost = session.networkHost;
    // The network's driver and where it is (every host of a VXLAN session) from the stored
    // spec, whose placement needs no secrets.
    if (auto stored = SessionSpec::fromJson(session.launch.spec, session.id)) {
        spec.placement.driver = stored->placement.driver;
        spec.placement.hostsUsed = stored->placement.hostsUsed;
        spec.placement.gatewaySlots = stored->placement.gatewaySlots;
        spec.placement.addressSlots = stored->placement.addressSlots;
    }
    for (const KernelRecord &k : kernels) {
        KernelSpec ks;
        ks.kernelId = k.id;
        ks.hostname = k.hostname;
        ks.containerName = k.containerName;
        ks.role = k.role;
        spec.plan.kernels.append(ks);
        if (!k.host.isEmpty()) {
            spec.placement.hostOf.insert(k.hostname, k.host);
            if (!spec.placement.hostsUsed.contains(k.host))
                spec.placement.hostsUsed.append(k.host);
        }
    }
    return spec;
}

Result<SessionRecord>
SessionController::withLock(const QString &sessionId,
                            const std::function<Result<SessionRecord>()> &work)
{
    auto lock = m_store->lockSession(sessionId, 30s);
    if (!lock)
        return fail(lock.error());
    // Losing the lock cancels the work's calls at once; what it did is left to the new holder.
    const CancelToken outer = m_cancel;
    const SessionLock *outerLock = m_heldLock;
    m_cancel = CancelToken::anyOf(outer, (*lock)->lostToken());
    m_heldLock = lock->get();
    auto done = work();
    m_cancel = outer;
    m_heldLock = outerLock;
    if ((*lock)->isLost())
        return fail((*lock)->lostError());
    return done;
}

Result<SessionRecord> SessionController::restart(const QString &sessionId, const QString &reason)
{
    return withLock(sessionId, [&] { return restartLocked(sessionId, reason); });
}

Result<SessionRecord> SessionController::terminate(const QString &sessionId, const QString &reason)
{
    return withLock(sessionId, [&] { return terminateLocked(sessionId, reason); });
}

Result<SessionRecord> SessionController::restartLocked(const QString &sessionId,
                                                       const QString &reason)
{
    auto session = m_store->session(sessionId);
    if (!session)
        return fail(session.error());
    if (session->desired != DesiredState::Running || isFinal(session->status))
        return fail(Error::Kind::Invalid, QStringLiteral("session %1").arg(session->name),
                    QStringLiteral("session %1 is %2; only a running session can be restarted")
                        .arg(session->name, toString(session->status)));
    auto kernels = m_store->kernels(sessionId);
    if (!kernels)
        return fail(kernels.error());
    // A multi-node restart makes the kernels anew from the stored spec, secrets included: without
    // them (no store key) it fails here, before anything is stopped.
    std::optional<SessionSpec> stored;
    if (session->mode == ClusterMode::MultiNode) {
        auto spec = SessionSpec::fromRecord(*session, *m_store);
        if (!spec)
            return fail(spec.error());
        if (spec->secretsUnavailable)
            return fail(spec->secretsUnavailable->withContext(
                QStringLiteral("restarting %1").arg(session->name)));
        stored = std::move(*spec);
    }
    // Every host answers, or nothing is stopped: a restart begun without one of them would
    // end the session half-way (a rebooting host is waited for, not given up on).
    if (const auto down =
            HostProbe::unanswered(m_registry, hostsOf(*session, *kernels), 5s, m_cancel);
        !down.isEmpty()) {
        if (m_waitForHosts)
            return fail(recordWaitForHosts(sessionId, down));
        return fail(HostProbe::describe(down).withContext(
            QStringLiteral("restarting %1 (nothing was stopped; try again when it answers)")
                .arg(session->name)));
    }
    logEvent(sessionId, {}, QStringLiteral("restart"),
             reason.isEmpty() ? QStringLiteral("restart of all %1 kernels").arg(kernels->size())
                              : reason);
    setSessionStatus(*session, SessionStatus::Restarting, reason);
    setKernelStatuses(sessionId, *kernels, KernelStatus::Restarting, reason);

    if (session->mode == ClusterMode::MultiNode) {
        // On an attachable overlay, stopping and starting the same container can leave a stale
        // swarm attachment behind (the node drops the network when its last container stops;
        // the start then fails and the manager keeps the network "in use"). Fresh containers
        // from the stored spec attach and detach cleanly; every start time changes all the same.
        const SessionSpec *spec = &*stored;
        const StoreIdentity self = m_store->identity();
        FailPoint::reached("restart-before-stop");
        auto hostOf = [&](int i) {
            return kernels->at(i).host;
        };
        auto callFor = [&] {
            Docker::CallOptions call;
            call.timeout = std::chrono::seconds(m_stopTimeout + 60);
            call.cancel = m_cancel;
            return call;
        };
        // The kernels' own containers (labels and name), never a same-named other.
        QList<std::optional<QString>> targets(kernels->size());
        Concurrent::forEachPerHost(int(kernels->size()), hostOf, [&](int i) {
            const KernelRecord &k = kernels->at(i);
            auto client = m_registry->dockerHost(k.host);
            if (!client)
                return;
            auto target = OwnedContainer::of(**client, k, self, callFor());
            if (target)
                targets[i] = *target;
            else if (target.error().kind == Error::Kind::Conflict)
                qCWarning(lcProvision) << target.error().toString();
        });
        // On a host-local bridge they leave the network one at a time before the stops
        // (SessionNetwork::leaveFirst): the new containers join the same network.
        QMap<QString, QStringList> onHost;
        for (qsizetype i = 0; i < kernels->size(); ++i) {
            if (targets.at(i))
                onHost[kernels->at(i).host].append(*targets.at(i));
        }
        auto clientOf = [&](const QString &host) {
            auto client = m_registry->dockerHost(host);
            return client ? *client : nullptr;
        };
        SessionNetwork::forPlacement(spec->placement, m_store)
            ->leaveFirst(spec->plan.networkName, onHost, clientOf, callFor());
        Concurrent::forEachPerHost(int(kernels->size()), hostOf, [&](int i) {
            const KernelRecord &k = kernels->at(i);
            auto client = m_registry->dockerHost(k.host);
            if (!client || !targets.at(i))
                return;
            const QString target = *targets.at(i);
            const Docker::CallOptions call = callFor();
            // A stop that fails is not fatal: the forced remove below kills the container.
            if (auto stopped = (*client)->stopContainer(target, m_stopTimeout, call); !stopped)
                qCInfo(lcProvision).noquote()
                    << "stopping" << k.hostname
                    << "before its restart:" << stopped.error().toString();
            Docker::RemoveContainerOptions rm;
            rm.force = true;
            // Left behind, the old container holds the name: the create below then fails with
            // the daemon's conflict message, which is what the admin sees.
            if (auto removed = (*client)->removeContainer(target, rm, call); !removed)
                qCWarning(lcProvision).noquote()
                    << "removing" << k.hostname
                    << "before its restart:" << removed.error().toString();
        });
        Provisioner provisioner(m_store, m_registry);
        provisioner.setStopToken(m_stop);
        provisioner.setActor(m_actor.isEmpty() ? QStringLiteral("controller") : m_actor);
        provisioner.setDeferOnUnansweredHosts(m_waitForHosts);
        auto done = provisioner.provision(*spec, m_cancel, m_heldLock);
        if (!done && done.error().kind == Error::Kind::Unavailable)
            return fail(recordWaitForHosts(sessionId, provisioner.unansweredHosts()));
        if (!done)
            return fail(
                done.error().withContext(QStringLiteral("restarting %1").arg(session->name)));
        return *done;
    }

    std::mutex mutex;
    std::optional<Error> firstError;
    QStringList recreate;
    // At most 8 kernels of one host restart at once (the executor's per-host limit).
    auto hostOf = [&](int i) {
        return kernels->at(i).host;
    };
    Concurrent::forEachPerHost(int(kernels->size()), hostOf, [&](int i) {
        const KernelRecord &k = kernels->at(i);
        auto failed = [&](const Error &e) {
            const Error where =
                e.withContext(QStringLiteral("restarting %1 on host %2").arg(k.hostname, k.host));
            setKernelStatus(sessionId, k, KernelStatus::Error, where.toString());
            std::lock_guard lock(mutex);
            if (!firstError)
                firstError = where;
        };
        auto client = m_registry->dockerHost(k.host);
        if (!client)
            return failed(client.error());
        Docker::CallOptions call;
        call.timeout = std::chrono::seconds(m_stopTimeout + 60);
        call.cancel = m_cancel;
        auto owned = OwnedContainer::of(**client, k, m_store->identity(), call);
        if (!owned)
            return failed(owned.error());
        const QString target = *owned;
        if (auto ok = (*client)->restartContainer(target, m_stopTimeout, call); !ok) {
            // A node drops its copy of an attachable overlay when its last container stops, and
            // the restarted container then finds its network id gone: recreate that kernel.
            if (ok.error().message.contains(QLatin1String("network")) &&
                ok.error().message.contains(QLatin1String("not found"))) {
                std::lock_guard lock(mutex);
                recreate.append(k.hostname);
                return;
            }
            return failed(ok.error());
        }
        // Docker may choose new host ports on start: read them back.
        if (!k.ports.isEmpty()) {
            auto info = (*client)->inspectContainer(target, call);
            auto host = m_store->host(k.host);
            if (info && host) {
                auto current = m_store->kernel(sessionId, k.id);
                if (current) {
                    KernelRecord r = *current;
                    for (PortBinding &p : r.ports) {
                        p.hostPort = info->hostPortFor(p.containerPort);
                        p.url = p.protocol == QLatin1String("http") && p.hostPort
                                    ? QStringLiteral("http://%1:%2")
                                          .arg(ContainerSpecBuilder::publicAddressOf(*host))
                                          .arg(p.hostPort)
                                    : QString();
                    }
                    if (auto ok = m_store->updateKernel(r); !ok)
                        qCWarning(lcProvision).noquote() << "recording the ports of" << k.hostname
                                                         << ":" << ok.error().toString();
                }
            }
        }
        setKernelStatus(sessionId, k, KernelStatus::Running, reason);
    });

    if (!recreate.isEmpty() && !firstError) {
        qCInfo(lcProvision) << "recreating" << recreate << "of" << sessionId
                            << "(their overlay attachment was gone)";
        auto spec = SessionSpec::fromRecord(*session, *m_store);
        if (!spec)
            return fail(spec.error());
        Provisioner provisioner(m_store, m_registry);
        provisioner.setStopToken(m_stop);
        provisioner.setActor(m_actor);
        // Adopts the kernels that run again and makes the others anew, all-or-nothing.
        auto done = provisioner.provision(*spec, m_cancel, m_heldLock);
        if (!done)
            return fail(
                done.error().withContext(QStringLiteral("restarting %1").arg(session->name)));
        logEvent(sessionId, {}, QStringLiteral("restart"),
                 QStringLiteral("recreated %1").arg(recreate.join(QStringLiteral(", "))));
        return *done;
    }

    auto after = m_store->kernels(sessionId);
    QList<KernelStatus> statuses;
    if (after) {
        for (const KernelRecord &k : std::as_const(*after))
            statuses.append(k.status);
    }
    auto fresh = m_store->session(sessionId);
    SessionRecord s = fresh ? *fresh : *session;
    if (firstError) {
        s.lastError = firstError->toString();
        setSessionStatus(s, deriveSessionStatus(statuses), s.lastError);
        logEvent(sessionId, {}, QStringLiteral("error"), s.lastError);
        return fail(*firstError);
    }
    setSessionStatus(s, SessionStatus::Running, reason);
    return s;
}

Result<SessionRecord> SessionController::terminateLocked(const QString &sessionId,
                                                         const QString &reason)
{
    auto session = m_store->session(sessionId);
    if (!session)
        return fail(session.error());
    auto kernels = m_store->kernels(sessionId);
    if (!kernels)
        return fail(kernels.error());
    // Desired state first: a crash from here on is finished by the reconciler.
    SessionRecord s = *session;
    s.desired = DesiredState::Terminated;
    QList<KernelRecord> records = *kernels;
    QList<KernelProgress> desired;
    desired.reserve(records.size());
    const QDateTime now = QDateTime::currentDateTimeUtc();
    for (KernelRecord &k : records) {
        k.desired = DesiredState::Terminated;
        desired.append({{sessionId, k.id}, {}, {}, {}, now, DesiredState::Terminated});
    }
    // Only the desired state of each kernel, with the session, in one transaction.
    if (auto ok = m_store->recordKernelProgress(desired, s); !ok)
        return fail(ok.error());
    logEvent(sessionId, {}, QStringLiteral("terminate"),
             reason.isEmpty() ? QStringLiteral("terminate all %1 kernels").arg(records.size())
                              : reason);
    const bool wasFinal = isFinal(s.status);
    if (!wasFinal) {
        setSessionStatus(s, SessionStatus::Terminating, reason);
        QList<KernelRecord> live;
        for (const KernelRecord &k : std::as_const(records)) {
            if (!isFinal(k.status))
                live.append(k);
        }
        setKernelStatuses(sessionId, live, KernelStatus::Terminating, reason);
    }

    const SessionTeardown teardown(m_store, m_registry);
    RemovalOptions removal;
    removal.deadline = m_removalTimeout;
    removal.cancel = m_cancel;
    QStringList unfinished;
    const auto removed = teardown.remove(specFromRecords(s, records), {}, removal, &unfinished);
    {
        // Kernels whose host is done are TERMINATED now; the others stay TERMINATING (and so
        // does the session) until their host answers and the controller removes what is left.
        QList<KernelRecord> done;
        for (const KernelRecord &k : std::as_const(records)) {
            if (!isFinal(k.status) && !unfinished.contains(k.host))
                done.append(k);
        }
        setKernelStatuses(sessionId, done, KernelStatus::Terminated, reason);
    }
    if (!removed) {
        if (auto fresh = m_store->session(sessionId); fresh)
            s = *fresh;
        s.lastError = removed.error().toString();
        if (auto ok = m_store->updateSession(s); !ok)
            qCWarning(lcProvision).noquote()
                << "recording the terminate error of" << sessionId << ":" << ok.error().toString();
        logEvent(sessionId, {}, QStringLiteral("error"),
                 QStringLiteral("terminate incomplete (the controller finishes it): ") +
                     s.lastError);
        return fail(removed.error().withContext(
            QStringLiteral("terminating %1 (it stays TERMINATING until host(s) %2 answer and the "
                           "controller removes what is left)")
                .arg(s.name, unfinished.join(QStringLiteral(", ")))));
    }
    if (!wasFinal) {
        auto fresh = m_store->session(sessionId);
        if (fresh)
            s = *fresh;
        setSessionStatus(s, SessionStatus::Terminated, reason);
    }
    return s;
}

Result<void> SessionController::logs(const QString &sessionId, const QString &hostname, bool follow,
                                     const LogSink &sink, const CancelToken &cancel,
                                     const QString &tail)
{
    auto kernels = m_store->kernels(sessionId);
    if (!kernels)
        return fail(kernels.error());
    QList<KernelRecord> chosen;
    for (const KernelRecord &k : std::as_const(*kernels)) {
        if (hostname.isEmpty() || k.hostname == hostname)
            chosen.append(k);
    }
    if (chosen.isEmpty())
        return fail(Error::Kind::NotFound, QString(),
                    QStringLiteral("session has no kernel '%1'").arg(hostname));
    if (follow && chosen.size() > kMaxFollowedKernels)
        return fail(Error::Kind::Invalid, QStringLiteral("session %1").arg(sessionId.left(8)),
                    QStringLiteral("following the logs of %1 kernels at once is more than %2: "
                                   "pick one with --kernel")
                        .arg(chosen.size())
                        .arg(kMaxFollowedKernels));
    std::sort(chosen.begin(), chosen.end(), [](const KernelRecord &a, const KernelRecord &b) {
        return a.localRank < b.localRank;
    });

    std::mutex mutex;
    std::optional<Error> firstError;
    auto note = [&](const Error &e) {
        std::lock_guard lock(mutex);
        if (!firstError)
            firstError = e;
    };
    auto emitLines = [&](const QString &host, const QList<QByteArray> &lines, bool err) {
        if (lines.isEmpty())
            return;
        std::lock_guard lock(mutex);
        for (const QByteArray &line : lines)
            sink(host, line, err);
    };
    // One kernel's logs, line by line as the frames arrive: nothing but a partial line (of at
    // most LineSplitter's limit; longer ones go on in pieces) is held.
    auto stream = [&](const KernelRecord &k, bool followIt) {
        auto client = m_registry->dockerHost(k.host);
        if (!client)
            return note(client.error());
        Docker::LogOptions o;
        o.tail = tail.isEmpty() ? QStringLiteral("all") : tail;
        Docker::CallOptions call;
        call.cancel = cancel;
        call.timeout = followIt ? 0ms : std::chrono::milliseconds(300s);
        LineSplitter pending[3];
        auto sinkFrame = [&](const Docker::LogFrame &f) {
            emitLines(k.hostname, pending[int(f.stream)].feed(f.data),
                      f.stream == Docker::LogFrame::Stream::Stderr);
            return !cancel.isCancelled();
        };
        // The kernel's own container: never a same-named container of another owner.
        Docker::CallOptions look;
        look.cancel = cancel;
        look.timeout = 30s;
        auto owned = OwnedContainer::of(**client, k, m_store->identity(), look);
        if (!owned)
            return note(owned.error().withContext(QStringLiteral("logs of %1").arg(k.hostname)));
        const QString container = *owned;
        auto ok = followIt ? (*client)->followLogs(container, o, sinkFrame, call)
                           : (*client)->readLogs(container, o, sinkFrame, call);
        for (int s = 1; s < 3; ++s)
            emitLines(k.hostname, pending[s].flush(), s == 2);
        if (!ok && !cancel.isCancelled())
            note(ok.error().withContext(QStringLiteral("logs of %1").arg(k.hostname)));
    };

    if (!follow) {
        // One kernel after the other, in rank order: each streams straight to the sink.
        for (const KernelRecord &k : std::as_const(chosen)) {
            if (cancel.isCancelled())
                break;
            stream(k, false);
        }
    } else {
        // A follow never ends on its own: one thread per followed kernel (at most
        // kMaxFollowedKernels), not the bounded executor, whose threads it would keep forever.
        std::vector<std::thread> threads;
        threads.reserve(size_t(chosen.size()));
        for (const KernelRecord &k : std::as_const(chosen))
            threads.emplace_back([&stream, &k] { stream(k, true); });
        for (std::thread &t : threads)
            t.join();
    }
    if (firstError)
        return fail(*firstError);
    return {};
}

QStringList SessionController::hostsOf(const SessionRecord &session,
                                       const QList<KernelRecord> &kernels)
{
    QStringList hosts;
    for (const KernelRecord &k : kernels)
        if (!k.host.isEmpty() && !hosts.contains(k.host))
            hosts.append(k.host);
    if (!session.networkHost.isEmpty() && !hosts.contains(session.networkHost))
        hosts.append(session.networkHost);
    return hosts;
}

Error SessionController::recordWaitForHosts(const QString &sessionId,
                                            const QMap<QString, Error> &down)
{
    const Error unavailable = HostProbe::describe(down);
    const QString why =
        unavailable.toString() +
        QStringLiteral("; the session waits and is restarted when %1")
            .arg(down.size() == 1 ? QStringLiteral("it answers") : QStringLiteral("they answer"));
    if (auto session = m_store->session(sessionId); session) {
        SessionRecord s = *session;
        if (s.status != SessionStatus::Restarting || s.lastError != why) {
            s.lastError = why;
            if (s.status != SessionStatus::Restarting)
                setSessionStatus(s, SessionStatus::Restarting, why);
            else if (auto ok = m_store->updateSession(s); !ok)
                qCWarning(lcProvision) << "recording the wait:" << ok.error().toString();
            logEvent(sessionId, {}, QStringLiteral("restart-waits"), why);
        }
    }
    if (auto kernels = m_store->kernels(sessionId); kernels) {
        // The others are made anew with them: RESTARTING, not what a half-done relaunch left.
        QList<KernelRecord> others;
        for (const KernelRecord &k : std::as_const(*kernels))
            if (!down.contains(k.host) && k.status != KernelStatus::Restarting &&
                !isFinal(k.status))
                others.append(k);
        setKernelStatuses(sessionId, others, KernelStatus::Restarting,
                          QStringLiteral("waiting for %1").arg(unavailable.where));
        for (auto it = down.cbegin(); it != down.cend(); ++it) {
            QList<KernelRecord> waiting;
            for (const KernelRecord &k : std::as_const(*kernels))
                if (k.host == it.key() && k.status != KernelStatus::Unknown && !isFinal(k.status))
                    waiting.append(k);
            setKernelStatuses(
                sessionId, waiting, KernelStatus::Unknown,
                QStringLiteral("host %1 does not answer: %2").arg(it.key(), it->message));
        }
    }
    Error e = unavailable;
    e.message +=
        QStringLiteral("; the session waits (RESTARTING) and the controller restarts it "
                       "when %1")
            .arg(down.size() == 1 ? QStringLiteral("it answers") : QStringLiteral("they answer"));
    return e;
}

void SessionController::setSessionStatus(SessionRecord &session, SessionStatus status,
                                         const QString &reason)
{
    session.changeStatus(status, QDateTime::currentDateTimeUtc(), reason);
    if (auto ok = m_store->updateSession(session); !ok)
        qCWarning(lcProvision) << "recording session status:" << ok.error().toString();
}

void SessionController::setKernelStatus(const QString &sessionId, const KernelRecord &kernel,
                                        KernelStatus status, const QString &reason)
{
    // A failed write is only logged: what the daemon did happened; the store catches up on the
    // controller's next pass.
    if (auto ok = m_store->updateKernelStatus(sessionId, kernel.id, status, reason); !ok)
        qCWarning(lcProvision).noquote()
            << "recording" << kernel.hostname << toString(status) << ":" << ok.error().toString();
}

void SessionController::setKernelStatuses(const QString &sessionId,
                                          const QList<KernelRecord> &kernels, KernelStatus status,
                                          const QString &reason)
{
    if (kernels.isEmpty())
        return;
    const QDateTime now = QDateTime::currentDateTimeUtc();
    QList<KernelProgress> progress;
    progress.reserve(kernels.size());
    for (const KernelRecord &k : kernels)
        progress.append({{sessionId, k.id}, {{status, now, reason}}, {}, {}, now, {}});
    // One transaction for the whole session: one per kernel was most of a large terminate's cost.
    auto ok = m_store->recordKernelProgress(progress);
    if (!ok)
        qCWarning(lcProvision).noquote() << "recording" << kernels.size() << "kernels"
                                         << toString(status) << ":" << ok.error().toString();
}

void SessionController::logEvent(const QString &sessionId, const QString &kernelId,
                                 const QString &action, const QString &detail)
{
    logLifecycleEvent(m_store, m_actor.isEmpty() ? QStringLiteral("controller") : m_actor,
                      sessionId, kernelId, action, detail);
}

} // namespace ClusterDeck
