#pragma once

#include <QLoggingCategory>

// One category per area, so `QT_LOGGING_RULES=clusterdeck.docker.debug=true` narrows the noise.
Q_DECLARE_LOGGING_CATEGORY(lcHttp)
Q_DECLARE_LOGGING_CATEGORY(lcDocker)
Q_DECLARE_LOGGING_CATEGORY(lcEtcd)
Q_DECLARE_LOGGING_CATEGORY(lcTemplate)
Q_DECLARE_LOGGING_CATEGORY(lcPlan)
Q_DECLARE_LOGGING_CATEGORY(lcProvision)
Q_DECLARE_LOGGING_CATEGORY(lcStore)
Q_DECLARE_LOGGING_CATEGORY(lcHost)
Q_DECLARE_LOGGING_CATEGORY(lcControl)
Q_DECLARE_LOGGING_CATEGORY(lcRegistry)

namespace ClusterDeck::Logging {

// What programs an admin runs print by default: ClusterDeck's warnings and errors, not its debug
// and info lines (one GUI session printed 189 HTTP requests in two minutes). `verbose` turns them
// on (the console's Help > Diagnostics). QT_LOGGING_RULES, when set, always wins.
void applyDefaultRules(bool verbose = false);

} // namespace ClusterDeck::Logging
