#include "httptransport.h"

#include "common/logging.h"

#include <QByteArray>
#include <QUrl>

namespace ClusterDeck::Http {

namespace {

constexpr size_t kMaxPooledHandles = 16;

struct TransferState
{
    const HttpRequest *request = nullptr;
    HttpResponse *response = nullptr;
    bool sinkStopped = false;
};

size_t onBody(char *data, size_t size, size_t count, void *user)
{
    auto *state = static_cast<TransferState *>(user);
    const size_t bytes = size * count;
    if (state->request->onData) {
        // Error bodies of a stream are collected so the caller can read the daemon's message.
        if (state->response->status >= 300) {
            state->response->body.append(data, qsizetype(bytes));
            return bytes;
        }
        if (!state->request->onData(QByteArray(data, qsizetype(bytes)))) {
            state->sinkStopped = true;
            return 0; // makes curl abort with CURLE_WRITE_ERROR
        }
        return bytes;
    }
    state->response->body.append(data, qsizetype(bytes));
    return bytes;
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

Result<HttpResponse> HttpTransport::perform(const HttpRequest &request) const
{
    if (request.cancel.isCancelled())
        return fail(Error::Kind::Cancelled, displayName(), QStringLiteral("request cancelled"));

    CurlHandle handle = acquire();
    if (!handle)
        return fail(Error::Kind::Transport, displayName(), QStringLiteral("cannot create a curl handle"));
    CURL *curl = handle.get();

    QUrl url(m_config.baseUrl + request.path);
    if (!request.query.isEmpty())
        url.setQuery(request.query);
    const QByteArray urlBytes = url.toEncoded();

    HttpResponse response;
    TransferState state{&request, &response, false};
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

    const QByteArray socketPath = m_config.unixSocketPath.toLocal8Bit();
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

    if (code != CURLE_OK && !(code == CURLE_WRITE_ERROR && state.sinkStopped)) {
        const QString detail = errorBuffer[0] ? QString::fromLocal8Bit(errorBuffer)
                                              : QString::fromLatin1(curl_easy_strerror(code));
        Error::Kind kind = Error::Kind::Transport;
        QString message;
        if (code == CURLE_ABORTED_BY_CALLBACK) {
            kind = Error::Kind::Cancelled;
            message = QStringLiteral("request cancelled");
        } else if (code == CURLE_OPERATION_TIMEDOUT) {
            kind = Error::Kind::Timeout;
            message = QStringLiteral("%1 %2 timed out: %3")
                          .arg(QString::fromLatin1(method), request.path, detail);
        } else {
            message = QStringLiteral("%1 %2 failed: %3")
                          .arg(QString::fromLatin1(method), request.path, detail);
        }
        // A handle whose transfer failed may hold a broken connection: do not pool it.
        return fail(kind, displayName(), message);
    }
    release(std::move(handle));
    return response;
}

} // namespace ClusterDeck::Http
