#include "provisioner.h"

#include "common/concurrent.h"
#include "common/failpoint.h"
#include "common/labels.h"
#include "common/logging.h"
#include "containerspecbuilder.h"
#include "docker/dockerhost.h"
#include "docker/tararchivebuilder.h"
#include "envstrings.h"
#include "eventlog.h"
#include "host/hostregistry.h"
#include "hostcapacities.h"
#include "hostprobe.h"
#include "hostwatchdog.h"
#include "kernelstatusbatcher.h"
#include "launchplanner.h"
#include "network/networksettings.h"
#include "network/sessionnetwork.h"
#include "plan/presets.h"
#include "plan/useraccounts.h"
#include "registry/imagereference.h"
#include "registry/registryclient.h"
#include "sessionteardown.h"
#include "store/statestore.h"
#include "template/templatevalues.h"

#include <QDateTime>
#include <QElapsedTimer>
#include <QJsonArray>
#include <QSet>
#include <QUuid>

#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>

#include <algorithm>
#include <atomic>
#include <future>
#include <mutex>
#include <thread>

namespace ClusterDeck {

using namespace std::chrono_literals;

namespace {

// What the record keeps of the admin's request (the spec is stored beside it).
LaunchRecord launchRecordOf(const LaunchRequest &request)
{
    const LaunchOptions &o = request.options;
    LaunchRecord r;
    r.name = o.name;
    r.counts = o.counts;
    r.env = o.env;
    for (const Mount &m : o.mounts)
        r.mounts.append(m.source + QLatin1Char(':') + m.target +
                        (m.readOnly ? QStringLiteral(":ro") : QString()));
    r.mode = o.mode ? modeName(*o.mode) : QStringLiteral("template");
    r.strategy = toString(request.strategy);
    return r;
}

} // namespace

// One provisioning run of one session: shared by the kernel threads.
struct Provisioner::Run
{
    SessionSpec spec;
    SessionRecord session;
    StoreIdentity self; // the store id our labels carry, and the URL labels of earlier releases
    QHash<QString, std::shared_ptr<Docker::DockerHost>> clients; // host → client
    QHash<QString, HostRecord> hosts;
    CancelToken userCancel;
    CancelToken ops; // cancelled on the first failure or on the user's cancel
    std::chrono::milliseconds timeout{60000};
    bool partial = false;       // adding kernels to a running session: its network and spec stay
    bool networkReused = false; // the session's network was there already (restart, completion)
    std::unique_ptr<SessionNetwork> network; // the driver of the session's kind of network
    // The session lock the caller holds (may be null). Once it is lost nothing more is done or
    // written: its new holder finishes the session.
    const SessionLock *lock = nullptr;
    // Cancelled with the lock's loss or the provisioner's stop token (a leader that lost its
    // lease): the work stops where it is, with no rollback and no final status.
    CancelToken stop;
    bool lockLost() const { return (lock && lock->isLost()) || stop.isCancelled(); }
    Error stopError() const
    {
        if (lock && lock->isLost())
            return lock->lostError();
        return Error::make(Error::Kind::Cancelled, QString(),
                           QStringLiteral("stopped without a rollback (this process no longer "
                                          "leads the store); the controller finishes the session"));
    }
    // The network's connect() (SessionNetwork::prepare/connect), run beside the kernels'
    // creation: no kernel starts before it succeeded. Not valid: nothing to wait for.
    std::optional<SessionNetwork::Sites> networkSites; // set by prepare, under `mutex`
    std::shared_future<bool> networkConnected;
    bool awaitNetwork() const
    {
        const std::shared_future<bool> connected = networkConnected;
        return !connected.valid() || connected.get();
    }
    EnvStrings env; // shared by the container specs of this run's kernels
    // Kernel statuses, container ids and ports go to the store in batches (see
    // KernelStatusBatcher): flushed at the end of each phase and before any session status.
    std::unique_ptr<KernelStatusBatcher> statuses;
    void flushStatuses()
    {
        if (auto ok = statuses->flush(); !ok)
            qCWarning(lcProvision).noquote()
                << "recording kernel statuses (retried with the next batch):"
                << ok.error().toString();
    }

    // Per host, for the rollback: cancelled when the host stops answering or the rollback is
    // abandoned. Made before any thread starts, never changed afterwards.
    QHash<QString, CancelToken> hostStop;

    std::mutex mutex; // guards everything below
    std::optional<Error> firstError;
    QString failedHostname;
    std::optional<Error> hungError; // the first host that stopped answering leads the error
    QSet<QString> hungHosts;
    QHash<QString, KernelRecord> records;    // hostname → latest record
    QMap<QString, QStringList> volumesMade;  // host → volume names made by this run
    QMap<QString, QStringList> imagesPulled; // host → images this run pulled (rolled back too)

    Docker::CallOptions call() const
    {
        Docker::CallOptions o;
        o.timeout = timeout;
        o.cancel = ops;
        return o;
    }
    // A container create is let finish on a host that answers, though another kernel failed
    // or the user cancelled: dockerd completes a create whose request the client aborted, and
    // one that completes after the rollback listed the host is a container left behind. Only a
    // host that stops answering, a lost lock or an abandoned rollback stop it (and the timeout).
    Docker::CallOptions createCall(const QString &host) const
    {
        Docker::CallOptions o;
        o.timeout = timeout;
        o.cancel = hostStop.value(host, stop);
        return o;
    }
    bool aborted() const { return ops.isCancelled(); }
    SessionNetwork::Scope networkScope() const
    {
        return {spec.plan.sessionId, spec.plan.networkName, spec.plan.mtu, self, call()};
    }
    void hostHung(const QString &host, const Error &why)
    {
        {
            std::lock_guard lock(mutex);
            hungHosts.insert(host);
            if (!hungError)
                hungError = why;
        }
        hostStop.value(host).cancel();
        ops.cancel();
    }
    void failWith(const Error &error, const QString &hostname = {})
    {
        {
            std::lock_guard lock(mutex);
            if (!firstError && !userCancel.isCancelled()) {
                firstError = error;
                failedHostname = hostname;
            }
        }
        ops.cancel();
    }
};

Provisioner::Provisioner(StateStore *store, HostRegistry *registry)
    : m_store(store)
    , m_registry(registry)
{}

Provisioner::~Provisioner() = default;

Result<SessionRecord> Provisioner::launch(const LaunchRequest &request,
                                          const CancelToken &cancel)
{
    LaunchRequest req = request;
    if (req.options.sessionId.isEmpty())
        req.options.sessionId = QUuid::createUuid().toString(QUuid::WithoutBraces);
    // Held from before the desired state is written until the hosts match it, so a reconciler
    // in another process never completes a launch that is still in progress.
    auto lock = m_store->lockSession(req.options.sessionId, 10s);
    if (!lock)
        return fail(lock.error());
    auto spec = prepare(req);
    if (!spec)
        return fail(spec.error());
    return provision(*spec, cancel, lock->get());
}

Result<SessionSpec> Provisioner::prepare(const LaunchRequest &request)
{
    return prepareImpl(request, true);
}

Result<SessionSpec> Provisioner::preview(const LaunchRequest &request)
{
    return prepareImpl(request, false);
}

Result<SessionSpec> Provisioner::prepareImpl(const LaunchRequest &request, bool record)
{
    const ClusterTemplate &t = request.clusterTemplate;
    LaunchOptions opts = request.options;
    if (opts.sessionId.isEmpty())
        opts.sessionId = QUuid::createUuid().toString(QUuid::WithoutBraces);
    if (!opts.sshKeyPair && Presets::needsSshKeyPair(t.presets)) {
        auto keys = SshKeyPair::generate(QStringLiteral("clusterdeck@%1").arg(t.name));
        if (!keys)
            return fail(keys.error());
        opts.sshKeyPair = *keys;
    }

    auto capacities = HostCapacities::survey(m_registry);
    if (!capacities)
        return fail(capacities.error());
    if (capacities->isEmpty())
        return fail(Error::Kind::Invalid, QString(),
                    QStringLiteral("no Docker host is registered (clusterdeckctl host add …)"));

    QStringList reachable;
    for (const HostCapacity &h : std::as_const(*capacities)) {
        if (h.reachable)
            reachable.append(h.name);
    }
    const ImageDefaultsMap images = imageDefaultsFor(t, reachable);

    // Multi-node sessions are placed for the store's network driver, and keep it.
    auto network = NetworkSettings::driver(*m_store);
    if (!network)
        return fail(network.error());
    auto planned = LaunchPlanner::plan(t, opts, *capacities, images, request.strategy, *network);
    if (!planned)
        return fail(planned.error());
    const ClusterPlan &plan = planned->plan;
    const Result<Placement> &placement = planned->placement;

    SessionSpec spec;
    spec.plan = plan;
    if (placement)
        spec.placement = *placement;
    if (!record) {
        if (!placement)
            return fail(placement.error());
        return spec;
    }

    const QDateTime now = QDateTime::currentDateTimeUtc();
    SessionRecord s;
    s.id = plan.sessionId;
    s.name = plan.sessionName;
    s.templateName = plan.templateName;
    s.templateSnapshot = request.templateSource;
    s.launch = launchRecordOf(request);
    if (auto ok = spec.storeInto(*m_store, s.launch); !ok)
        return fail(ok.error().withContext(QStringLiteral("recording session %1").arg(s.name)));
    s.mode = placement ? placement->mode : ClusterMode::Auto;
    s.desired = DesiredState::Running;
    s.changeStatus(SessionStatus::Pending, now, QStringLiteral("launch requested"));
    s.networkName = plan.networkName;
    s.networkHost = placement ? placement->networkHost : QString();
    s.createdAt = now;
    s.updatedAt = now;

    QList<KernelRecord> kernels;
    for (const KernelSpec &k : std::as_const(plan.kernels)) {
        kernels.append(recordFor(k, s.id,
                                 placement ? placement->hostOf.value(k.hostname) : QString(),
                                 KernelStatus::Pending, QString(), now));
    }

    if (!placement) {
        // Gang semantics: nothing is created. The attempt is kept so `ls` shows why.
        const QString reason = placement.error().toString();
        s.desired = DesiredState::Terminated;
        s.lastError = reason;
        s.changeStatus(SessionStatus::Error, now, reason);
        for (KernelRecord &r : kernels) {
            r.desired = DesiredState::Terminated;
            r.changeStatus(KernelStatus::Error, now, reason);
        }
        if (auto ok = m_store->createSession(s, kernels); !ok)
            return fail(ok.error());
        logEvent(s.id, {}, QStringLiteral("launch"), QStringLiteral("does not fit: ") + reason);
        return fail(placement.error());
    }

    if (auto ok = m_store->createSession(s, kernels); !ok)
        return fail(ok.error().withContext(QStringLiteral("recording session %1").arg(s.name)));
    QStringList unused;
    for (auto it = placement->unused.cbegin(); it != placement->unused.cend(); ++it)
        unused.append(QStringLiteral("%1: %2").arg(it.key(), it.value()));
    logEvent(
        s.id, {}, QStringLiteral("launch"),
        QStringLiteral("%1 kernels, %2 on %3%4")
            .arg(kernels.size())
            .arg(modeName(placement->mode),
                 placement->hostsUsed.join(QStringLiteral(", ")),
                 unused.isEmpty()
                     ? QString()
                     : QStringLiteral(" (not used: %1)").arg(unused.join(QStringLiteral("; ")))));
    QList<KernelProgress> scheduled;
    scheduled.reserve(kernels.size());
    for (KernelRecord &r : kernels) {
        r.changeStatus(KernelStatus::Scheduled, now, QStringLiteral("on host ") + r.host);
        if (m_progress)
            m_progress(r);
        scheduled.append({{r.sessionId, r.id}, {r.history.last()}, {}, {}, now, {}});
    }
    // Only the new history entry: the records were written whole a moment ago.
    if (auto ok = m_store->recordKernelProgress(scheduled); !ok)
        return fail(ok.error());
    return spec;
}

ImageDefaultsMap Provisioner::imageDefaultsFor(const ClusterTemplate &t,
                                               const QStringList &hosts) const
{
    ImageDefaultsMap images;
    for (const RoleTemplate &role : t.roles) {
        if (images.contains(role.task.image))
            continue;
        for (const QString &h : hosts) {
            auto client = m_registry->dockerHost(h);
            if (!client)
                continue;
            Docker::CallOptions o;
            o.timeout = 10s;
            auto info = (*client)->inspectImage(role.task.image, o);
            if (!info)
                continue;
            images.insert(role.task.image, imageDefaultsOf(*info));
            break;
        }
        // No host has it yet (it is pulled after placement): ask the registry for its config,
        // so its ENV and labels (service ports) count as for an image that is there.
        if (!images.contains(role.task.image) &&
            role.task.pullPolicy.value_or(PullPolicy::IfNotPresent) != PullPolicy::Never) {
            auto ref = Registry::ImageReference::parse(role.task.image);
            if (!ref)
                continue;
            auto lookup =
                m_credentials ? m_credentials : Registry::ImagePuller::dockerConfigLookup();
            auto creds = lookup(ref->authKey());
            Registry::RegistryClient registry(
                ref->isDockerHub() ? QStringLiteral("registry-1.docker.io") : ref->domain,
                creds ? *creds : std::nullopt);
            registry.setTimeout(10s);
            auto defaults = registry.imageDefaults(ref->repository,
                                                   ref->digest.isEmpty() ? ref->tag : ref->digest);
            if (defaults)
                images.insert(role.task.image, *defaults);
            else
                qCInfo(lcProvision).noquote()
                    << "defaults of" << role.task.image
                    << "unknown before the pull:" << defaults.error().toString();
        }
    }

    return images;
}

ImageDefaults Provisioner::imageDefaultsOf(const Docker::ImageInfo &info)
{
    ImageDefaults d;
    d.env = info.envMap();
    d.labels = info.labels;
    d.entrypoint = info.entrypoint;
    d.command = info.cmd;
    d.workingDir = info.workingDir;
    d.user = info.user;
    return d;
}

Result<SessionRecord> Provisioner::provision(const SessionSpec &spec,
                                             const CancelToken &cancel,
                                             const SessionLock *lock)
{
    // Before any side effect: kernels made without their secrets would start with empty keys.
    if (spec.secretsUnavailable)
        return fail(spec.secretsUnavailable->withContext(
            QStringLiteral("cannot create the kernels of session %1").arg(spec.plan.sessionName)));
    m_unanswered.clear();
    Run run;
    run.spec = spec;
    run.userCancel = cancel;
    run.lock = lock;
    run.stop = lock ? CancelToken::anyOf(m_stop, lock->lostToken())
                    : CancelToken::anyOf(m_stop, CancelToken());
    // A lost lock (or leadership) stops every call in flight at once, like a hung host does.
    run.ops = CancelToken::anyOf(CancelToken(), run.stop);
    if (auto loaded = loadRun(run); !loaded)
        return fail(loaded.error());
    run.statuses->setStopToken(run.stop);

    QStringList hosts = spec.placement.hostOf.values();
    hosts.append(spec.placement.networkHost);
    hosts.append(spec.placement.hostsUsed);
    hosts.removeDuplicates();
    hosts.removeAll(QString());
    // A host that cannot be reached fails the launch through doProvision: recorded, rolled back.
    if (auto connected = connectHosts(run, hosts); !connected)
        run.failWith(connected.error());

    for (const QString &h : std::as_const(hosts))
        run.hostStop.insert(h, CancelToken::anyOf(CancelToken(), run.stop));

    // The user's cancel reaches in-flight calls through `ops`; an abandoned rollback stops every
    // host's removal at once.
    std::atomic_bool finished{false};
    std::thread watcher([&] {
        bool recorded = false;
        while (!finished.load()) {
            if (cancel.isCancelled()) {
                run.ops.cancel();
                // At once, not after the in-flight calls return: an impatient second interrupt
                // then leaves a session the controller rolls back, not one it completes.
                if (!recorded && !run.lockLost())
                    recordRollback(run, QStringLiteral("launch cancelled"));
                recorded = true;
            }
            if (m_abandon.isCancelled()) {
                run.ops.cancel();
                for (const CancelToken &t : std::as_const(run.hostStop))
                    t.cancel();
            }
            std::this_thread::sleep_for(20ms);
        }
    });
    // A host that stops answering fails the launch at once, named as the cause.
    HostWatchdog::Settings watch;
    watch.timeout = m_pingTimeout;
    watch.misses = m_pingMisses;
    HostWatchdog watchdog(run.clients, watch, [&run](const QString &host, const Error &why) {
        run.hostHung(host, why);
    });
    auto result = doProvision(run);
    watchdog.stop();
    finished.store(true);
    watcher.join();
    return result;
}

Result<void> Provisioner::addKernels(const SessionSpec &spec, const QStringList &hostnames,
                                     const CancelToken &cancel)
{
    Run run;
    run.partial = true;
    // Every stage below works on the run's kernels only: the new ones.
    run.spec = spec;
    run.spec.plan.kernels.removeIf(
        [&](const KernelSpec &k) { return !hostnames.contains(k.hostname); });
    QMap<QString, QString> hostOf;
    for (const QString &h : hostnames)
        hostOf.insert(h, spec.placement.hostOf.value(h));
    run.spec.placement.hostOf = hostOf;
    run.userCancel = cancel;
    if (run.spec.plan.kernels.isEmpty())
        return {};
    if (auto loaded = loadRun(run); !loaded)
        return fail(loaded.error());
    QStringList hosts = run.spec.placement.hostOf.values();
    // A network on every host of the session is set up on all of them again (new peers).
    if (const QStringList networkHosts = run.network->hostsOf(run.spec.placement);
        networkHosts.size() > 1)
        hosts.append(networkHosts);
    hosts.removeDuplicates();
    if (auto connected = connectHosts(run, hosts); !connected)
        return fail(connected.error());

    std::atomic_bool finished{false};
    std::thread watcher([&] {
        while (!finished.load()) {
            if (cancel.isCancelled()) {
                run.ops.cancel();
                return;
            }
            std::this_thread::sleep_for(20ms);
        }
    });
    for (const KernelSpec &k : run.spec.plan.kernels)
        setKernelStatus(run, k.hostname, KernelStatus::Preparing);
    run.flushStatuses();
    if (auto ok = prepareHosts(run); !ok)
        run.failWith(ok.error());
    if (!run.aborted()) {
        Concurrent::forEach(int(run.spec.plan.kernels.size()), [&](int i) {
            const KernelSpec &k = run.spec.plan.kernels.at(i);
            if (auto ok = createKernel(run, k); !ok)
                run.failWith(ok.error(), k.hostname);
        });
    }
    run.flushStatuses();
    if (!run.aborted() && !run.userCancel.isCancelled()) {
        if (auto ok = settle(run); !ok)
            qCInfo(lcProvision) << "settle:" << ok.error().toString();
    }
    finished.store(true);
    watcher.join();
    const bool cancelled = run.userCancel.isCancelled() && !run.firstError;
    if (!run.aborted() && !cancelled)
        return {};

    const Error cause =
        cancelled
            ? Error::make(Error::Kind::Cancelled, QString(), QStringLiteral("scale cancelled"))
            : run.firstError.value_or(
                  Error::make(Error::Kind::Cancelled, QString(), QStringLiteral("aborted")));
    qCInfo(lcProvision) << "removing the new kernels of" << spec.plan.sessionId << ":"
                        << cause.toString();
    SessionSpec only = run.spec;
    only.placement.networkHost.clear();
    only.placement.hostsUsed.clear();
    QMap<QString, QStringList> volumes;
    {
        std::lock_guard lock(run.mutex);
        volumes = run.volumesMade;
    }
    if (auto removed = removeSessionObjects(only, volumes); !removed)
        qCWarning(lcProvision) << "removing the new kernels incomplete:"
                               << removed.error().toString();
    removePulledImages(run, {}, std::chrono::steady_clock::now() + m_rollbackTimeout);
    for (const KernelSpec &k : run.spec.plan.kernels)
        setKernelStatus(run, k.hostname, cancelled ? KernelStatus::Cancelled : KernelStatus::Error,
                        k.hostname == run.failedHostname
                            ? cause.toString()
                            : QStringLiteral("rolled back: ") + cause.toString());
    run.flushStatuses();
    return fail(cause);
}

Result<void> Provisioner::loadRun(Run &run)
{
    run.network = SessionNetwork::forPlacement(run.spec.placement, m_store);
    run.self = m_store->identity();
    run.timeout = m_callTimeout;
    run.statuses = std::make_unique<KernelStatusBatcher>(m_store, run.spec.plan.sessionId);
    auto session = m_store->session(run.spec.plan.sessionId);
    if (!session)
        return fail(session.error());
    run.session = *session;
    auto kernels = m_store->kernels(run.spec.plan.sessionId);
    if (!kernels)
        return fail(kernels.error());
    for (const KernelRecord &k : std::as_const(*kernels))
        run.records.insert(k.hostname, k);
    return {};
}

Result<void> Provisioner::connectHosts(Run &run, const QStringList &hosts)
{
    for (const QString &h : hosts) {
        auto record = m_store->host(h);
        auto client = m_registry->dockerHost(h);
        if (!record || !client) {
            const Error e = !record ? record.error() : client.error();
            return fail(e.withContext(QStringLiteral("host %1").arg(h)));
        }
        run.hosts.insert(h, *record);
        run.clients.insert(h, *client);
    }
    return {};
}

Result<SessionRecord> Provisioner::doProvision(Run &run)
{
    if (!run.aborted())
        beginProvisioning(run);
    std::thread connecting = startConnecting(run);
    createKernels(run);
    if (connecting.joinable())
        connecting.join();
    run.network->awaitBackground(); // a run that failed before connect(): before the rollback
    run.flushStatuses();
    if (!run.aborted() && !run.userCancel.isCancelled()) {
        if (auto ok = settle(run); !ok)
            qCInfo(lcProvision) << "settle:" << ok.error().toString();
    }

    if (run.lockLost()) {
        // Another process holds the session now: no rollback, no status, no event from here.
        const Error lost = run.stopError();
        qCWarning(lcProvision).noquote() << lost.toString();
        return fail(lost);
    }
    // The watcher thread may still record a rollback (a late cancel): run's fields under its
    // mutex, here too.
    bool failed = false;
    {
        std::lock_guard lock(run.mutex);
        failed = run.firstError.has_value();
    }
    const bool cancelled = run.userCancel.isCancelled() && !failed;
    if (!run.aborted() && !cancelled)
        return recordRunning(run);
    return rollBack(run, cancelled);
}

// Nothing is created before the store knows the launch is under way: otherwise a crash here
// would leave containers that no PROVISIONING session accounts for.
void Provisioner::beginProvisioning(Run &run)
{
    if (auto recorded = setSessionStatus(run, SessionStatus::Provisioning); !recorded)
        run.failWith(recorded.error().withContext(QStringLiteral("recording PROVISIONING")));
    for (const KernelSpec &k : run.spec.plan.kernels) {
        KernelStatus current;
        {
            std::lock_guard lock(run.mutex);
            current = run.records.value(k.hostname).status;
        }
        if (current != KernelStatus::Running)
            setKernelStatus(run, k.hostname, KernelStatus::Preparing);
    }
    run.flushStatuses();
    if (auto ok = prepareHosts(run); !ok)
        run.failWith(ok.error());
}

// The hosts joined (a VXLAN network's devices) while the kernels are created: a thread the
// caller joins before anything else, failing the run on an error (no kernel starts then).
std::thread Provisioner::startConnecting(Run &run)
{
    std::optional<SessionNetwork::Sites> sites;
    {
        std::lock_guard lock(run.mutex);
        sites = run.networkSites;
    }
    if (run.aborted() || !sites)
        return {};
    auto done = std::make_shared<std::promise<bool>>();
    run.networkConnected = done->get_future().share();
    return std::thread([&run, done, sites = std::move(*sites)] {
        auto connected = run.network->connect(run.networkScope(), run.spec.placement, sites);
        if (!connected)
            run.failWith(connected.error());
        done->set_value(bool(connected));
    });
}

// Kernels: all at once, or role by role for `in-order`.
void Provisioner::createKernels(Run &run)
{
    const ClusterPlan &plan = run.spec.plan;
    QList<QList<const KernelSpec *>> waves;
    for (const RoleCount &rc : plan.roles) {
        const QList<const KernelSpec *> wave = plan.kernelsOf(rc.role);
        if (plan.startupOrder == StartupOrder::InOrder || waves.isEmpty())
            waves.append(wave);
        else
            waves.last() += wave;
    }
    for (const auto &wave : std::as_const(waves)) {
        if (run.aborted())
            break;
        // At most m_perHostLimit kernels of one host at once; none started after a failure.
        Concurrent::forEachPerHost(
            int(wave.size()),
            [&](int i) { return run.spec.placement.hostOf.value(wave.at(i)->hostname); },
            [&](int i) {
                const KernelSpec &k = *wave.at(i);
                if (auto ok = createKernel(run, k); !ok)
                    run.failWith(ok.error(), k.hostname);
            },
            m_perHostLimit, run.ops);
    }
}

Result<SessionRecord> Provisioner::recordRunning(Run &run)
{
    const ClusterPlan &plan = run.spec.plan;
    auto recorded = setSessionStatus(run, SessionStatus::Running);
    // A store that refuses writes for a moment (busy, disk full) gets a few more seconds;
    // after that the launch does not claim a success the store does not show.
    for (int attempt = 0;
         !recorded && attempt < 10 && !run.userCancel.isCancelled() && !run.lockLost(); ++attempt) {
        std::this_thread::sleep_for(500ms);
        SessionRecord s;
        {
            std::lock_guard lock(run.mutex);
            s = run.session;
        }
        recorded = m_store->updateSession(s);
    }
    if (!recorded)
        return fail(recorded.error().withContext(
            QStringLiteral("all %1 kernels run, but the store did not record the session "
                           "as RUNNING (it stays PROVISIONING; the controller or "
                           "`clusterdeckctl reconcile` completes it once the store accepts "
                           "writes)")
                .arg(plan.kernels.size())));
    logEvent(plan.sessionId, {}, QStringLiteral("running"),
             QStringLiteral("%1 kernels running").arg(plan.kernels.size()));
    std::lock_guard lock(run.mutex);
    return run.session;
}

// All-or-nothing: remove whatever this session has anywhere, then say why. A host that stopped
// answering is the cause, whatever failed after it on the other hosts.
Result<SessionRecord> Provisioner::rollBack(Run &run, bool cancelled)
{
    const ClusterPlan &plan = run.spec.plan;
    std::optional<Error> hung;
    QSet<QString> hungHosts;
    std::optional<Error> firstError;
    QString failedHostname;
    {
        std::lock_guard lock(run.mutex);
        hung = run.hungError;
        hungHosts = run.hungHosts;
        firstError = run.firstError;
        failedHostname = run.failedHostname;
    }
    Error cause = cancelled ? Error::make(Error::Kind::Cancelled, QString(),
                                          QStringLiteral("launch cancelled"))
                            : firstError.value_or(Error::make(Error::Kind::Cancelled, QString(),
                                                              QStringLiteral("aborted")));
    if (hung && !cancelled) {
        Error lead = *hung;
        // What failed after it, unless that is only the hung host itself or the cancel it
        // caused on the others.
        if (firstError && firstError->kind != Error::Kind::Cancelled &&
            firstError->toString() != hung->toString() && !firstError->where.contains(hung->where))
            lead.message += QStringLiteral("; then: ") + firstError->toString();
        cause = lead;
    }
    if (m_deferOnUnanswered && !cancelled) {
        // A host that does not answer (stopped, rebooting) is waited for, not turned into the
        // end of the session: nothing is rolled back here, the caller records the wait.
        QStringList asked;
        for (auto it = run.hosts.cbegin(); it != run.hosts.cend(); ++it)
            if (!hungHosts.contains(it.key()))
                asked.append(it.key());
        m_unanswered = HostProbe::unanswered(m_registry, asked, std::min(m_pingTimeout, 5000ms));
        for (const QString &h : std::as_const(hungHosts))
            m_unanswered.insert(h, hung.value_or(cause));
        if (!m_unanswered.isEmpty()) {
            run.flushStatuses();
            qCInfo(lcProvision).noquote() << "session" << plan.sessionId << "waits for"
                                          << m_unanswered.keys() << ":" << cause.toString();
            return fail(HostProbe::describe(m_unanswered));
        }
    }
    const QString reason = cause.toString();
    qCInfo(lcProvision) << "rolling back session" << plan.sessionId << ":" << reason;

    // The desired state first: if this process dies or gives up during the rollback, the
    // controller finishes it.
    recordRollback(run, reason);
    FailPoint::reached("rollback-before-removal");

    QMap<QString, QStringList> volumes;
    {
        std::lock_guard lock(run.mutex);
        volumes = run.volumesMade;
    }
    RemovalOptions removal;
    removal.deadline = m_rollbackTimeout;
    removal.cancel = m_abandon;
    removal.hostCancel = run.hostStop;
    removal.skipHosts = hungHosts;
    const auto rollbackEnds = std::chrono::steady_clock::now() + m_rollbackTimeout;
    QStringList unfinished;
    const auto removed = removeSessionObjects(run.spec, volumes, removal, &unfinished);
    if (!removed)
        qCInfo(lcProvision) << "rollback of" << plan.sessionId
                            << "incomplete:" << removed.error().toString();
    // Images this launch pulled go too (a host that had one keeps it; one in use stays).
    QStringList skip = unfinished;
    skip.append(QStringList(hungHosts.cbegin(), hungHosts.cend()));
    removePulledImages(run, skip, rollbackEnds);
    const KernelStatus final = cancelled ? KernelStatus::Cancelled : KernelStatus::Error;
    for (const KernelSpec &k : plan.kernels) {
        const QString host = run.spec.placement.hostOf.value(k.hostname);
        if (unfinished.contains(host)) {
            // Its container may still be there: TERMINATING until the controller (or
            // `reconcile`) has removed it, once the host answers again.
            setKernelStatus(run, k.hostname, KernelStatus::Terminating,
                            QStringLiteral("rolled back, but host %1 does not answer: its "
                                           "objects are removed when it does (%2)")
                                .arg(host, reason));
            continue;
        }
        const QString why =
            k.hostname == failedHostname ? reason : QStringLiteral("rolled back: ") + reason;
        setKernelStatus(run, k.hostname, final, why);
    }
    const auto recorded =
        setSessionStatus(run, cancelled ? SessionStatus::Cancelled : SessionStatus::Error, reason);
    logEvent(plan.sessionId, {}, cancelled ? QStringLiteral("cancelled") : QStringLiteral("error"),
             reason +
                 (removed ? QStringLiteral(" (rolled back)")
                          : QStringLiteral(" (rollback incomplete, the controller finishes it: %1)")
                                .arg(removed.error().toString())) +
                 (recorded ? QString()
                           : QStringLiteral(" (the final status was not recorded, the controller "
                                            "records it: %1)")
                                 .arg(recorded.error().toString())));
    return fail(cause);
}

void Provisioner::removePulledImages(Run &run, const QStringList &skipHosts,
                                     std::chrono::steady_clock::time_point until)
{
    QMap<QString, QStringList> pulled;
    {
        std::lock_guard lock(run.mutex);
        pulled = run.imagesPulled;
    }
    for (auto it = pulled.cbegin(); it != pulled.cend(); ++it) {
        if (skipHosts.contains(it.key()))
            continue;
        for (const QString &image : it.value()) {
            const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                until - std::chrono::steady_clock::now());
            if (left <= 0ms)
                break;
            Docker::CallOptions call;
            call.timeout = std::min<std::chrono::milliseconds>(left, 30s);
            call.cancel = run.hostStop.value(it.key());
            if (auto gone = run.clients.value(it.key())->removeImage(image, false, call); !gone)
                qCInfo(lcProvision).noquote() << "keeping pulled image" << image << "on" << it.key()
                                              << ":" << gone.error().toString();
        }
    }
}

void Provisioner::recordRollback(Run &run, const QString &reason)
{
    if (run.lockLost())
        return;
    SessionRecord s;
    {
        std::lock_guard lock(run.mutex);
        run.session.desired = DesiredState::Terminated;
        run.session.lastError = reason;
        run.session.updatedAt = QDateTime::currentDateTimeUtc();
        s = run.session;
    }
    if (auto ok = m_store->updateSession(s); !ok)
        qCWarning(lcProvision) << "recording the rollback:" << ok.error().toString();
    QList<KernelRef> refs;
    for (const KernelSpec &k : run.spec.plan.kernels)
        refs.append({run.spec.plan.sessionId, k.kernelId});
    auto marked = m_store->modifyKernels(refs, [](KernelRecord &k) {
        if (k.desired == DesiredState::Terminated)
            return false;
        k.desired = DesiredState::Terminated;
        return true;
    });
    if (!marked)
        qCWarning(lcProvision) << "recording the rollback:" << marked.error().toString();
}

Result<void> Provisioner::prepareHosts(Run &run)
{
    const ClusterPlan &plan = run.spec.plan;
    const Placement &placement = run.spec.placement;

    // Independent checks and creations, all at once: images per host, volumes per host, network.
    struct Task
    {
        QString host;
        std::function<Result<void>()> run;
    };
    QList<Task> tasks;
    QMap<QString, QMap<QString, Mount>> volumesOf;
    for (const KernelSpec &k : plan.kernels) {
        const QString host = placement.hostOf.value(k.hostname);
        for (const Mount &m : k.mounts) {
            if (m.type == Mount::Type::Volume && !m.source.isEmpty())
                volumesOf[host].insert(m.source, m);
        }
    }
    // Images: every host that lacks one pulls it, all hosts at once, each image once per host.
    tasks.append({QString(), [this, &run]() {
                      return pullImages(run);
                  }});
    for (auto it = volumesOf.cbegin(); it != volumesOf.cend(); ++it) {
        for (const Mount &m : it.value()) {
            const QString host = it.key();
            tasks.append({host, [&run, host, m]() -> Result<void> {
                              const auto &client = run.clients.value(host);
                              auto existing = client->inspectVolume(m.source, run.call());
                              if (existing)
                                  return {};
                              if (!existing.error().isGone())
                                  return fail(existing.error());
                              Docker::VolumeSpec v;
                              v.name = m.source;
                              v.driver = m.driver.isEmpty() ? QStringLiteral("local") : m.driver;
                              v.driverOptions = m.driverOptions;
                              v.labels = {{Labels::session(), run.spec.plan.sessionId},
                                          {Labels::store(), run.self.id}};
                              auto made = client->createVolume(v, run.call());
                              if (!made)
                                  return fail(made.error().withContext(
                                      QStringLiteral("creating volume %1").arg(m.source)));
                              // Docker returns a volume of that name made meanwhile by someone
                              // else: used, never removed by our rollback.
                              if (made->labels.value(Labels::session()) !=
                                      run.spec.plan.sessionId ||
                                  made->labels.value(Labels::store()) != run.self.id) {
                                  qCInfo(lcProvision).noquote()
                                      << "volume" << m.source << "on host" << host
                                      << "was made meanwhile by someone else: used, not ours";
                                  return {};
                              }
                              std::lock_guard lock(run.mutex);
                              run.volumesMade[host].append(m.source);
                              return {};
                          }});
        }
    }
    const QStringList networkHosts = run.network->hostsOf(placement);
    tasks.append({networkHosts.size() == 1 ? networkHosts.first() : QString(),
                  [&run, networkHosts]() -> Result<void> {
                      // A scale: a network on one host is there already; one on every host of
                      // the session is set up again for the hosts the new kernels bring.
                      if (run.partial && networkHosts.size() <= 1) {
                          std::lock_guard lock(run.mutex);
                          run.networkReused = true;
                          return {};
                      }
                      SessionNetwork::Sites sites;
                      for (const QString &h : networkHosts)
                          sites.insert(h,
                                       {run.clients.value(h),
                                        ContainerSpecBuilder::publicAddressOf(run.hosts.value(h))});
                      // A launch joins the hosts while its kernels are created (connect()).
                      auto made =
                          run.partial
                              ? run.network->setUp(run.networkScope(), run.spec.placement, sites)
                              : run.network->prepare(run.networkScope(), run.spec.placement, sites);
                      if (!made)
                          return fail(made.error());
                      std::lock_guard lock(run.mutex);
                      if (!run.partial)
                          run.networkSites = sites;
                      run.networkReused = run.partial || made->reused;
                      if (!run.partial) {
                          run.session.networkId = made->id;
                          run.session.networkHost = run.spec.placement.networkHost;
                      }
                      return {};
                  }});

    std::mutex errorMutex;
    std::optional<Error> error;
    Concurrent::forEachPerHost(
        int(tasks.size()), [&](int i) { return tasks.at(i).host; },
        [&](int i) {
            if (run.aborted())
                return;
            auto ok = tasks.at(i).run();
            if (!ok) {
                std::lock_guard lock(errorMutex);
                if (!error)
                    error = ok.error();
                run.failWith(ok.error());
            }
        },
        m_perHostLimit, run.ops);
    if (error)
        return fail(*error);
    if (run.networkReused) {
        QHash<QString, std::shared_ptr<Docker::DockerHost>> hosts;
        for (const QString &host : std::as_const(run.spec.placement.hostOf))
            hosts.insert(host, run.clients.value(host));
        run.network->awaitReuse(run.networkScope(), hosts, m_perHostLimit, run.ops);
    }
    return {};
}

Result<void> Provisioner::pullImages(Run &run)
{
    // One target per (host, image); the strictest policy of the kernels sharing it wins.
    struct Want
    {
        QString host;
        QString image;
        PullPolicy policy;
    };
    QList<Want> wants;
    for (const KernelSpec &k : run.spec.plan.kernels) {
        const QString host = run.spec.placement.hostOf.value(k.hostname);
        // A recorded digest is immutable: pulling it again can never change it.
        const PullPolicy policy = !k.imageDigest.isEmpty() && k.pullPolicy == PullPolicy::Always
                                      ? PullPolicy::IfNotPresent
                                      : k.pullPolicy;
        auto same = std::find_if(wants.begin(), wants.end(), [&](const Want &w) {
            return w.host == host && w.image == k.imageToRun();
        });
        if (same == wants.end())
            wants.append({host, k.imageToRun(), policy});
        else if (policy == PullPolicy::Always || same->policy == PullPolicy::Never)
            same->policy = policy;
    }

    QList<Registry::PullTarget> targets;
    QList<Want> never;
    for (const Want &w : std::as_const(wants)) {
        if (w.policy == PullPolicy::Never)
            never.append(w);
        else
            targets.append(
                {w.host, run.clients.value(w.host), w.image, w.policy == PullPolicy::IfNotPresent});
    }
    QHash<QString, QString> pinned; // host + image → digest or image id
    auto key = [](const QString &host, const QString &image) -> QString {
        return host + QLatin1Char('\n') + image;
    };

    // pullPolicy: never — today's refusal when the host lacks it.
    for (const Want &w : std::as_const(never)) {
        auto info = run.clients.value(w.host)->inspectImage(w.image, run.call());
        if (!info) {
            if (info.error().isGone())
                return fail(Error::Kind::NotFound, QStringLiteral("host %1").arg(w.host),
                            QStringLiteral("image '%1' is not present on host %2 (pullPolicy is "
                                           "never: load it there, e.g. docker save | docker "
                                           "load, or pull it with clusterdeckctl image pull)")
                                .arg(w.image, w.host));
            return fail(info.error().withContext(
                QStringLiteral("checking image %1 on host %2").arg(w.image, w.host)));
        }
        QString digest = info->id;
        if (auto ref = Registry::ImageReference::parse(w.image)) {
            for (const QString &d : std::as_const(info->repoDigests)) {
                if (d.startsWith(QString(ref->name() + QLatin1Char('@'))))
                    digest = d;
            }
        }
        pinned.insert(key(w.host, w.image), digest);
    }

    if (!targets.isEmpty()) {
        Registry::ImagePuller puller;
        puller.setCredentialLookup(m_credentials ? m_credentials
                                                 : Registry::ImagePuller::dockerConfigLookup());
        puller.setCallTimeout(run.timeout);
        if (m_pullProgress)
            puller.setProgressCallback(
                [this](const Registry::PullTarget &t, const Docker::PullProgress &p) {
                    m_pullProgress(t.host, t.image, p);
                });
        const QList<Registry::PullOutcome> outcomes = puller.run(targets, run.ops);
        for (const Registry::PullOutcome &o : outcomes) {
            if (o.pulled) {
                std::lock_guard lock(run.mutex);
                run.imagesPulled[o.host].append(o.image);
            }
            if (!o.error)
                pinned.insert(key(o.host, o.image), o.pinnedReference());
        }
        QStringList pulled;
        for (const Registry::PullOutcome &o : outcomes) {
            if (o.pulled)
                pulled.append(QStringLiteral("%1 on %2 (%3 MB)")
                                  .arg(o.image, o.host)
                                  .arg(double(o.bytes) / 1e6, 0, 'f', 1));
        }
        if (!pulled.isEmpty())
            logEvent(run.spec.plan.sessionId, {}, QStringLiteral("pull"),
                     pulled.join(QStringLiteral(", ")));
        if (auto e = Registry::ImagePuller::firstError(outcomes))
            return fail(*e);
    }

    // Record what each kernel runs, so a restart recreates exactly that.
    bool changed = false;
    for (KernelSpec &k : run.spec.plan.kernels) {
        if (!k.imageDigest.isEmpty())
            continue;
        const QString d = pinned.value(key(run.spec.placement.hostOf.value(k.hostname), k.image));
        if (!d.isEmpty()) {
            k.imageDigest = d;
            changed = true;
        }
    }
    if (changed && run.partial) {
        // Adding kernels (scale): their digests go into the stored spec, nothing else changes.
        SessionRecord s;
        {
            std::lock_guard lock(run.mutex);
            s = run.session;
        }
        auto stored = SessionSpec::fromRecord(s, *m_store);
        if (!stored)
            return fail(stored.error());
        for (KernelSpec &k : stored->plan.kernels) {
            if (const KernelSpec *mine = run.spec.plan.kernel(k.hostname))
                k.imageDigest = mine->imageDigest;
        }
        if (auto ok = stored->storeInto(*m_store, s.launch); !ok)
            return fail(ok.error().withContext(QStringLiteral("recording image digests")));
        if (auto ok = m_store->updateSession(s); !ok)
            return fail(ok.error().withContext(QStringLiteral("recording image digests")));
        std::lock_guard lock(run.mutex);
        run.session = s;
    } else if (changed) {
        SessionRecord s;
        {
            std::lock_guard lock(run.mutex);
            s = run.session;
        }
        if (auto ok = run.spec.storeInto(*m_store, s.launch); !ok)
            return fail(ok.error().withContext(QStringLiteral("recording image digests")));
        {
            std::lock_guard lock(run.mutex);
            run.session.launch = s.launch;
        }
        if (auto ok = m_store->updateSession(s); !ok)
            return fail(ok.error().withContext(QStringLiteral("recording image digests")));
    }
    return {};
}

KernelRecord Provisioner::recordFor(const KernelSpec &k, const QString &sessionId,
                                    const QString &host, KernelStatus status, const QString &reason,
                                    const QDateTime &at)
{
    KernelRecord r;
    r.id = k.kernelId;
    r.sessionId = sessionId;
    r.role = k.role;
    r.roleIdx = k.roleIdx;
    r.localRank = k.localRank;
    r.primary = k.primary;
    r.hostname = k.hostname;
    r.host = host;
    r.containerName = k.containerName;
    r.desired = DesiredState::Running;
    for (const ServicePort &p : k.ports)
        r.ports.append({p.name, p.protocol, p.port, 0, QString()});
    r.cpus = k.resources.cpus;
    r.memoryBytes = k.resources.memoryBytes;
    r.createdAt = at;
    r.changeStatus(status, at, reason);
    return r;
}

Result<void> Provisioner::createKernel(Run &run, const KernelSpec &k)
{
    const QString host = run.spec.placement.hostOf.value(k.hostname);
    const auto client = run.clients.value(host);
    if (!client)
        return fail(Error::Kind::Invalid, QStringLiteral("host %1").arg(host),
                    QStringLiteral("kernel %1 has no host").arg(k.hostname));
    if (run.aborted())
        return {};
    auto where = [&](const QString &step, const Error &e) {
        return e.withContext(QStringLiteral("%1 %2 on host %3").arg(step, k.hostname, host));
    };

    QString hostAddress;
    if (!k.ports.isEmpty() && k.bindAddress.isEmpty()) {
        auto address = ContainerSpecBuilder::bindableAddressOf(run.hosts.value(host));
        if (!address)
            return fail(address.error());
        hostAddress = *address;
    }
    QString id;
    bool adopted = false;
    Docker::ContainerSpec spec = ContainerSpecBuilder::specFor(k, run.spec.plan.networkName,
                                                               run.self.id, hostAddress, &run.env);
    run.network->configureKernel(run.spec.placement, k.hostname, spec);
    // The create itself is let finish (createCall); none begins once the run is aborted.
    if (run.aborted())
        return fail(Error::Kind::Cancelled, QStringLiteral("host %1").arg(host),
                    QStringLiteral("not created: the launch is being rolled back"));
    setKernelStatus(run, k.hostname, KernelStatus::Creating);
    auto created = client->createContainer(spec, run.createCall(host));
    if (!created && created.error().kind == Error::Kind::Conflict) {
        // The name is deterministic: a container of this very kernel exists (an interrupted
        // launch). Keep it if it runs; otherwise it may lack its files, so make it again.
        auto existing = client->inspectContainer(k.containerName, run.call());
        if (!existing)
            return fail(where(QStringLiteral("inspecting"), existing.error()));
        if (!run.self.ownsSessionObject(existing->labels, run.spec.plan.sessionId) ||
            existing->labels.value(Labels::kernel()) != k.kernelId)
            return fail(Error::Kind::Conflict, QStringLiteral("host %1").arg(host),
                        QStringLiteral("a container named %1 exists on host %2 and is not kernel "
                                       "%3 of this session")
                            .arg(k.containerName, host, k.hostname));
        if (existing->state.running) {
            id = existing->id;
            adopted = true;
        } else {
            Docker::RemoveContainerOptions rm;
            rm.force = true;
            if (auto ok = client->removeContainer(existing->id, rm, run.call()); !ok)
                return fail(where(QStringLiteral("replacing"), ok.error()));
            created = client->createContainer(spec, run.createCall(host));
        }
    }
    if (!adopted) {
        if (!created)
            return fail(where(QStringLiteral("creating"), created.error()));
        id = created->id;
    }
    QString kernelId;
    {
        std::lock_guard lock(run.mutex);
        KernelRecord &r = run.records[k.hostname];
        r.containerId = id;
        kernelId = r.id;
    }
    // With the next batch: the container is found by its labels until then.
    run.statuses->setContainerId(kernelId, id, QDateTime::currentDateTimeUtc());
    if (run.aborted())
        return {};

    if (!adopted) {
        if (!k.files.isEmpty()) {
            // Files of a user other than root go to that account's home, owned by its uid and
            // gid, as the image's /etc/passwd says (read from the created container).
            KernelSpec placed = k;
            QString home;
            if (UserAccounts::needsLookup(k)) {
                auto passwd = client->readFile(id, QStringLiteral("/etc/passwd"), run.call());
                if (!passwd && !passwd.error().isGone())
                    return fail(where(QStringLiteral("reading /etc/passwd of"), passwd.error()));
                const UserAccounts accounts = UserAccounts::parse(passwd ? *passwd : QByteArray());
                placed.files = accounts.placeFiles(k, &home);
            }
            const Docker::TarArchiveBuilder tar =
                ContainerSpecBuilder::filesArchiveFor(placed, home);
            if (auto ok = client->uploadFiles(id, QStringLiteral("/"), tar, run.call()); !ok)
                return fail(where(QStringLiteral("uploading files to"), ok.error()));
        }
        // The hosts joined first (connect()): a kernel may talk to its peers as it starts.
        if (!run.awaitNetwork() || run.aborted())
            return {};
        // The start attaches the container to the session's network: what the network's driver
        // knows to be passing trouble (a busy swarm manager, a node dropping its instance) is
        // tried again, three starts in all.
        auto started = client->startContainer(id, run.call());
        SessionNetwork::StartAttempts attempts;
        for (int retry = 1;
             !started &&
             run.network->isTransientStartError(started.error(), run.networkReused, attempts) &&
             retry <= 2 && !run.aborted();
             ++retry) {
            qCInfo(lcProvision).noquote() << "starting" << k.hostname << "on host" << host
                                          << "again:" << started.error().message;
            std::this_thread::sleep_for(std::chrono::seconds(retry));
            run.network->prepareRetry(run.networkScope(), host, *client, run.networkReused,
                                      attempts);
            started = client->startContainer(id, run.call());
        }
        if (!started)
            return fail(where(QStringLiteral("starting"), started.error()));
    }

    // Read back what Docker chose (host ports).
    if (!k.ports.isEmpty()) {
        auto info = client->inspectContainer(id, run.call());
        if (!info)
            return fail(where(QStringLiteral("inspecting"), info.error()));
        const QString address = ContainerSpecBuilder::publicAddressOf(run.hosts.value(host));
        std::lock_guard lock(run.mutex);
        KernelRecord &r = run.records[k.hostname];
        r.ports.clear();
        for (const ServicePort &p : k.ports) {
            const int hostPort = info->hostPortFor(p.port, QStringLiteral("tcp"));
            const QString url = p.protocol == QLatin1String("http") && hostPort
                                    ? QStringLiteral("http://%1:%2").arg(address).arg(hostPort)
                                    : QString();
            r.ports.append({p.name, p.protocol, p.port, hostPort, url});
        }
    }
    if (!k.ports.isEmpty()) {
        QList<PortBinding> ports;
        {
            std::lock_guard lock(run.mutex);
            ports = run.records.value(k.hostname).ports;
        }
        run.statuses->setPorts(kernelId, ports, QDateTime::currentDateTimeUtc());
    }
    if (run.aborted())
        return {};
    setKernelStatus(run, k.hostname, KernelStatus::Running,
                    adopted ? QStringLiteral("adopted the running container") : QString());
    return {};
}

Result<void> Provisioner::settle(Run &run)
{
    if (m_settle.count() <= 0)
        return {};
    // Wait (cancellably), then look at every kernel once: a container that already stopped did
    // not start well, whatever `start` said.
    const auto until = std::chrono::steady_clock::now() + m_settle;
    while (std::chrono::steady_clock::now() < until) {
        if (run.aborted() || run.userCancel.isCancelled())
            return {};
        std::this_thread::sleep_for(std::min<std::chrono::milliseconds>(
            50ms, std::chrono::duration_cast<std::chrono::milliseconds>(
                      until - std::chrono::steady_clock::now()) +
                      1ms));
    }
    const SuccessPolicy &success = run.spec.plan.successPolicy;
    auto countsAsSuccess = [&](const KernelSpec &k) {
        switch (success.kind) {
        case SuccessPolicy::Kind::None:
            return false;
        case SuccessPolicy::Kind::PrimaryExits:
            return k.primary;
        case SuccessPolicy::Kind::AllExit:
            return true;
        case SuccessPolicy::Kind::RoleExits:
            return k.role == success.role;
        }
        return false;
    };
    std::mutex mutex;
    std::optional<Error> failure;
    QString failedHostname;
    const QList<KernelSpec> &kernels = run.spec.plan.kernels;
    auto hostOfKernel = [&](int i) {
        return run.spec.placement.hostOf.value(kernels.at(i).hostname);
    };
    Concurrent::forEachPerHost(
        int(kernels.size()), hostOfKernel,
        [&](int i) {
            const KernelSpec &k = kernels.at(i);
            const QString host = run.spec.placement.hostOf.value(k.hostname);
            QString id;
            {
                std::lock_guard lock(run.mutex);
                id = run.records.value(k.hostname).containerId;
            }
            const auto client = run.clients.value(host);
            if (!client || id.isEmpty())
                return;
            auto info = client->inspectContainer(id, run.call());
            Error problem;
            if (!info) {
                problem = info.error().withContext(
                    QStringLiteral("checking %1 on host %2 after its start").arg(k.hostname, host));
            } else if (info->state.running) {
                return;
            } else if (info->state.exitCode == 0 && countsAsSuccess(k)) {
                return; // finished already: the success policy's business (the controller's)
            } else {
                // Its last words say why, which is what the admin needs to fix the template.
                Docker::LogOptions logs;
                logs.tail = QStringLiteral("10");
                Docker::CallOptions call = run.call();
                call.timeout = 5s;
                QString lines;
                if (auto out = client->containerLogs(id, logs, call)) {
                    QByteArray all;
                    for (const Docker::LogFrame &f : std::as_const(out->frames))
                        all += f.data;
                    lines = QString::fromUtf8(all).trimmed();
                }
                problem = Error::make(
                    Error::Kind::Invalid, QStringLiteral("host %1").arg(host),
                    QStringLiteral("%1 on host %2 exited with code %3 within %4 s of its start%5")
                        .arg(k.hostname, host)
                        .arg(info->state.exitCode)
                        .arg(double(m_settle.count()) / 1000.0)
                        .arg(lines.isEmpty() ? QString()
                                             : QStringLiteral("; its last lines:\n") + lines));
            }
            std::lock_guard lock(mutex);
            if (!failure) {
                failure = problem;
                failedHostname = k.hostname;
            }
        },
        m_perHostLimit);
    if (failure) {
        run.failWith(*failure, failedHostname);
        return fail(*failure);
    }
    return {};
}

Result<void> Provisioner::removeSessionObjects(const SessionSpec &spec,
                                               const QMap<QString, QStringList> &volumes,
                                               const RemovalOptions &options,
                                               QStringList *unfinished)
{
    return SessionTeardown(m_store, m_registry, m_perHostLimit)
        .remove(spec, volumes, options, unfinished);
}

void Provisioner::setKernelStatus(Run &run, const QString &hostname, KernelStatus status,
                                  const QString &reason)
{
    if (run.lockLost())
        return;
    const QDateTime now = QDateTime::currentDateTimeUtc();
    KernelRecord record;
    {
        std::lock_guard lock(run.mutex);
        KernelRecord &r = run.records[hostname];
        r.changeStatus(status, now, reason);
        record = r;
    }
    const QString kernelId = record.id;
    // Written with the next batch: a status is an observation, and one that lags by a batch
    // after a crash is observed again by the controller.
    run.statuses->setStatus(kernelId, status, reason, now);
    qCDebug(lcProvision) << run.spec.plan.sessionId.left(8) << hostname << toString(status)
                         << reason;
    if (m_progress)
        m_progress(record);
}

Result<void> Provisioner::setSessionStatus(Run &run, SessionStatus status, const QString &reason)
{
    if (run.lockLost())
        return fail(run.stopError());
    // The kernels' statuses first: the store never shows a session ahead of its kernels.
    run.flushStatuses();
    SessionRecord s;
    {
        std::lock_guard lock(run.mutex);
        run.session.changeStatus(status, QDateTime::currentDateTimeUtc(), reason);
        s = run.session;
    }
    auto ok = m_store->updateSession(s);
    if (!ok)
        qCWarning(lcProvision) << "recording session status:" << ok.error().toString();
    return ok;
}

void Provisioner::logEvent(const QString &sessionId, const QString &kernelId, const QString &action,
                           const QString &detail)
{
    logLifecycleEvent(m_store, m_actor.isEmpty() ? QStringLiteral("provisioner") : m_actor,
                      sessionId, kernelId, action, detail);
}

} // namespace ClusterDeck
