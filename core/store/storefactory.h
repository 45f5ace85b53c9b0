#pragma once

#include "common/error.h"

#include <QString>

#include <memory>

namespace ClusterDeck {

class StateStore;
class StoreUrl;

// Opens the backend a store URL names (sqlite:, etcd:, etcds:); see StoreUrl for the forms.
// Errors name the URL (password hidden) and say what to fix.
Result<std::unique_ptr<StateStore>> openStore(const QString &url);
Result<std::unique_ptr<StateStore>> openStore(const StoreUrl &url);

} // namespace ClusterDeck
