#pragma once

#include <QString>

#include <optional>

namespace ClusterDeck {

// How a multi-node session's kernels share one network (issue 26): ClusterDeck's own VXLAN
// overlay (a bridge network per host joined by VXLAN devices, VNI and /24 claimed in the store)
// or a Docker Swarm overlay made on a manager. A store has one for new sessions (its setting,
// `network setup --driver`); each session records the one it was launched with, so a switch
// never strands a running session. Single-node sessions always use a plain bridge.
enum class NetworkDriver { Vxlan, Swarm };

// "vxlan", "swarm": the spelling of the CLI, the store's setting and the stored spec.
QString networkDriverName(NetworkDriver driver);
std::optional<NetworkDriver> parseNetworkDriver(const QString &text);

} // namespace ClusterDeck
