#pragma once

#include "common/error.h"
#include "records.h"

#include <QByteArray>
#include <QJsonArray>
#include <QJsonObject>

// One JSON shape per record, shared by the backends: etcd stores whole records as values, SQLite
// keeps lists (history, ports, labels) in JSON columns. Dates are UTC ISO 8601 with milliseconds.
namespace ClusterDeck::RecordJson {

// A session's mode at the edges: "single-node" / "multi-node", "" while it is not placed (Auto).
QString sessionModeToText(ClusterMode mode);
ClusterMode sessionModeFromText(const QString &text);

QString dateToText(const QDateTime &at);
QDateTime dateFromText(const QString &text);

// The status is spelled as everywhere else ("RUNNING"); an entry whose status this release does
// not know (written by a newer one) is left out.
QJsonArray historyToJson(const QList<KernelStatusChange> &history);
QJsonArray historyToJson(const QList<SessionStatusChange> &history);
QList<KernelStatusChange> kernelHistoryFromJson(const QJsonArray &array);
QList<SessionStatusChange> sessionHistoryFromJson(const QJsonArray &array);
QJsonArray portsToJson(const QList<PortBinding> &ports);
QList<PortBinding> portsFromJson(const QJsonArray &array);
QJsonObject labelsToJson(const QMap<QString, QString> &labels);
QMap<QString, QString> labelsFromJson(const QJsonObject &object);

QJsonObject toJson(const HostRecord &host);
QJsonObject toJson(const SessionRecord &session);
QJsonObject toJson(const KernelRecord &kernel);
QJsonObject toJson(const EventRecord &event);
QJsonObject toJson(const LeaderRecord &leader);
QJsonObject toJson(const ControllerStatus &status);
QJsonObject observationToJson(const KernelObservation &observation);
// These never fail: a missing field is empty (old records, or fields added later).
KernelObservation observationFromJson(const QJsonObject &object);
LeaderRecord leaderFromJson(const QJsonObject &object);
ControllerStatus controllerStatusFromJson(const QJsonObject &object);

// `where` names the key or row in errors ("etcd key /cd/sessions/…").
Result<HostRecord> hostFromJson(const QJsonObject &object, const QString &where);
Result<SessionRecord> sessionFromJson(const QJsonObject &object, const QString &where);
Result<KernelRecord> kernelFromJson(const QJsonObject &object, const QString &where);
Result<EventRecord> eventFromJson(const QJsonObject &object, const QString &where);

// A session network's allocation; the avoided set alone is SQLite's `avoided` column.
QJsonObject toJson(const NetworkAllocation &allocation);
QJsonObject avoidToJson(const OverlayAvoid &avoid);
Result<OverlayAvoid> avoidFromJson(const QJsonObject &object, const QString &where);
Result<NetworkAllocation> networkAllocationFromJson(const QJsonObject &object,
                                                    const QString &where);

QByteArray compact(const QJsonObject &object);
QByteArray compact(const QJsonArray &array);
// Parses a stored JSON object; a damaged value is a Decode error naming `where`.
Result<QJsonObject> parseObject(const QByteArray &bytes, const QString &where);
Result<QJsonArray> parseArray(const QByteArray &bytes, const QString &where);

// A stored value straight to its record: parseObject, then one of the *FromJson above.
template<typename Record>
Result<Record> parseRecord(const QByteArray &bytes, const QString &where,
                           Result<Record> (*fromJson)(const QJsonObject &, const QString &))
{
    auto object = parseObject(bytes, where);
    if (!object)
        return fail(object.error());
    return fromJson(*object, where);
}

} // namespace ClusterDeck::RecordJson
