#include "cli.h"

#include <QCoreApplication>
#include <QLoggingCategory>

int main(int argc, char *argv[])
{
    QCoreApplication app(argc, argv);
    // Scripts parse stdout and expect one `error:` line on stderr: library chatter stays off
    // unless asked for with QT_LOGGING_RULES (e.g. "clusterdeck.*.debug=true").
    if (qEnvironmentVariableIsEmpty("QT_LOGGING_RULES"))
        QLoggingCategory::setFilterRules(
            QStringLiteral("clusterdeck.*.debug=false\nclusterdeck.*.info=false"));
    return ClusterDeck::Cli::run(QCoreApplication::arguments());
}
