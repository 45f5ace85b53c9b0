#pragma once

#include "common/error.h"
#include "http/httptypes.h"
#include "http/sshtunnel.h"

#include <QProcessEnvironment>
#include <QString>

namespace ClusterDeck::Docker {

// Client certificate files of a TLS endpoint (PEM).
struct TlsFiles
{
    QString caFile;
    QString certFile;
    QString keyFile;
};

// Where a Docker daemon listens: `unix:///run/docker.sock`, `tcp://host:2375`,
// `tcp+tls://host:2376` with CA, client certificate and key (peer verification always on), or
// `ssh://[user@]host[:port]` — the daemon's socket on that host, reached over the admin's own
// OpenSSH (config, agent, keys, known_hosts). An ssh:// URL may name the socket as its path
// (`ssh://admin@gpu3/run/user/1000/docker.sock`, rootless Docker); /var/run/docker.sock otherwise.
class DockerEndpoint
{
public:
    enum class Kind { Unix, Tcp, TcpTls, Ssh };

    DockerEndpoint() = default;

    // Parses an endpoint URL. `https://` is accepted as a synonym of `tcp+tls://`; a `tcp://`
    // URL becomes TLS when `tls` names a CA or client certificate. A missing port defaults to
    // 2375 (tcp) or 2376 (tls).
    static Result<DockerEndpoint> parse(const QString &url, const TlsFiles &tls = {});

    // Follows the Docker CLI conventions: DOCKER_HOST (default unix:///var/run/docker.sock),
    // DOCKER_TLS_VERIFY (non-empty: TLS with verification) and DOCKER_CERT_PATH (ca.pem,
    // cert.pem, key.pem; default ~/.docker).
    static Result<DockerEndpoint>
    fromEnvironment(const QProcessEnvironment &env = QProcessEnvironment::systemEnvironment());

    Kind kind() const { return m_kind; }
    // Unix: the socket; Ssh: the daemon's socket on the remote host.
    QString socketPath() const { return m_socketPath; }
    QString user() const { return m_user; } // Ssh: empty for ssh's own choice
    // Ssh: where the tunnel leads (the host, its SSH user and port, the daemon's socket there).
    Http::SshTarget sshTarget() const;
    QString host() const { return m_host; }
    int port() const { return m_port; }
    TlsFiles tls() const { return m_tls; }
    bool isValid() const
    {
        return m_kind == Kind::Unix ? !m_socketPath.isEmpty() : !m_host.isEmpty();
    }

    // The canonical URL: "unix:///run/docker.sock", "tcp+tls://192.168.213.11:2376".
    QString url() const;
    // How errors name this endpoint: "host h1 (tcp+tls://…)" or "docker (unix:///…)".
    QString displayName(const QString &hostName = {}) const;
    Http::TransportConfig transportConfig(const QString &hostName = {}) const;

private:
    Kind m_kind = Kind::Unix;
    QString m_socketPath;
    QString m_host;
    int m_port = 0; // Ssh: 0 for ssh's own choice (config, else 22)
    QString m_user;
    TlsFiles m_tls;
};

} // namespace ClusterDeck::Docker
