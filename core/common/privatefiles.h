#pragma once

#include "error.h"

#include <QByteArray>
#include <QString>

namespace ClusterDeck {

// Files only the user may read: the state file and its -wal/-shm (they hold sessions' secrets)
// and the store keys. Files are 0600, their folder 0700; what exists with looser modes is
// repaired (and logged) when ClusterDeck opens it.
class PrivateFiles
{
public:
    // Makes `dir` (and missing parents). The folder itself is then made 0700 unless it is shared
    // by nature or not ours to change: not owned by the user, the sticky bit set (/tmp), or the
    // user's home folder — those are left alone, with a warning when others can enter them.
    static Result<void> ensureDirectory(const QString &dir);
    // Sets mode 0600 on `file` when it exists and is looser (a missing file is fine).
    static Result<void> restrictFile(const QString &file);
    // Creates `file` empty with mode 0600 when it is missing (so nothing else creates it with
    // the umask's mode first); repairs the mode of an existing one. Never opens `file` itself
    // (safe for a SQLite database this process holds open: see the .cpp).
    static Result<void> ensureFile(const QString &file);
    // Writes `data` to `file` (0600) through a temporary file and a rename; the folder is made
    // private too (ensureDirectory) when `privateFolder` (not for a path the user chose).
    static Result<void> writeFile(const QString &file, const QByteArray &data,
                                  bool privateFolder = true);
    // The mode bits (07777) of a path, -1 when it does not exist.
    static int modeOf(const QString &path);
};

} // namespace ClusterDeck
