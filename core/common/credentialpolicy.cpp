#include "credentialpolicy.h"

#include <QByteArray>

namespace ClusterDeck::CredentialPolicy {

bool plaintextAllowed()
{
    return qgetenv("CLUSTERDECK_ALLOW_PLAINTEXT_CREDENTIALS") == "1";
}

QString refusal(const QString &carrier)
{
    return QStringLiteral("refusing to send registry credentials to %1 unencrypted (anyone on the "
                          "path could read them): reach it over TLS (tcp+tls://, https) or a unix "
                          "socket, or set CLUSTERDECK_ALLOW_PLAINTEXT_CREDENTIALS=1 to allow it")
        .arg(carrier);
}

} // namespace ClusterDeck::CredentialPolicy
