#pragma once

#include <QString>

namespace ClusterDeck {

// A Docker object id (container, image, exec, node) or a session id as people read it: without
// a "sha256:" prefix, the first `length` characters (12, as the docker CLI shows ids).
inline QString shortId(const QString &id, int length = 12)
{
    return (id.startsWith(QLatin1String("sha256:")) ? id.mid(7) : id).left(length);
}

} // namespace ClusterDeck
