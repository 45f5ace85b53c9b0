#include "sqlitestatement.h"

#include "sqlitestatementcache.h"

namespace ClusterDeck {

SqliteStatement::SqliteStatement(sqlite3 *db, const char *sql)
    : m_db(db)
{
    m_rc = sqlite3_prepare_v2(db, sql, -1, &m_stmt, nullptr);
}

SqliteStatement::SqliteStatement(SqliteStatementCache &cache, const char *sql)
    : m_cache(&cache)
{
    m_stmt = cache.take(sql, &m_rc, &m_cached);
}

SqliteStatement::~SqliteStatement()
{
    if (m_cached)
        m_cache->giveBack(m_stmt);
    else
        sqlite3_finalize(m_stmt);
}

} // namespace ClusterDeck
