#include "sqlitestatementcache.h"

#include <sqlite3.h>

#include <cstring>

namespace ClusterDeck {

SqliteStatementCache::~SqliteStatementCache()
{
    for (const Entry &e : std::as_const(m_entries))
        sqlite3_finalize(e.stmt);
}

sqlite3_stmt *SqliteStatementCache::take(const char *sql, int *rc, bool *cached)
{
    const QByteArray key = QByteArray::fromRawData(sql, qsizetype(std::strlen(sql)));
    auto it = m_entries.find(key);
    if (it != m_entries.end() && !it->inUse) {
        it->inUse = true;
        *rc = SQLITE_OK;
        *cached = true;
        return it->stmt;
    }
    sqlite3_stmt *stmt = nullptr;
    *cached = it == m_entries.end();
    *rc =
        sqlite3_prepare_v3(m_db, sql, -1, *cached ? SQLITE_PREPARE_PERSISTENT : 0, &stmt, nullptr);
    if (*rc != SQLITE_OK || !stmt)
        *cached = false; // a failed prepare is not kept: the next call reports it again
    else if (*cached)
        m_entries.insert(QByteArray(sql), {stmt, true}); // a deep copy of the key
    return stmt;
}

void SqliteStatementCache::giveBack(sqlite3_stmt *stmt)
{
    // Reset at once: a statement left mid-step would hold a read snapshot open.
    sqlite3_reset(stmt);
    sqlite3_clear_bindings(stmt);
    const char *sql = sqlite3_sql(stmt);
    auto it = m_entries.find(QByteArray::fromRawData(sql, qsizetype(std::strlen(sql))));
    if (it != m_entries.end() && it->stmt == stmt)
        it->inUse = false;
}

} // namespace ClusterDeck
