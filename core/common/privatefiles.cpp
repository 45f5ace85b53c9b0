#include "privatefiles.h"

#include "logging.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace ClusterDeck {

namespace {

QString errnoText()
{
    return QString::fromLocal8Bit(std::strerror(errno));
}

} // namespace

int PrivateFiles::modeOf(const QString &path)
{
    struct stat st
    {
    };
    if (::stat(QFile::encodeName(path).constData(), &st) != 0)
        return -1;
    return int(st.st_mode & 07777);
}

Result<void> PrivateFiles::ensureDirectory(const QString &dir)
{
    const QString where = QStringLiteral("folder %1").arg(dir);
    if (!QDir().mkpath(dir))
        return fail(Error::Kind::Io, where,
                    QStringLiteral("cannot create the folder (check the permissions of its "
                                   "parent)"));
    const QByteArray path = QFile::encodeName(dir);
    struct stat st
    {
    };
    if (::stat(path.constData(), &st) != 0)
        return fail(Error::Kind::Io, where, errnoText());
    if ((st.st_mode & 0077) == 0)
        return {};
    const bool shared = st.st_uid != ::geteuid() || (st.st_mode & S_ISVTX) ||
                        QFileInfo(dir).canonicalFilePath() == QDir::home().canonicalPath();
    if (shared) {
        qCWarning(lcStore).noquote()
            << QStringLiteral("%1 is open to other users (mode %2); ClusterDeck's files in it "
                              "are 0600, but a folder of their own (0700) is safer")
                   .arg(dir, QString::number(st.st_mode & 0777, 8));
        return {};
    }
    if (::chmod(path.constData(), 0700) != 0)
        return fail(Error::Kind::Io, where,
                    QStringLiteral("cannot make the folder private (0700): %1").arg(errnoText()));
    qCInfo(lcStore).noquote() << QStringLiteral("%1: mode %2 → 0700 (it holds secrets)")
                                     .arg(dir, QString::number(st.st_mode & 0777, 8));
    return {};
}

Result<void> PrivateFiles::restrictFile(const QString &file)
{
    const QByteArray path = QFile::encodeName(file);
    struct stat st
    {
    };
    if (::stat(path.constData(), &st) != 0)
        return {};
    if ((st.st_mode & 0077) == 0)
        return {};
    if (::chmod(path.constData(), st.st_mode & 0700) != 0)
        return fail(Error::Kind::Io, QStringLiteral("file %1").arg(file),
                    QStringLiteral("cannot make the file private (0600): %1").arg(errnoText()));
    qCInfo(lcStore).noquote() << QStringLiteral("%1: mode %2 → %3 (it holds secrets)")
                                     .arg(file, QString::number(st.st_mode & 0777, 8),
                                          QString::number(st.st_mode & 0700, 8));
    return {};
}

Result<void> PrivateFiles::ensureFile(const QString &file)
{
    const QByteArray path = QFile::encodeName(file);
    struct stat st
    {
    };
    if (::stat(path.constData(), &st) == 0)
        return restrictFile(file);
    // Never a descriptor on `file` itself: it may be a SQLite database this process has open, and
    // closing any descriptor of a file drops every POSIX lock the process holds on it
    // (sqlite.org/howtocorrupt.html §2.2). The empty file is made under a name of its own and
    // linked into place; link() refuses a name that exists, so a file made meanwhile stays as is.
    static std::atomic<unsigned> serial{0};
    const QByteArray temp = path + ".new-" + QByteArray::number(qint64(::getpid())) + '-' +
                            QByteArray::number(serial.fetch_add(1));
    const QString where = QStringLiteral("file %1").arg(file);
    ::unlink(temp.constData()); // left by a killed process that had our pid
    const int fd = ::open(temp.constData(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0)
        return fail(Error::Kind::Io, where, errnoText());
    ::close(fd);
    const int linked = ::link(temp.constData(), path.constData());
    const int linkErrno = errno;
    ::unlink(temp.constData());
    if (linked != 0 && linkErrno != EEXIST) {
        // A file system without hard links: create the name itself, exclusively. A new inode
        // carries no lock of ours, so closing this descriptor drops none.
        const int own = ::open(path.constData(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
        if (own < 0 && errno != EEXIST)
            return fail(Error::Kind::Io, where, errnoText());
        if (own >= 0)
            ::close(own);
    }
    return restrictFile(file);
}

Result<void> PrivateFiles::writeFile(const QString &file, const QByteArray &data,
                                     bool privateFolder)
{
    const QString where = QStringLiteral("file %1").arg(file);
    if (privateFolder) {
        if (auto ok = ensureDirectory(QFileInfo(file).absolutePath()); !ok)
            return ok;
    }
    const QString temp = file + QStringLiteral(".tmp");
    const QByteArray tempPath = QFile::encodeName(temp);
    ::unlink(tempPath.constData());
    const int fd = ::open(tempPath.constData(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0)
        return fail(Error::Kind::Io, where, errnoText());
    qsizetype written = 0;
    while (written < data.size()) {
        const ssize_t n = ::write(fd, data.constData() + written, size_t(data.size() - written));
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            const QString why = errnoText();
            ::close(fd);
            ::unlink(tempPath.constData());
            return fail(Error::Kind::Io, where, why);
        }
        written += n;
    }
    if (::fsync(fd) != 0 || ::close(fd) != 0) {
        const QString why = errnoText();
        ::unlink(tempPath.constData());
        return fail(Error::Kind::Io, where, why);
    }
    if (::rename(tempPath.constData(), QFile::encodeName(file).constData()) != 0) {
        const QString why = errnoText();
        ::unlink(tempPath.constData());
        return fail(Error::Kind::Io, where, why);
    }
    return {};
}

} // namespace ClusterDeck
