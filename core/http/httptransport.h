#pragma once

#include "common/error.h"
#include "curlhandle.h"
#include "httptypes.h"

#include <mutex>
#include <vector>

namespace ClusterDeck::Http {

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

    const TransportConfig &config() const { return m_config; }
    QString displayName() const;

private:
    CurlHandle acquire() const;
    void release(CurlHandle handle) const;

    TransportConfig m_config;
    mutable std::mutex m_poolMutex;
    mutable std::vector<CurlHandle> m_pool;
};

} // namespace ClusterDeck::Http
