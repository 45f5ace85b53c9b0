#pragma once

#include "common/error.h"
#include "curlhandle.h"

#include <QByteArray>
#include <QString>

#include <chrono>
#include <mutex>

namespace ClusterDeck::Http {

// One connection taken over by the server after `101 UPGRADED` (Docker's exec/attach hijack):
// raw bytes both ways, read and written with curl_easy_recv/curl_easy_send on a CONNECT_ONLY
// handle, so unix sockets and TLS work alike. Made by HttpTransport::openRaw().
// One thread may read while another writes: every curl call is serialised by a mutex and the
// waits (poll) happen outside it.
class RawStream
{
public:
    RawStream(CurlHandle handle, int socket, QByteArray pending, QString displayName);
    ~RawStream();
    RawStream(const RawStream &) = delete;
    RawStream &operator=(const RawStream &) = delete;

    // The connection's file descriptor, to wait on (poll, QSocketNotifier). With TLS, bytes may
    // be decoded and waiting inside curl already: read() drains them, so call it until it
    // returns nothing before waiting on the descriptor again.
    int socket() const { return m_socket; }

    // Waits up to `timeout` for bytes and returns what is there (empty on timeout or at the end).
    Result<QByteArray> read(std::chrono::milliseconds timeout);
    // Writes all of `data` (waits while the socket is full, up to `timeout`).
    Result<void> write(const QByteArray &data,
                       std::chrono::milliseconds timeout = std::chrono::seconds(30));
    // Half-closes the sending side (stdin EOF for the peer); only on plain sockets, a no-op on TLS.
    void closeWrite();
    // Puts bytes back in front of what read() returns next (what came after a response head).
    void unread(const QByteArray &data) { m_pending.prepend(data); }
    // The peer closed the connection and everything it sent has been read.
    // (Bytes put back with unread() still count: a fast command can send its whole output and
    // close the connection together with the response head.)
    bool atEnd() const { return m_atEnd && m_pending.isEmpty(); }

private:
    CurlHandle m_handle;
    int m_socket = -1;
    QByteArray m_pending; // bytes that came with the response head
    QString m_displayName;
    bool m_tls = false;
    bool m_atEnd = false;
    std::mutex m_mutex;
};

} // namespace ClusterDeck::Http
