#include "hoststatusjson.h"

#include "hoststatus.h"

#include <QJsonArray>

namespace ClusterDeck {

QJsonObject HostStatusJson::toJson(const HostStatus &s)
{
    QJsonObject labels;
    for (auto it = s.host.labels.cbegin(); it != s.host.labels.cend(); ++it)
        labels.insert(it.key(), it.value());
    QJsonObject object{
        {QStringLiteral("name"), s.host.name},
        {QStringLiteral("endpoint"), s.host.endpoint},
        {QStringLiteral("address"), s.host.publicAddress},
        {QStringLiteral("labels"), labels},
        {QStringLiteral("added_at"), s.host.addedAt.toUTC().toString(Qt::ISODateWithMs)},
        {QStringLiteral("reachable"), s.reachable},
        {QStringLiteral("error"), s.error},
        {QStringLiteral("allocated"),
         QJsonObject{{QStringLiteral("kernels"), s.allocated.kernels},
                     {QStringLiteral("cpus"), s.allocated.cpus},
                     {QStringLiteral("memory"), double(s.allocated.memoryBytes)}}},
    };
    if (!s.host.tlsCa.isEmpty() || !s.host.tlsCert.isEmpty() || !s.host.tlsKey.isEmpty())
        object.insert(QStringLiteral("tls"), QJsonObject{{QStringLiteral("ca"), s.host.tlsCa},
                                                         {QStringLiteral("cert"), s.host.tlsCert},
                                                         {QStringLiteral("key"), s.host.tlsKey}});
    if (s.reachable) {
        object.insert(QStringLiteral("docker_version"), s.dockerVersion);
        object.insert(QStringLiteral("api_version"), s.apiVersion);
        object.insert(QStringLiteral("daemon_api_version"), s.daemonApiVersion);
        object.insert(QStringLiteral("os"), s.operatingSystem);
        object.insert(QStringLiteral("ncpu"), s.ncpu);
        object.insert(QStringLiteral("mem_total"), double(s.memTotal));
        object.insert(QStringLiteral("swarm"),
                      QJsonObject{{QStringLiteral("state"), s.swarmState},
                                  {QStringLiteral("role"), s.swarmRole},
                                  {QStringLiteral("node_id"), s.swarmNodeId},
                                  {QStringLiteral("node_addr"), s.swarmNodeAddr},
                                  {QStringLiteral("cluster_id"), s.swarmClusterId}});
        object.insert(QStringLiteral("images"), QJsonArray::fromStringList(s.images));
    }
    object.insert(QStringLiteral("elapsed_ms"), double(s.elapsedMs));
    return object;
}

} // namespace ClusterDeck
