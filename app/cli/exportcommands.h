#pragma once

#include "clicontext.h"

#include <QStringList>

class QTextStream;

namespace ClusterDeck::Cli {

// `export TEMPLATE --format jobset|compose [--count ROLE=N]... [--output FILE]`: the template as
// a Kubernetes JobSet or a Compose file, on stdout (or in FILE); what the format cannot carry as
// `warning: …` lines on stderr. Needs no store. `args` starts after the word "export".
int exportCommand(Context &context, const QStringList &args);

// The same on plain streams (handy in tests). Returns the exit status.
int runExportCommand(const QStringList &args, QTextStream &out, QTextStream &err);

} // namespace ClusterDeck::Cli
