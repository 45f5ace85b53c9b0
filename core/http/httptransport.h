#pragma once

#include "common/error.h"
#include "curlhandle.h"
#include "httptypes.h"
#include "rawstream.h"

#include <memory>
#include <mutex>
#include <vector>

namespace ClusterDeck::Http {

// The answer to a request that asked to take the connection over (Connection: Upgrade).
struct UpgradedResponse
{
    HttpResponse response;             // status and headers; the body when not upgraded
    std::unique_ptr<RawStream> stream; // set when the server upgraded (101, or a raw-stream 200)
};

// The one place that performs HTTP requests (curl_easy_perform). Safe to call from many threads:
// each call borrows its own easy handle from a small pool, so kept-alive connections are reused.
class HttpTransport
{
public:
    explicit HttpTransport(TransportConfig config);
    ~HttpTransport();
    HttpTransport(const HttpTransport &) = delete;
    HttpTransport &operator=(const HttpTransport &) = delete;

    Result<HttpResponse> perform(const HttpRequest &request) const;
    // Sends `request` with `Connection: Upgrade, Upgrade: tcp` on a connection of its own and,
    // when the server takes it over, hands the connection back as a RawStream. request.timeout
    // bounds sending and the response head; onData is not used.
    Result<UpgradedResponse> openRaw(const HttpRequest &request) const;

    const TransportConfig &config() const { return m_config; }
    QString displayName() const;

private:
    // Points `curl` at the endpoint; an ssh:// endpoint's tunnel is started here when needed.
    Result<void> applyEndpoint(CURL *curl, const CancelToken &cancel) const;
    // The one place a failed transfer becomes an Error: cancelled, timed out, or a transport
    // failure that says what is wrong with the endpoint (a missing unix socket, say).
    Error transferError(int curlCode, const char *errorBuffer, const QByteArray &method,
                        const QString &path) const;
    CurlHandle acquire() const;
    void release(CurlHandle handle) const;

    TransportConfig m_config;
    mutable std::mutex m_poolMutex;
    mutable std::vector<CurlHandle> m_pool;
};

} // namespace ClusterDeck::Http
