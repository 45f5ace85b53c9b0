#pragma once

namespace ClusterDeck {

// The tables of a SQLite state file, as the migrations that make them: a new file runs them
// all, an older one the ones it lacks (SqliteStore::migrate, one transaction), and a file of a
// newer version is refused.
class SqliteSchema
{
public:
    static constexpr int kVersion = 7;
    // The SQL that takes the schema from version `from` to `from` + 1 (nullptr outside 0 …
    // kVersion − 1). Some steps also need code, which migrate() runs in the same transaction.
    static const char *migration(int from);
    // The columns a kernel or session row is read and written with, in SqliteRowCodec's order.
    static const char *const kKernelColumns;
    static const char *const kSessionColumns;
};

} // namespace ClusterDeck
