#pragma once

#include <QByteArray>
#include <QList>
#include <QString>
#include <QStringList>

#include <chrono>
#include <optional>

// Plain values of the etcd v3 API. Keys and values are raw bytes here: the base64 of the JSON
// gateway is applied and removed in etcdjson.cpp and never leaks out of the client.
namespace ClusterDeck::Etcd {

// How a client reaches the cluster.
struct EtcdConfig
{
    QStringList endpoints; // "http://127.0.0.1:2379", "https://10.0.0.2:2379"; tried in order
    QString caFile;        // https: CA bundle that signed the server certificates
    QString certFile;      // https: client certificate (etcd with --client-cert-auth)
    QString keyFile;
    QString username; // non-empty: authenticate and send the token with every request
    QString password;
    std::chrono::milliseconds requestTimeout{10000};
    std::chrono::milliseconds connectTimeout{2000};
};

struct ResponseHeader
{
    quint64 clusterId = 0;
    quint64 memberId = 0;
    qint64 revision = 0;
    quint64 raftTerm = 0;
};

struct KeyValue
{
    QByteArray key;
    QByteArray value;
    qint64 createRevision = 0;
    qint64 modRevision = 0;
    qint64 version = 0;
    qint64 lease = 0;

    friend bool operator==(const KeyValue &, const KeyValue &) = default;
};

struct PutOptions
{
    qint64 lease = 0;
    bool prevKv = false;
    bool ignoreValue = false;
    bool ignoreLease = false;
};

struct PutResult
{
    ResponseHeader header;
    std::optional<KeyValue> prevKv;
};

enum class SortOrder { None, Ascend, Descend };
enum class SortTarget { Key, Version, Create, Mod, Value };

struct RangeOptions
{
    QByteArray rangeEnd; // empty: the single key; see prefixEnd() for a prefix
    qint64 limit = 0;    // 0: no limit
    qint64 revision = 0; // 0: latest
    SortOrder sortOrder = SortOrder::None;
    SortTarget sortTarget = SortTarget::Key;
    bool keysOnly = false;
    bool countOnly = false;
    qint64 minCreateRevision = 0;
    qint64 maxCreateRevision = 0;
    qint64 minModRevision = 0;
    qint64 maxModRevision = 0;
};

struct RangeResult
{
    ResponseHeader header;
    QList<KeyValue> kvs;
    bool more = false;
    qint64 count = 0;
};

struct DeleteOptions
{
    QByteArray rangeEnd;
    bool prevKv = false;
};

struct DeleteResult
{
    ResponseHeader header;
    qint64 deleted = 0;
    QList<KeyValue> prevKvs;
};

// One condition of a transaction: `target(key) op operand`.
struct TxnCompare
{
    enum class Target { Version, CreateRevision, ModRevision, Value, Lease };
    enum class Op { Equal, Greater, Less, NotEqual };

    Target target = Target::Version;
    Op op = Op::Equal;
    QByteArray key;
    QByteArray rangeEnd; // compare every key of a range
    qint64 number = 0;   // operand of Version / CreateRevision / ModRevision / Lease
    QByteArray value;    // operand of Value

    static TxnCompare valueIs(QByteArray key, Op op, QByteArray value);
    static TxnCompare version(QByteArray key, Op op, qint64 version);
    static TxnCompare createRevision(QByteArray key, Op op, qint64 revision);
    static TxnCompare modRevision(QByteArray key, Op op, qint64 revision);
    static TxnCompare lease(QByteArray key, Op op, qint64 lease);
    // The key does not exist (create_revision == 0).
    static TxnCompare missing(QByteArray key)
    {
        return createRevision(std::move(key), Op::Equal, 0);
    }
};

// One operation of a transaction branch.
struct TxnOp
{
    enum class Type { Put, Delete, Range };

    Type type = Type::Put;
    QByteArray key;
    QByteArray value;
    PutOptions put;     // Put
    DeleteOptions del;  // Delete
    RangeOptions range; // Range

    static TxnOp makePut(QByteArray key, QByteArray value, PutOptions options = {});
    static TxnOp makeDelete(QByteArray key, DeleteOptions options = {});
    static TxnOp makeRange(QByteArray key, RangeOptions options = {});
};

struct TxnRequest
{
    QList<TxnCompare> compare;
    QList<TxnOp> success;
    QList<TxnOp> failure;
};

struct TxnOpResult
{
    TxnOp::Type type = TxnOp::Type::Put;
    PutResult put;
    DeleteResult del;
    RangeResult range;
};

struct TxnResult
{
    ResponseHeader header;
    bool succeeded = false;
    QList<TxnOpResult> responses; // of the branch that ran
};

struct Lease
{
    ResponseHeader header;
    qint64 id = 0;
    qint64 ttl = 0; // seconds
};

struct LeaseTimeToLive
{
    ResponseHeader header;
    qint64 id = 0;
    qint64 ttl = -1; // seconds left; -1: the lease does not exist (expired or revoked)
    qint64 grantedTtl = 0;
    QList<QByteArray> keys;
};

struct WatchEvent
{
    enum class Type { Put, Delete };
    Type type = Type::Put;
    KeyValue kv; // Delete: key and mod_revision only
    std::optional<KeyValue> prevKv;
};

// One line of the /v3/watch stream.
struct WatchResponse
{
    ResponseHeader header;
    qint64 watchId = 0;
    bool created = false;
    bool canceled = false;
    qint64 compactRevision = 0;
    QString cancelReason;
    QList<WatchEvent> events;
};

// The end of the key range that holds every key starting with `prefix`.
QByteArray prefixEnd(const QByteArray &prefix);

} // namespace ClusterDeck::Etcd
