#pragma once

#include "common/error.h"
#include "docker/dockerhost.h"
#include "helpercontainer.h"
#include "store/storeidentity.h"
#include "vxlansegment.h"

#include <QByteArray>
#include <QList>
#include <QString>
#include <QStringList>

#include <functional>
#include <memory>
#include <optional>

namespace ClusterDeck {

class NetHelperImage;

// The host side of a VXLAN session network (issue 26): in one Docker host's network namespace,
// the VXLAN device of the session's VNI, attached to the bridge of its Docker network
// (VxlanSegment::networkSpec, made first) with one forwarding entry per peer host (head-end
// replication, no learning). Done by a short-lived helper container (HelperContainer) through
// the Engine API alone. Every step converges when run again (after a kill -9 too), is bounded by
// its CallOptions (the whole step, import included) and names the host in its errors.
//
// The device is marked as this store's and session's by its alias (IFLA_IFALIAS), since a
// kernel device has no labels: teardown deletes only a device so marked.
//
// One step per session and host at a time (the session lock; listDevices: one per store and
// host): the helper's name is deterministic so that a killed run's helper is found, and a run
// removes the helper of that name it finds. Helpers are not kernels (no kernel label, not a
// kernel's name): the reconciler and SessionTeardown leave them alone. Thread-safe (const).
class VxlanHostSetup
{
public:
    struct Request
    {
        VxlanSegment segment;
        // This host's IPv4 address as its peers reach it (its registered address): the VXLAN
        // packets' source, and the interface that holds it their underlay. Empty: the source
        // address of the route to the first peer.
        QString localAddress;
        QStringList peers; // the other hosts' IPv4 addresses: exactly these entries remain

        friend bool operator==(const Request &, const Request &) = default;
    };
    // A VXLAN device as the host reports it.
    struct DeviceState
    {
        QString name;
        int ifindex = 0; // the same index after a second apply: the device was kept
        quint32 vni = 0;
        QString local;
        QString underlay; // the device the packets leave by ("eth0")
        int port = 0;
        int mtu = 0;
        bool learning = true;
        bool up = false;
        QString master;    // the bridge it is attached to; empty: none
        QString owner;     // its alias: ownerAlias() of the store and session that made it
        QStringList peers; // destinations of its all-zero forwarding entries, sorted
    };
    enum class Removal { Removed, Absent, NotOurs };

    VxlanHostSetup(StoreIdentity self, std::shared_ptr<const NetHelperImage> image);

    // Creates (or corrects) the device and sets its forwarding entries to exactly
    // request.peers; returns the device as it then is. The session's devices of other VNIs
    // (an earlier claim's) are deleted. Conflict: the VNI or the device name is
    // taken by something else on this host (claim another VNI); NotFound: the bridge is missing
    // (create the Docker network first).
    // `hooks`: see HelperContainer::Hooks.
    Result<DeviceState> apply(const Docker::DockerHost &host, const Request &request,
                              const Docker::CallOptions &options = {},
                              const HelperContainer::Hooks &hooks = {}) const;
    // Deletes every device this store made for the segment's session (found by their alias,
    // whatever their VNI); another's is left. NotOurs: the segment's device name is another's.
    Result<Removal> teardown(const Docker::DockerHost &host, const VxlanSegment &segment,
                             const Docker::CallOptions &options = {}) const;
    // The segment's device, nullopt when the host has none (after a reboot: apply again).
    Result<std::optional<DeviceState>> inspect(const Docker::DockerHost &host,
                                               const VxlanSegment &segment,
                                               const Docker::CallOptions &options = {}) const;
    // Every VXLAN device of the host, whoever made it (ownerOf tells this store's from others').
    Result<QList<DeviceState>> listDevices(const Docker::DockerHost &host,
                                           const Docker::CallOptions &options = {}) const;
    // What a repair must correct on a host, from inspect()'s answer: "missing" when the device
    // is gone (a reboot), else differences(); empty when nothing needs doing.
    QStringList needsRepair(const std::optional<DeviceState> &device, const Request &request) const;
    // Removes this store's helper containers that killed runs left (see HelperContainer).
    Result<int> removeLeftoverHelpers(const Docker::DockerHost &host,
                                      const Docker::CallOptions &options = {}) const;

    // What the device on `host`, one of the session's `hosts`, is asked to be: the segment,
    // addressOf(host), and addressOf each other host (in `hosts` order) as its peers.
    static Request requestFor(const VxlanSegment &segment, const QStringList &hosts,
                              const QString &host,
                              const std::function<QString(const QString &)> &addressOf);

    // Pure parts, for the driver and the tests.
    static QString ownerAlias(const QString &storeId, const QString &sessionId);
    // The store id and session id an alias names; nullopt for anything else.
    static std::optional<std::pair<QString, QString>> ownerOf(const QString &alias);
    static Result<void> validate(const Request &request);
    static Result<QString> applyScript(const Request &request, const QString &owner);
    static QString teardownScript(const VxlanSegment &segment, const QString &owner);
    static QString inspectScript(const QString &device); // empty: every VXLAN device
    static Result<QList<DeviceState>> parseInspect(const QByteArray &output);
    // What still differs between a device and the request ("peers 10.0.0.3 missing"); empty
    // when the device is as asked.
    static QStringList differences(const DeviceState &device, const Request &request,
                                   const QString &owner);
    HelperContainer::Run helperRun(const QString &sessionId, const QString &script) const;

private:
    Result<HelperContainer::Outcome> runScript(const Docker::DockerHost &host,
                                               const QString &sessionId, const QString &script,
                                               const Docker::CallOptions &options,
                                               const HelperContainer::Hooks &hooks = {}) const;

    StoreIdentity m_self;
    std::shared_ptr<const NetHelperImage> m_image;
};

} // namespace ClusterDeck
