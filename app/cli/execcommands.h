#pragma once

#include "clicontext.h"

#include <QStringList>

namespace ClusterDeck::Cli {

// Into the kernels of a session (docs/contracts.md):
//   exec SESSION [--kernel H | --role R | --all] [--parallel N] [--timeout S] [--json] -- CMD...
//        in every selected kernel at once; lines prefixed with the hostname; exit = worst code
//   shell SESSION [--kernel H] [--user U] [-- CMD...]
//        an interactive TTY (bash, else sh) in one kernel (default: the primary)
int execCommand(Context &context, const QStringList &args);
int shellCommand(Context &context, const QStringList &args);

} // namespace ClusterDeck::Cli
