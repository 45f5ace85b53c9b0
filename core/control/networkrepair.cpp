#include "networkrepair.h"

#include "common/concurrent.h"
#include "common/logging.h"
#include "host/hostregistry.h"
#include "network/nethelperimage.h"
#include "network/vxlanhostsetup.h"
#include "network/vxlannetwork.h"
#include "provision/containerspecbuilder.h"
#include "provision/eventlog.h"
#include "provision/sessionspec.h"
#include "store/statestore.h"

#include <chrono>
#include <mutex>

namespace ClusterDeck {

using namespace std::chrono_literals;

namespace {

struct VxlanSession
{
    SessionRecord record;
    SessionSpec spec;
};

} // namespace

NetworkRepair::NetworkRepair(StateStore *store, HostRegistry *registry)
    : m_store(store)
    , m_registry(registry)
{}

QStringList NetworkRepair::run(const QStringList &hosts, const Observed &observed,
                               const QList<HostRecord> &records, ReconcileReport &report) const
{
    // This store's running VXLAN sessions, and the hosts they are on.
    QList<VxlanSession> sessions;
    QSet<QString> knownSessions;
    QSet<QString> vxlanHosts;
    for (const SessionRecord &s : observed.sessions) {
        knownSessions.insert(s.id);
        if (s.desired != DesiredState::Running || s.mode != ClusterMode::MultiNode)
            continue;
        auto spec = SessionSpec::fromJson(s.launch.spec, s.id);
        if (!spec || spec->placement.driver != NetworkDriver::Vxlan)
            continue;
        sessions.append({s, *spec});
        for (const QString &h : std::as_const(spec->placement.hostsUsed))
            vxlanHosts.insert(h);
    }
    QStringList toCheck;
    for (const QString &h : hosts) {
        if (vxlanHosts.contains(h))
            toCheck.append(h);
    }
    if (toCheck.isEmpty())
        return hosts; // nothing of this store's on them to look at
    auto image = NetHelperImage::local();
    if (!image) {
        report.warnings.append(image.error().toString());
        return {};
    }
    const StoreIdentity self = m_store->identity();
    const VxlanHostSetup setup(self, *image);
    QHash<QString, HostRecord> recordOf;
    for (const HostRecord &r : records)
        recordOf.insert(r.name, r);

    // One listing per host.
    std::mutex mutex;
    QHash<QString, QList<VxlanHostSetup::DeviceState>> devices;
    QStringList checked;
    Docker::CallOptions call;
    call.timeout = 30s;
    Concurrent::forEach(int(toCheck.size()), [&](int i) {
        const QString &h = toCheck.at(i);
        auto client = m_registry->dockerHost(h);
        auto listed = client ? setup.listDevices(**client, call)
                             : Result<QList<VxlanHostSetup::DeviceState>>(fail(client.error()));
        std::lock_guard lock(mutex);
        if (!listed) {
            report.warnings.append(
                listed.error()
                    .withContext(QStringLiteral("checking the VXLAN devices of host %1").arg(h))
                    .toString());
            return;
        }
        devices.insert(h, *listed);
        checked.append(h);
    });

    // Sessions whose device is missing or wrong on a checked host: set up again.
    for (const VxlanSession &s : std::as_const(sessions)) {
        QStringList broken;
        const VxlanNetwork network(m_store);
        const SessionNetwork::Scope scope{s.record.id, s.spec.plan.networkName, s.spec.plan.mtu,
                                          self, call};
        auto segment = network.segment(scope);
        if (!segment)
            continue; // no claim: nothing was made yet (a launch under way makes it)
        for (const QString &h : std::as_const(s.spec.placement.hostsUsed)) {
            if (!devices.contains(h))
                continue;
            std::optional<VxlanHostSetup::DeviceState> device;
            for (const auto &d : devices.value(h)) {
                if (d.vni == segment->vni &&
                    VxlanHostSetup::ownerOf(d.owner) ==
                        std::make_optional(std::make_pair(self.id, s.record.id)))
                    device = d;
            }
            const VxlanHostSetup::Request request = VxlanHostSetup::requestFor(
                *segment, s.spec.placement.hostsUsed, h, [&](const QString &host) {
                    return ContainerSpecBuilder::publicAddressOf(recordOf.value(host));
                });
            if (const QStringList wrong = setup.needsRepair(device, request); !wrong.isEmpty())
                broken.append(QStringLiteral("%1 (%2)").arg(h, wrong.join(QStringLiteral(", "))));
        }
        if (broken.isEmpty())
            continue;
        auto lock = m_store->lockSession(s.record.id, 0ms);
        if (!lock) {
            report.notes.append(QStringLiteral("network of session %1 needs repair on %2; the "
                                               "session is busy: its holder sets it up")
                                    .arg(s.record.id.left(8), broken.join(QStringLiteral("; "))));
            continue;
        }
        SessionNetwork::Sites sites;
        for (const QString &h : std::as_const(s.spec.placement.hostsUsed)) {
            if (auto client = m_registry->dockerHost(h))
                sites.insert(h,
                             {*client, ContainerSpecBuilder::publicAddressOf(recordOf.value(h))});
        }
        const QString what = QStringLiteral("network %1 of session %2 on %3")
                                 .arg(s.spec.plan.networkName, s.record.id.left(8),
                                      broken.join(QStringLiteral("; ")));
        if (auto ok = network.setUp(scope, s.spec.placement, sites); !ok) {
            report.warnings.append(
                ok.error().withContext(QStringLiteral("repairing %1").arg(what)).toString());
            continue;
        }
        report.notes.append(QStringLiteral("repaired %1").arg(what));
        logLifecycleEvent(m_store, QStringLiteral("controller"), s.record.id, QString(),
                          QStringLiteral("network-repair"), QStringLiteral("repaired ") + what);
    }

    // Devices of this store whose session the store no longer knows: removed. (A known session
    // that is being torn down removes its own.)
    for (const QString &h : std::as_const(checked)) {
        auto client = m_registry->dockerHost(h);
        if (!client)
            continue;
        for (const auto &d : devices.value(h)) {
            const auto owner = VxlanHostSetup::ownerOf(d.owner);
            if (!owner || owner->first != self.id || knownSessions.contains(owner->second))
                continue;
            auto removed = VxlanNetwork::removeDevice(setup, **client, owner->second, d.vni, call);
            if (!removed)
                report.warnings.append(removed.error().toString());
            else
                report.notes.append(QStringLiteral("removed VXLAN device %1 of gone session %2 "
                                                   "from host %3")
                                        .arg(d.name, owner->second.left(8), h));
        }
    }
    for (const QString &h : hosts) {
        if (!toCheck.contains(h))
            checked.append(h);
    }
    return checked;
}

} // namespace ClusterDeck
