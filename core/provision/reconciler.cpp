#include "reconciler.h"

#include "common/logging.h"
#include "concurrent.h"
#include "docker/dockerclient.h"
#include "eventlog.h"
#include "host/hostregistry.h"
#include "provisioner.h"
#include "provisionlabels.h"
#include "sessioncontroller.h"
#include "store/statestore.h"

#include <QDateTime>
#include <QHash>
#include <QJsonArray>
#include <QSet>

#include <mutex>

namespace ClusterDeck {

using namespace std::chrono_literals;

namespace {

bool isGone(const Error &e)
{
    return e.kind == Error::Kind::NotFound || e.httpStatus == 404;
}

struct Observed
{
    bool reachable = false;
    QString error;
    QList<Docker::ContainerSummary> containers;
    QList<Docker::NetworkInfo> networks;
};

} // namespace

QJsonObject ReconcileReport::toJson() const
{
    QJsonArray list;
    for (const ReconcileChange &c : changes)
        list.append(QJsonObject{{QStringLiteral("action"), c.action},
                                {QStringLiteral("session"), c.sessionId},
                                {QStringLiteral("host"), c.host},
                                {QStringLiteral("object"), c.object},
                                {QStringLiteral("detail"), c.detail}});
    return QJsonObject{{QStringLiteral("changes"), list},
                       {QStringLiteral("warnings"), QJsonArray::fromStringList(warnings)}};
}

Reconciler::Reconciler(StateStore *store, HostRegistry *registry)
    : m_store(store)
    , m_registry(registry)
{}

Result<ReconcileReport> Reconciler::reconcile()
{
    ReconcileReport report;
    auto hosts = m_store->hosts();
    if (!hosts)
        return fail(hosts.error());
    auto sessions = m_store->sessions();
    if (!sessions)
        return fail(sessions.error());
    QHash<QString, SessionRecord> sessionById;
    for (const SessionRecord &s : std::as_const(*sessions))
        sessionById.insert(s.id, s);
    const QString storeUrl = m_store->url();
    const QString sessionLabel = ProvisionLabels::session();

    // 1. What the hosts really have.
    QHash<QString, Observed> observed;
    {
        QList<Observed> results(hosts->size());
        Concurrent::forEach(int(hosts->size()), [&](int i) {
            Observed &o = results[i];
            auto client = m_registry->client(hosts->at(i));
            if (!client) {
                o.error = client.error().toString();
                return;
            }
            Docker::CallOptions call;
            call.timeout = 10s;
            Docker::ContainerListOptions list;
            list.labels = {sessionLabel};
            auto containers = (*client)->listContainers(list, call);
            if (!containers) {
                o.error = containers.error().toString();
                return;
            }
            auto networks = (*client)->listNetworks({sessionLabel}, call);
            if (!networks) {
                o.error = networks.error().toString();
                return;
            }
            o.reachable = true;
            o.containers = *containers;
            o.networks = *networks;
        });
        for (qsizetype i = 0; i < hosts->size(); ++i) {
            observed.insert(hosts->at(i).name, results.at(i));
            if (!results.at(i).reachable)
                report.warnings.append(QStringLiteral("host %1 unreachable: %2")
                                           .arg(hosts->at(i).name, results.at(i).error));
        }
    }
    const qint64 now = QDateTime::currentSecsSinceEpoch();
    auto mayRemoveOrphan = [&](const Docker::Labels &labels, qint64 created) {
        const QString owner = labels.value(ProvisionLabels::store());
        if (owner == storeUrl)
            return true;
        if (!owner.isEmpty())
            return false;
        return created > 0 && now - created > qint64(m_orphanGrace.count());
    };

    Provisioner provisioner(m_store, m_registry);
    provisioner.setActor(QStringLiteral("reconciler"));
    std::mutex reportMutex;
    auto change = [&](ReconcileChange c) {
        std::lock_guard lock(reportMutex);
        qCInfo(lcProvision) << "reconcile:" << c.action << c.host << c.object << c.detail;
        report.changes.append(std::move(c));
    };
    auto logEvent = [&](const QString &sessionId, const QString &action, const QString &detail) {
        logLifecycleEvent(m_store, m_actor.isEmpty() ? QStringLiteral("reconciler") : m_actor,
                          sessionId, QString(), action, detail);
    };

    // 2. Orphans: objects of sessions this store does not know.
    for (auto it = observed.cbegin(); it != observed.cend(); ++it) {
        const QString host = it.key();
        auto client = m_registry->client(host);
        if (!client || !it->reachable)
            continue;
        Docker::CallOptions call;
        call.timeout = 30s;
        QSet<QString> foreign;
        for (const Docker::ContainerSummary &c : it->containers) {
            const QString sid = c.labels.value(sessionLabel);
            if (sessionById.contains(sid))
                continue;
            if (!mayRemoveOrphan(c.labels, c.created)) {
                foreign.insert(sid);
                continue;
            }
            Docker::RemoveContainerOptions rm;
            rm.force = true;
            auto ok = (*client)->removeContainer(c.id, rm, call);
            if (ok || isGone(ok.error()))
                change({QStringLiteral("remove-container"), sid, host, c.names.value(0),
                        QStringLiteral("session unknown to the store")});
            else
                report.warnings.append(ok.error().toString());
        }
        for (const Docker::NetworkInfo &n : it->networks) {
            const QString sid = n.labels.value(sessionLabel);
            if (sessionById.contains(sid))
                continue;
            const QDateTime created = QDateTime::fromString(n.created, Qt::ISODateWithMs);
            if (!mayRemoveOrphan(n.labels, created.isValid() ? created.toSecsSinceEpoch() : 0)) {
                foreign.insert(sid);
                continue;
            }
            auto ok = (*client)->removeNetwork(n.id, call);
            if (ok || isGone(ok.error()))
                change({QStringLiteral("remove-network"), sid, host, n.name,
                        QStringLiteral("session unknown to the store")});
            else if (n.scope != QLatin1String("swarm"))
                report.warnings.append(ok.error().toString());
        }
        if (!foreign.isEmpty())
            report.warnings.append(
                QStringLiteral("host %1: left %2 session(s) of other stores (or too recent) alone")
                    .arg(host)
                    .arg(foreign.size()));
    }

    // 3. Every session of the store.
    for (const SessionRecord &listed : std::as_const(*sessions)) {
        // Skip quickly what has nothing to converge.
        bool hasObjects = false;
        for (const Observed &o : std::as_const(observed)) {
            for (const Docker::ContainerSummary &c : o.containers)
                hasObjects = hasObjects || c.labels.value(sessionLabel) == listed.id;
            for (const Docker::NetworkInfo &n : o.networks)
                hasObjects = hasObjects || n.labels.value(sessionLabel) == listed.id;
        }
        const bool settled = isFinal(listed.status) || listed.status == SessionStatus::Degraded;
        if (listed.desired == DesiredState::Terminated && settled && !hasObjects)
            continue;
        if (listed.desired == DesiredState::Running && listed.status == SessionStatus::Degraded)
            continue; // the failure policy said `ignore`: leave it as the admin sees it

        auto lock = m_store->lockSession(listed.id, 1s);
        if (!lock) {
            report.warnings.append(QStringLiteral("session %1 busy, skipped (%2)")
                                       .arg(listed.name, lock.error().message));
            continue;
        }
        auto fresh = m_store->session(listed.id);
        auto kernels = m_store->kernels(listed.id);
        if (!fresh || !kernels)
            continue;
        SessionRecord s = *fresh;
        const SessionSpec minimal = SessionController::specFromRecords(s, *kernels);
        QStringList sessionHosts = minimal.placement.hostsUsed;
        if (!s.networkHost.isEmpty() && !sessionHosts.contains(s.networkHost))
            sessionHosts.append(s.networkHost);
        bool allReachable = true;
        for (const QString &h : std::as_const(sessionHosts))
            allReachable = allReachable && observed.value(h).reachable;

        const bool shouldRun = s.desired == DesiredState::Running && !isFinal(s.status);
        if (!shouldRun) {
            // Terminated / failed sessions: nothing of them may remain.
            if (hasObjects) {
                auto removed = provisioner.removeSessionObjects(minimal);
                // Also objects on hosts the records do not name (a crash before they were set).
                for (auto it = observed.cbegin(); it != observed.cend(); ++it) {
                    auto client = m_registry->client(it.key());
                    if (!client || !it->reachable)
                        continue;
                    Docker::CallOptions call;
                    call.timeout = 30s;
                    for (const Docker::ContainerSummary &c : it->containers) {
                        if (c.labels.value(sessionLabel) != s.id)
                            continue;
                        Docker::RemoveContainerOptions rm;
                        rm.force = true;
                        (*client)->removeContainer(c.id, rm, call);
                    }
                    for (const Docker::NetworkInfo &n : it->networks) {
                        if (n.labels.value(sessionLabel) == s.id)
                            (*client)->removeNetwork(n.id, call);
                    }
                }
                change({QStringLiteral("remove-session-objects"), s.id, QString(), s.name,
                        removed ? QStringLiteral("desired state is terminated")
                                : removed.error().toString()});
            }
            if (s.desired == DesiredState::Terminated && !isFinal(s.status)) {
                for (const KernelRecord &k : std::as_const(*kernels)) {
                    if (!isFinal(k.status))
                        m_store->updateKernelStatus(s.id, k.id, KernelStatus::Terminated,
                                                    QStringLiteral("reconciled"));
                }
                s.status = SessionStatus::Terminated;
                s.updatedAt = QDateTime::currentDateTimeUtc();
                s.history.append({toString(s.status), s.updatedAt, QStringLiteral("reconciled")});
                m_store->updateSession(s);
                change({QStringLiteral("mark-status"), s.id, QString(), s.name,
                        QStringLiteral("TERMINATED")});
                logEvent(s.id, QStringLiteral("reconcile"), QStringLiteral("finished terminate"));
            }
            continue;
        }

        if (!allReachable) {
            report.warnings.append(
                QStringLiteral("session %1 not checked: one of its hosts is unreachable")
                    .arg(s.name));
            continue;
        }
        // Does every kernel run where it should, on the network?
        bool complete = true;
        bool networkPresent = false;
        for (const Docker::NetworkInfo &n : observed.value(s.networkHost).networks)
            networkPresent = networkPresent || (n.name == s.networkName);
        QSet<QString> expectedNames;
        for (const KernelRecord &k : std::as_const(*kernels)) {
            expectedNames.insert(k.host + QLatin1Char('/') + k.containerName);
            bool running = false;
            for (const Docker::ContainerSummary &c : observed.value(k.host).containers)
                running = running || (c.names.value(0) == k.containerName &&
                                      c.state == QLatin1String("running"));
            complete = complete && running && k.status == KernelStatus::Running;
        }
        complete = complete && networkPresent && s.status == SessionStatus::Running;
        // Containers of this session that are not its kernels (or on the wrong host) go.
        for (auto it = observed.cbegin(); it != observed.cend(); ++it) {
            auto client = m_registry->client(it.key());
            if (!client || !it->reachable)
                continue;
            for (const Docker::ContainerSummary &c : it->containers) {
                if (c.labels.value(sessionLabel) != s.id ||
                    expectedNames.contains(it.key() + QLatin1Char('/') + c.names.value(0)))
                    continue;
                Docker::RemoveContainerOptions rm;
                rm.force = true;
                Docker::CallOptions call;
                call.timeout = 30s;
                (*client)->removeContainer(c.id, rm, call);
                change({QStringLiteral("remove-container"), s.id, it.key(), c.names.value(0),
                        QStringLiteral("not a kernel of the session on this host")});
            }
        }
        if (complete)
            continue;

        auto spec = Provisioner::specOf(s);
        if (!spec) {
            report.warnings.append(spec.error().toString());
            continue;
        }
        if (!networkPresent) {
            // Containers attached to a network that is gone are of no use: start clean.
            provisioner.removeSessionObjects(*spec);
        }
        auto done = provisioner.provision(*spec);
        if (done) {
            change({QStringLiteral("complete-session"), s.id, QString(), s.name,
                    QStringLiteral("all %1 kernels running").arg(spec->plan.kernels.size())});
            logEvent(s.id, QStringLiteral("reconcile"), QStringLiteral("completed the session"));
        } else {
            change({QStringLiteral("rollback-session"), s.id, QString(), s.name,
                    done.error().toString()});
            logEvent(s.id, QStringLiteral("reconcile"),
                     QStringLiteral("could not complete: ") + done.error().toString());
        }
    }
    return report;
}

} // namespace ClusterDeck
