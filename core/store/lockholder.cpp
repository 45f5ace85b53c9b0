#include "lockholder.h"

#include <QCoreApplication>
#include <QSysInfo>

namespace ClusterDeck {

LockHolder LockHolder::thisProcess()
{
    const QString user = qEnvironmentVariable("USER", QStringLiteral("unknown"));
    return {QStringLiteral("%1@%2 (pid %3)")
                .arg(user, QSysInfo::machineHostName())
                .arg(QCoreApplication::applicationPid()),
            QDateTime::currentDateTimeUtc()};
}

Error LockHolder::busyError(const QString &sessionId) const
{
    const QString who = owner.isEmpty() ? QStringLiteral("another console") : owner;
    const QString when = since.isValid()
                             ? since.toLocalTime().toString(QStringLiteral("yyyy-MM-dd HH:mm:ss"))
                             : QStringLiteral("an unknown time");
    return Error::make(
        Error::Kind::Conflict, QStringLiteral("session %1").arg(sessionId),
        QStringLiteral("session %1 is busy: locked by %2 since %3").arg(sessionId, who, when));
}

} // namespace ClusterDeck
