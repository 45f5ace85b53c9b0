#include "sessionjson.h"

#include "store/recordjson.h"

#include <algorithm>

namespace ClusterDeck {

QJsonObject SessionJson::toJson(const SessionRecord &s, const QList<KernelRecord> &kernels)
{
    QList<KernelRecord> ordered = kernels;
    std::sort(ordered.begin(), ordered.end(), [](const KernelRecord &a, const KernelRecord &b) {
        return a.localRank < b.localRank;
    });
    QJsonArray array;
    for (const KernelRecord &k : std::as_const(ordered))
        array.append(toJson(k));
    return QJsonObject{
        {QStringLiteral("id"), s.id},
        {QStringLiteral("name"), s.name},
        {QStringLiteral("template"), s.templateName},
        {QStringLiteral("mode"), RecordJson::sessionModeToText(s.mode)},
        {QStringLiteral("status"), ClusterDeck::toString(s.status)},
        {QStringLiteral("desired"), ClusterDeck::toString(s.desired)},
        {QStringLiteral("created_at"), RecordJson::dateToText(s.createdAt)},
        {QStringLiteral("network"), s.networkName},
        {QStringLiteral("network_host"), s.networkHost},
        {QStringLiteral("last_error"), s.lastError},
        {QStringLiteral("restart_count"), s.restartCount},
        {QStringLiteral("kernels"), array},
    };
}

QJsonObject SessionJson::toJson(const KernelRecord &k)
{
    QJsonArray ports;
    for (const PortBinding &p : k.ports)
        ports.append(QJsonObject{{QStringLiteral("name"), p.name},
                                 {QStringLiteral("protocol"), p.protocol},
                                 {QStringLiteral("container_port"), p.containerPort},
                                 {QStringLiteral("host_port"), p.hostPort},
                                 {QStringLiteral("url"), p.url}});
    return QJsonObject{
        {QStringLiteral("id"), k.id},
        {QStringLiteral("hostname"), k.hostname},
        {QStringLiteral("role"), k.role},
        {QStringLiteral("role_idx"), k.roleIdx},
        {QStringLiteral("local_rank"), k.localRank},
        {QStringLiteral("primary"), k.primary},
        {QStringLiteral("host"), k.host},
        {QStringLiteral("container_id"), k.containerId},
        {QStringLiteral("container_name"), k.containerName},
        {QStringLiteral("status"), ClusterDeck::toString(k.status)},
        {QStringLiteral("ports"), ports},
    };
}

} // namespace ClusterDeck
