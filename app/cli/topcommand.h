#pragma once

#include "clicontext.h"

#include <QStringList>

namespace ClusterDeck::Cli {

//   top SESSION [--no-stream] [--json]
// Live CPU, memory, network and block I/O of every running kernel, summed per role and for the
// session, refreshed every second like `docker stats`; --no-stream prints one sample.
int topCommand(Context &context, const QStringList &args);

} // namespace ClusterDeck::Cli
