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

void applyDefaultRules(bool verbose)
{
    if (!qEnvironmentVariableIsEmpty("QT_LOGGING_RULES"))
        return;
    QLoggingCategory::setFilterRules(
        verbose ? QStringLiteral("clusterdeck.*.debug=true\nclusterdeck.*.info=true")
                : QStringLiteral("clusterdeck.*.debug=false\nclusterdeck.*.info=false"));
}

} // namespace ClusterDeck::Logging
