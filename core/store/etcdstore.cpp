#include "etcdstore.h"

#include "common/logging.h"
#include "etcd/etcdclient.h"
#include "etcd/etcdlock.h"
#include "etcd/etcdwatch.h"
#include "etcdleadership.h"
#include "etcdsessionlock.h"
#include "lockholder.h"
#include "recordjson.h"
#include "secretbox.h"
#include "sessionsecrets.h"

#include <QFile>
#include <QJsonArray>
#include <QPointer>
#include <QRandomGenerator>
#include <QSet>
#include <QTimer>
#include <QUuid>

#include <thread>

namespace ClusterDeck {

using namespace Etcd;
using namespace std::chrono_literals;

namespace {

constexpr int kCasAttempts = 1000;
// Claims of session networks that lost a race read again and retry, this many times at most.
constexpr int kClaimAttempts = 100;

RangeOptions countOnly()
{
    RangeOptions options;
    options.countOnly = true;
    return options;
}
constexpr qint64 kLockTtlSeconds = 15;

QByteArray holderValue()
{
    const LockHolder me = LockHolder::thisProcess();
    return RecordJson::compact(
        QJsonObject{{QStringLiteral("owner"), me.owner},
                    {QStringLiteral("since"), RecordJson::dateToText(me.since)}});
}

Result<void> checkId(const QString &what, const QString &id)
{
    if (id.isEmpty() || id.contains(u'/'))
        return fail(Error::Kind::Invalid, QString(),
                    QStringLiteral("%1 \"%2\" must be non-empty and contain no '/'").arg(what, id));
    return {};
}

// A short pause that grows with contention, so two writers of one key do not stay in lock-step.
void backoff(int attempt)
{
    if (attempt < 3)
        return;
    const int ceiling = std::min(50, 2 * attempt);
    std::this_thread::sleep_for(
        std::chrono::milliseconds(QRandomGenerator::global()->bounded(1, ceiling + 1)));
}

} // namespace

EtcdStore::EtcdStore(std::shared_ptr<EtcdClient> client, QByteArray prefix, QString url,
                     QObject *parent)
    : StateStore(parent)
    , m_client(std::move(client))
    , m_prefix(std::move(prefix))
    , m_url(std::move(url))
{}

EtcdStore::~EtcdStore()
{
    if (m_watch)
        m_watch->stop();
    m_watch.reset();
}

Result<std::unique_ptr<EtcdStore>> EtcdStore::open(const EtcdConfig &config, const QString &prefix,
                                                   const QString &displayUrl, QObject *parent)
{
    QByteArray p = prefix.toUtf8();
    while (p.endsWith('/'))
        p.chop(1);
    if (p.isEmpty() || !p.startsWith('/'))
        return fail(Error::Kind::Invalid, displayUrl,
                    QStringLiteral("the etcd key prefix must start with '/' and not be '/' alone"));
    auto client = std::make_shared<EtcdClient>(config);
    if (!config.username.isEmpty()) {
        if (auto ok = client->authenticate(); !ok)
            return fail(ok.error().withContext(
                QStringLiteral("signing in to etcd as %1").arg(config.username)));
    }
    std::unique_ptr<EtcdStore> store(new EtcdStore(client, p, displayUrl, parent));
    qint64 revision = 0;
    bool created = false;
    if (auto ok = store->checkSchema(&revision, &created); !ok)
        return fail(ok.error());
    if (auto ok = store->ensureIdentity(created, &revision); !ok)
        return fail(ok.error());
    store->moveSecretsOut();
    store->startWatch(revision + 1);
    qCDebug(lcStore) << "opened etcd store" << displayUrl << "at revision" << revision;
    return store;
}

Result<void> EtcdStore::checkSchema(qint64 *revision, bool *createdNow)
{
    const QByteArray schemaKey = m_prefix + "/meta/schema";
    for (int attempt = 0; attempt < 5; ++attempt) {
        auto current = m_client->get(schemaKey);
        if (!current)
            return fail(
                current.error().withContext(QStringLiteral("reading the state store schema")));
        if (*current) {
            bool ok = false;
            const int version = (*current)->value.toInt(&ok);
            if (!ok)
                return fail(Error::Kind::Decode, where(schemaKey),
                            QStringLiteral("the schema version \"%1\" is not a number")
                                .arg(QString::fromUtf8((*current)->value)));
            if (version > kSchemaVersion)
                return fail(Error::Kind::Invalid, where(schemaKey),
                            QStringLiteral("etcd prefix %1 was written by a newer ClusterDeck "
                                           "(schema %2, this build knows %3); upgrade ClusterDeck "
                                           "or use another prefix")
                                .arg(QString::fromUtf8(m_prefix))
                                .arg(version)
                                .arg(kSchemaVersion));
            if (version < kSchemaVersion) {
                // 2: sessions' secrets are kept once per session, sealed with the store key
                // (SessionSecrets); records written before stay readable as they are. Builds
                // that know only schema 1 would recreate kernels with empty key files from the
                // new records, so the version goes up and they refuse the prefix.
                TxnRequest up;
                up.compare = {
                    TxnCompare::valueIs(schemaKey, TxnCompare::Op::Equal, (*current)->value)};
                up.success = {TxnOp::makePut(schemaKey, QByteArray::number(kSchemaVersion))};
                auto upgraded = m_client->txn(up);
                if (!upgraded)
                    return fail(upgraded.error().withContext(
                        QStringLiteral("upgrading the state store schema")));
                qCInfo(lcStore) << "etcd prefix" << m_prefix << "schema" << version << "→"
                                << kSchemaVersion;
                continue;
            }
            auto range = m_client->range(schemaKey, countOnly());
            if (!range)
                return fail(range.error());
            *revision = range->header.revision;
            return {};
        }
        TxnRequest txn;
        txn.compare = {TxnCompare::missing(schemaKey)};
        txn.success = {TxnOp::makePut(schemaKey, QByteArray::number(kSchemaVersion))};
        auto created = m_client->txn(txn);
        if (!created)
            return fail(created.error().withContext(QStringLiteral("writing the schema version")));

        if (created->succeeded) {
            *revision = created->header.revision;
            *createdNow = true;
            return {};
        }
    }
    return fail(Error::Kind::Conflict, where(schemaKey),
                QStringLiteral("the schema version keeps changing; is another tool writing here?"));
}

Result<void> EtcdStore::ensureIdentity(bool newPrefix, qint64 *revision)
{
    const QByteArray idKey = m_prefix + "/meta/id";
    const QByteArray legacyKey = m_prefix + "/meta/legacy-labels";
    for (int attempt = 0; attempt < 5; ++attempt) {
        auto current = m_client->get(idKey);
        if (!current)
            return fail(current.error().withContext(QStringLiteral("reading the store id")));
        if (*current) {
            m_storeId = QString::fromUtf8((*current)->value).trimmed();
            if (m_storeId.isEmpty())
                return fail(Error::Kind::Decode, where(idKey),
                            QStringLiteral("the store id is empty"));
            if (!StoreIdentity::isWellFormed(m_storeId))
                return fail(Error::Kind::Decode, where(idKey), StoreIdentity::malformed(m_storeId));
            auto legacy = m_client->get(legacyKey);
            if (!legacy)
                return fail(legacy.error().withContext(QStringLiteral("reading the store id")));
            if (*legacy) {
                auto array = RecordJson::parseArray((*legacy)->value, where(legacyKey));
                if (!array)
                    return fail(array.error());
                for (const QJsonValue &v : std::as_const(*array))
                    m_legacyLabels.append(v.toString());
                // The prefix predates the store id, and consoles reached it by several URLs
                // (tunnels): each labelled its sessions with its own. Sessions the store knows
                // are its own whichever of its URLs they carry.
                if (!m_legacyLabels.contains(m_url))
                    m_legacyLabels.append(m_url);
            }
            return {};
        }
        // A missing id: created with the prefix, or a prefix from before the store id, whose
        // objects carry the URL as their store label.
        TxnRequest txn;
        txn.compare = {TxnCompare::missing(idKey)};
        txn.success = {
            TxnOp::makePut(idKey, QUuid::createUuid().toString(QUuid::WithoutBraces).toUtf8())};
        if (!newPrefix)
            txn.success.append(TxnOp::makePut(legacyKey, RecordJson::compact(QJsonArray{m_url})));
        auto created = m_client->txn(txn);
        if (!created)
            return fail(created.error().withContext(QStringLiteral("writing the store id")));
        if (created->succeeded)
            *revision = created->header.revision;
    }
    return fail(Error::Kind::Conflict, where(idKey),
                QStringLiteral("the store id keeps changing; is another tool writing here?"));
}

Result<StoreKey> EtcdStore::storeKeyLocked(bool create)
{
    const QByteArray keyIdKey = m_prefix + "/meta/key-id";
    auto local = StoreKey::load(m_storeId);
    if (!local)
        return fail(local.error());
    for (int attempt = 0; attempt < 5; ++attempt) {
        auto recorded = m_client->get(keyIdKey);
        if (!recorded)
            return fail(recorded.error().withContext(QStringLiteral("reading the store key's id")));
        if (*recorded) {
            const QString expected = QString::fromUtf8((*recorded)->value).trimmed();
            if (!*local)
                return fail(StoreKey::missing(m_storeId, QStringLiteral("the sessions' secrets")));
            if ((*local)->fingerprint() != expected)
                return fail(StoreKey::mismatch(m_storeId, expected, (*local)->fingerprint()));
            return **local;
        }
        if (!create) {
            if (*local)
                return **local;
            return fail(StoreKey::missing(m_storeId, QStringLiteral("the sessions' secrets")));
        }
        // The store has no key yet: this console makes it (or offers the one it has).
        bool made = false;
        if (!*local) {
            StoreKey key{m_storeId, SecretBox::randomKey()};
            if (key.key.size() != SecretBox::kKeySize)
                return fail(Error::Kind::Invalid, QStringLiteral("store %1").arg(m_storeId),
                            QStringLiteral("no random bytes for a store key"));
            if (auto ok = key.save(); !ok)
                return fail(ok.error().withContext(QStringLiteral("saving the new store key")));
            *local = key;
            made = true;
        }
        TxnRequest txn;
        txn.compare = {TxnCompare::missing(keyIdKey)};
        txn.success = {TxnOp::makePut(keyIdKey, (*local)->fingerprint().toUtf8())};
        auto put = m_client->txn(txn);
        if (!put)
            return fail(put.error().withContext(QStringLiteral("recording the store key's id")));
        if (put->succeeded) {
            if (made)
                qCInfo(lcStore).noquote()
                    << QStringLiteral("made the store key of %1 (%2) in %3; share it with "
                                      "`clusterdeckctl store key export`")
                           .arg(m_storeId, (*local)->fingerprint(), StoreKey::pathFor(m_storeId));
            return **local;
        }
        // Another console recorded its key first: ours is not the store's.
        if (made) {
            QFile::remove(StoreKey::pathFor(m_storeId));
            *local = std::nullopt;
        }
    }
    return fail(Error::Kind::Conflict, where(keyIdKey),
                QStringLiteral("the store key's id keeps changing; is another tool writing here?"));
}

void EtcdStore::moveSecretsOut()
{
    // Sessions recorded by builds before schema 2 carry their secrets in plain text, in every
    // kernel's spec. Sealed here once (by the first console that has or makes the store key);
    // meta/secrets-sealed says it is done, so later opens cost one read.
    const QByteArray doneKey = m_prefix + "/meta/secrets-sealed";
    auto done = m_client->get(doneKey);
    if (!done || *done)
        return;
    auto range = m_client->rangePrefix(m_prefix + "/sessions/");
    if (!range)
        return;
    int moved = 0;
    for (const KeyValue &kv : std::as_const(range->kvs)) {
        auto record = RecordJson::parseObject(kv.value, where(kv.key));
        if (!record)
            continue; // reported where sessions are read
        LaunchRecord launch =
            LaunchRecord::fromJson(record->value(QStringLiteral("launch_options")).toObject());
        if (!launch.secrets.isEmpty())
            continue;
        const QMap<QString, QByteArray> values = SessionSecrets::extract(launch.spec);
        if (values.isEmpty())
            continue;
        const QString sessionId = record->value(QStringLiteral("id")).toString();
        auto sealed = sealSecrets(sessionId, values);
        if (!sealed) {
            qCWarning(lcStore).noquote()
                << QStringLiteral("the secrets of older sessions stay unencrypted for now: %1")
                       .arg(sealed.error().toString());
            return;
        }
        launch.secrets = *sealed;
        record->insert(QStringLiteral("launch_options"), launch.toJson());
        TxnRequest txn;
        txn.compare = {TxnCompare::modRevision(kv.key, TxnCompare::Op::Equal, kv.modRevision)};
        txn.success = {TxnOp::makePut(kv.key, RecordJson::compact(*record))};
        auto put = m_client->txn(txn);
        if (!put || !put->succeeded)
            return; // changed meanwhile: the next open tries again
        ++moved;
    }
    TxnRequest txn;
    txn.compare = {TxnCompare::missing(doneKey)};
    txn.success = {TxnOp::makePut(doneKey, "1")};
    (void)m_client->txn(txn);
    if (moved > 0)
        qCInfo(lcStore) << "encrypted the secrets of" << moved
                        << "older sessions with the store key";
}

Result<StoreKey> EtcdStore::storeKey()
{
    std::lock_guard lock(m_keyMutex);
    return storeKeyLocked(true);
}

Result<void> EtcdStore::importStoreKey(const StoreKey &key)
{
    std::lock_guard lock(m_keyMutex);
    if (key.storeId != m_storeId)
        return fail(Error::Kind::Invalid, QStringLiteral("store %1").arg(m_storeId),
                    QStringLiteral("the key is the key of store %1, not of this store (%2 at %3)")
                        .arg(key.storeId, m_storeId, m_url));
    const QByteArray keyIdKey = m_prefix + "/meta/key-id";
    auto recorded = m_client->get(keyIdKey);
    if (!recorded)
        return fail(recorded.error().withContext(QStringLiteral("reading the store key's id")));
    if (*recorded) {
        const QString expected = QString::fromUtf8((*recorded)->value).trimmed();
        if (expected != key.fingerprint())
            return fail(Error::Kind::Invalid, QStringLiteral("store %1").arg(m_storeId),
                        QStringLiteral("the key (%1) is not the one this store's secrets are "
                                       "encrypted with (%2)")
                            .arg(key.fingerprint(), expected));
        return key.save();
    }
    if (auto ok = key.save(); !ok)
        return ok;
    auto adopted = storeKeyLocked(true);
    if (!adopted)
        return fail(adopted.error());
    return {};
}

Result<QJsonObject> EtcdStore::sealSecrets(const QString &sessionId,
                                           const QMap<QString, QByteArray> &values)
{
    Result<StoreKey> key = [&] {
        std::lock_guard lock(m_keyMutex);
        return storeKeyLocked(true);
    }();
    if (!key)
        return fail(key.error());
    return SessionSecrets::sealEncrypted(*key, sessionId, values);
}

Result<QMap<QString, QByteArray>> EtcdStore::openSecrets(const QString &sessionId,
                                                         const QJsonObject &sealed) const
{
    // Plain secrets on etcd are records from before schema 2, sealed by the first console that
    // has the store key. Once the store has a key, ClusterDeck never writes them: such a record
    // was written by something else (anyone who can write to etcd), and its keys are not used.
    if (!SessionSecrets::isEncrypted(sealed) &&
        !sealed.value(QStringLiteral("values")).toObject().isEmpty()) {
        const QByteArray keyIdKey = m_prefix + "/meta/key-id";
        auto keyId = m_client->get(keyIdKey);
        if (!keyId)
            return fail(keyId.error().withContext(QStringLiteral("reading the store key's id")));
        if (*keyId)
            return fail(Error::Kind::Decode, QStringLiteral("session %1").arg(sessionId),
                        QStringLiteral("its secrets are stored in plain text, which ClusterDeck "
                                       "never writes on an etcd store with a key (%1): the "
                                       "record was written by something else; refusing to use "
                                       "it")
                            .arg(where(keyIdKey)));
    }
    return SessionSecrets::openWithStoredKey(sealed, m_storeId, sessionId);
}

void EtcdStore::startWatch(qint64 fromRevision)
{
    WatchOptions options;
    options.key = m_prefix + '/';
    options.prefix = true;
    options.startRevision = fromRevision;
    m_watch = std::make_unique<EtcdWatch>(*m_client, options);
    // The callback runs on the watch thread; the signals are emitted on the store's thread.
    m_watch->setEventsCallback([this](const QList<WatchEvent> &events, qint64) {
        for (const WatchEvent &e : events)
            if (e.kv.modRevision > m_watchedRevision.load())
                m_watchedRevision.store(e.kv.modRevision);
        bool queue = false;
        {
            std::lock_guard lock(m_backlogMutex);
            if (m_backlogOverflowed) {
                // Dropped: the pending changesLost() covers them.
            } else if (m_backlog.size() + events.size() > m_backlogLimit) {
                m_backlog.clear();
                m_backlog.squeeze();
                m_backlogOverflowed = true;
            } else {
                m_backlog += events;
            }
            queue = !m_deliveryQueued;
            m_deliveryQueued = true;
        }
        if (queue)
            QMetaObject::invokeMethod(this, &EtcdStore::deliverBacklog, Qt::QueuedConnection);
    });
    connect(m_watch.get(), &EtcdWatch::failed, this, [this](const Error &error) {
        qCWarning(lcStore) << "watch on" << m_prefix << "stopped:" << error.toString()
                           << "- restarting from the current revision";
        QTimer::singleShot(1s, this, [this] {
            auto range = m_client->range(m_prefix + "/meta/schema", countOnly());
            if (m_watch)
                m_watch->stop();
            startWatch(range ? range->header.revision + 1 : 0);
            // Changes between the failure and now were not seen: readers re-read everything.
            Q_EMIT changesLost();
        });
    });
    m_watch->start();
}

qsizetype EtcdStore::undeliveredWatchEvents() const
{
    std::lock_guard lock(m_backlogMutex);
    return m_backlog.size();
}

void EtcdStore::setWatchBacklogLimit(qsizetype limit)
{
    std::lock_guard lock(m_backlogMutex);
    m_backlogLimit = std::max<qsizetype>(1, limit);
}

void EtcdStore::deliverBacklog()
{
    QList<WatchEvent> events;
    bool lost = false;
    {
        std::lock_guard lock(m_backlogMutex);
        events.swap(m_backlog);
        lost = m_backlogOverflowed;
        m_backlogOverflowed = false;
        m_deliveryQueued = false;
    }
    if (lost)
        Q_EMIT changesLost(); // readers re-read everything
    else
        deliver(events);
}

void EtcdStore::deliver(const QList<WatchEvent> &events)
{
    const int skip = int(m_prefix.size()) + 1;
    // Sessions created in this batch, with the revision of their creation: kernels written up to
    // it came with the session and are announced by sessionAdded. A batch can span several
    // transactions (a watch catching up), so kernels added after it (scale) are still announced.
    QHash<QByteArray, qint64> created;
    for (const WatchEvent &event : events) {
        const QList<QByteArray> parts = event.kv.key.mid(skip).split('/');
        if (parts.value(0) == "sessions" && parts.size() == 2 &&
            event.type == WatchEvent::Type::Put && event.kv.version == 1)
            created.insert(parts[1], event.kv.modRevision);
    }
    for (const WatchEvent &event : events) {
        const QList<QByteArray> parts = event.kv.key.mid(skip).split('/');
        const QByteArray kind = parts.value(0);
        const bool put = event.type == WatchEvent::Type::Put;
        if (kind == "hosts" && parts.size() == 2) {
            const QString name = QString::fromUtf8(parts[1]);
            put ? Q_EMIT hostChanged(name) : Q_EMIT hostRemoved(name);
        } else if (kind == "sessions" && parts.size() == 2) {
            const QString id = QString::fromUtf8(parts[1]);
            if (!put)
                Q_EMIT sessionRemoved(id);
            else if (event.kv.version == 1)
                Q_EMIT sessionAdded(id);
            else
                Q_EMIT sessionChanged(id);
        } else if (kind == "kernels" && parts.size() == 3) {
            // Kernels created with their session are announced by sessionAdded; one added to a
            // running session (scale) by itself. Removals come with a change of their session
            // (resizeSession) or its removal.
            const bool withItsSession =
                created.contains(parts[1]) && event.kv.modRevision <= created.value(parts[1]);
            if (put && (event.kv.version > 1 || !withItsSession))
                Q_EMIT kernelChanged(QString::fromUtf8(parts[1]), QString::fromUtf8(parts[2]));
        } else if (kind == "events" && parts.size() == 2 && put) {
            Q_EMIT eventAppended(parts[1].toLongLong());
        } else if (kind == "settings" && parts.size() == 2) {
            Q_EMIT settingChanged(QString::fromUtf8(parts[1]));
        } else if (kind == "controller" && parts.value(1) == "requests") {
            Q_EMIT controllerPassRequested();
        } else if (kind == "controller") {
            Q_EMIT controllerChanged();
        }
    }
}

QString EtcdStore::describe() const
{
    QStringList hosts;
    for (const QString &e : m_client->config().endpoints)
        hosts.append(e.mid(e.indexOf(QStringLiteral("://")) + 3));
    return QStringLiteral("etcd %1 %2").arg(hosts.join(u','), QString::fromUtf8(m_prefix));
}

QByteArray EtcdStore::key(const QString &kind, const QString &id) const
{
    return m_prefix + '/' + kind.toUtf8() + '/' + id.toUtf8();
}

QByteArray EtcdStore::kernelKey(const QString &sessionId, const QString &kernelId) const
{
    return kernelsPrefix(sessionId) + kernelId.toUtf8();
}

QByteArray EtcdStore::kernelsPrefix(const QString &sessionId) const
{
    return m_prefix + "/kernels/" + sessionId.toUtf8() + '/';
}

QByteArray EtcdStore::eventKey(qint64 seq) const
{
    return m_prefix + "/events/" + QByteArray::number(seq).rightJustified(20, '0');
}

QString EtcdStore::where(const QByteArray &key) const
{
    return QStringLiteral("etcd %1 key %2")
        .arg(m_client->currentEndpoint(), QString::fromUtf8(key));
}

template<typename Record>
Result<QList<Record>> EtcdStore::parseAll(const QList<KeyValue> &kvs,
                                          Result<Record> (*fromJson)(const QJsonObject &,
                                                                     const QString &)) const
{
    QList<Record> list;
    list.reserve(kvs.size());
    for (const KeyValue &kv : kvs) {
        auto record = RecordJson::parseRecord(kv.value, where(kv.key), fromJson);
        if (!record)
            return fail(record.error());
        list.append(std::move(*record));
    }
    return list;
}

Error EtcdStore::txnFailed(const Error &error, const QString &what) const
{
    return error.withContext(what);
}

// ---- hosts

Result<void> EtcdStore::putHost(const HostRecord &h)
{
    if (auto ok = checkId(QStringLiteral("host name"), h.name); !ok)
        return ok;
    TxnRequest txn;
    txn.success = {TxnOp::makePut(key(QStringLiteral("hosts"), h.name),
                                  RecordJson::compact(RecordJson::toJson(h)))};
    auto put = commit(txn);
    if (!put)
        return fail(txnFailed(put.error(), QStringLiteral("saving host %1").arg(h.name)));
    return {};
}

Result<void> EtcdStore::removeHost(const QString &name)
{
    const QByteArray hostKey = key(QStringLiteral("hosts"), name);
    TxnRequest txn;
    txn.compare = {TxnCompare::version(hostKey, TxnCompare::Op::Greater, 0)};
    txn.success = {TxnOp::makeDelete(hostKey)};
    auto removed = commit(txn);
    if (!removed)
        return fail(txnFailed(removed.error(), QStringLiteral("removing host %1").arg(name)));
    if (!removed->succeeded)
        return fail(Error::Kind::NotFound, QStringLiteral("host %1").arg(name),
                    QStringLiteral("no such host is registered"));
    return {};
}

Result<QList<HostRecord>> EtcdStore::hosts() const
{
    auto range = m_client->rangePrefix(m_prefix + "/hosts/");
    if (!range)
        return fail(range.error().withContext(QStringLiteral("listing hosts")));
    return parseAll(range->kvs, &RecordJson::hostFromJson);
}

Result<HostRecord> EtcdStore::host(const QString &name) const
{
    const QByteArray k = key(QStringLiteral("hosts"), name);
    auto kv = m_client->get(k);
    if (!kv)
        return fail(kv.error().withContext(QStringLiteral("reading host %1").arg(name)));
    if (!*kv)
        return fail(Error::Kind::NotFound, QStringLiteral("host %1").arg(name),
                    QStringLiteral("no such host is registered"));
    return RecordJson::parseRecord((*kv)->value, where(k), &RecordJson::hostFromJson);
}

// ---- sessions

Result<void> EtcdStore::createSession(const SessionRecord &session,
                                      const QList<KernelRecord> &kernels)
{
    if (auto ok = checkId(QStringLiteral("session id"), session.id); !ok)
        return ok;
    QSet<QString> ids;
    for (const KernelRecord &k : kernels) {
        if (auto ok = checkId(QStringLiteral("kernel id"), k.id); !ok)
            return ok;
        if (k.sessionId != session.id)
            return fail(Error::Kind::Invalid, QStringLiteral("session %1").arg(session.id),
                        QStringLiteral("kernel %1 (%2) belongs to session %3")
                            .arg(k.id, k.hostname, k.sessionId));
        if (ids.contains(k.id))
            return fail(Error::Kind::Conflict, QStringLiteral("session %1").arg(session.id),
                        QStringLiteral("kernel id %1 (%2) is used twice").arg(k.id, k.hostname));
        ids.insert(k.id);
    }
    const QByteArray sessionKey = key(QStringLiteral("sessions"), session.id);
    const QString what = QStringLiteral("creating session %1").arg(session.id);
    auto exists = [&] {
        return fail(Error::Kind::Conflict, QStringLiteral("session %1").arg(session.id),
                    QStringLiteral("session %1 already exists").arg(session.id));
    };

    // Kernels beyond what fits next to the session key go first, each chunk guarded by "the
    // session does not exist yet"; readers ignore kernels without a session key.
    const int perTxn = kMaxTxnOps - 1;
    qsizetype written = 0;
    auto cleanUp = [&] {
        if (written == 0)
            return;
        TxnRequest undo;
        undo.compare = {TxnCompare::missing(sessionKey)};
        undo.success = {TxnOp::makeDelete(kernelsPrefix(session.id),
                                          DeleteOptions{prefixEnd(kernelsPrefix(session.id))})};
        if (auto ok = commit(undo); !ok)
            qCWarning(lcStore) << "could not remove the kernels of the failed session" << session.id
                               << ":" << ok.error().toString() << "(they stay invisible)";
    };
    while (kernels.size() - written > perTxn) {
        TxnRequest txn;
        txn.compare = {TxnCompare::missing(sessionKey)};
        for (qsizetype i = written; i < written + perTxn; ++i)
            txn.success.append(TxnOp::makePut(kernelKey(session.id, kernels[i].id),
                                              RecordJson::compact(RecordJson::toJson(kernels[i]))));
        auto result = commitResolved(txn, what);
        if (!result) {
            cleanUp();
            return fail(txnFailed(result.error(), what));
        }
        if (!result->succeeded)
            return exists();
        written += perTxn;
        if (m_failAfterChunk > 0 && written / perTxn >= m_failAfterChunk)
            return fail(
                Error::Kind::Cancelled, what,
                QStringLiteral("stopped after chunk %1 (a test's fault)").arg(written / perTxn));
    }
    TxnRequest txn;
    txn.compare = {TxnCompare::missing(sessionKey)};
    // The kernels of the earlier chunks are still there (not removed as stray meanwhile).
    if (written > 0)
        txn.compare.append(TxnCompare::version(kernelKey(session.id, kernels.constFirst().id),
                                               TxnCompare::Op::Greater, 0));
    txn.success.append(
        TxnOp::makePut(sessionKey, RecordJson::compact(RecordJson::toJson(session))));
    for (qsizetype i = written; i < kernels.size(); ++i)
        txn.success.append(TxnOp::makePut(kernelKey(session.id, kernels[i].id),
                                          RecordJson::compact(RecordJson::toJson(kernels[i]))));
    // The reply may never come after the txn was sent: commitResolved reads back, so that a
    // session that was stored (and will be completed by the controller) is not reported failed.
    auto result = commitResolved(txn, what);
    if (!result) {
        cleanUp();
        return fail(txnFailed(result.error(), what));
    }
    if (!result->succeeded) {
        auto stored = m_client->get(sessionKey);
        if (written > 0 && stored && !*stored) {
            cleanUp();
            return fail(Error::Kind::Conflict, QStringLiteral("session %1").arg(session.id),
                        QStringLiteral("its first kernels were removed as stray while it was "
                                       "being created (it took longer than the grace)"));
        }
        return exists();
    }
    return {};
}

Result<void> EtcdStore::updateSession(const SessionRecord &session)
{
    return putKernels({}, session);
}

Result<void> EtcdStore::removeSession(const QString &sessionId)
{
    const QByteArray sessionKey = key(QStringLiteral("sessions"), sessionId);
    const QString what = QStringLiteral("removing session %1").arg(sessionId);
    for (int attempt = 1; attempt <= kClaimAttempts; ++attempt) {
        backoff(attempt);
        // Its network allocation goes in the same txn: a claim never outlives its session.
        auto release = networkReleaseOps(sessionId);
        if (!release)
            return fail(txnFailed(release.error(), what));
        TxnRequest txn;
        txn.compare = {TxnCompare::version(sessionKey, TxnCompare::Op::Greater, 0),
                       release->unchanged};
        txn.success = {TxnOp::makeDelete(sessionKey),
                       TxnOp::makeDelete(kernelsPrefix(sessionId),
                                         DeleteOptions{prefixEnd(kernelsPrefix(sessionId))})};
        txn.success.append(release->ops);
        auto result = commit(txn);
        if (!result)
            return fail(txnFailed(result.error(), what));
        if (result->succeeded)
            return {};
        auto stored = m_client->get(sessionKey);
        if (!stored)
            return fail(txnFailed(stored.error(), what));
        if (!*stored)
            return fail(Error::Kind::NotFound, QStringLiteral("session %1").arg(sessionId),
                        QStringLiteral("no such session"));
        // Its allocation changed between the read and the txn: read it again.
    }
    return fail(Error::Kind::Conflict, what,
                QStringLiteral("gave up after %1 attempts: its network allocation kept changing")
                    .arg(kClaimAttempts));
}

Result<void> EtcdStore::resizeSession(const SessionRecord &session,
                                      const QList<KernelRecord> &added,
                                      const QStringList &removedIds)
{
    const QString what = QStringLiteral("resizing session %1").arg(session.id);
    for (const KernelRecord &k : added) {
        if (k.id.isEmpty() || k.sessionId != session.id)
            return fail(Error::Kind::Invalid, what,
                        QStringLiteral("kernel %1 (%2) must have an id and session id %3")
                            .arg(k.id, k.hostname, session.id));
    }
    const QByteArray sessionKey = key(QStringLiteral("sessions"), session.id);
    const Error conflict = Error::make(
        Error::Kind::Conflict, what,
        QStringLiteral("the session is gone, a new kernel's id is already used, or a removed "
                       "kernel changed meanwhile"));
    if (added.size() + removedIds.size() + 1 <= kMaxTxnOps) {
        TxnRequest txn;
        txn.compare = {TxnCompare::version(sessionKey, TxnCompare::Op::Greater, 0)};
        txn.success.append(
            TxnOp::makePut(sessionKey, RecordJson::compact(RecordJson::toJson(session))));
        for (const KernelRecord &k : added) {
            const QByteArray kk = kernelKey(session.id, k.id);
            txn.compare.append(TxnCompare::missing(kk));
            txn.success.append(TxnOp::makePut(kk, RecordJson::compact(RecordJson::toJson(k))));
        }
        for (const QString &id : removedIds)
            txn.success.append(TxnOp::makeDelete(kernelKey(session.id, id)));
        auto result = commit(txn);
        if (!result)
            return fail(txnFailed(result.error(), what));
        if (!result->succeeded)
            return fail(conflict);
        return {};
    }

    // More than one txn takes (etcd's --max-txn-ops): chunks, all or nothing, as putKernels
    // writes them. Every chunk but the last writes an undo record naming the kernels it created
    // (removed again) and the values of those it removed (put back); the last one writes the
    // session and deletes the undo records, which commits the resize.
    auto current = m_client->rangePrefix(kernelsPrefix(session.id));
    if (!current)
        return fail(current.error().withContext(what));
    QHash<QByteArray, KeyValue> stored;
    for (const KeyValue &kv : std::as_const(current->kvs))
        stored.insert(kv.key, kv);
    struct Change
    {
        QByteArray key;
        QByteArray value; // put; empty: remove
    };
    QList<Change> changes;
    for (const KernelRecord &k : added)
        changes.append({kernelKey(session.id, k.id), RecordJson::compact(RecordJson::toJson(k))});
    for (const QString &id : removedIds) {
        const QByteArray kk = kernelKey(session.id, id);
        if (stored.contains(kk)) // gone already: nothing to remove
            changes.append({kk, QByteArray()});
    }
    const QByteArray intentPrefix = newIntentPrefix();
    const QByteArray firstIntent = intentPrefix + '0';
    auto abandon = [&](const Error &error) -> Result<void> {
        undoIntent(intentPrefix);
        return fail(error);
    };
    // Compares: the chunk's kernels, the session, the first undo record.
    const int perTxn = kMaxTxnOps - 4;
    qsizetype done = 0;
    int chunk = 0;
    do {
        const qsizetype end = std::min<qsizetype>(changes.size(), done + perTxn);
        const bool last = end == changes.size();
        TxnRequest txn;
        txn.compare = {TxnCompare::version(sessionKey, TxnCompare::Op::Greater, 0)};
        if (chunk > 0)
            txn.compare.append(TxnCompare::version(firstIntent, TxnCompare::Op::Greater, 0));
        QJsonArray created;
        QJsonObject restore;
        for (qsizetype i = done; i < end; ++i) {
            const Change &c = changes.at(i);
            if (c.value.isEmpty()) {
                const KeyValue &was = stored.value(c.key);
                txn.compare.append(
                    TxnCompare::modRevision(c.key, TxnCompare::Op::Equal, was.modRevision));
                txn.success.append(TxnOp::makeDelete(c.key));
                restore.insert(QString::fromUtf8(c.key), QString::fromUtf8(was.value));
            } else {
                txn.compare.append(TxnCompare::missing(c.key));
                txn.success.append(TxnOp::makePut(c.key, c.value));
                created.append(QString::fromUtf8(c.key));
            }
        }
        if (last) {
            txn.success.append(
                TxnOp::makePut(sessionKey, RecordJson::compact(RecordJson::toJson(session))));
            txn.success.append(
                TxnOp::makeDelete(intentPrefix, DeleteOptions{prefixEnd(intentPrefix)}));
        } else {
            txn.success.append(intentRecord(
                intentPrefix, chunk,
                {{QStringLiteral("created"), created}, {QStringLiteral("restore"), restore}}));
        }
        auto result = commitResolved(txn, what);
        if (!result)
            return abandon(txnFailed(result.error(), what));
        if (!result->succeeded)
            return abandon(conflict);
        done = end;
        ++chunk;
        if (!last && m_failAfterChunk > 0 && chunk >= m_failAfterChunk)
            return fail(Error::Kind::Cancelled, what,
                        QStringLiteral("stopped after chunk %1 (a test's fault)").arg(chunk));
    } while (done < changes.size());
    return {};
}

Result<SessionListing> EtcdStore::listSessions() const
{
    auto range = m_client->rangePrefix(m_prefix + "/sessions/");
    if (!range)
        return fail(range.error().withContext(QStringLiteral("listing sessions")));
    SessionListing listing;
    listing.sessions.reserve(range->kvs.size());
    for (const KeyValue &kv : std::as_const(range->kvs)) {
        auto record =
            RecordJson::parseRecord(kv.value, where(kv.key), &RecordJson::sessionFromJson);
        if (record)
            listing.sessions.append(std::move(*record));
        else
            listing.undecodable.append({where(kv.key), record.error().message});
    }
    // The SQLite order: oldest first.
    std::stable_sort(listing.sessions.begin(), listing.sessions.end(),
                     [](const SessionRecord &a, const SessionRecord &b) {
                         return a.createdAt != b.createdAt ? a.createdAt < b.createdAt
                                                           : a.id < b.id;
                     });
    return listing;
}

Result<SessionRecord> EtcdStore::session(const QString &sessionId) const
{
    const QByteArray k = key(QStringLiteral("sessions"), sessionId);
    auto kv = m_client->get(k);
    if (!kv)
        return fail(kv.error().withContext(QStringLiteral("reading session %1").arg(sessionId)));
    if (!*kv)
        return fail(Error::Kind::NotFound, QStringLiteral("session %1").arg(sessionId),
                    QStringLiteral("no such session"));
    return RecordJson::parseRecord((*kv)->value, where(k), &RecordJson::sessionFromJson);
}

// ---- kernels

Result<void> EtcdStore::putKernels(const QList<KernelRecord> &kernels,
                                   const std::optional<SessionRecord> &session,
                                   const QHash<QByteArray, KeyValue> *readAs, bool *contended)
{
    // Each chunk: "every key is as read" compares, then the puts; a failed compare changes
    // nothing and the chunk is read and tried again. Reading first lets a writer that holds an
    // older copy of a kernel keep the controller's newer observation of it (the controller is
    // the only writer of `observed`; see modifyKernels).
    //
    // More kernels than one txn takes are written in chunks, all or nothing: every chunk but
    // the last also writes an undo record, <prefix>/intents/<id>/<chunk>, holding the values it
    // replaces (its mod revision is the chunk's own); every chunk after the first requires the
    // first undo record to exist; the last chunk deletes them all, which commits the update.
    // A chunk that fails makes this writer undo the earlier ones (each key back to its old value
    // unless someone wrote it since); a writer that dies between chunks leaves undo records that
    // removeStrayRecords() (the controller's pass) undoes after the grace. Readers may see the
    // earlier chunks meanwhile; the outcome is all or nothing.
    const bool chunked = kernels.size() > kMaxTxnOps - 1;
    // Compares count against the limit too: kernels, the session, the first undo record, the
    // controller's fence.
    const int perTxn = chunked ? kMaxTxnOps - 4 : kMaxTxnOps - 1;
    const QByteArray intentPrefix = chunked ? newIntentPrefix() : QByteArray();
    const QByteArray firstIntent = intentPrefix + '0';
    auto abandon = [&](const Error &error) -> Result<void> {
        if (chunked)
            undoIntent(intentPrefix);
        return fail(error);
    };
    qsizetype done = 0;
    int chunk = 0;
    do {
        const qsizetype end = std::min<qsizetype>(kernels.size(), done + perTxn);
        const bool last = end == kernels.size();
        const QString what = session && kernels.isEmpty()
                                 ? QStringLiteral("updating session %1").arg(session->id)
                                 : QStringLiteral("updating %1 kernels").arg(kernels.size());
        bool committed = false;
        for (int attempt = 0; attempt < kCasAttempts && !committed; ++attempt) {
            backoff(attempt);
            QHash<QByteArray, KeyValue> current;
            if (readAs)
                current = *readAs;
            QSet<QString> sessions;
            for (qsizetype i = done; i < end && !readAs; ++i)
                sessions.insert(kernels[i].sessionId);
            for (const QString &sid : std::as_const(sessions)) {
                auto range = m_client->rangePrefix(kernelsPrefix(sid));
                if (!range)
                    return abandon(range.error().withContext(what));
                for (const KeyValue &kv : std::as_const(range->kvs))
                    current.insert(kv.key, kv);
            }
            TxnRequest txn;
            QJsonObject undo;
            for (qsizetype i = done; i < end; ++i) {
                KernelRecord k = kernels[i];
                const QByteArray kk = kernelKey(k.sessionId, k.id);
                const auto stored = current.constFind(kk);
                if (stored == current.cend())
                    return abandon(Error::make(
                        Error::Kind::NotFound, QStringLiteral("kernel %1").arg(k.id),
                        QStringLiteral("no such kernel in session %1").arg(k.sessionId)));
                if (auto was = RecordJson::parseRecord(stored->value, where(kk),
                                                       &RecordJson::kernelFromJson);
                    was && was->observed.at.isValid() &&
                    (!k.observed.at.isValid() || was->observed.at > k.observed.at))
                    k.observed = was->observed;
                txn.compare.append(
                    TxnCompare::modRevision(kk, TxnCompare::Op::Equal, stored->modRevision));
                txn.success.append(TxnOp::makePut(kk, RecordJson::compact(RecordJson::toJson(k))));
                undo.insert(QString::fromUtf8(kk), QString::fromUtf8(stored->value));
            }
            if (last && session) {
                const QByteArray sk = key(QStringLiteral("sessions"), session->id);
                txn.compare.append(TxnCompare::version(sk, TxnCompare::Op::Greater, 0));
                txn.success.append(
                    TxnOp::makePut(sk, RecordJson::compact(RecordJson::toJson(*session))));
            }
            if (txn.success.isEmpty())
                return {};
            if (chunked && chunk > 0)
                txn.compare.append(TxnCompare::version(firstIntent, TxnCompare::Op::Greater, 0));
            if (chunked && !last)
                txn.success.append(
                    intentRecord(intentPrefix, chunk, {{QStringLiteral("undo"), undo}}));
            if (chunked && last)
                txn.success.append(
                    TxnOp::makeDelete(intentPrefix, DeleteOptions{prefixEnd(intentPrefix)}));
            auto result = commitResolved(txn, what);
            if (!result)
                return abandon(txnFailed(result.error(), what));
            if (result->succeeded) {
                committed = true;
                break;
            }
            if (readAs) {
                // Changed since the caller read them: it reads and changes them again.
                if (contended)
                    *contended = true;
                return abandon(Error::make(Error::Kind::Conflict, what,
                                           QStringLiteral("the kernels changed meanwhile")));
            }
            if (last && session) {
                auto kv = m_client->get(key(QStringLiteral("sessions"), session->id));
                if (kv && !*kv)
                    return abandon(Error::make(Error::Kind::NotFound,
                                               QStringLiteral("session %1").arg(session->id),
                                               QStringLiteral("no such session")));
            }
            if (chunked && chunk > 0) {
                auto kv = m_client->get(firstIntent);
                if (kv && !*kv)
                    return fail(Error::Kind::Conflict, what,
                                QStringLiteral("the update was undone by the controller (it took "
                                               "longer than the grace for unfinished updates)"));
            }
        }
        if (!committed)
            return abandon(Error::make(
                Error::Kind::Conflict, what,
                QStringLiteral("the kernels kept changing under %1 attempts").arg(kCasAttempts)));
        done = end;
        ++chunk;
        if (chunked && !last && m_failAfterChunk > 0 && chunk >= m_failAfterChunk)
            return fail(Error::Kind::Cancelled, what,
                        QStringLiteral("stopped after chunk %1 (a test's fault)").arg(chunk));
    } while (done < kernels.size());
    return {};
}

Result<void> EtcdStore::updateKernel(const KernelRecord &kernel)
{
    return putKernels({kernel}, std::nullopt);
}

Result<void> EtcdStore::updateKernels(const QList<KernelRecord> &kernels,
                                      const std::optional<SessionRecord> &session)
{
    return putKernels(kernels, session);
}

Result<KernelRecord> EtcdStore::updateKernelStatus(const QString &sessionId,
                                                   const QString &kernelId, KernelStatus status,
                                                   const QString &reason)
{
    const QByteArray k = kernelKey(sessionId, kernelId);
    for (int attempt = 0; attempt < kCasAttempts; ++attempt) {
        backoff(attempt);
        auto kv = m_client->get(k);
        if (!kv)
            return fail(kv.error().withContext(QStringLiteral("reading kernel %1").arg(kernelId)));
        if (!*kv)
            return fail(Error::Kind::NotFound, QStringLiteral("kernel %1").arg(kernelId),
                        QStringLiteral("no such kernel in session %1").arg(sessionId));
        auto record = RecordJson::parseRecord((*kv)->value, where(k), &RecordJson::kernelFromJson);
        if (!record)
            return fail(record.error());
        record->changeStatus(status, QDateTime::currentDateTimeUtc(), reason);
        TxnRequest txn;
        txn.compare = {TxnCompare::modRevision(k, TxnCompare::Op::Equal, (*kv)->modRevision)};
        txn.success = {TxnOp::makePut(k, RecordJson::compact(RecordJson::toJson(*record)))};
        auto result = commit(txn);
        if (!result)
            return fail(txnFailed(result.error(),
                                  QStringLiteral("setting the status of kernel %1").arg(kernelId)));
        if (result->succeeded)
            return std::move(*record);
    }
    return fail(Error::Kind::Conflict, QStringLiteral("kernel %1").arg(kernelId),
                QStringLiteral("the kernel kept changing under %1 attempts to set its status")
                    .arg(kCasAttempts));
}

Result<KernelRecord> EtcdStore::kernel(const QString &sessionId, const QString &kernelId) const
{
    const QByteArray k = kernelKey(sessionId, kernelId);
    auto kv = m_client->get(k);
    if (!kv)
        return fail(kv.error().withContext(QStringLiteral("reading kernel %1").arg(kernelId)));
    if (!*kv)
        return fail(Error::Kind::NotFound, QStringLiteral("kernel %1").arg(kernelId),
                    QStringLiteral("no such kernel in session %1").arg(sessionId));
    return RecordJson::parseRecord((*kv)->value, where(k), &RecordJson::kernelFromJson);
}

Result<QList<KernelRecord>> EtcdStore::kernels(const QString &sessionId) const
{
    auto range = m_client->rangePrefix(kernelsPrefix(sessionId));
    if (!range)
        return fail(range.error().withContext(
            QStringLiteral("listing the kernels of session %1").arg(sessionId)));
    if (range->kvs.isEmpty())
        return QList<KernelRecord>();
    // Kernels of a session that is still being created (or whose create failed) are not shown.
    auto owner = m_client->get(key(QStringLiteral("sessions"), sessionId), range->header.revision);
    if (!owner)
        return fail(owner.error());
    if (!*owner)
        return QList<KernelRecord>();
    auto list = parseAll(range->kvs, &RecordJson::kernelFromJson);
    if (!list)
        return list;
    std::stable_sort(list->begin(), list->end(), [](const KernelRecord &a, const KernelRecord &b) {
        return a.localRank != b.localRank ? a.localRank < b.localRank : a.id < b.id;
    });
    return list;
}

Result<QList<KernelRecord>> EtcdStore::allKernels() const
{
    auto range = m_client->rangePrefix(m_prefix + "/kernels/");
    if (!range)
        return fail(range.error().withContext(QStringLiteral("listing kernels")));
    if (range->kvs.isEmpty())
        return QList<KernelRecord>();
    auto live = liveSessionIds(range->header.revision);
    if (!live)
        return fail(live.error().withContext(QStringLiteral("listing sessions")));
    auto list = parseAll(range->kvs, &RecordJson::kernelFromJson);
    if (!list)
        return list;
    list->removeIf([&live](const KernelRecord &k) { return !live->contains(k.sessionId); });
    std::stable_sort(list->begin(), list->end(), [](const KernelRecord &a, const KernelRecord &b) {
        if (a.sessionId != b.sessionId)
            return a.sessionId < b.sessionId;
        return a.localRank != b.localRank ? a.localRank < b.localRank : a.id < b.id;
    });
    return list;
}

Result<QSet<QString>> EtcdStore::liveSessionIds(qint64 revision) const
{
    const QByteArray prefix = m_prefix + "/sessions/";
    auto keys = m_client->rangePrefix(prefix, 1000, /*keysOnly=*/true, revision);
    if (!keys)
        return fail(keys.error());
    QSet<QString> live;
    live.reserve(keys->kvs.size());
    for (const KeyValue &kv : std::as_const(keys->kvs))
        live.insert(QString::fromUtf8(kv.key.mid(prefix.size())));
    return live;
}

// ---- unknown outcomes, unfinished writes

Result<bool> EtcdStore::landed(const TxnRequest &txn) const
{
    // All puts of one txn carry its revision: they landed when every one of them holds our value
    // and they share one mod revision. (Another writer cannot have written all of them, with
    // these very values, in one txn of its own.)
    qint64 revision = 0;
    for (const TxnOp &op : txn.success) {
        if (op.type != TxnOp::Type::Put)
            continue;
        auto kv = m_client->get(op.key);
        if (!kv)
            return fail(kv.error());
        if (!*kv || (*kv)->value != op.value)
            return false;
        if (revision != 0 && (*kv)->modRevision != revision)
            return false;
        revision = (*kv)->modRevision;
    }
    return revision != 0;
}

Result<TxnResult> EtcdStore::commitResolved(const TxnRequest &txn, const QString &what)
{
    auto result = commit(txn);
    if (result || !EtcdClient::outcomeUnknown(result.error()))
        return result;
    // Sent, but no reply: it may have been applied. It is never sent again (a CAS must not be
    // applied twice); reading back tells which, so the caller reports what really happened.
    qCInfo(lcStore).noquote() << what << ": no reply (" << result.error().toString()
                              << "), reading back";
    std::optional<Error> readError;
    for (int attempt = 0; attempt < 5; ++attempt) {
        if (attempt > 0)
            std::this_thread::sleep_for(500ms);
        auto done = landed(txn);
        if (!done) {
            readError = done.error();
            continue;
        }
        if (*done) {
            qCInfo(lcStore).noquote() << what << ": it was applied";
            TxnResult applied;
            applied.succeeded = true;
            return applied;
        }
        Error error = result.error();
        error.message += QStringLiteral(" (read back: not applied)");
        return fail(error);
    }
    Error error = result.error();
    error.message += QStringLiteral(" (whether it was applied is unknown: reading back failed: %1)")
                         .arg(readError ? readError->toString() : QString());
    return fail(error);
}

QByteArray EtcdStore::newIntentPrefix() const
{
    return m_prefix + "/intents/" + QUuid::createUuid().toByteArray(QUuid::WithoutBraces) + '/';
}

TxnOp EtcdStore::intentRecord(const QByteArray &intentPrefix, int chunk, QJsonObject undo)
{
    undo.insert(QStringLiteral("at"), RecordJson::dateToText(QDateTime::currentDateTimeUtc()));
    return TxnOp::makePut(intentPrefix + QByteArray::number(chunk), RecordJson::compact(undo));
}

void EtcdStore::undoIntent(const QByteArray &intentPrefix)
{
    auto intents = m_client->rangePrefix(intentPrefix);
    if (!intents) {
        qCWarning(lcStore) << "could not read the undo records" << intentPrefix << ":"
                           << intents.error().toString() << "(the controller undoes them later)";
        return;
    }
    for (const KeyValue &kv : std::as_const(intents->kvs)) {
        auto object = RecordJson::parseObject(kv.value, where(kv.key));
        const QJsonObject undo =
            object ? object->value(QLatin1StringView("undo")).toObject() : QJsonObject();
        // Each key back to its value before the update, unless someone wrote it since (its mod
        // revision is no longer the chunk's own: the undo record's).
        auto undoOne = [&](const QByteArray &k, const TxnCompare &unchanged, const TxnOp &op) {
            TxnRequest txn;
            txn.compare = {unchanged};
            txn.success = {op};
            if (auto ok = commit(txn); !ok)
                qCWarning(lcStore) << "undoing" << k << ":" << ok.error().toString();
        };
        for (auto it = undo.begin(); it != undo.end(); ++it) {
            const QByteArray k = it.key().toUtf8();
            undoOne(k, TxnCompare::modRevision(k, TxnCompare::Op::Equal, kv.modRevision),
                    TxnOp::makePut(k, it.value().toString().toUtf8()));
        }
        // A resize's (resizeSession): the kernels it created removed, those it removed put
        // back unless one of that key was made since.
        const QJsonArray created =
            object ? object->value(QLatin1StringView("created")).toArray() : QJsonArray();
        for (const QJsonValue &v : created) {
            const QByteArray k = v.toString().toUtf8();
            undoOne(k, TxnCompare::modRevision(k, TxnCompare::Op::Equal, kv.modRevision),
                    TxnOp::makeDelete(k));
        }
        const QJsonObject restore =
            object ? object->value(QLatin1StringView("restore")).toObject() : QJsonObject();
        for (auto it = restore.begin(); it != restore.end(); ++it) {
            const QByteArray k = it.key().toUtf8();
            undoOne(k, TxnCompare::missing(k), TxnOp::makePut(k, it.value().toString().toUtf8()));
        }
        TxnRequest drop;
        drop.success = {TxnOp::makeDelete(kv.key)};
        if (auto ok = commit(drop); !ok)
            qCWarning(lcStore) << "removing the undo record" << kv.key << ":"
                               << ok.error().toString();
    }
}

bool EtcdStore::strayLongEnough(const QString &what, const QDateTime &newest,
                                std::chrono::milliseconds grace)
{
    // Old enough by the records' own time, or seen stray by this object for the grace (a clock
    // that is off, or records without a time).
    const auto now = std::chrono::steady_clock::now();
    std::lock_guard lock(m_strayMutex);
    if (!m_straySeen.contains(what))
        m_straySeen.insert(what, now);
    const auto seen = m_straySeen.value(what);
    if (newest.isValid() &&
        newest.msecsTo(QDateTime::currentDateTimeUtc()) >= qint64(grace.count()))
        return true;
    return now - seen >= grace;
}

Result<int> EtcdStore::removeStrayRecords(std::chrono::milliseconds grace)
{
    int removed = 0;
    // Kernels without their session: a create that died between its chunks (or whose final
    // txn failed and whose clean-up failed too).
    auto all = m_client->rangePrefix(m_prefix + "/kernels/", 1000, /*keysOnly=*/true);
    if (!all)
        return fail(all.error().withContext(QStringLiteral("looking for stray kernels")));
    auto live = liveSessionIds(all->header.revision);
    if (!live)
        return fail(live.error().withContext(QStringLiteral("looking for stray kernels")));
    QHash<QString, QDateTime> stray; // session id → newest time of its kernels
    const int kskip = int(m_prefix.size() + QByteArray("/kernels/").size());
    for (const KeyValue &kv : std::as_const(all->kvs)) {
        const QString sid = QString::fromUtf8(kv.key.mid(kskip).split('/').value(0));
        if (!live->contains(sid))
            stray.insert(sid, QDateTime());
    }
    // Only the stray ones are read in full, for their age.
    for (auto it = stray.begin(); it != stray.end(); ++it) {
        auto records = m_client->rangePrefix(kernelsPrefix(it.key()));
        if (!records)
            return fail(records.error().withContext(QStringLiteral("looking for stray kernels")));
        for (const KeyValue &kv : std::as_const(records->kvs)) {
            auto record =
                RecordJson::parseRecord(kv.value, where(kv.key), &RecordJson::kernelFromJson);
            if (!record)
                continue;
            for (const QDateTime &t : {record->createdAt, record->updatedAt}) {
                if (t.isValid() && (!it.value().isValid() || t > it.value()))
                    it.value() = t;
            }
        }
    }
    for (auto it = stray.cbegin(); it != stray.cend(); ++it) {
        if (!strayLongEnough(QStringLiteral("kernels/") + it.key(), it.value(), grace))
            continue;
        const QByteArray sessionKey = key(QStringLiteral("sessions"), it.key());
        TxnRequest txn;
        txn.compare = {TxnCompare::missing(sessionKey)};
        txn.success = {TxnOp::makeDelete(kernelsPrefix(it.key()),
                                         DeleteOptions{prefixEnd(kernelsPrefix(it.key()))})};
        auto done = commit(txn);
        if (!done)
            return fail(done.error().withContext(
                QStringLiteral("removing the stray kernels of session %1").arg(it.key())));
        if (done->succeeded) {
            ++removed;
            qCInfo(lcStore) << "removed the stray kernels of session" << it.key()
                            << "(no session record: a create that did not finish)";
        }
        std::lock_guard lock(m_strayMutex);
        m_straySeen.remove(QStringLiteral("kernels/") + it.key());
    }

    // Network allocations without their session: removed by a build from before them, which
    // deletes a session's own keys only (a claim needs the session, and removeSession releases
    // in its txn). Freed after the grace, in a txn that checks both again.
    auto networks = m_client->rangePrefix(m_prefix + "/networks/sessions/");
    if (!networks)
        return fail(networks.error().withContext(QStringLiteral("looking for stray networks")));
    for (const KeyValue &kv : std::as_const(networks->kvs)) {
        auto allocation = RecordJson::parseRecord(kv.value, where(kv.key),
                                                  &RecordJson::networkAllocationFromJson);
        if (!allocation)
            continue; // reported where it is read; its keys cannot be found without it
        const QByteArray sessionKey = key(QStringLiteral("sessions"), allocation->sessionId);
        auto session = m_client->get(sessionKey);
        if (!session)
            return fail(session.error().withContext(QStringLiteral("looking for stray networks")));
        const QString what = QStringLiteral("networks/") + allocation->sessionId;
        if (*session || !strayLongEnough(what, allocation->claimedAt, grace))
            continue;
        TxnRequest txn;
        txn.compare = {TxnCompare::missing(sessionKey),
                       TxnCompare::modRevision(kv.key, TxnCompare::Op::Equal, kv.modRevision)};
        txn.success = {TxnOp::makeDelete(kv.key), TxnOp::makeDelete(vniKey(allocation->vni)),
                       TxnOp::makeDelete(subnetKey(allocation->subnet))};
        auto done = commit(txn);
        if (!done)
            return fail(done.error().withContext(
                QStringLiteral("releasing the network of removed session %1")
                    .arg(allocation->sessionId)));
        if (done->succeeded) {
            ++removed;
            qCInfo(lcStore) << "released VNI" << allocation->vni << "and"
                            << allocation->subnet.toString() << "of session"
                            << allocation->sessionId << "(its record was removed without them)";
        }
        std::lock_guard lock(m_strayMutex);
        m_straySeen.remove(what);
    }

    // Undo records of a multi-chunk kernel update that did not finish: undo what it wrote.
    auto intents = m_client->rangePrefix(m_prefix + "/intents/");
    if (!intents)
        return fail(intents.error().withContext(QStringLiteral("looking for unfinished updates")));
    QHash<QString, QDateTime> updates;
    const int iskip = int(m_prefix.size() + QByteArray("/intents/").size());
    for (const KeyValue &kv : std::as_const(intents->kvs)) {
        const QString id = QString::fromUtf8(kv.key.mid(iskip).split('/').value(0));
        auto object = RecordJson::parseObject(kv.value, where(kv.key));
        const QDateTime at =
            object ? RecordJson::dateFromText(object->value(QLatin1StringView("at")).toString())
                   : QDateTime();
        QDateTime &newest = updates[id];
        if (at.isValid() && (!newest.isValid() || at > newest))
            newest = at;
    }
    for (auto it = updates.cbegin(); it != updates.cend(); ++it) {
        if (!strayLongEnough(QStringLiteral("intents/") + it.key(), it.value(), grace))
            continue;
        qCInfo(lcStore) << "undoing the unfinished kernel update" << it.key();
        undoIntent(m_prefix + "/intents/" + it.key().toUtf8() + '/');
        ++removed;
        std::lock_guard lock(m_strayMutex);
        m_straySeen.remove(QStringLiteral("intents/") + it.key());
    }
    return removed;
}

// ---- events

Result<qint64> EtcdStore::appendEvent(const EventRecord &event)
{
    const QByteArray counterKey = m_prefix + "/meta/eventseq";
    for (int attempt = 0; attempt < kCasAttempts; ++attempt) {
        backoff(attempt);
        auto counter = m_client->get(counterKey);
        if (!counter)
            return fail(counter.error().withContext(QStringLiteral("appending an event")));
        const qint64 seq = (*counter ? (*counter)->value.toLongLong() : 0) + 1;
        EventRecord e = event;
        e.seq = seq;
        if (!e.at.isValid())
            e.at = QDateTime::currentDateTimeUtc();
        TxnRequest txn;
        txn.compare = {*counter ? TxnCompare::modRevision(counterKey, TxnCompare::Op::Equal,
                                                          (*counter)->modRevision)
                                : TxnCompare::missing(counterKey)};
        txn.success = {TxnOp::makePut(counterKey, QByteArray::number(seq)),
                       TxnOp::makePut(eventKey(seq), RecordJson::compact(RecordJson::toJson(e)))};
        auto result = commit(txn);
        if (!result)
            return fail(txnFailed(result.error(), QStringLiteral("appending an event")));
        if (result->succeeded)
            return seq;
    }
    return fail(Error::Kind::Conflict, where(counterKey),
                QStringLiteral("too many concurrent writers of the event log"));
}

Result<QList<EventRecord>> EtcdStore::events(qint64 afterSeq, int limit) const
{
    RangeOptions options;
    options.rangeEnd = prefixEnd(m_prefix + "/events/");
    options.limit = limit > 0 ? limit : 0;
    options.sortOrder = SortOrder::Ascend;
    options.sortTarget = SortTarget::Key;
    auto range = m_client->range(eventKey(std::max<qint64>(afterSeq, 0) + 1), options);
    if (!range)
        return fail(range.error().withContext(QStringLiteral("reading events")));
    return parseAll(range->kvs, &RecordJson::eventFromJson);
}

// ---- locks

Result<std::unique_ptr<SessionLock>> EtcdStore::lockSession(const QString &sessionId,
                                                            std::chrono::milliseconds wait)
{
    if (auto ok = checkId(QStringLiteral("session id"), sessionId); !ok)
        return fail(ok.error());
    LockOptions options;
    options.ttlSeconds = kLockTtlSeconds;
    options.holder = holderValue();
    auto lock =
        std::make_unique<EtcdLock>(*m_client, key(QStringLiteral("locks"), sessionId), options);
    auto taken = wait.count() <= 0 ? lock->tryLock() : lock->lock(wait);
    if (!taken) {
        const Error::Kind kind = taken.error().kind;
        if (kind != Error::Kind::Timeout && kind != Error::Kind::Conflict)
            return fail(
                taken.error().withContext(QStringLiteral("locking session %1").arg(sessionId)));
        LockHolder holder; // unknown unless the lock's value says
        if (auto value = lock->holder(); value && *value) {
            const auto object = RecordJson::parseObject((*value)->value, QString());
            if (object) {
                holder.owner = object->value(QLatin1StringView("owner")).toString();
                holder.since =
                    RecordJson::dateFromText(object->value(QLatin1StringView("since")).toString());
            } else {
                holder.owner = QString::fromUtf8((*value)->value);
            }
        }
        return fail(holder.busyError(sessionId));
    }
    // Record when we actually got it (the value was written when we started waiting).
    PutOptions put;
    put.lease = lock->leaseId();
    if (auto ok = m_client->put(lock->key(), holderValue(), put); !ok)
        qCDebug(lcStore) << "could not update the lock holder's time:" << ok.error().toString();
    return std::unique_ptr<SessionLock>(new EtcdSessionLock(m_client, std::move(lock), sessionId));
}

// ---- fencing and the controller's leadership

std::shared_ptr<EtcdStore::Fence> EtcdStore::currentFence() const
{
    std::lock_guard lock(m_fenceMutex);
    return m_fence;
}

Error EtcdStore::fenceLost(Fence &fence) const
{
    if (fence.held.exchange(false))
        qCWarning(lcStore) << "the controller's leadership (revision" << fence.createRevision
                           << ") is lost";
    fence.lost.cancel();
    return Error::make(Error::Kind::Conflict, where(fence.key),
                       QStringLiteral("this controller is no longer the leader (its key of "
                                      "revision %1 is gone); it writes nothing more")
                           .arg(fence.createRevision));
}

Result<TxnResult> EtcdStore::commit(TxnRequest txn)
{
    const std::shared_ptr<Fence> fence = currentFence();
    if (fence) {
        if (!fence->held.load())
            return fail(fenceLost(*fence));
        txn.compare.append(
            TxnCompare::createRevision(fence->key, TxnCompare::Op::Equal, fence->createRevision));
    }
    auto result = m_client->txn(txn);
    if (result && !result->succeeded && fence) {
        auto kv = m_client->get(fence->key);
        if (kv && (!*kv || (*kv)->createRevision != fence->createRevision))
            return fail(fenceLost(*fence));
    }
    return result;
}

void EtcdStore::resign(const std::shared_ptr<Fence> &fence)
{
    {
        std::lock_guard lock(m_fenceMutex);
        if (m_fence == fence)
            m_fence.reset();
    }
    fence->held.store(false);
    fence->lost.cancel();
}

Result<std::unique_ptr<Leadership>> EtcdStore::campaign(const LeaderRecord &candidate,
                                                        std::chrono::milliseconds wait,
                                                        std::chrono::seconds ttl)
{
    if (candidate.ownerId.isEmpty() || ttl.count() <= 0)
        return fail(Error::Kind::Invalid, m_url,
                    QStringLiteral("a controller candidate needs an owner id and a TTL"));
    LockOptions options;
    options.ttlSeconds = ttl.count();
    LeaderRecord won = candidate;
    won.since = QDateTime::currentDateTimeUtc();
    options.holder = RecordJson::compact(RecordJson::toJson(won));
    auto lock = std::make_unique<EtcdLock>(*m_client, m_prefix + "/controller/leader", options);
    // A standby watches the leader's key and writes nothing while it lives; only a free
    // leadership is contended for (no lease, key and revoke every second per console).
    Result<void> taken;
    if (wait.count() > 0) {
        auto free = lock->waitUntilFree(wait);
        if (!free)
            taken = fail(free.error());
        else if (!*free)
            taken = fail(Error::Kind::Conflict, m_url, QStringLiteral("the leadership is held"));
    }
    if (taken)
        taken = lock->tryLock();
    if (!taken) {
        const Error::Kind kind = taken.error().kind;
        if (kind != Error::Kind::Timeout && kind != Error::Kind::Conflict)
            return fail(
                taken.error().withContext(QStringLiteral("campaigning for the controller")));
        auto current = leader();
        if (current && *current)
            return fail(Error::Kind::Conflict, m_url,
                        QStringLiteral("the controller of this store is %1 (pid %2 on %3), "
                                       "leading since %4")
                            .arg((*current)->actor)
                            .arg((*current)->pid)
                            .arg((*current)->hostname, (*current)->since.toLocalTime().toString(
                                                           QStringLiteral("yyyy-MM-dd HH:mm:ss"))));
        return fail(Error::Kind::Conflict, m_url,
                    QStringLiteral("another controller leads this store"));
    }
    won.term = lock->createRevision();
    won.since = QDateTime::currentDateTimeUtc();
    auto fence = std::make_shared<Fence>();
    fence->key = lock->key();
    fence->createRevision = won.term;
    // Every call made on the leader's behalf carries this token: it is cancelled when the lease
    // is lost and, checked without I/O, as soon as the lease's local deadline passes (a leader
    // frozen past its lease wakes up deposed, before its next Docker call).
    if (auto deadline = lock->deadline())
        fence->lost = CancelToken::untilDeadline(std::move(deadline));
    // The lease keeper reports a lost lease on its own thread: cancel at once, no event loop.
    connect(
        lock.get(), &EtcdLock::lost, lock.get(),
        [fence](const Error &reason) {
            if (fence->held.exchange(false))
                qCWarning(lcStore) << "the controller's leadership is lost:" << reason.toString();
            fence->lost.cancel();
        },
        Qt::DirectConnection);
    // The value names the leader with its term; a put keeps the key's create revision.
    PutOptions put;
    put.lease = lock->leaseId();
    if (auto ok = m_client->put(lock->key(), RecordJson::compact(RecordJson::toJson(won)), put);
        !ok)
        qCWarning(lcStore) << "could not record the leader's term:" << ok.error().toString();
    {
        std::lock_guard guard(m_fenceMutex);
        m_fence = fence;
    }
    qCInfo(lcStore) << "controller leadership taken, term" << won.term;
    return std::unique_ptr<Leadership>(
        new EtcdLeadership(this, m_client, std::move(lock), won, fence));
}

Result<std::optional<LeaderRecord>> EtcdStore::leader() const
{
    RangeOptions options;
    options.rangeEnd = prefixEnd(leaderPrefix());
    options.sortOrder = SortOrder::Ascend;
    options.sortTarget = SortTarget::Create;
    options.limit = 1;
    auto range = m_client->range(leaderPrefix(), options);
    if (!range)
        return fail(range.error().withContext(QStringLiteral("reading the controller's leader")));
    if (range->kvs.isEmpty())
        return std::optional<LeaderRecord>();
    const KeyValue &kv = range->kvs.constFirst();
    auto object = RecordJson::parseObject(kv.value, where(kv.key));
    if (!object)
        return fail(object.error());
    LeaderRecord l = RecordJson::leaderFromJson(*object);
    l.term = kv.createRevision;
    return std::optional<LeaderRecord>(l);
}

Result<void> EtcdStore::putControllerStatus(const ControllerStatus &status)
{
    TxnRequest txn;
    txn.success = {TxnOp::makePut(m_prefix + "/controller/status",
                                  RecordJson::compact(RecordJson::toJson(status)))};
    auto result = commit(txn);
    if (!result)
        return fail(result.error().withContext(QStringLiteral("saving the controller's status")));
    return {};
}

Result<std::optional<ControllerStatus>> EtcdStore::controllerStatus() const
{
    const QByteArray k = m_prefix + "/controller/status";
    auto kv = m_client->get(k);
    if (!kv)
        return fail(kv.error().withContext(QStringLiteral("reading the controller's status")));
    if (!*kv)
        return std::optional<ControllerStatus>();
    auto object = RecordJson::parseObject((*kv)->value, where(k));
    if (!object)
        return fail(object.error());
    return std::optional<ControllerStatus>(RecordJson::controllerStatusFromJson(*object));
}

Result<qint64> EtcdStore::requestControllerPass()
{
    const QByteArray k = m_prefix + "/controller/requests";
    for (int attempt = 0; attempt < kCasAttempts; ++attempt) {
        backoff(attempt);
        auto current = m_client->get(k);
        if (!current)
            return fail(current.error().withContext(QStringLiteral("asking for a pass")));
        const qint64 next = (*current ? (*current)->value.toLongLong() : 0) + 1;
        TxnRequest txn;
        txn.compare = {
            *current ? TxnCompare::modRevision(k, TxnCompare::Op::Equal, (*current)->modRevision)
                     : TxnCompare::missing(k)};
        txn.success = {TxnOp::makePut(k, QByteArray::number(next))};
        auto result = commit(txn);
        if (!result)
            return fail(result.error().withContext(QStringLiteral("asking for a pass")));
        if (result->succeeded)
            return next;
    }
    return fail(Error::Kind::Conflict, where(k), QStringLiteral("too many concurrent requests"));
}

Result<qint64> EtcdStore::controllerPassRequests() const
{
    auto kv = m_client->get(m_prefix + "/controller/requests");
    if (!kv)
        return fail(kv.error().withContext(QStringLiteral("reading the pass requests")));
    return *kv ? (*kv)->value.toLongLong() : qint64(0);
}

// ---- settings

Result<QString> EtcdStore::setting(const QString &name) const
{
    if (auto ok = checkSettingKey(name); !ok)
        return fail(ok.error());
    auto kv = m_client->get(key(QStringLiteral("settings"), name));
    if (!kv)
        return fail(kv.error().withContext(QStringLiteral("reading setting %1").arg(name)));
    return *kv ? QString::fromUtf8((*kv)->value) : QStringLiteral("");
}

Result<void> EtcdStore::setSetting(const QString &name, const QString &value)
{
    if (auto ok = checkSettingKey(name); !ok)
        return ok;
    const QByteArray k = key(QStringLiteral("settings"), name);
    TxnRequest txn;
    if (value.isEmpty()) {
        txn.success = {TxnOp::makeDelete(k)};
        auto removed = commit(txn);
        if (!removed)
            return fail(
                txnFailed(removed.error(), QStringLiteral("removing setting %1").arg(name)));
        return {};
    }
    // A reply that never came is read back, so the caller learns whether it was written.
    const QString what = QStringLiteral("writing setting %1").arg(name);
    txn.success = {TxnOp::makePut(k, value.toUtf8())};
    auto put = commitResolved(txn, what);
    if (!put)
        return fail(txnFailed(put.error(), what));
    return {};
}

// ---- kernels, read-modify-write

Result<QList<KernelRecord>> EtcdStore::modifyKernels(const QList<KernelRef> &refs,
                                                     const KernelChange &change)
{
    // One session at a time: read its kernels in one range, change, write back with one
    // mod-revision compare per key; a concurrent writer makes us read that session again.
    QMap<QString, QSet<QString>> wanted;
    for (const KernelRef &r : refs)
        wanted[r.sessionId].insert(r.kernelId);
    QList<KernelRecord> changed;
    for (auto it = wanted.cbegin(); it != wanted.cend(); ++it) {
        const QString &sessionId = it.key();
        bool written = false;
        bool contended = false;
        for (int attempt = 0; attempt < kCasAttempts && !written; ++attempt) {
            contended = false;
            backoff(attempt);
            auto range = m_client->rangePrefix(kernelsPrefix(sessionId));
            if (!range)
                return fail(range.error().withContext(
                    QStringLiteral("reading the kernels of session %1").arg(sessionId)));
            QList<KernelRecord> mine;
            TxnRequest txn;
            for (const KeyValue &kv : std::as_const(range->kvs)) {
                const QString kernelId =
                    QString::fromUtf8(kv.key.mid(kernelsPrefix(sessionId).size()));
                if (!it->contains(kernelId))
                    continue;
                auto record =
                    RecordJson::parseRecord(kv.value, where(kv.key), &RecordJson::kernelFromJson);
                if (!record)
                    return fail(record.error());
                if (!change(*record))
                    continue;
                txn.compare.append(
                    TxnCompare::modRevision(kv.key, TxnCompare::Op::Equal, kv.modRevision));
                txn.success.append(
                    TxnOp::makePut(kv.key, RecordJson::compact(RecordJson::toJson(*record))));
                mine.append(std::move(*record));
            }
            if (txn.success.isEmpty())
                break;
            if (txn.success.size() >= kMaxTxnOps) {
                // More than one txn takes: putKernels' chunks, all or nothing, each compared
                // with the revisions read here.
                QHash<QByteArray, KeyValue> read;
                for (const KeyValue &kv : std::as_const(range->kvs))
                    read.insert(kv.key, kv);
                bool changedMeanwhile = false;
                auto put = putKernels(mine, std::nullopt, &read, &changedMeanwhile);
                if (put) {
                    changed.append(mine);
                    written = true;
                } else if (changedMeanwhile) {
                    contended = true;
                } else {
                    return fail(put.error().withContext(
                        QStringLiteral("updating the kernels of session %1").arg(sessionId)));
                }
                continue;
            }
            auto result = commit(txn);
            if (!result)
                return fail(result.error().withContext(
                    QStringLiteral("updating the kernels of session %1").arg(sessionId)));
            if (result->succeeded) {
                changed.append(mine);
                written = true;
            } else {
                contended = true;
            }
        }
        if (contended)
            return fail(Error::Kind::Conflict, QStringLiteral("session %1").arg(sessionId),
                        QStringLiteral("its kernels kept changing under %1 attempts to update them")
                            .arg(kCasAttempts));
    }
    return changed;
}

// ---- session networks

QByteArray EtcdStore::networkKey(const QString &sessionId) const
{
    return m_prefix + "/networks/sessions/" + sessionId.toUtf8();
}

QByteArray EtcdStore::vniKey(quint32 vni) const
{
    return m_prefix + "/networks/vnis/" + QByteArray::number(vni).rightJustified(8, '0');
}

QByteArray EtcdStore::subnetKey(const Ipv4Cidr &subnet) const
{
    // By network address alone: every allocation is a /24, so equal keys are the only overlap.
    return m_prefix + "/networks/subnets/" + Ipv4Cidr::addressToString(subnet.network()).toUtf8();
}

Result<EtcdStore::NetworkRelease> EtcdStore::networkReleaseOps(const QString &sessionId) const
{
    const QByteArray ownKey = networkKey(sessionId);
    auto kv = m_client->get(ownKey);
    if (!kv)
        return fail(kv.error());
    NetworkRelease release;
    if (!*kv) {
        release.unchanged = TxnCompare::missing(ownKey);
        return release;
    }
    release.unchanged = TxnCompare::modRevision(ownKey, TxnCompare::Op::Equal, (*kv)->modRevision);
    release.ops.append(TxnOp::makeDelete(ownKey));
    // An allocation that does not decode still goes: its VNI and subnet keys name the session,
    // but they cannot be found without it, so they stay until the controller's clean-up.
    auto allocation = RecordJson::parseRecord((*kv)->value, where(ownKey),
                                              &RecordJson::networkAllocationFromJson);
    if (allocation) {
        release.ops.append(TxnOp::makeDelete(vniKey(allocation->vni)));
        release.ops.append(TxnOp::makeDelete(subnetKey(allocation->subnet)));
    } else {
        qCWarning(lcStore).noquote() << allocation.error().toString();
    }
    return release;
}

Result<NetworkAllocation> EtcdStore::claimNetwork(const NetworkClaim &claim)
{
    if (auto ok = checkId(QStringLiteral("session id"), claim.sessionId); !ok)
        return fail(ok.error());
    const QString what = QStringLiteral("claiming a network for session %1").arg(claim.sessionId);
    const QByteArray sessionKey = key(QStringLiteral("sessions"), claim.sessionId);
    const QByteArray ownKey = networkKey(claim.sessionId);
    for (int attempt = 1; attempt <= kClaimAttempts; ++attempt) {
        backoff(attempt);
        auto range = m_client->rangePrefix(m_prefix + "/networks/sessions/");
        if (!range)
            return fail(range.error().withContext(what));
        auto all = parseAll(range->kvs, &RecordJson::networkAllocationFromJson);
        if (!all)
            return fail(all.error().withContext(what));
        std::optional<NetworkAllocation> current;
        qint64 currentRevision = 0;
        for (qsizetype i = 0; i < range->kvs.size(); ++i) {
            if (range->kvs[i].key == ownKey) {
                current = all->at(i);
                currentRevision = range->kvs[i].modRevision;
            }
        }
        auto session = m_client->get(sessionKey);
        if (!session)
            return fail(session.error().withContext(what));
        if (!*session)
            return fail(Error::Kind::NotFound, QStringLiteral("session %1").arg(claim.sessionId),
                        QStringLiteral("no such session: a network is claimed for a stored "
                                       "session only"));
        auto decided = claim.decide(current, *all, QDateTime::currentDateTimeUtc());
        if (!decided)
            return fail(decided.error());
        if (current && *current == *decided)
            return *decided;

        // Compare-and-swap: the session is still there, its allocation is as read, and the VNI
        // and subnet it takes are nobody's; a claimer that lost the race reads again.
        TxnRequest txn;
        txn.compare = {TxnCompare::version(sessionKey, TxnCompare::Op::Greater, 0),
                       current
                           ? TxnCompare::modRevision(ownKey, TxnCompare::Op::Equal, currentRevision)
                           : TxnCompare::missing(ownKey)};
        const QByteArray owner = claim.sessionId.toUtf8();
        if (!current || current->vni != decided->vni) {
            txn.compare.append(TxnCompare::missing(vniKey(decided->vni)));
            txn.success.append(TxnOp::makePut(vniKey(decided->vni), owner));
            if (current)
                txn.success.append(TxnOp::makeDelete(vniKey(current->vni)));
        }
        if (!current || current->subnet != decided->subnet) {
            txn.compare.append(TxnCompare::missing(subnetKey(decided->subnet)));
            txn.success.append(TxnOp::makePut(subnetKey(decided->subnet), owner));
            if (current)
                txn.success.append(TxnOp::makeDelete(subnetKey(current->subnet)));
        }
        txn.success.append(
            TxnOp::makePut(ownKey, RecordJson::compact(RecordJson::toJson(*decided))));
        auto result = commitResolved(txn, what);
        if (!result)
            return fail(txnFailed(result.error(), what));
        if (result->succeeded) {
            qCDebug(lcStore) << "session" << claim.sessionId << "has VNI" << decided->vni << "and"
                             << decided->subnet.toString() << "after" << attempt << "attempt(s)";
            return *decided;
        }
    }
    return fail(Error::Kind::Conflict, what,
                QStringLiteral("gave up after %1 attempts: other consoles kept claiming the same "
                               "VNIs and subnets")
                    .arg(kClaimAttempts));
}

Result<void> EtcdStore::releaseNetworkAllocation(const QString &sessionId)
{
    if (auto ok = checkId(QStringLiteral("session id"), sessionId); !ok)
        return ok;
    const QString what = QStringLiteral("releasing the network of session %1").arg(sessionId);
    for (int attempt = 1; attempt <= kClaimAttempts; ++attempt) {
        backoff(attempt);
        auto release = networkReleaseOps(sessionId);
        if (!release)
            return fail(release.error().withContext(what));
        if (release->ops.isEmpty())
            return {};
        TxnRequest txn;
        txn.compare = {release->unchanged};
        txn.success = release->ops;
        auto result = commit(txn);
        if (!result)
            return fail(txnFailed(result.error(), what));
        if (result->succeeded)
            return {};
    }
    return fail(Error::Kind::Conflict, what,
                QStringLiteral("gave up after %1 attempts: the allocation kept changing")
                    .arg(kClaimAttempts));
}

Result<std::optional<NetworkAllocation>>
EtcdStore::networkAllocation(const QString &sessionId) const
{
    if (auto ok = checkId(QStringLiteral("session id"), sessionId); !ok)
        return fail(ok.error());
    const QByteArray ownKey = networkKey(sessionId);
    auto kv = m_client->get(ownKey);
    if (!kv)
        return fail(kv.error().withContext(
            QStringLiteral("reading the network of session %1").arg(sessionId)));
    if (!*kv)
        return std::optional<NetworkAllocation>();
    auto allocation = RecordJson::parseRecord((*kv)->value, where(ownKey),
                                              &RecordJson::networkAllocationFromJson);
    if (!allocation)
        return fail(allocation.error());
    return std::optional<NetworkAllocation>(std::move(*allocation));
}

Result<QList<NetworkAllocation>> EtcdStore::networkAllocations() const
{
    auto range = m_client->rangePrefix(m_prefix + "/networks/sessions/");
    if (!range)
        return fail(range.error().withContext(QStringLiteral("listing network allocations")));
    return parseAll(range->kvs, &RecordJson::networkAllocationFromJson);
}

} // namespace ClusterDeck
