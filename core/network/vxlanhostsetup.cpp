#include "vxlanhostsetup.h"

#include "common/ipv4cidr.h"
#include "common/labels.h"
#include "nethelperimage.h"
#include "networklogging.h"

#include <QDateTime>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>

#include <algorithm>
#include <chrono>

namespace ClusterDeck {

using namespace std::chrono_literals;

namespace {

// Exit codes of the scripts, beyond 0 (done): what the driver can act on.
constexpr int kExitConflict = 4; // the VNI or the device name is someone else's
constexpr int kExitNoBridge = 5; // the Docker network's bridge is missing

const QString kHelperKind = QStringLiteral("vxlan");

QString shellWords(const QStringList &words)
{
    return QLatin1Char('\'') + words.join(QLatin1Char(' ')) + QLatin1Char('\'');
}

// Prints the device(s) as JSON after markers: "@links", ip's array of devices, then "@fdb <name>"
// and the device's forwarding entries (bridge -j leaves the device's name out of them).
QString inspectPart(const QString &device)
{
    if (device.isEmpty())
        return QStringLiteral(
            "echo @links\n"
            "ip -j -d link show type vxlan 2>/dev/null || echo '[]'\n"
            "ip -o link show type vxlan 2>/dev/null | while read -r _ name _; do\n"
            "    name=${name%:}; name=${name%@*}\n"
            "    echo \"@fdb $name\"; bridge -j fdb show dev \"$name\" 2>/dev/null\n"
            "done\n");
    return QStringLiteral("echo @links\n"
                          "ip -j -d link show dev %1 2>/dev/null || echo '[]'\n"
                          "echo '@fdb %1'\n"
                          "bridge -j fdb show dev %1 2>/dev/null || echo '[]'\n")
        .arg(device);
}

QString setupWhere(const Docker::DockerHost &host, const QString &device)
{
    return QStringLiteral("%1, VXLAN device %2").arg(host.displayName(), device);
}

std::unexpected<Error> scriptFailed(const Docker::DockerHost &host, const QString &device,
                                    const QString &step, const HelperContainer::Outcome &o)
{
    const Error::Kind kind = o.exitCode == kExitConflict   ? Error::Kind::Conflict
                             : o.exitCode == kExitNoBridge ? Error::Kind::NotFound
                                                           : Error::Kind::Io;
    QString said = QString::fromUtf8(o.err).trimmed();
    if (said.isEmpty())
        said = QString::fromUtf8(o.out).trimmed().right(500);
    return fail(
        kind, setupWhere(host, device),
        QStringLiteral("%1 failed (helper exit code %2): %3").arg(step).arg(o.exitCode).arg(said));
}

} // namespace

VxlanHostSetup::VxlanHostSetup(StoreIdentity self, std::shared_ptr<const NetHelperImage> image)
    : m_self(std::move(self))
    , m_image(std::move(image))
{}

QString VxlanHostSetup::ownerAlias(const QString &storeId, const QString &sessionId)
{
    return QStringLiteral("%1=%2 %3=%4")
        .arg(Labels::store(), storeId, Labels::session(), sessionId);
}

std::optional<std::pair<QString, QString>> VxlanHostSetup::ownerOf(const QString &alias)
{
    static const QRegularExpression pattern(
        QStringLiteral("^io\\.clusterdeck\\.store=(\\S+) io\\.clusterdeck\\.session=(\\S+)$"));
    const auto m = pattern.match(alias);
    if (!m.hasMatch())
        return std::nullopt;
    return std::pair{m.captured(1), m.captured(2)};
}

VxlanHostSetup::Request
VxlanHostSetup::requestFor(const VxlanSegment &segment, const QStringList &hosts,
                           const QString &host,
                           const std::function<QString(const QString &)> &addressOf)
{
    Request request;
    request.segment = segment;
    request.localAddress = addressOf(host);
    for (const QString &peer : hosts) {
        if (peer != host)
            request.peers.append(addressOf(peer));
    }
    return request;
}

Result<void> VxlanHostSetup::validate(const Request &request)
{
    if (auto ok = request.segment.validate(); !ok)
        return ok;
    const QString where = QStringLiteral("VXLAN device %1").arg(request.segment.deviceName());
    if (!request.localAddress.isEmpty() && !Ipv4Cidr::parseAddress(request.localAddress))
        return fail(Error::Kind::Invalid, where,
                    QStringLiteral("the host's address \"%1\" is not an IPv4 address")
                        .arg(request.localAddress));
    for (const QString &peer : request.peers) {
        if (!Ipv4Cidr::parseAddress(peer))
            return fail(Error::Kind::Invalid, where,
                        QStringLiteral("peer address \"%1\" is not an IPv4 address").arg(peer));
        if (peer == request.localAddress)
            return fail(Error::Kind::Invalid, where,
                        QStringLiteral("peer %1 is this host's own address").arg(peer));
    }
    if (request.localAddress.isEmpty() && request.peers.isEmpty())
        return fail(Error::Kind::Invalid, where,
                    QStringLiteral("neither the host's address nor a peer is known: the "
                                   "underlay device cannot be found"));
    return {};
}

Result<QString> VxlanHostSetup::applyScript(const Request &request, const QString &owner)
{
    if (auto ok = validate(request); !ok)
        return fail(ok.error());
    const VxlanSegment &s = request.segment;
    QStringList peers = request.peers;
    peers.removeDuplicates();
    QString script = QStringLiteral("dev=%1 br=%2 vni=%3 port=%4 mtu=%5\n"
                                    "local=%6\n"
                                    "peers=%7\n"
                                    "owner='%8'\n")
                         .arg(s.deviceName(), s.bridgeName())
                         .arg(s.vni)
                         .arg(s.port)
                         .arg(s.mtu)
                         .arg(request.localAddress, shellWords(peers), owner);
    script += QStringLiteral(
        "zero=00:00:00:00:00:00\n"
        "die() { code=$1; shift; echo \"$*\" >&2; exit \"$code\"; }\n"
        // The underlay: the interface holding the host's address, or the route to a peer.
        "under=\n"
        "if [ -n \"$local\" ]; then\n"
        "    set -- $(ip -o -4 addr show to \"$local\")\n"
        "    under=${2:-}\n"
        "else\n"
        "    set -- $(ip -o -4 route get \"${peers%% *}\")\n"
        "    while [ $# -gt 1 ]; do\n"
        "        case $1 in dev) under=$2 ;; src) local=$2 ;; esac\n"
        "        shift\n"
        "    done\n"
        "fi\n"
        "[ -n \"$under\" ] && [ -n \"$local\" ] ||"
        " die 3 \"no interface of this host has the address ${local:-of the route to $peers}\"\n"
        "ip link show dev \"$br\" >/dev/null 2>&1 ||"
        " die 5 \"bridge $br does not exist on this host (its Docker network is missing)\"\n"
        // This session's devices of earlier claims (a VNI that collided, a killed run): gone.
        "ip -o link show type vxlan 2>/dev/null | while read -r _ name rest; do\n"
        "    name=${name%:}; name=${name%@*}\n"
        "    [ \"$name\" = \"$dev\" ] && continue\n"
        "    case \"$rest\" in *\" alias $owner\"*) ip link del dev \"$name\" ;; esac\n"
        "done\n"
        "line=$(ip -d -o link show dev \"$dev\" 2>/dev/null)\n"
        "has() { case \"$line \" in *\" $1 \"*) return 0 ;; esac; return 1; }\n"
        "if [ -n \"$line\" ]; then\n"
        // Ours by its alias, or unmarked on this session's bridge: a run killed between
        // creating and marking it (a device is born attached, so a run at the same time of
        // another store or session never finds it unattached). One neither marked nor attached
        // is an older release's leftover (the name is ClusterDeck's), adopted below.
        "    case \"$line\" in\n"
        "    *\" alias $owner\"*) ;;\n"
        "    *\" alias \"*) die 4 \"device $dev exists and is another session's or tool's\" ;;\n"
        "    *\" master $br \"*) ;;\n"
        "    *\" master \"*) die 4 \"device $dev exists, unmarked and attached elsewhere\" ;;\n"
        "    esac\n"
        "    if ! { has \"vxlan id $vni\" && has \"local $local\" && has \"dev $under\" &&\n"
        "        has \"dstport $port\" && has nolearning; }; then\n"
        "        ip link del dev \"$dev\" || die 3 \"cannot delete the outdated device $dev\"\n"
        "        line=\n"
        "    fi\n"
        "fi\n"
        "if [ -z \"$line\" ]; then\n"
        // Attached to the bridge as it is made (the kernel takes the master in the same
        // request; an alias it would not): no moment in which it looks abandoned.
        "    err=$(ip link add \"$dev\" mtu \"$mtu\" master \"$br\" type vxlan id \"$vni\""
        " dstport \"$port\" local \"$local\" dev \"$under\" nolearning 2>&1) || {\n"
        "        case \"$err\" in *\"exists\"*) die 4 \"$err\" ;; esac\n"
        "        die 3 \"$err\"\n"
        "    }\n"
        "fi\n"
        "ip link set dev \"$dev\" alias \"$owner\" || die 3 \"cannot mark $dev as this "
        "session's\"\n"
        "ip link set dev \"$dev\" mtu \"$mtu\" master \"$br\" up ||"
        " die 3 \"cannot attach $dev to $br\"\n"
        // Exactly the peers' entries: others removed, missing ones appended.
        "have=$(bridge fdb show dev \"$dev\" | while read -r mac kw dst _; do\n"
        "    [ \"$mac $kw\" = \"$zero dst\" ] && echo \"$dst\"; done)\n"
        "have=$(echo $have)\n"
        "for d in $have; do\n"
        "    case \" $peers \" in *\" $d \"*) ;; *) bridge fdb del \"$zero\" dev \"$dev\" dst "
        "\"$d\""
        " || die 3 \"cannot remove the entry of $d\" ;; esac\n"
        "done\n"
        "for p in $peers; do\n"
        "    case \" $have \" in *\" $p \"*) ;; *) bridge fdb append \"$zero\" dev \"$dev\" dst"
        " \"$p\" || die 3 \"cannot add the entry of $p\" ;; esac\n"
        "done\n");
    script += inspectPart(s.deviceName());
    return script;
}

QString VxlanHostSetup::teardownScript(const VxlanSegment &segment, const QString &owner)
{
    // Every device this store made for the session, whatever its VNI (a claim renumbered after a
    // collision leaves the first VNI in the network's label): found by its alias.
    return QStringLiteral(
               "dev=%1\n"
               "owner='%2'\n"
               "ours=$(ip -o link show type vxlan 2>/dev/null | while read -r _ name rest; do\n"
               "    case \"$rest\" in *\" alias $owner\"*) name=${name%:}; echo \"${name%@*}\" ;;"
               " esac\n"
               "done)\n"
               "for d in $ours; do ip link del dev \"$d\" || exit 3; done\n"
               "[ -n \"$ours\" ] && { echo removed; exit 0; }\n"
               "ip link show dev \"$dev\" >/dev/null 2>&1 && { echo not-ours; exit 0; }\n"
               "echo absent\n")
        .arg(segment.deviceName(), owner);
}

QString VxlanHostSetup::inspectScript(const QString &device)
{
    return inspectPart(device);
}

Result<QList<VxlanHostSetup::DeviceState>> VxlanHostSetup::parseInspect(const QByteArray &output)
{
    const QString where = QStringLiteral("VXLAN inspection");
    QList<QByteArray> links;
    QList<QPair<QString, QByteArray>> fdbs; // device name, one JSON array
    enum class Section { None, Links, Fdb } section = Section::None;
    QString fdbDevice;
    for (const QByteArray &raw : output.split('\n')) {
        const QByteArray line = raw.trimmed();
        if (line == "@links") {
            section = Section::Links;
        } else if (line.startsWith("@fdb ")) {
            section = Section::Fdb;
            fdbDevice = QString::fromUtf8(line.mid(5)).trimmed();
        } else if (!line.isEmpty() && section == Section::Links) {
            links.append(line);
        } else if (!line.isEmpty() && section == Section::Fdb) {
            fdbs.append({fdbDevice, line});
        }
    }
    if (links.isEmpty())
        return fail(Error::Kind::Decode, where,
                    QStringLiteral("no device list in the helper's output: \"%1\"")
                        .arg(QString::fromUtf8(output.left(300))));
    auto parseArray = [&](const QByteArray &json) -> Result<QJsonArray> {
        QJsonParseError error;
        const QJsonDocument doc = QJsonDocument::fromJson(json, &error);
        if (error.error != QJsonParseError::NoError || !doc.isArray())
            return fail(Error::Kind::Decode, where,
                        QStringLiteral("cannot decode \"%1\": %2")
                            .arg(QString::fromUtf8(json.left(200)), error.errorString()));
        return doc.array();
    };
    QList<DeviceState> devices;
    for (const QByteArray &json : std::as_const(links)) {
        auto array = parseArray(json);
        if (!array)
            return fail(array.error());
        for (const QJsonValue &v : std::as_const(*array)) {
            const QJsonObject o = v.toObject();
            const QJsonObject info = o.value(QLatin1String("linkinfo")).toObject();
            if (info.value(QLatin1String("info_kind")).toString() != QLatin1String("vxlan"))
                continue;
            const QJsonObject data = info.value(QLatin1String("info_data")).toObject();
            DeviceState d;
            d.name = o.value(QLatin1String("ifname")).toString();
            d.ifindex = int(o.value(QLatin1String("ifindex")).toInteger());
            d.vni = quint32(data.value(QLatin1String("id")).toInteger());
            d.local = data.value(QLatin1String("local")).toString();
            d.underlay = data.value(QLatin1String("link")).toString();
            d.port = int(data.value(QLatin1String("port")).toInteger());
            d.learning = data.value(QLatin1String("learning")).toBool(true);
            d.mtu = int(o.value(QLatin1String("mtu")).toInteger());
            d.up = o.value(QLatin1String("flags")).toArray().contains(QLatin1String("UP"));
            d.master = o.value(QLatin1String("master")).toString();
            d.owner = o.value(QLatin1String("ifalias")).toString();
            devices.append(d);
        }
    }
    for (const auto &[device, json] : std::as_const(fdbs)) {
        auto array = parseArray(json);
        if (!array)
            return fail(array.error());
        for (const QJsonValue &v : std::as_const(*array)) {
            const QJsonObject o = v.toObject();
            const QString dst = o.value(QLatin1String("dst")).toString();
            if (o.value(QLatin1String("mac")).toString() != QLatin1String("00:00:00:00:00:00") ||
                dst.isEmpty())
                continue;
            for (DeviceState &d : devices) {
                if (d.name == device && !d.peers.contains(dst))
                    d.peers.append(dst);
            }
        }
    }
    for (DeviceState &d : devices)
        d.peers.sort();
    return devices;
}

QStringList VxlanHostSetup::differences(const DeviceState &device, const Request &request,
                                        const QString &owner)
{
    const VxlanSegment &s = request.segment;
    QStringList out;
    auto differ = [&](const QString &what, const QString &is, const QString &want) {
        if (is != want)
            out.append(QStringLiteral("%1 %2 (wanted %3)")
                           .arg(what, is.isEmpty() ? QStringLiteral("none") : is, want));
    };
    differ(QStringLiteral("VXLAN id"), QString::number(device.vni), QString::number(s.vni));
    differ(QStringLiteral("UDP port"), QString::number(device.port), QString::number(s.port));
    if (!request.localAddress.isEmpty())
        differ(QStringLiteral("local address"), device.local, request.localAddress);
    differ(QStringLiteral("bridge"), device.master, s.bridgeName());
    differ(QStringLiteral("MTU"), QString::number(device.mtu), QString::number(s.mtu));
    differ(QStringLiteral("owner"), device.owner, owner);
    if (!device.up)
        out.append(QStringLiteral("down"));
    if (device.learning)
        out.append(QStringLiteral("learning on"));
    QStringList wanted = request.peers;
    wanted.removeDuplicates();
    wanted.sort();
    differ(QStringLiteral("peers"), device.peers.join(u','), wanted.join(u','));
    return out;
}

HelperContainer::Run VxlanHostSetup::helperRun(const QString &sessionId,
                                               const QString &script) const
{
    HelperContainer::Run run;
    run.image = m_image ? m_image->reference() : QString();
    // One helper per session and host at a time (the session lock); a store-wide one otherwise.
    run.name = sessionId.isEmpty() ? QStringLiteral("cd-nethelper-%1").arg(m_self.id.left(8))
                                   : QStringLiteral("cd-%1-nethelper").arg(sessionId.left(8));
    run.script = script;
    run.labels.insert(Labels::store(), m_self.id);
    run.labels.insert(Labels::helper(), kHelperKind);
    if (!sessionId.isEmpty())
        run.labels.insert(Labels::session(), sessionId);
    return run;
}

Result<HelperContainer::Outcome>
VxlanHostSetup::runScript(const Docker::DockerHost &host, const QString &sessionId,
                          const QString &script, const Docker::CallOptions &options,
                          const HelperContainer::Hooks &hooks) const
{
    if (!m_image)
        return fail(Error::Kind::Invalid, host.displayName(),
                    QStringLiteral("no network helper image"));
    if (m_self.id.isEmpty())
        return fail(Error::Kind::Invalid, host.displayName(),
                    QStringLiteral("no store id: a helper container must be labelled"));
    const auto start = std::chrono::steady_clock::now();
    auto image = m_image->ensureOn(host, options);
    if (!image)
        return fail(image.error());
    Docker::CallOptions rest = options;
    rest.timeout -= std::chrono::duration_cast<std::chrono::milliseconds>(
        std::chrono::steady_clock::now() - start);
    if (rest.timeout <= 0ms)
        return fail(Error::Kind::Timeout, host.displayName(),
                    QStringLiteral("the VXLAN step ran out of time importing the helper image"));
    return HelperContainer::run(host, helperRun(sessionId, script), rest, hooks);
}

Result<VxlanHostSetup::DeviceState> VxlanHostSetup::apply(const Docker::DockerHost &host,
                                                          const Request &request,
                                                          const Docker::CallOptions &options,
                                                          const HelperContainer::Hooks &hooks) const
{
    const QString owner = ownerAlias(m_self.id, request.segment.sessionId);
    auto script = applyScript(request, owner);
    if (!script)
        return fail(script.error().withContext(host.displayName()));
    const QString device = request.segment.deviceName();
    auto outcome = runScript(host, request.segment.sessionId, *script, options, hooks);
    if (!outcome)
        return fail(outcome.error().withContext(QStringLiteral("setting up %1").arg(device)));
    if (outcome->exitCode != 0)
        return scriptFailed(host, device, QStringLiteral("setting up"), *outcome);
    auto devices = parseInspect(outcome->out);
    if (!devices)
        return fail(devices.error().withContext(setupWhere(host, device)));
    for (const DeviceState &d : std::as_const(*devices)) {
        if (d.name != device)
            continue;
        const QStringList differ = differences(d, request, owner);
        // Marked by someone else since: theirs, so this claim collided.
        if (!differ.isEmpty())
            return fail(d.owner != owner ? Error::Kind::Conflict : Error::Kind::Io,
                        setupWhere(host, device),
                        QStringLiteral("set up, but not as asked: %1")
                            .arg(differ.join(QLatin1String("; "))));
        qCDebug(lcNetwork) << "VXLAN device" << device << "on" << host.displayName() << "peers"
                           << d.peers;
        return d;
    }
    return fail(Error::Kind::Io, setupWhere(host, device),
                QStringLiteral("the helper finished but the device is missing"));
}

Result<VxlanHostSetup::Removal> VxlanHostSetup::teardown(const Docker::DockerHost &host,
                                                         const VxlanSegment &segment,
                                                         const Docker::CallOptions &options) const
{
    if (auto ok = segment.validate(); !ok)
        return fail(ok.error().withContext(host.displayName()));
    const QString device = segment.deviceName();
    auto outcome =
        runScript(host, segment.sessionId,
                  teardownScript(segment, ownerAlias(m_self.id, segment.sessionId)), options);
    if (!outcome)
        return fail(outcome.error().withContext(QStringLiteral("removing %1").arg(device)));
    if (outcome->exitCode != 0)
        return scriptFailed(host, device, QStringLiteral("removing"), *outcome);
    const QByteArray said = outcome->out.trimmed();
    if (said.endsWith("removed"))
        return Removal::Removed;
    if (said.endsWith("absent"))
        return Removal::Absent;
    qCInfo(lcNetwork) << "left alone: VXLAN device" << device << "on" << host.displayName()
                      << "(another store's or session's)";
    return Removal::NotOurs;
}

Result<std::optional<VxlanHostSetup::DeviceState>>
VxlanHostSetup::inspect(const Docker::DockerHost &host, const VxlanSegment &segment,
                        const Docker::CallOptions &options) const
{
    if (auto ok = segment.validate(); !ok)
        return fail(ok.error().withContext(host.displayName()));
    const QString device = segment.deviceName();
    auto outcome = runScript(host, segment.sessionId, inspectScript(device), options);
    if (!outcome)
        return fail(outcome.error().withContext(QStringLiteral("inspecting %1").arg(device)));
    if (outcome->exitCode != 0)
        return scriptFailed(host, device, QStringLiteral("inspecting"), *outcome);
    auto devices = parseInspect(outcome->out);
    if (!devices)
        return fail(devices.error().withContext(setupWhere(host, device)));
    for (const DeviceState &d : std::as_const(*devices)) {
        if (d.name == device)
            return std::optional<DeviceState>(d);
    }
    return std::optional<DeviceState>();
}

Result<QList<VxlanHostSetup::DeviceState>>
VxlanHostSetup::listDevices(const Docker::DockerHost &host,
                            const Docker::CallOptions &options) const
{
    auto outcome = runScript(host, QString(), inspectScript(QString()), options);
    if (!outcome)
        return fail(outcome.error().withContext(QStringLiteral("listing VXLAN devices")));
    if (outcome->exitCode != 0)
        return scriptFailed(host, QStringLiteral("(all)"), QStringLiteral("listing"), *outcome);
    auto devices = parseInspect(outcome->out);
    if (!devices)
        return fail(devices.error().withContext(host.displayName()));
    return devices;
}

QStringList VxlanHostSetup::needsRepair(const std::optional<DeviceState> &device,
                                        const Request &request) const
{
    if (!device)
        return {QStringLiteral("missing")};
    return differences(*device, request, ownerAlias(m_self.id, request.segment.sessionId));
}

Result<int> VxlanHostSetup::removeLeftoverHelpers(const Docker::DockerHost &host,
                                                  const Docker::CallOptions &options) const
{
    // A run lasts at most its CallOptions (30 s by default): five minutes is surely over.
    Docker::Labels labels;
    labels.insert(Labels::store(), m_self.id);
    labels.insert(Labels::helper(), kHelperKind);
    return HelperContainer::removeLeftovers(host, labels, QDateTime::currentSecsSinceEpoch(), 300,
                                            options);
}

} // namespace ClusterDeck
