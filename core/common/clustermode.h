#pragma once

#include <QString>

#include <optional>

namespace ClusterDeck {

// How a session's kernels are spread: on one host (one bridge network) or over several (one
// overlay network); Auto lets placement decide. Templates, plans and stored sessions all say it.
enum class ClusterMode { SingleNode, MultiNode, Auto };

// "single-node", "multi-node", "auto": the spelling of templates, the store and the CLI.
QString modeName(ClusterMode mode);
std::optional<ClusterMode> parseMode(const QString &text);

} // namespace ClusterDeck
