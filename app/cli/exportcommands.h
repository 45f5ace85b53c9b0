#pragma once

#include "clicontext.h"
#include "common/error.h"

#include <QStringList>

#include <functional>

class QTextStream;

namespace ClusterDeck {
struct ClusterPlan;
}

namespace ClusterDeck::Cli {

// `export TEMPLATE|SESSION --format jobset|compose [--count ROLE=N]... [--output FILE]`: a
// template file (with --count) or a stored session as it runs now, as a Kubernetes JobSet or a
// Compose file, on stdout (or in FILE); what the format cannot carry as `warning: …` lines on
// stderr. A template needs no store. `args` starts after the word "export".
int exportCommand(Context &context, const QStringList &args);

// A stored session's resolved plan by reference (id, name, id prefix).
using SessionPlanLookup = std::function<Result<ClusterPlan>(const QString &ref)>;

// The same on plain streams (handy in tests); without `sessions` only template files are
// exported. Returns the exit status.
int runExportCommand(const QStringList &args, QTextStream &out, QTextStream &err,
                     const SessionPlanLookup &sessions = {});

} // namespace ClusterDeck::Cli
