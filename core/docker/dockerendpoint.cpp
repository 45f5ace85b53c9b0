#include "dockerendpoint.h"

#include <QDir>
#include <QUrl>

namespace ClusterDeck::Docker {

namespace {

constexpr int kDefaultTcpPort = 2375;
constexpr int kDefaultTlsPort = 2376;
// The daemon's socket where Docker puts it, locally and on an ssh:// host.
const QLatin1String kDefaultSocket("/var/run/docker.sock");

// A host as a URL writes it: an IPv6 literal in brackets.
QString urlHost(const QString &host)
{
    return host.contains(QLatin1Char(':')) ? u'[' + host + u']' : host;
}

std::unexpected<Error> invalid(const QString &url, const QString &message)
{
    return fail(Error::Kind::Invalid, QStringLiteral("docker endpoint \"%1\"").arg(url), message);
}

} // namespace

Result<DockerEndpoint> DockerEndpoint::parse(const QString &input, const TlsFiles &tls)
{
    const QString url = input.trimmed();
    if (url.isEmpty())
        return invalid(url, QStringLiteral("empty endpoint"));

    const qsizetype schemeEnd = url.indexOf(QStringLiteral("://"));
    if (schemeEnd <= 0) {
        if (url.startsWith(QLatin1Char('/'))) // a bare socket path, as some tools print it
            return parse(QStringLiteral("unix://") + url, tls);
        return invalid(url, QStringLiteral("expected unix:///path, tcp://host:port, "
                                           "tcp+tls://host:port or ssh://[user@]host[:port]"));
    }
    const QString scheme = url.left(schemeEnd).toLower();
    const QString rest = url.mid(schemeEnd + 3);

    DockerEndpoint endpoint;
    if (scheme == QLatin1String("unix")) {
        if (!rest.startsWith(QLatin1Char('/')))
            return invalid(url, QStringLiteral("a unix socket path must be absolute"));
        endpoint.m_kind = Kind::Unix;
        endpoint.m_socketPath = QDir::cleanPath(rest);
        return endpoint;
    }

    if (scheme == QLatin1String("ssh")) {
        const QUrl parsed(url, QUrl::StrictMode);
        if (!parsed.isValid() || parsed.host().isEmpty())
            return invalid(url, QStringLiteral("cannot read [user@]host[:port]"));
        if (!parsed.password().isEmpty())
            return invalid(url, QStringLiteral("no password in the URL: ssh uses your keys, "
                                               "agent and ~/.ssh/config"));
        if (parsed.hasQuery() || parsed.hasFragment())
            return invalid(url, QStringLiteral("unexpected query or fragment"));
        const QString path = parsed.path();
        if (!path.isEmpty() && path != QLatin1String("/") && !path.startsWith(u'/'))
            return invalid(url, QStringLiteral("the socket path must be absolute"));
        endpoint.m_kind = Kind::Ssh;
        endpoint.m_host = parsed.host();
        endpoint.m_user = parsed.userName();
        endpoint.m_port = parsed.port(0);
        if (endpoint.m_port < 0 || endpoint.m_port > 65535)
            return invalid(url, QStringLiteral("invalid port"));
        endpoint.m_socketPath = path.isEmpty() || path == QLatin1String("/")
                                    ? QString(kDefaultSocket)
                                    : QDir::cleanPath(path);
        return endpoint;
    }

    bool wantsTls = false;
    if (scheme == QLatin1String("tcp") || scheme == QLatin1String("http")) {
        wantsTls = !tls.caFile.isEmpty() || !tls.certFile.isEmpty();
    } else if (scheme == QLatin1String("tcp+tls") || scheme == QLatin1String("https")) {
        wantsTls = true;
    } else {
        return invalid(url,
                       QStringLiteral("unsupported scheme \"%1\" (use unix, tcp, tcp+tls or ssh)")
                           .arg(scheme));
    }

    // QUrl handles bracketed IPv6 literals and ports for us.
    const QUrl parsed(QStringLiteral("tcp://") + rest, QUrl::StrictMode);
    if (!parsed.isValid() || parsed.host().isEmpty())
        return invalid(url, QStringLiteral("cannot read host and port"));
    const QString path = parsed.path();
    if (!path.isEmpty() && path != QLatin1String("/"))
        return invalid(url, QStringLiteral("unexpected path \"%1\"").arg(path));
    if (parsed.hasQuery() || parsed.hasFragment() || !parsed.userInfo().isEmpty())
        return invalid(url, QStringLiteral("unexpected query, fragment or user"));

    endpoint.m_kind = wantsTls ? Kind::TcpTls : Kind::Tcp;
    endpoint.m_host = parsed.host();
    endpoint.m_port = parsed.port(wantsTls ? kDefaultTlsPort : kDefaultTcpPort);
    if (endpoint.m_port <= 0 || endpoint.m_port > 65535)
        return invalid(url, QStringLiteral("invalid port"));
    if (wantsTls) {
        if (tls.certFile.isEmpty() != tls.keyFile.isEmpty())
            return invalid(url,
                           QStringLiteral("a client certificate needs its key and vice versa"));
        endpoint.m_tls = tls;
    }
    return endpoint;
}

Result<DockerEndpoint> DockerEndpoint::fromEnvironment(const QProcessEnvironment &env)
{
    QString host = env.value(QStringLiteral("DOCKER_HOST"));
    if (host.isEmpty())
        host = QStringLiteral("unix://") + kDefaultSocket;

    TlsFiles tls;
    const bool verify = !env.value(QStringLiteral("DOCKER_TLS_VERIFY")).isEmpty();
    if (verify) {
        QString certPath = env.value(QStringLiteral("DOCKER_CERT_PATH"));
        if (certPath.isEmpty()) {
            const QString home = env.value(QStringLiteral("HOME"), QDir::homePath());
            certPath = home + QStringLiteral("/.docker");
        }
        const QDir dir(certPath);
        tls.caFile = dir.filePath(QStringLiteral("ca.pem"));
        tls.certFile = dir.filePath(QStringLiteral("cert.pem"));
        tls.keyFile = dir.filePath(QStringLiteral("key.pem"));
    }

    auto endpoint = parse(host, tls);
    if (!endpoint)
        return fail(endpoint.error().withContext(QStringLiteral("from DOCKER_HOST")));
    if (verify && endpoint->kind() == Kind::Tcp) // e.g. http:// with DOCKER_TLS_VERIFY
        endpoint->m_kind = Kind::TcpTls;
    return endpoint;
}

QString DockerEndpoint::url() const
{
    switch (m_kind) {
    case Kind::Unix:
        return QStringLiteral("unix://") + m_socketPath;
    case Kind::Ssh: {
        QString u = QStringLiteral("ssh://");
        if (!m_user.isEmpty())
            u += m_user + u'@';
        u += urlHost(m_host);
        if (m_port > 0)
            u += u':' + QString::number(m_port);
        if (m_socketPath != kDefaultSocket)
            u += m_socketPath;
        return u;
    }
    case Kind::Tcp:
    case Kind::TcpTls:
        return (m_kind == Kind::Tcp ? QStringLiteral("tcp://") : QStringLiteral("tcp+tls://")) +
               urlHost(m_host) + u':' + QString::number(m_port);
    }
    return {};
}

Http::SshTarget DockerEndpoint::sshTarget() const
{
    return {m_user, m_host, m_port, m_socketPath};
}

QString DockerEndpoint::displayName(const QString &hostName) const
{
    if (hostName.isEmpty())
        return QStringLiteral("docker (%1)").arg(url());
    return QStringLiteral("host %1 (%2)").arg(hostName, url());
}

Http::TransportConfig DockerEndpoint::transportConfig(const QString &hostName) const
{
    Http::TransportConfig config;
    config.displayName = displayName(hostName);
    const QString host = urlHost(m_host);
    switch (m_kind) {
    case Kind::Unix:
        config.baseUrl = QStringLiteral("http://localhost");
        config.unixSocketPath = m_socketPath;
        break;
    case Kind::Ssh:
        config.baseUrl = QStringLiteral("http://localhost");
        config.tunnel = Http::SshTunnel::shared(sshTarget(), config.displayName);
        break;
    case Kind::Tcp:
        config.baseUrl = QStringLiteral("http://%1:%2").arg(host).arg(m_port);
        break;
    case Kind::TcpTls:
        config.baseUrl = QStringLiteral("https://%1:%2").arg(host).arg(m_port);
        config.caFile = m_tls.caFile;
        config.certFile = m_tls.certFile;
        config.keyFile = m_tls.keyFile;
        config.verifyPeer = true;
        break;
    }
    return config;
}

} // namespace ClusterDeck::Docker
