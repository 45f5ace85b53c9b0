#include "sqlitelockowners.h"

#include "common/logging.h"
#include "common/privatefiles.h"

#include <QFile>
#include <QHash>
#include <QSet>
#include <QUuid>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <mutex>
#include <sys/file.h>
#include <unistd.h>

namespace ClusterDeck {

namespace {

// What holdToken() and releaseToken() keep.
std::mutex g_heldTokensMutex;
QSet<QString> g_heldTokens;

// Guards g_ownerFiles.
std::mutex g_ownerFilesMutex;

// Our owner files (directory → descriptor, kept open and locked); removed at a normal exit.
struct OwnerFiles
{
    struct File
    {
        int fd = -1;
        QByteArray path;
    };
    QHash<QString, File> byDir;
    // A release whose DELETE failed (a full disk) left a row of ours behind: our file must stay
    // (unlocked once we exit), or that row would wait for its TTL instead of being taken over
    // as the row of an ended process.
    std::atomic_bool rowsLeftBehind{false};
    ~OwnerFiles()
    {
        for (const File &f : std::as_const(byDir)) {
            if (f.fd < 0)
                continue;
            if (!rowsLeftBehind.load())
                ::unlink(f.path.constData());
            ::close(f.fd);
        }
    }
};
OwnerFiles g_ownerFiles;

QString ownersDir(const QString &dbPath)
{
    return dbPath + QStringLiteral("-owners");
}

} // namespace

const QString &SqliteLockOwners::ownerId()
{
    static const QString id = QUuid::createUuid().toString(QUuid::WithoutBraces);
    return id;
}

void SqliteLockOwners::holdToken(const QString &token)
{
    std::lock_guard lock(g_heldTokensMutex);
    g_heldTokens.insert(token);
}

void SqliteLockOwners::releaseToken(const QString &token)
{
    std::lock_guard lock(g_heldTokensMutex);
    g_heldTokens.remove(token);
}

bool SqliteLockOwners::holdsToken(const QString &token)
{
    std::lock_guard lock(g_heldTokensMutex);
    return g_heldTokens.contains(token);
}

void SqliteLockOwners::announce(const QString &dbPath)
{
    const QString dir = ownersDir(dbPath);
    {
        // (A killed process's file stays until a takeover of one of its rows removes it: without
        // the file, its rows would wait for their TTL.)
        std::lock_guard lock(g_ownerFilesMutex);
        if (g_ownerFiles.byDir.contains(dir))
            return;
        int fd = -1;
        const QByteArray file = QFile::encodeName(dir + u'/' + ownerId());
        if (PrivateFiles::ensureDirectory(dir)) {
            fd = ::open(file.constData(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
            if (fd >= 0 && ::flock(fd, LOCK_EX | LOCK_NB) != 0) {
                ::close(fd);
                fd = -1;
            }
        }
        if (fd < 0)
            qCInfo(lcStore) << "no owner file in" << dir << "(" << strerror(errno)
                            << "): our stale locks expire with their TTL";
        g_ownerFiles.byDir.insert(dir, {fd, file});
    }
}

bool SqliteLockOwners::isGone(const QString &dbPath, const QString &owner)
{
    if (owner.isEmpty() || owner == ownerId() || QUuid::fromString(owner).isNull())
        return false;
    const QByteArray file = QFile::encodeName(ownersDir(dbPath) + u'/' + owner);
    const int fd = ::open(file.constData(), O_RDWR | O_CLOEXEC);
    if (fd < 0)
        return false;
    // Locked by nobody: its process ended. (A file made a moment ago and not locked yet looks
    // the same; removing it only leaves that process's rows to their TTL.)
    const bool gone = ::flock(fd, LOCK_EX | LOCK_NB) == 0;
    ::close(fd);
    return gone;
}

void SqliteLockOwners::forget(const QString &dbPath, const QString &owner)
{
    ::unlink(QFile::encodeName(ownersDir(dbPath) + u'/' + owner).constData());
}

void SqliteLockOwners::keepOwnFiles()
{
    g_ownerFiles.rowsLeftBehind.store(true);
}

} // namespace ClusterDeck
