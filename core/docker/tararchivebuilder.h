#pragma once

#include "common/error.h"

#include <QByteArray>
#include <QList>
#include <QString>

namespace ClusterDeck::Docker {

// Builds an in-memory tar archive (POSIX pax) with libarchive, for
// PUT /containers/{id}/archive. Paths are relative to the extraction directory.
class TarArchiveBuilder
{
public:
    void addFile(const QString &path, const QByteArray &content, int mode = 0644, int uid = 0,
                 int gid = 0);
    void addDirectory(const QString &path, int mode = 0755, int uid = 0, int gid = 0);

    // Writes all entries; fails on an invalid path (absolute or with "..").
    Result<QByteArray> build() const;

private:
    struct Entry
    {
        QString path;
        QByteArray content;
        int mode = 0644;
        int uid = 0;
        int gid = 0;
        bool directory = false;
    };
    QList<Entry> m_entries;
};

} // namespace ClusterDeck::Docker
