#include "cli.h"
#include "common/logging.h"

#include <QCoreApplication>

int main(int argc, char *argv[])
{
    QCoreApplication app(argc, argv);
    // Scripts parse stdout and expect one `error:` line on stderr: library chatter stays off
    // unless asked for with QT_LOGGING_RULES (e.g. "clusterdeck.*.debug=true"). Every command
    // starts from this; the few that want otherwise (controller, complete) say so themselves.
    ClusterDeck::Logging::apply(ClusterDeck::Logging::Level::Warnings);
    return ClusterDeck::Cli::run(QCoreApplication::arguments());
}
