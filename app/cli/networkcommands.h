#pragma once

#include "clicontext.h"

#include <QStringList>

namespace ClusterDeck::Cli {

// `network setup [--driver vxlan|swarm] [--pool CIDR] [--vnis RANGE] [--vxlan-port PORT] [--json]`
// records the store's network settings (NetworkSettings; every value checked first: a bad one
// exits 2 and nothing is written). On the vxlan driver it prints what the store now uses and makes
// no swarm; on swarm it makes all registered hosts one swarm (idempotent), one line per host, and
// exits 0 when every reachable host ends up in it. `network show [--json]` prints the settings.
// `args` starts after the word "network".
int runNetworkCommand(Context &context, const QStringList &args);

} // namespace ClusterDeck::Cli
