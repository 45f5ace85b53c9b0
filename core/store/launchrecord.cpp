#include "launchrecord.h"

#include <QJsonArray>

namespace ClusterDeck {

namespace {

QStringList stringsOf(const QJsonValue &value)
{
    QStringList list;
    for (const QJsonValue &item : value.toArray())
        list.append(item.toString());
    return list;
}

// The object's keys but `known`: what a newer release added, kept to be written back.
QJsonObject unknownKeys(QJsonObject object, std::initializer_list<QLatin1StringView> known)
{
    for (QLatin1StringView key : known)
        object.remove(key);
    return object;
}

ScaleIntent scaleFromJson(const QJsonObject &o)
{
    ScaleIntent intent;
    const QString phase = o.value(QLatin1StringView("phase")).toString();
    intent.phase = phase == u"grow"     ? ScaleIntent::Phase::Grow
                   : phase == u"shrink" ? ScaleIntent::Phase::Shrink
                   : phase == u"files"  ? ScaleIntent::Phase::Files
                                        : ScaleIntent::Phase::Unknown;
    intent.counts = o.value(QLatin1StringView("counts")).toString();
    intent.added = stringsOf(o.value(QLatin1StringView("added")));
    intent.removed = stringsOf(o.value(QLatin1StringView("removed")));
    intent.previous = o.value(QLatin1StringView("previous")).toObject();
    intent.at =
        QDateTime::fromString(o.value(QLatin1StringView("at")).toString(), Qt::ISODateWithMs);
    intent.unknown = unknownKeys(o, {QLatin1StringView("counts"), QLatin1StringView("added"),
                                     QLatin1StringView("removed"), QLatin1StringView("previous"),
                                     QLatin1StringView("at")});
    if (intent.phase != ScaleIntent::Phase::Unknown)
        intent.unknown.remove(QLatin1StringView("phase"));
    return intent;
}

QJsonObject scaleToJson(const ScaleIntent &intent)
{
    QJsonObject o = intent.unknown;
    if (intent.phase != ScaleIntent::Phase::Unknown)
        o.insert(QLatin1StringView("phase"), ScaleIntent::phaseName(intent.phase));
    o.insert(QLatin1StringView("counts"), intent.counts);
    o.insert(QLatin1StringView("added"), QJsonArray::fromStringList(intent.added));
    o.insert(QLatin1StringView("removed"), QJsonArray::fromStringList(intent.removed));
    o.insert(QLatin1StringView("previous"), intent.previous);
    o.insert(QLatin1StringView("at"), intent.at.toString(Qt::ISODateWithMs));
    return o;
}

} // namespace

QString ScaleIntent::phaseName(Phase phase)
{
    switch (phase) {
    case Phase::Grow:
        return QStringLiteral("grow");
    case Phase::Shrink:
        return QStringLiteral("shrink");
    case Phase::Files:
        return QStringLiteral("files");
    case Phase::Unknown:
        break;
    }
    return QStringLiteral("unknown");
}

LaunchRecord LaunchRecord::fromJson(const QJsonObject &o)
{
    LaunchRecord r;
    r.name = o.value(QLatin1StringView("name")).toString();
    const QJsonObject counts = o.value(QLatin1StringView("counts")).toObject();
    for (auto it = counts.constBegin(); it != counts.constEnd(); ++it)
        r.counts.insert(it.key(), it.value().toInt());
    const QJsonObject env = o.value(QLatin1StringView("env")).toObject();
    for (auto it = env.constBegin(); it != env.constEnd(); ++it)
        r.env.insert(it.key(), it.value().toString());
    r.mounts = stringsOf(o.value(QLatin1StringView("mounts")));
    r.mode = o.value(QLatin1StringView("mode")).toString();
    r.strategy = o.value(QLatin1StringView("strategy")).toString();
    r.spec = o.value(QLatin1StringView("spec")).toObject();
    r.secrets = o.value(QLatin1StringView("secrets")).toObject();
    if (const QJsonValue scale = o.value(QLatin1StringView("scale")); scale.isObject())
        r.scale = scaleFromJson(scale.toObject());
    r.unknown = unknownKeys(
        o, {QLatin1StringView("name"), QLatin1StringView("counts"), QLatin1StringView("env"),
            QLatin1StringView("mounts"), QLatin1StringView("mode"), QLatin1StringView("strategy"),
            QLatin1StringView("spec"), QLatin1StringView("secrets"), QLatin1StringView("scale")});
    return r;
}

QJsonObject LaunchRecord::toJson() const
{
    // What is empty is left out: a record holds only what its session has.
    QJsonObject o = unknown;
    if (!name.isEmpty())
        o.insert(QLatin1StringView("name"), name);
    if (!counts.isEmpty()) {
        QJsonObject c;
        for (auto it = counts.cbegin(); it != counts.cend(); ++it)
            c.insert(it.key(), it.value());
        o.insert(QLatin1StringView("counts"), c);
    }
    if (!env.isEmpty()) {
        QJsonObject e;
        for (auto it = env.cbegin(); it != env.cend(); ++it)
            e.insert(it.key(), it.value());
        o.insert(QLatin1StringView("env"), e);
    }
    if (!mounts.isEmpty())
        o.insert(QLatin1StringView("mounts"), QJsonArray::fromStringList(mounts));
    if (!mode.isEmpty())
        o.insert(QLatin1StringView("mode"), mode);
    if (!strategy.isEmpty())
        o.insert(QLatin1StringView("strategy"), strategy);
    if (!spec.isEmpty())
        o.insert(QLatin1StringView("spec"), spec);
    if (!secrets.isEmpty())
        o.insert(QLatin1StringView("secrets"), secrets);
    if (scale)
        o.insert(QLatin1StringView("scale"), scaleToJson(*scale));
    return o;
}

} // namespace ClusterDeck
