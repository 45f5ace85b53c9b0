#pragma once

#include "store/records.h"

#include <QJsonArray>
#include <QJsonObject>

namespace ClusterDeck {

// The `show --json` object of docs/contracts.md (`ls --json` is an array of them, `launch --json`
// prints one):
// {"id","name","template","mode","status","desired","created_at","network","kernels":[…]}. Extra
// keys are only ever added, never renamed.
class SessionJson
{
public:
    static QJsonObject toJson(const SessionRecord &session, const QList<KernelRecord> &kernels);
    static QJsonObject toJson(const KernelRecord &kernel);
};

} // namespace ClusterDeck
