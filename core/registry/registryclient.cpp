#include "registryclient.h"

#include "common/credentialpolicy.h"

#include "dockerconfig.h"
#include "http/httptransport.h"
#include "imagereference.h"

#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>
#include <QUrl>
#include <QUrlQuery>

namespace ClusterDeck::Registry {

namespace {

Http::TransportConfig configFor(const QString &domain, const QString &certsDirectory)
{
    Http::TransportConfig c;
    c.baseUrl = QStringLiteral("https://") + domain;
    const QString ca = certsDirectory + QLatin1Char('/') + domain + QStringLiteral("/ca.crt");
    if (QFileInfo::exists(ca))
        c.caFile = ca;
    c.displayName = QStringLiteral("registry %1").arg(domain);
    return c;
}

// `Bearer realm="https://auth/token",service="registry",scope="repository:a/b:pull"`
QMap<QString, QString> challengeParams(const QByteArray &header)
{
    QMap<QString, QString> params;
    static const QRegularExpression re(QStringLiteral("(\\w+)=\"([^\"]*)\""));
    auto it = re.globalMatch(QString::fromUtf8(header));
    while (it.hasNext()) {
        const auto m = it.next();
        params.insert(m.captured(1).toLower(), m.captured(2));
    }
    return params;
}

QStringList strings(const QJsonValue &v)
{
    QStringList out;
    for (const QJsonValue &s : v.toArray())
        out.append(s.toString());
    return out;
}

} // namespace

RegistryClient::RegistryClient(QString domain, std::optional<RegistryCredentials> credentials,
                               QString certsDirectory)
    : m_domain(std::move(domain))
    , m_credentials(std::move(credentials))
    , m_transport(std::make_unique<Http::HttpTransport>(configFor(m_domain, certsDirectory)))
{}

RegistryClient::~RegistryClient() = default;

Result<QByteArray> RegistryClient::bearerToken(const QByteArray &challenge) const
{
    const auto params = challengeParams(challenge);
    const QUrl realm(params.value(QStringLiteral("realm")));
    if (!realm.isValid() || realm.host().isEmpty())
        return fail(Error::Kind::Invalid, m_transport->displayName(),
                    QStringLiteral("the registry asks for a token but names no realm"));
    if (m_credentials && !m_credentials->username.isEmpty() &&
        realm.scheme() != QLatin1String("https") && !CredentialPolicy::plaintextAllowed())
        return fail(Error::Kind::Invalid, m_transport->displayName(),
                    CredentialPolicy::refusal(
                        QStringLiteral("the token service %1").arg(realm.toString())));
    QUrlQuery query;
    if (params.contains(QStringLiteral("service")))
        query.addQueryItem(QStringLiteral("service"), params.value(QStringLiteral("service")));
    if (params.contains(QStringLiteral("scope")))
        query.addQueryItem(QStringLiteral("scope"), params.value(QStringLiteral("scope")));
    Http::TransportConfig config = m_transport->config();
    config.baseUrl = realm.scheme() + QStringLiteral("://") + realm.authority();
    Http::HttpTransport tokens(config);
    Http::HttpRequest request;
    request.path = realm.path();
    request.query = query;
    request.timeout = m_timeout;
    if (m_credentials && !m_credentials->username.isEmpty())
        request.headers.append(
            {"Authorization", QByteArray("Basic " + m_credentials->basicAuth())});
    auto response = tokens.perform(request);
    if (!response)
        return fail(response.error());
    if (!response->isSuccess())
        return fail(Error::Kind::Http, m_transport->displayName(),
                    QStringLiteral("token request refused (HTTP %1)").arg(response->status),
                    response->status);
    const QJsonObject o = QJsonDocument::fromJson(response->body).object();
    QString token = o.value(QLatin1String("token")).toString();
    if (token.isEmpty())
        token = o.value(QLatin1String("access_token")).toString();
    return QByteArray(QByteArray("Bearer ") + token.toUtf8());
}

Result<Http::HttpResponse> RegistryClient::get(const QString &path, const QByteArray &accept) const
{
    auto once = [&](const QByteArray &authorization) {
        Http::HttpRequest request;
        request.path = path;
        request.timeout = m_timeout;
        if (!accept.isEmpty())
            request.headers.append({"Accept", accept});
        if (!authorization.isEmpty())
            request.headers.append({"Authorization", authorization});
        return m_transport->perform(request);
    };
    QByteArray authorization = m_authorization;
    if (authorization.isEmpty() && m_credentials && !m_credentials->username.isEmpty())
        authorization = QByteArray("Basic " + m_credentials->basicAuth());
    auto response = once(authorization);
    if (response && response->status == 401) {
        const QByteArray challenge = response->header("WWW-Authenticate");
        if (challenge.startsWith("Bearer")) {
            auto token = bearerToken(challenge);
            if (!token)
                return fail(token.error());
            authorization = *token;
            response = once(authorization);
        }
    }
    if (!response)
        return fail(response.error());
    if (!response->isSuccess()) {
        const QJsonArray errors = QJsonDocument::fromJson(response->body)
                                      .object()
                                      .value(QLatin1String("errors"))
                                      .toArray();
        QString message =
            errors.isEmpty() ? QStringLiteral("HTTP %1").arg(response->status)
                             : errors.first().toObject().value(QLatin1String("message")).toString();
        return fail(response->status == 404 ? Error::Kind::NotFound : Error::Kind::Http,
                    m_transport->displayName(),
                    QStringLiteral("GET %1: %2 (HTTP %3)").arg(path, message).arg(response->status),
                    response->status);
    }
    m_authorization = authorization;
    return response;
}

Result<QStringList> RegistryClient::tags(const QString &repository) const
{
    auto response = get(QStringLiteral("/v2/%1/tags/list").arg(repository));
    if (!response)
        return fail(response.error());
    QStringList tags =
        strings(QJsonDocument::fromJson(response->body).object().value(QLatin1String("tags")));
    tags.sort();
    return tags;
}

Result<QStringList> RegistryClient::tagReferences(const QString &image)
{
    auto ref = ImageReference::parse(image);
    if (!ref)
        return fail(ref.error());
    if (ref->isDockerHub())
        return QStringList();
    auto config = DockerConfig::load();
    std::optional<RegistryCredentials> credentials;
    if (config) {
        auto found = config->credentials(ref->authKey());
        if (found && *found)
            credentials = **found;
    }
    RegistryClient client(ref->domain, credentials);
    client.setTimeout(std::chrono::seconds(10));
    auto tags = client.tags(ref->repository);
    if (!tags)
        return fail(tags.error());
    QStringList out;
    for (const QString &t : std::as_const(*tags))
        out.append(ref->name() + QLatin1Char(':') + t);
    return out;
}

Result<ImageDefaults> RegistryClient::imageDefaults(const QString &repository,
                                                    const QString &reference) const
{
    const QByteArray accept = "application/vnd.docker.distribution.manifest.v2+json, "
                              "application/vnd.oci.image.manifest.v1+json, "
                              "application/vnd.docker.distribution.manifest.list.v2+json, "
                              "application/vnd.oci.image.index.v1+json";
    auto manifest = get(QStringLiteral("/v2/%1/manifests/%2").arg(repository, reference), accept);
    if (!manifest)
        return fail(manifest.error());
    QJsonObject m = QJsonDocument::fromJson(manifest->body).object();
    if (m.contains(QLatin1String("manifests"))) {
        // A multi-platform image: the linux/amd64 one (these hosts), else the first.
        QString digest;
        for (const QJsonValue &v : m.value(QLatin1String("manifests")).toArray()) {
            const QJsonObject p = v.toObject().value(QLatin1String("platform")).toObject();
            if (digest.isEmpty() ||
                (p.value(QLatin1String("os")).toString() == QLatin1String("linux") &&
                 p.value(QLatin1String("architecture")).toString() == QLatin1String("amd64")))
                digest = v.toObject().value(QLatin1String("digest")).toString();
        }
        auto one = get(QStringLiteral("/v2/%1/manifests/%2").arg(repository, digest), accept);
        if (!one)
            return fail(one.error());
        m = QJsonDocument::fromJson(one->body).object();
    }
    const QString configDigest =
        m.value(QLatin1String("config")).toObject().value(QLatin1String("digest")).toString();
    if (configDigest.isEmpty())
        return fail(
            Error::Kind::Decode, m_transport->displayName(),
            QStringLiteral("the manifest of %1:%2 names no config").arg(repository, reference));
    auto blob = get(QStringLiteral("/v2/%1/blobs/%2").arg(repository, configDigest));
    if (!blob)
        return fail(blob.error());
    const QJsonObject config =
        QJsonDocument::fromJson(blob->body).object().value(QLatin1String("config")).toObject();
    ImageDefaults d;
    for (const QString &kv : strings(config.value(QLatin1String("Env")))) {
        const qsizetype eq = kv.indexOf(QLatin1Char('='));
        if (eq > 0)
            d.env.insert(kv.left(eq), kv.mid(eq + 1));
    }
    const QJsonObject labels = config.value(QLatin1String("Labels")).toObject();
    for (auto it = labels.constBegin(); it != labels.constEnd(); ++it)
        d.labels.insert(it.key(), it.value().toString());
    d.entrypoint = strings(config.value(QLatin1String("Entrypoint")));
    d.command = strings(config.value(QLatin1String("Cmd")));
    d.workingDir = config.value(QLatin1String("WorkingDir")).toString();
    d.user = config.value(QLatin1String("User")).toString();
    return d;
}

} // namespace ClusterDeck::Registry
