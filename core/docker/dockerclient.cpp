#include "dockerclient.h"
#include "common/shortid.h"

#include "common/boundedbuffer.h"
#include "common/credentialpolicy.h"
#include "common/logging.h"
#include "dockerjson.h"
#include "dockerlogdemuxer.h"
#include "http/httptransport.h"
#include "http/rawstream.h"
#include "tararchivebuilder.h"
#include "tararchivereader.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QUrl>

#include <algorithm>
#include <thread>

namespace ClusterDeck::Docker {

namespace {

using namespace std::chrono_literals;

// Event and stats streams carry one JSON object per line, a few KiB each: more than this without
// a newline is a broken (or hostile) daemon, and the line is not held (issue 24 D.9).
constexpr qsizetype kMaxRecordLineBytes = 4 * 1024 * 1024;

Error overlongLine(const QString &what, qsizetype size)
{
    return Error::make(Error::Kind::Decode, QString(),
                       QStringLiteral("a line of the %1 stream longer than %2 MiB (%3 bytes "
                                      "without a newline): the stream is ended rather than held")
                           .arg(what)
                           .arg(kMaxRecordLineBytes >> 20)
                           .arg(size));
}

// Values go into the query fully percent-encoded: the daemon (Go) would read a raw '+' as a
// space, and filters are JSON with '{', '"' and '='.
void addQuery(QUrlQuery &query, const QString &key, const QString &value)
{
    query.addQueryItem(key, QString::fromLatin1(QUrl::toPercentEncoding(value)));
}

QString pathPart(const QString &value)
{
    // Image references keep their '/', ':' and '@' (the daemon's router expects them raw).
    return QString::fromLatin1(QUrl::toPercentEncoding(value, "/:@"));
}

QString flag(bool on)
{
    return on ? QStringLiteral("1") : QStringLiteral("0");
}

QString idPart(const QString &value)
{
    return QString::fromLatin1(QUrl::toPercentEncoding(value));
}

QMap<QString, QStringList> withLabels(QMap<QString, QStringList> filters, const QStringList &labels)
{
    if (!labels.isEmpty())
        filters[QStringLiteral("label")] += labels;
    return filters;
}

void addFilters(QUrlQuery &query, const QMap<QString, QStringList> &filters)
{
    const QByteArray json = Json::encodeFilters(filters);
    if (!json.isEmpty())
        addQuery(query, QStringLiteral("filters"), QString::fromUtf8(json));
}

// The HTTP deadline of stop/restart must outlast the daemon's grace period.
CallOptions withGracePeriod(CallOptions options, std::optional<int> seconds)
{
    const std::chrono::milliseconds needed = std::chrono::seconds(seconds.value_or(10)) + 15s;
    if (options.timeout.count() > 0 && options.timeout < needed)
        options.timeout = needed;
    return options;
}

bool isTlsProblem(const QString &message)
{
    return message.contains(QLatin1String("SSL"), Qt::CaseInsensitive) ||
           message.contains(QLatin1String("certificate"), Qt::CaseInsensitive) ||
           message.contains(QLatin1String("TLS"), Qt::CaseInsensitive);
}

} // namespace

DockerClient::DockerClient(DockerEndpoint endpoint, QString hostName)
    : m_endpoint(std::move(endpoint))
    , m_hostName(std::move(hostName))
    , m_transport(std::make_unique<Http::HttpTransport>(m_endpoint.transportConfig(m_hostName)))
{}

DockerClient::~DockerClient() = default;

QString DockerClient::displayName() const
{
    return m_endpoint.displayName(m_hostName);
}

QString DockerClient::formatEventTime(qint64 timeNano)
{
    constexpr qint64 kNano = 1000000000LL;
    return QStringLiteral("%1.%2")
        .arg(timeNano / kNano)
        .arg(timeNano % kNano, 9, 10, QLatin1Char('0'));
}

Error DockerClient::transportError(const Error &error) const
{
    Error e = error;
    e.where = displayName();
    if (m_endpoint.kind() == DockerEndpoint::Kind::TcpTls && e.kind == Error::Kind::Transport &&
        isTlsProblem(e.message)) {
        const TlsFiles tls = m_endpoint.tls();
        e.message += QStringLiteral(" (TLS: is the daemon's certificate signed by the CA %1?)")
                         .arg(tls.caFile.isEmpty() ? QStringLiteral("of the system")
                                                   : u'"' + tls.caFile + u'"');
    }
    return e;
}

Error DockerClient::httpError(const Http::HttpResponse &response, const Request &request) const
{
    QString message = Json::decodeErrorMessage(response.body);
    if (message.isEmpty())
        message = QStringLiteral("no message");
    Error::Kind kind = Error::Kind::Http;
    switch (response.status) {
    case 400:
        kind = Error::Kind::Invalid;
        break;
    case 404:
        kind = Error::Kind::NotFound;
        break;
    case 409:
        kind = Error::Kind::Conflict;
        break;
    default:
        break;
    }
    return Error::make(kind, displayName(),
                       QStringLiteral("%1 (HTTP %2 on %3 %4)")
                           .arg(message)
                           .arg(response.status)
                           .arg(QString::fromLatin1(request.method), request.path),
                       response.status);
}

Error DockerClient::decodeError(const Error &error, const Request &request) const
{
    Error e = error;
    e.where = displayName();
    e.message = QStringLiteral("%1 %2: %3")
                    .arg(QString::fromLatin1(request.method), request.path, error.message);
    return e;
}

template<typename T>
Result<T> DockerClient::decoded(Result<T> result, const Request &request) const
{
    if (!result)
        return fail(decodeError(result.error(), request));
    return result;
}

Result<QString> DockerClient::apiVersion(const CallOptions &options) const
{
    // Only one caller negotiates; the others wait for it, but never past their own deadline and
    // never after their own cancellation.
    std::unique_lock lock(m_versionMutex, std::defer_lock);
    const auto deadline = std::chrono::steady_clock::now() + options.timeout;
    while (!lock.try_lock_for(50ms)) {
        if (options.cancel.isCancelled())
            return fail(Error::Kind::Cancelled, displayName(), QStringLiteral("request cancelled"));
        if (options.timeout.count() > 0 && std::chrono::steady_clock::now() >= deadline)
            return fail(Error::Kind::Timeout, displayName(),
                        QStringLiteral("timed out waiting for the API version negotiation"));
    }
    if (m_apiVersion)
        return *m_apiVersion;

    auto pinged = ping(options);
    if (!pinged)
        return fail(pinged.error().withContext(QStringLiteral("negotiating the API version")));
    QString daemonVersion = pinged->apiVersion;
    if (daemonVersion.isEmpty()) { // daemons behind some proxies strip the header
        Request request;
        request.path = QStringLiteral("/version");
        request.versioned = false;
        auto response = send(request, options);
        if (!response)
            return fail(
                response.error().withContext(QStringLiteral("negotiating the API version")));
        auto v = decoded(Json::decodeVersion(response->body), request);
        if (!v)
            return fail(v.error());
        daemonVersion = v->apiVersion;
    }
    if (Json::compareApiVersions(daemonVersion, QLatin1String(kMinApiVersion)) < 0)
        return fail(Error::Kind::Invalid, displayName(),
                    QStringLiteral("the daemon speaks Engine API %1, older than the oldest "
                                   "supported %2")
                        .arg(daemonVersion, QLatin1String(kMinApiVersion)));
    const QString chosen =
        Json::compareApiVersions(daemonVersion, QLatin1String(kMaxApiVersion)) < 0
            ? daemonVersion
            : QString::fromLatin1(kMaxApiVersion);
    qCDebug(lcDocker).noquote() << displayName() << "daemon API" << daemonVersion << "using"
                                << chosen;
    m_apiVersion = chosen;
    return chosen;
}

Result<Http::HttpResponse> DockerClient::send(const Request &request,
                                              const CallOptions &options) const
{
    Http::HttpRequest http;
    http.method = request.method;
    if (request.versioned) {
        auto version = apiVersion(options);
        if (!version)
            return fail(version.error());
        http.path = QStringLiteral("/v") + *version + request.path;
    } else {
        http.path = request.path;
    }
    http.query = request.query;
    http.body = request.body;
    http.contentType = request.contentType;
    http.headers = request.headers;
    http.timeout = options.timeout;
    http.cancel = options.cancel;
    http.maxBodyBytes = request.maxBodyBytes;
    if (request.onData) {
        // Error bodies are collected by the transport; only a success streams.
        http.onData = request.onData;
    }

    auto response = m_transport->perform(http);
    if (!response)
        return fail(transportError(response.error()));
    if (!response->isSuccess() && !request.extraOkStatuses.contains(response->status))
        return fail(httpError(*response, request));
    return response;
}

Result<void> DockerClient::sendNoContent(const Request &request, const CallOptions &options) const
{
    auto response = send(request, options);
    if (!response)
        return fail(response.error());
    return {};
}

// ---------------------------------------------------------------------------------------------
// System

Result<PingInfo> DockerClient::ping(const CallOptions &options) const
{
    Request request;
    request.path = QStringLiteral("/_ping");
    request.versioned = false;
    auto response = send(request, options);
    if (!response)
        return fail(response.error());
    PingInfo ping;
    ping.apiVersion = QString::fromLatin1(response->header("Api-Version"));
    ping.osType = QString::fromLatin1(response->header("Ostype"));
    ping.experimental = response->header("Docker-Experimental") == "true";
    ping.builderVersion = QString::fromLatin1(response->header("Builder-Version"));
    return ping;
}

Result<VersionInfo> DockerClient::version(const CallOptions &options) const
{
    Request request;
    request.path = QStringLiteral("/version");
    auto response = send(request, options);
    if (!response)
        return fail(response.error());
    return decoded(Json::decodeVersion(response->body), request);
}

Result<SystemInfo> DockerClient::info(const CallOptions &options) const
{
    Request request;
    request.path = QStringLiteral("/info");
    auto response = send(request, options);
    if (!response)
        return fail(response.error());
    return decoded(Json::decodeSystemInfo(response->body), request);
}

// ---------------------------------------------------------------------------------------------
// Images

Result<QList<ImageSummary>> DockerClient::listImages(const QStringList &labels,
                                                     const CallOptions &options) const
{
    Request request;
    request.path = QStringLiteral("/images/json");
    addFilters(request.query, withLabels({}, labels));
    auto response = send(request, options);
    if (!response)
        return fail(response.error());
    return decoded(Json::decodeImageList(response->body), request);
}

Result<ImageInfo> DockerClient::inspectImage(const QString &nameOrId,
                                             const CallOptions &options) const
{
    Request request;
    request.path = QStringLiteral("/images/%1/json").arg(pathPart(nameOrId));
    auto response = send(request, options);
    if (!response)
        return fail(response.error());
    return decoded(Json::decodeImageInfo(response->body), request);
}

Result<PullProgress> DockerClient::pullImage(const ImagePullSpec &pull, const PullSink &onProgress,
                                             const CallOptions &options) const
{
    Request request;
    request.method = "POST";
    request.path = QStringLiteral("/images/create");
    addQuery(request.query, QStringLiteral("fromImage"), pull.fromImage);
    addQuery(request.query, QStringLiteral("tag"),
             pull.tag.isEmpty() ? QStringLiteral("latest") : pull.tag);
    if (!pull.registryAuth.isEmpty()) {
        if (auto ok = mayCarryCredentials(); !ok)
            return fail(ok.error());
        request.headers.append({"X-Registry-Auth", pull.registryAuth});
    }
    PullProgressDecoder decoder;
    request.onData = [&](const QByteArray &chunk) {
        if (decoder.feed(chunk) && onProgress)
            return onProgress(decoder.progress());
        return true;
    };
    const QChar separator =
        pull.tag.startsWith(QLatin1String("sha256:")) ? QLatin1Char('@') : QLatin1Char(':');
    const QString what = pull.fromImage + separator + pull.tag;
    auto response = send(request, options);
    if (!response)
        return fail(response.error());
    if (decoder.finish() && onProgress)
        onProgress(decoder.progress());
    const PullProgress &done = decoder.progress();
    if (!done.error.isEmpty())
        return fail(Error::Kind::Http, displayName(),
                    QStringLiteral("pulling %1: %2").arg(what, done.error));
    if (options.cancel.isCancelled())
        return fail(Error::Kind::Cancelled, displayName(),
                    QStringLiteral("pulling %1: cancelled").arg(what));
    if (!done.finished)
        return fail(Error::Kind::Cancelled, displayName(),
                    QStringLiteral("pulling %1: stopped before the daemon finished").arg(what));
    return done;
}

Result<RemovedImage> DockerClient::removeImage(const QString &nameOrId, bool force,
                                               const CallOptions &options) const
{
    Request request;
    request.method = "DELETE";
    request.path = QStringLiteral("/images/%1").arg(pathPart(nameOrId));
    addQuery(request.query, QStringLiteral("force"), flag(force));
    auto response = send(request, options);
    if (!response)
        return fail(response.error());
    return decoded(Json::decodeRemovedImage(response->body), request);
}

Result<QString> DockerClient::importImage(const ImageImportSpec &import, const QByteArray &tar,
                                          const CallOptions &options) const
{
    Request request;
    request.method = "POST";
    request.path = QStringLiteral("/images/create");
    addQuery(request.query, QStringLiteral("fromSrc"), QStringLiteral("-"));
    addQuery(request.query, QStringLiteral("repo"), import.repo);
    addQuery(request.query, QStringLiteral("tag"), import.tag);
    for (const QString &change : import.changes)
        addQuery(request.query, QStringLiteral("changes"), change);
    request.body = tar;
    request.contentType = "application/x-tar";
    auto response = send(request, options);
    if (!response)
        return fail(response.error());
    auto id = Json::decodeImportedImage(response->body);
    if (!id && id.error().kind == Error::Kind::Http)
        return fail(
            Error::Kind::Http, displayName(),
            QStringLiteral("importing %1:%2: %3").arg(import.repo, import.tag, id.error().message));
    return decoded(std::move(id), request);
}

Result<void> DockerClient::mayCarryCredentials() const
{
    if (m_endpoint.kind() != DockerEndpoint::Kind::Tcp || CredentialPolicy::plaintextAllowed())
        return {};
    return fail(Error::Kind::Invalid, displayName(),
                CredentialPolicy::refusal(QStringLiteral("this daemon over plain tcp://")));
}

Result<AuthCheck> DockerClient::checkAuth(const QString &serverAddress, const QString &username,
                                          const QString &password, const CallOptions &options) const
{
    if (auto ok = mayCarryCredentials(); !ok)
        return fail(ok.error());
    Request request;
    request.method = "POST";
    request.path = QStringLiteral("/auth");
    request.body = QJsonDocument(QJsonObject{{QStringLiteral("username"), username},
                                             {QStringLiteral("password"), password},
                                             {QStringLiteral("serveraddress"), serverAddress}})
                       .toJson(QJsonDocument::Compact);
    auto response = send(request, options);
    if (!response)
        return fail(response.error());
    const QJsonObject o = QJsonDocument::fromJson(response->body).object();
    return AuthCheck{o.value(QLatin1String("Status")).toString(),
                     o.value(QLatin1String("IdentityToken")).toString()};
}

// ---------------------------------------------------------------------------------------------
// Containers

Result<CreatedContainer> DockerClient::createContainer(const ContainerSpec &spec,
                                                       const CallOptions &options) const
{
    auto version = apiVersion(options);
    if (!version)
        return fail(version.error());
    auto body = Json::encodeContainerSpec(spec, *version);
    if (!body) {
        Error e = body.error();
        e.where = displayName();
        return fail(e.withContext(QStringLiteral("creating container \"%1\"").arg(spec.name)));
    }
    Request request;
    request.method = "POST";
    request.path = QStringLiteral("/containers/create");
    if (!spec.name.isEmpty())
        addQuery(request.query, QStringLiteral("name"), spec.name);
    request.body = *body;
    auto response = send(request, options);
    if (!response)
        return fail(response.error());
    return decoded(Json::decodeCreatedContainer(response->body), request);
}

Result<void> DockerClient::startContainer(const QString &id, const CallOptions &options) const
{
    Request request;
    request.method = "POST";
    request.path = QStringLiteral("/containers/%1/start").arg(idPart(id));
    request.extraOkStatuses = {304}; // already started
    return sendNoContent(request, options);
}

Result<void> DockerClient::stopContainer(const QString &id, std::optional<int> timeoutSeconds,
                                         const CallOptions &options) const
{
    Request request;
    request.method = "POST";
    request.path = QStringLiteral("/containers/%1/stop").arg(idPart(id));
    if (timeoutSeconds)
        addQuery(request.query, QStringLiteral("t"), QString::number(*timeoutSeconds));
    request.extraOkStatuses = {304}; // already stopped
    return sendNoContent(request, withGracePeriod(options, timeoutSeconds));
}

Result<void> DockerClient::restartContainer(const QString &id, std::optional<int> timeoutSeconds,
                                            const CallOptions &options) const
{
    Request request;
    request.method = "POST";
    request.path = QStringLiteral("/containers/%1/restart").arg(idPart(id));
    if (timeoutSeconds)
        addQuery(request.query, QStringLiteral("t"), QString::number(*timeoutSeconds));
    return sendNoContent(request, withGracePeriod(options, timeoutSeconds));
}

Result<void> DockerClient::killContainer(const QString &id, const QString &signal,
                                         const CallOptions &options) const
{
    Request request;
    request.method = "POST";
    request.path = QStringLiteral("/containers/%1/kill").arg(idPart(id));
    if (!signal.isEmpty())
        addQuery(request.query, QStringLiteral("signal"), signal);
    return sendNoContent(request, options);
}

Result<void> DockerClient::removeContainer(const QString &id, const RemoveContainerOptions &remove,
                                           const CallOptions &options) const
{
    Request request;
    request.method = "DELETE";
    request.path = QStringLiteral("/containers/%1").arg(idPart(id));
    addQuery(request.query, QStringLiteral("force"), flag(remove.force));
    addQuery(request.query, QStringLiteral("v"), flag(remove.volumes));
    return sendNoContent(request, options);
}

Result<ContainerInfo> DockerClient::inspectContainer(const QString &id,
                                                     const CallOptions &options) const
{
    Request request;
    request.path = QStringLiteral("/containers/%1/json").arg(idPart(id));
    auto response = send(request, options);
    if (!response)
        return fail(response.error());
    return decoded(Json::decodeContainerInfo(response->body), request);
}

Result<QList<ContainerSummary>> DockerClient::listContainers(const ContainerListOptions &list,
                                                             const CallOptions &options) const
{
    Request request;
    request.path = QStringLiteral("/containers/json");
    if (list.all)
        addQuery(request.query, QStringLiteral("all"), QStringLiteral("1"));
    addFilters(request.query, withLabels(list.filters, list.labels));
    auto response = send(request, options);
    if (!response)
        return fail(response.error());
    return decoded(Json::decodeContainerList(response->body), request);
}

Result<ContainerLogs> DockerClient::containerLogs(const QString &id, const LogOptions &logs,
                                                  const CallOptions &options) const
{
    ContainerLogs out;
    BoundedBuffer stdoutTail(BoundedBuffer::Keep::Tail, ContainerLogs::kMaxBytes);
    BoundedBuffer stderrTail(BoundedBuffer::Keep::Tail, ContainerLogs::kMaxBytes);
    qsizetype framesBytes = 0;
    auto followed = streamLogs(
        id, logs, false,
        [&](const LogFrame &frame) {
            (frame.stream == LogFrame::Stream::Stderr ? stderrTail : stdoutTail).append(frame.data);
            out.frames.append(frame);
            framesBytes += frame.data.size();
            while (framesBytes > ContainerLogs::kMaxBytes && out.frames.size() > 1) {
                framesBytes -= out.frames.first().data.size();
                out.droppedBytes += out.frames.first().data.size();
                out.frames.removeFirst();
            }
            return true;
        },
        options);
    if (!followed)
        return fail(followed.error());
    out.stdoutData = stdoutTail.data();
    out.stderrData = stderrTail.data();
    return out;
}

Result<void> DockerClient::readLogs(const QString &id, const LogOptions &logs,
                                    const std::function<bool(const LogFrame &)> &sink,
                                    const CallOptions &options) const
{
    return streamLogs(id, logs, false, sink, options);
}

Result<void> DockerClient::followLogs(const QString &id, const LogOptions &logs,
                                      const std::function<bool(const LogFrame &)> &sink,
                                      const CallOptions &options) const
{
    return streamLogs(id, logs, true, sink, options);
}

Result<void> DockerClient::streamLogs(const QString &id, const LogOptions &logs, bool follow,
                                      const std::function<bool(const LogFrame &)> &sink,
                                      const CallOptions &options) const
{
    bool tty = false;
    if (logs.tty) {
        tty = *logs.tty;
    } else {
        auto inspected = inspectContainer(id, options);
        if (!inspected)
            return fail(inspected.error());
        tty = inspected->tty;
    }

    Request request;
    request.path = QStringLiteral("/containers/%1/logs").arg(idPart(id));
    addQuery(request.query, QStringLiteral("stdout"), flag(logs.stdoutStream));
    addQuery(request.query, QStringLiteral("stderr"), flag(logs.stderrStream));
    addQuery(request.query, QStringLiteral("timestamps"), flag(logs.timestamps));
    addQuery(request.query, QStringLiteral("tail"),
             logs.tail.isEmpty() ? QStringLiteral("all") : logs.tail);
    if (logs.since > 0)
        addQuery(request.query, QStringLiteral("since"), QString::number(logs.since));
    if (follow)
        addQuery(request.query, QStringLiteral("follow"), QStringLiteral("1"));

    DockerLogDemuxer demuxer;
    std::optional<Error> streamError;
    request.onData = [&](const QByteArray &chunk) {
        if (tty)
            return sink(LogFrame{LogFrame::Stream::Stdout, chunk});
        auto frames = demuxer.feed(chunk);
        if (!frames) {
            streamError = frames.error();
            return false;
        }
        for (const LogFrame &frame : *frames) {
            if (!sink(frame))
                return false;
        }
        return true;
    };
    auto response = send(request, options);
    if (!response)
        return fail(response.error());
    if (streamError)
        return fail(decodeError(*streamError, request));
    if (!tty && demuxer.insideFrame() && !demuxer.hasFailed())
        return fail(decodeError(Error::make(Error::Kind::Decode, QString(),
                                            QStringLiteral("log stream ends inside a frame")),
                                request));
    return {};
}

Result<void> DockerClient::uploadArchive(const QString &id, const QString &path,
                                         const QByteArray &tar, const CallOptions &options) const
{
    Request request;
    request.method = "PUT";
    request.path = QStringLiteral("/containers/%1/archive").arg(idPart(id));
    addQuery(request.query, QStringLiteral("path"), path);
    request.body = tar;
    request.contentType = "application/x-tar";
    return sendNoContent(request, options);
}

Result<void> DockerClient::uploadFiles(const QString &id, const QString &path,
                                       const TarArchiveBuilder &files,
                                       const CallOptions &options) const
{
    auto tar = files.build();
    if (!tar)
        return fail(tar.error());
    return uploadArchive(id, path, *tar, options);
}

Result<QByteArray> DockerClient::readFile(const QString &id, const QString &path,
                                          const CallOptions &options) const
{
    Request request;
    request.method = "GET";
    request.path = QStringLiteral("/containers/%1/archive").arg(idPart(id));
    addQuery(request.query, QStringLiteral("path"), path);
    request.maxBodyBytes = qint64(1) << 30; // a tar of one file: up to 1 GiB
    auto response = send(request, options);
    if (!response)
        return fail(response.error());
    auto content = TarArchiveReader::firstFile(response->body);
    if (!content)
        return fail(content.error().withContext(
            QStringLiteral("reading %1 of container %2").arg(path, shortId(id))));
    return content;
}

// ---------------------------------------------------------------------------------------------
// Exec

Result<QString> DockerClient::createExec(const QString &containerId, const ExecSpec &spec,
                                         const CallOptions &options) const
{
    Request request;
    request.method = "POST";
    request.path = QStringLiteral("/containers/%1/exec").arg(idPart(containerId));
    request.body = Json::encodeExecSpec(spec);
    auto response = send(request, options);
    if (!response)
        return fail(response.error());
    return decoded(Json::decodeIdResponse(response->body, "exec instance"), request);
}

Result<std::unique_ptr<Http::RawStream>> DockerClient::startExec(const QString &execId, bool tty,
                                                                 const CallOptions &options) const
{
    auto version = apiVersion(options);
    if (!version)
        return fail(version.error());
    Request request;
    request.method = "POST";
    request.path = QStringLiteral("/exec/%1/start").arg(idPart(execId));
    Http::HttpRequest http;
    http.method = request.method;
    http.path = QStringLiteral("/v") + *version + request.path;
    http.body = Json::encodeExecStart(tty);
    http.timeout = options.timeout.count() > 0 ? options.timeout : 30000ms;
    http.cancel = options.cancel;
    auto opened = m_transport->openRaw(http);
    if (!opened)
        return fail(transportError(opened.error()));
    if (!opened->stream)
        return fail(httpError(opened->response, request));
    return std::move(opened->stream);
}

Result<void> DockerClient::resizeExec(const QString &execId, int rows, int cols,
                                      const CallOptions &options) const
{
    Request request;
    request.method = "POST";
    request.path = QStringLiteral("/exec/%1/resize").arg(idPart(execId));
    addQuery(request.query, QStringLiteral("h"), QString::number(rows));
    addQuery(request.query, QStringLiteral("w"), QString::number(cols));
    return sendNoContent(request, options);
}

Result<ExecInfo> DockerClient::inspectExec(const QString &execId, const CallOptions &options) const
{
    Request request;
    request.path = QStringLiteral("/exec/%1/json").arg(idPart(execId));
    auto response = send(request, options);
    if (!response)
        return fail(response.error());
    return decoded(Json::decodeExecInfo(response->body), request);
}

Result<int> DockerClient::waitExecExit(const QString &execId, const CallOptions &options) const
{
    // The stream closes when the process's output does; the daemon records the exit code right
    // after, so a few quick looks suffice.
    const auto deadline = std::chrono::steady_clock::now() + 10s;
    auto delay = 5ms;
    for (;;) {
        auto info = inspectExec(execId, options);
        if (!info)
            return fail(info.error());
        if (info->exitCode)
            return *info->exitCode;
        if (std::chrono::steady_clock::now() >= deadline)
            return fail(
                Error::Kind::Timeout, displayName(),
                QStringLiteral("exec %1 still runs 10 s after its output ended (the process closed "
                               "its output, or the connection to the host dropped)")
                    .arg(shortId(execId)));
        if (options.cancel.isCancelled())
            return fail(Error::Kind::Cancelled, displayName(), QStringLiteral("request cancelled"));
        std::this_thread::sleep_for(delay);
        delay = std::min(delay * 2, std::chrono::milliseconds(200));
    }
}

Result<int> DockerClient::runExec(const QString &containerId, const ExecSpec &spec,
                                  const std::function<bool(const LogFrame &)> &sink,
                                  const CallOptions &options) const
{
    using Clock = std::chrono::steady_clock;
    const auto deadline = Clock::now() + options.timeout;
    ExecSpec plain = spec;
    plain.tty = false;
    plain.attachStdin = false;
    auto id = createExec(containerId, plain, options);
    if (!id)
        return fail(id.error());
    CallOptions startOptions = options;
    if (startOptions.timeout.count() <= 0)
        startOptions.timeout = 30s;
    auto stream = startExec(*id, false, startOptions);
    if (!stream)
        return fail(stream.error());
    DockerLogDemuxer demuxer;
    while (!(*stream)->atEnd()) {
        if (options.cancel.isCancelled())
            return fail(Error::Kind::Cancelled, displayName(), QStringLiteral("request cancelled"));
        if (options.timeout.count() > 0 && Clock::now() >= deadline)
            return fail(Error::Kind::Timeout, displayName(),
                        QStringLiteral("exec in %1 timed out").arg(shortId(containerId)));
        auto chunk = (*stream)->read(100ms);
        if (!chunk)
            return fail(chunk.error());
        if (chunk->isEmpty())
            continue;
        auto frames = demuxer.feed(*chunk);
        if (!frames) {
            Request started;
            started.method = "POST";
            started.path = QStringLiteral("/exec/%1/start").arg(*id);
            return fail(decodeError(frames.error(), started));
        }
        for (const LogFrame &frame : std::as_const(*frames)) {
            if (!sink(frame))
                return fail(Error::Kind::Cancelled, displayName(),
                            QStringLiteral("output refused"));
        }
    }
    CallOptions waitOptions;
    waitOptions.cancel = options.cancel;
    return waitExecExit(*id, waitOptions);
}

// ---------------------------------------------------------------------------------------------
// Stats

Result<void> DockerClient::streamStats(const QString &id, bool stream,
                                       const std::function<bool(const ContainerStats &)> &sink,
                                       const CallOptions &options) const
{
    Request request;
    request.path = QStringLiteral("/containers/%1/stats").arg(idPart(id));
    addQuery(request.query, QStringLiteral("stream"), flag(stream));
    QByteArray buffer;
    std::optional<Error> decodeFailure;
    // One JSON object per line (the daemon's encoder ends each with a newline).
    request.onData = [&](const QByteArray &chunk) {
        buffer += chunk;
        qsizetype start = 0;
        for (qsizetype nl = buffer.indexOf('\n'); nl >= 0; nl = buffer.indexOf('\n', start)) {
            const QByteArray line = buffer.mid(start, nl - start).trimmed();
            start = nl + 1;
            if (line.isEmpty())
                continue;
            auto sample = Json::decodeContainerStats(line);
            if (!sample) {
                decodeFailure = sample.error();
                return false;
            }
            if (!sink(*sample)) {
                buffer.clear();
                return false;
            }
        }
        buffer.remove(0, start);
        if (buffer.size() > kMaxRecordLineBytes) {
            decodeFailure = overlongLine(QStringLiteral("stats"), buffer.size());
            return false;
        }
        return true;
    };
    auto response = send(request, options);
    if (decodeFailure)
        return fail(decodeError(*decodeFailure, request));
    if (!response)
        return fail(response.error());
    if (const QByteArray rest = buffer.trimmed(); !rest.isEmpty()) {
        auto sample = decoded(Json::decodeContainerStats(rest), request);
        if (!sample)
            return fail(sample.error());
        sink(*sample);
    }
    return {};
}

Result<ContainerStats> DockerClient::stats(const QString &id, const CallOptions &options) const
{
    std::optional<ContainerStats> got;
    auto ok = streamStats(
        id, false,
        [&](const ContainerStats &s) {
            got = s;
            return false;
        },
        options);
    if (!ok)
        return fail(ok.error());
    if (!got)
        return fail(Error::Kind::Decode, displayName(),
                    QStringLiteral("no stats sample for %1").arg(shortId(id)));
    return *got;
}

// ---------------------------------------------------------------------------------------------
// Networks

Result<QString> DockerClient::createNetwork(const NetworkSpec &spec,
                                            const CallOptions &options) const
{
    Request request;
    request.method = "POST";
    request.path = QStringLiteral("/networks/create");
    request.body = Json::encodeNetworkSpec(spec);
    auto response = send(request, options);
    if (!response)
        return fail(response.error());
    return decoded(Json::decodeCreatedNetworkId(response->body), request);
}

Result<NetworkInfo> DockerClient::inspectNetwork(const QString &idOrName,
                                                 const CallOptions &options) const
{
    Request request;
    request.path = QStringLiteral("/networks/%1").arg(idPart(idOrName));
    auto response = send(request, options);
    if (!response)
        return fail(response.error());
    return decoded(Json::decodeNetworkInfo(response->body), request);
}

Result<QList<NetworkInfo>> DockerClient::listNetworks(const QStringList &labels,
                                                      const CallOptions &options) const
{
    Request request;
    request.path = QStringLiteral("/networks");
    addFilters(request.query, withLabels({}, labels));
    auto response = send(request, options);
    if (!response)
        return fail(response.error());
    return decoded(Json::decodeNetworkList(response->body), request);
}

Result<void> DockerClient::removeNetwork(const QString &idOrName, const CallOptions &options) const
{
    Request request;
    request.method = "DELETE";
    request.path = QStringLiteral("/networks/%1").arg(idPart(idOrName));
    return sendNoContent(request, options);
}

Result<void> DockerClient::disconnectNetwork(const QString &network, const QString &container,
                                             bool force, const CallOptions &options) const
{
    Request request;
    request.method = "POST";
    request.path = QStringLiteral("/networks/%1/disconnect").arg(idPart(network));
    request.body = Json::encodeNetworkDisconnect(container, force);
    return sendNoContent(request, options);
}

// ---------------------------------------------------------------------------------------------
// Volumes

Result<VolumeInfo> DockerClient::createVolume(const VolumeSpec &spec,
                                              const CallOptions &options) const
{
    Request request;
    request.method = "POST";
    request.path = QStringLiteral("/volumes/create");
    request.body = Json::encodeVolumeSpec(spec);
    auto response = send(request, options);
    if (!response)
        return fail(response.error());
    return decoded(Json::decodeVolumeInfo(response->body), request);
}

Result<VolumeInfo> DockerClient::inspectVolume(const QString &name,
                                               const CallOptions &options) const
{
    Request request;
    request.path = QStringLiteral("/volumes/%1").arg(idPart(name));
    auto response = send(request, options);
    if (!response)
        return fail(response.error());
    return decoded(Json::decodeVolumeInfo(response->body), request);
}

Result<QList<VolumeInfo>> DockerClient::listVolumes(const QStringList &labels,
                                                    const CallOptions &options) const
{
    Request request;
    request.path = QStringLiteral("/volumes");
    addFilters(request.query, withLabels({}, labels));
    auto response = send(request, options);
    if (!response)
        return fail(response.error());
    return decoded(Json::decodeVolumeList(response->body), request);
}

Result<void> DockerClient::removeVolume(const QString &name, bool force,
                                        const CallOptions &options) const
{
    Request request;
    request.method = "DELETE";
    request.path = QStringLiteral("/volumes/%1").arg(idPart(name));
    if (force)
        addQuery(request.query, QStringLiteral("force"), QStringLiteral("1"));
    return sendNoContent(request, options);
}

// ---------------------------------------------------------------------------------------------
// Swarm

Result<SwarmInfo> DockerClient::inspectSwarm(const CallOptions &options) const
{
    Request request;
    request.path = QStringLiteral("/swarm");
    auto response = send(request, options);
    if (!response)
        return fail(response.error());
    return decoded(Json::decodeSwarmInfo(response->body), request);
}

Result<QString> DockerClient::initSwarm(const SwarmInitSpec &spec, const CallOptions &options) const
{
    Request request;
    request.method = "POST";
    request.path = QStringLiteral("/swarm/init");
    request.body = Json::encodeSwarmInit(spec);
    auto response = send(request, options);
    if (!response)
        return fail(response.error());
    return decoded(Json::decodeSwarmInitNodeId(response->body), request);
}

Result<void> DockerClient::joinSwarm(const SwarmJoinSpec &spec, const CallOptions &options) const
{
    Request request;
    request.method = "POST";
    request.path = QStringLiteral("/swarm/join");
    request.body = Json::encodeSwarmJoin(spec);
    return sendNoContent(request, options);
}

Result<void> DockerClient::leaveSwarm(bool force, const CallOptions &options) const
{
    Request request;
    request.method = "POST";
    request.path = QStringLiteral("/swarm/leave");
    if (force)
        addQuery(request.query, QStringLiteral("force"), QStringLiteral("1"));
    return sendNoContent(request, options);
}

Result<SwarmJoinTokens> DockerClient::joinTokens(const CallOptions &options) const
{
    auto swarm = inspectSwarm(options);
    if (!swarm)
        return fail(swarm.error());
    return swarm->joinTokens;
}

Result<QList<NodeInfo>> DockerClient::listNodes(const CallOptions &options) const
{
    Request request;
    request.path = QStringLiteral("/nodes");
    auto response = send(request, options);
    if (!response)
        return fail(response.error());
    return decoded(Json::decodeNodeList(response->body), request);
}

// ---------------------------------------------------------------------------------------------
// Events

Result<void> DockerClient::streamEvents(const EventFilter &filter, std::optional<qint64> sinceNano,
                                        std::optional<qint64> untilNano, const EventSink &sink,
                                        const CallOptions &options) const
{
    Request request;
    request.path = QStringLiteral("/events");
    if (sinceNano)
        addQuery(request.query, QStringLiteral("since"), formatEventTime(*sinceNano));
    if (untilNano)
        addQuery(request.query, QStringLiteral("until"), formatEventTime(*untilNano));
    QMap<QString, QStringList> filters = withLabels(filter.filters, filter.labels);
    if (!filter.types.isEmpty())
        filters[QStringLiteral("type")] += filter.types;
    if (!filter.events.isEmpty())
        filters[QStringLiteral("event")] += filter.events;
    addFilters(request.query, filters);

    // One JSON object per line; a line may be split across chunks.
    QByteArray pending;
    std::optional<Error> overlong;
    request.onData = [&](const QByteArray &chunk) {
        pending += chunk;
        qsizetype start = 0;
        for (qsizetype nl = pending.indexOf('\n'); nl >= 0; nl = pending.indexOf('\n', start)) {
            const QByteArray line = pending.mid(start, nl - start).trimmed();
            start = nl + 1;
            if (line.isEmpty())
                continue;
            auto event = Json::decodeEvent(line);
            if (!event) {
                // One odd line must not end the stream: report it and go on.
                qCWarning(lcDocker).noquote()
                    << displayName() << "skipping undecodable event:" << event.error().message;
                continue;
            }
            if (!sink(*event)) {
                pending.clear();
                return false;
            }
        }
        pending.remove(0, start);
        if (pending.size() > kMaxRecordLineBytes) {
            overlong = overlongLine(QStringLiteral("events"), pending.size());
            return false;
        }
        return true;
    };
    auto sent = sendNoContent(request, options);
    if (overlong)
        return fail(decodeError(*overlong, request));
    return sent;
}

} // namespace ClusterDeck::Docker
