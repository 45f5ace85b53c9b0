#include "sessionspec.h"

#include "template/templatevalues.h"

#include <QJsonArray>

namespace ClusterDeck {

namespace {

QJsonObject mapToJson(const QMap<QString, QString> &map)
{
    QJsonObject o;
    for (auto it = map.cbegin(); it != map.cend(); ++it)
        o.insert(it.key(), it.value());
    return o;
}

QMap<QString, QString> mapFromJson(const QJsonObject &o)
{
    QMap<QString, QString> map;
    for (auto it = o.begin(); it != o.end(); ++it)
        map.insert(it.key(), it.value().toString());
    return map;
}

QJsonArray listToJson(const QStringList &list)
{
    return QJsonArray::fromStringList(list);
}

QStringList listFromJson(const QJsonValue &v)
{
    QStringList list;
    for (const QJsonValue &item : v.toArray())
        list.append(item.toString());
    return list;
}

QJsonObject kernelToJson(const KernelSpec &k)
{
    QJsonArray files;
    for (const PlannedFile &f : k.files)
        files.append(
            QJsonObject{{QStringLiteral("path"), f.path},
                        {QStringLiteral("content"), QString::fromLatin1(f.content.toBase64())},
                        {QStringLiteral("mode"), f.mode},
                        {QStringLiteral("owner"), f.owner}});
    QJsonArray ports;
    for (const ServicePort &p : k.ports)
        ports.append(QJsonObject{{QStringLiteral("name"), p.name},
                                 {QStringLiteral("protocol"), p.protocol},
                                 {QStringLiteral("port"), p.port}});
    QJsonArray mounts;
    for (const Mount &m : k.mounts)
        mounts.append(QJsonObject{{QStringLiteral("type"), TemplateValues::mountTypeName(m.type)},
                                  {QStringLiteral("source"), m.source},
                                  {QStringLiteral("target"), m.target},
                                  {QStringLiteral("read_only"), m.readOnly},
                                  {QStringLiteral("driver"), m.driver},
                                  {QStringLiteral("driver_options"), mapToJson(m.driverOptions)}});
    QJsonObject resources;
    if (k.resources.cpus)
        resources.insert(QStringLiteral("cpus"), *k.resources.cpus);
    if (k.resources.memoryBytes)
        resources.insert(QStringLiteral("memory"), double(*k.resources.memoryBytes));
    if (k.resources.gpus)
        resources.insert(QStringLiteral("gpus"), *k.resources.gpus);
    return QJsonObject{
        {QStringLiteral("kernel_id"), k.kernelId},
        {QStringLiteral("hostname"), k.hostname},
        {QStringLiteral("container_name"), k.containerName},
        {QStringLiteral("role"), k.role},
        {QStringLiteral("role_idx"), k.roleIdx},
        {QStringLiteral("local_rank"), k.localRank},
        {QStringLiteral("primary"), k.primary},
        {QStringLiteral("image"), k.image},
        {QStringLiteral("pull_policy"), TemplateValues::pullPolicyName(k.pullPolicy)},
        {QStringLiteral("image_digest"), k.imageDigest},
        {QStringLiteral("entrypoint"), listToJson(k.entrypoint)},
        {QStringLiteral("command"), listToJson(k.command)},
        {QStringLiteral("on_scale"), k.onScale},
        {QStringLiteral("working_dir"), k.workingDir},
        {QStringLiteral("user"), k.user},
        {QStringLiteral("env"), mapToJson(k.env)},
        {QStringLiteral("files"), files},
        {QStringLiteral("ports"), ports},
        {QStringLiteral("bind_address"), k.bindAddress},
        {QStringLiteral("resources"), resources},
        {QStringLiteral("mounts"), mounts},
        {QStringLiteral("labels"), mapToJson(k.labels)},
        {QStringLiteral("host_labels"), mapToJson(k.hostLabels)}};
}

KernelSpec kernelFromJson(const QJsonObject &o)
{
    KernelSpec k;
    k.kernelId = o.value(QStringLiteral("kernel_id")).toString();
    k.hostname = o.value(QStringLiteral("hostname")).toString();
    k.containerName = o.value(QStringLiteral("container_name")).toString();
    k.role = o.value(QStringLiteral("role")).toString();
    k.roleIdx = o.value(QStringLiteral("role_idx")).toInt(1);
    k.localRank = o.value(QStringLiteral("local_rank")).toInt();
    k.primary = o.value(QStringLiteral("primary")).toBool();
    k.image = o.value(QStringLiteral("image")).toString();
    k.pullPolicy =
        TemplateValues::parsePullPolicy(o.value(QStringLiteral("pull_policy")).toString())
            .value_or(PullPolicy::IfNotPresent);
    k.imageDigest = o.value(QStringLiteral("image_digest")).toString();
    k.entrypoint = listFromJson(o.value(QStringLiteral("entrypoint")));
    k.command = listFromJson(o.value(QStringLiteral("command")));
    k.onScale = o.value(QStringLiteral("on_scale")).toString();
    k.workingDir = o.value(QStringLiteral("working_dir")).toString();
    k.user = o.value(QStringLiteral("user")).toString();
    k.bindAddress = o.value(QStringLiteral("bind_address")).toString();
    k.env = mapFromJson(o.value(QStringLiteral("env")).toObject());
    for (const QJsonValue &v : o.value(QStringLiteral("files")).toArray()) {
        const QJsonObject f = v.toObject();
        k.files.append(
            {f.value(QStringLiteral("path")).toString(),
             QByteArray::fromBase64(f.value(QStringLiteral("content")).toString().toLatin1()),
             f.value(QStringLiteral("mode")).toInt(0644),
             f.value(QStringLiteral("owner")).toString()});
    }
    for (const QJsonValue &v : o.value(QStringLiteral("ports")).toArray()) {
        const QJsonObject p = v.toObject();
        k.ports.append({p.value(QStringLiteral("name")).toString(),
                        p.value(QStringLiteral("protocol")).toString(),
                        p.value(QStringLiteral("port")).toInt()});
    }
    const QJsonObject r = o.value(QStringLiteral("resources")).toObject();
    if (r.contains(QStringLiteral("cpus")))
        k.resources.cpus = r.value(QStringLiteral("cpus")).toDouble();
    if (r.contains(QStringLiteral("memory")))
        k.resources.memoryBytes = qint64(r.value(QStringLiteral("memory")).toDouble());
    if (r.contains(QStringLiteral("gpus")))
        k.resources.gpus = r.value(QStringLiteral("gpus")).toInt();
    for (const QJsonValue &v : o.value(QStringLiteral("mounts")).toArray()) {
        const QJsonObject m = v.toObject();
        Mount mount;
        mount.type = TemplateValues::parseMountType(m.value(QStringLiteral("type")).toString())
                         .value_or(Mount::Type::Volume);
        mount.source = m.value(QStringLiteral("source")).toString();
        mount.target = m.value(QStringLiteral("target")).toString();
        mount.readOnly = m.value(QStringLiteral("read_only")).toBool();
        mount.driver = m.value(QStringLiteral("driver")).toString();
        mount.driverOptions = mapFromJson(m.value(QStringLiteral("driver_options")).toObject());
        k.mounts.append(mount);
    }
    k.labels = mapFromJson(o.value(QStringLiteral("labels")).toObject());
    k.hostLabels = mapFromJson(o.value(QStringLiteral("host_labels")).toObject());
    return k;
}

// The environment every kernel has alike (BACKEND_CLUSTER_HOSTS and the like: each lists every
// kernel). Stored once beside the kernels instead of in each of them, the spec grows linearly
// with the kernels rather than with their square (33 MB at 1,000 kernels, before).
QMap<QString, QString> commonEnv(const QList<KernelSpec> &kernels)
{
    if (kernels.isEmpty())
        return {};
    QMap<QString, QString> common = kernels.first().env;
    for (qsizetype i = 1; i < kernels.size() && !common.isEmpty(); ++i) {
        const QMap<QString, QString> &env = kernels.at(i).env;
        for (auto it = common.begin(); it != common.end();) {
            const auto other = env.constFind(it.key());
            // Shared strings (the usual case) compare by their data first.
            const bool same = other != env.cend() &&
                              (other->constData() == it->constData() || *other == it.value());
            it = same ? std::next(it) : common.erase(it);
        }
    }
    return common;
}

// Shared contents (the usual case) compare by their data first.
bool sameFile(const PlannedFile &a, const PlannedFile &b)
{
    return a.path == b.path && a.mode == b.mode && a.owner == b.owner &&
           (a.content.constData() == b.content.constData() || a.content == b.content);
}

// The same for files (/etc/cluster/hosts lists every kernel). Secret files (mode 0600…) stay
// with each kernel: SessionSecrets seals them there, out of the stored spec.
QList<PlannedFile> commonFiles(const QList<KernelSpec> &kernels)
{
    if (kernels.isEmpty())
        return {};
    QList<PlannedFile> common;
    for (const PlannedFile &f : kernels.first().files) {
        if (!f.isSecret())
            common.append(f);
    }
    for (qsizetype i = 1; i < kernels.size() && !common.isEmpty(); ++i) {
        const QList<PlannedFile> &files = kernels.at(i).files;
        common.removeIf([&](const PlannedFile &c) {
            return std::none_of(files.cbegin(), files.cend(),
                                [&](const PlannedFile &f) { return sameFile(f, c); });
        });
    }
    return common;
}

QJsonArray filesToJson(const QList<PlannedFile> &files)
{
    KernelSpec k;
    k.files = files;
    return kernelToJson(k).value(QStringLiteral("files")).toArray();
}

} // namespace

QJsonObject SessionSpec::toJson() const
{
    const QMap<QString, QString> common = commonEnv(plan.kernels);
    const QList<PlannedFile> sharedFiles = commonFiles(plan.kernels);
    QJsonArray kernels;
    for (const KernelSpec &k : plan.kernels) {
        KernelSpec own = k;
        for (auto it = common.cbegin(); it != common.cend(); ++it)
            own.env.remove(it.key());
        // A shared file keeps its place among the kernel's files as {"common": index}.
        QList<qsizetype> sharedAt(k.files.size(), -1);
        for (qsizetype i = 0; i < k.files.size(); ++i) {
            for (qsizetype j = 0; j < sharedFiles.size(); ++j) {
                if (sameFile(k.files.at(i), sharedFiles.at(j))) {
                    sharedAt[i] = j;
                    own.files[i] = PlannedFile{}; // not encoded again
                    break;
                }
            }
        }
        QJsonObject o = kernelToJson(own);
        if (!sharedFiles.isEmpty()) {
            QJsonArray files = o.value(QStringLiteral("files")).toArray();
            for (qsizetype i = 0; i < sharedAt.size() && i < files.size(); ++i) {
                if (sharedAt.at(i) >= 0)
                    files[i] = QJsonObject{{QStringLiteral("common"), int(sharedAt.at(i))}};
            }
            o.insert(QStringLiteral("files"), files);
        }
        o.insert(QStringLiteral("host"), placement.hostOf.value(k.hostname));
        kernels.append(o);
    }
    QJsonArray roles;
    for (const RoleCount &rc : plan.roles)
        roles.append(QJsonObject{{QStringLiteral("role"), rc.role},
                                 {QStringLiteral("count"), rc.count},
                                 {QStringLiteral("min"), rc.min},
                                 {QStringLiteral("max"), rc.max},
                                 {QStringLiteral("last_idx"), rc.highestIdx()}});
    QJsonObject o{
        {QStringLiteral("session_id"), plan.sessionId},
        {QStringLiteral("session_name"), plan.sessionName},
        {QStringLiteral("template"), plan.templateName},
        {QStringLiteral("network"), plan.networkName},
        {QStringLiteral("failure_action"),
         TemplateValues::failureActionName(plan.failurePolicy.action)},
        {QStringLiteral("max_restarts"), plan.failurePolicy.maxRestarts},
        {QStringLiteral("startup_order"), TemplateValues::startupOrderName(plan.startupOrder)},
        {QStringLiteral("presets"), listToJson(plan.presets)},
        {QStringLiteral("roles"), roles},
        {QStringLiteral("mode"), TemplateValues::modeName(placement.mode)},
        {QStringLiteral("network_host"), placement.networkHost},
        {QStringLiteral("hosts_used"), listToJson(placement.hostsUsed)},
        {QStringLiteral("kernels"), kernels},
    };
    if (!common.isEmpty())
        o.insert(QStringLiteral("common_env"), mapToJson(common));
    if (!sharedFiles.isEmpty())
        o.insert(QStringLiteral("common_files"), filesToJson(sharedFiles));
    if (plan.mtu)
        o.insert(QStringLiteral("mtu"), *plan.mtu);
    // Read by SessionPolicies::of() on every controller pass.
    if (plan.successPolicy.kind != SuccessPolicy::Kind::None) {
        QJsonObject success{
            {QStringLiteral("kind"), TemplateValues::successKindName(plan.successPolicy.kind)}};
        if (plan.successPolicy.kind == SuccessPolicy::Kind::RoleExits)
            success.insert(QStringLiteral("role"), plan.successPolicy.role);
        o.insert(QStringLiteral("success_policy"), success);
    }
    if (plan.ttlAfterFinishedSeconds)
        o.insert(QStringLiteral("ttl_after_finished_seconds"),
                 double(*plan.ttlAfterFinishedSeconds));
    return o;
}

Result<SessionSpec> SessionSpec::fromJson(const QJsonObject &o, const QString &where)
{
    SessionSpec spec;
    ClusterPlan &plan = spec.plan;
    plan.sessionId = o.value(QStringLiteral("session_id")).toString();
    if (plan.sessionId.isEmpty())
        return fail(Error::Kind::Decode, where,
                    QStringLiteral("the stored session spec is missing"));
    plan.sessionName = o.value(QStringLiteral("session_name")).toString();
    plan.templateName = o.value(QStringLiteral("template")).toString();
    plan.networkName = o.value(QStringLiteral("network")).toString();
    if (o.contains(QStringLiteral("mtu")))
        plan.mtu = o.value(QStringLiteral("mtu")).toInt();
    plan.failurePolicy.action =
        TemplateValues::parseFailureAction(o.value(QStringLiteral("failure_action")).toString())
            .value_or(FailurePolicy::Action::TerminateSession);
    plan.failurePolicy.maxRestarts = o.value(QStringLiteral("max_restarts")).toInt(3);
    const QJsonObject success = o.value(QStringLiteral("success_policy")).toObject();
    plan.successPolicy.kind =
        TemplateValues::parseSuccessKind(success.value(QStringLiteral("kind")).toString())
            .value_or(SuccessPolicy::Kind::None);
    if (plan.successPolicy.kind == SuccessPolicy::Kind::RoleExits)
        plan.successPolicy.role = success.value(QStringLiteral("role")).toString();
    if (o.contains(QStringLiteral("ttl_after_finished_seconds")))
        plan.ttlAfterFinishedSeconds =
            qint64(o.value(QStringLiteral("ttl_after_finished_seconds")).toDouble());
    plan.startupOrder =
        TemplateValues::parseStartupOrder(o.value(QStringLiteral("startup_order")).toString())
            .value_or(StartupOrder::Parallel);
    plan.presets = listFromJson(o.value(QStringLiteral("presets")));
    for (const QJsonValue &v : o.value(QStringLiteral("roles")).toArray()) {
        const QJsonObject r = v.toObject();
        // Specs written before `scale` have no bounds: -1 says "unknown, ask the template".
        plan.roles.append(
            {r.value(QStringLiteral("role")).toString(), r.value(QStringLiteral("count")).toInt(),
             r.value(QStringLiteral("min")).toInt(-1), r.value(QStringLiteral("max")).toInt(-1),
             r.value(QStringLiteral("last_idx")).toInt()});
    }
    spec.placement.mode = o.value(QStringLiteral("mode")).toString() == QLatin1String("single-node")
                              ? ClusterMode::SingleNode
                              : ClusterMode::MultiNode;
    plan.mode = spec.placement.mode;
    spec.placement.networkHost = o.value(QStringLiteral("network_host")).toString();
    spec.placement.hostsUsed = listFromJson(o.value(QStringLiteral("hosts_used")));
    // Specs stored before common_env carry every variable in every kernel.
    const QMap<QString, QString> common =
        mapFromJson(o.value(QStringLiteral("common_env")).toObject());
    const QList<PlannedFile> sharedFiles =
        kernelFromJson(
            QJsonObject{{QStringLiteral("files"), o.value(QStringLiteral("common_files"))}})
            .files;
    for (const QJsonValue &v : o.value(QStringLiteral("kernels")).toArray()) {
        KernelSpec k = kernelFromJson(v.toObject());
        for (auto it = common.cbegin(); it != common.cend(); ++it)
            k.env.insert(it.key(), it.value());
        const QJsonArray files = v.toObject().value(QStringLiteral("files")).toArray();
        for (qsizetype i = 0; i < files.size() && i < k.files.size(); ++i) {
            const QJsonValue ref = files.at(i).toObject().value(QStringLiteral("common"));
            if (!ref.isUndefined())
                k.files[i] = sharedFiles.value(ref.toInt());
        }
        spec.placement.hostOf.insert(k.hostname,
                                     v.toObject().value(QStringLiteral("host")).toString());
        plan.kernels.append(k);
    }
    if (plan.kernels.isEmpty())
        return fail(Error::Kind::Decode, where,
                    QStringLiteral("the stored session spec has no kernels"));
    return spec;
}

} // namespace ClusterDeck
