#include "etcdjson.h"

#include <QJsonArray>
#include <QJsonDocument>

namespace ClusterDeck::Etcd {

QByteArray prefixEnd(const QByteArray &prefix)
{
    // The smallest key greater than every key with this prefix: bump the last byte below 0xff.
    QByteArray end = prefix;
    while (!end.isEmpty()) {
        const auto last = static_cast<unsigned char>(end.back());
        if (last < 0xff) {
            end.back() = char(last + 1);
            return end;
        }
        end.chop(1);
    }
    // Only 0xff bytes (or empty): "\0" means "to the end of the keyspace" for etcd.
    return QByteArray(1, '\0');
}

TxnCompare TxnCompare::valueIs(QByteArray key, Op op, QByteArray value)
{
    TxnCompare c;
    c.target = Target::Value;
    c.op = op;
    c.key = std::move(key);
    c.value = std::move(value);
    return c;
}

namespace {
TxnCompare numberCompare(TxnCompare::Target target, QByteArray key, TxnCompare::Op op, qint64 n)
{
    TxnCompare c;
    c.target = target;
    c.op = op;
    c.key = std::move(key);
    c.number = n;
    return c;
}
} // namespace

TxnCompare TxnCompare::version(QByteArray key, Op op, qint64 version)
{
    return numberCompare(Target::Version, std::move(key), op, version);
}

TxnCompare TxnCompare::createRevision(QByteArray key, Op op, qint64 revision)
{
    return numberCompare(Target::CreateRevision, std::move(key), op, revision);
}

TxnCompare TxnCompare::modRevision(QByteArray key, Op op, qint64 revision)
{
    return numberCompare(Target::ModRevision, std::move(key), op, revision);
}

TxnCompare TxnCompare::lease(QByteArray key, Op op, qint64 lease)
{
    return numberCompare(Target::Lease, std::move(key), op, lease);
}

TxnOp TxnOp::makePut(QByteArray key, QByteArray value, PutOptions options)
{
    TxnOp op;
    op.type = Type::Put;
    op.key = std::move(key);
    op.value = std::move(value);
    op.put = options;
    return op;
}

TxnOp TxnOp::makeDelete(QByteArray key, DeleteOptions options)
{
    TxnOp op;
    op.type = Type::Delete;
    op.key = std::move(key);
    op.del = std::move(options);
    return op;
}

TxnOp TxnOp::makeRange(QByteArray key, RangeOptions options)
{
    TxnOp op;
    op.type = Type::Range;
    op.key = std::move(key);
    op.range = std::move(options);
    return op;
}

} // namespace ClusterDeck::Etcd

namespace ClusterDeck::Etcd::Json {

namespace {

const QString kWhere = QStringLiteral("etcd response");

std::unexpected<Error> decodeError(const QString &message)
{
    return fail(Error::Kind::Decode, kWhere, message);
}

QString int64String(qint64 n)
{
    return QString::number(n);
}

const char *sortOrderName(SortOrder order)
{
    switch (order) {
    case SortOrder::None:
        return "NONE";
    case SortOrder::Ascend:
        return "ASCEND";
    case SortOrder::Descend:
        return "DESCEND";
    }
    return "NONE";
}

const char *sortTargetName(SortTarget target)
{
    switch (target) {
    case SortTarget::Key:
        return "KEY";
    case SortTarget::Version:
        return "VERSION";
    case SortTarget::Create:
        return "CREATE";
    case SortTarget::Mod:
        return "MOD";
    case SortTarget::Value:
        return "VALUE";
    }
    return "KEY";
}

Result<QList<KeyValue>> decodeKeyValues(const QJsonValue &value, const QString &field)
{
    QList<KeyValue> kvs;
    if (value.isUndefined() || value.isNull())
        return kvs;
    if (!value.isArray())
        return decodeError(QStringLiteral("%1 is not an array").arg(field));
    const QJsonArray array = value.toArray();
    kvs.reserve(array.size());
    for (const QJsonValue &item : array) {
        if (!item.isObject())
            return decodeError(QStringLiteral("%1 holds a non-object").arg(field));
        auto kv = decodeKeyValue(item.toObject());
        if (!kv)
            return fail(kv.error());
        kvs.append(std::move(*kv));
    }
    return kvs;
}

// Streaming endpoints wrap each message as {"result": {...}}.
QJsonObject unwrapResult(const QJsonObject &object)
{
    const QJsonValue result = object.value(QLatin1String("result"));
    return result.isObject() ? result.toObject() : object;
}

} // namespace

QString encodeBytes(const QByteArray &bytes)
{
    return QString::fromLatin1(bytes.toBase64());
}

Result<QByteArray> decodeBytes(const QJsonValue &value, const QString &field)
{
    if (value.isUndefined() || value.isNull())
        return QByteArray();
    if (!value.isString())
        return decodeError(QStringLiteral("%1 is not a base64 string").arg(field));
    const QByteArray encoded = value.toString().toLatin1();
    auto decoded = QByteArray::fromBase64Encoding(encoded, QByteArray::AbortOnBase64DecodingErrors);
    if (!decoded)
        return decodeError(QStringLiteral("%1 is not valid base64: \"%2\"")
                               .arg(field, QString::fromLatin1(encoded.left(40))));
    return std::move(decoded.decoded);
}

Result<qint64> decodeInt64(const QJsonValue &value, const QString &field)
{
    if (value.isUndefined() || value.isNull())
        return 0;
    if (value.isString()) {
        bool ok = false;
        const qint64 n = value.toString().toLongLong(&ok);
        if (!ok)
            return decodeError(
                QStringLiteral("%1 is not an integer: \"%2\"").arg(field, value.toString()));
        return n;
    }
    if (value.isDouble())
        return qint64(value.toDouble());
    return decodeError(QStringLiteral("%1 is not an integer").arg(field));
}

Result<quint64> decodeUInt64(const QJsonValue &value, const QString &field)
{
    if (value.isUndefined() || value.isNull())
        return 0;
    if (value.isString()) {
        bool ok = false;
        const quint64 n = value.toString().toULongLong(&ok);
        if (!ok)
            return decodeError(QStringLiteral("%1 is not an unsigned integer: \"%2\"")
                                   .arg(field, value.toString()));
        return n;
    }
    if (value.isDouble() && value.toDouble() >= 0)
        return quint64(value.toDouble());
    return decodeError(QStringLiteral("%1 is not an unsigned integer").arg(field));
}

Result<QJsonObject> parseObject(const QByteArray &body)
{
    QJsonParseError error;
    const QJsonDocument doc = QJsonDocument::fromJson(body, &error);
    if (error.error != QJsonParseError::NoError)
        return decodeError(
            QStringLiteral("invalid JSON at offset %1: %2 (body starts \"%3\")")
                .arg(error.offset)
                .arg(error.errorString(), QString::fromUtf8(body.left(80)).simplified()));
    if (!doc.isObject())
        return decodeError(QStringLiteral("JSON body is not an object"));
    return doc.object();
}

std::optional<GatewayError> decodeError(const QJsonObject &object)
{
    const QJsonValue error = object.value(QLatin1String("error"));
    if (error.isUndefined() || error.isNull())
        return std::nullopt;
    GatewayError result;
    if (error.isObject()) {
        // Stream errors: {"error": {"grpc_code": 16, "http_code": 401, "message": "..."}}
        const QJsonObject inner = error.toObject();
        result.code = inner.value(QLatin1String("grpc_code")).toInt();
        result.message = inner.value(QLatin1String("message")).toString();
    } else {
        result.code = object.value(QLatin1String("code")).toInt();
        result.message = object.value(QLatin1String("message")).toString();
        if (result.message.isEmpty())
            result.message = error.toString();
    }
    if (result.message.isEmpty())
        result.message = QStringLiteral("unknown error (gRPC code %1)").arg(result.code);
    return result;
}

bool isInvalidTokenError(const GatewayError &error)
{
    // etcd says "invalid auth token" for expired/unknown tokens and "revision of auth store is
    // old" when the user's permissions changed after the token was issued.
    const QString &m = error.message;
    return m.contains(QLatin1String("invalid auth token")) ||
           m.contains(QLatin1String("auth store is old")) ||
           m.contains(QLatin1String("user name is empty")) ||
           (error.code == kGrpcUnauthenticated &&
            !m.contains(QLatin1String("authentication failed")));
}

QJsonObject encodePut(const QByteArray &key, const QByteArray &value, const PutOptions &options)
{
    QJsonObject o{{QLatin1String("key"), encodeBytes(key)},
                  {QLatin1String("value"), encodeBytes(value)}};
    if (options.lease != 0)
        o.insert(QLatin1String("lease"), int64String(options.lease));
    if (options.prevKv)
        o.insert(QLatin1String("prev_kv"), true);
    if (options.ignoreValue)
        o.insert(QLatin1String("ignore_value"), true);
    if (options.ignoreLease)
        o.insert(QLatin1String("ignore_lease"), true);
    return o;
}

QJsonObject encodeRange(const QByteArray &key, const RangeOptions &options)
{
    QJsonObject o{{QLatin1String("key"), encodeBytes(key)}};
    if (!options.rangeEnd.isEmpty())
        o.insert(QLatin1String("range_end"), encodeBytes(options.rangeEnd));
    if (options.limit > 0)
        o.insert(QLatin1String("limit"), int64String(options.limit));
    if (options.revision > 0)
        o.insert(QLatin1String("revision"), int64String(options.revision));
    if (options.sortOrder != SortOrder::None) {
        o.insert(QLatin1String("sort_order"), QLatin1String(sortOrderName(options.sortOrder)));
        o.insert(QLatin1String("sort_target"), QLatin1String(sortTargetName(options.sortTarget)));
    }
    if (options.keysOnly)
        o.insert(QLatin1String("keys_only"), true);
    if (options.countOnly)
        o.insert(QLatin1String("count_only"), true);
    if (options.minCreateRevision > 0)
        o.insert(QLatin1String("min_create_revision"), int64String(options.minCreateRevision));
    if (options.maxCreateRevision > 0)
        o.insert(QLatin1String("max_create_revision"), int64String(options.maxCreateRevision));
    if (options.minModRevision > 0)
        o.insert(QLatin1String("min_mod_revision"), int64String(options.minModRevision));
    if (options.maxModRevision > 0)
        o.insert(QLatin1String("max_mod_revision"), int64String(options.maxModRevision));
    return o;
}

QJsonObject encodeDelete(const QByteArray &key, const DeleteOptions &options)
{
    QJsonObject o{{QLatin1String("key"), encodeBytes(key)}};
    if (!options.rangeEnd.isEmpty())
        o.insert(QLatin1String("range_end"), encodeBytes(options.rangeEnd));
    if (options.prevKv)
        o.insert(QLatin1String("prev_kv"), true);
    return o;
}

QJsonObject encodeCompare(const TxnCompare &compare)
{
    static const char *const ops[] = {"EQUAL", "GREATER", "LESS", "NOT_EQUAL"};
    QJsonObject o{{QLatin1String("key"), encodeBytes(compare.key)},
                  {QLatin1String("result"), QLatin1String(ops[int(compare.op)])}};
    if (!compare.rangeEnd.isEmpty())
        o.insert(QLatin1String("range_end"), encodeBytes(compare.rangeEnd));
    // Zero operands are sent explicitly: "create_revision == 0" is the whole point of a CAS.
    switch (compare.target) {
    case TxnCompare::Target::Version:
        o.insert(QLatin1String("target"), QLatin1String("VERSION"));
        o.insert(QLatin1String("version"), int64String(compare.number));
        break;
    case TxnCompare::Target::CreateRevision:
        o.insert(QLatin1String("target"), QLatin1String("CREATE"));
        o.insert(QLatin1String("create_revision"), int64String(compare.number));
        break;
    case TxnCompare::Target::ModRevision:
        o.insert(QLatin1String("target"), QLatin1String("MOD"));
        o.insert(QLatin1String("mod_revision"), int64String(compare.number));
        break;
    case TxnCompare::Target::Value:
        o.insert(QLatin1String("target"), QLatin1String("VALUE"));
        o.insert(QLatin1String("value"), encodeBytes(compare.value));
        break;
    case TxnCompare::Target::Lease:
        o.insert(QLatin1String("target"), QLatin1String("LEASE"));
        o.insert(QLatin1String("lease"), int64String(compare.number));
        break;
    }
    return o;
}

QJsonObject encodeTxnOp(const TxnOp &op)
{
    switch (op.type) {
    case TxnOp::Type::Put:
        return {{QLatin1String("request_put"), encodePut(op.key, op.value, op.put)}};
    case TxnOp::Type::Delete:
        return {{QLatin1String("request_delete_range"), encodeDelete(op.key, op.del)}};
    case TxnOp::Type::Range:
        return {{QLatin1String("request_range"), encodeRange(op.key, op.range)}};
    }
    return {};
}

QJsonObject encodeTxn(const TxnRequest &txn)
{
    QJsonArray compare;
    for (const TxnCompare &c : txn.compare)
        compare.append(encodeCompare(c));
    QJsonArray success;
    for (const TxnOp &op : txn.success)
        success.append(encodeTxnOp(op));
    QJsonArray failure;
    for (const TxnOp &op : txn.failure)
        failure.append(encodeTxnOp(op));
    QJsonObject o;
    if (!compare.isEmpty())
        o.insert(QLatin1String("compare"), compare);
    if (!success.isEmpty())
        o.insert(QLatin1String("success"), success);
    if (!failure.isEmpty())
        o.insert(QLatin1String("failure"), failure);
    return o;
}

QJsonObject encodeWatchCreate(const QByteArray &key, const QByteArray &rangeEnd,
                              qint64 startRevision, bool prevKv)
{
    QJsonObject create{{QLatin1String("key"), encodeBytes(key)}};
    if (!rangeEnd.isEmpty())
        create.insert(QLatin1String("range_end"), encodeBytes(rangeEnd));
    if (startRevision > 0)
        create.insert(QLatin1String("start_revision"), int64String(startRevision));
    if (prevKv)
        create.insert(QLatin1String("prev_kv"), true);
    return {{QLatin1String("create_request"), create}};
}

Result<ResponseHeader> decodeHeader(const QJsonObject &object)
{
    const QJsonObject h = object.value(QLatin1String("header")).toObject();
    ResponseHeader header;
    auto cluster = decodeUInt64(h.value(QLatin1String("cluster_id")), QStringLiteral("cluster_id"));
    auto member = decodeUInt64(h.value(QLatin1String("member_id")), QStringLiteral("member_id"));
    auto revision = decodeInt64(h.value(QLatin1String("revision")), QStringLiteral("revision"));
    auto term = decodeUInt64(h.value(QLatin1String("raft_term")), QStringLiteral("raft_term"));
    if (!cluster)
        return fail(cluster.error());
    if (!member)
        return fail(member.error());
    if (!revision)
        return fail(revision.error());
    if (!term)
        return fail(term.error());
    header.clusterId = *cluster;
    header.memberId = *member;
    header.revision = *revision;
    header.raftTerm = *term;
    return header;
}

Result<KeyValue> decodeKeyValue(const QJsonObject &object)
{
    KeyValue kv;
    auto key = decodeBytes(object.value(QLatin1String("key")), QStringLiteral("kv.key"));
    if (!key)
        return fail(key.error());
    auto value = decodeBytes(object.value(QLatin1String("value")), QStringLiteral("kv.value"));
    if (!value)
        return fail(value.error());
    kv.key = std::move(*key);
    kv.value = std::move(*value);
    const struct
    {
        const char *name;
        qint64 *target;
    } numbers[] = {{"create_revision", &kv.createRevision},
                   {"mod_revision", &kv.modRevision},
                   {"version", &kv.version},
                   {"lease", &kv.lease}};
    for (const auto &[name, target] : numbers) {
        auto n = decodeInt64(object.value(QLatin1String(name)),
                             QStringLiteral("kv.") + QLatin1String(name));
        if (!n)
            return fail(n.error());
        *target = *n;
    }
    return kv;
}

Result<PutResult> decodePut(const QJsonObject &object)
{
    PutResult result;
    auto header = decodeHeader(object);
    if (!header)
        return fail(header.error());
    result.header = *header;
    const QJsonValue prev = object.value(QLatin1String("prev_kv"));
    if (prev.isObject()) {
        auto kv = decodeKeyValue(prev.toObject());
        if (!kv)
            return fail(kv.error());
        result.prevKv = std::move(*kv);
    }
    return result;
}

Result<RangeResult> decodeRange(const QJsonObject &object)
{
    RangeResult result;
    auto header = decodeHeader(object);
    if (!header)
        return fail(header.error());
    result.header = *header;
    auto kvs = decodeKeyValues(object.value(QLatin1String("kvs")), QStringLiteral("kvs"));
    if (!kvs)
        return fail(kvs.error());
    result.kvs = std::move(*kvs);
    auto count = decodeInt64(object.value(QLatin1String("count")), QStringLiteral("count"));
    if (!count)
        return fail(count.error());
    result.count = *count;
    result.more = object.value(QLatin1String("more")).toBool();
    return result;
}

Result<DeleteResult> decodeDelete(const QJsonObject &object)
{
    DeleteResult result;
    auto header = decodeHeader(object);
    if (!header)
        return fail(header.error());
    result.header = *header;
    auto deleted = decodeInt64(object.value(QLatin1String("deleted")), QStringLiteral("deleted"));
    if (!deleted)
        return fail(deleted.error());
    result.deleted = *deleted;
    auto prev =
        decodeKeyValues(object.value(QLatin1String("prev_kvs")), QStringLiteral("prev_kvs"));
    if (!prev)
        return fail(prev.error());
    result.prevKvs = std::move(*prev);
    return result;
}

Result<TxnResult> decodeTxn(const QJsonObject &object)
{
    TxnResult result;
    auto header = decodeHeader(object);
    if (!header)
        return fail(header.error());
    result.header = *header;
    result.succeeded = object.value(QLatin1String("succeeded")).toBool();
    const QJsonArray responses = object.value(QLatin1String("responses")).toArray();
    for (const QJsonValue &item : responses) {
        const QJsonObject r = item.toObject();
        TxnOpResult op;
        if (r.contains(QLatin1String("response_put"))) {
            op.type = TxnOp::Type::Put;
            auto put = decodePut(r.value(QLatin1String("response_put")).toObject());
            if (!put)
                return fail(put.error());
            op.put = std::move(*put);
        } else if (r.contains(QLatin1String("response_delete_range"))) {
            op.type = TxnOp::Type::Delete;
            auto del = decodeDelete(r.value(QLatin1String("response_delete_range")).toObject());
            if (!del)
                return fail(del.error());
            op.del = std::move(*del);
        } else if (r.contains(QLatin1String("response_range"))) {
            op.type = TxnOp::Type::Range;
            auto range = decodeRange(r.value(QLatin1String("response_range")).toObject());
            if (!range)
                return fail(range.error());
            op.range = std::move(*range);
        } else {
            return decodeError(QStringLiteral("txn response of unknown kind: %1")
                                   .arg(r.keys().join(QLatin1Char(','))));
        }
        result.responses.append(std::move(op));
    }
    return result;
}

Result<Lease> decodeLeaseGrant(const QJsonObject &object)
{
    Lease lease;
    auto header = decodeHeader(object);
    if (!header)
        return fail(header.error());
    lease.header = *header;
    const QString error = object.value(QLatin1String("error")).toString();
    if (!error.isEmpty())
        return fail(Error::Kind::Invalid, kWhere, QStringLiteral("lease grant: %1").arg(error));
    auto id = decodeInt64(object.value(QLatin1String("ID")), QStringLiteral("ID"));
    auto ttl = decodeInt64(object.value(QLatin1String("TTL")), QStringLiteral("TTL"));
    if (!id)
        return fail(id.error());
    if (!ttl)
        return fail(ttl.error());
    lease.id = *id;
    lease.ttl = *ttl;
    return lease;
}

Result<Lease> decodeLeaseKeepAlive(const QJsonObject &object)
{
    const QJsonObject inner = unwrapResult(object);
    auto lease = decodeLeaseGrant(inner);
    if (!lease)
        return lease;
    if (lease->ttl <= 0)
        return fail(Error::Kind::NotFound, kWhere,
                    QStringLiteral("lease %1 has expired or was revoked").arg(lease->id, 0, 16));
    return lease;
}

Result<LeaseTimeToLive> decodeLeaseTimeToLive(const QJsonObject &object)
{
    LeaseTimeToLive result;
    auto header = decodeHeader(object);
    if (!header)
        return fail(header.error());
    result.header = *header;
    auto id = decodeInt64(object.value(QLatin1String("ID")), QStringLiteral("ID"));
    auto ttl = decodeInt64(object.value(QLatin1String("TTL")), QStringLiteral("TTL"));
    auto granted =
        decodeInt64(object.value(QLatin1String("grantedTTL")), QStringLiteral("grantedTTL"));
    if (!id)
        return fail(id.error());
    if (!ttl)
        return fail(ttl.error());
    if (!granted)
        return fail(granted.error());
    result.id = *id;
    result.ttl = *ttl;
    result.grantedTtl = *granted;
    for (const QJsonValue &key : object.value(QLatin1String("keys")).toArray()) {
        auto bytes = decodeBytes(key, QStringLiteral("keys"));
        if (!bytes)
            return fail(bytes.error());
        result.keys.append(std::move(*bytes));
    }
    return result;
}

Result<QString> decodeAuthenticate(const QJsonObject &object)
{
    const QString token = object.value(QLatin1String("token")).toString();
    if (token.isEmpty())
        return decodeError(QStringLiteral("authenticate answered without a token"));
    return token;
}

Result<WatchResponse> decodeWatchResponse(const QJsonObject &object)
{
    if (const auto error = decodeError(object))
        return fail(Error::Kind::Http, kWhere, error->message);
    const QJsonObject r = unwrapResult(object);
    WatchResponse response;
    auto header = decodeHeader(r);
    if (!header)
        return fail(header.error());
    response.header = *header;
    auto watchId = decodeInt64(r.value(QLatin1String("watch_id")), QStringLiteral("watch_id"));
    auto compact =
        decodeInt64(r.value(QLatin1String("compact_revision")), QStringLiteral("compact_revision"));
    if (!watchId)
        return fail(watchId.error());
    if (!compact)
        return fail(compact.error());
    response.watchId = *watchId;
    response.compactRevision = *compact;
    response.created = r.value(QLatin1String("created")).toBool();
    response.canceled = r.value(QLatin1String("canceled")).toBool();
    response.cancelReason = r.value(QLatin1String("cancel_reason")).toString();
    for (const QJsonValue &item : r.value(QLatin1String("events")).toArray()) {
        const QJsonObject e = item.toObject();
        WatchEvent event;
        const QString type = e.value(QLatin1String("type")).toString();
        // PUT is the zero value of the enum, so the gateway omits it.
        if (type == QLatin1String("DELETE") || e.value(QLatin1String("type")).toInt(-1) == 1)
            event.type = WatchEvent::Type::Delete;
        else if (type.isEmpty() || type == QLatin1String("PUT"))
            event.type = WatchEvent::Type::Put;
        else
            return decodeError(QStringLiteral("watch event of unknown type \"%1\"").arg(type));
        auto kv = decodeKeyValue(e.value(QLatin1String("kv")).toObject());
        if (!kv)
            return fail(kv.error());
        event.kv = std::move(*kv);
        if (e.value(QLatin1String("prev_kv")).isObject()) {
            auto prev = decodeKeyValue(e.value(QLatin1String("prev_kv")).toObject());
            if (!prev)
                return fail(prev.error());
            event.prevKv = std::move(*prev);
        }
        response.events.append(std::move(event));
    }
    return response;
}

} // namespace ClusterDeck::Etcd::Json
