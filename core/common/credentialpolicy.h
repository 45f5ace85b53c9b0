#pragma once

#include <QString>

namespace ClusterDeck::CredentialPolicy {

// Registry credentials (a password, an identity token) travel only encrypted: to a Docker daemon
// over its unix socket or TLS (tcp+tls://), to a registry's token service over https. A plain
// tcp:// daemon or an http:// token realm gets none — anyone on the path could read them —
// unless CLUSTERDECK_ALLOW_PLAINTEXT_CREDENTIALS=1 says so (a lab, a trusted network).
bool plaintextAllowed();
// The refusal, naming what would have carried them ("host h2 (tcp://10.0.0.2:2375)").
QString refusal(const QString &carrier);

} // namespace ClusterDeck::CredentialPolicy
