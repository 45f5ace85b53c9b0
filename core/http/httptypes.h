#pragma once

#include <QByteArray>
#include <QList>
#include <QPair>
#include <QString>
#include <QUrlQuery>

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <vector>

namespace ClusterDeck::Http {

// Shared flag a caller sets to abort a running request from any thread.
class CancelToken
{
public:
    CancelToken()
        : m_flag(std::make_shared<std::atomic_bool>(false))
    {}
    // A new token, cancelled by its own cancel() and whenever `a` or `b` is (cancelling it
    // does not cancel them).
    static CancelToken anyOf(const CancelToken &a, const CancelToken &b)
    {
        CancelToken t;
        for (const CancelToken *from : {&a, &b}) {
            t.m_parents.push_back(from->m_flag);
            t.m_parents.insert(t.m_parents.end(), from->m_parents.begin(), from->m_parents.end());
            t.m_deadlines.insert(t.m_deadlines.end(), from->m_deadlines.begin(),
                                 from->m_deadlines.end());
        }
        return t;
    }
    // A token that is also cancelled once the steady clock passes *deadline (nanoseconds of
    // std::chrono::steady_clock; 0: none yet). A lease's local deadline (LeaseDeadline) moves it
    // with every confirmed renewal: every request checks it, without I/O, before it is sent.
    static CancelToken untilDeadline(std::shared_ptr<const std::atomic<qint64>> deadline)
    {
        CancelToken t;
        t.m_deadlines.push_back(std::move(deadline));
        return t;
    }
    void cancel() const { m_flag->store(true); }
    bool isCancelled() const
    {
        if (m_flag->load())
            return true;
        for (const auto &parent : m_parents) {
            if (parent->load())
                return true;
        }
        if (!m_deadlines.empty()) {
            const qint64 now = std::chrono::duration_cast<std::chrono::nanoseconds>(
                                   std::chrono::steady_clock::now().time_since_epoch())
                                   .count();
            for (const auto &deadline : m_deadlines) {
                const qint64 at = deadline->load();
                if (at != 0 && now >= at)
                    return true;
            }
        }
        return false;
    }

private:
    std::shared_ptr<std::atomic_bool> m_flag;
    std::vector<std::shared_ptr<std::atomic_bool>> m_parents;
    std::vector<std::shared_ptr<const std::atomic<qint64>>> m_deadlines;
};

using Headers = QList<QPair<QByteArray, QByteArray>>;

// Receives body bytes of a streaming request as they arrive; return false to stop the stream.
using DataSink = std::function<bool(const QByteArray &chunk)>;

struct HttpRequest
{
    QByteArray method = "GET";
    QString path; // "/v1.41/containers/json"; appended to the transport's base URL
    QUrlQuery query;
    QByteArray body;
    QByteArray contentType = "application/json";
    Headers headers;
    std::chrono::milliseconds timeout{30000}; // whole request; 0 = none (streams)
    CancelToken cancel;
    DataSink onData; // set: stream the body into it instead of collecting it
    // The most body bytes collected into HttpResponse::body (a streamed body is not collected,
    // only a stream's error body is); more fails the request, naming the endpoint and path.
    qint64 maxBodyBytes = kDefaultMaxBodyBytes;

    static constexpr qint64 kDefaultMaxBodyBytes = qint64(64) << 20; // 64 MiB
};

struct HttpResponse
{
    int status = 0;
    QByteArray body;
    Headers headers;

    bool isSuccess() const { return status >= 200 && status < 300; }
    QByteArray header(const QByteArray &name) const;
};

// How one endpoint is reached: the base URL, optionally over a unix socket, optionally with TLS.
struct TransportConfig
{
    QString baseUrl;        // "http://localhost", "https://192.168.213.11:2376"
    QString unixSocketPath; // non-empty: connect through this socket
    QString caFile;
    QString certFile;
    QString keyFile;
    bool verifyPeer = true;
    std::chrono::milliseconds connectTimeout{5000};
    QString displayName; // how errors name the endpoint: "host h1 (tcp+tls://…)"
};

} // namespace ClusterDeck::Http
