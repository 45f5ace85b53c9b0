#include "tararchivebuilder.h"

#include <archive.h>
#include <archive_entry.h>

#include <QDateTime>

#include <memory>

namespace ClusterDeck::Docker {

namespace {

struct ArchiveDeleter
{
    void operator()(archive *a) const { archive_write_free(a); }
};
struct EntryDeleter
{
    void operator()(archive_entry *e) const { archive_entry_free(e); }
};

la_ssize_t writeToBuffer(archive *, void *user, const void *data, size_t size)
{
    static_cast<QByteArray *>(user)->append(static_cast<const char *>(data), qsizetype(size));
    return la_ssize_t(size);
}

std::unexpected<Error> tarError(archive *a, const QString &what)
{
    return fail(
        Error::Kind::Io, QStringLiteral("tar archive"),
        QStringLiteral("%1: %2").arg(what, QString::fromLocal8Bit(archive_error_string(a))));
}

} // namespace

void TarArchiveBuilder::addFile(const QString &path, const QByteArray &content, int mode, int uid,
                                int gid)
{
    m_entries.append({path, content, mode, uid, gid, false});
}

void TarArchiveBuilder::addDirectory(const QString &path, int mode, int uid, int gid)
{
    m_entries.append({path, QByteArray(), mode, uid, gid, true});
}

Result<QByteArray> TarArchiveBuilder::build() const
{
    QByteArray out;
    std::unique_ptr<archive, ArchiveDeleter> a(archive_write_new());
    if (!a)
        return fail(Error::Kind::Io, QStringLiteral("tar archive"),
                    QStringLiteral("cannot allocate a libarchive writer"));
    archive_write_set_format_pax_restricted(a.get());
    archive_write_set_bytes_in_last_block(a.get(), 1); // no padding to 10 KiB
    if (archive_write_open(a.get(), &out, nullptr, &writeToBuffer, nullptr) != ARCHIVE_OK)
        return tarError(a.get(), QStringLiteral("cannot open"));

    const time_t now = time_t(QDateTime::currentSecsSinceEpoch());
    for (const Entry &e : m_entries) {
        QString path = e.path;
        while (path.startsWith(QLatin1String("./")))
            path.remove(0, 2);
        if (path.isEmpty() || path.startsWith(u'/') ||
            path.split(u'/').contains(QLatin1String("..")))
            return fail(Error::Kind::Invalid, QStringLiteral("tar archive"),
                        QStringLiteral("invalid entry path \"%1\" (must be relative, without "
                                       "\"..\")")
                            .arg(e.path));
        std::unique_ptr<archive_entry, EntryDeleter> entry(archive_entry_new());
        const QByteArray name = path.toUtf8();
        archive_entry_set_pathname_utf8(entry.get(), name.constData());
        archive_entry_set_filetype(entry.get(), e.directory ? AE_IFDIR : AE_IFREG);
        archive_entry_set_perm(entry.get(), mode_t(e.mode));
        archive_entry_set_uid(entry.get(), e.uid);
        archive_entry_set_gid(entry.get(), e.gid);
        archive_entry_set_mtime(entry.get(), now, 0);
        archive_entry_set_size(entry.get(), e.directory ? 0 : la_int64_t(e.content.size()));
        if (archive_write_header(a.get(), entry.get()) != ARCHIVE_OK)
            return tarError(a.get(), QStringLiteral("cannot write header of \"%1\"").arg(path));
        if (!e.directory && !e.content.isEmpty()) {
            const la_ssize_t written =
                archive_write_data(a.get(), e.content.constData(), size_t(e.content.size()));
            if (written != la_ssize_t(e.content.size()))
                return tarError(a.get(), QStringLiteral("cannot write \"%1\"").arg(path));
        }
    }
    if (archive_write_close(a.get()) != ARCHIVE_OK)
        return tarError(a.get(), QStringLiteral("cannot finish"));
    return out;
}

} // namespace ClusterDeck::Docker
