#pragma once

#include <QString>

namespace ClusterDeck {

// Who holds the session-lock rows of SQLite stores, and whether that process still lives, on
// this machine, whatever its PID namespace: every process that takes a session lock first holds
// an flock on <file>-owners/<owner id> for its lifetime (the kernel drops it when the process
// ends, however it ends). A row whose owner's file can be locked belongs to a process that is
// gone; a row without such a file (another machine, a full disk) is judged by its expiry alone.
// These files are never the database or its -wal/-shm: SQLite alone opens those.
class SqliteLockOwners
{
public:
    // This process's owner id in lock rows: random, made once. Whether a row's holder is alive
    // is judged by its expiry (the holder renews it) or its owner file, never by a pid, which
    // another PID namespace or host may reuse.
    static const QString &ownerId();

    // The tokens of the session locks this process holds, over all its stores: a lock row of
    // this process whose token is not among them was released, but its row could not be deleted
    // (the disk was full); it must not keep the session busy until it expires.
    static void holdToken(const QString &token);
    static void releaseToken(const QString &token);
    static bool holdsToken(const QString &token);

    // Makes and locks this process's owner file beside `dbPath` (once per store file).
    static void announce(const QString &dbPath);
    // Whether the process of `owner` has ended (its owner file is there and nobody locks it).
    static bool isGone(const QString &dbPath, const QString &owner);
    // After the last row of an ended owner was taken over: its file has nothing left to tell.
    static void forget(const QString &dbPath, const QString &owner);
    // A release whose DELETE failed (a full disk) left a row of ours behind: our files stay at
    // exit (unlocked then), so that the row is taken over as an ended process's, not after its TTL.
    static void keepOwnFiles();
};

} // namespace ClusterDeck
