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

QJsonArray list(const QStringList &values)
{
    return QJsonArray::fromStringList(values);
}

} // namespace

QJsonObject PlanJson::toJson(const KernelSpec &k)
{
    QJsonArray ports;
    for (const ServicePort &p : k.ports)
        ports.append(QJsonObject{{QStringLiteral("name"), p.name},
                                 {QStringLiteral("protocol"), p.protocol},
                                 {QStringLiteral("container_port"), p.port}});
    QJsonObject resources;
    if (k.resources.cpus)
        resources.insert(QStringLiteral("cpus"), *k.resources.cpus);
    if (k.resources.memoryBytes) {
        resources.insert(QStringLiteral("memory_bytes"), double(*k.resources.memoryBytes));
        resources.insert(QStringLiteral("memory"), formatMemory(*k.resources.memoryBytes));
    }
    if (k.resources.gpus)
        resources.insert(QStringLiteral("gpus"), *k.resources.gpus);
    QJsonArray mounts;
    for (const Mount &m : k.mounts) {
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
    QJsonArray files;
    for (const PlannedFile &f : k.files) {
        files.append(QJsonObject{
            {QStringLiteral("path"), f.path},
            {QStringLiteral("mode"), QStringLiteral("0%1").arg(f.mode, 3, 8, QLatin1Char('0'))},
            {QStringLiteral("owner"), f.owner},
            {QStringLiteral("size"), f.content.size()},
            {QStringLiteral("content"), f.isSecret() ? QJsonValue(QJsonValue::Null)
                                                     : QJsonValue(QString::fromUtf8(f.content))}});
    }
    // Empty in the plan: the placed host's registered address (decided by the provisioner).
    const QString bindAddress =
        k.bindAddress.isEmpty() ? QStringLiteral("host-address") : k.bindAddress;
    return QJsonObject{{QStringLiteral("id"), k.kernelId},
                       {QStringLiteral("hostname"), k.hostname},
                       {QStringLiteral("container_name"), k.containerName},
                       {QStringLiteral("role"), k.role},
                       {QStringLiteral("role_idx"), k.roleIdx},
                       {QStringLiteral("local_rank"), k.localRank},
                       {QStringLiteral("primary"), k.primary},
                       {QStringLiteral("image"), k.image},
                       {QStringLiteral("pull_policy"), TemplateValues::pullPolicyName(k.pullPolicy)},
                       {QStringLiteral("entrypoint"), list(k.entrypoint)},
                       {QStringLiteral("command"), list(k.command)},
                       {QStringLiteral("working_dir"), k.workingDir},
                       {QStringLiteral("user"), k.user},
                       {QStringLiteral("env"), map(k.env)},
                       {QStringLiteral("ports"), ports},
                       {QStringLiteral("bind_address"), bindAddress},
                       {QStringLiteral("resources"), resources},
                       {QStringLiteral("mounts"), mounts},
                       {QStringLiteral("labels"), map(k.labels)},
                       {QStringLiteral("host_labels"), map(k.hostLabels)},
                       {QStringLiteral("files"), files}};
}

QJsonObject PlanJson::toJson(const ClusterPlan &plan)
{
    QJsonArray roles;
    for (const RoleCount &rc : plan.roles)
        roles.append(
            QJsonObject{{QStringLiteral("role"), rc.role}, {QStringLiteral("count"), rc.count}});
    QJsonArray kernels;
    for (const KernelSpec &k : plan.kernels)
        kernels.append(toJson(k));
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
                  {QStringLiteral("roles"), roles},
                  {QStringLiteral("kernels"), kernels}};
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
    return o;
}

} // namespace ClusterDeck
