#pragma once

#include <QDateTime>
#include <QJsonObject>
#include <QMap>
#include <QString>
#include <QStringList>

#include <optional>

namespace ClusterDeck {

// A scale that has begun and not finished (SessionScaler): what the controller's `finish-scale`
// needs to undo or finish it after a kill -9.
struct ScaleIntent
{
    // grow: the new kernels are being made (undone when interrupted); shrink and files: the
    // new kernels ran, the removed ones are on their way out (finished when interrupted).
    // Unknown: a phase of a newer release (its name stays in `unknown`).
    enum class Phase { Grow, Shrink, Files, Unknown };

    Phase phase = Phase::Grow;
    QString counts;       // as the admin asked: "worker=12 ps=2"
    QStringList added;    // hostnames
    QStringList removed;  // hostnames
    QJsonObject previous; // the session's spec before the scale (SessionSpec's JSON)
    QDateTime at;
    QJsonObject unknown; // keys of a newer release, written back unchanged

    static QString phaseName(Phase phase);
    friend bool operator==(const ScaleIntent &, const ScaleIntent &) = default;
};

// What a session's record keeps of its launch (SessionRecord::launch): the admin's options, the
// spec the provisioner decided (SessionSpec's JSON; provision/ decodes it), the spec's secrets
// sealed by the store, and an unfinished scale. The stores keep it as the JSON object
// "launch_options"; fromJson/toJson are its one codec, so no reader looks a key up by name.
// Keys it does not know (written by a newer release) are kept as they were.
struct LaunchRecord
{
    QString name;               // the session name asked for (empty: generated)
    QMap<QString, int> counts;  // role → count asked for
    QMap<QString, QString> env; // extra environment asked for
    QStringList mounts;         // "source:target[:ro]" asked for
    QString mode;               // "template", or the mode asked for (modeName)
    QString strategy;           // the placement strategy's name (empty: the default)
    QJsonObject spec;           // SessionSpec::toJson(), secret contents taken out
    QJsonObject secrets;        // those contents, sealed by the store (SessionSecrets)
    std::optional<ScaleIntent> scale;
    QJsonObject unknown; // keys of a newer release, written back unchanged

    // Never fails: what a key holds that is not of its type reads as empty (the spec's own
    // decoder, SessionSpec::fromJson, says what is wrong with a spec).
    static LaunchRecord fromJson(const QJsonObject &object);
    QJsonObject toJson() const;
    friend bool operator==(const LaunchRecord &, const LaunchRecord &) = default;
};

} // namespace ClusterDeck
