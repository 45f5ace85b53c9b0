#pragma once

#include <QByteArray>
#include <QHash>

struct sqlite3;
struct sqlite3_stmt;

namespace ClusterDeck {

// The prepared statements of one connection, kept for its lifetime: preparing costs more than
// running most of ours (a status write spent a third of its time in sqlite3_prepare). Used under
// the store's mutex only, like the connection itself.
class SqliteStatementCache
{
public:
    explicit SqliteStatementCache(sqlite3 *db)
        : m_db(db)
    {}
    ~SqliteStatementCache();
    SqliteStatementCache(const SqliteStatementCache &) = delete;
    SqliteStatementCache &operator=(const SqliteStatementCache &) = delete;

    // The statement of `sql`, reset and unbound; *cached tells whether it must go back with
    // giveBack() (true) or be finalised (false: the cached one is in use by an outer caller).
    sqlite3_stmt *take(const char *sql, int *rc, bool *cached);
    void giveBack(sqlite3_stmt *stmt);

private:
    struct Entry
    {
        sqlite3_stmt *stmt = nullptr;
        bool inUse = false;
    };
    sqlite3 *m_db;
    QHash<QByteArray, Entry> m_entries; // SQL text → statement
};

} // namespace ClusterDeck
