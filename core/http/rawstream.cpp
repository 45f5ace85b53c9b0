#include "rawstream.h"

#include <poll.h>
#include <sys/socket.h>

namespace ClusterDeck::Http {

namespace {

using Clock = std::chrono::steady_clock;

int remainingMs(Clock::time_point deadline)
{
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
    return int(std::max<qint64>(0, left.count()));
}

bool waitFor(int socket, short events, int timeoutMs)
{
    pollfd p{socket, events, 0};
    return ::poll(&p, 1, timeoutMs) > 0;
}

} // namespace

RawStream::RawStream(CurlHandle handle, int socket, QByteArray pending, QString displayName)
    : m_handle(std::move(handle))
    , m_socket(socket)
    , m_pending(std::move(pending))
    , m_displayName(std::move(displayName))
{
    char *scheme = nullptr;
    if (curl_easy_getinfo(m_handle.get(), CURLINFO_SCHEME, &scheme) == CURLE_OK && scheme)
        m_tls = qstricmp(scheme, "https") == 0;
}

RawStream::~RawStream() = default; // the handle closes the connection

Result<QByteArray> RawStream::read(std::chrono::milliseconds timeout)
{
    if (!m_pending.isEmpty())
        return std::exchange(m_pending, {});
    if (m_atEnd)
        return QByteArray();
    const auto deadline = Clock::now() + timeout;
    char buffer[16384];
    for (;;) {
        size_t n = 0;
        CURLcode code;
        QByteArray out;
        {
            std::lock_guard lock(m_mutex);
            // Drain everything curl can give now (TLS may hold several records decoded).
            do {
                n = 0;
                code = curl_easy_recv(m_handle.get(), buffer, sizeof buffer, &n);
                if (code == CURLE_OK && n > 0)
                    out.append(buffer, qsizetype(n));
            } while (code == CURLE_OK && n > 0 && out.size() < (1 << 20));
        }
        if (code == CURLE_OK && n == 0)
            m_atEnd = true;
        if (!out.isEmpty() || m_atEnd)
            return out;
        if (code != CURLE_AGAIN) {
            // A peer that drops a TLS connection without close_notify ends the stream too.
            m_atEnd = true;
            return fail(Error::Kind::Transport, m_displayName,
                        QStringLiteral("reading the stream failed: %1")
                            .arg(QString::fromLatin1(curl_easy_strerror(code))));
        }
        const int left = remainingMs(deadline);
        if (left <= 0)
            return QByteArray();
        waitFor(m_socket, POLLIN, left);
    }
}

Result<void> RawStream::write(const QByteArray &data, std::chrono::milliseconds timeout)
{
    const auto deadline = Clock::now() + timeout;
    qsizetype offset = 0;
    while (offset < data.size()) {
        size_t sent = 0;
        CURLcode code;
        {
            std::lock_guard lock(m_mutex);
            code = curl_easy_send(m_handle.get(), data.constData() + offset,
                                  size_t(data.size() - offset), &sent);
        }
        if (code == CURLE_OK) {
            offset += qsizetype(sent);
            continue;
        }
        if (code != CURLE_AGAIN)
            return fail(Error::Kind::Transport, m_displayName,
                        QStringLiteral("writing to the stream failed: %1")
                            .arg(QString::fromLatin1(curl_easy_strerror(code))));
        const int left = remainingMs(deadline);
        if (left <= 0)
            return fail(Error::Kind::Timeout, m_displayName,
                        QStringLiteral("writing to the stream timed out"));
        waitFor(m_socket, POLLOUT, left);
    }
    return {};
}

void RawStream::closeWrite()
{
    if (!m_tls && m_socket >= 0)
        ::shutdown(m_socket, SHUT_WR);
}

} // namespace ClusterDeck::Http
