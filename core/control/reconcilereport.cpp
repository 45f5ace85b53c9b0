#include "reconcilereport.h"

#include "store/recordjson.h"

#include <QJsonArray>

namespace ClusterDeck {

int ReconcileReport::changes() const
{
    int n = 0;
    for (const Applied &a : applied)
        n += a.done ? 1 : 0;
    return n;
}

QJsonObject ReconcileReport::toJson() const
{
    QJsonArray list;
    for (const Applied &a : applied) {
        QJsonObject o = a.action.toJson();
        o.insert(QStringLiteral("done"), a.done);
        o.insert(QStringLiteral("outcome"), a.outcome);
        list.append(o);
    }
    QJsonObject o{{QStringLiteral("changes"), list},
                  {QStringLiteral("notes"), QJsonArray::fromStringList(notes)},
                  {QStringLiteral("warnings"), QJsonArray::fromStringList(warnings)},
                  {QStringLiteral("started_at"), RecordJson::dateToText(startedAt)},
                  {QStringLiteral("finished_at"), RecordJson::dateToText(finishedAt)}};
    if (!refused.isEmpty())
        o.insert(QStringLiteral("refused"), refused);
    return o;
}

ReconcileReport ReconcileReport::fromJson(const QJsonObject &o)
{
    ReconcileReport r;
    for (const QJsonValue &v : o.value(QLatin1StringView("changes")).toArray()) {
        const QJsonObject c = v.toObject();
        Applied a;
        a.action.kind = ReconcileAction::Kind::CompleteSession;
        const QString name = c.value(QLatin1StringView("action")).toString();
        for (int k = 0; k <= int(ReconcileAction::Kind::FinishScale); ++k) {
            if (ReconcileAction::name(ReconcileAction::Kind(k)) == name)
                a.action.kind = ReconcileAction::Kind(k);
        }
        a.action.sessionId = c.value(QLatin1StringView("session")).toString();
        a.action.kernelId = c.value(QLatin1StringView("kernel")).toString();
        a.action.host = c.value(QLatin1StringView("host")).toString();
        a.action.objectId = c.value(QLatin1StringView("object_id")).toString();
        a.action.objectName = c.value(QLatin1StringView("object")).toString();
        if (c.contains(QLatin1StringView("exit_code")))
            a.action.exitCode = c.value(QLatin1StringView("exit_code")).toInt();
        a.action.why = c.value(QLatin1StringView("why")).toString();
        a.done = c.value(QLatin1StringView("done")).toBool();
        a.outcome = c.value(QLatin1StringView("outcome")).toString();
        r.applied.append(a);
    }
    for (const QJsonValue &v : o.value(QLatin1StringView("notes")).toArray())
        r.notes.append(v.toString());
    for (const QJsonValue &v : o.value(QLatin1StringView("warnings")).toArray())
        r.warnings.append(v.toString());
    r.refused = o.value(QLatin1StringView("refused")).toString();
    r.startedAt = RecordJson::dateFromText(o.value(QLatin1StringView("started_at")).toString());
    r.finishedAt = RecordJson::dateFromText(o.value(QLatin1StringView("finished_at")).toString());
    return r;
}

} // namespace ClusterDeck
