#pragma once

#include "clicontext.h"

#include <QStringList>

namespace ClusterDeck::Cli {

// prune [--older-than DURATION] [--dry-run]: forgets ended sessions (never running ones).
int pruneCommand(Context &context, const QStringList &args);

} // namespace ClusterDeck::Cli
