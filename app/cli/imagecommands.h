#pragma once

#include "clicontext.h"

#include <QStringList>

namespace ClusterDeck::Cli {

// `image ls [--hosts H,...] [--json]`: the host × image matrix.
// `image pull IMAGE [--hosts H,...] [--if-not-present] [--json]`: pulls onto every host at once,
//  with one progress bar per host (plain lines when stdout is not a terminal).
// `image rm IMAGE [--hosts H,...] [--force]`: removes it where it is.
int imageCommand(Context &context, const QStringList &args);

// `registry login [SERVER] -u USER [--password-stdin | -p PASSWORD]`, `registry logout [SERVER]`,
// `registry ls [--json]`: the logins of the Docker config, shared with the docker CLI.
int registryCommand(Context &context, const QStringList &args);

} // namespace ClusterDeck::Cli
