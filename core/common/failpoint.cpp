#include "failpoint.h"

#include "logging.h"

#include <QByteArray>

#include <atomic>
#include <csignal>

namespace ClusterDeck::FailPoint {

void reached(const char *name)
{
    static const QByteArray armed = qgetenv("CLUSTERDECK_FAILPOINT");
    static std::atomic_bool fired{false};
    if (armed.isEmpty() || armed != name || fired.exchange(true))
        return;
    qCWarning(lcControl) << "fail point" << name << "reached: stopping until continued";
    ::raise(SIGSTOP);
}

} // namespace ClusterDeck::FailPoint
