#pragma once

#include "common/error.h"
#include "template/clustertemplate.h"

#include <QMap>
#include <QString>
#include <QStringList>

#include <utility>

namespace ClusterDeck {
struct LaunchOptions;
}

namespace ClusterDeck::LaunchValues {

// The values an admin types at launch, render and scale time, read in one place so the CLI
// and the console accept the same spellings and say the same thing when one is wrong. Pure.

// `ROLE=N` (N >= 0; ROLE a valid role name): `--count worker=12`, `scale s worker=6`.
Result<std::pair<QString, int>> parseRoleCount(const QString &text);
// `K=V` with K a variable name (V may be empty or hold '='): `--env A=1`.
Result<std::pair<QString, QString>> parseEnv(const QString &text);
// `SRC:DST[:ro|rw]`: `--mount /data:/data:ro`, `--mount cache:/cache`.
Result<Mount> parseMount(const QString &text);

// Several ROLE=N words; a role given twice is an error (which of them would be meant?).
Result<QMap<QString, int>> parseRoleCounts(const QStringList &words);

// `--count`, `--env` and `--mount` values into `options`; the error names the option
// ("--count: 'worker' is not ROLE=N (e.g. worker=6)").
Result<void> apply(LaunchOptions &options, const QStringList &counts, const QStringList &env,
                   const QStringList &mounts);

} // namespace ClusterDeck::LaunchValues
