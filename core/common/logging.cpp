#include "logging.h"

Q_LOGGING_CATEGORY(lcHttp, "clusterdeck.http")
Q_LOGGING_CATEGORY(lcDocker, "clusterdeck.docker")
Q_LOGGING_CATEGORY(lcEtcd, "clusterdeck.etcd")
Q_LOGGING_CATEGORY(lcTemplate, "clusterdeck.template")
Q_LOGGING_CATEGORY(lcPlan, "clusterdeck.plan")
Q_LOGGING_CATEGORY(lcProvision, "clusterdeck.provision")
Q_LOGGING_CATEGORY(lcStore, "clusterdeck.store")
Q_LOGGING_CATEGORY(lcHost, "clusterdeck.host")
Q_LOGGING_CATEGORY(lcControl, "clusterdeck.control")
Q_LOGGING_CATEGORY(lcRegistry, "clusterdeck.registry")

namespace ClusterDeck::Logging {

namespace {

// The rules that put the categories matching `pattern` at `level`.
QString rulesFor(const QString &pattern, Level level)
{
    const auto on = [level](Level from) {
        return level >= from ? QStringLiteral("true") : QStringLiteral("false");
    };
    return QStringLiteral("%1.debug=%2\n%1.info=%3\n%1.warning=%4\n%1.critical=%4\n")
        .arg(pattern, on(Level::Debug), on(Level::Info), on(Level::Warnings));
}

void setRules(Level level, const QString &more)
{
    if (level != Level::Quiet && !qEnvironmentVariableIsEmpty("QT_LOGGING_RULES"))
        return;
    // Quiet silences Qt's own categories too; the others leave them at Qt's defaults.
    const QString base = level == Level::Quiet ? QStringLiteral("*=false\n")
                                               : rulesFor(QStringLiteral("clusterdeck.*"), level);
    QLoggingCategory::setFilterRules(base + more);
}

} // namespace

void apply(Level level)
{
    setRules(level, {});
}

void apply(Level level, const QLoggingCategory &area, Level areaLevel)
{
    setRules(level, rulesFor(QString::fromLatin1(area.categoryName()), areaLevel));
}

} // namespace ClusterDeck::Logging
