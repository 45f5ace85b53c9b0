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
