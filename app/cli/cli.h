#pragma once

#include <QStringList>

namespace ClusterDeck::Cli {

// Parses the command line and runs one command; returns the process exit status.
int run(const QStringList &arguments);

} // namespace ClusterDeck::Cli
