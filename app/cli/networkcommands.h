#pragma once

#include "clicontext.h"

#include <QStringList>

namespace ClusterDeck::Cli {

// `network setup [--json]`: makes all registered hosts one swarm (idempotent) and prints one line
// per host. Exits 0 when every reachable host ends up in the one swarm. `args` starts after the
// word "network".
int runNetworkCommand(Context &context, const QStringList &args);

} // namespace ClusterDeck::Cli
