#pragma once

#include <QByteArray>
#include <QString>

#include <sqlite3.h>

#include <optional>

namespace ClusterDeck {

class SqliteStatementCache;

// One prepared statement: from the connection's cache (given back, reset, on destruction) or,
// before the store exists, prepared for this use alone (finalised). Binds are 1-based like
// SQLite's.
class SqliteStatement
{
public:
    // Prepared for this use alone (before the store and its cache exist).
    SqliteStatement(sqlite3 *db, const char *sql);
    SqliteStatement(SqliteStatementCache &cache, const char *sql);
    ~SqliteStatement();
    SqliteStatement(const SqliteStatement &) = delete;
    SqliteStatement &operator=(const SqliteStatement &) = delete;

    int prepareRc() const { return m_rc; }
    SqliteStatement &bind(int i, const QString &text)
    {
        if (text.isNull()) {
            sqlite3_bind_null(m_stmt, i);
        } else {
            const QByteArray utf8 = text.toUtf8();
            sqlite3_bind_text(m_stmt, i, utf8.constData(), int(utf8.size()), SQLITE_TRANSIENT);
        }
        return *this;
    }
    SqliteStatement &bind(int i, const QByteArray &utf8)
    {
        sqlite3_bind_text(m_stmt, i, utf8.constData(), int(utf8.size()), SQLITE_TRANSIENT);
        return *this;
    }
    SqliteStatement &bind(int i, qint64 value)
    {
        sqlite3_bind_int64(m_stmt, i, value);
        return *this;
    }
    SqliteStatement &bind(int i, int value) { return bind(i, qint64(value)); }
    SqliteStatement &bind(int i, bool value) { return bind(i, qint64(value ? 1 : 0)); }
    SqliteStatement &bind(int i, const std::optional<double> &value)
    {
        value ? sqlite3_bind_double(m_stmt, i, *value) : sqlite3_bind_null(m_stmt, i);
        return *this;
    }
    SqliteStatement &bind(int i, const std::optional<qint64> &value)
    {
        value ? sqlite3_bind_int64(m_stmt, i, *value) : sqlite3_bind_null(m_stmt, i);
        return *this;
    }
    // SQLITE_ROW, SQLITE_DONE or an error code.
    int step() { return sqlite3_step(m_stmt); }

    QString text(int col) const
    {
        const auto *p = reinterpret_cast<const char *>(sqlite3_column_text(m_stmt, col));
        return p ? QString::fromUtf8(p, sqlite3_column_bytes(m_stmt, col)) : QString();
    }
    QByteArray bytes(int col) const
    {
        const auto *p = reinterpret_cast<const char *>(sqlite3_column_text(m_stmt, col));
        return p ? QByteArray(p, sqlite3_column_bytes(m_stmt, col)) : QByteArray();
    }
    qint64 integer(int col) const { return sqlite3_column_int64(m_stmt, col); }
    bool isNull(int col) const { return sqlite3_column_type(m_stmt, col) == SQLITE_NULL; }
    double real(int col) const { return sqlite3_column_double(m_stmt, col); }

private:
    sqlite3 *m_db = nullptr;
    SqliteStatementCache *m_cache = nullptr;
    bool m_cached = false;
    sqlite3_stmt *m_stmt = nullptr;
    int m_rc = SQLITE_OK;
};

} // namespace ClusterDeck
