#include "sqliteschema.h"

#include <iterator>

namespace ClusterDeck {

namespace {

// Migration i takes the schema from version i to i + 1.
const char *const kMigrations[] = {
    R"sql(
CREATE TABLE hosts (
    name TEXT PRIMARY KEY,
    endpoint TEXT NOT NULL,
    tls_ca TEXT, tls_cert TEXT, tls_key TEXT,
    public_address TEXT,
    labels TEXT NOT NULL DEFAULT '{}',
    added_at TEXT
);
CREATE TABLE sessions (
    id TEXT PRIMARY KEY,
    name TEXT, template_name TEXT, template_snapshot TEXT,
    launch_options TEXT NOT NULL DEFAULT '{}',
    mode TEXT, desired TEXT NOT NULL, status TEXT NOT NULL,
    history TEXT NOT NULL DEFAULT '[]',
    last_error TEXT, network_name TEXT, network_id TEXT, network_host TEXT,
    restart_count INTEGER NOT NULL DEFAULT 0,
    created_at TEXT, updated_at TEXT
);
CREATE TABLE kernels (
    id TEXT PRIMARY KEY,
    session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
    role TEXT, role_idx INTEGER, local_rank INTEGER, is_primary INTEGER NOT NULL DEFAULT 0,
    hostname TEXT, host TEXT, container_name TEXT, container_id TEXT,
    status TEXT NOT NULL, desired TEXT NOT NULL,
    history TEXT NOT NULL DEFAULT '[]', ports TEXT NOT NULL DEFAULT '[]',
    cpus REAL, memory_bytes INTEGER,
    created_at TEXT, updated_at TEXT
);
CREATE INDEX kernels_by_session ON kernels(session_id, local_rank);
CREATE TABLE events (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    at TEXT, actor TEXT, session_id TEXT, kernel_id TEXT, action TEXT, detail TEXT
);
CREATE TABLE changes (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    kind TEXT NOT NULL, a TEXT, b TEXT, at_ms INTEGER NOT NULL
);
CREATE TABLE locks (
    session_id TEXT PRIMARY KEY,
    owner TEXT NOT NULL, token TEXT NOT NULL, pid INTEGER, hostname TEXT,
    since TEXT, expires_ms INTEGER NOT NULL
);
)sql",
    // 2: what the controller observes of each kernel, when a session finished, the controller's
    // leader row (term = fencing token, kept across leaders so it only grows) and its status.
    R"sql(
ALTER TABLE kernels ADD COLUMN observed TEXT NOT NULL DEFAULT '{}';
ALTER TABLE sessions ADD COLUMN finished_at TEXT;
CREATE TABLE leader (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    owner TEXT NOT NULL, record TEXT NOT NULL, term INTEGER NOT NULL, expires_ms INTEGER NOT NULL
);
CREATE TABLE controller (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    status TEXT, requests INTEGER NOT NULL DEFAULT 0
);
INSERT INTO controller(id, status, requests) VALUES (1, NULL, 0);
)sql",
    // 3: the store's identity. `id` (a random UUID, the io.clusterdeck.store label) and, for a
    // file made before it, `legacy_labels` (a JSON array of the URL labels earlier builds wrote)
    // are written by migrate() in the same transaction.
    R"sql(
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
)sql",
    // 4: each session's secrets once, in launch_options["secrets"], not inline in every kernel's
    // spec (SessionSecrets). migrate() moves them in the same transaction; earlier builds would
    // recreate kernels with empty key files from such a record, so they must refuse the file.
    R"sql(
SELECT 1;
)sql",
    // 5: the random owner id of a session lock's process (ourOwnerId()); `owner`, `pid` and
    // `hostname` stay for people. migrate() adds the column locks.owner_id when it is missing.
    R"sql(
SELECT 1;
)sql",
    // 6: the VXLAN id and /24 of each multi-node session (issue 26). UNIQUE: two sessions never
    // share either, whatever a writer does; the rows go with their session. IF NOT EXISTS: a file
    // taken back to an older version number by hand keeps its table.
    R"sql(
CREATE TABLE IF NOT EXISTS network_allocations (
    session_id TEXT PRIMARY KEY REFERENCES sessions(id) ON DELETE CASCADE,
    vni INTEGER NOT NULL UNIQUE,
    subnet TEXT NOT NULL UNIQUE,
    avoided TEXT NOT NULL DEFAULT '{}',
    claimed_at TEXT
);
)sql",
    // 7: store-wide settings (issue 26: network.driver, network.pool …), one row per key that is
    // set; a key without a row reads as "". IF NOT EXISTS as for 6.
    R"sql(
CREATE TABLE IF NOT EXISTS settings (key TEXT PRIMARY KEY, value TEXT NOT NULL);
)sql",
};
static_assert(std::size(kMigrations) == SqliteSchema::kVersion);

} // namespace

const char *SqliteSchema::migration(int from)
{
    return from >= 0 && from < kVersion ? kMigrations[from] : nullptr;
}

const char *const SqliteSchema::kKernelColumns =
    "id, session_id, role, role_idx, local_rank, is_primary, hostname, host, container_name, "
    "container_id, status, desired, history, ports, cpus, memory_bytes, created_at, updated_at, "
    "observed";
const char *const SqliteSchema::kSessionColumns =
    "id, name, template_name, template_snapshot, launch_options, mode, desired, status, history, "
    "last_error, network_name, network_id, network_host, restart_count, created_at, updated_at, "
    "finished_at";

} // namespace ClusterDeck
