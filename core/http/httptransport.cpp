#include "httptransport.h"

#include "common/bytesize.h"

#include "common/logging.h"
#include "sshtunnel.h"

#include <QByteArray>
#include <QFile>
#include <QUrl>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <sys/stat.h>

namespace ClusterDeck::Http {

using namespace std::chrono_literals;

namespace {

constexpr size_t kMaxPooledHandles = 16;
constexpr qsizetype kMaxUpgradeHeadBytes = 64 * 1024;

struct TransferState
{
    const HttpRequest *request = nullptr;
    HttpResponse *response = nullptr;
    bool sinkStopped = false;
    bool tooLarge = false; // the collected body would exceed request->maxBodyBytes
};

// Appends to the collected body unless that exceeds the request's cap.
bool collect(TransferState *state, const char *data, size_t bytes)
{
    const qint64 cap = state->request->maxBodyBytes;
    if (cap > 0 && qint64(state->response->body.size()) + qint64(bytes) > cap) {
        state->tooLarge = true;
        return false;
    }
    state->response->body.append(data, qsizetype(bytes));
    return true;
}

size_t onBody(char *data, size_t size, size_t count, void *user)
{
    auto *state = static_cast<TransferState *>(user);
    const size_t bytes = size * count;
    if (state->request->onData) {
        // Error bodies of a stream are collected so the caller can read the daemon's message.
        if (state->response->status >= 300)
            return collect(state, data, bytes) ? bytes : 0;
        if (!state->request->onData(QByteArray(data, qsizetype(bytes)))) {
            state->sinkStopped = true;
            return 0; // makes curl abort with CURLE_WRITE_ERROR
        }
        return bytes;
    }
    return collect(state, data, bytes) ? bytes : 0; // 0 makes curl abort (CURLE_WRITE_ERROR)
}

size_t onHeader(char *data, size_t size, size_t count, void *user)
{
    auto *state = static_cast<TransferState *>(user);
    const size_t bytes = size * count;
    const QByteArray line = QByteArray(data, qsizetype(bytes)).trimmed();
    if (line.startsWith("HTTP/")) {
        // A new status line (after 100-continue or a redirect) starts a new header block.
        state->response->headers.clear();
        const QList<QByteArray> parts = line.split(' ');
        if (parts.size() >= 2)
            state->response->status = parts.at(1).toInt();
    } else if (const qsizetype colon = line.indexOf(':'); colon > 0) {
        state->response->headers.append(
            {line.left(colon).trimmed().toLower(), line.mid(colon + 1).trimmed()});
    }
    return bytes;
}

int onProgress(void *user, curl_off_t, curl_off_t, curl_off_t, curl_off_t)
{
    auto *state = static_cast<TransferState *>(user);
    return state->request->cancel.isCancelled() ? 1 : 0;
}

} // namespace

QByteArray HttpResponse::header(const QByteArray &name) const
{
    const QByteArray lower = name.toLower();
    for (const auto &[key, value] : headers) {
        if (key == lower)
            return value;
    }
    return {};
}

HttpTransport::HttpTransport(TransportConfig config)
    : m_config(std::move(config))
{}

HttpTransport::~HttpTransport() = default;

QString HttpTransport::displayName() const
{
    return m_config.displayName.isEmpty() ? m_config.baseUrl : m_config.displayName;
}

CurlHandle HttpTransport::acquire() const
{
    {
        std::lock_guard lock(m_poolMutex);
        if (!m_pool.empty()) {
            CurlHandle handle = std::move(m_pool.back());
            m_pool.pop_back();
            return handle;
        }
    }
    return CurlHandle();
}

void HttpTransport::release(CurlHandle handle) const
{
    handle.resetForReuse();
    std::lock_guard lock(m_poolMutex);
    if (m_pool.size() < kMaxPooledHandles)
        m_pool.push_back(std::move(handle));
}

Result<void> HttpTransport::applyEndpoint(CURL *curl, const CancelToken &cancel) const
{
    // curl copies string options, so the temporaries may go once set.
    QByteArray socketPath = QFile::encodeName(m_config.unixSocketPath);
    if (m_config.tunnel) {
        // Connecting over SSH includes the handshake and authentication.
        auto local = m_config.tunnel->socketPath(
            std::max<std::chrono::milliseconds>(m_config.connectTimeout * 3, 15000ms), cancel);
        if (!local)
            return fail(local.error());
        socketPath = QFile::encodeName(*local);
    }
    if (!socketPath.isEmpty())
        curl_easy_setopt(curl, CURLOPT_UNIX_SOCKET_PATH, socketPath.constData());

    const QByteArray ca = m_config.caFile.toLocal8Bit();
    const QByteArray cert = m_config.certFile.toLocal8Bit();
    const QByteArray key = m_config.keyFile.toLocal8Bit();
    if (!ca.isEmpty())
        curl_easy_setopt(curl, CURLOPT_CAINFO, ca.constData());
    if (!cert.isEmpty())
        curl_easy_setopt(curl, CURLOPT_SSLCERT, cert.constData());
    if (!key.isEmpty())
        curl_easy_setopt(curl, CURLOPT_SSLKEY, key.constData());
    curl_easy_setopt(curl, CURLOPT_SSL_VERIFYPEER, m_config.verifyPeer ? 1L : 0L);
    curl_easy_setopt(curl, CURLOPT_SSL_VERIFYHOST, m_config.verifyPeer ? 2L : 0L);
    return {};
}

Error HttpTransport::transferError(int curlCode, const char *errorBuffer, const QByteArray &method,
                                   const QString &path) const
{
    const auto code = CURLcode(curlCode);
    const QString detail = errorBuffer && errorBuffer[0]
                               ? QString::fromLocal8Bit(errorBuffer)
                               : QString::fromLatin1(curl_easy_strerror(code));
    const QString call = QString::fromLatin1(method) + u' ' + path;
    switch (code) {
    case CURLE_ABORTED_BY_CALLBACK:
        return Error::make(Error::Kind::Cancelled, displayName(),
                           QStringLiteral("request cancelled"));
    case CURLE_OPERATION_TIMEDOUT:
        return Error::make(Error::Kind::Timeout, displayName(),
                           QStringLiteral("%1 timed out: %2").arg(call, detail));
    case CURLE_COULDNT_CONNECT:
        if (!m_config.unixSocketPath.isEmpty()) {
            // curl reports a unix socket it cannot reach as "localhost port 80": say what is
            // wrong with the socket instead (stat only: nothing is opened).
            struct stat st
            {
            };
            const QByteArray socket = QFile::encodeName(m_config.unixSocketPath);
            QString why;
            if (::stat(socket.constData(), &st) != 0)
                why =
                    QStringLiteral("the socket %1 does not exist (%2): is the daemon running?")
                        .arg(m_config.unixSocketPath, QString::fromLocal8Bit(std::strerror(errno)));
            else if (!S_ISSOCK(st.st_mode))
                why = QStringLiteral("%1 is not a socket").arg(m_config.unixSocketPath);
            else
                why = QStringLiteral("nothing accepts connections on the socket %1 (connection "
                                     "refused): is the daemon running?")
                          .arg(m_config.unixSocketPath);
            return Error::make(Error::Kind::Transport, displayName(),
                               QStringLiteral("%1: cannot connect: %2").arg(call, why));
        }
        break;
    default:
        break;
    }
    if (m_config.tunnel) {
        // The local end of the tunnel is always there: a failure is the SSH connection's (it
        // dropped) or the daemon's socket on the far side (missing, or refused to ssh's user).
        const QString said = m_config.tunnel->lastMessage();
        return Error::make(
            Error::Kind::Transport, displayName(),
            QStringLiteral("%1 failed: %2 (over SSH: the connection dropped, or "
                           "the daemon's socket on the host cannot be reached%3)")
                .arg(call, detail,
                     said.isEmpty() ? QString() : QStringLiteral("; ssh said: ") + said));
    }
    return Error::make(Error::Kind::Transport, displayName(),
                       QStringLiteral("%1 failed: %2").arg(call, detail));
}

Result<HttpResponse> HttpTransport::perform(const HttpRequest &request) const
{
    if (request.cancel.isCancelled())
        return fail(Error::Kind::Cancelled, displayName(), QStringLiteral("request cancelled"));

    CurlHandle handle = acquire();
    if (!handle)
        return fail(Error::Kind::Transport, displayName(),
                    QStringLiteral("cannot create a curl handle"));
    CURL *curl = handle.get();

    QUrl url(m_config.baseUrl + request.path);
    if (!request.query.isEmpty())
        url.setQuery(request.query);
    const QByteArray urlBytes = url.toEncoded();

    HttpResponse response;
    TransferState state{&request, &response, false, false};
    char errorBuffer[CURL_ERROR_SIZE] = {};

    curl_easy_setopt(curl, CURLOPT_URL, urlBytes.constData());
    curl_easy_setopt(curl, CURLOPT_ERRORBUFFER, errorBuffer);
    curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, &onBody);
    curl_easy_setopt(curl, CURLOPT_WRITEDATA, &state);
    curl_easy_setopt(curl, CURLOPT_HEADERFUNCTION, &onHeader);
    curl_easy_setopt(curl, CURLOPT_HEADERDATA, &state);
    curl_easy_setopt(curl, CURLOPT_NOPROGRESS, 0L);
    curl_easy_setopt(curl, CURLOPT_XFERINFOFUNCTION, &onProgress);
    curl_easy_setopt(curl, CURLOPT_XFERINFODATA, &state);
    curl_easy_setopt(curl, CURLOPT_CONNECTTIMEOUT_MS, long(m_config.connectTimeout.count()));
    curl_easy_setopt(curl, CURLOPT_TIMEOUT_MS, long(request.timeout.count()));
    curl_easy_setopt(curl, CURLOPT_TCP_KEEPALIVE, 1L);

    if (auto ok = applyEndpoint(curl, request.cancel); !ok)
        return fail(ok.error());

    const QByteArray method = request.method.toUpper();
    if (method == "GET") {
        curl_easy_setopt(curl, CURLOPT_HTTPGET, 1L);
    } else if (method == "HEAD") {
        curl_easy_setopt(curl, CURLOPT_NOBODY, 1L);
    } else {
        curl_easy_setopt(curl, CURLOPT_CUSTOMREQUEST, method.constData());
        curl_easy_setopt(curl, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(request.body.size()));
        curl_easy_setopt(curl, CURLOPT_POSTFIELDS, request.body.constData());
    }

    if (!request.body.isEmpty() || method == "POST" || method == "PUT")
        handle.appendHeader(QByteArray("Content-Type: " + request.contentType).constData());
    handle.appendHeader("Expect:"); // no 100-continue round trip for uploads
    for (const auto &[name, value] : request.headers)
        handle.appendHeader(QByteArray(name + ": " + value).constData());
    curl_easy_setopt(curl, CURLOPT_HTTPHEADER, handle.headers());

    qCDebug(lcHttp).noquote() << method << url.toString() << "via" << displayName();
    const CURLcode code = curl_easy_perform(curl);

    if (state.tooLarge)
        return fail(
            Error::Kind::Transport, displayName(),
            QStringLiteral("%1 %2: the response body exceeds the limit of %3 (the "
                           "connection was closed)")
                .arg(QString::fromLatin1(method), request.path, formatBytes(request.maxBodyBytes)));

    if (code != CURLE_OK && !(code == CURLE_WRITE_ERROR && state.sinkStopped)) {
        // A handle whose transfer failed may hold a broken connection: do not pool it.
        return fail(transferError(code, errorBuffer, method, request.path));
    }
    release(std::move(handle));
    return response;
}

Result<UpgradedResponse> HttpTransport::openRaw(const HttpRequest &request) const
{
    using Clock = std::chrono::steady_clock;
    if (request.cancel.isCancelled())
        return fail(Error::Kind::Cancelled, displayName(), QStringLiteral("request cancelled"));
    CurlHandle handle; // never pooled: the connection belongs to the stream
    if (!handle)
        return fail(Error::Kind::Transport, displayName(),
                    QStringLiteral("cannot create a curl handle"));
    CURL *curl = handle.get();
    const QUrl base(m_config.baseUrl);
    const QByteArray baseBytes = base.toEncoded();
    char errorBuffer[CURL_ERROR_SIZE] = {};
    curl_easy_setopt(curl, CURLOPT_URL, baseBytes.constData());
    curl_easy_setopt(curl, CURLOPT_ERRORBUFFER, errorBuffer);
    curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(curl, CURLOPT_CONNECT_ONLY, 1L);
    curl_easy_setopt(curl, CURLOPT_CONNECTTIMEOUT_MS, long(m_config.connectTimeout.count()));
    curl_easy_setopt(curl, CURLOPT_TCP_KEEPALIVE, 1L);
    if (auto ok = applyEndpoint(curl, request.cancel); !ok)
        return fail(ok.error());

    const QByteArray method = request.method.toUpper();
    qCDebug(lcHttp).noquote() << method << request.path << "(upgrade) via" << displayName();
    if (const CURLcode code = curl_easy_perform(curl); code != CURLE_OK)
        return fail(transferError(code, errorBuffer, method, request.path));
    curl_socket_t socket = CURL_SOCKET_BAD;
    curl_easy_getinfo(curl, CURLINFO_ACTIVESOCKET, &socket);
    if (socket == CURL_SOCKET_BAD)
        return fail(Error::Kind::Transport, displayName(), QStringLiteral("no connected socket"));

    QUrl target(request.path);
    if (!request.query.isEmpty())
        target.setQuery(request.query);
    // Over a unix socket the daemon ignores Host; over tcp it is the endpoint's authority.
    const QByteArray host = m_config.unixSocketPath.isEmpty() && !m_config.tunnel
                                ? base.authority().toLatin1()
                                : QByteArray("localhost");
    QByteArray head = method + ' ' + target.toEncoded() + " HTTP/1.1\r\nHost: " + host + "\r\n";
    head += "Connection: Upgrade\r\nUpgrade: tcp\r\n";
    if (!request.body.isEmpty() || method == "POST")
        head += "Content-Type: " + request.contentType + "\r\n";
    head += "Content-Length: " + QByteArray::number(request.body.size()) + "\r\n";
    for (const auto &[name, value] : request.headers)
        head += name + ": " + value + "\r\n";
    head += "\r\n";

    const auto timeout =
        request.timeout.count() > 0 ? request.timeout : std::chrono::milliseconds(30000);
    auto stream =
        std::make_unique<RawStream>(std::move(handle), int(socket), QByteArray(), displayName());
    if (auto sent = stream->write(head + request.body, timeout); !sent)
        return fail(sent.error());

    // Reads the response head; what follows it already belongs to the stream.
    const auto deadline = Clock::now() + timeout;
    QByteArray received;
    qsizetype headEnd = -1;
    while ((headEnd = received.indexOf("\r\n\r\n")) < 0) {
        if (request.cancel.isCancelled())
            return fail(Error::Kind::Cancelled, displayName(), QStringLiteral("request cancelled"));
        const auto left =
            std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
        if (left.count() <= 0)
            return fail(Error::Kind::Timeout, displayName(),
                        QStringLiteral("%1 %2 timed out waiting for the response")
                            .arg(QString::fromLatin1(method), request.path));
        auto chunk = stream->read(std::min(left, std::chrono::milliseconds(200)));
        if (!chunk)
            return fail(chunk.error());
        received += *chunk;
        // A reply head is a status line and a few headers: one that does not end within this
        // is not held (issue 24 D.9).
        if (received.indexOf("\r\n\r\n") < 0 && received.size() > kMaxUpgradeHeadBytes)
            return fail(Error::Kind::Decode, displayName(),
                        QStringLiteral("%1 %2: the reply head does not end within %3 KiB")
                            .arg(QString::fromLatin1(method), request.path)
                            .arg(kMaxUpgradeHeadBytes / 1024));
        if (stream->atEnd() && received.indexOf("\r\n\r\n") < 0)
            return fail(Error::Kind::Transport, displayName(),
                        QStringLiteral("%1 %2: the connection closed before a response")
                            .arg(QString::fromLatin1(method), request.path));
    }

    UpgradedResponse out;
    const QList<QByteArray> lines = received.left(headEnd).split('\n');
    const QList<QByteArray> statusParts = lines.value(0).trimmed().split(' ');
    out.response.status = statusParts.value(1).toInt();
    for (qsizetype i = 1; i < lines.size(); ++i) {
        const QByteArray line = lines.at(i).trimmed();
        if (const qsizetype colon = line.indexOf(':'); colon > 0)
            out.response.headers.append(
                {line.left(colon).trimmed().toLower(), line.mid(colon + 1).trimmed()});
    }
    QByteArray rest = received.mid(headEnd + 4);
    const QByteArray type = out.response.header("content-type");
    const bool upgraded = out.response.status == 101 ||
                          (out.response.isSuccess() && type.startsWith("application/vnd.docker"));
    if (upgraded) {
        stream->unread(rest);
        out.stream = std::move(stream);
        return out;
    }
    // Not taken over: an ordinary (error) response; collect its body for the message.
    qsizetype length = out.response.header("content-length").toLongLong();
    if (request.maxBodyBytes > 0)
        length = std::min<qsizetype>(length, request.maxBodyBytes);
    out.response.body = rest.left(request.maxBodyBytes > 0 ? request.maxBodyBytes : rest.size());
    while (out.response.body.size() < length && !stream->atEnd()) {
        const auto left =
            std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
        if (left.count() <= 0)
            break;
        auto chunk = stream->read(std::min(left, std::chrono::milliseconds(200)));
        if (!chunk)
            break;
        out.response.body += *chunk;
    }
    return out;
}

} // namespace ClusterDeck::Http
