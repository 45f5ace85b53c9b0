#pragma once

#include "clicontext.h"

#include <QStringList>

namespace ClusterDeck::Cli {

// The controller from the command line (docs/architecture.md, "The controller"):
//   controller [--resync SECONDS] [--lease-ttl SECONDS] [--grace SECONDS]
//                              lead (when elected) in the foreground until SIGTERM / Ctrl-C
//   reconcile [--json] [--timeout SECONDS]
//                              one pass: in this process if it can lead, else by the leader
//   watch                      follow the store's changes (a viewer: it acts on nothing)
int controllerCommand(Context &context, const QStringList &args);
int reconcileCommand(Context &context, const QStringList &args);
int watchCommand(Context &context, const QStringList &args);

} // namespace ClusterDeck::Cli
