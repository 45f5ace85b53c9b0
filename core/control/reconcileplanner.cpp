#include "reconcileplanner.h"

#include "common/labels.h"
#include "sessionpolicies.h"

#include <QJsonArray>
#include <QRegularExpression>
#include <QSet>

#include <algorithm>

namespace ClusterDeck {

namespace {

using Kind = ReconcileAction::Kind;

// `knownSession`: the object's session is one the store knows (only then does a legacy URL label
// count as ours).
bool isOurs(const Docker::Labels &labels, const StoreIdentity &self, bool knownSession)
{
    return self.owns(labels.value(Labels::store()), knownSession);
}

// A container is ours by its labels and the name they give it (see isKernelContainerName).
bool isOurs(const Docker::ContainerSummary &c, const StoreIdentity &self, bool knownSession)
{
    return isOurs(c.labels, self, knownSession) &&
           Labels::isKernelContainerName(c.names.value(0), c.labels);
}

qint64 networkCreated(const Docker::NetworkInfo &n)
{
    const QDateTime at = QDateTime::fromString(n.created, Qt::ISODateWithMs);
    return at.isValid() ? at.toSecsSinceEpoch() : 0;
}

// The container of `kernel` on its host: the one the record names, else any carrying its label.
// Only this store's: another store's container with the same labels is never taken for ours
// (its state would hide our kernel's exit, and its id and logs would end up in our actions).
const Docker::ContainerSummary *containerOf(const HostListing &listing, const KernelRecord &kernel,
                                            const StoreIdentity &self)
{
    const Docker::ContainerSummary *labelled = nullptr;
    for (const Docker::ContainerSummary &c : listing.containers) {
        if (c.labels.value(Labels::kernel()) != kernel.id ||
            c.labels.value(Labels::session()) != kernel.sessionId ||
            !isOurs(c, self, true))
            continue;
        if (!kernel.containerId.isEmpty() && c.id == kernel.containerId)
            return &c;
        if (!labelled)
            labelled = &c;
    }
    return labelled;
}

QStringList sortedKeys(const QHash<QString, HostListing> &hosts)
{
    QStringList keys = hosts.keys();
    std::sort(keys.begin(), keys.end());
    return keys;
}

} // namespace

QString ReconcileAction::name(Kind kind)
{
    switch (kind) {
    case Kind::RemoveOrphanContainer:
        return QStringLiteral("remove-orphan-container");
    case Kind::RemoveOrphanNetwork:
        return QStringLiteral("remove-orphan-network");
    case Kind::RemoveStrayContainer:
        return QStringLiteral("remove-stray-container");
    case Kind::RemoveSessionObjects:
        return QStringLiteral("remove-session-objects");
    case Kind::MarkTerminated:
        return QStringLiteral("mark-terminated");
    case Kind::MarkTerminating:
        return QStringLiteral("mark-terminating");
    case Kind::MarkUnknown:
        return QStringLiteral("mark-unknown");
    case Kind::MarkRecovered:
        return QStringLiteral("mark-recovered");
    case Kind::KernelExited:
        return QStringLiteral("kernel-exited");
    case Kind::KernelVanished:
        return QStringLiteral("kernel-vanished");
    case Kind::CompleteSession:
        return QStringLiteral("complete-session");
    case Kind::FinishScale:
        return QStringLiteral("finish-scale");
    }
    return {};
}

QJsonObject ReconcileAction::toJson() const
{
    QJsonObject o{{QStringLiteral("action"), name(kind)},
                  {QStringLiteral("session"), sessionId},
                  {QStringLiteral("why"), why}};
    if (!kernelId.isEmpty())
        o.insert(QStringLiteral("kernel"), kernelId);
    if (!host.isEmpty())
        o.insert(QStringLiteral("host"), host);
    if (!objectId.isEmpty())
        o.insert(QStringLiteral("object_id"), objectId);
    if (!objectName.isEmpty())
        o.insert(QStringLiteral("object"), objectName);
    if (exitCode)
        o.insert(QStringLiteral("exit_code"), *exitCode);
    return o;
}

std::optional<int> exitCodeFromStatus(const QString &dockerStatus)
{
    static const QRegularExpression pattern(QStringLiteral(R"(^Exited \((-?\d+)\))"));
    const auto match = pattern.match(dockerStatus);
    if (!match.hasMatch())
        return std::nullopt;
    return match.captured(1).toInt();
}

ReconcilePlan planReconcile(const Observed &o, const StoreIdentity &self,
                            std::chrono::seconds grace)
{
    ReconcilePlan plan;
    QHash<QString, const SessionRecord *> sessionById;
    for (const SessionRecord &s : o.sessions)
        sessionById.insert(s.id, &s);
    const qint64 cutoff = o.listedAt.toSecsSinceEpoch() - qint64(grace.count());
    const QString sessionLabel = Labels::session();
    auto add = [&](ReconcileAction a) {
        plan.actions.append(std::move(a));
    };

    // 1. Every object of this store on every host that answers.
    for (const QString &host : sortedKeys(o.hosts)) {
        const HostListing &listing = o.hosts.value(host);
        if (!listing.reachable) {
            plan.notes.append(QStringLiteral("host %1 does not answer (%2): its objects and "
                                             "kernels wait until it does")
                                  .arg(host, listing.error));
            continue;
        }
        int foreign = 0;
        int misnamed = 0;
        int recent = 0;
        for (const Docker::ContainerSummary &c : listing.containers) {
            if (!isOurs(c.labels, self, sessionById.contains(c.labels.value(sessionLabel)))) {
                ++foreign;
                continue;
            }
            if (!Labels::isKernelContainerName(c.names.value(0), c.labels)) {
                ++misnamed;
                continue;
            }
            const QString sid = c.labels.value(sessionLabel);
            const QString name = c.names.value(0);
            const SessionRecord *s = sessionById.value(sid);
            if (!s) {
                if (c.created > 0 && c.created <= cutoff)
                    add({Kind::RemoveOrphanContainer, sid, QString(), host, c.id, name,
                         std::nullopt,
                         QStringLiteral("session %1 is unknown to the store").arg(sid)});
                else
                    ++recent;
                continue;
            }
            const QList<KernelRecord> kernels = o.kernels.value(sid);
            const QString kid = c.labels.value(Labels::kernel());
            const auto kernel = std::find_if(kernels.cbegin(), kernels.cend(),
                                             [&](const KernelRecord &k) { return k.id == kid; });
            // While a scale is unfinished its kernels come and go: finish-scale settles them.
            if (s->launch.scale)
                continue;
            if (kernel == kernels.cend()) {
                add({Kind::RemoveStrayContainer, sid, kid, host, c.id, name, std::nullopt,
                     QStringLiteral("not a kernel of session %1").arg(s->name)});
            } else if (kernel->host != host) {
                add({Kind::RemoveStrayContainer, sid, kid, host, c.id, name, std::nullopt,
                     QStringLiteral("%1 belongs on host %2").arg(kernel->hostname, kernel->host)});
            } else if (!kernel->containerId.isEmpty() && c.id != kernel->containerId &&
                       containerOf(listing, *kernel, self)->id == kernel->containerId) {
                add({Kind::RemoveStrayContainer, sid, kid, host, c.id, name, std::nullopt,
                     QStringLiteral("an older container of %1").arg(kernel->hostname)});
            }
        }
        for (const Docker::NetworkInfo &n : listing.networks) {
            if (!isOurs(n.labels, self, sessionById.contains(n.labels.value(sessionLabel)))) {
                ++foreign;
                continue;
            }
            const QString sid = n.labels.value(sessionLabel);
            if (sessionById.contains(sid))
                continue;
            const qint64 created = networkCreated(n);
            if (created > 0 && created <= cutoff)
                add({Kind::RemoveOrphanNetwork, sid, QString(), host, n.id, n.name, std::nullopt,
                     QStringLiteral("session %1 is unknown to the store").arg(sid)});
            else
                ++recent;
        }
        if (foreign > 0)
            plan.notes.append(QStringLiteral("host %1: %2 object(s) of other stores or without a "
                                             "store label left alone")
                                  .arg(host)
                                  .arg(foreign));
        if (misnamed > 0)
            plan.notes.append(
                QStringLiteral("host %1: %2 container(s) with this store's labels but "
                               "not a kernel's name (run from an image committed "
                               "from a kernel?) left alone")
                    .arg(host)
                    .arg(misnamed));
        if (recent > 0)
            plan.notes.append(QStringLiteral("host %1: %2 object(s) of unknown sessions younger "
                                             "than the %3 s grace period left for now")
                                  .arg(host)
                                  .arg(recent)
                                  .arg(grace.count()));
    }

    // 2. Every session against what its hosts hold.
    for (const SessionRecord &s : o.sessions) {
        const QList<KernelRecord> kernels = o.kernels.value(s.id);
        QSet<QString> sessionHosts;
        for (const KernelRecord &k : kernels) {
            if (!k.host.isEmpty())
                sessionHosts.insert(k.host);
        }
        if (!s.networkHost.isEmpty())
            sessionHosts.insert(s.networkHost);
        QStringList down;
        bool anyObjects = false;
        for (auto it = o.hosts.cbegin(); it != o.hosts.cend(); ++it) {
            if (!it->reachable)
                continue;
            for (const Docker::ContainerSummary &c : it->containers)
                anyObjects =
                    anyObjects || (c.labels.value(sessionLabel) == s.id && isOurs(c, self, true));
            for (const Docker::NetworkInfo &n : it->networks)
                anyObjects = anyObjects ||
                             (n.labels.value(sessionLabel) == s.id && isOurs(n.labels, self, true));
        }
        for (const QString &h : std::as_const(sessionHosts)) {
            // A host that is not registered any more cannot be asked either.
            if (!o.hosts.value(h).reachable)
                down.append(h);
        }
        std::sort(down.begin(), down.end());

        if (s.desired == DesiredState::Terminated) {
            if (anyObjects) {
                add({Kind::RemoveSessionObjects, s.id, QString(), QString(), QString(), s.name,
                     std::nullopt, QStringLiteral("the session's desired state is terminated")});
            } else if (!down.isEmpty()) {
                if (!isFinal(s.status) && s.status != SessionStatus::Terminating)
                    add({Kind::MarkTerminating, s.id, QString(), QString(), QString(), s.name,
                         std::nullopt,
                         QStringLiteral("host(s) %1 do not answer; the session stays "
                                        "TERMINATING until they do")
                             .arg(down.join(QStringLiteral(", ")))});
                else
                    plan.notes.append(QStringLiteral("session %1: host(s) %2 do not answer; "
                                                     "what they hold is removed when they do")
                                          .arg(s.name, down.join(QStringLiteral(", "))));
            } else if (!isFinal(s.status) ||
                       std::any_of(kernels.cbegin(), kernels.cend(),
                                   [](const KernelRecord &k) { return !isFinal(k.status); })) {
                // Also a failed launch (ERROR) whose kernels on a host that had stopped
                // answering waited, TERMINATING, for it to answer again.
                add({Kind::MarkTerminated, s.id, QString(), QString(), QString(), s.name,
                     std::nullopt, QStringLiteral("nothing of the session is left on any host")});
            }
            continue;
        }
        if (s.status == SessionStatus::Completed) {
            const SessionPolicies policies = SessionPolicies::of(s);
            if (policies.ttlAfterFinishedSeconds && s.finishedAt.isValid() && anyObjects &&
                s.finishedAt.addSecs(*policies.ttlAfterFinishedSeconds) <= o.now)
                add({Kind::RemoveSessionObjects, s.id, QString(), QString(), QString(), s.name,
                     std::nullopt,
                     QStringLiteral("finished %1 s ago (ttlAfterFinished %2 s)")
                         .arg(s.finishedAt.secsTo(o.now))
                         .arg(*policies.ttlAfterFinishedSeconds)});
            continue;
        }
        if (isFinal(s.status))
            continue;
        if (s.launch.scale) {
            // Kernels added or removed by an unfinished scale are neither failures nor orphans.
            add({Kind::FinishScale, s.id, QString(), QString(), QString(), s.name, std::nullopt,
                 QStringLiteral("a scale (%1) was interrupted: undo it or finish it")
                     .arg(s.launch.scale->counts)});
            continue;
        }
        if (s.status == SessionStatus::Pending || s.status == SessionStatus::Provisioning ||
            s.status == SessionStatus::Restarting) {
            add({Kind::CompleteSession, s.id, QString(), QString(), QString(), s.name, std::nullopt,
                 QStringLiteral("%1 was interrupted: finish it or roll it back")
                     .arg(s.status == SessionStatus::Restarting ? QStringLiteral("a restart")
                                                                : QStringLiteral("a launch"))});
            continue;
        }
        if (s.status != SessionStatus::Running && s.status != SessionStatus::Degraded)
            continue;
        for (const KernelRecord &k : kernels) {
            if (isFinal(k.status))
                continue;
            const HostListing listing = o.hosts.value(k.host);
            if (!listing.reachable) {
                if (k.status != KernelStatus::Unknown)
                    add({Kind::MarkUnknown, s.id, k.id, k.host, QString(), k.hostname, std::nullopt,
                         QStringLiteral("host %1 does not answer: %2")
                             .arg(k.host, listing.error.isEmpty() ? QStringLiteral("not registered")
                                                                  : listing.error)});
                continue;
            }
            if (k.status != KernelStatus::Running && k.status != KernelStatus::Unknown)
                continue;
            const Docker::ContainerSummary *c = containerOf(listing, k, self);
            if (!c) {
                add({Kind::KernelVanished, s.id, k.id, k.host, k.containerId, k.hostname,
                     std::nullopt,
                     QStringLiteral("%1's container is gone from host %2")
                         .arg(k.hostname, k.host)});
            } else if (c->state == ContainerStatus::Running) {
                if (k.status == KernelStatus::Unknown)
                    add({Kind::MarkRecovered, s.id, k.id, k.host, c->id, k.hostname, std::nullopt,
                         QStringLiteral("host %1 answers again and %2 runs")
                             .arg(k.host, k.hostname)});
            } else if (c->state == ContainerStatus::Exited || c->state == ContainerStatus::Dead ||
                       c->state == ContainerStatus::Created) {
                const auto code = exitCodeFromStatus(c->status);
                add({Kind::KernelExited, s.id, k.id, k.host, c->id, k.hostname, code,
                     QStringLiteral("%1 is %2 (%3)")
                         .arg(k.hostname, containerStatusName(c->state), c->status)});
            }
        }
    }
    return plan;
}

} // namespace ClusterDeck
