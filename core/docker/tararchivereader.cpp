#include "tararchivereader.h"

#include <archive.h>
#include <archive_entry.h>

#include <memory>

namespace ClusterDeck::Docker {

namespace {

struct ReaderDeleter
{
    void operator()(archive *a) const { archive_read_free(a); }
};

} // namespace

Result<QByteArray> TarArchiveReader::firstFile(const QByteArray &tar, qint64 maxBytes)
{
    std::unique_ptr<archive, ReaderDeleter> a(archive_read_new());
    if (!a)
        return fail(Error::Kind::Io, QStringLiteral("tar archive"),
                    QStringLiteral("cannot allocate a libarchive reader"));
    archive_read_support_format_tar(a.get());
    if (archive_read_open_memory(a.get(), tar.constData(), size_t(tar.size())) != ARCHIVE_OK)
        return fail(Error::Kind::Decode, QStringLiteral("tar archive"),
                    QString::fromLocal8Bit(archive_error_string(a.get())));
    archive_entry *entry = nullptr;
    int rc;
    while ((rc = archive_read_next_header(a.get(), &entry)) == ARCHIVE_OK) {
        if (archive_entry_filetype(entry) != AE_IFREG)
            continue;
        if (archive_entry_size(entry) > maxBytes)
            return fail(Error::Kind::Invalid, QStringLiteral("tar archive"),
                        QStringLiteral("%1 is larger than %2 bytes")
                            .arg(QString::fromUtf8(archive_entry_pathname(entry)))
                            .arg(maxBytes));
        QByteArray content(qsizetype(archive_entry_size(entry)), Qt::Uninitialized);
        const la_ssize_t n = archive_read_data(a.get(), content.data(), size_t(content.size()));
        if (n < 0)
            return fail(Error::Kind::Decode, QStringLiteral("tar archive"),
                        QString::fromLocal8Bit(archive_error_string(a.get())));
        content.truncate(qsizetype(n));
        return content;
    }
    if (rc != ARCHIVE_EOF)
        return fail(Error::Kind::Decode, QStringLiteral("tar archive"),
                    QString::fromLocal8Bit(archive_error_string(a.get())));
    return fail(Error::Kind::NotFound, QStringLiteral("tar archive"),
                QStringLiteral("holds no regular file"));
}

} // namespace ClusterDeck::Docker
