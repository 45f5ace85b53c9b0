#include "hostregistry.h"

#include "common/logging.h"
#include "docker/dockerclient.h"
#include "docker/dockerendpoint.h"
#include "store/statestore.h"

#include <QDateTime>
#include <QFile>
#include <QFileInfo>
#include <QRegularExpression>
#include <QSet>

namespace ClusterDeck {

namespace {

constexpr int kMaxNameLength = 63; // a DNS label: names show up in hostnames and labels

std::unexpected<Error> invalid(const QString &where, const QString &message)
{
    return fail(Error::Kind::Invalid, where, message);
}

QString hostWhere(const QString &name)
{
    return QStringLiteral("host %1").arg(name);
}

// A TLS file must exist and be readable by us now, not at the first call minutes later.
Result<QString> checkTlsFile(const QString &where, const QString &what, const QString &path)
{
    if (path.isEmpty())
        return QString();
    const QFileInfo info(path);
    if (!info.exists())
        return invalid(where, QStringLiteral("%1 file %2 does not exist").arg(what, path));
    if (!info.isFile())
        return invalid(where, QStringLiteral("%1 file %2 is not a file").arg(what, path));
    QFile file(info.absoluteFilePath());
    if (!file.open(QIODevice::ReadOnly))
        return invalid(
            where,
            QStringLiteral("%1 file %2 is not readable: %3").arg(what, path, file.errorString()));
    return info.absoluteFilePath();
}

} // namespace

HostRegistry::HostRegistry(StateStore *store)
    : m_store(store)
{}

HostRegistry::~HostRegistry() = default;

Result<void> HostRegistry::validateName(const QString &name)
{
    static const QRegularExpression pattern(QStringLiteral("^[a-z0-9][a-z0-9-]*$"));
    const QString where = QStringLiteral("host name \"%1\"").arg(name);
    if (name.isEmpty())
        return invalid(where, QStringLiteral("a host needs a name"));
    if (name.size() > kMaxNameLength)
        return invalid(where, QStringLiteral("longer than %1 characters").arg(kMaxNameLength));
    if (!pattern.match(name).hasMatch())
        return invalid(where, QStringLiteral("use lower-case letters, digits and '-', starting "
                                             "with a letter or digit"));
    return {};
}

Result<QPair<QString, QString>> HostRegistry::parseLabel(const QString &text)
{
    const QString where = QStringLiteral("label \"%1\"").arg(text);
    const qsizetype eq = text.indexOf(QLatin1Char('='));
    if (eq < 0)
        return invalid(where, QStringLiteral("expected KEY=VALUE"));
    const QString key = text.left(eq);
    if (key.isEmpty())
        return invalid(where, QStringLiteral("the key is empty"));
    for (const QChar c : key) {
        if (c.isSpace())
            return invalid(where, QStringLiteral("the key contains whitespace"));
    }
    return qMakePair(key, text.mid(eq + 1));
}

Result<Docker::DockerEndpoint> HostRegistry::endpointFor(const HostRecord &host)
{
    const QString where = hostWhere(host.name);
    Docker::TlsFiles tls;
    auto ca = checkTlsFile(where, QStringLiteral("TLS CA"), host.tlsCa);
    if (!ca)
        return fail(ca.error());
    auto cert = checkTlsFile(where, QStringLiteral("TLS certificate"), host.tlsCert);
    if (!cert)
        return fail(cert.error());
    auto key = checkTlsFile(where, QStringLiteral("TLS key"), host.tlsKey);
    if (!key)
        return fail(key.error());
    tls.caFile = *ca;
    tls.certFile = *cert;
    tls.keyFile = *key;

    auto endpoint = Docker::DockerEndpoint::parse(host.endpoint, tls);
    if (!endpoint) {
        Error e = endpoint.error();
        e.where = where + QStringLiteral(" ") + e.where;
        return fail(e);
    }
    const bool hasTls = !tls.caFile.isEmpty() || !tls.certFile.isEmpty() || !tls.keyFile.isEmpty();
    if (hasTls && endpoint->kind() != Docker::DockerEndpoint::Kind::TcpTls)
        return invalid(
            where,
            QStringLiteral("TLS files need a tcp+tls:// endpoint, not %1").arg(endpoint->url()));
    return endpoint;
}

Result<HostRecord> HostRegistry::validate(const HostRecord &host)
{
    if (auto ok = validateName(host.name); !ok)
        return fail(ok.error());
    auto endpoint = endpointFor(host);
    if (!endpoint)
        return fail(endpoint.error());
    for (auto it = host.labels.cbegin(); it != host.labels.cend(); ++it) {
        if (auto label = parseLabel(it.key() + QLatin1Char('=') + it.value()); !label)
            return fail(label.error());
    }
    const QString address = host.publicAddress.trimmed();
    if (address.contains(QLatin1Char('/')) || address.contains(QLatin1Char(' ')))
        return invalid(hostWhere(host.name),
                       QStringLiteral("the public address \"%1\" should be a host name or IP "
                                      "address, not a URL")
                           .arg(host.publicAddress));

    HostRecord normalised = host;
    normalised.endpoint = endpoint->url();
    normalised.tlsCa = endpoint->tls().caFile;
    normalised.tlsCert = endpoint->tls().certFile;
    normalised.tlsKey = endpoint->tls().keyFile;
    normalised.publicAddress = address;
    return normalised;
}

Result<HostRecord> HostRegistry::add(const HostRecord &input, const AddOptions &options)
{
    auto host = validate(input);
    if (!host)
        return fail(host.error());
    const QString where = hostWhere(host->name);

    auto existing = m_store->hosts();
    if (!existing)
        return fail(existing.error().withContext(QStringLiteral("reading the host registry")));
    for (const HostRecord &other : *existing) {
        if (other.name == host->name)
            return fail(Error::Kind::Conflict, where,
                        QStringLiteral("a host of this name is registered already (%1); remove "
                                       "it first")
                            .arg(other.endpoint));
        // Two names for one daemon would count its capacity twice.
        auto otherEndpoint = Docker::DockerEndpoint::parse(other.endpoint);
        if (otherEndpoint && otherEndpoint->url() == host->endpoint)
            return fail(Error::Kind::Conflict, where,
                        QStringLiteral("%1 is registered already as host %2")
                            .arg(host->endpoint, other.name));
    }

    if (options.testConnection) {
        auto endpoint = endpointFor(*host);
        if (!endpoint)
            return fail(endpoint.error());
        std::shared_ptr<Docker::DockerHost> probe;
        if (m_hostFactory) {
            auto made = m_hostFactory(*host);
            if (!made)
                return fail(made.error());
            probe = std::move(*made);
        } else {
            probe = std::make_shared<Docker::DockerClient>(*endpoint, host->name);
        }
        Docker::CallOptions call;
        call.timeout = options.timeout;
        if (auto ping = probe->ping(call); !ping)
            return fail(ping.error().withContext(QStringLiteral("cannot reach the daemon")));
    }

    if (!host->addedAt.isValid())
        host->addedAt = QDateTime::currentDateTimeUtc();
    if (auto put = m_store->putHost(*host); !put)
        return fail(put.error().withContext(QStringLiteral("registering host %1").arg(host->name)));
    {
        const std::lock_guard lock(m_clientsMutex);
        m_clients.remove(host->name);
    }
    qCDebug(lcHost) << "registered host" << host->name << host->endpoint;
    return host;
}

Result<QStringList> HostRegistry::sessionsOnHost(const QString &name) const
{
    auto kernels = m_store->allKernels();
    if (!kernels)
        return fail(kernels.error());
    QStringList sessionIds;
    for (const KernelRecord &kernel : *kernels) {
        if (kernel.host == name && kernel.desired == DesiredState::Running &&
            !sessionIds.contains(kernel.sessionId))
            sessionIds.append(kernel.sessionId);
    }
    QStringList names;
    for (const QString &id : std::as_const(sessionIds)) {
        auto session = m_store->session(id);
        names.append(session && !session->name.isEmpty() ? session->name : id);
    }
    names.sort();
    return names;
}

Result<void> HostRegistry::remove(const QString &name)
{
    auto host = m_store->host(name);
    if (!host)
        return fail(host.error());
    auto sessions = sessionsOnHost(name);
    if (!sessions)
        return fail(
            sessions.error().withContext(QStringLiteral("checking kernels on host %1").arg(name)));
    if (!sessions->isEmpty())
        return fail(
            Error::Kind::Conflict, hostWhere(name),
            QStringLiteral("still runs kernels of %1 %2; terminate %3 first")
                .arg(sessions->size() == 1 ? QStringLiteral("session") : QStringLiteral("sessions"),
                     sessions->join(QStringLiteral(", ")),
                     sessions->size() == 1 ? QStringLiteral("it") : QStringLiteral("them")));
    // A session being terminated may still have objects here (the host did not answer): the
    // controller removes them once it does, and can only if the host is still registered.
    auto kernels = m_store->allKernels();
    if (!kernels)
        return fail(
            kernels.error().withContext(QStringLiteral("checking kernels on host %1").arg(name)));
    QStringList terminating;
    for (const KernelRecord &k : std::as_const(*kernels)) {
        if (k.host != name || isFinal(k.status))
            continue;
        auto session = m_store->session(k.sessionId);
        const QString label = session && !session->name.isEmpty() ? session->name : k.sessionId;
        if (!terminating.contains(label))
            terminating.append(label);
    }
    terminating.sort();
    if (!terminating.isEmpty())
        return fail(Error::Kind::Conflict, hostWhere(name),
                    QStringLiteral("kernels of %1 on host %2 are not removed yet (TERMINATING "
                                   "until the host answers and the controller removes them); "
                                   "run `clusterdeckctl reconcile` once it answers, then remove it")
                        .arg(terminating.join(QStringLiteral(", ")), name));
    if (auto removed = m_store->removeHost(name); !removed)
        return fail(removed.error());
    {
        const std::lock_guard lock(m_clientsMutex);
        m_clients.remove(name);
    }
    qCDebug(lcHost) << "removed host" << name;
    return {};
}

Result<QList<HostRecord>> HostRegistry::list() const
{
    auto hosts = m_store->hosts();
    if (!hosts)
        return fail(hosts.error());
    std::sort(hosts->begin(), hosts->end(),
              [](const HostRecord &a, const HostRecord &b) { return a.name < b.name; });
    return hosts;
}

Result<HostRecord> HostRegistry::inspect(const QString &name) const
{
    return m_store->host(name);
}

Result<std::shared_ptr<Docker::DockerHost>> HostRegistry::dockerHost(const QString &name)
{
    if (!m_hostFactory) {
        auto made = client(name);
        if (!made)
            return fail(made.error());
        return std::shared_ptr<Docker::DockerHost>(std::move(*made));
    }
    auto host = m_store->host(name);
    if (!host)
        return fail(host.error());
    return m_hostFactory(*host);
}

Result<std::shared_ptr<Docker::DockerHost>> HostRegistry::dockerHost(const HostRecord &host)
{
    if (m_hostFactory)
        return m_hostFactory(host);
    auto made = client(host);
    if (!made)
        return fail(made.error());
    return std::shared_ptr<Docker::DockerHost>(std::move(*made));
}

Result<std::shared_ptr<Docker::DockerClient>> HostRegistry::client(const QString &name)
{
    if (m_hostFactory)
        return fail(Error::Kind::Invalid, hostWhere(name),
                    QStringLiteral("the host is simulated (a host factory is installed): it has "
                                   "no Engine API client"));
    {
        const std::lock_guard lock(m_clientsMutex);
        if (auto it = m_clients.constFind(name); it != m_clients.cend())
            return it->client;
    }
    auto host = m_store->host(name);
    if (!host)
        return fail(host.error());
    return client(*host);
}

Result<std::shared_ptr<Docker::DockerClient>> HostRegistry::client(const HostRecord &host)
{
    if (m_hostFactory)
        return fail(Error::Kind::Invalid, hostWhere(host.name),
                    QStringLiteral("the host is simulated (a host factory is installed): it has "
                                   "no Engine API client"));
    const std::lock_guard lock(m_clientsMutex);
    // A record that changed (re-added with another endpoint) gets a fresh client.
    if (auto it = m_clients.constFind(host.name);
        it != m_clients.cend() && it->record.endpoint == host.endpoint &&
        it->record.tlsCa == host.tlsCa && it->record.tlsCert == host.tlsCert &&
        it->record.tlsKey == host.tlsKey)
        return it->client;
    auto endpoint = endpointFor(host);
    if (!endpoint)
        return fail(endpoint.error());
    auto made = std::make_shared<Docker::DockerClient>(*endpoint, host.name);
    m_clients.insert(host.name, CachedClient{host, made});
    return made;
}

} // namespace ClusterDeck
