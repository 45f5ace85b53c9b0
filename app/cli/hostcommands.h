#pragma once

#include "clicontext.h"

#include <QStringList>

namespace ClusterDeck::Cli {

// `host add NAME --docker ENDPOINT [--tls-ca F --tls-cert F --tls-key F] [--address ADDR]
//  [--label K=V]... [--no-check]`, `host ls [--json]`, `host rm NAME`,
// `host inspect NAME [--json]`. `args` starts after the word "host".
int runHostCommand(Context &context, const QStringList &args);

} // namespace ClusterDeck::Cli
