#pragma once

#include "clicontext.h"

#include <QStringList>

namespace ClusterDeck::Cli {

// Session lifecycle commands of the CLI (docs/contracts.md). `args` starts after the command.
//   launch FILE [--name NAME] [--count ROLE=N]... [--env K=V]... [--mount SRC:DST[:ro]]...
//               [--mode single-node|multi-node|auto] [--strategy spread|pack] [--no-wait] [--json]
//   ls [--json] | show SESSION [--json] | restart SESSION [--kernel H] | rm SESSION [--kernel H]
//   logs SESSION [--kernel H] [--follow]
int launchCommand(Context &context, const QStringList &args);
int lsCommand(Context &context, const QStringList &args);
int showCommand(Context &context, const QStringList &args);
int restartCommand(Context &context, const QStringList &args);
int rmCommand(Context &context, const QStringList &args);
// scale SESSION ROLE=N [ROLE=N]... [--settle SECONDS] [--json]
int scaleCommand(Context &context, const QStringList &args);
int logsCommand(Context &context, const QStringList &args);

} // namespace ClusterDeck::Cli
