#include "cli.h"
#include "common/logging.h"

#include <QCoreApplication>

int main(int argc, char *argv[])
{
    QCoreApplication app(argc, argv);
    // Scripts parse stdout and expect one `error:` line on stderr: library chatter stays off
    // unless asked for with QT_LOGGING_RULES (e.g. "clusterdeck.*.debug=true").
    ClusterDeck::Logging::applyDefaultRules();
    return ClusterDeck::Cli::run(QCoreApplication::arguments());
}
