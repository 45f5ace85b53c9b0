#include "sqliterowcodec.h"

#include "recordjson.h"
#include "sqlitestatement.h"

namespace ClusterDeck {

Result<KernelRecord> SqliteRowCodec::kernel(const SqliteStatement &s, const QString &where)
{
    KernelRecord k;
    k.id = s.text(0);
    k.sessionId = s.text(1);
    k.role = s.text(2);
    k.roleIdx = int(s.integer(3));
    k.localRank = int(s.integer(4));
    k.primary = s.integer(5) != 0;
    k.hostname = s.text(6);
    k.host = s.text(7);
    k.containerName = s.text(8);
    k.containerId = s.text(9);
    const auto status = kernelStatusFromString(s.text(10));
    const auto desired = desiredStateFromString(s.text(11));
    if (!status || !desired)
        return fail(Error::Kind::Decode, where,
                    QStringLiteral("kernel %1 has an unknown status \"%2\" or desired state \"%3\"")
                        .arg(k.id, s.text(10), s.text(11)));
    k.status = *status;
    k.desired = *desired;
    auto history = RecordJson::parseArray(s.bytes(12), where);
    auto ports = RecordJson::parseArray(s.bytes(13), where);
    if (!history || !ports)
        return fail(history ? ports.error() : history.error());
    k.history = RecordJson::kernelHistoryFromJson(*history);
    k.ports = RecordJson::portsFromJson(*ports);
    if (!s.isNull(14))
        k.cpus = s.real(14);
    if (!s.isNull(15))
        k.memoryBytes = s.integer(15);
    k.createdAt = RecordJson::dateFromText(s.text(16));
    k.updatedAt = RecordJson::dateFromText(s.text(17));
    if (auto observed = RecordJson::parseObject(s.bytes(18), where); observed)
        k.observed = RecordJson::observationFromJson(*observed);
    return k;
}

Result<SessionRecord> SqliteRowCodec::session(const SqliteStatement &s, const QString &where)
{
    SessionRecord r;
    r.id = s.text(0);
    r.name = s.text(1);
    r.templateName = s.text(2);
    r.templateSnapshot = s.text(3);
    auto options = RecordJson::parseObject(s.bytes(4), where);
    if (!options)
        return fail(options.error());
    r.launch = LaunchRecord::fromJson(*options);
    r.mode = RecordJson::sessionModeFromText(s.text(5));
    const auto desired = desiredStateFromString(s.text(6));
    const auto status = sessionStatusFromString(s.text(7));
    if (!status || !desired)
        return fail(
            Error::Kind::Decode, where,
            QStringLiteral("session %1 has an unknown status \"%2\" or desired state \"%3\"")
                .arg(r.id, s.text(7), s.text(6)));
    r.desired = *desired;
    r.status = *status;
    auto history = RecordJson::parseArray(s.bytes(8), where);
    if (!history)
        return fail(history.error());
    r.history = RecordJson::sessionHistoryFromJson(*history);
    r.lastError = s.text(9);
    r.networkName = s.text(10);
    r.networkId = s.text(11);
    r.networkHost = s.text(12);
    r.restartCount = int(s.integer(13));
    r.createdAt = RecordJson::dateFromText(s.text(14));
    r.updatedAt = RecordJson::dateFromText(s.text(15));
    r.finishedAt = RecordJson::dateFromText(s.text(16));
    return r;
}

Result<HostRecord> SqliteRowCodec::host(const SqliteStatement &s, const QString &where)
{
    HostRecord h;
    h.name = s.text(0);
    h.endpoint = s.text(1);
    h.tlsCa = s.text(2);
    h.tlsCert = s.text(3);
    h.tlsKey = s.text(4);
    h.publicAddress = s.text(5);
    auto labels = RecordJson::parseObject(s.bytes(6), where);
    if (!labels)
        return fail(labels.error());
    h.labels = RecordJson::labelsFromJson(*labels);
    h.addedAt = RecordJson::dateFromText(s.text(7));
    return h;
}

void SqliteRowCodec::bindKernel(SqliteStatement &s, const KernelRecord &k)
{
    s.bind(1, k.id)
        .bind(2, k.sessionId)
        .bind(3, k.role)
        .bind(4, k.roleIdx)
        .bind(5, k.localRank)
        .bind(6, k.primary)
        .bind(7, k.hostname)
        .bind(8, k.host)
        .bind(9, k.containerName)
        .bind(10, k.containerId)
        .bind(11, toString(k.status))
        .bind(12, toString(k.desired))
        .bind(13, RecordJson::compact(RecordJson::historyToJson(k.history)))
        .bind(14, RecordJson::compact(RecordJson::portsToJson(k.ports)))
        .bind(15, k.cpus)
        .bind(16, k.memoryBytes)
        .bind(17, RecordJson::dateToText(k.createdAt))
        .bind(18, RecordJson::dateToText(k.updatedAt))
        .bind(19, RecordJson::compact(RecordJson::observationToJson(k.observed)));
}

} // namespace ClusterDeck
