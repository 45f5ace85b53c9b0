#include "error.h"

namespace ClusterDeck {

QString Error::kindName(Kind kind)
{
    switch (kind) {
    case Kind::Transport: return QStringLiteral("transport");
    case Kind::Http: return QStringLiteral("http");
    case Kind::Decode: return QStringLiteral("decode");
    case Kind::Invalid: return QStringLiteral("invalid");
    case Kind::NotFound: return QStringLiteral("not found");
    case Kind::Conflict: return QStringLiteral("conflict");
    case Kind::Timeout: return QStringLiteral("timeout");
    case Kind::Cancelled: return QStringLiteral("cancelled");
    case Kind::Io: return QStringLiteral("io");
    case Kind::Unavailable: return QStringLiteral("unavailable");
    }
    return QStringLiteral("unknown");
}

} // namespace ClusterDeck
