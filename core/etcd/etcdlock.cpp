#include "etcdlock.h"

#include "common/logging.h"
#include "etcdclient.h"
#include "etcdjson.h"
#include "etcdleasekeeper.h"

#include <QCoreApplication>
#include <QSysInfo>

namespace ClusterDeck::Etcd {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

namespace {
QString describeHolder(const KeyValue &kv)
{
    return QStringLiteral("\"%1\" (key %2, lease %3, since revision %4)")
        .arg(QString::fromUtf8(kv.value), QString::fromUtf8(kv.key))
        .arg(kv.lease, 0, 16)
        .arg(kv.createRevision);
}
} // namespace

EtcdLock::EtcdLock(const EtcdClient &client, QByteArray name, LockOptions options, QObject *parent)
    : QObject(parent)
    , m_client(client)
    , m_name(std::move(name))
    , m_prefix(m_name + '/')
    , m_options(std::move(options))
{
    if (m_options.holder.isEmpty())
        m_options.holder = QStringLiteral("pid %1@%2")
                               .arg(QCoreApplication::applicationPid())
                               .arg(QSysInfo::machineHostName())
                               .toUtf8();
}

EtcdLock::~EtcdLock()
{
    if (m_keeper || m_held)
        (void)unlock();
}

QString EtcdLock::describe() const
{
    return QStringLiteral("lock %1").arg(QString::fromUtf8(m_name));
}

bool EtcdLock::isHeld() const
{
    std::lock_guard lock(m_mutex);
    return m_held && m_keeper && m_keeper->isAlive();
}

QByteArray EtcdLock::key() const
{
    std::lock_guard lock(m_mutex);
    return m_key;
}

qint64 EtcdLock::leaseId() const
{
    std::lock_guard lock(m_mutex);
    return m_leaseId;
}

std::shared_ptr<const std::atomic<qint64>> EtcdLock::deadline() const
{
    std::lock_guard lock(m_mutex);
    return m_keeper ? m_keeper->deadline() : nullptr;
}

qint64 EtcdLock::createRevision() const
{
    std::lock_guard lock(m_mutex);
    return m_createRevision;
}

Result<std::optional<KeyValue>> EtcdLock::holder() const
{
    RangeOptions options;
    options.rangeEnd = prefixEnd(m_prefix);
    options.sortOrder = SortOrder::Ascend;
    options.sortTarget = SortTarget::Create;
    options.limit = 1;
    auto owner = m_client.range(m_prefix, options);
    if (!owner)
        return fail(owner.error());
    if (owner->kvs.isEmpty())
        return std::optional<KeyValue>();
    return std::optional<KeyValue>(owner->kvs.constFirst());
}

Result<bool> EtcdLock::waitUntilFree(std::chrono::milliseconds timeout)
{
    const auto deadline = Clock::now() + timeout;
    for (;;) {
        RangeOptions options;
        options.rangeEnd = prefixEnd(m_prefix);
        options.sortOrder = SortOrder::Ascend;
        options.sortTarget = SortTarget::Create;
        options.limit = 1;
        auto owner = m_client.range(m_prefix, options);
        if (!owner)
            return fail(owner.error().withContext(describe()));
        if (owner->kvs.isEmpty())
            return true;
        const auto left =
            std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
        if (left <= 0ms)
            return false;
        // From the read's revision: a delete after it is seen, and it is never compacted yet.
        auto waited = waitForDelete(owner->kvs.constFirst().key, owner->header.revision + 1, left);
        if (!waited && waited.error().kind == Error::Kind::Timeout)
            return false;
        if (!waited)
            return fail(waited.error().withContext(describe()));
    }
}

Result<void> EtcdLock::tryLock()
{
    return acquire(std::nullopt);
}

Result<void> EtcdLock::lock(std::chrono::milliseconds timeout)
{
    return acquire(timeout);
}

void EtcdLock::abandon()
{
    // Revoking the lease deletes our key too; delete it explicitly in case revoke fails.
    std::unique_ptr<EtcdLeaseKeeper> keeper;
    QByteArray key;
    qint64 lease = 0;
    {
        std::lock_guard lock(m_mutex);
        keeper = std::move(m_keeper);
        key = std::exchange(m_key, {});
        lease = std::exchange(m_leaseId, 0);
        m_held = false;
        m_createRevision = 0;
    }
    if (keeper)
        keeper->stop();
    if (!key.isEmpty()) {
        if (auto removed = m_client.remove(key); !removed)
            qCWarning(lcEtcd).noquote() << describe() << "release:" << removed.error().toString();
    }
    if (lease != 0) {
        if (auto revoked = m_client.revokeLease(lease); !revoked)
            qCInfo(lcEtcd).noquote() << describe() << "release:" << revoked.error().toString();
    }
}

Result<void> EtcdLock::acquire(std::optional<std::chrono::milliseconds> timeout)
{
    if (isHeld())
        return {};
    if (m_keeper)
        abandon(); // a lost lock: start over with a new lease
    const auto deadline = Clock::now() + timeout.value_or(0ms);

    const auto grantSentAt = Clock::now(); // the lease's time runs from here, not the reply
    auto lease = m_client.grantLease(m_options.ttlSeconds);
    if (!lease)
        return fail(lease.error().withContext(describe()));
    const QByteArray key = m_prefix + QByteArray::number(lease->id, 16);
    {
        std::lock_guard lock(m_mutex);
        m_leaseId = lease->id;
        m_key = key;
        m_keeper = std::make_unique<EtcdLeaseKeeper>(m_client, lease->id, lease->ttl, grantSentAt);
        m_keeper->setLostCallback([this](const Error &reason) {
            bool wasHeld = false;
            {
                std::lock_guard lock(m_mutex);
                wasHeld = std::exchange(m_held, false);
            }
            if (wasHeld)
                Q_EMIT lost(reason.withContext(describe() + QStringLiteral(" lost")));
        });
        m_keeper->start();
    }

    // Create our key unless it exists already (a retried request); learn its create revision.
    TxnRequest txn;
    txn.compare = {TxnCompare::missing(key)};
    PutOptions put;
    put.lease = lease->id;
    txn.success = {TxnOp::makePut(key, m_options.holder, put)};
    txn.failure = {TxnOp::makeRange(key)};
    auto created = m_client.txn(txn);
    if (!created) {
        abandon();
        return fail(created.error().withContext(describe()));
    }
    qint64 myRevision = created->header.revision;
    if (!created->succeeded && !created->responses.isEmpty() &&
        !created->responses.constFirst().range.kvs.isEmpty())
        myRevision = created->responses.constFirst().range.kvs.constFirst().createRevision;
    {
        std::lock_guard lock(m_mutex);
        m_createRevision = myRevision;
    }

    for (;;) {
        auto owner = holder();
        if (!owner) {
            abandon();
            return fail(owner.error().withContext(describe()));
        }
        if (*owner && (*owner)->createRevision == myRevision) {
            std::lock_guard lock(m_mutex);
            if (!m_keeper || !m_keeper->isAlive())
                break; // lease died meanwhile: fall through to the failure below
            m_held = true;
            qCDebug(lcEtcd).noquote() << describe() << "acquired as" << key;
            return {};
        }
        const QString heldBy = *owner ? describeHolder(**owner) : QStringLiteral("nobody");
        if (!timeout) {
            abandon();
            return fail(Error::Kind::Conflict, m_client.currentEndpoint(),
                        describe() + QStringLiteral(" is busy: held by ") + heldBy);
        }
        // Wait for the contender just before us, not the holder, so one release wakes one waiter.
        RangeOptions options;
        options.rangeEnd = prefixEnd(m_prefix);
        options.maxCreateRevision = myRevision - 1;
        options.sortOrder = SortOrder::Descend;
        options.sortTarget = SortTarget::Create;
        options.limit = 1;
        auto predecessor = m_client.range(m_prefix, options);
        if (!predecessor) {
            abandon();
            return fail(predecessor.error().withContext(describe()));
        }
        if (predecessor->kvs.isEmpty())
            continue; // it went away between the two reads
        const auto left =
            std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
        Result<void> waited = left > 0ms ? waitForDelete(predecessor->kvs.constFirst().key,
                                                         predecessor->header.revision + 1, left)
                                         : fail(Error::Kind::Timeout, QString(), QString());
        if (!waited) {
            abandon();
            if (waited.error().kind == Error::Kind::Timeout)
                return fail(Error::Kind::Timeout, m_client.currentEndpoint(),
                            QStringLiteral("%1: timed out after %2 ms waiting; held by %3")
                                .arg(describe())
                                .arg(timeout->count())
                                .arg(heldBy));
            return fail(waited.error().withContext(describe()));
        }
    }
    abandon();
    return fail(Error::Kind::Conflict, m_client.currentEndpoint(),
                describe() + QStringLiteral(": the lease expired while acquiring"));
}

Result<void> EtcdLock::waitForDelete(const QByteArray &key, qint64 fromRevision,
                                     std::chrono::milliseconds timeout)
{
    bool deleted = false;
    QByteArray buffer;
    QString streamError;
    bool staleToken = false;
    EtcdClient::StreamInfo info;
    auto sink = [&](const QByteArray &chunk) {
        buffer.append(chunk);
        qsizetype newline;
        while ((newline = buffer.indexOf('\n')) >= 0) {
            const QByteArray line = buffer.left(newline).trimmed();
            buffer.remove(0, newline + 1);
            auto object = Json::parseObject(line);
            if (!object)
                continue;
            auto response = Json::decodeWatchResponse(*object);
            if (!response) {
                streamError = response.error().message;
                return false;
            }
            for (const WatchEvent &event : std::as_const(response->events)) {
                if (event.type == WatchEvent::Type::Delete) {
                    deleted = true;
                    return false;
                }
            }
            if (response->canceled) {
                // Compacted (the key is long gone) or a stale token: re-check the owner.
                staleToken = Json::isInvalidTokenError({0, response->cancelReason});
                return false;
            }
        }
        return true;
    };
    auto result = m_client.stream(QStringLiteral("/v3/watch"),
                                  Json::encodeWatchCreate(key, {}, fromRevision, false), sink,
                                  CancelToken(), timeout, &info);
    if (staleToken) {
        if (auto refreshed = m_client.refreshToken(info.token); !refreshed)
            return refreshed;
    }
    if (deleted)
        return {};
    if (!result)
        return result;
    if (!streamError.isEmpty())
        return fail(Error::Kind::Http, m_client.currentEndpoint(), streamError);
    return {}; // stream ended: re-check who holds the lock
}

Result<void> EtcdLock::unlock()
{
    bool had = false;
    {
        std::lock_guard lock(m_mutex);
        had = m_held || m_keeper;
    }
    if (had)
        abandon();
    return {};
}

} // namespace ClusterDeck::Etcd
