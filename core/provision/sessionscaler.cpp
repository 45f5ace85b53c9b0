#include "sessionscaler.h"

#include "common/boundedbuffer.h"
#include "common/concurrent.h"
#include "common/logging.h"
#include "containerspecbuilder.h"
#include "docker/dockerhost.h"
#include "docker/tararchivebuilder.h"
#include "eventlog.h"
#include "host/hostregistry.h"
#include "hostcapacities.h"
#include "network/vxlanaddressplan.h"
#include "network/vxlannetwork.h"
#include "plan/presets.h"
#include "plan/scaleplanner.h"
#include "provisioner.h"
#include "sessionteardown.h"
#include "store/statestore.h"
#include "template/templateloader.h"

#include <QDateTime>
#include <QElapsedTimer>
#include <QJsonArray>

#include <mutex>
#include <thread>

namespace ClusterDeck {

using namespace std::chrono_literals;

namespace {

QString describeCounts(const QMap<QString, int> &counts)
{
    QStringList parts;
    for (auto it = counts.cbegin(); it != counts.cend(); ++it)
        parts.append(it.key() + QLatin1Char('=') + QString::number(it.value()));
    return parts.join(QLatin1Char(' '));
}

QString shortList(const QStringList &names)
{
    return names.isEmpty() ? QStringLiteral("none") : names.join(QStringLiteral(", "));
}

// Archive of the files to swap in, each next to its final path under a temporary name.
QString stagedPath(const QString &path)
{
    const qsizetype slash = path.lastIndexOf(QLatin1Char('/'));
    return path.left(slash + 1) + QLatin1Char('.') + path.mid(slash + 1) +
           QStringLiteral(".clusterdeck-new");
}

QString shellQuote(const QString &s)
{
    QString q = s;
    q.replace(QLatin1Char('\''), QStringLiteral("'\\''"));
    return QLatin1Char('\'') + q + QLatin1Char('\'');
}

} // namespace

SessionScaler::SessionScaler(StateStore *store, HostRegistry *registry, QObject *parent)
    : QObject(parent)
    , m_store(store)
    , m_registry(registry)
{}

bool SessionScaler::isScaling(const SessionRecord &session)
{
    return session.launch.scale.has_value();
}

Result<ScaleOutcome> SessionScaler::scale(const QString &sessionId,
                                          const QMap<QString, int> &counts,
                                          const CancelToken &cancel)
{
    auto lock = m_store->lockSession(sessionId, 30s);
    if (!lock)
        return fail(lock.error());
    return scaleLocked(sessionId, counts, cancel);
}

Result<SessionSpec> SessionScaler::currentSpec(const SessionRecord &session) const
{
    auto spec = SessionSpec::fromRecord(session, *m_store);
    if (!spec)
        return fail(spec.error());
    // Sessions launched before `scale` existed: their bounds come from the template as launched.
    bool unknown = false;
    for (const RoleCount &rc : spec->plan.roles)
        unknown = unknown || rc.min < 0 || rc.max < 0;
    if (unknown) {
        TemplateLoader loader;
        auto t = loader.loadClusterFromData(session.templateSnapshot.toUtf8(),
                                            QStringLiteral("template of %1").arg(session.name));
        if (t) {
            for (RoleCount &rc : spec->plan.roles) {
                if (const RoleTemplate *r = t->role(rc.role)) {
                    rc.min = r->min;
                    rc.max = r->max;
                }
            }
        }
    }
    return spec;
}

Result<SessionSpec> SessionScaler::target(const SessionRecord &session, const SessionSpec &current,
                                          const QMap<QString, int> &counts, ScalePlan *out) const
{
    auto scaled = planScale(current.plan, counts);
    if (!scaled)
        return fail(scaled.error());
    *out = *scaled;
    // Placement of the new kernels, by the same function as a launch, on hosts with room (a
    // single-node session stays on its host: its network is a bridge there).
    SessionSpec target;
    target.plan = scaled->plan;
    target.placement = current.placement;
    for (const QString &h : std::as_const(scaled->removed))
        target.placement.hostOf.remove(h);
    const bool vxlan = current.placement.mode == ClusterMode::MultiNode &&
                       current.placement.driver == NetworkDriver::Vxlan;
    if (scaled->added.isEmpty()) {
        // The removed kernels' addresses are free again; a stored slot that is not valid
        // stops the scale before anything changes.
        if (vxlan) {
            if (auto slots = VxlanAddressPlan::assignSlots(target.placement, target.plan); !slots)
                return fail(slots.error().withContext(
                    QStringLiteral("removing %1 kernel(s); nothing changed")
                        .arg(scaled->removed.size())));
        }
        return target;
    }
    auto capacities = HostCapacities::survey(m_registry);
    if (!capacities)
        return fail(capacities.error());
    const bool single = current.placement.mode == ClusterMode::SingleNode;
    QList<HostCapacity> hosts;
    for (const HostCapacity &h : std::as_const(*capacities)) {
        if (!single || h.name == current.placement.networkHost)
            hosts.append(h);
    }
    ClusterPlan fresh = scaled->plan;
    fresh.mode = single ? ClusterMode::SingleNode : ClusterMode::MultiNode;
    fresh.kernels.removeIf(
        [&](const KernelSpec &k) { return !scaled->added.contains(k.hostname); });
    const PlacementStrategy strategy =
        placementStrategyFromString(session.launch.strategy).value_or(PlacementStrategy::Spread);
    auto placed = place(fresh, hosts, strategy, current.placement.driver);
    if (!placed)
        return fail(placed.error().withContext(
            QStringLiteral("placing %1 new kernel(s); nothing changed").arg(scaled->added.size())));
    for (auto it = placed->hostOf.cbegin(); it != placed->hostOf.cend(); ++it) {
        target.placement.hostOf.insert(it.key(), it.value());
        if (!target.placement.hostsUsed.contains(it.value()))
            target.placement.hostsUsed.append(it.value());
    }
    // New kernels and hosts get their addresses; the others keep theirs.
    if (vxlan) {
        if (auto slots = VxlanAddressPlan::assignSlots(target.placement, target.plan); !slots)
            return fail(slots.error().withContext(
                QStringLiteral("placing %1 new kernel(s); nothing changed")
                    .arg(scaled->added.size())));
    }
    return target;
}

Result<ScalePreview> SessionScaler::preview(const QString &sessionId,
                                            const QMap<QString, int> &counts)
{
    auto session = m_store->session(sessionId);
    if (!session)
        return fail(session.error());
    auto spec = currentSpec(*session);
    if (!spec)
        return fail(spec.error());
    ScalePlan plan;
    auto t = target(*session, *spec, counts, &plan);
    if (!t)
        return fail(t.error());
    ScalePreview p;
    p.added = plan.added;
    p.removed = plan.removed;
    for (const QString &h : std::as_const(plan.added))
        p.hostOf.insert(h, t->placement.hostOf.value(h));
    return p;
}

Result<ScaleOutcome> SessionScaler::scaleLocked(const QString &sessionId,
                                                const QMap<QString, int> &counts,
                                                const CancelToken &cancel)
{
    QElapsedTimer timer;
    timer.start();
    auto session = m_store->session(sessionId);
    if (!session)
        return fail(session.error());
    if (isScaling(*session)) {
        // A scale that was killed: settle it first, then do what is asked now.
        if (auto repaired = repairLocked(sessionId); !repaired)
            return fail(repaired.error());
        session = m_store->session(sessionId);
        if (!session)
            return fail(session.error());
    }
    if (session->desired != DesiredState::Running ||
        (session->status != SessionStatus::Running && session->status != SessionStatus::Degraded))
        return fail(Error::Kind::Conflict, QStringLiteral("session %1").arg(session->name),
                    QStringLiteral("session %1 is %2: only a running session can be scaled")
                        .arg(session->name, toString(session->status)));
    auto spec = currentSpec(*session);
    if (!spec)
        return fail(spec.error());
    ScalePlan scaledPlan;
    auto targetSpec = target(*session, *spec, counts, &scaledPlan);
    if (!targetSpec)
        return fail(targetSpec.error());
    const ScalePlan *scaled = &scaledPlan;
    const SessionSpec &target = *targetSpec;
    ScaleOutcome outcome;
    outcome.added = scaled->added;
    outcome.removed = scaled->removed;
    if (!scaled->changes()) {
        outcome.session = *session;
        outcome.elapsedMs = timer.elapsed();
        return outcome;
    }

    // 1. Desired state and intent first: new kernel records, the target spec, the way back.
    const QDateTime now = QDateTime::currentDateTimeUtc();
    QList<KernelRecord> added;
    for (const KernelSpec &k : std::as_const(target.plan.kernels)) {
        if (!scaled->added.contains(k.hostname))
            continue;
        const QString host = target.placement.hostOf.value(k.hostname);
        added.append(Provisioner::recordFor(k, session->id, host, KernelStatus::Scheduled,
                                            QStringLiteral("scale: on host ") + host, now));
    }
    const QJsonObject previousJson = session->launch.spec;
    ScaleIntent intent;
    intent.phase = ScaleIntent::Phase::Grow;
    intent.counts = describeCounts(counts);
    intent.added = scaled->added;
    intent.removed = scaled->removed;
    intent.previous = previousJson;
    intent.at = now;
    SessionRecord s = *session;
    // Secrets (the session's ssh key) are sealed apart, as at launch.
    if (auto ok = target.storeInto(*m_store, s.launch); !ok)
        return fail(ok.error().withContext(QStringLiteral("recording the scale")));
    s.launch.scale = intent;
    s.updatedAt = now;
    if (auto ok = m_store->resizeSession(s, added, {}); !ok)
        return fail(ok.error().withContext(QStringLiteral("recording the scale")));
    logEvent(
        s.id, QStringLiteral("scale"),
        QStringLiteral("%1: adding %2, removing %3")
            .arg(describeCounts(counts), shortList(scaled->added), shortList(scaled->removed)));
    if (m_progress) {
        for (const KernelRecord &r : std::as_const(added))
            m_progress(r);
    }

    // 2. Grow, all-or-nothing for the batch.
    if (!added.isEmpty()) {
        Provisioner provisioner(m_store, m_registry);
        provisioner.setActor(m_actor);
        provisioner.setSettlePeriod(m_settle);
        if (m_progress)
            provisioner.setProgressCallback(m_progress);
        auto grown = provisioner.addKernels(target, scaled->added, cancel);
        if (!grown) {
            QStringList ids;
            for (const KernelRecord &r : std::as_const(added))
                ids.append(r.id);
            SessionRecord back = s;
            back.launch.spec = previousJson;
            back.launch.scale.reset();
            back.updatedAt = QDateTime::currentDateTimeUtc();
            if (auto ok = m_store->resizeSession(back, {}, ids); !ok)
                qCWarning(lcProvision) << "undoing the scale record:" << ok.error().toString()
                                       << "(the controller finishes it)";
            logEvent(s.id, QStringLiteral("scale-failed"),
                     grown.error().toString() +
                         QStringLiteral(" (the new kernels were removed; the others are "
                                        "untouched)"));
            return fail(grown.error().withContext(
                QStringLiteral("scaling %1 (nothing changed)").arg(session->name)));
        }
    }
    pauseForTests(QStringLiteral("grow"));
    // The grow recorded the new kernels' image digests in the stored spec: go on from there.
    if (!added.isEmpty()) {
        auto now = m_store->session(s.id);
        if (!now)
            return fail(now.error());
        s = *now;
    }

    // 3. Shrink: the kernels that go stop counting (their exits are expected), then go.
    if (!scaled->removed.isEmpty()) {
        intent.phase = ScaleIntent::Phase::Shrink;
        s.launch.scale = intent;
        auto kernels = m_store->kernels(s.id);
        if (!kernels)
            return fail(kernels.error());
        QList<KernelRecord> going;
        const QDateTime at = QDateTime::currentDateTimeUtc();
        for (KernelRecord k : std::as_const(*kernels)) {
            if (!scaled->removed.contains(k.hostname))
                continue;
            k.desired = DesiredState::Terminated;
            k.changeStatus(KernelStatus::Terminating, at, QStringLiteral("scale: removed"));
            going.append(k);
        }
        if (auto ok = m_store->updateKernels(going, s); !ok)
            return fail(ok.error().withContext(QStringLiteral("recording the scale")));
        pauseForTests(QStringLiteral("shrink"));
        auto previous = SessionSpec::fromJson(previousJson, QStringLiteral("session %1").arg(s.id));
        if (!previous)
            return fail(previous.error());
        if (auto ok = removeKernelObjects(*previous, scaled->removed); !ok)
            return fail(
                ok.error().withContext(QStringLiteral("removing %1 (the controller finishes it)")
                                           .arg(shortList(scaled->removed))));
        QStringList ids;
        for (const KernelRecord &k : std::as_const(going))
            ids.append(k.id);
        intent.phase = ScaleIntent::Phase::Files;
        s.launch.scale = intent;
        s.updatedAt = QDateTime::currentDateTimeUtc();
        if (auto ok = m_store->resizeSession(s, {}, ids); !ok)
            return fail(ok.error().withContext(QStringLiteral("recording the scale")));
    }

    // 4. Every kernel's view of the session, then done.
    auto kernels = m_store->kernels(s.id);
    if (!kernels)
        return fail(kernels.error());
    outcome.warnings = rewriteFiles(target, *kernels);
    // A host the shrink left without kernels leaves the network (a warning when it cannot: the
    // scale is done, the host stays in it).
    if (!scaled->removed.isEmpty()) {
        SessionSpec after = target;
        if (auto vacated = leaveVacatedHosts(after); !vacated)
            outcome.warnings.append(vacated.error().toString());
    }
    auto done = clearIntent(s.id, {}, QJsonObject());
    if (!done)
        return fail(done.error());
    outcome.session = *done;
    outcome.elapsedMs = timer.elapsed();
    QStringList roles;
    for (const RoleCount &rc : target.plan.roles)
        roles.append(rc.role + QLatin1Char('=') + QString::number(rc.count));
    logEvent(
        s.id, QStringLiteral("scaled"),
        QStringLiteral("%1 (added %2, removed %3) in %4 s%5")
            .arg(roles.join(QLatin1Char(' ')), shortList(scaled->added), shortList(scaled->removed))
            .arg(double(outcome.elapsedMs) / 1000.0, 0, 'f', 1)
            .arg(outcome.warnings.isEmpty()
                     ? QString()
                     : QStringLiteral("; ") + outcome.warnings.join(QStringLiteral("; "))));
    return outcome;
}

Result<SessionRecord> SessionScaler::clearIntent(const QString &sessionId,
                                                 const QStringList &removeIds,
                                                 const QJsonObject &specJson)
{
    auto session = m_store->session(sessionId);
    if (!session)
        return fail(session.error());
    SessionRecord s = *session;
    s.launch.scale.reset();
    if (!specJson.isEmpty())
        s.launch.spec = specJson;
    s.updatedAt = QDateTime::currentDateTimeUtc();
    if (auto ok = m_store->resizeSession(s, {}, removeIds); !ok)
        return fail(ok.error().withContext(QStringLiteral("finishing the scale")));
    return s;
}

Result<void> SessionScaler::removeKernelObjects(const SessionSpec &spec,
                                                const QStringList &hostnames)
{
    SessionSpec only = spec;
    only.plan.kernels.removeIf(
        [&](const KernelSpec &k) { return !hostnames.contains(k.hostname); });
    if (only.plan.kernels.isEmpty())
        return {};
    QMap<QString, QString> hostOf;
    for (const KernelSpec &k : std::as_const(only.plan.kernels))
        hostOf.insert(k.hostname, spec.placement.hostOf.value(k.hostname));
    only.placement.hostOf = hostOf;
    only.placement.hostsUsed.clear();
    only.placement.networkHost.clear(); // the network stays
    return SessionTeardown(m_store, m_registry).remove(only);
}

// The others stop forwarding to the vacated hosts first (their devices get the new peer list),
// then the vacated hosts' bridge and device go, and the stored spec drops them last: after a
// kill -9 before that, the spec still names them, so the next scale (or the repair of this one)
// does it again, and the session's teardown reaches them either way.
Result<QStringList> SessionScaler::leaveVacatedHosts(SessionSpec &spec)
{
    Placement &placement = spec.placement;
    if (placement.mode != ClusterMode::MultiNode || placement.driver != NetworkDriver::Vxlan)
        return QStringList();
    QStringList vacated = placement.hostsUsed;
    vacated.removeIf([&](const QString &h) { return placement.hostOf.values().contains(h); });
    if (vacated.isEmpty())
        return vacated;
    const QString where = QStringLiteral("taking host(s) %1 out of session %2's network")
                              .arg(vacated.join(QStringLiteral(", ")), spec.plan.sessionId.left(8));
    SessionSpec left = spec;
    left.placement.hostsUsed.removeIf([&](const QString &h) { return vacated.contains(h); });
    for (const QString &h : std::as_const(vacated))
        left.placement.gatewaySlots.remove(h);
    SessionNetwork::Sites sites;
    for (const QString &h : std::as_const(left.placement.hostsUsed)) {
        auto record = m_store->host(h);
        auto client = m_registry->dockerHost(h);
        if (!record || !client)
            return fail((!record ? record.error() : client.error()).withContext(where));
        sites.insert(h, {*client, ContainerSpecBuilder::publicAddressOf(*record)});
    }
    Docker::CallOptions call;
    call.timeout = std::chrono::seconds(60);
    const SessionNetwork::Scope scope{spec.plan.sessionId, spec.plan.networkName, spec.plan.mtu,
                                      m_store->identity(), call};
    VxlanNetwork network(m_store);
    if (left.placement.hostsUsed.size() > 0) {
        if (auto ok = network.connect(scope, left.placement, sites); !ok)
            return fail(ok.error().withContext(where));
    }
    SessionSpec only = spec;
    only.plan.kernels.clear();
    only.placement.hostOf.clear();
    only.placement.networkHost.clear();
    only.placement.hostsUsed = vacated;
    RemovalOptions removal;
    removal.keepClaim = true;
    if (auto ok = SessionTeardown(m_store, m_registry).remove(only, {}, removal); !ok)
        return fail(ok.error().withContext(where));
    auto session = m_store->session(spec.plan.sessionId);
    if (!session)
        return fail(session.error().withContext(where));
    SessionRecord s = *session;
    if (auto ok = left.storeInto(*m_store, s.launch); !ok)
        return fail(ok.error().withContext(where));
    s.updatedAt = QDateTime::currentDateTimeUtc();
    if (auto ok = m_store->resizeSession(s, {}, {}); !ok)
        return fail(ok.error().withContext(where));
    qCInfo(lcProvision).noquote() << "session" << spec.plan.sessionId.left(8) << "left host(s)"
                                  << vacated.join(QStringLiteral(", "));
    spec = std::move(left);
    return vacated;
}

Result<QString> SessionScaler::repairLocked(const QString &sessionId)
{
    auto session = m_store->session(sessionId);
    if (!session)
        return fail(session.error());
    if (!isScaling(*session))
        return QStringLiteral("no scale to repair");
    const ScaleIntent intent = *session->launch.scale;
    const QStringList &added = intent.added;
    const QStringList &removed = intent.removed;
    const QJsonObject &previousJson = intent.previous;
    const QString where = QStringLiteral("session %1").arg(session->id);
    if (intent.phase == ScaleIntent::Phase::Unknown)
        return fail(
            Error::Kind::Invalid, where,
            QStringLiteral("the interrupted scale (%1) is in a phase this release does "
                           "not know (%2): finish it with the release that began it")
                .arg(intent.counts,
                     intent.unknown.value(QLatin1StringView("phase")).toVariant().toString()));
    auto previous = SessionSpec::fromJson(previousJson, where);
    if (!previous)
        return fail(previous.error());
    auto target = SessionSpec::fromRecord(*session, *m_store);
    if (!target)
        return fail(target.error());
    auto kernels = m_store->kernels(sessionId);
    if (!kernels)
        return fail(kernels.error());
    auto idsOf = [&](const QStringList &hostnames) {
        QStringList ids;
        for (const KernelRecord &k : std::as_const(*kernels)) {
            if (hostnames.contains(k.hostname))
                ids.append(k.id);
        }
        return ids;
    };

    QString what;
    if (intent.phase == ScaleIntent::Phase::Grow) {
        // Not all new kernels were known to run: the scale did not happen.
        if (auto ok = removeKernelObjects(*target, added); !ok)
            return fail(ok.error().withContext(QStringLiteral("undoing the interrupted scale")));
        auto done = clearIntent(sessionId, idsOf(added), previousJson);
        if (!done)
            return fail(done.error());
        // Files were not rewritten yet in this phase, but a killed rewrite may have left a
        // staged copy: rewrite them from the restored spec, which is what they say anyway.
        auto left = m_store->kernels(sessionId);
        if (left)
            rewriteFiles(*previous, *left);
        what = QStringLiteral("undid an interrupted scale (%1): removed %2")
                   .arg(intent.counts, shortList(added));
    } else {
        // The new kernels ran; the old ones were on their way out: finish.
        if (auto ok = removeKernelObjects(*previous, removed); !ok)
            return fail(ok.error().withContext(QStringLiteral("finishing the interrupted scale")));
        auto left = m_store->kernels(sessionId);
        if (!left)
            return fail(left.error());
        QList<KernelRecord> survivors = *left;
        survivors.removeIf([&](const KernelRecord &k) { return removed.contains(k.hostname); });
        QStringList warnings = rewriteFiles(*target, survivors);
        if (auto vacated = leaveVacatedHosts(*target); !vacated)
            warnings.append(vacated.error().toString());
        auto done = clearIntent(sessionId, idsOf(removed), QJsonObject());
        if (!done)
            return fail(done.error());
        what = QStringLiteral("finished an interrupted scale (%1): removed %2%3")
                   .arg(intent.counts, shortList(removed),
                        warnings.isEmpty()
                            ? QString()
                            : QStringLiteral("; ") + warnings.join(QStringLiteral("; ")));
    }
    logEvent(sessionId, QStringLiteral("scale-repaired"), what);
    return what;
}

QStringList SessionScaler::rewriteFiles(const SessionSpec &spec, const QList<KernelRecord> &kernels)
{
    std::mutex mutex;
    QStringList problems;
    auto note = [&](const QString &text) {
        std::lock_guard lock(mutex);
        problems.append(text);
    };
    // A VXLAN session's kernels know each other by /etc/hosts (Docker's ExtraHosts at create):
    // rewritten like the cluster files, in place, since Docker bind-mounts it.
    QByteArray etcHosts;
    if (spec.placement.mode == ClusterMode::MultiNode &&
        spec.placement.driver == NetworkDriver::Vxlan) {
        VxlanNetwork network(m_store);
        const SessionNetwork::Scope scope{
            spec.plan.sessionId, spec.plan.networkName, spec.plan.mtu, m_store->identity(), {}};
        if (auto segment = network.segment(scope))
            etcHosts = network.hostsFile(spec.placement);
        else
            problems.append(QStringLiteral("/etc/hosts: %1").arg(segment.error().toString()));
    }
    Concurrent::forEach(int(kernels.size()), [&](int i) {
        const KernelRecord &r = kernels.at(i);
        const KernelSpec *k = spec.plan.kernel(r.hostname);
        if (!k || r.containerId.isEmpty() || r.status != KernelStatus::Running)
            return;
        auto client = m_registry->dockerHost(r.host);
        if (!client) {
            note(QStringLiteral("%1: %2").arg(r.hostname, client.error().toString()));
            return;
        }
        Docker::TarArchiveBuilder tar;
        QStringList moves;
        for (const PlannedFile &f : k->files) {
            if (!Presets::isMembershipFile(f.path, k->user))
                continue;
            bool uidOk = false, gidOk = false;
            const int uid = f.owner.section(QLatin1Char(':'), 0, 0).toInt(&uidOk);
            int gid = f.owner.section(QLatin1Char(':'), 1, 1).toInt(&gidOk);
            if (!gidOk)
                gid = uid;
            const QString staged = stagedPath(f.path);
            tar.addFile(staged.mid(1), f.content, f.mode, uidOk ? uid : 0, uidOk ? gid : 0);
            moves.append(QStringLiteral("mv -f %1 %2").arg(shellQuote(staged), shellQuote(f.path)));
        }
        if (!etcHosts.isEmpty()) {
            const QString staged = stagedPath(QStringLiteral("/etc/hosts"));
            tar.addFile(staged.mid(1), etcHosts, 0644, 0, 0);
            moves.append(QStringLiteral("cat %1 > /etc/hosts && rm -f %1").arg(shellQuote(staged)));
        }
        if (moves.isEmpty())
            return;
        Docker::CallOptions call;
        call.timeout = 30s;
        if (auto ok = (*client)->uploadFiles(r.containerId, QStringLiteral("/"), tar, call); !ok) {
            note(QStringLiteral("%1: %2").arg(r.hostname, ok.error().toString()));
            return;
        }
        // rename(2) within one folder: a reader sees the old file or the new one, never half.
        Docker::ExecSpec mv;
        mv.cmd = {QStringLiteral("/bin/sh"), QStringLiteral("-c"),
                  moves.join(QStringLiteral(" && "))};
        mv.user = QStringLiteral("0");
        // Only the last words are shown: the template's hook may write without end.
        BoundedBuffer output(BoundedBuffer::Keep::Tail, 4096);
        auto sink = [&](const Docker::LogFrame &frame) {
            output.append(frame.data);
            return true;
        };
        auto code = (*client)->runExec(r.containerId, mv, sink, call);
        if (!code || *code != 0) {
            note(QStringLiteral("%1: rewriting the cluster files failed: %2")
                     .arg(r.hostname, !code ? code.error().toString()
                                            : QString::fromUtf8(output.data()).trimmed()));
            return;
        }
        if (k->onScale.isEmpty())
            return;
        Docker::ExecSpec hook;
        hook.cmd = {k->onScale};
        output.clear();
        auto ran = (*client)->runExec(r.containerId, hook, sink, call);
        if (!ran || *ran != 0)
            note(QStringLiteral("%1: onScale %2 %3")
                     .arg(r.hostname, k->onScale,
                          !ran ? ran.error().toString()
                               : QStringLiteral("exited with %1: %2")
                                     .arg(*ran)
                                     .arg(QString::fromUtf8(output.data()).trimmed().right(200))));
    });
    return problems;
}

void SessionScaler::logEvent(const QString &sessionId, const QString &action, const QString &detail)
{
    logLifecycleEvent(m_store, m_actor.isEmpty() ? QStringLiteral("scale") : m_actor, sessionId,
                      QString(), action, detail);
}

void SessionScaler::pauseForTests(const QString &phase) const
{
    // Lets the lab tests kill -9 a scale at a known point (CLUSTERDECK_TEST_SCALE_PAUSE=grow).
    if (qEnvironmentVariable("CLUSTERDECK_TEST_SCALE_PAUSE") == phase) {
        qCInfo(lcProvision).noquote() << "scale paused after phase" << phase << "(test)";
        std::this_thread::sleep_for(120s);
    }
}

} // namespace ClusterDeck
