#pragma once

#include "common/error.h"

#include <QByteArray>
#include <QString>

namespace ClusterDeck::Docker {

// Reads what GET /containers/{id}/archive returns: an in-memory tar archive (libarchive).
class TarArchiveReader
{
public:
    // The content of the first regular file in `tar`, at most `maxBytes` of it (a guard against
    // a huge file where a small one was asked for). NotFound when it holds no regular file.
    static Result<QByteArray> firstFile(const QByteArray &tar, qint64 maxBytes = 4 << 20);
};

} // namespace ClusterDeck::Docker
