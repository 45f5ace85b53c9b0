#include "controller.h"

#include "actionapplier.h"
#include "common/labels.h"
#include "common/logging.h"
#include "docker/dockereventstream.h"
#include "docker/dockerhost.h"
#include "host/hostregistry.h"
#include "networkrepair.h"
#include "provision/eventlog.h"
#include "provision/hostprobe.h"
#include "store/statestore.h"

#include <QCoreApplication>
#include <QDateTime>
#include <QHash>
#include <QSysInfo>
#include <QUuid>

namespace ClusterDeck {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

namespace {

QString defaultActor()
{
    return QStringLiteral("controller@%1 (pid %2)")
        .arg(QSysInfo::machineHostName())
        .arg(QCoreApplication::applicationPid());
}

} // namespace

Controller::Controller(StateStore *store, HostRegistry *registry, ControllerOptions options,
                       QObject *parent)
    : QObject(parent)
    , m_store(store)
    , m_registry(registry)
    , m_options(std::move(options))
{
    m_candidate.ownerId = QUuid::createUuid().toString(QUuid::WithoutBraces);
    m_candidate.hostname = QSysInfo::machineHostName();
    m_candidate.pid = QCoreApplication::applicationPid();
    m_candidate.actor = m_options.actor.isEmpty() ? defaultActor() : m_options.actor;
    m_applier = std::make_unique<ActionApplier>(m_store, m_registry, m_store->identity(),
                                                m_candidate.actor);
    m_applier->setOrphanGrace(m_options.orphanGrace);
}

Controller::~Controller()
{
    stop();
}

void Controller::start()
{
    if (m_thread.joinable())
        return;
    m_stopping = false;
    m_thread = std::thread([this] { run(); });
}

void Controller::stop()
{
    {
        std::lock_guard lock(m_mutex);
        m_stopping = true;
    }
    m_wake.notify_all();
    if (m_thread.joinable())
        m_thread.join();
}

void Controller::requestPass()
{
    {
        std::lock_guard lock(m_mutex);
        m_passRequested = true;
    }
    m_wake.notify_all();
}

qint64 Controller::intakeOverflows() const
{
    std::lock_guard lock(m_mutex);
    return m_intakeOverflows;
}

qsizetype Controller::intakePeak() const
{
    std::lock_guard lock(m_mutex);
    return m_intakePeak;
}

void Controller::waitFor(std::chrono::milliseconds timeout)
{
    std::unique_lock lock(m_mutex);
    m_wake.wait_for(lock, timeout, [this] { return m_stopping.load(); });
}

void Controller::run()
{
    auto lastWarning = Clock::now() - 1h;
    while (!m_stopping) {
        auto leadership =
            m_store->campaign(m_candidate, m_options.campaignRetry, m_options.leaseTtl);
        if (!leadership) {
            if (leadership.error().kind != Error::Kind::Conflict &&
                Clock::now() - lastWarning > 30s) {
                qCWarning(lcControl) << "campaign:" << leadership.error().toString();
                lastWarning = Clock::now();
            }
            if (leadership.error().kind != Error::Kind::Conflict)
                waitFor(m_options.campaignRetry);
            continue;
        }
        const LeaderRecord me = (*leadership)->record();
        qCInfo(lcControl) << m_candidate.actor << "leads, term" << me.term;
        m_leading = true;
        Q_EMIT leadershipChanged(true);
        logLifecycleEvent(m_store, m_candidate.actor, QString(), QString(),
                          QStringLiteral("controller"),
                          QStringLiteral("leads this store (term %1)").arg(me.term));
        lead(**leadership);
        stopStreams();
        const bool lost = !(*leadership)->isHeld();
        m_leading = false;
        leadership->reset(); // resign
        Q_EMIT leadershipChanged(false);
        if (lost)
            qCWarning(lcControl) << "lost the leadership (term" << me.term
                                 << "); writes nothing more, campaigns again";
    }
}

void Controller::lead(Leadership &leadership)
{
    const qint64 term = leadership.record().term;
    m_applier->setCancel(leadership.lostToken());
    m_applier->setStillLeading([this, &leadership, term] {
        if (!leadership.isHeld())
            return false;
        auto current = m_store->leader();
        return current && *current && (*current)->term == term;
    });
    {
        std::lock_guard lock(m_mutex);
        m_intakeRunning = true;
        m_health.clear();
        m_networksChecked.clear();
        m_mustPublish = true;
    }
    m_intakeThread = std::thread([this] { intakeLoop(); });

    auto seen = m_store->controllerPassRequests();
    qint64 requestsSeen = seen ? *seen : 0;
    auto nextPass = Clock::now();
    auto nextProbe = Clock::now();
    while (!m_stopping && leadership.isHeld()) {
        std::deque<PendingExit> exits;
        bool due = Clock::now() >= nextPass;
        {
            std::lock_guard lock(m_mutex);
            exits.swap(m_exits);
            due = due || m_passRequested;
            m_passRequested = false;
        }
        // The exits waiting, session by session (in the order their sessions first died): a
        // burst of one session's deaths is decided under one lock and written together.
        QStringList order;
        QHash<QString, QList<KernelExit>> bySession;
        for (const PendingExit &e : exits) {
            if (!bySession.contains(e.sessionId))
                order.append(e.sessionId);
            bySession[e.sessionId].append(*e.exit);
        }
        for (const QString &sessionId : std::as_const(order)) {
            if (m_stopping || !leadership.isHeld())
                break;
            auto decided = m_applier->handleExits(sessionId, bySession.value(sessionId));
            if (!decided) {
                qCWarning(lcControl)
                    << "kernel exits in" << sessionId << ":" << decided.error().toString();
                continue;
            }
            for (const ExitDecision &d : std::as_const(*decided)) {
                qCInfo(lcControl).noquote() << d.reason;
                Q_EMIT policyApplied(sessionId, ExitDecision::name(d.outcome), d.reason);
            }
        }
        if (auto requests = m_store->controllerPassRequests();
            requests && *requests > requestsSeen) {
            requestsSeen = *requests;
            due = true;
            std::lock_guard lock(m_mutex);
            m_mustPublish = true; // `reconcile` waits for the published count to grow
        }
        // A host that did not answer in the last pass is asked every 2 s: the pass that follows
        // its return restarts what waits for it at once, not at the next resync.
        if (!due && Clock::now() >= nextProbe) {
            QStringList silent;
            {
                std::lock_guard lock(m_mutex);
                silent = m_silentHosts;
            }
            if (!silent.isEmpty() &&
                HostProbe::unanswered(m_registry, silent, 2s, leadership.lostToken()).size() <
                    silent.size()) {
                qCInfo(lcControl) << "a host answers again: a pass now";
                due = true;
            }
            nextProbe = Clock::now() + 2s;
        }
        if (due && !m_stopping && leadership.isHeld()) {
            const ReconcileReport report = pass(leadership);
            nextPass = Clock::now() + m_options.resyncInterval;
            Q_EMIT passFinished(report.changes(), int(report.warnings.size()));
        }
        std::unique_lock lock(m_mutex);
        const auto untilPass =
            std::chrono::duration_cast<std::chrono::milliseconds>(nextPass - Clock::now());
        m_wake.wait_for(lock, std::clamp<std::chrono::milliseconds>(untilPass, 0ms, 500ms), [this] {
            return m_stopping.load() || m_passRequested || !m_exits.empty();
        });
    }
    {
        std::lock_guard lock(m_mutex);
        m_intakeRunning = false;
        m_exits.clear();
    }
    m_intakeWake.notify_all();
    if (m_intakeThread.joinable())
        m_intakeThread.join();
}

ReconcileReport Controller::pass(Leadership &leadership)
{
    ReconcileReport report;
    report.startedAt = QDateTime::currentDateTimeUtc();
    auto hosts = m_store->hosts();
    if (!hosts) {
        report.warnings.append(hosts.error().toString());
        return report;
    }
    syncStreams(*hosts);
    // What interrupted multi-step writes left behind (etcd: chunked creates and updates).
    const auto swept = m_store->removeStrayRecords(m_options.strayRecordGrace);
    auto observed = m_applier->observe(*hosts);
    if (!observed) {
        // A decode error (an undecodable record) refuses the pass; the refusal is published so
        // that `reconcile` and the console see why nothing happens.
        if (observed.error().kind == Error::Kind::Decode)
            report.refused = observed.error().toString();
        else
            report.warnings.append(observed.error().toString());
        report.finishedAt = QDateTime::currentDateTimeUtc();
        if (report.refused.isEmpty())
            return report;
    } else {
        updateHealth(*observed);
        QStringList silent;
        for (auto it = observed->hosts.cbegin(); it != observed->hosts.cend(); ++it)
            if (!it->reachable)
                silent.append(it.key());
        {
            std::lock_guard lock(m_mutex);
            m_silentHosts = silent;
        }
        const ReconcilePlan plan =
            planReconcile(*observed, m_applier->identity(), m_applier->orphanGrace());
        report = m_applier->apply(plan, *hosts);
        // VXLAN devices on hosts not checked since they last answered (a reboot loses them).
        QStringList unchecked;
        {
            std::lock_guard lock(m_mutex);
            for (auto it = observed->hosts.cbegin(); it != observed->hosts.cend(); ++it) {
                if (!it->reachable)
                    m_networksChecked.remove(it.key());
                else if (!m_networksChecked.contains(it.key()))
                    unchecked.append(it.key());
            }
        }
        if (!unchecked.isEmpty() && leadership.isHeld()) {
            const QStringList checked =
                NetworkRepair(m_store, m_registry).run(unchecked, *observed, *hosts, report);
            std::lock_guard lock(m_mutex);
            for (const QString &h : checked)
                m_networksChecked.insert(h);
        }
        report.startedAt = observed->listedAt;
        report.finishedAt = QDateTime::currentDateTimeUtc();
        for (auto it = observed->hosts.cbegin(); it != observed->hosts.cend(); ++it) {
            if (!it->reachable)
                report.warnings.append(
                    QStringLiteral("host %1 does not answer: %2").arg(it.key(), it->error));
        }
    }
    if (!swept)
        report.warnings.append(swept.error().toString());
    else if (*swept > 0)
        qCInfo(lcControl) << "cleaned" << *swept << "unfinished store write(s)";
    if (!leadership.isHeld())
        return report;
    ControllerStatus status;
    status.ownerId = m_candidate.ownerId;
    status.actor = m_candidate.actor;
    status.lastPassAt = report.finishedAt;
    status.lastReport = report.toJson();
    QJsonObject said = status.lastReport;
    said.remove(QLatin1StringView("started_at"));
    said.remove(QLatin1StringView("finished_at"));
    bool publish = false;
    {
        std::lock_guard lock(m_mutex);
        status.passes = ++m_passes;
        status.hosts = m_health;
        publish = m_mustPublish || said != m_publishedReport || m_health != m_publishedHealth;
    }
    if (publish) {
        if (auto ok = m_store->putControllerStatus(status); !ok) {
            qCWarning(lcControl) << "publishing the pass:" << ok.error().toString();
        } else {
            std::lock_guard lock(m_mutex);
            m_publishedReport = said;
            m_publishedHealth = status.hosts;
            m_mustPublish = false;
        }
    }
    if (!report.refused.isEmpty())
        qCWarning(lcControl).noquote() << "pass" << status.passes << "refused:" << report.refused;
    else if (report.changes() > 0 || !report.warnings.isEmpty())
        qCInfo(lcControl) << "pass" << status.passes << ":" << report.changes() << "change(s),"
                          << report.warnings.size() << "warning(s)";
    return report;
}

Result<ReconcileReport> Controller::runOnce()
{
    auto leadership = m_store->campaign(m_candidate, 0ms, m_options.leaseTtl);
    if (!leadership)
        return fail(leadership.error());
    const qint64 term = (*leadership)->record().term;
    m_applier->setCancel((*leadership)->lostToken());
    m_applier->setStillLeading([this, l = leadership->get(), term] {
        if (!l->isHeld())
            return false;
        auto current = m_store->leader();
        return current && *current && (*current)->term == term;
    });
    if (auto status = m_store->controllerStatus(); status && *status)
        m_passes = (*status)->passes;
    {
        std::lock_guard lock(m_mutex);
        m_mustPublish = true;
    }
    ReconcileReport report = pass(**leadership);
    m_applier->setStillLeading({});
    return report;
}

void Controller::updateHealth(const Observed &observed)
{
    const QDateTime now = QDateTime::currentDateTimeUtc();
    QList<QPair<QString, HostHealth>> changed;
    {
        std::lock_guard lock(m_mutex);
        for (auto it = observed.hosts.cbegin(); it != observed.hosts.cend(); ++it) {
            const HostHealth before = m_health.value(it.key());
            const bool known = m_health.contains(it.key());
            if (known && before.up == it->reachable) {
                m_health[it.key()].reason = it->error;
                continue;
            }
            const HostHealth now_{it->reachable, it->error, now};
            m_health.insert(it.key(), now_);
            if (known || !it->reachable)
                changed.append({it.key(), now_});
        }
        for (auto it = m_health.begin(); it != m_health.end();) {
            it = observed.hosts.contains(it.key()) ? std::next(it) : m_health.erase(it);
        }
    }
    for (const auto &[host, health] : std::as_const(changed))
        logLifecycleEvent(
            m_store, m_candidate.actor, QString(), QString(),
            health.up ? QStringLiteral("host-up") : QStringLiteral("host-down"),
            health.up ? QStringLiteral("host %1 answers again").arg(host)
                      : QStringLiteral("host %1 does not answer: %2").arg(host, health.reason));
}

// ---- Docker events → the store

void Controller::syncStreams(const QList<HostRecord> &hosts)
{
    QSet<QString> wanted;
    for (const HostRecord &h : hosts) {
        wanted.insert(h.name);
        {
            std::lock_guard lock(m_mutex);
            if (m_streams.contains(h.name))
                continue;
        }
        auto client = m_registry->dockerHost(h);
        if (!client)
            continue;
        Docker::EventFilter filter;
        filter.types = {QStringLiteral("container")};
        filter.events = {QStringLiteral("start"), QStringLiteral("die"), QStringLiteral("destroy")};
        // Objects labelled by builds before the store id carry the URL: with such sessions
        // about, listen to every store's objects (the planner sorts them out).
        const StoreIdentity &self = m_applier->identity();
        filter.labels = {self.legacyLabels.isEmpty()
                             ? Labels::store() + QLatin1Char('=') + self.id
                             : Labels::store()};
        auto stream = std::make_shared<Docker::DockerEventStream>(*client, filter);
        const QString host = h.name;
        stream->setCallback([this, host](const Docker::DockerEvent &event) {
            qsizetype dropped = 0;
            {
                std::lock_guard lock(m_mutex);
                if (qsizetype(m_intake.size()) >= m_options.intakeCapacity) {
                    // Events are hints; a full pass reads every host and the store itself.
                    dropped = qsizetype(m_intake.size());
                    m_intake.clear();
                    m_passRequested = true;
                    ++m_intakeOverflows;
                }
                m_intake.push_back({host, std::make_shared<Docker::DockerEvent>(event)});
                m_intakePeak = std::max(m_intakePeak, qsizetype(m_intake.size()));
            }
            if (dropped > 0) {
                qCWarning(lcControl).noquote() << "the event intake is full:" << dropped
                                               << "events left to a full pass instead";
                m_wake.notify_all();
            }
            m_intakeWake.notify_one();
        });
        // A gap in the stream may hide events: look at everything again.
        connect(
            stream.get(), &Docker::DockerEventStream::connectionLost, stream.get(),
            [this](const QString &) { requestPass(); }, Qt::DirectConnection);
        stream->start();
        std::lock_guard lock(m_mutex);
        m_streams.insert(h.name, stream);
    }
    QList<std::shared_ptr<Docker::DockerEventStream>> gone;
    {
        std::lock_guard lock(m_mutex);
        for (auto it = m_streams.begin(); it != m_streams.end();) {
            if (wanted.contains(it.key())) {
                ++it;
                continue;
            }
            gone.append(it.value());
            it = m_streams.erase(it);
        }
    }
    for (const auto &stream : std::as_const(gone))
        stream->stop();
}

void Controller::stopStreams()
{
    QHash<QString, std::shared_ptr<Docker::DockerEventStream>> streams;
    {
        std::lock_guard lock(m_mutex);
        streams.swap(m_streams);
    }
    for (const auto &stream : std::as_const(streams))
        stream->stop();
}

void Controller::intakeLoop()
{
    for (;;) {
        QList<Intake> batch;
        {
            std::unique_lock lock(m_mutex);
            m_intakeWake.wait(lock, [this] { return !m_intake.empty() || !m_intakeRunning; });
            if (m_intake.empty() && !m_intakeRunning)
                return;
            // Everything that arrived meanwhile goes in one store transaction.
            while (!m_intake.empty()) {
                batch.append(m_intake.front());
                m_intake.pop_front();
            }
        }
        record(batch);
    }
}

void Controller::record(const QList<Intake> &batch)
{
    struct Seen
    {
        KernelObservation observation;
        QString host;
        bool stopped = false;
    };
    QHash<QString, Seen> latest; // "session/kernel" → its newest observation
    QList<KernelRef> refs;
    for (const Intake &in : batch) {
        const Docker::DockerEvent &e = *in.event;
        const QString sid = e.attributes.value(Labels::session());
        const QString kid = e.attributes.value(Labels::kernel());
        if (sid.isEmpty() || kid.isEmpty())
            continue;
        const QString key = sid + QLatin1Char('/') + kid;
        Seen s = latest.value(key);
        const QDateTime at = QDateTime::fromMSecsSinceEpoch(e.timeNano / 1000000, Qt::UTC);
        s.host = in.host;
        s.observation.containerId = e.actorId;
        s.observation.at = at;
        if (e.action == QLatin1String("start")) {
            s.observation.state = ContainerStatus::Running;
            s.observation.startedAt = at;
            s.observation.exitCode.reset();
            s.stopped = false;
        } else if (e.action == QLatin1String("die")) {
            s.observation.state = ContainerStatus::Exited;
            bool ok = false;
            const int code = e.attributes.value(QStringLiteral("exitCode")).toInt(&ok);
            if (ok)
                s.observation.exitCode = code;
            s.stopped = true;
        } else if (e.action == QLatin1String("destroy")) {
            s.observation.state = ContainerStatus::Removed;
            s.stopped = true;
        } else {
            continue;
        }
        if (!latest.contains(key))
            refs.append({sid, kid});
        latest.insert(key, s);
    }
    if (refs.isEmpty())
        return;
    auto changed = m_store->modifyKernels(refs, [&](KernelRecord &k) {
        const Seen s = latest.value(k.sessionId + QLatin1Char('/') + k.id);
        // Events of a container this kernel no longer uses (replaced by a restart) say nothing.
        if (!k.containerId.isEmpty() && !s.observation.containerId.isEmpty() &&
            k.containerId != s.observation.containerId)
            return false;
        KernelObservation next = k.observed;
        next.state = s.observation.state;
        next.containerId = s.observation.containerId;
        next.at = s.observation.at;
        if (s.observation.startedAt.isValid())
            next.startedAt = s.observation.startedAt;
        if (s.observation.state == ContainerStatus::Running)
            next.exitCode.reset();
        else if (s.observation.exitCode)
            next.exitCode = s.observation.exitCode;
        if (next == k.observed)
            return false;
        k.observed = next;
        return true;
    });
    if (!changed) {
        qCWarning(lcControl) << "recording" << refs.size()
                             << "observation(s):" << changed.error().toString();
        return;
    }
    // Kernels that should run and stopped: the policies decide, on the main loop.
    std::deque<PendingExit> exits;
    for (const KernelRecord &k : std::as_const(*changed)) {
        const Seen s = latest.value(k.sessionId + QLatin1Char('/') + k.id);
        if (!s.stopped || (k.status != KernelStatus::Running && k.status != KernelStatus::Unknown))
            continue;
        auto exit = std::make_shared<KernelExit>();
        exit->kernelId = k.id;
        exit->containerId = s.observation.containerId;
        exit->exitCode = s.observation.exitCode;
        exit->vanished = s.observation.state == ContainerStatus::Removed && !s.observation.exitCode;
        exit->host = s.host;
        exits.push_back({k.sessionId, exit});
    }
    if (exits.empty())
        return;
    {
        std::lock_guard lock(m_mutex);
        for (PendingExit &e : exits)
            m_exits.push_back(std::move(e));
    }
    m_wake.notify_all();
}

} // namespace ClusterDeck
