#include "curlhandle.h"

#include <mutex>

namespace ClusterDeck::Http {

namespace {
void ensureGlobalInit()
{
    static std::once_flag once;
    std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}
} // namespace

CurlHandle::CurlHandle()
{
    ensureGlobalInit();
    m_curl = curl_easy_init();
}

CurlHandle::~CurlHandle()
{
    release();
}

CurlHandle::CurlHandle(CurlHandle &&other) noexcept
    : m_curl(std::exchange(other.m_curl, nullptr))
    , m_headers(std::exchange(other.m_headers, nullptr))
{}

CurlHandle &CurlHandle::operator=(CurlHandle &&other) noexcept
{
    if (this != &other) {
        release();
        m_curl = std::exchange(other.m_curl, nullptr);
        m_headers = std::exchange(other.m_headers, nullptr);
    }
    return *this;
}

void CurlHandle::appendHeader(const char *line)
{
    m_headers = curl_slist_append(m_headers, line);
}

void CurlHandle::resetForReuse()
{
    if (m_headers) {
        curl_slist_free_all(m_headers);
        m_headers = nullptr;
    }
    if (m_curl)
        curl_easy_reset(m_curl);
}

void CurlHandle::release()
{
    if (m_headers)
        curl_slist_free_all(m_headers);
    if (m_curl)
        curl_easy_cleanup(m_curl);
    m_headers = nullptr;
    m_curl = nullptr;
}

} // namespace ClusterDeck::Http
