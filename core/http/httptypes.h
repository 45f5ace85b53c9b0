#pragma once

#include "common/canceltoken.h"

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

class SshTunnel;

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
    // Set: connect through this SSH tunnel's local socket (ssh:// endpoints), started on demand.
    std::shared_ptr<SshTunnel> tunnel;
    QString caFile;
    QString certFile;
    QString keyFile;
    bool verifyPeer = true;
    std::chrono::milliseconds connectTimeout{5000};
    QString displayName; // how errors name the endpoint: "host h1 (tcp+tls://…)"
};

} // namespace ClusterDeck::Http
