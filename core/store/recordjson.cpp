#include "recordjson.h"

#include "common/clustermode.h"

#include <QJsonDocument>
#include <QJsonParseError>

#include <algorithm>
#include <cstdio>

namespace ClusterDeck::RecordJson {

namespace {
QString str(const QJsonObject &o, QLatin1StringView key)
{
    return o.value(key).toString();
}
} // namespace

QString sessionModeToText(ClusterMode mode)
{
    // A session not placed yet has no mode at the edges ("", as in older records).
    return mode == ClusterMode::Auto ? QString() : modeName(mode);
}

ClusterMode sessionModeFromText(const QString &text)
{
    return parseMode(text).value_or(ClusterMode::Auto);
}

QString dateToText(const QDateTime &at)
{
    if (!at.isValid())
        return QString();
    // Every status change of every kernel writes dates: formatted here, not by toString()'s
    // general format machinery (a third of a large launch's history encoding), to the same text.
    const QDateTime utc = at.toUTC();
    const QDate d = utc.date();
    const QTime t = utc.time();
    if (d.year() < 1 || d.year() > 9999)
        return utc.toString(Qt::ISODateWithMs);
    char text[96];
    std::snprintf(text, sizeof text, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", d.year(), d.month(),
                  d.day(), t.hour(), t.minute(), t.second(), t.msec());
    return QString::fromLatin1(text);
}

QDateTime dateFromText(const QString &text)
{
    if (text.isEmpty())
        return {};
    return QDateTime::fromString(text, Qt::ISODateWithMs);
}

namespace {

template<typename Status>
QJsonArray historyJson(const QList<StatusChangeOf<Status>> &history)
{
    QJsonArray array;
    for (const StatusChangeOf<Status> &change : history) {
        QJsonObject o{{QStringLiteral("status"), toString(change.status)},
                      {QStringLiteral("at"), dateToText(change.at)}};
        if (!change.reason.isEmpty())
            o.insert(QStringLiteral("reason"), change.reason);
        array.append(o);
    }
    return array;
}

template<typename Status, typename Parse>
QList<StatusChangeOf<Status>> historyOf(const QJsonArray &array, Parse parse)
{
    QList<StatusChangeOf<Status>> history;
    history.reserve(array.size());
    for (const QJsonValue &value : array) {
        const QJsonObject o = value.toObject();
        const std::optional<Status> status = parse(str(o, QLatin1StringView("status")));
        if (!status)
            continue;
        history.append({*status, dateFromText(str(o, QLatin1StringView("at"))),
                        str(o, QLatin1StringView("reason"))});
    }
    return history;
}

} // namespace

QJsonArray historyToJson(const QList<KernelStatusChange> &history)
{
    return historyJson(history);
}

QJsonArray historyToJson(const QList<SessionStatusChange> &history)
{
    return historyJson(history);
}

QList<KernelStatusChange> kernelHistoryFromJson(const QJsonArray &array)
{
    return historyOf<KernelStatus>(array, kernelStatusFromString);
}

QList<SessionStatusChange> sessionHistoryFromJson(const QJsonArray &array)
{
    return historyOf<SessionStatus>(array, sessionStatusFromString);
}

QJsonArray portsToJson(const QList<PortBinding> &ports)
{
    QJsonArray array;
    for (const PortBinding &port : ports) {
        array.append(QJsonObject{{QStringLiteral("name"), port.name},
                                 {QStringLiteral("protocol"), port.protocol},
                                 {QStringLiteral("container_port"), port.containerPort},
                                 {QStringLiteral("host_port"), port.hostPort},
                                 {QStringLiteral("url"), port.url}});
    }
    return array;
}

QList<PortBinding> portsFromJson(const QJsonArray &array)
{
    QList<PortBinding> ports;
    ports.reserve(array.size());
    for (const QJsonValue &value : array) {
        const QJsonObject o = value.toObject();
        ports.append({str(o, QLatin1StringView("name")), str(o, QLatin1StringView("protocol")),
                      o.value(QLatin1StringView("container_port")).toInt(),
                      o.value(QLatin1StringView("host_port")).toInt(),
                      str(o, QLatin1StringView("url"))});
    }
    return ports;
}

QJsonObject labelsToJson(const QMap<QString, QString> &labels)
{
    QJsonObject o;
    for (auto it = labels.cbegin(); it != labels.cend(); ++it)
        o.insert(it.key(), it.value());
    return o;
}

QMap<QString, QString> labelsFromJson(const QJsonObject &object)
{
    QMap<QString, QString> labels;
    for (auto it = object.constBegin(); it != object.constEnd(); ++it)
        labels.insert(it.key(), it.value().toString());
    return labels;
}

QJsonObject toJson(const HostRecord &host)
{
    return QJsonObject{{QStringLiteral("name"), host.name},
                       {QStringLiteral("endpoint"), host.endpoint},
                       {QStringLiteral("tls_ca"), host.tlsCa},
                       {QStringLiteral("tls_cert"), host.tlsCert},
                       {QStringLiteral("tls_key"), host.tlsKey},
                       {QStringLiteral("public_address"), host.publicAddress},
                       {QStringLiteral("labels"), labelsToJson(host.labels)},
                       {QStringLiteral("added_at"), dateToText(host.addedAt)}};
}

QJsonObject toJson(const SessionRecord &s)
{
    return QJsonObject{{QStringLiteral("id"), s.id},
                       {QStringLiteral("name"), s.name},
                       {QStringLiteral("template"), s.templateName},
                       {QStringLiteral("template_snapshot"), s.templateSnapshot},
                       {QStringLiteral("launch_options"), s.launch.toJson()},
                       {QStringLiteral("mode"), sessionModeToText(s.mode)},
                       {QStringLiteral("desired"), toString(s.desired)},
                       {QStringLiteral("status"), toString(s.status)},
                       {QStringLiteral("history"), historyToJson(s.history)},
                       {QStringLiteral("last_error"), s.lastError},
                       {QStringLiteral("network_name"), s.networkName},
                       {QStringLiteral("network_id"), s.networkId},
                       {QStringLiteral("network_host"), s.networkHost},
                       {QStringLiteral("restart_count"), s.restartCount},
                       {QStringLiteral("finished_at"), dateToText(s.finishedAt)},
                       {QStringLiteral("created_at"), dateToText(s.createdAt)},
                       {QStringLiteral("updated_at"), dateToText(s.updatedAt)}};
}

QJsonObject observationToJson(const KernelObservation &o)
{
    QJsonObject json;
    if (o.state != ContainerStatus::None)
        json.insert(QStringLiteral("state"), containerStatusName(o.state));
    if (o.exitCode)
        json.insert(QStringLiteral("exit_code"), *o.exitCode);
    if (!o.containerId.isEmpty())
        json.insert(QStringLiteral("container_id"), o.containerId);
    if (o.startedAt.isValid())
        json.insert(QStringLiteral("started_at"), dateToText(o.startedAt));
    if (o.at.isValid())
        json.insert(QStringLiteral("at"), dateToText(o.at));
    return json;
}

KernelObservation observationFromJson(const QJsonObject &json)
{
    KernelObservation o;
    o.state = parseContainerStatus(json.value(QLatin1StringView("state")).toString());
    if (json.contains(QLatin1StringView("exit_code")))
        o.exitCode = json.value(QLatin1StringView("exit_code")).toInt();
    o.containerId = json.value(QLatin1StringView("container_id")).toString();
    o.startedAt = dateFromText(json.value(QLatin1StringView("started_at")).toString());
    o.at = dateFromText(json.value(QLatin1StringView("at")).toString());
    return o;
}

QJsonObject toJson(const LeaderRecord &l)
{
    return QJsonObject{{QStringLiteral("owner"), l.ownerId},
                       {QStringLiteral("hostname"), l.hostname},
                       {QStringLiteral("pid"), QString::number(l.pid)},
                       {QStringLiteral("actor"), l.actor},
                       {QStringLiteral("since"), dateToText(l.since)},
                       {QStringLiteral("term"), QString::number(l.term)}};
}

LeaderRecord leaderFromJson(const QJsonObject &o)
{
    LeaderRecord l;
    l.ownerId = o.value(QLatin1StringView("owner")).toString();
    l.hostname = o.value(QLatin1StringView("hostname")).toString();
    l.pid = o.value(QLatin1StringView("pid")).toString().toLongLong();
    l.actor = o.value(QLatin1StringView("actor")).toString();
    l.since = dateFromText(o.value(QLatin1StringView("since")).toString());
    l.term = o.value(QLatin1StringView("term")).toString().toLongLong();
    return l;
}

QJsonObject toJson(const ControllerStatus &c)
{
    QJsonObject hosts;
    for (auto it = c.hosts.cbegin(); it != c.hosts.cend(); ++it)
        hosts.insert(it.key(), QJsonObject{{QStringLiteral("up"), it->up},
                                           {QStringLiteral("reason"), it->reason},
                                           {QStringLiteral("since"), dateToText(it->since)}});
    return QJsonObject{{QStringLiteral("owner"), c.ownerId},
                       {QStringLiteral("actor"), c.actor},
                       {QStringLiteral("passes"), QString::number(c.passes)},
                       {QStringLiteral("last_pass_at"), dateToText(c.lastPassAt)},
                       {QStringLiteral("last_report"), c.lastReport},
                       {QStringLiteral("hosts"), hosts}};
}

ControllerStatus controllerStatusFromJson(const QJsonObject &o)
{
    ControllerStatus c;
    c.ownerId = o.value(QLatin1StringView("owner")).toString();
    c.actor = o.value(QLatin1StringView("actor")).toString();
    c.passes = o.value(QLatin1StringView("passes")).toString().toLongLong();
    c.lastPassAt = dateFromText(o.value(QLatin1StringView("last_pass_at")).toString());
    c.lastReport = o.value(QLatin1StringView("last_report")).toObject();
    const QJsonObject hosts = o.value(QLatin1StringView("hosts")).toObject();
    for (auto it = hosts.constBegin(); it != hosts.constEnd(); ++it) {
        const QJsonObject h = it.value().toObject();
        c.hosts.insert(it.key(),
                       HostHealth{h.value(QLatin1StringView("up")).toBool(),
                                  h.value(QLatin1StringView("reason")).toString(),
                                  dateFromText(h.value(QLatin1StringView("since")).toString())});
    }
    return c;
}

QJsonObject toJson(const KernelRecord &k)
{
    QJsonObject o{{QStringLiteral("id"), k.id},
                  {QStringLiteral("session_id"), k.sessionId},
                  {QStringLiteral("role"), k.role},
                  {QStringLiteral("role_idx"), k.roleIdx},
                  {QStringLiteral("local_rank"), k.localRank},
                  {QStringLiteral("primary"), k.primary},
                  {QStringLiteral("hostname"), k.hostname},
                  {QStringLiteral("host"), k.host},
                  {QStringLiteral("container_name"), k.containerName},
                  {QStringLiteral("container_id"), k.containerId},
                  {QStringLiteral("status"), toString(k.status)},
                  {QStringLiteral("desired"), toString(k.desired)},
                  {QStringLiteral("history"), historyToJson(k.history)},
                  {QStringLiteral("ports"), portsToJson(k.ports)},
                  {QStringLiteral("observed"), observationToJson(k.observed)},
                  {QStringLiteral("created_at"), dateToText(k.createdAt)},
                  {QStringLiteral("updated_at"), dateToText(k.updatedAt)}};
    if (k.cpus)
        o.insert(QStringLiteral("cpus"), *k.cpus);
    if (k.memoryBytes)
        o.insert(QStringLiteral("memory_bytes"), QString::number(*k.memoryBytes));
    return o;
}

QJsonObject toJson(const EventRecord &e)
{
    return QJsonObject{{QStringLiteral("seq"), QString::number(e.seq)},
                       {QStringLiteral("at"), dateToText(e.at)},
                       {QStringLiteral("actor"), e.actor},
                       {QStringLiteral("session_id"), e.sessionId},
                       {QStringLiteral("kernel_id"), e.kernelId},
                       {QStringLiteral("action"), e.action},
                       {QStringLiteral("detail"), e.detail}};
}

Result<HostRecord> hostFromJson(const QJsonObject &o, const QString &where)
{
    HostRecord h;
    h.name = str(o, QLatin1StringView("name"));
    if (h.name.isEmpty())
        return fail(Error::Kind::Decode, where, QStringLiteral("host record without a name"));
    h.endpoint = str(o, QLatin1StringView("endpoint"));
    h.tlsCa = str(o, QLatin1StringView("tls_ca"));
    h.tlsCert = str(o, QLatin1StringView("tls_cert"));
    h.tlsKey = str(o, QLatin1StringView("tls_key"));
    h.publicAddress = str(o, QLatin1StringView("public_address"));
    h.labels = labelsFromJson(o.value(QLatin1StringView("labels")).toObject());
    h.addedAt = dateFromText(str(o, QLatin1StringView("added_at")));
    return h;
}

Result<SessionRecord> sessionFromJson(const QJsonObject &o, const QString &where)
{
    SessionRecord s;
    s.id = str(o, QLatin1StringView("id"));
    if (s.id.isEmpty())
        return fail(Error::Kind::Decode, where, QStringLiteral("session record without an id"));
    const auto desired = desiredStateFromString(str(o, QLatin1StringView("desired")));
    const auto status = sessionStatusFromString(str(o, QLatin1StringView("status")));
    if (!desired || !status)
        return fail(Error::Kind::Decode, where,
                    QStringLiteral("session %1 has an unknown status or desired state").arg(s.id));
    s.name = str(o, QLatin1StringView("name"));
    s.templateName = str(o, QLatin1StringView("template"));
    s.templateSnapshot = str(o, QLatin1StringView("template_snapshot"));
    s.launch = LaunchRecord::fromJson(o.value(QLatin1StringView("launch_options")).toObject());
    s.mode = sessionModeFromText(str(o, QLatin1StringView("mode")));
    s.desired = *desired;
    s.status = *status;
    s.history = sessionHistoryFromJson(o.value(QLatin1StringView("history")).toArray());
    s.lastError = str(o, QLatin1StringView("last_error"));
    s.networkName = str(o, QLatin1StringView("network_name"));
    s.networkId = str(o, QLatin1StringView("network_id"));
    s.networkHost = str(o, QLatin1StringView("network_host"));
    s.restartCount = o.value(QLatin1StringView("restart_count")).toInt();
    s.finishedAt = dateFromText(str(o, QLatin1StringView("finished_at")));
    s.createdAt = dateFromText(str(o, QLatin1StringView("created_at")));
    s.updatedAt = dateFromText(str(o, QLatin1StringView("updated_at")));
    return s;
}

Result<KernelRecord> kernelFromJson(const QJsonObject &o, const QString &where)
{
    KernelRecord k;
    k.id = str(o, QLatin1StringView("id"));
    k.sessionId = str(o, QLatin1StringView("session_id"));
    if (k.id.isEmpty() || k.sessionId.isEmpty())
        return fail(Error::Kind::Decode, where,
                    QStringLiteral("kernel record without an id or session id"));
    const auto desired = desiredStateFromString(str(o, QLatin1StringView("desired")));
    const auto status = kernelStatusFromString(str(o, QLatin1StringView("status")));
    if (!desired || !status)
        return fail(Error::Kind::Decode, where,
                    QStringLiteral("kernel %1 has an unknown status or desired state").arg(k.id));
    k.role = str(o, QLatin1StringView("role"));
    k.roleIdx = o.value(QLatin1StringView("role_idx")).toInt(1);
    k.localRank = o.value(QLatin1StringView("local_rank")).toInt();
    k.primary = o.value(QLatin1StringView("primary")).toBool();
    k.hostname = str(o, QLatin1StringView("hostname"));
    k.host = str(o, QLatin1StringView("host"));
    k.containerName = str(o, QLatin1StringView("container_name"));
    k.containerId = str(o, QLatin1StringView("container_id"));
    k.status = *status;
    k.desired = *desired;
    k.history = kernelHistoryFromJson(o.value(QLatin1StringView("history")).toArray());
    k.ports = portsFromJson(o.value(QLatin1StringView("ports")).toArray());
    if (o.contains(QLatin1StringView("cpus")))
        k.cpus = o.value(QLatin1StringView("cpus")).toDouble();
    if (o.contains(QLatin1StringView("memory_bytes")))
        k.memoryBytes = str(o, QLatin1StringView("memory_bytes")).toLongLong();
    k.observed = observationFromJson(o.value(QLatin1StringView("observed")).toObject());
    k.createdAt = dateFromText(str(o, QLatin1StringView("created_at")));
    k.updatedAt = dateFromText(str(o, QLatin1StringView("updated_at")));
    return k;
}

Result<EventRecord> eventFromJson(const QJsonObject &o, const QString &where)
{
    EventRecord e;
    bool ok = false;
    e.seq = str(o, QLatin1StringView("seq")).toLongLong(&ok);
    if (!ok)
        return fail(Error::Kind::Decode, where, QStringLiteral("event record without a sequence"));
    e.at = dateFromText(str(o, QLatin1StringView("at")));
    e.actor = str(o, QLatin1StringView("actor"));
    e.sessionId = str(o, QLatin1StringView("session_id"));
    e.kernelId = str(o, QLatin1StringView("kernel_id"));
    e.action = str(o, QLatin1StringView("action"));
    e.detail = str(o, QLatin1StringView("detail"));
    return e;
}

QJsonObject avoidToJson(const OverlayAvoid &avoid)
{
    QJsonArray subnets;
    for (const Ipv4Cidr &s : avoid.subnets)
        subnets.append(s.toString());
    QList<quint32> vnis(avoid.vnis.cbegin(), avoid.vnis.cend());
    std::sort(vnis.begin(), vnis.end());
    QJsonArray vniArray;
    for (quint32 v : std::as_const(vnis))
        vniArray.append(qint64(v));
    return QJsonObject{{QStringLiteral("subnets"), subnets}, {QStringLiteral("vnis"), vniArray}};
}

Result<OverlayAvoid> avoidFromJson(const QJsonObject &o, const QString &where)
{
    OverlayAvoid avoid;
    for (const QJsonValue &v : o.value(QLatin1StringView("subnets")).toArray()) {
        auto subnet = Ipv4Cidr::parse(v.toString(), where);
        if (!subnet)
            return fail(Error::Kind::Decode, where, subnet.error().message);
        avoid.subnets.append(*subnet);
    }
    for (const QJsonValue &v : o.value(QLatin1StringView("vnis")).toArray())
        avoid.vnis.insert(quint32(v.toInteger()));
    return avoid;
}

QJsonObject toJson(const NetworkAllocation &a)
{
    return QJsonObject{{QStringLiteral("session_id"), a.sessionId},
                       {QStringLiteral("vni"), qint64(a.vni)},
                       {QStringLiteral("subnet"), a.subnet.toString()},
                       {QStringLiteral("avoided"), avoidToJson(a.avoided)},
                       {QStringLiteral("claimed_at"), dateToText(a.claimedAt)}};
}

Result<NetworkAllocation> networkAllocationFromJson(const QJsonObject &o, const QString &where)
{
    NetworkAllocation a;
    a.sessionId = str(o, QLatin1StringView("session_id"));
    const qint64 vni = o.value(QLatin1StringView("vni")).toInteger();
    auto subnet = Ipv4Cidr::parse(str(o, QLatin1StringView("subnet")), where);
    if (a.sessionId.isEmpty() || vni <= 0 || vni > OverlayPool::kMaxVni || !subnet)
        return fail(Error::Kind::Decode, where,
                    QStringLiteral("network allocation without a session, a VNI or a subnet"));
    a.vni = quint32(vni);
    a.subnet = *subnet;
    auto avoided = avoidFromJson(o.value(QLatin1StringView("avoided")).toObject(), where);
    if (!avoided)
        return fail(avoided.error());
    a.avoided = std::move(*avoided);
    a.claimedAt = dateFromText(str(o, QLatin1StringView("claimed_at")));
    return a;
}

QByteArray compact(const QJsonObject &object)
{
    return QJsonDocument(object).toJson(QJsonDocument::Compact);
}

QByteArray compact(const QJsonArray &array)
{
    return QJsonDocument(array).toJson(QJsonDocument::Compact);
}

Result<QJsonObject> parseObject(const QByteArray &bytes, const QString &where)
{
    QJsonParseError error;
    const QJsonDocument doc = QJsonDocument::fromJson(bytes, &error);
    if (error.error != QJsonParseError::NoError || !doc.isObject())
        return fail(
            Error::Kind::Decode, where,
            QStringLiteral("stored value is not a JSON object: %1").arg(error.errorString()));
    return doc.object();
}

Result<QJsonArray> parseArray(const QByteArray &bytes, const QString &where)
{
    if (bytes.isEmpty())
        return QJsonArray();
    QJsonParseError error;
    const QJsonDocument doc = QJsonDocument::fromJson(bytes, &error);
    if (error.error != QJsonParseError::NoError || !doc.isArray())
        return fail(
            Error::Kind::Decode, where,
            QStringLiteral("stored value is not a JSON array: %1").arg(error.errorString()));
    return doc.array();
}

} // namespace ClusterDeck::RecordJson
