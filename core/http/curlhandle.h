#pragma once

#include <curl/curl.h>

#include <utility>

namespace ClusterDeck::Http {

// Owns one CURL easy handle and its request header list; move-only.
class CurlHandle
{
public:
    CurlHandle();
    ~CurlHandle();
    CurlHandle(CurlHandle &&other) noexcept;
    CurlHandle &operator=(CurlHandle &&other) noexcept;
    CurlHandle(const CurlHandle &) = delete;
    CurlHandle &operator=(const CurlHandle &) = delete;

    CURL *get() const { return m_curl; }
    explicit operator bool() const { return m_curl != nullptr; }

    void appendHeader(const char *line);
    curl_slist *headers() const { return m_headers; }
    // Forget per-request state but keep the connection cache of the handle.
    void resetForReuse();

private:
    void release();

    CURL *m_curl = nullptr;
    curl_slist *m_headers = nullptr;
};

} // namespace ClusterDeck::Http
