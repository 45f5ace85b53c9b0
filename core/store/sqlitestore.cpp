#include "sqlitestore.h"

#include "common/logging.h"
#include "common/privatefiles.h"
#include "recordjson.h"
#include "sessionsecrets.h"
#include "sqliteleadership.h"
#include "sqlitelockowners.h"
#include "sqliterowcodec.h"
#include "sqlitesessionlock.h"
#include "sqlitestatement.h"
#include "sqlitestatementcache.h"

#include <QCoreApplication>
#include <QFile>
#include <QFileInfo>
#include <QHash>
#include <QJsonArray>
#include <QSysInfo>
#include <QTimer>
#include <QUuid>

#include <sqlite3.h>

#include <limits>
#include <thread>

namespace ClusterDeck {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

namespace {

// How long one write waits for another process's transaction before trying again, and how long
// it keeps trying in total before reporting the file as busy.
constexpr int kBusyTimeoutMs = 5000;
constexpr auto kWriteDeadline = 120s;
// A session lock row lives this long unless its holder renews it (every third of it, from a
// thread of the lock, so a long launch on a busy thread keeps it); CLUSTERDECK_SQLITE_LOCK_TTL_MS
// shortens it for tests.
constexpr qint64 kDefaultLockTtlMs = 15 * 1000; // as an etcd session lock's lease

qint64 lockTtlMs()
{
    bool ok = false;
    const qint64 ms = qEnvironmentVariableIntValue("CLUSTERDECK_SQLITE_LOCK_TTL_MS", &ok);
    return ok && ms > 0 ? ms : kDefaultLockTtlMs;
}

constexpr qint64 kChangeRetentionMs = 10 * 60 * 1000;

qint64 nowMs()
{
    return QDateTime::currentMSecsSinceEpoch();
}

bool isBusy(int rc)
{
    const int primary = rc & 0xff;
    return primary == SQLITE_BUSY || primary == SQLITE_LOCKED;
}

} // namespace

SqliteStore::SqliteStore(QString path, sqlite3 *db, QObject *parent)
    : StateStore(parent)
    , m_path(std::move(path))
    , m_db(db)
    , m_statements(std::make_unique<SqliteStatementCache>(db))
{
    m_timer = new QTimer(this);
    m_timer->setInterval(500ms);
    connect(m_timer, &QTimer::timeout, this, &SqliteStore::pollChanges);
    m_timer->start();
}

SqliteStore::~SqliteStore()
{
    m_statements.reset(); // finalised before the connection closes
    sqlite3_close_v2(m_db);
}

Result<std::unique_ptr<SqliteStore>> SqliteStore::open(const QString &path, QObject *parent)
{
    const QString where = QStringLiteral("state store %1").arg(path);
    if (path.isEmpty() || !QFileInfo(path).isAbsolute())
        return fail(Error::Kind::Invalid, where,
                    QStringLiteral("the SQLite state file needs an absolute path"));
    // The file holds the sessions' secrets: 0600 in a 0700 folder, made so before SQLite
    // creates it (its -wal and -shm take the main file's mode), repaired when found looser.
    const QString dir = QFileInfo(path).absolutePath();
    if (auto ok = PrivateFiles::ensureDirectory(dir); !ok)
        return fail(ok.error().withContext(where));
    if (auto ok = PrivateFiles::ensureFile(path); !ok)
        return fail(ok.error().withContext(where));

    sqlite3 *db = nullptr;
    const int rc = sqlite3_open_v2(
        QFile::encodeName(path).constData(), &db,
        SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_FULLMUTEX, nullptr);
    if (rc != SQLITE_OK) {
        const QString message =
            db ? QString::fromUtf8(sqlite3_errmsg(db)) : QString::fromUtf8(sqlite3_errstr(rc));
        sqlite3_close_v2(db);
        return fail(Error::Kind::Io, where,
                    QStringLiteral("cannot open the state file: %1").arg(message));
    }
    // Like sqlite3_busy_timeout, but polling every millisecond: the default handler's growing
    // sleeps (up to 100 ms) make two busy writers take turns far slower than they could.
    sqlite3_busy_handler(
        db,
        [](void *, int count) -> int {
            if (count * 1 >= kBusyTimeoutMs)
                return 0;
            std::this_thread::sleep_for(count < 10 ? 100us : 1ms);
            return 1;
        },
        nullptr);
    sqlite3_extended_result_codes(db, 1);

    std::unique_ptr<SqliteStore> store(new SqliteStore(path, db, parent));
    // WAL lets readers run while one process writes; NORMAL sync is durable at checkpoints and
    // never corrupts in WAL mode.
    {
        SqliteStatement wal(db, "PRAGMA journal_mode=WAL");
        const int step = wal.step();
        if (step != SQLITE_ROW)
            return fail(store->sqlError(step, QStringLiteral("switching to WAL mode")));
        if (wal.text(0).compare(QStringLiteral("wal"), Qt::CaseInsensitive) != 0)
            return fail(Error::Kind::Io, where,
                        QStringLiteral("the file system does not support SQLite's WAL mode "
                                       "(journal mode is %1); put the state file on a local disk")
                            .arg(wal.text(0)));
    }
    for (const char *suffix : {"-wal", "-shm"}) {
        if (auto ok = PrivateFiles::restrictFile(path + QLatin1String(suffix)); !ok)
            return fail(ok.error().withContext(where));
    }
    if (auto ok = store->exec("PRAGMA synchronous=NORMAL; PRAGMA foreign_keys=ON;",
                              QStringLiteral("configuring the connection"));
        !ok)
        return fail(ok.error());
    if (auto ok = store->migrate(); !ok)
        return fail(ok.error());

    SqliteStatement last(db, "SELECT COALESCE(MAX(seq), 0) FROM changes");
    if (last.step() == SQLITE_ROW)
        store->m_lastChange = last.integer(0);
    SqliteStatement version(db, "PRAGMA data_version");
    if (version.step() == SQLITE_ROW)
        store->m_dataVersion = version.integer(0);
    qCDebug(lcStore) << "opened" << path << "schema" << kSchemaVersion;
    return store;
}

Error SqliteStore::sqlError(int rc, const QString &what) const
{
    m_busy = isBusy(rc);
    const QString detail = QString::fromUtf8(sqlite3_errmsg(m_db));
    const int primary = rc & 0xff;
    Error::Kind kind = Error::Kind::Io;
    QString message = QStringLiteral("%1 failed: %2").arg(what, detail);
    if (primary == SQLITE_CONSTRAINT) {
        kind = Error::Kind::Conflict;
    } else if (m_busy) {
        kind = Error::Kind::Timeout;
        message = QStringLiteral("%1: the state file stayed busy (another ClusterDeck process is "
                                 "writing it for a long time): %2")
                      .arg(what, detail);
    } else if (primary == SQLITE_READONLY || primary == SQLITE_CANTOPEN) {
        message += QStringLiteral(" (check the permissions of the file and its folder)");
    } else if (primary == SQLITE_FULL) {
        message += QStringLiteral(" (the disk is full)");
    } else if (primary == SQLITE_CORRUPT || primary == SQLITE_NOTADB) {
        message += QStringLiteral(" (the file is damaged or not a ClusterDeck state file)");
    }
    return Error::make(kind, QStringLiteral("state store %1").arg(m_path), message);
}

Result<void> SqliteStore::exec(const char *sql, const QString &what) const
{
    char *errmsg = nullptr;
    const int rc = sqlite3_exec(m_db, sql, nullptr, nullptr, &errmsg);
    sqlite3_free(errmsg);
    if (rc != SQLITE_OK)
        return fail(sqlError(rc, what));
    return {};
}

Result<void> SqliteStore::migrate()
{
    const auto deadline = Clock::now() + kWriteDeadline;
    for (;;) {
        std::lock_guard lock(m_mutex);
        m_busy = false;
        auto begin = exec("BEGIN IMMEDIATE", QStringLiteral("starting the schema check"));
        if (!begin) {
            if (m_busy && Clock::now() < deadline)
                continue;
            return begin;
        }
        auto body = [&]() -> Result<void> {
            SqliteStatement get(*m_statements, "PRAGMA user_version");
            if (const int rc = get.step(); rc != SQLITE_ROW)
                return fail(sqlError(rc, QStringLiteral("reading the schema version")));
            const int version = int(get.integer(0));
            if (version > kSchemaVersion)
                return fail(Error::Kind::Invalid, QStringLiteral("state store %1").arg(m_path),
                            QStringLiteral("%1 was written by a newer ClusterDeck (schema %2, this "
                                           "build knows %3); upgrade ClusterDeck or use another "
                                           "store with --store")
                                .arg(QFileInfo(m_path).fileName())
                                .arg(version)
                                .arg(kSchemaVersion));
            for (int v = version; v < kSchemaVersion; ++v) {
                if (version > 0) // a new file is simply created at the current schema
                    qCInfo(lcStore) << "migrating" << m_path << "from schema" << v << "to" << v + 1;
                if (auto ok = exec(
                        SqliteSchema::migration(v),
                        QStringLiteral("migrating the schema from %1 to %2").arg(v).arg(v + 1));
                    !ok)
                    return ok;
            }
            if (version < 5) {
                SqliteStatement columns(*m_statements, "SELECT 1 FROM pragma_table_info('locks') "
                                                       "WHERE name = 'owner_id'");
                if (columns.step() != SQLITE_ROW) {
                    if (auto ok = exec("ALTER TABLE locks ADD COLUMN owner_id TEXT",
                                       QStringLiteral("migrating the schema to 5"));
                        !ok)
                        return ok;
                }
            }
            if (auto ok = ensureIdentity(version); !ok)
                return ok;
            if (version > 0 && version < 4) {
                if (auto ok = moveSecretsOut(); !ok)
                    return ok;
            }
            if (version != kSchemaVersion) {
                const QByteArray set = "PRAGMA user_version=" + QByteArray::number(kSchemaVersion);
                if (auto ok = exec(set.constData(), QStringLiteral("writing the schema version"));
                    !ok)
                    return ok;
            }
            return {};
        }();
        if (!body) {
            (void)exec("ROLLBACK", QStringLiteral("rolling back"));
            if (m_busy && Clock::now() < deadline)
                continue;
            return body;
        }
        auto commit = exec("COMMIT", QStringLiteral("committing the schema"));
        if (!commit) {
            (void)exec("ROLLBACK", QStringLiteral("rolling back"));
            if (m_busy && Clock::now() < deadline)
                continue;
        }
        return commit;
    }
}

Result<void> SqliteStore::moveSecretsOut()
{
    QList<std::pair<QString, QByteArray>> rewritten;
    {
        SqliteStatement get(*m_statements, "SELECT id, launch_options FROM sessions");
        int rc;
        while ((rc = get.step()) == SQLITE_ROW) {
            auto options = RecordJson::parseObject(get.bytes(1), m_path);
            if (!options)
                continue; // an undecodable row is reported where it is read
            LaunchRecord launch = LaunchRecord::fromJson(*options);
            if (!launch.secrets.isEmpty())
                continue;
            const QMap<QString, QByteArray> values = SessionSecrets::extract(launch.spec);
            if (values.isEmpty())
                continue;
            launch.secrets = SessionSecrets::sealPlain(values);
            rewritten.append({get.text(0), RecordJson::compact(launch.toJson())});
        }
        if (rc != SQLITE_DONE)
            return fail(sqlError(rc, QStringLiteral("reading sessions to move their secrets")));
    }
    for (const auto &[id, options] : std::as_const(rewritten)) {
        SqliteStatement put(*m_statements, "UPDATE sessions SET launch_options = ? WHERE id = ?");
        put.bind(1, options).bind(2, id);
        if (const int rc = put.step(); rc != SQLITE_DONE)
            return fail(sqlError(rc, QStringLiteral("moving the secrets of session %1").arg(id)));
    }
    if (!rewritten.isEmpty())
        qCInfo(lcStore) << "kept the secrets of" << rewritten.size() << "sessions once per session";
    return {};
}

Result<QJsonObject> SqliteStore::sealSecrets(const QString &,
                                             const QMap<QString, QByteArray> &values)
{
    return SessionSecrets::sealPlain(values);
}

Result<QMap<QString, QByteArray>> SqliteStore::openSecrets(const QString &sessionId,
                                                           const QJsonObject &sealed) const
{
    return SessionSecrets::openWithStoredKey(sealed, m_storeId, sessionId);
}

Result<StoreKey> SqliteStore::storeKey()
{
    return fail(Error::Kind::Invalid, QStringLiteral("state store %1").arg(m_path),
                QStringLiteral("a SQLite store keeps its secrets in its own file, readable by you "
                               "alone (0600); it has no store key to export or import"));
}

Result<void> SqliteStore::importStoreKey(const StoreKey &)
{
    return fail(storeKey().error());
}

Result<void> SqliteStore::ensureIdentity(int fromVersion)
{
    auto put = [&](const char *key, const QString &value) -> Result<void> {
        SqliteStatement s(*m_statements, "INSERT OR IGNORE INTO meta(key, value) VALUES(?, ?)");
        s.bind(1, QString::fromLatin1(key)).bind(2, value);
        if (const int rc = s.step(); rc != SQLITE_DONE)
            return fail(sqlError(rc, QStringLiteral("writing the store id")));
        return {};
    };
    if (auto ok = put("id", QUuid::createUuid().toString(QUuid::WithoutBraces)); !ok)
        return ok;
    // A file from before the store id: its objects carry the URL as their store label.
    if (fromVersion > 0 && fromVersion < 3) {
        const QJsonArray legacy{url()};
        if (auto ok = put("legacy_labels", QString::fromUtf8(RecordJson::compact(legacy))); !ok)
            return ok;
    }
    m_storeId.clear();
    m_legacyLabels.clear();
    SqliteStatement get(*m_statements,
                        "SELECT key, value FROM meta WHERE key IN ('id', 'legacy_labels')");
    int rc;
    while ((rc = get.step()) == SQLITE_ROW) {
        if (get.text(0) == u"id") {
            m_storeId = get.text(1);
        } else if (auto array = RecordJson::parseArray(get.bytes(1), m_path); array) {
            for (const QJsonValue &v : std::as_const(*array))
                m_legacyLabels.append(v.toString());
        }
    }
    if (rc != SQLITE_DONE)
        return fail(sqlError(rc, QStringLiteral("reading the store id")));
    if (m_storeId.isEmpty())
        return fail(Error::Kind::Decode, QStringLiteral("state store %1").arg(m_path),
                    QStringLiteral("the store has no id (table meta)"));
    if (!StoreIdentity::isWellFormed(m_storeId))
        return fail(Error::Kind::Decode, QStringLiteral("state store %1").arg(m_path),
                    StoreIdentity::malformed(m_storeId));
    return {};
}

Result<void> SqliteStore::write(const QString &what, const std::function<Result<void>()> &body,
                                Fencing fencing, std::optional<Clock::time_point> until)
{
    const auto deadline = until.value_or(Clock::now() + kWriteDeadline);
    Result<void> outcome;
    {
        std::unique_lock lock(m_mutex);
        for (int attempt = 1;; ++attempt) {
            if (attempt > 1) {
                // Another process held the write lock past the busy timeout: back off briefly.
                lock.unlock();
                std::this_thread::sleep_for(std::chrono::milliseconds(10 * std::min(attempt, 20)));
                lock.lock();
            }
            m_busy = false;
            outcome = exec("BEGIN IMMEDIATE", what);
            if (!outcome) {
                if (m_busy && Clock::now() < deadline)
                    continue;
                break;
            }
            if (fencing == Fencing::Apply && m_fence)
                outcome = checkFence(*m_fence);
            if (outcome)
                outcome = body();
            if (outcome) {
                // Trim the change log now and then; readers only need the last few seconds.
                if (++m_writes % 256 == 0) {
                    SqliteStatement trim(*m_statements, "DELETE FROM changes WHERE at_ms < ?");
                    trim.bind(1, nowMs() - kChangeRetentionMs);
                    trim.step();
                }
                outcome = exec("COMMIT", what);
            }
            if (!outcome) {
                const bool busy = m_busy;
                (void)exec("ROLLBACK", what);
                if (busy && Clock::now() < deadline) {
                    qCDebug(lcStore) << what << "busy, retrying; attempt" << attempt;
                    continue;
                }
            }
            break;
        }
    }
    if (outcome)
        pollChanges();
    return outcome;
}

Result<void> SqliteStore::logChange(const QString &kind, const QString &a, const QString &b)
{
    SqliteStatement s(*m_statements, "INSERT INTO changes(kind, a, b, at_ms) VALUES(?, ?, ?, ?)");
    s.bind(1, kind).bind(2, a).bind(3, b).bind(4, nowMs());
    if (const int rc = s.step(); rc != SQLITE_DONE)
        return fail(sqlError(rc, QStringLiteral("recording the change")));
    return {};
}

void SqliteStore::setPollInterval(std::chrono::milliseconds interval)
{
    if (interval.count() <= 0) {
        m_timer->stop();
        return;
    }
    m_timer->setInterval(interval);
    m_timer->start();
}

void SqliteStore::pollChanges()
{
    QList<Change> changes;
    {
        std::lock_guard lock(m_mutex);
        SqliteStatement s(*m_statements,
                          "SELECT seq, kind, a, b FROM changes WHERE seq > ? ORDER BY seq");
        s.bind(1, m_lastChange);
        while (s.step() == SQLITE_ROW) {
            changes.append({s.integer(0), s.text(1), s.text(2), s.text(3)});
            m_lastChange = s.integer(0);
        }
    }
    for (const Change &c : std::as_const(changes)) {
        if (c.kind == u"host")
            Q_EMIT hostChanged(c.a);
        else if (c.kind == u"host-removed")
            Q_EMIT hostRemoved(c.a);
        else if (c.kind == u"session-added")
            Q_EMIT sessionAdded(c.a);
        else if (c.kind == u"session")
            Q_EMIT sessionChanged(c.a);
        else if (c.kind == u"session-removed")
            Q_EMIT sessionRemoved(c.a);
        else if (c.kind == u"kernel")
            Q_EMIT kernelChanged(c.a, c.b);
        else if (c.kind == u"event")
            Q_EMIT eventAppended(c.a.toLongLong());
        else if (c.kind == u"controller")
            Q_EMIT controllerChanged();
        else if (c.kind == u"controller-request")
            Q_EMIT controllerPassRequested();
        else if (c.kind == u"setting")
            Q_EMIT settingChanged(c.a);
    }
}

QString SqliteStore::url() const
{
    return QStringLiteral("sqlite://") + m_path;
}

QString SqliteStore::describe() const
{
    return QStringLiteral("sqlite ") + m_path;
}

// ---- hosts

Result<void> SqliteStore::putHost(const HostRecord &h)
{
    if (h.name.isEmpty())
        return fail(Error::Kind::Invalid, QString(), QStringLiteral("a host needs a name"));
    return write(QStringLiteral("saving host %1").arg(h.name), [&]() -> Result<void> {
        SqliteStatement s(*m_statements,
                          "INSERT OR REPLACE INTO hosts(name, endpoint, tls_ca, tls_cert, tls_key, "
                          "public_address, labels, added_at) VALUES(?, ?, ?, ?, ?, ?, ?, ?)");
        s.bind(1, h.name)
            .bind(2, h.endpoint.isNull() ? QStringLiteral("") : h.endpoint)
            .bind(3, h.tlsCa)
            .bind(4, h.tlsCert)
            .bind(5, h.tlsKey)
            .bind(6, h.publicAddress)
            .bind(7, RecordJson::compact(RecordJson::labelsToJson(h.labels)))
            .bind(8, RecordJson::dateToText(h.addedAt));
        if (const int rc = s.step(); rc != SQLITE_DONE)
            return fail(sqlError(rc, QStringLiteral("saving host %1").arg(h.name)));
        return logChange(QStringLiteral("host"), h.name);
    });
}

Result<void> SqliteStore::removeHost(const QString &name)
{
    return write(QStringLiteral("removing host %1").arg(name), [&]() -> Result<void> {
        SqliteStatement s(*m_statements, "DELETE FROM hosts WHERE name = ?");
        s.bind(1, name);
        if (const int rc = s.step(); rc != SQLITE_DONE)
            return fail(sqlError(rc, QStringLiteral("removing host %1").arg(name)));
        if (sqlite3_changes(m_db) == 0)
            return fail(Error::Kind::NotFound, QStringLiteral("host %1").arg(name),
                        QStringLiteral("no such host is registered"));
        return logChange(QStringLiteral("host-removed"), name);
    });
}

namespace {
constexpr char kHostSelect[] = "SELECT name, endpoint, tls_ca, tls_cert, tls_key, public_address, "
                               "labels, added_at FROM hosts";
} // namespace

Result<QList<HostRecord>> SqliteStore::hosts() const
{
    std::lock_guard lock(m_mutex);
    SqliteStatement s(*m_statements,
                      QByteArray(QByteArray(kHostSelect) + " ORDER BY name").constData());
    QList<HostRecord> list;
    int rc;
    while ((rc = s.step()) == SQLITE_ROW) {
        auto h = SqliteRowCodec::host(s, QStringLiteral("state store %1, table hosts").arg(m_path));
        if (!h)
            return fail(h.error());
        list.append(std::move(*h));
    }
    if (rc != SQLITE_DONE)
        return fail(sqlError(rc, QStringLiteral("listing hosts")));
    return list;
}

Result<HostRecord> SqliteStore::host(const QString &name) const
{
    std::lock_guard lock(m_mutex);
    SqliteStatement s(*m_statements,
                      QByteArray(QByteArray(kHostSelect) + " WHERE name = ?").constData());
    s.bind(1, name);
    const int rc = s.step();
    if (rc == SQLITE_ROW)
        return SqliteRowCodec::host(s, QStringLiteral("state store %1, host %2").arg(m_path, name));
    if (rc != SQLITE_DONE)
        return fail(sqlError(rc, QStringLiteral("reading host %1").arg(name)));
    return fail(Error::Kind::NotFound, QStringLiteral("host %1").arg(name),
                QStringLiteral("no such host is registered"));
}

// ---- sessions

QByteArray SqliteStore::launchText(const LaunchRecord &launch)
{
    // A session's launch record holds its spec (about 1 KiB per kernel) and stays the same
    // through its status changes: encoded once, not at every write (a copy of the same spec
    // compares in O(1)).
    if (launch != m_launch || m_launchText.isNull()) {
        m_launch = launch;
        m_launchText = RecordJson::compact(launch.toJson());
    }
    return m_launchText;
}

Result<void> SqliteStore::writeSession(const SessionRecord &r, bool insert)
{
    const QByteArray sql =
        insert ? QByteArray(QByteArray("INSERT INTO sessions(") + SqliteSchema::kSessionColumns +
                            ") VALUES(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")
               : QByteArray("UPDATE sessions SET name = ?2, template_name = ?3, "
                            "template_snapshot = ?4, launch_options = ?5, "
                            "mode = ?6, desired = ?7, status = ?8, history = ?9, "
                            "last_error = ?10, network_name = ?11, network_id = "
                            "?12, network_host = ?13, restart_count = ?14, "
                            "created_at = ?15, updated_at = ?16, finished_at = ?17 WHERE id = ?1");
    SqliteStatement s(*m_statements, sql.constData());
    s.bind(1, r.id)
        .bind(2, r.name)
        .bind(3, r.templateName)
        .bind(4, r.templateSnapshot)
        .bind(5, launchText(r.launch))
        .bind(6, RecordJson::sessionModeToText(r.mode))
        .bind(7, toString(r.desired))
        .bind(8, toString(r.status))
        .bind(9, RecordJson::compact(RecordJson::historyToJson(r.history)))
        .bind(10, r.lastError)
        .bind(11, r.networkName)
        .bind(12, r.networkId)
        .bind(13, r.networkHost)
        .bind(14, r.restartCount)
        .bind(15, RecordJson::dateToText(r.createdAt))
        .bind(16, RecordJson::dateToText(r.updatedAt))
        .bind(17, RecordJson::dateToText(r.finishedAt));
    const int rc = s.step();
    if (rc != SQLITE_DONE) {
        Error e = sqlError(rc, QStringLiteral("saving session %1").arg(r.id));
        if (e.kind == Error::Kind::Conflict)
            e.message = QStringLiteral("session %1 already exists").arg(r.id);
        return fail(e);
    }
    if (!insert && sqlite3_changes(m_db) == 0)
        return fail(Error::Kind::NotFound, QStringLiteral("session %1").arg(r.id),
                    QStringLiteral("no such session"));
    return logChange(insert ? QStringLiteral("session-added") : QStringLiteral("session"), r.id);
}

Result<void> SqliteStore::insertKernel(const KernelRecord &k)
{
    SqliteStatement s(
        *m_statements,
        QByteArray(QByteArray("INSERT INTO kernels(") + SqliteSchema::kKernelColumns +
                   ") VALUES(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")
            .constData());
    SqliteRowCodec::bindKernel(s, k);
    const int rc = s.step();
    if (rc != SQLITE_DONE) {
        Error e = sqlError(rc, QStringLiteral("saving kernel %1").arg(k.id));
        if (e.kind == Error::Kind::Conflict)
            e.message = QStringLiteral("kernel id %1 (%2) is already used").arg(k.id, k.hostname);
        return fail(e);
    }
    return {};
}

Result<void> SqliteStore::writeKernel(const KernelRecord &k)
{
    SqliteStatement s(*m_statements,
                      "UPDATE kernels SET role = ?3, role_idx = ?4, local_rank = ?5, "
                      "is_primary = ?6, hostname = ?7, host = ?8, container_name = ?9, "
                      "container_id = ?10, status = ?11, desired = ?12, history = ?13, "
                      "ports = ?14, cpus = ?15, memory_bytes = ?16, created_at = ?17, "
                      "updated_at = ?18, "
                      // The controller's newer observation survives a writer's older copy.
                      "observed = CASE WHEN COALESCE(json_extract(observed, '$.at'), '') > "
                      "COALESCE(json_extract(?19, '$.at'), '') THEN observed ELSE ?19 END "
                      "WHERE id = ?1 AND session_id = ?2");
    SqliteRowCodec::bindKernel(s, k);
    if (const int rc = s.step(); rc != SQLITE_DONE)
        return fail(sqlError(rc, QStringLiteral("saving kernel %1").arg(k.id)));
    if (sqlite3_changes(m_db) == 0)
        return fail(Error::Kind::NotFound, QStringLiteral("kernel %1").arg(k.id),
                    QStringLiteral("no such kernel in session %1").arg(k.sessionId));
    return logChange(QStringLiteral("kernel"), k.sessionId, k.id);
}

Result<void> SqliteStore::createSession(const SessionRecord &session,
                                        const QList<KernelRecord> &kernels)
{
    if (session.id.isEmpty())
        return fail(Error::Kind::Invalid, QString(), QStringLiteral("a session needs an id"));
    for (const KernelRecord &k : kernels) {
        if (k.id.isEmpty() || k.sessionId != session.id)
            return fail(Error::Kind::Invalid, QStringLiteral("session %1").arg(session.id),
                        QStringLiteral("kernel %1 (%2) must have an id and session id %3")
                            .arg(k.id, k.hostname, session.id));
    }
    return write(QStringLiteral("creating session %1").arg(session.id), [&]() -> Result<void> {
        if (auto ok = writeSession(session, true); !ok)
            return ok;
        for (const KernelRecord &k : kernels) {
            if (auto ok = insertKernel(k); !ok)
                return ok;
        }
        return {};
    });
}

Result<void> SqliteStore::updateSession(const SessionRecord &session)
{
    return write(QStringLiteral("updating session %1").arg(session.id),
                 [&]() { return writeSession(session, false); });
}

Result<void> SqliteStore::removeSession(const QString &sessionId)
{
    return write(QStringLiteral("removing session %1").arg(sessionId), [&]() -> Result<void> {
        // Its network allocation goes with it (the foreign key would too; said here, so it does
        // not depend on the connection's foreign_keys setting).
        SqliteStatement network(*m_statements,
                                "DELETE FROM network_allocations WHERE session_id = ?");
        network.bind(1, sessionId);
        if (const int rc = network.step(); rc != SQLITE_DONE)
            return fail(sqlError(rc, QStringLiteral("releasing the network of %1").arg(sessionId)));
        SqliteStatement kernels(*m_statements, "DELETE FROM kernels WHERE session_id = ?");
        kernels.bind(1, sessionId);
        if (const int rc = kernels.step(); rc != SQLITE_DONE)
            return fail(sqlError(rc, QStringLiteral("removing the kernels of %1").arg(sessionId)));
        SqliteStatement s(*m_statements, "DELETE FROM sessions WHERE id = ?");
        s.bind(1, sessionId);
        if (const int rc = s.step(); rc != SQLITE_DONE)
            return fail(sqlError(rc, QStringLiteral("removing session %1").arg(sessionId)));
        if (sqlite3_changes(m_db) == 0)
            return fail(Error::Kind::NotFound, QStringLiteral("session %1").arg(sessionId),
                        QStringLiteral("no such session"));
        SqliteStatement lock(*m_statements,
                             "DELETE FROM locks WHERE session_id = ? AND expires_ms < ?");
        lock.bind(1, sessionId).bind(2, nowMs());
        lock.step();
        return logChange(QStringLiteral("session-removed"), sessionId);
    });
}

Result<void> SqliteStore::resizeSession(const SessionRecord &session,
                                        const QList<KernelRecord> &added,
                                        const QStringList &removedIds)
{
    for (const KernelRecord &k : added) {
        if (k.id.isEmpty() || k.sessionId != session.id)
            return fail(Error::Kind::Invalid, QStringLiteral("session %1").arg(session.id),
                        QStringLiteral("kernel %1 (%2) must have an id and session id %3")
                            .arg(k.id, k.hostname, session.id));
    }
    return write(QStringLiteral("resizing session %1").arg(session.id), [&]() -> Result<void> {
        if (auto ok = writeSession(session, false); !ok)
            return ok;
        for (const QString &id : removedIds) {
            SqliteStatement d(*m_statements, "DELETE FROM kernels WHERE session_id = ? AND id = ?");
            d.bind(1, session.id).bind(2, id);
            if (const int rc = d.step(); rc != SQLITE_DONE)
                return fail(sqlError(rc, QStringLiteral("removing kernel %1").arg(id)));
        }
        for (const KernelRecord &k : added) {
            if (auto ok = insertKernel(k); !ok)
                return ok;
            if (auto ok = logChange(QStringLiteral("kernel"), k.sessionId, k.id); !ok)
                return ok;
        }
        return {};
    });
}

Result<SessionListing> SqliteStore::listSessions() const
{
    std::lock_guard lock(m_mutex);
    SqliteStatement s(*m_statements,
                      QByteArray(QByteArray("SELECT ") + SqliteSchema::kSessionColumns +
                                 " FROM sessions ORDER BY created_at, id")
                          .constData());
    SessionListing listing;
    int rc;
    while ((rc = s.step()) == SQLITE_ROW) {
        const QString row =
            QStringLiteral("state store %1, table sessions, row id %2").arg(m_path, s.text(0));
        auto r = SqliteRowCodec::session(s, row);
        if (r)
            listing.sessions.append(std::move(*r));
        else
            listing.undecodable.append({row, r.error().message});
    }
    if (rc != SQLITE_DONE)
        return fail(sqlError(rc, QStringLiteral("listing sessions")));
    return listing;
}

Result<SessionRecord> SqliteStore::session(const QString &sessionId) const
{
    std::lock_guard lock(m_mutex);
    SqliteStatement s(*m_statements,
                      QByteArray(QByteArray("SELECT ") + SqliteSchema::kSessionColumns +
                                 " FROM sessions WHERE id = ?")
                          .constData());
    s.bind(1, sessionId);
    const int rc = s.step();
    if (rc == SQLITE_ROW) {
        auto r = SqliteRowCodec::session(
            s, QStringLiteral("state store %1, session %2").arg(m_path, sessionId));
        if (r) {
            // Read, changed and written back (a terminate, a policy): its options, unchanged,
            // need no encoding then.
            m_launch = r->launch;
            m_launchText = s.bytes(4);
        }
        return r;
    }
    if (rc != SQLITE_DONE)
        return fail(sqlError(rc, QStringLiteral("reading session %1").arg(sessionId)));
    return fail(Error::Kind::NotFound, QStringLiteral("session %1").arg(sessionId),
                QStringLiteral("no such session"));
}

// ---- kernels

Result<void> SqliteStore::updateKernel(const KernelRecord &kernel)
{
    return write(QStringLiteral("updating kernel %1").arg(kernel.id),
                 [&]() { return writeKernel(kernel); });
}

Result<void> SqliteStore::updateKernels(const QList<KernelRecord> &kernels,
                                        const std::optional<SessionRecord> &session)
{
    return write(QStringLiteral("updating %1 kernels").arg(kernels.size()), [&]() -> Result<void> {
        for (const KernelRecord &k : kernels) {
            if (auto ok = writeKernel(k); !ok)
                return ok;
        }
        if (session)
            return writeSession(*session, false);
        return {};
    });
}

Result<KernelRecord> SqliteStore::updateKernelStatus(const QString &sessionId,
                                                     const QString &kernelId, KernelStatus status,
                                                     const QString &reason)
{
    KernelRecord updated;
    auto ok = write(
        QStringLiteral("setting the status of kernel %1").arg(kernelId), [&]() -> Result<void> {
            auto current = readKernel(sessionId, kernelId);
            if (!current)
                return fail(current.error());
            if (!*current)
                return fail(Error::Kind::NotFound, QStringLiteral("kernel %1").arg(kernelId),
                            QStringLiteral("no such kernel in session %1").arg(sessionId));
            updated = std::move(**current);
            updated.changeStatus(status, QDateTime::currentDateTimeUtc(), reason);
            return writeKernel(updated);
        });
    if (!ok)
        return fail(ok.error());
    return updated;
}

Result<std::optional<KernelRecord>> SqliteStore::readKernel(const QString &sessionId,
                                                            const QString &kernelId) const
{
    std::lock_guard lock(m_mutex);
    SqliteStatement s(*m_statements,
                      QByteArray(QByteArray("SELECT ") + SqliteSchema::kKernelColumns +
                                 " FROM kernels WHERE id = ? AND session_id = ?")
                          .constData());
    s.bind(1, kernelId).bind(2, sessionId);
    const int rc = s.step();
    if (rc == SQLITE_ROW) {
        auto k = SqliteRowCodec::kernel(
            s, QStringLiteral("state store %1, kernel %2").arg(m_path, kernelId));
        if (!k)
            return fail(k.error());
        return std::optional<KernelRecord>(std::move(*k));
    }
    if (rc != SQLITE_DONE)
        return fail(sqlError(rc, QStringLiteral("reading kernel %1").arg(kernelId)));
    return std::optional<KernelRecord>();
}

Result<KernelRecord> SqliteStore::kernel(const QString &sessionId, const QString &kernelId) const
{
    auto k = readKernel(sessionId, kernelId);
    if (!k)
        return fail(k.error());
    if (!*k)
        return fail(Error::Kind::NotFound, QStringLiteral("kernel %1").arg(kernelId),
                    QStringLiteral("no such kernel in session %1").arg(sessionId));
    return std::move(**k);
}

Result<QList<KernelRecord>> SqliteStore::readKernels(const char *sql, const QString &arg) const
{
    std::lock_guard lock(m_mutex);
    SqliteStatement s(*m_statements, sql);
    if (!arg.isNull())
        s.bind(1, arg);
    QList<KernelRecord> list;
    int rc;
    while ((rc = s.step()) == SQLITE_ROW) {
        auto k =
            SqliteRowCodec::kernel(s, QStringLiteral("state store %1, table kernels").arg(m_path));
        if (!k)
            return fail(k.error());
        list.append(std::move(*k));
    }
    if (rc != SQLITE_DONE)
        return fail(sqlError(rc, QStringLiteral("listing kernels")));
    return list;
}

Result<QList<KernelRecord>> SqliteStore::kernels(const QString &sessionId) const
{
    static const QByteArray sql = QByteArray("SELECT ") + SqliteSchema::kKernelColumns +
                                  " FROM kernels WHERE session_id = ? ORDER BY local_rank, id";
    return readKernels(sql.constData(), sessionId.isNull() ? QStringLiteral("") : sessionId);
}

Result<QList<KernelRecord>> SqliteStore::allKernels() const
{
    static const QByteArray sql = QByteArray("SELECT ") + SqliteSchema::kKernelColumns +
                                  " FROM kernels ORDER BY session_id, local_rank, id";
    return readKernels(sql.constData(), QString());
}

Result<QHash<QString, HostAllocation>> SqliteStore::allocationsByHost() const
{
    // One aggregate instead of decoding every kernel (a launch asks, whatever the fleet's
    // size). total() sums in floating point, without SQLite's integer-overflow error: memory
    // sums are exact below 2^53 bytes (8 PiB) and saturate as HostAllocation::add does.
    static const char *const sql =
        "SELECT host, count(*), total(cpus), total(max(memory_bytes, 0)), "
        "sum(cpus IS NULL OR memory_bytes IS NULL) FROM kernels WHERE desired = ? GROUP BY host";
    std::lock_guard lock(m_mutex);
    SqliteStatement s(*m_statements, sql);
    s.bind(1, toString(DesiredState::Running));
    QHash<QString, HostAllocation> byHost;
    int rc;
    while ((rc = s.step()) == SQLITE_ROW) {
        HostAllocation a;
        a.kernels = int(s.integer(1));
        a.cpus = s.real(2);
        const double memory = s.real(3);
        a.memoryBytes = memory >= double(std::numeric_limits<qint64>::max())
                            ? std::numeric_limits<qint64>::max()
                            : qint64(memory);
        a.unlimitedKernels = int(s.integer(4));
        byHost.insert(s.text(0), a);
    }
    if (rc != SQLITE_DONE)
        return fail(sqlError(rc, QStringLiteral("summing the kernels' allocations per host")));
    return byHost;
}

// ---- events

Result<qint64> SqliteStore::appendEvent(const EventRecord &e)
{
    qint64 seq = 0;
    auto ok = write(QStringLiteral("appending an event"), [&]() -> Result<void> {
        SqliteStatement s(*m_statements,
                          "INSERT INTO events(at, actor, session_id, kernel_id, action, detail) "
                          "VALUES(?, ?, ?, ?, ?, ?)");
        s.bind(1, RecordJson::dateToText(e.at.isValid() ? e.at : QDateTime::currentDateTimeUtc()))
            .bind(2, e.actor)
            .bind(3, e.sessionId)
            .bind(4, e.kernelId)
            .bind(5, e.action)
            .bind(6, e.detail);
        if (const int rc = s.step(); rc != SQLITE_DONE)
            return fail(sqlError(rc, QStringLiteral("appending an event")));
        seq = sqlite3_last_insert_rowid(m_db);
        return logChange(QStringLiteral("event"), QString::number(seq));
    });
    if (!ok)
        return fail(ok.error());
    return seq;
}

Result<QList<EventRecord>> SqliteStore::events(qint64 afterSeq, int limit) const
{
    std::lock_guard lock(m_mutex);
    SqliteStatement s(*m_statements,
                      "SELECT seq, at, actor, session_id, kernel_id, action, detail FROM events "
                      "WHERE seq > ? ORDER BY seq LIMIT ?");
    s.bind(1, afterSeq).bind(2, limit > 0 ? limit : -1);
    QList<EventRecord> list;
    int rc;
    while ((rc = s.step()) == SQLITE_ROW) {
        list.append({s.integer(0), RecordJson::dateFromText(s.text(1)), s.text(2), s.text(3),
                     s.text(4), s.text(5), s.text(6)});
    }
    if (rc != SQLITE_DONE)
        return fail(sqlError(rc, QStringLiteral("reading events")));
    return list;
}

// ---- locks

Result<bool> SqliteStore::tryLock(const QString &sessionId, const QString &token, qint64 ttlMs,
                                  LockHolder *holder)
{
    SqliteLockOwners::announce(m_path);
    bool taken = false;
    QString endedOwner; // the owner of a row taken over because its process ended
    auto ok = write(QStringLiteral("locking session %1").arg(sessionId), [&]() -> Result<void> {
        endedOwner.clear();
        SqliteStatement get(*m_statements,
                            "SELECT owner, since, owner_id, expires_ms, token FROM locks "
                            "WHERE session_id = ?");
        get.bind(1, sessionId);
        const int rc = get.step();
        if (rc == SQLITE_ROW) {
            // Stale: expired (its holder stopped renewing), or this process's and released
            // although its row could not be deleted. A row of another process (whatever its
            // pid or host) stays until it expires.
            const bool expired = get.integer(3) < nowMs();
            const bool ours = get.text(2) == SqliteLockOwners::ownerId();
            const bool released = ours && !SqliteLockOwners::holdsToken(get.text(4));
            const bool dead =
                !ours && !expired && !released && SqliteLockOwners::isGone(m_path, get.text(2));
            if (dead)
                endedOwner = get.text(2);
            if (!expired && !released && !dead) {
                *holder = {get.text(0), RecordJson::dateFromText(get.text(1))};
                return {};
            }
            qCInfo(lcStore) << "taking over the stale lock of session" << sessionId << "from"
                            << get.text(0)
                            << (expired    ? "(expired)"
                                : released ? "(released)"
                                           : "(ended)");
        } else if (rc != SQLITE_DONE) {
            return fail(sqlError(rc, QStringLiteral("reading the lock of %1").arg(sessionId)));
        }
        SqliteStatement put(*m_statements,
                            "INSERT OR REPLACE INTO locks(session_id, owner, token, pid, hostname, "
                            "since, expires_ms, owner_id) VALUES(?, ?, ?, ?, ?, ?, ?, ?)");
        const LockHolder me = LockHolder::thisProcess();
        put.bind(1, sessionId)
            .bind(2, me.owner)
            .bind(3, token)
            .bind(4, qint64(QCoreApplication::applicationPid()))
            .bind(5, QSysInfo::machineHostName())
            .bind(6, RecordJson::dateToText(me.since))
            .bind(7, nowMs() + ttlMs)
            .bind(8, SqliteLockOwners::ownerId());
        if (const int prc = put.step(); prc != SQLITE_DONE)
            return fail(sqlError(prc, QStringLiteral("locking session %1").arg(sessionId)));
        if (!endedOwner.isEmpty()) {
            SqliteStatement left(*m_statements, "SELECT 1 FROM locks WHERE owner_id = ?");
            left.bind(1, endedOwner);
            if (left.step() == SQLITE_DONE)
                SqliteLockOwners::forget(m_path, endedOwner);
        }
        taken = true;
        return {};
    });
    if (!ok)
        return fail(ok.error());
    if (taken) {
        SqliteLockOwners::holdToken(token);
    }
    return taken;
}

void SqliteStore::unlock(const QString &sessionId, const QString &token)
{
    SqliteLockOwners::releaseToken(token);
    // Deleting our own row is safe whoever leads, so a fenced-off controller still releases.
    auto ok = write(
        QStringLiteral("unlocking session %1").arg(sessionId),
        [&]() -> Result<void> {
            SqliteStatement s(*m_statements,
                              "DELETE FROM locks WHERE session_id = ? AND token = ?");
            s.bind(1, sessionId).bind(2, token);
            if (const int rc = s.step(); rc != SQLITE_DONE)
                return fail(sqlError(rc, QStringLiteral("unlocking session %1").arg(sessionId)));
            return {};
        },
        Fencing::Skip);
    if (!ok) {
        SqliteLockOwners::keepOwnFiles();
        qCWarning(lcStore) << "could not release the lock:" << ok.error().toString();
    }
}

SqliteStore::Renewal SqliteStore::renewLock(const QString &sessionId, const QString &token,
                                            qint64 ttlMs, QString *why)
{
    Renewal outcome = Renewal::Renewed;
    auto ok = write(
        QStringLiteral("renewing the lock of session %1").arg(sessionId),
        [&]() -> Result<void> {
            // Only our own row, and only while it has not expired: once expired, another
            // process may have judged it stale, so it is lost even if nobody took it yet.
            SqliteStatement s(*m_statements,
                              "UPDATE locks SET expires_ms = ? WHERE session_id = ? AND token = ? "
                              "AND expires_ms >= ?");
            const qint64 now = nowMs();
            s.bind(1, now + ttlMs).bind(2, sessionId).bind(3, token).bind(4, now);
            if (const int rc = s.step(); rc != SQLITE_DONE)
                return fail(sqlError(rc, QStringLiteral("renewing a session lock")));
            if (sqlite3_changes(m_db) == 1)
                return {};
            outcome = Renewal::Lost;
            SqliteStatement get(*m_statements,
                                "SELECT owner, token FROM locks WHERE session_id = ?");
            get.bind(1, sessionId);
            if (get.step() != SQLITE_ROW)
                *why = QStringLiteral("its row is gone");
            else if (get.text(1) != token)
                *why = QStringLiteral("taken by %1").arg(get.text(0));
            else
                *why = QStringLiteral("expired");
            return {};
        },
        Fencing::Skip);
    if (!ok) {
        *why = ok.error().toString();
        return Renewal::Failed; // a busy or full file: the next renewal, or the TTL, decides
    }
    return outcome;
}

Result<std::unique_ptr<SessionLock>> SqliteStore::lockSession(const QString &sessionId,
                                                              std::chrono::milliseconds wait)
{
    const QString token = QUuid::createUuid().toString(QUuid::WithoutBraces);
    const qint64 ttlMs = lockTtlMs();
    const auto deadline = Clock::now() + wait;
    LockHolder holder;
    for (;;) {
        auto taken = tryLock(sessionId, token, ttlMs, &holder);
        if (!taken)
            return fail(taken.error());
        if (*taken)
            return std::unique_ptr<SessionLock>(
                new SqliteSessionLock(this, sessionId, token, ttlMs));
        if (Clock::now() >= deadline)
            break;
        std::this_thread::sleep_for(std::min<std::chrono::milliseconds>(
            50ms,
            std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()) + 1ms));
    }
    return fail(holder.busyError(sessionId));
}

// ---- kernels, read-modify-write

Result<QList<KernelRecord>> SqliteStore::modifyKernels(const QList<KernelRef> &refs,
                                                       const KernelChange &change)
{
    QList<KernelRecord> changed;
    auto ok = write(QStringLiteral("updating %1 kernels").arg(refs.size()), [&]() -> Result<void> {
        changed.clear();
        for (const KernelRef &ref : refs) {
            auto current = readKernel(ref.sessionId, ref.kernelId);
            if (!current)
                return fail(current.error());
            if (!*current)
                continue;
            KernelRecord k = std::move(**current);
            if (!change(k))
                continue;
            if (auto written = writeKernel(k); !written)
                return written;
            changed.append(std::move(k));
        }
        return {};
    });
    if (!ok)
        return fail(ok.error());
    return changed;
}

Result<void> SqliteStore::recordKernelProgress(const QList<KernelProgress> &progress,
                                               const std::optional<SessionRecord> &session)
{
    // One UPDATE per kernel that appends to the stored history as text (json() checks it)
    // instead of reading, decoding and encoding the whole record: most of a large launch's
    // store time was that.
    return write(
        QStringLiteral("recording the progress of %1 kernels").arg(progress.size()),
        [&]() -> Result<void> {
            for (const KernelProgress &p : progress) {
                // "{…},{…}": the new entries without their array's brackets.
                const QByteArray entries =
                    RecordJson::compact(RecordJson::historyToJson(p.changes)).chopped(1).mid(1);
                SqliteStatement s(
                    *m_statements,
                    "UPDATE kernels SET status = COALESCE(?3, status), history = CASE WHEN "
                    "?4 IS NULL THEN history ELSE json(substr(json(history), 1, "
                    "length(json(history)) - 1) || CASE WHEN json_array_length(history) = "
                    "0 THEN '' ELSE ',' END || ?4 || ']') END, container_id = "
                    "COALESCE(?5, container_id), ports = COALESCE(?6, ports), updated_at "
                    "= ?7, desired = COALESCE(?8, desired) WHERE id = ?1 AND session_id "
                    "= ?2");
                s.bind(1, p.kernel.kernelId).bind(2, p.kernel.sessionId);
                if (!p.changes.isEmpty())
                    s.bind(3, toString(p.changes.last().status)).bind(4, entries);
                if (p.containerId)
                    s.bind(5, p.containerId->isNull() ? QStringLiteral("") : *p.containerId);
                if (p.ports)
                    s.bind(6, RecordJson::compact(RecordJson::portsToJson(*p.ports)));
                s.bind(7, RecordJson::dateToText(p.updatedAt));
                if (p.desired)
                    s.bind(8, toString(*p.desired));
                if (const int rc = s.step(); rc != SQLITE_DONE)
                    return fail(sqlError(rc, QStringLiteral("recording the progress of kernel %1")
                                                 .arg(p.kernel.kernelId)));
                if (sqlite3_changes(m_db) == 0)
                    continue; // no such kernel (any more)
                if (auto ok =
                        logChange(QStringLiteral("kernel"), p.kernel.sessionId, p.kernel.kernelId);
                    !ok)
                    return ok;
            }
            if (session)
                return writeSession(*session, false);
            return {};
        });
}

// ---- the controller's leadership

Result<void> SqliteStore::checkFence(const Fence &fence)
{
    SqliteStatement s(*m_statements, "SELECT owner, term, expires_ms FROM leader WHERE id = 1");
    const int rc = s.step();
    if (rc != SQLITE_ROW && rc != SQLITE_DONE)
        return fail(sqlError(rc, QStringLiteral("checking the controller's leadership")));
    const bool current = rc == SQLITE_ROW && s.text(0) == fence.owner &&
                         s.integer(1) == fence.term && s.integer(2) > nowMs();
    if (current && fence.held.load())
        return {};
    if (fence.held.exchange(false))
        qCWarning(lcStore) << "the controller's leadership (term" << fence.term << ") is lost";
    fence.lost.cancel();
    return fail(Error::Kind::Conflict, QStringLiteral("state store %1").arg(m_path),
                QStringLiteral("this controller is no longer the leader (term %1 ended); it "
                               "writes nothing more")
                    .arg(fence.term));
}

std::optional<bool> SqliteStore::renewLeadership(const std::shared_ptr<Fence> &fence,
                                                 std::chrono::seconds ttl, Clock::time_point until)
{
    if (!fence->held.load())
        return false;
    bool renewed = false;
    auto ok = write(
        QStringLiteral("renewing the controller's leadership"),
        [&]() -> Result<void> {
            SqliteStatement s(*m_statements,
                              "UPDATE leader SET expires_ms = ? WHERE id = 1 AND owner = ? AND "
                              "term = ? AND expires_ms > ?");
            s.bind(1, nowMs() + qint64(ttl.count()) * 1000)
                .bind(2, fence->owner)
                .bind(3, fence->term)
                .bind(4, nowMs());
            if (const int rc = s.step(); rc != SQLITE_DONE)
                return fail(sqlError(rc, QStringLiteral("renewing the leadership")));
            renewed = sqlite3_changes(m_db) == 1;
            return {};
        },
        Fencing::Skip, until);
    if (!ok) {
        // A busy file is not (yet) a lost leadership: the local deadline decides.
        qCWarning(lcStore) << ok.error().toString();
        return std::nullopt;
    }
    if (!renewed) {
        if (fence->held.exchange(false))
            qCWarning(lcStore) << "the controller's leadership (term" << fence->term
                               << ") expired or was taken over";
        fence->lost.cancel();
    }
    return renewed;
}

void SqliteStore::resign(const std::shared_ptr<Fence> &fence)
{
    {
        std::lock_guard lock(m_mutex);
        if (m_fence == fence)
            m_fence.reset();
    }
    const bool held = fence->held.exchange(false);
    fence->lost.cancel();
    if (!held)
        return;
    auto ok = write(
        QStringLiteral("resigning the controller's leadership"),
        [&]() -> Result<void> {
            SqliteStatement s(*m_statements,
                              "UPDATE leader SET expires_ms = 0 WHERE id = 1 AND owner = ? AND "
                              "term = ?");
            s.bind(1, fence->owner).bind(2, fence->term);
            if (const int rc = s.step(); rc != SQLITE_DONE)
                return fail(sqlError(rc, QStringLiteral("resigning")));
            return logChange(QStringLiteral("controller"), QString());
        },
        Fencing::Skip);
    if (!ok)
        qCWarning(lcStore) << ok.error().toString();
}

qint64 SqliteStore::liveLeaderExpiry(const QString &ownerId) const
{
    SqliteStatement get(*m_statements, "SELECT owner, expires_ms FROM leader WHERE id = 1");
    if (get.step() != SQLITE_ROW)
        return 0;
    const qint64 expires = get.integer(1);
    return get.text(0) != ownerId && expires > nowMs() ? expires : 0;
}

Result<std::unique_ptr<Leadership>> SqliteStore::campaign(const LeaderRecord &candidate,
                                                          std::chrono::milliseconds wait,
                                                          std::chrono::seconds ttl)
{
    if (candidate.ownerId.isEmpty() || ttl.count() <= 0)
        return fail(Error::Kind::Invalid, QStringLiteral("state store %1").arg(m_path),
                    QStringLiteral("a controller candidate needs an owner id and a TTL"));
    const auto deadline = Clock::now() + wait;
    for (;;) {
        // A standby reads first, without the write lock: BEGIN IMMEDIATE is taken only when the
        // leadership looks free (or ours), not every 100 ms while another controller leads (a read
        // every 250 ms).
        if (const qint64 expiresMs = liveLeaderExpiry(candidate.ownerId); expiresMs > 0) {
            const auto untilExpiry = std::chrono::milliseconds(expiresMs - nowMs() + 5);
            const auto untilDeadline =
                std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
            if (untilDeadline > 0ms) {
                std::this_thread::sleep_for(std::clamp<std::chrono::milliseconds>(
                    std::min(untilExpiry, untilDeadline), 1ms, 250ms));
                continue;
            }
        }
        LeaderRecord won = candidate;
        std::optional<LeaderRecord> holder;
        const auto writeStarted = Clock::now(); // the leadership's time counts from here
        auto ok = write(
            QStringLiteral("campaigning for the controller's leadership"),
            [&]() -> Result<void> {
                holder.reset();
                SqliteStatement get(*m_statements,
                                    "SELECT owner, record, term, expires_ms FROM leader "
                                    "WHERE id = 1");
                const int rc = get.step();
                if (rc != SQLITE_ROW && rc != SQLITE_DONE)
                    return fail(sqlError(rc, QStringLiteral("reading the leader")));
                qint64 term = 0;
                if (rc == SQLITE_ROW) {
                    term = get.integer(2);
                    if (get.integer(3) > nowMs() && get.text(0) != candidate.ownerId) {
                        auto object = RecordJson::parseObject(get.bytes(1), QString());
                        holder = object ? RecordJson::leaderFromJson(*object) : LeaderRecord{};
                        holder->term = term;
                        return {};
                    }
                }
                won.term = term + 1;
                won.since = QDateTime::currentDateTimeUtc();
                SqliteStatement put(*m_statements,
                                    "INSERT OR REPLACE INTO leader(id, owner, record, term, "
                                    "expires_ms) VALUES(1, ?, ?, ?, ?)");
                put.bind(1, won.ownerId)
                    .bind(2, RecordJson::compact(RecordJson::toJson(won)))
                    .bind(3, won.term)
                    .bind(4, nowMs() + qint64(ttl.count()) * 1000);
                if (const int prc = put.step(); prc != SQLITE_DONE)
                    return fail(sqlError(prc, QStringLiteral("taking the leadership")));
                return logChange(QStringLiteral("controller"), QString());
            },
            Fencing::Skip);
        if (!ok)
            return fail(ok.error());
        if (!holder) {
            auto fence = std::make_shared<Fence>();
            fence->owner = won.ownerId;
            fence->term = won.term;
            // Calls made on the leader's behalf carry this token: cancelled when the leadership
            // is lost and, checked without I/O, once its local deadline passes (see
            // SqliteLeadership).
            fence->deadline = std::make_shared<std::atomic<qint64>>(0);
            fence->lost = CancelToken::untilDeadline(fence->deadline);
            {
                std::lock_guard lock(m_mutex);
                m_fence = fence;
            }
            qCInfo(lcStore) << "controller leadership taken, term" << won.term;
            return std::unique_ptr<Leadership>(
                new SqliteLeadership(this, won, ttl, fence, writeStarted));
        }
        if (Clock::now() >= deadline)
            return fail(Error::Kind::Conflict, QStringLiteral("state store %1").arg(m_path),
                        QStringLiteral("the controller of this store is %1 (pid %2 on %3), "
                                       "leading since %4")
                            .arg(holder->actor)
                            .arg(holder->pid)
                            .arg(holder->hostname, holder->since.toLocalTime().toString(
                                                       QStringLiteral("yyyy-MM-dd HH:mm:ss"))));
        std::this_thread::sleep_for(std::min<std::chrono::milliseconds>(
            100ms,
            std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()) + 1ms));
    }
}

Result<std::optional<LeaderRecord>> SqliteStore::leader() const
{
    std::lock_guard lock(m_mutex);
    SqliteStatement s(*m_statements, "SELECT record, term, expires_ms FROM leader WHERE id = 1");
    const int rc = s.step();
    if (rc == SQLITE_DONE)
        return std::optional<LeaderRecord>();
    if (rc != SQLITE_ROW)
        return fail(sqlError(rc, QStringLiteral("reading the controller's leader")));
    if (s.integer(2) <= nowMs())
        return std::optional<LeaderRecord>();
    auto object = RecordJson::parseObject(s.bytes(0), QStringLiteral("state store %1, table "
                                                                     "leader")
                                                          .arg(m_path));
    if (!object)
        return fail(object.error());
    LeaderRecord l = RecordJson::leaderFromJson(*object);
    l.term = s.integer(1);
    return std::optional<LeaderRecord>(l);
}

Result<void> SqliteStore::putControllerStatus(const ControllerStatus &status)
{
    return write(QStringLiteral("saving the controller's status"), [&]() -> Result<void> {
        SqliteStatement s(*m_statements, "UPDATE controller SET status = ? WHERE id = 1");
        s.bind(1, RecordJson::compact(RecordJson::toJson(status)));
        if (const int rc = s.step(); rc != SQLITE_DONE)
            return fail(sqlError(rc, QStringLiteral("saving the controller's status")));
        return logChange(QStringLiteral("controller"), QString());
    });
}

Result<std::optional<ControllerStatus>> SqliteStore::controllerStatus() const
{
    std::lock_guard lock(m_mutex);
    SqliteStatement s(*m_statements, "SELECT status FROM controller WHERE id = 1");
    const int rc = s.step();
    if (rc != SQLITE_ROW && rc != SQLITE_DONE)
        return fail(sqlError(rc, QStringLiteral("reading the controller's status")));
    if (rc == SQLITE_DONE || s.isNull(0))
        return std::optional<ControllerStatus>();
    auto object = RecordJson::parseObject(
        s.bytes(0), QStringLiteral("state store %1, table controller").arg(m_path));
    if (!object)
        return fail(object.error());
    return std::optional<ControllerStatus>(RecordJson::controllerStatusFromJson(*object));
}

Result<qint64> SqliteStore::requestControllerPass()
{
    qint64 requests = 0;
    auto ok = write(QStringLiteral("asking the controller for a pass"), [&]() -> Result<void> {
        SqliteStatement s(*m_statements,
                          "UPDATE controller SET requests = requests + 1 WHERE id = 1");
        if (const int rc = s.step(); rc != SQLITE_DONE)
            return fail(sqlError(rc, QStringLiteral("asking the controller for a pass")));
        SqliteStatement get(*m_statements, "SELECT requests FROM controller WHERE id = 1");
        if (get.step() == SQLITE_ROW)
            requests = get.integer(0);
        return logChange(QStringLiteral("controller-request"), QString::number(requests));
    });
    if (!ok)
        return fail(ok.error());
    return requests;
}

Result<qint64> SqliteStore::controllerPassRequests() const
{
    std::lock_guard lock(m_mutex);
    SqliteStatement s(*m_statements, "SELECT requests FROM controller WHERE id = 1");
    const int rc = s.step();
    if (rc == SQLITE_ROW)
        return s.integer(0);
    if (rc == SQLITE_DONE)
        return qint64(0);
    return fail(sqlError(rc, QStringLiteral("reading the controller's requests")));
}

// ---- settings

Result<QString> SqliteStore::setting(const QString &key) const
{
    if (auto ok = checkSettingKey(key); !ok)
        return fail(ok.error());
    std::lock_guard lock(m_mutex);
    SqliteStatement s(*m_statements, "SELECT value FROM settings WHERE key = ?");
    s.bind(1, key);
    const int rc = s.step();
    if (rc == SQLITE_ROW)
        return s.text(0);
    if (rc == SQLITE_DONE)
        return QStringLiteral("");
    return fail(sqlError(rc, QStringLiteral("reading setting %1").arg(key)));
}

Result<void> SqliteStore::setSetting(const QString &key, const QString &value)
{
    if (auto ok = checkSettingKey(key); !ok)
        return ok;
    const QString what = value.isEmpty() ? QStringLiteral("removing setting %1").arg(key)
                                         : QStringLiteral("writing setting %1").arg(key);
    return write(what, [&]() -> Result<void> {
        SqliteStatement s(*m_statements,
                          value.isEmpty()
                              ? "DELETE FROM settings WHERE key = ?"
                              : "INSERT OR REPLACE INTO settings(key, value) VALUES(?, ?)");
        s.bind(1, key);
        if (!value.isEmpty())
            s.bind(2, value);
        if (const int rc = s.step(); rc != SQLITE_DONE)
            return fail(sqlError(rc, what));
        return logChange(QStringLiteral("setting"), key);
    });
}

// ---- session networks

Result<QList<NetworkAllocation>> SqliteStore::readNetworkAllocations(const QString &sessionId) const
{
    SqliteStatement s(
        *m_statements,
        sessionId.isNull()
            ? "SELECT session_id, vni, subnet, avoided, claimed_at FROM network_allocations "
              "ORDER BY session_id"
            : "SELECT session_id, vni, subnet, avoided, claimed_at FROM network_allocations "
              "WHERE session_id = ?");
    if (!sessionId.isNull())
        s.bind(1, sessionId);
    QList<NetworkAllocation> list;
    int rc;
    while ((rc = s.step()) == SQLITE_ROW) {
        const QString row = QStringLiteral("state store %1, table network_allocations, row %2")
                                .arg(m_path, s.text(0));
        NetworkAllocation a;
        a.sessionId = s.text(0);
        a.vni = quint32(s.integer(1));
        auto subnet = Ipv4Cidr::parse(s.text(2), row);
        if (!subnet)
            return fail(Error::Kind::Decode, row, subnet.error().message);
        a.subnet = *subnet;
        auto object = RecordJson::parseObject(s.bytes(3), row);
        if (!object)
            return fail(object.error());
        auto avoided = RecordJson::avoidFromJson(*object, row);
        if (!avoided)
            return fail(avoided.error());
        a.avoided = std::move(*avoided);
        a.claimedAt = RecordJson::dateFromText(s.text(4));
        list.append(std::move(a));
    }
    if (rc != SQLITE_DONE)
        return fail(sqlError(rc, QStringLiteral("reading network allocations")));
    return list;
}

Result<NetworkAllocation> SqliteStore::claimNetwork(const NetworkClaim &claim)
{
    const QString what = QStringLiteral("claiming a network for session %1").arg(claim.sessionId);
    NetworkAllocation claimed;
    auto written = write(what, [&]() -> Result<void> {
        {
            SqliteStatement exists(*m_statements, "SELECT 1 FROM sessions WHERE id = ?");
            exists.bind(1, claim.sessionId);
            const int rc = exists.step();
            if (rc == SQLITE_DONE)
                return fail(Error::Kind::NotFound,
                            QStringLiteral("session %1").arg(claim.sessionId),
                            QStringLiteral("no such session: a network is claimed for a stored "
                                           "session only"));
            if (rc != SQLITE_ROW)
                return fail(sqlError(rc, what));
        }
        // Every allocation, read inside this IMMEDIATE transaction: no other process can claim
        // between this read and the write below.
        auto all = readNetworkAllocations({});
        if (!all)
            return fail(all.error());
        std::optional<NetworkAllocation> current;
        for (const NetworkAllocation &a : std::as_const(*all))
            if (a.sessionId == claim.sessionId)
                current = a;
        auto decided = claim.decide(current, *all, QDateTime::currentDateTimeUtc());
        if (!decided)
            return fail(decided.error());
        claimed = *decided;
        if (current && *current == claimed)
            return {};
        // An upsert, never INSERT OR REPLACE: that would delete another session's row whose
        // VNI or subnet clashed instead of failing on the UNIQUE constraint.
        SqliteStatement put(
            *m_statements,
            "INSERT INTO network_allocations(session_id, vni, subnet, avoided, "
            "claimed_at) VALUES(?1, ?2, ?3, ?4, ?5) ON CONFLICT(session_id) DO UPDATE "
            "SET vni = ?2, subnet = ?3, avoided = ?4, claimed_at = ?5");
        put.bind(1, claimed.sessionId)
            .bind(2, qint64(claimed.vni))
            .bind(3, claimed.subnet.toString())
            .bind(4, RecordJson::compact(RecordJson::avoidToJson(claimed.avoided)))
            .bind(5, RecordJson::dateToText(claimed.claimedAt));
        if (const int rc = put.step(); rc != SQLITE_DONE)
            return fail(sqlError(rc, what));
        return {};
    });
    if (!written)
        return fail(written.error());
    qCDebug(lcStore) << "session" << claimed.sessionId << "has VNI" << claimed.vni << "and"
                     << claimed.subnet.toString();
    return claimed;
}

Result<void> SqliteStore::releaseNetworkAllocation(const QString &sessionId)
{
    const QString what = QStringLiteral("releasing the network of session %1").arg(sessionId);
    return write(what, [&]() -> Result<void> {
        SqliteStatement s(*m_statements, "DELETE FROM network_allocations WHERE session_id = ?");
        s.bind(1, sessionId);
        if (const int rc = s.step(); rc != SQLITE_DONE)
            return fail(sqlError(rc, what));
        return {};
    });
}

Result<std::optional<NetworkAllocation>>
SqliteStore::networkAllocation(const QString &sessionId) const
{
    std::lock_guard lock(m_mutex);
    auto list = readNetworkAllocations(sessionId.isNull() ? QStringLiteral("") : sessionId);
    if (!list)
        return fail(list.error());
    if (list->isEmpty())
        return std::optional<NetworkAllocation>();
    return std::optional<NetworkAllocation>(list->constFirst());
}

Result<QList<NetworkAllocation>> SqliteStore::networkAllocations() const
{
    std::lock_guard lock(m_mutex);
    return readNetworkAllocations({});
}

} // namespace ClusterDeck
