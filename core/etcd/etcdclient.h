#pragma once

#include "common/error.h"
#include "etcdtypes.h"
#include "http/httptypes.h"

#include <QJsonObject>

#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <vector>

namespace ClusterDeck::Http {
class HttpTransport;
}

namespace ClusterDeck::Etcd {

// A client of the etcd v3 JSON gateway over one or more endpoints of one cluster.
//
// Every call goes to the endpoint that answered last; when it cannot be reached the next one is
// tried (reads also move on after a timeout; writes only when the request never left, so a CAS is
// never applied twice). With a username the client authenticates lazily, sends the token with
// each request and fetches a new one once when etcd says the token is invalid or expired.
// Safe to use from many threads at once; errors name the endpoint and carry etcd's message.
class EtcdClient
{
public:
    explicit EtcdClient(EtcdConfig config);
    ~EtcdClient();
    EtcdClient(const EtcdClient &) = delete;
    EtcdClient &operator=(const EtcdClient &) = delete;

    const EtcdConfig &config() const { return m_config; }
    // The endpoint the next request will try first.
    QString currentEndpoint() const;

    // KV
    Result<PutResult> put(const QByteArray &key, const QByteArray &value,
                          const PutOptions &options = {}) const;
    // The key at the latest (or the given) revision; nullopt when it does not exist.
    Result<std::optional<KeyValue>> get(const QByteArray &key, qint64 revision = 0) const;
    // One range request, exactly as asked (limit applies; `more` tells whether keys were left).
    Result<RangeResult> range(const QByteArray &key, const RangeOptions &options = {}) const;
    // Every key of [key, rangeEnd), fetched in pages of `pageSize` at one pinned revision, so a
    // large range neither hits etcd's request size limit nor mixes revisions: `revision` when
    // given (a snapshot consistent with an earlier read), else the first page's.
    Result<RangeResult> rangeAll(const QByteArray &key, const QByteArray &rangeEnd,
                                 qint64 pageSize = 1000, bool keysOnly = false,
                                 qint64 revision = 0) const;
    Result<RangeResult> rangePrefix(const QByteArray &prefix, qint64 pageSize = 1000,
                                    bool keysOnly = false, qint64 revision = 0) const;
    Result<DeleteResult> remove(const QByteArray &key, const DeleteOptions &options = {}) const;
    // Deletes every key starting with `prefix`; an empty prefix is refused.
    Result<DeleteResult> removePrefix(const QByteArray &prefix, bool prevKv = false) const;
    Result<TxnResult> txn(const TxnRequest &request) const;
    Result<ResponseHeader> compact(qint64 revision, bool physical = false) const;

    // Leases
    Result<Lease> grantLease(qint64 ttlSeconds, qint64 id = 0) const;
    // `within`: the whole call, every endpoint tried, takes at most this long (a keep-alive may
    // not outlast the lease it renews).
    Result<Lease> keepAliveOnce(qint64 leaseId,
                                std::optional<std::chrono::milliseconds> within = {}) const;
    Result<void> revokeLease(qint64 leaseId) const;
    Result<LeaseTimeToLive> leaseTimeToLive(qint64 leaseId, bool withKeys = false) const;

    // Fetches a token now (otherwise done on the first request); fails clearly on bad credentials.
    Result<void> authenticate() const;

    // Whether a failed write may still have been applied: it was sent, then no reply came (a
    // timeout or a connection reset after sending). Such a write is never sent again; its caller
    // reads back to learn the outcome.
    static bool outcomeUnknown(const Error &error);
    // Tests only: called with each unary request's path and body once etcd has answered it;
    // returning true drops the reply, as if the connection broke after the request was sent.
    // Process-wide; pass {} to remove.
    using ReplyFault = std::function<bool(const QString &path, const QByteArray &body)>;
    static void setReplyFaultForTests(ReplyFault fault);

    // Low level: one unary gateway call with failover and re-authentication. `what` names the
    // operation in errors ("put /a/b").
    enum class Retry { Safe, OnlyUnsent };
    Result<QJsonObject> call(const QString &path, const QJsonObject &body, Retry retry,
                             const QString &what,
                             std::optional<std::chrono::milliseconds> within = {}) const;

    // Low level: a streaming gateway call (watch). Connects with failover, then feeds the body
    // into `sink` until it returns false, the stream ends, fails or is cancelled.
    struct StreamInfo
    {
        QString endpoint; // display name of the endpoint that served the stream
        QString token;    // the token it was opened with (pass to refreshToken on auth errors)
        int httpStatus = 0;
        QByteArray errorBody; // body of a non-2xx answer
    };
    Result<void> stream(const QString &path, const QJsonObject &body, const Http::DataSink &sink,
                        const CancelToken &cancel, std::chrono::milliseconds timeout,
                        StreamInfo *info = nullptr) const;
    // Forget `staleToken` (if it is still the current one) and authenticate again.
    Result<void> refreshToken(const QString &staleToken) const;

private:
    Result<QString> token() const;
    Result<QString> fetchToken() const;
    int endpointCount() const { return int(m_transports.size()); }

    EtcdConfig m_config;
    std::vector<std::unique_ptr<Http::HttpTransport>> m_transports;
    mutable std::atomic_int m_current{0};
    mutable std::mutex m_authMutex;
    mutable QString m_token;
};

} // namespace ClusterDeck::Etcd
