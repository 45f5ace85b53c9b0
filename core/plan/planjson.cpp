#include "planjson.h"

#include "template/templatevalues.h"

#include <QJsonArray>

namespace ClusterDeck {

namespace {

using namespace TemplateValues;

QJsonObject map(const QMap<QString, QString> &values)
{
    QJsonObject o;
    for (auto it = values.cbegin(); it != values.cend(); ++it)
        o.insert(it.key(), it.value());
    return o;
}

QMap<QString, QString> mapFrom(const QJsonValue &value)
{
    const QJsonObject o = value.toObject();
    QMap<QString, QString> values;
    for (auto it = o.begin(); it != o.end(); ++it)
        values.insert(it.key(), it.value().toString());
    return values;
}

QJsonArray list(const QStringList &values)
{
    return QJsonArray::fromStringList(values);
}

QStringList listFrom(const QJsonValue &value)
{
    QStringList values;
    for (const QJsonValue &item : value.toArray())
        values.append(item.toString());
    return values;
}

// The first of `keys` the object has (the shared key first, then what older records wrote).
QJsonValue either(const QJsonObject &o, QLatin1StringView key, QLatin1StringView legacy)
{
    const QJsonValue v = o.value(key);
    return v.isUndefined() ? o.value(legacy) : v;
}

} // namespace

QJsonArray PlanJson::filesToJson(const QList<PlannedFile> &files, Files form)
{
    QJsonArray array;
    for (const PlannedFile &f : files) {
        QJsonValue content;
        if (form == Files::Stored)
            content = QString::fromLatin1(f.content.toBase64());
        else if (!f.isSecret())
            content = QString::fromUtf8(f.content);
        array.append(QJsonObject{
            {QStringLiteral("path"), f.path},
            {QStringLiteral("mode"), QStringLiteral("0%1").arg(f.mode, 3, 8, QLatin1Char('0'))},
            {QStringLiteral("owner"), f.owner},
            {QStringLiteral("size"), f.content.size()},
            {QStringLiteral("content"), content}});
    }
    return array;
}

int PlanJson::fileMode(const QJsonObject &file)
{
    const QJsonValue mode = file.value(QLatin1StringView("mode"));
    if (mode.isString()) {
        bool ok = false;
        const int value = mode.toString().toInt(&ok, 8);
        return ok ? value : 0600; // unreadable: treat as secret rather than print it
    }
    return mode.toInt(0644);
}

QList<PlannedFile> PlanJson::filesFromJson(const QJsonArray &files)
{
    QList<PlannedFile> planned;
    planned.reserve(files.size());
    for (const QJsonValue &v : files) {
        const QJsonObject f = v.toObject();
        planned.append(
            {f.value(QLatin1StringView("path")).toString(),
             QByteArray::fromBase64(f.value(QLatin1StringView("content")).toString().toLatin1()),
             fileMode(f), f.value(QLatin1StringView("owner")).toString()});
    }
    return planned;
}

QJsonArray PlanJson::portsToJson(const QList<ServicePort> &servicePorts)
{
    QJsonArray ports;
    for (const ServicePort &p : servicePorts)
        ports.append(QJsonObject{{QStringLiteral("name"), p.name},
                                 {QStringLiteral("protocol"), p.protocol},
                                 {QStringLiteral("container_port"), p.port}});
    return ports;
}

QJsonObject PlanJson::resourcesToJson(const Resources &r)
{
    QJsonObject resources;
    if (r.cpus)
        resources.insert(QStringLiteral("cpus"), *r.cpus);
    if (r.memoryBytes) {
        resources.insert(QStringLiteral("memory_bytes"), double(*r.memoryBytes));
        resources.insert(QStringLiteral("memory"), formatMemory(*r.memoryBytes));
    }
    if (r.gpus)
        resources.insert(QStringLiteral("gpus"), *r.gpus);
    return resources;
}

QJsonArray PlanJson::mountsToJson(const QList<Mount> &kernelMounts)
{
    QJsonArray mounts;
    for (const Mount &m : kernelMounts) {
        QJsonObject o{{QStringLiteral("type"), mountTypeName(m.type)},
                      {QStringLiteral("source"), m.source},
                      {QStringLiteral("target"), m.target},
                      {QStringLiteral("read_only"), m.readOnly}};
        if (!m.driver.isEmpty())
            o.insert(QStringLiteral("driver"), m.driver);
        if (!m.driverOptions.isEmpty())
            o.insert(QStringLiteral("driver_options"), map(m.driverOptions));
        mounts.append(o);
    }
    return mounts;
}

QJsonObject PlanJson::toJson(const KernelSpec &k, Files files)
{
    // Empty in the plan: the placed host's registered address (decided by the provisioner).
    const QString bindAddress = k.bindAddress.isEmpty() && files == Files::Shown
                                    ? QStringLiteral("host-address")
                                    : k.bindAddress;
    QJsonObject o{{QStringLiteral("id"), k.kernelId},
                  {QStringLiteral("hostname"), k.hostname},
                  {QStringLiteral("container_name"), k.containerName},
                  {QStringLiteral("role"), k.role},
                  {QStringLiteral("role_idx"), k.roleIdx},
                  {QStringLiteral("local_rank"), k.localRank},
                  {QStringLiteral("primary"), k.primary},
                  {QStringLiteral("image"), k.image},
                  {QStringLiteral("pull_policy"), pullPolicyName(k.pullPolicy)},
                  {QStringLiteral("entrypoint"), list(k.entrypoint)},
                  {QStringLiteral("command"), list(k.command)},
                  {QStringLiteral("working_dir"), k.workingDir},
                  {QStringLiteral("user"), k.user},
                  {QStringLiteral("env"), map(k.env)},
                  {QStringLiteral("ports"), portsToJson(k.ports)},
                  {QStringLiteral("bind_address"), bindAddress},
                  {QStringLiteral("resources"), resourcesToJson(k.resources)},
                  {QStringLiteral("mounts"), mountsToJson(k.mounts)},
                  {QStringLiteral("labels"), map(k.labels)},
                  {QStringLiteral("host_labels"), map(k.hostLabels)},
                  {QStringLiteral("files"), filesToJson(k.files, files)}};
    // Decided after the plan (by the first launch, by `scale`): absent until then.
    if (!k.imageDigest.isEmpty())
        o.insert(QStringLiteral("image_digest"), k.imageDigest);
    if (!k.onScale.isEmpty())
        o.insert(QStringLiteral("on_scale"), k.onScale);
    return o;
}

KernelSpec PlanJson::kernelFromJson(const QJsonObject &o)
{
    KernelSpec k;
    k.kernelId = either(o, QLatin1StringView("id"), QLatin1StringView("kernel_id")).toString();
    k.hostname = o.value(QLatin1StringView("hostname")).toString();
    k.containerName = o.value(QLatin1StringView("container_name")).toString();
    k.role = o.value(QLatin1StringView("role")).toString();
    k.roleIdx = o.value(QLatin1StringView("role_idx")).toInt(1);
    k.localRank = o.value(QLatin1StringView("local_rank")).toInt();
    k.primary = o.value(QLatin1StringView("primary")).toBool();
    k.image = o.value(QLatin1StringView("image")).toString();
    k.pullPolicy = parsePullPolicy(o.value(QLatin1StringView("pull_policy")).toString())
                       .value_or(PullPolicy::IfNotPresent);
    k.imageDigest = o.value(QLatin1StringView("image_digest")).toString();
    k.entrypoint = listFrom(o.value(QLatin1StringView("entrypoint")));
    k.command = listFrom(o.value(QLatin1StringView("command")));
    k.onScale = o.value(QLatin1StringView("on_scale")).toString();
    k.workingDir = o.value(QLatin1StringView("working_dir")).toString();
    k.user = o.value(QLatin1StringView("user")).toString();
    k.bindAddress = o.value(QLatin1StringView("bind_address")).toString();
    k.env = mapFrom(o.value(QLatin1StringView("env")));
    k.files = filesFromJson(o.value(QLatin1StringView("files")).toArray());
    for (const QJsonValue &v : o.value(QLatin1StringView("ports")).toArray()) {
        const QJsonObject p = v.toObject();
        k.ports.append(
            {p.value(QLatin1StringView("name")).toString(),
             p.value(QLatin1StringView("protocol")).toString(),
             either(p, QLatin1StringView("container_port"), QLatin1StringView("port")).toInt()});
    }
    const QJsonObject r = o.value(QLatin1StringView("resources")).toObject();
    if (r.contains(QLatin1StringView("cpus")))
        k.resources.cpus = r.value(QLatin1StringView("cpus")).toDouble();
    const QJsonValue memory =
        either(r, QLatin1StringView("memory_bytes"), QLatin1StringView("memory"));
    if (memory.isDouble())
        k.resources.memoryBytes = qint64(memory.toDouble());
    if (r.contains(QLatin1StringView("gpus")))
        k.resources.gpus = r.value(QLatin1StringView("gpus")).toInt();
    for (const QJsonValue &v : o.value(QLatin1StringView("mounts")).toArray()) {
        const QJsonObject m = v.toObject();
        Mount mount;
        mount.type = parseMountType(m.value(QLatin1StringView("type")).toString())
                         .value_or(Mount::Type::Volume);
        mount.source = m.value(QLatin1StringView("source")).toString();
        mount.target = m.value(QLatin1StringView("target")).toString();
        mount.readOnly = m.value(QLatin1StringView("read_only")).toBool();
        mount.driver = m.value(QLatin1StringView("driver")).toString();
        mount.driverOptions = mapFrom(m.value(QLatin1StringView("driver_options")));
        k.mounts.append(mount);
    }
    k.labels = mapFrom(o.value(QLatin1StringView("labels")));
    k.hostLabels = mapFrom(o.value(QLatin1StringView("host_labels")));
    return k;
}

QJsonObject PlanJson::headerToJson(const ClusterPlan &plan)
{
    QJsonArray roles;
    for (const RoleCount &rc : plan.roles)
        roles.append(QJsonObject{{QStringLiteral("role"), rc.role},
                                 {QStringLiteral("count"), rc.count},
                                 {QStringLiteral("min"), rc.min},
                                 {QStringLiteral("max"), rc.max},
                                 {QStringLiteral("last_idx"), rc.highestIdx()}});
    QJsonObject policy{{QStringLiteral("action"), failureActionName(plan.failurePolicy.action)}};
    if (plan.failurePolicy.action == FailurePolicy::Action::RestartSession)
        policy.insert(QStringLiteral("max_restarts"), plan.failurePolicy.maxRestarts);
    QJsonObject o{{QStringLiteral("session_id"), plan.sessionId},
                  {QStringLiteral("name"), plan.sessionName},
                  {QStringLiteral("template"), plan.templateName},
                  {QStringLiteral("network"), plan.networkName},
                  {QStringLiteral("mode"), modeName(plan.mode)},
                  {QStringLiteral("failure_policy"), policy},
                  {QStringLiteral("startup_order"), startupOrderName(plan.startupOrder)},
                  {QStringLiteral("presets"), list(plan.presets)},
                  {QStringLiteral("roles"), roles}};
    if (plan.mtu)
        o.insert(QStringLiteral("mtu"), *plan.mtu);
    if (plan.successPolicy.kind != SuccessPolicy::Kind::None) {
        QJsonObject success{{QStringLiteral("kind"), successKindName(plan.successPolicy.kind)}};
        if (plan.successPolicy.kind == SuccessPolicy::Kind::RoleExits)
            success.insert(QStringLiteral("role"), plan.successPolicy.role);
        o.insert(QStringLiteral("success_policy"), success);
    }
    if (plan.ttlAfterFinishedSeconds)
        o.insert(QStringLiteral("ttl_after_finished_seconds"),
                 double(*plan.ttlAfterFinishedSeconds));
    if (plan.allowHostPaths)
        o.insert(QStringLiteral("allow_host_paths"), true);
    return o;
}

ClusterPlan PlanJson::headerFromJson(const QJsonObject &o)
{
    ClusterPlan plan;
    plan.sessionId = o.value(QLatin1StringView("session_id")).toString();
    plan.sessionName =
        either(o, QLatin1StringView("name"), QLatin1StringView("session_name")).toString();
    plan.templateName = o.value(QLatin1StringView("template")).toString();
    plan.networkName = o.value(QLatin1StringView("network")).toString();
    plan.mode =
        parseMode(o.value(QLatin1StringView("mode")).toString()).value_or(ClusterMode::Auto);
    if (o.contains(QLatin1StringView("mtu")))
        plan.mtu = o.value(QLatin1StringView("mtu")).toInt();
    // Older records kept the failure policy flat beside the other keys.
    const QJsonObject failure =
        o.contains(QLatin1StringView("failure_policy"))
            ? o.value(QLatin1StringView("failure_policy")).toObject()
            : QJsonObject{
                  {QStringLiteral("action"), o.value(QLatin1StringView("failure_action"))},
                  {QStringLiteral("max_restarts"), o.value(QLatin1StringView("max_restarts"))}};
    plan.failurePolicy.action =
        parseFailureAction(failure.value(QLatin1StringView("action")).toString())
            .value_or(FailurePolicy::Action::TerminateSession);
    plan.failurePolicy.maxRestarts = failure.value(QLatin1StringView("max_restarts")).toInt(3);
    const QJsonObject success = o.value(QLatin1StringView("success_policy")).toObject();
    plan.successPolicy.kind = parseSuccessKind(success.value(QLatin1StringView("kind")).toString())
                                  .value_or(SuccessPolicy::Kind::None);
    if (plan.successPolicy.kind == SuccessPolicy::Kind::RoleExits)
        plan.successPolicy.role = success.value(QLatin1StringView("role")).toString();
    if (o.contains(QLatin1StringView("ttl_after_finished_seconds")))
        plan.ttlAfterFinishedSeconds =
            qint64(o.value(QLatin1StringView("ttl_after_finished_seconds")).toDouble());
    plan.startupOrder = parseStartupOrder(o.value(QLatin1StringView("startup_order")).toString())
                            .value_or(StartupOrder::Parallel);
    plan.presets = listFrom(o.value(QLatin1StringView("presets")));
    plan.allowHostPaths = o.value(QLatin1StringView("allow_host_paths")).toBool(false);
    for (const QJsonValue &v : o.value(QLatin1StringView("roles")).toArray()) {
        const QJsonObject r = v.toObject();
        // Specs written before `scale` have no bounds: -1 says "unknown, ask the template".
        plan.roles.append({r.value(QLatin1StringView("role")).toString(),
                           r.value(QLatin1StringView("count")).toInt(),
                           r.value(QLatin1StringView("min")).toInt(-1),
                           r.value(QLatin1StringView("max")).toInt(-1),
                           r.value(QLatin1StringView("last_idx")).toInt()});
    }
    return plan;
}

QJsonObject PlanJson::toJson(const ClusterPlan &plan, Files files)
{
    QJsonArray kernels;
    for (const KernelSpec &k : plan.kernels)
        kernels.append(toJson(k, files));
    QJsonObject o = headerToJson(plan);
    o.insert(QStringLiteral("kernels"), kernels);
    return o;
}

} // namespace ClusterDeck
