#pragma once

#include <QLoggingCategory>

// The session networks' own area: `QT_LOGGING_RULES=clusterdeck.network.debug=true`.
Q_DECLARE_LOGGING_CATEGORY(lcNetwork)
