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

// How much of ClusterDeck's logging a program prints; each level adds to the one before.
enum class Level {
    Quiet,    // nothing at all, Qt's own warnings included: output that is only an answer
              // (shell completion)
    Warnings, // ClusterDeck's warnings and errors: what every program prints by default (one
              // GUI session printed 189 HTTP requests in two minutes)
    Info,     // and its info lines
    Debug,    // and its debug lines (the console's Help > Diagnostic Output)
};

// The one place that sets the logging rules: `level` for every ClusterDeck area. When
// QT_LOGGING_RULES is set it decides instead and this does nothing, except for Quiet, which
// applies anyway (what QT_LOGGING_RULES names still wins: Qt puts it over these rules).
void apply(Level level);
// The same, with one area at a level of its own: `clusterdeckctl controller` prints what the
// controller decides (lcControl at Info), not the libraries' chatter.
void apply(Level level, const QLoggingCategory &area, Level areaLevel);

} // namespace ClusterDeck::Logging
