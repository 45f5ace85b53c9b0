#include "etcdclient.h"

#include "common/logging.h"
#include "etcdjson.h"
#include "http/httptransport.h"

#include <QJsonDocument>

namespace ClusterDeck::Etcd {

namespace {

const QString kAuthPath = QStringLiteral("/v3/auth/authenticate");

QString normalizedEndpoint(QString endpoint)
{
    endpoint = endpoint.trimmed();
    if (!endpoint.contains(QLatin1String("://")))
        endpoint.prepend(QLatin1String("http://"));
    while (endpoint.endsWith(QLatin1Char('/')))
        endpoint.chop(1);
    return endpoint;
}

// True when curl failed before the request could reach etcd, so repeating it elsewhere cannot
// apply a write twice.
bool neverConnected(const Error &error)
{
    static const char *const markers[] = {"Failed to connect", "Couldn't connect",
                                          "Could not connect", "Connection refused",
                                          "Could not resolve", "Connection timed out after"};
    for (const char *marker : markers) {
        if (error.message.contains(QLatin1String(marker), Qt::CaseInsensitive))
            return true;
    }
    return false;
}

std::mutex g_replyFaultMutex;
EtcdClient::ReplyFault g_replyFault;

Error::Kind kindForGrpcCode(int code)
{
    switch (code) {
    case Json::kGrpcInvalidArgument:
    case Json::kGrpcOutOfRange:
        return Error::Kind::Invalid;
    case Json::kGrpcNotFound:
        return Error::Kind::NotFound;
    case Json::kGrpcFailedPrecondition:
        return Error::Kind::Conflict;
    case 4:
        return Error::Kind::Timeout; // DEADLINE_EXCEEDED
    case Json::kGrpcUnavailable:
        return Error::Kind::Transport;
    default:
        return Error::Kind::Http;
    }
}

Json::GatewayError gatewayErrorOf(const Http::HttpResponse &response,
                                  const Result<QJsonObject> &object)
{
    if (object) {
        if (auto error = Json::decodeError(*object))
            return *error;
    }
    return {0, QStringLiteral("HTTP status %1: %2")
                   .arg(response.status)
                   .arg(QString::fromUtf8(response.body.left(200)).simplified())};
}

} // namespace

EtcdClient::EtcdClient(EtcdConfig config)
    : m_config(std::move(config))
{
    for (const QString &endpoint : std::as_const(m_config.endpoints)) {
        Http::TransportConfig tc;
        tc.baseUrl = normalizedEndpoint(endpoint);
        tc.caFile = m_config.caFile;
        tc.certFile = m_config.certFile;
        tc.keyFile = m_config.keyFile;
        tc.connectTimeout = m_config.connectTimeout;
        tc.displayName = QStringLiteral("etcd ") + tc.baseUrl;
        m_transports.push_back(std::make_unique<Http::HttpTransport>(std::move(tc)));
    }
}

EtcdClient::~EtcdClient() = default;

QString EtcdClient::currentEndpoint() const
{
    if (m_transports.empty())
        return {};
    return m_transports[size_t(m_current.load() % endpointCount())]->config().baseUrl;
}

Result<QJsonObject> EtcdClient::call(const QString &path, const QJsonObject &body, Retry retry,
                                     const QString &what,
                                     std::optional<std::chrono::milliseconds> within) const
{
    using Clock = std::chrono::steady_clock;
    const auto until = within ? Clock::now() + *within : Clock::time_point::max();
    if (m_transports.empty())
        return fail(Error::Kind::Invalid, QStringLiteral("etcd"),
                    what + QStringLiteral(": no etcd endpoint configured"));

    const bool needsToken = !m_config.username.isEmpty() && path != kAuthPath;
    const QByteArray payload = QJsonDocument(body).toJson(QJsonDocument::Compact);
    const int n = endpointCount();
    const int start = m_current.load();
    QStringList skipped; // endpoints given up on, for the final message
    bool reauthenticated = false;

    for (int attempt = 0; attempt < n;) {
        const int index = (start + attempt) % n;
        const Http::HttpTransport &transport = *m_transports[size_t(index)];
        const auto moveOn = [&](const QString &reason) {
            qCInfo(lcEtcd).noquote() << what << "failed on" << transport.displayName() << "-"
                                     << reason << "- trying the next endpoint";
            skipped << reason;
            ++attempt;
            m_current.store((index + 1) % n);
        };

        QString token;
        if (needsToken) {
            auto t = this->token();
            if (!t)
                return fail(t.error().withContext(what));
            token = *t;
        }

        Http::HttpRequest request;
        request.method = "POST";
        request.path = path;
        request.body = payload;
        request.timeout = m_config.requestTimeout;
        if (within) {
            const auto left =
                std::chrono::duration_cast<std::chrono::milliseconds>(until - Clock::now());
            if (left <= std::chrono::milliseconds(0))
                return fail(Error::Kind::Timeout, transport.displayName(),
                            what + QStringLiteral(": no answer within %1 ms").arg(within->count()));
            request.timeout = std::min(request.timeout, left);
        }
        // A range over the kernels of a 100,000-kernel session is large (JSON, base64): etcd
        // replies are capped higher than the transport's default 64 MiB.
        request.maxBodyBytes = qint64(1) << 30;
        if (!token.isEmpty())
            request.headers.append({"Authorization", token.toUtf8()});

        auto response = transport.perform(request);
        if (response) {
            EtcdClient::ReplyFault fault;
            {
                std::lock_guard lock(g_replyFaultMutex);
                fault = g_replyFault;
            }
            if (fault && fault(path, payload))
                response = fail(Error::Kind::Transport, transport.displayName(),
                                QStringLiteral("the connection was reset after the request was "
                                               "sent (a reply dropped by a test)"));
        }
        if (!response) {
            const Error &e = response.error();
            const bool canMove =
                (e.kind == Error::Kind::Transport || e.kind == Error::Kind::Timeout) &&
                (retry == Retry::Safe || neverConnected(e));
            if (canMove && attempt + 1 < n) {
                moveOn(e.toString());
                continue;
            }
            Error error = e.withContext(what);
            if (!skipped.isEmpty())
                error.message +=
                    QStringLiteral(" (also failed: %1)").arg(skipped.join(QStringLiteral("; ")));
            return fail(error);
        }

        auto object = Json::parseObject(response->body);
        const bool gatewayError = !object || object->contains(QLatin1String("error"));
        if (response->status != 200 || (gatewayError && object)) {
            const Json::GatewayError ge = gatewayErrorOf(*response, object);
            if (needsToken && !reauthenticated && Json::isInvalidTokenError(ge)) {
                qCInfo(lcEtcd).noquote() << transport.displayName() << "rejected the token ("
                                         << ge.message << "), authenticating again";
                reauthenticated = true;
                if (auto refreshed = refreshToken(token); !refreshed)
                    return fail(refreshed.error().withContext(what));
                continue; // same endpoint, new token
            }
            if (ge.code == Json::kGrpcUnavailable && retry == Retry::Safe && attempt + 1 < n) {
                moveOn(transport.displayName() + QStringLiteral(": ") + ge.message);
                continue;
            }
            return fail(kindForGrpcCode(ge.code), transport.displayName(),
                        what + QStringLiteral(": ") + ge.message, response->status);
        }
        if (!object)
            return fail(
                Error::make(Error::Kind::Decode, transport.displayName(), object.error().message)
                    .withContext(what));
        m_current.store(index);
        return *object;
    }
    return fail(Error::Kind::Transport, QStringLiteral("etcd"),
                what + QStringLiteral(": no endpoint answered"));
}

Result<void> EtcdClient::stream(const QString &path, const QJsonObject &body,
                                const Http::DataSink &sink, const CancelToken &cancel,
                                std::chrono::milliseconds timeout, StreamInfo *info) const
{
    if (m_transports.empty())
        return fail(Error::Kind::Invalid, QStringLiteral("etcd"),
                    QStringLiteral("no etcd endpoint configured"));
    const QByteArray payload = QJsonDocument(body).toJson(QJsonDocument::Compact);
    const int n = endpointCount();
    const int start = m_current.load();
    QStringList skipped;

    for (int attempt = 0; attempt < n; ++attempt) {
        const int index = (start + attempt) % n;
        const Http::HttpTransport &transport = *m_transports[size_t(index)];
        QString token;
        if (!m_config.username.isEmpty()) {
            auto t = this->token();
            if (!t)
                return fail(t.error());
            token = *t;
        }
        bool gotData = false;
        Http::HttpRequest request;
        request.method = "POST";
        request.path = path;
        request.body = payload;
        request.timeout = timeout;
        request.cancel = cancel;
        if (!token.isEmpty())
            request.headers.append({"Authorization", token.toUtf8()});
        request.onData = [&](const QByteArray &chunk) {
            gotData = true;
            return sink(chunk);
        };
        if (info) {
            info->endpoint = transport.displayName();
            info->token = token;
        }
        auto response = transport.perform(request);
        if (!response) {
            const Error &e = response.error();
            if (!gotData && e.kind == Error::Kind::Transport && attempt + 1 < n) {
                qCInfo(lcEtcd).noquote() << "stream" << path << "could not start on"
                                         << transport.displayName() << "-" << e.message;
                skipped << e.toString();
                m_current.store((index + 1) % n);
                continue;
            }
            Error error = e;
            if (!skipped.isEmpty())
                error.message +=
                    QStringLiteral(" (also failed: %1)").arg(skipped.join(QStringLiteral("; ")));
            return fail(error);
        }
        if (info) {
            info->httpStatus = response->status;
            info->errorBody = response->body;
        }
        if (!response->isSuccess()) {
            auto object = Json::parseObject(response->body);
            const Json::GatewayError ge = gatewayErrorOf(*response, object);
            return fail(kindForGrpcCode(ge.code), transport.displayName(), ge.message,
                        response->status);
        }
        m_current.store(index);
        return {};
    }
    return fail(Error::Kind::Transport, QStringLiteral("etcd"),
                QStringLiteral("no endpoint answered"));
}

Result<QString> EtcdClient::token() const
{
    std::lock_guard lock(m_authMutex);
    if (m_token.isEmpty()) {
        auto fresh = fetchToken();
        if (!fresh)
            return fail(fresh.error());
        m_token = *fresh;
    }
    return m_token;
}

Result<QString> EtcdClient::fetchToken() const
{
    const QJsonObject body{{QLatin1String("name"), m_config.username},
                           {QLatin1String("password"), m_config.password}};
    auto object = call(kAuthPath, body, Retry::Safe,
                       QStringLiteral("authenticate as user \"%1\"").arg(m_config.username));
    if (!object)
        return fail(object.error());
    auto token = Json::decodeAuthenticate(*object);
    if (!token)
        return fail(token.error());
    qCDebug(lcEtcd) << "authenticated as" << m_config.username;
    return token;
}

Result<void> EtcdClient::refreshToken(const QString &staleToken) const
{
    if (m_config.username.isEmpty())
        return {};
    std::lock_guard lock(m_authMutex);
    // Another thread may have refreshed it already while this one waited for the lock.
    if (!m_token.isEmpty() && m_token != staleToken)
        return {};
    m_token.clear();
    auto fresh = fetchToken();
    if (!fresh)
        return fail(fresh.error());
    m_token = *fresh;
    return {};
}

Result<void> EtcdClient::authenticate() const
{
    if (m_config.username.isEmpty())
        return {};
    auto t = token();
    if (!t)
        return fail(t.error());
    return {};
}

Result<PutResult> EtcdClient::put(const QByteArray &key, const QByteArray &value,
                                  const PutOptions &options) const
{
    auto object = call(QStringLiteral("/v3/kv/put"), Json::encodePut(key, value, options),
                       Retry::OnlyUnsent, QStringLiteral("put %1").arg(QString::fromUtf8(key)));
    if (!object)
        return fail(object.error());
    return Json::decodePut(*object);
}

Result<std::optional<KeyValue>> EtcdClient::get(const QByteArray &key, qint64 revision) const
{
    RangeOptions options;
    options.revision = revision;
    auto result = range(key, options);
    if (!result)
        return fail(result.error());
    if (result->kvs.isEmpty())
        return std::optional<KeyValue>();
    return std::optional<KeyValue>(result->kvs.constFirst());
}

bool EtcdClient::outcomeUnknown(const Error &error)
{
    return (error.kind == Error::Kind::Transport || error.kind == Error::Kind::Timeout) &&
           !neverConnected(error);
}

void EtcdClient::setReplyFaultForTests(ReplyFault fault)
{
    std::lock_guard lock(g_replyFaultMutex);
    g_replyFault = std::move(fault);
}

Result<RangeResult> EtcdClient::range(const QByteArray &key, const RangeOptions &options) const
{
    auto object = call(QStringLiteral("/v3/kv/range"), Json::encodeRange(key, options), Retry::Safe,
                       QStringLiteral("range %1").arg(QString::fromUtf8(key)));
    if (!object)
        return fail(object.error());
    return Json::decodeRange(*object);
}

Result<RangeResult> EtcdClient::rangeAll(const QByteArray &key, const QByteArray &rangeEnd,
                                         qint64 pageSize, bool keysOnly, qint64 revision) const
{
    RangeResult all;
    RangeOptions options;
    options.rangeEnd = rangeEnd;
    options.limit = std::max<qint64>(1, pageSize);
    options.keysOnly = keysOnly;
    options.revision = revision;
    QByteArray from = key;
    for (bool first = true;; first = false) {
        auto page = range(from, options);
        if (!page)
            return page;
        if (first) {
            all.header = page->header;
            all.count = page->count;
            // Later pages read the same revision, so the result is one consistent snapshot.
            // (The header names the store's current revision, not the one read.)
            if (revision <= 0)
                options.revision = page->header.revision;
        }
        all.kvs.append(page->kvs);
        if (!page->more || page->kvs.isEmpty())
            break;
        // The smallest key after the last one returned.
        from = page->kvs.constLast().key + QByteArray(1, '\0');
    }
    return all;
}

Result<RangeResult> EtcdClient::rangePrefix(const QByteArray &prefix, qint64 pageSize,
                                            bool keysOnly, qint64 revision) const
{
    return rangeAll(prefix, prefixEnd(prefix), pageSize, keysOnly, revision);
}

Result<DeleteResult> EtcdClient::remove(const QByteArray &key, const DeleteOptions &options) const
{
    auto object = call(QStringLiteral("/v3/kv/deleterange"), Json::encodeDelete(key, options),
                       Retry::OnlyUnsent, QStringLiteral("delete %1").arg(QString::fromUtf8(key)));
    if (!object)
        return fail(object.error());
    return Json::decodeDelete(*object);
}

Result<DeleteResult> EtcdClient::removePrefix(const QByteArray &prefix, bool prevKv) const
{
    if (prefix.isEmpty())
        return fail(Error::Kind::Invalid, QStringLiteral("etcd"),
                    QStringLiteral("refusing to delete with an empty prefix (the whole keyspace)"));
    DeleteOptions options;
    options.rangeEnd = prefixEnd(prefix);
    options.prevKv = prevKv;
    return remove(prefix, options);
}

Result<TxnResult> EtcdClient::txn(const TxnRequest &request) const
{
    const QString what =
        request.compare.isEmpty()
            ? QStringLiteral("txn")
            : QStringLiteral("txn on %1").arg(QString::fromUtf8(request.compare.constFirst().key));
    auto object =
        call(QStringLiteral("/v3/kv/txn"), Json::encodeTxn(request), Retry::OnlyUnsent, what);
    if (!object)
        return fail(object.error());
    return Json::decodeTxn(*object);
}

Result<ResponseHeader> EtcdClient::compact(qint64 revision, bool physical) const
{
    QJsonObject body{{QLatin1String("revision"), QString::number(revision)}};
    if (physical)
        body.insert(QLatin1String("physical"), true);
    auto object = call(QStringLiteral("/v3/kv/compaction"), body, Retry::OnlyUnsent,
                       QStringLiteral("compact to revision %1").arg(revision));
    if (!object)
        return fail(object.error());
    return Json::decodeHeader(*object);
}

Result<Lease> EtcdClient::grantLease(qint64 ttlSeconds, qint64 id) const
{
    QJsonObject body{{QLatin1String("TTL"), QString::number(ttlSeconds)}};
    if (id != 0)
        body.insert(QLatin1String("ID"), QString::number(id));
    auto object = call(QStringLiteral("/v3/lease/grant"), body, Retry::OnlyUnsent,
                       QStringLiteral("grant a lease of %1 s").arg(ttlSeconds));
    if (!object)
        return fail(object.error());
    return Json::decodeLeaseGrant(*object);
}

Result<Lease> EtcdClient::keepAliveOnce(qint64 leaseId,
                                        std::optional<std::chrono::milliseconds> within) const
{
    const QString what = QStringLiteral("keep lease %1 alive").arg(leaseId, 0, 16);
    auto object =
        call(QStringLiteral("/v3/lease/keepalive"),
             {{QLatin1String("ID"), QString::number(leaseId)}}, Retry::Safe, what, within);
    if (!object)
        return fail(object.error());
    auto lease = Json::decodeLeaseKeepAlive(*object);
    if (!lease)
        return fail(Error::make(lease.error().kind, currentEndpoint(), lease.error().message)
                        .withContext(what));
    return lease;
}

Result<void> EtcdClient::revokeLease(qint64 leaseId) const
{
    auto object =
        call(QStringLiteral("/v3/lease/revoke"), {{QLatin1String("ID"), QString::number(leaseId)}},
             Retry::Safe, QStringLiteral("revoke lease %1").arg(leaseId, 0, 16));
    if (!object)
        return fail(object.error());
    return {};
}

Result<LeaseTimeToLive> EtcdClient::leaseTimeToLive(qint64 leaseId, bool withKeys) const
{
    QJsonObject body{{QLatin1String("ID"), QString::number(leaseId)}};
    if (withKeys)
        body.insert(QLatin1String("keys"), true);
    auto object = call(QStringLiteral("/v3/lease/timetolive"), body, Retry::Safe,
                       QStringLiteral("time to live of lease %1").arg(leaseId, 0, 16));
    if (!object)
        return fail(object.error());
    return Json::decodeLeaseTimeToLive(*object);
}

} // namespace ClusterDeck::Etcd
