#pragma once

#include "clicontext.h"

#include <QStringList>

namespace ClusterDeck::Cli {

// store key export [--output FILE] | store key import [FILE | -]: shares the key that encrypts
// a shared (etcd) store's secrets between admins' consoles (see StoreKey).
int storeCommand(Context &context, const QStringList &args);

} // namespace ClusterDeck::Cli
