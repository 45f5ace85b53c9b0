#pragma once

#include "common/error.h"
#include "store/records.h"

#include <QHash>
#include <QList>
#include <QString>

#include <chrono>
#include <functional>
#include <memory>
#include <mutex>

namespace ClusterDeck {

class StateStore;

namespace Docker {
class DockerClient;
class DockerEndpoint;
class DockerHost;
} // namespace Docker

// The registered Docker hosts, kept in a StateStore: validates what is added, refuses to remove a
// host that still carries running kernels, and hands out one DockerClient per host (cached, so
// the API version is negotiated once). Safe to use from several threads once built.
class HostRegistry
{
public:
    struct AddOptions
    {
        bool testConnection = true; // ping the daemon before registering
        std::chrono::milliseconds timeout{10000};
    };

    explicit HostRegistry(StateStore *store);
    ~HostRegistry();
    HostRegistry(const HostRegistry &) = delete;
    HostRegistry &operator=(const HostRegistry &) = delete;

    StateStore *store() const { return m_store; }

    // Pure checks, no I/O besides looking at TLS files.
    static Result<void> validateName(const QString &name);
    // "K=V" → (K, V); keys are non-empty and free of '=' and whitespace.
    static Result<QPair<QString, QString>> parseLabel(const QString &text);
    // The endpoint of a record (parsed with its TLS files), checking that the files are readable.
    static Result<Docker::DockerEndpoint> endpointFor(const HostRecord &host);
    // Everything of a record: name, endpoint, TLS files, labels. Returns the record normalised
    // (canonical endpoint URL, absolute TLS paths).
    static Result<HostRecord> validate(const HostRecord &host);

    // Validates, optionally tests the connection, then stores the host. A name that exists
    // already is a Conflict (remove it first), as is an endpoint registered under another name.
    Result<HostRecord> add(const HostRecord &host, const AddOptions &options);
    Result<HostRecord> add(const HostRecord &host) { return add(host, AddOptions{}); }
    // Refused (Conflict) while kernels whose desired state is Running are placed on the host;
    // the message names their sessions.
    Result<void> remove(const QString &name);
    Result<QList<HostRecord>> list() const;
    Result<HostRecord> inspect(const QString &name) const;

    // The sessions (names, or ids when nameless) with kernels meant to run on `name`.
    Result<QStringList> sessionsOnHost(const QString &name) const;

    // One client per host, made on first use and dropped when the host is re-added or removed.
    // Engine API clients only: with a host factory installed (simulated hosts) this fails.
    Result<std::shared_ptr<Docker::DockerClient>> client(const QString &name);
    Result<std::shared_ptr<Docker::DockerClient>> client(const HostRecord &host);

    // What provisioning, session control, the controller and host inspection talk to: the
    // host's DockerClient, or what the host factory makes of the record when one is installed.
    using HostFactory =
        std::function<Result<std::shared_ptr<Docker::DockerHost>>(const HostRecord &host)>;
    // Tests and the scale benchmark: every host comes from `factory` (in-memory daemons), and
    // add()'s connection test pings through it. Install before any use; not thread-safe.
    void setHostFactory(HostFactory factory) { m_hostFactory = std::move(factory); }
    Result<std::shared_ptr<Docker::DockerHost>> dockerHost(const QString &name);
    Result<std::shared_ptr<Docker::DockerHost>> dockerHost(const HostRecord &host);

private:
    StateStore *m_store;
    HostFactory m_hostFactory;
    mutable std::mutex m_clientsMutex;
    struct CachedClient
    {
        HostRecord record;
        std::shared_ptr<Docker::DockerClient> client;
    };
    QHash<QString, CachedClient> m_clients;
};

} // namespace ClusterDeck
