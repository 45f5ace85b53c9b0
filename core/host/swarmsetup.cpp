#include "swarmsetup.h"
#include "common/shortid.h"

#include "common/logging.h"
#include "docker/dockerclient.h"
#include "docker/dockerendpoint.h"
#include "hostinspector.h"
#include "hostregistry.h"
#include "store/statestore.h"

#include <arpa/inet.h>
#include <netdb.h>
#include <sys/socket.h>

namespace ClusterDeck {

namespace {

bool isIpLiteral(const QString &text)
{
    const QByteArray bytes = text.toLatin1();
    in_addr v4{};
    in6_addr v6{};
    return inet_pton(AF_INET, bytes.constData(), &v4) == 1 ||
           inet_pton(AF_INET6, bytes.constData(), &v6) == 1;
}

// Swarm wants an IP to advertise, not a name: resolve, preferring IPv4.
QString resolve(const QString &name)
{
    if (name.isEmpty() || isIpLiteral(name))
        return name;
    addrinfo hints{};
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    addrinfo *found = nullptr;
    if (getaddrinfo(name.toUtf8().constData(), nullptr, &hints, &found) != 0 || !found)
        return {};
    QString v4;
    QString v6;
    for (addrinfo *ai = found; ai; ai = ai->ai_next) {
        char text[INET6_ADDRSTRLEN] = {};
        if (ai->ai_family == AF_INET && v4.isEmpty()) {
            auto *in = reinterpret_cast<sockaddr_in *>(ai->ai_addr);
            if (inet_ntop(AF_INET, &in->sin_addr, text, sizeof text))
                v4 = QString::fromLatin1(text);
        } else if (ai->ai_family == AF_INET6 && v6.isEmpty()) {
            auto *in6 = reinterpret_cast<sockaddr_in6 *>(ai->ai_addr);
            if (inet_ntop(AF_INET6, &in6->sin6_addr, text, sizeof text))
                v6 = QString::fromLatin1(text);
        }
    }
    freeaddrinfo(found);
    return v4.isEmpty() ? v6 : v4;
}

// "192.168.213.11" → "192.168.213.11:2377"; an address with a port stays as it is.
QString withPort(const QString &address, const QString &port)
{
    if (address.isEmpty())
        return {};
    if (isIpLiteral(address) && address.contains(QLatin1Char(':'))) // a bare IPv6 literal
        return QStringLiteral("[%1]:%2").arg(address, port);
    if (address.endsWith(QLatin1Char(']')) || !address.contains(QLatin1Char(':')))
        return address + u':' + port;
    return address;
}

Docker::CallOptions within(std::chrono::milliseconds timeout)
{
    Docker::CallOptions options;
    options.timeout = timeout;
    return options;
}

} // namespace

bool SwarmSetup::Report::changed() const
{
    return std::any_of(entries.cbegin(), entries.cend(), [](const Entry &e) {
        return e.action == Action::Initialised || e.action == Action::Joined;
    });
}

bool SwarmSetup::Report::oneSwarm() const
{
    return !entries.isEmpty() && std::all_of(entries.cbegin(), entries.cend(), [](const Entry &e) {
        return e.action != Action::DifferentSwarm && e.action != Action::Failed;
    });
}

SwarmSetup::SwarmSetup(HostRegistry *registry)
    : SwarmSetup(registry, Options{})
{}

SwarmSetup::SwarmSetup(HostRegistry *registry, Options options)
    : m_registry(registry)
    , m_options(std::move(options))
{}

QString SwarmSetup::actionName(Action action)
{
    switch (action) {
    case Action::Initialised:
        return QStringLiteral("initialised");
    case Action::Joined:
        return QStringLiteral("joined");
    case Action::AlreadyManager:
        return QStringLiteral("already manager");
    case Action::AlreadyMember:
        return QStringLiteral("already member");
    case Action::DifferentSwarm:
        return QStringLiteral("different swarm");
    case Action::Unreachable:
        return QStringLiteral("unreachable");
    case Action::Failed:
        return QStringLiteral("failed");
    }
    return {};
}

QString SwarmSetup::advertiseAddressFor(const HostRecord &host)
{
    if (!host.publicAddress.isEmpty()) {
        if (const QString ip = resolve(host.publicAddress); !ip.isEmpty())
            return ip;
    }
    auto endpoint = Docker::DockerEndpoint::parse(host.endpoint);
    if (endpoint && endpoint->kind() != Docker::DockerEndpoint::Kind::Unix) {
        const QString host = endpoint->host();
        // Loopback cannot be advertised to other hosts.
        if (host == QLatin1String("localhost") || host.startsWith(QLatin1String("127.")) ||
            host == QLatin1String("::1"))
            return {};
        return resolve(host);
    }
    return {};
}

SwarmSetup::HostView SwarmSetup::viewOf(const HostStatus &status)
{
    HostView view;
    view.name = status.host.name;
    view.reachable = status.reachable;
    view.error = status.error;
    view.state = status.swarmState;
    view.manager = status.swarmRole == QLatin1String("manager");
    view.nodeId = status.swarmNodeId;
    view.nodeAddr = status.swarmNodeAddr;
    view.clusterId = status.swarmClusterId;
    view.advertiseAddress = advertiseAddressFor(status.host);
    return view;
}

qsizetype SwarmSetup::chooseManager(const QList<HostView> &views)
{
    for (qsizetype i = 0; i < views.size(); ++i) {
        const HostView &v = views.at(i);
        if (v.reachable && v.state == QLatin1String("active") && v.manager)
            return i;
    }
    return -1;
}

qsizetype SwarmSetup::chooseInitHost(const QList<HostView> &views)
{
    for (qsizetype i = 0; i < views.size(); ++i) {
        const HostView &v = views.at(i);
        if (v.reachable && v.state == QLatin1String("inactive"))
            return i;
    }
    return -1;
}

SwarmSetup::Entry SwarmSetup::classify(const HostView &view, const HostView &manager,
                                       const QSet<QString> &managerNodes)
{
    Entry entry{view.name, Action::Failed, {}};
    if (!view.reachable) {
        entry.action = Action::Unreachable;
        entry.detail = view.error;
        return entry;
    }
    if (view.state == QLatin1String("inactive")) {
        entry.action = Action::Joined; // to do
        return entry;
    }
    if (view.state != QLatin1String("active")) {
        entry.detail =
            QStringLiteral("swarm state is %1%2; not touched")
                .arg(view.state,
                     view.error.isEmpty() ? QString() : QStringLiteral(" (%1)").arg(view.error));
        return entry;
    }
    const bool sameSwarm =
        view.manager ? view.clusterId == manager.clusterId : managerNodes.contains(view.nodeId);
    if (sameSwarm) {
        entry.action = view.manager ? Action::AlreadyManager : Action::AlreadyMember;
        entry.detail = QStringLiteral("node %1").arg(shortId(view.nodeId));
        return entry;
    }
    entry.action = Action::DifferentSwarm;
    entry.detail =
        view.manager
            ? QStringLiteral("manages swarm %1 (not %2); leave it first to join")
                  .arg(shortId(view.clusterId), shortId(manager.clusterId))
            : QStringLiteral("worker node %1 of a swarm that %2 does not manage; leave it first "
                             "to join")
                  .arg(shortId(view.nodeId), manager.name);
    return entry;
}

Result<SwarmSetup::Report> SwarmSetup::run()
{
    auto hosts = m_registry->list();
    if (!hosts)
        return fail(hosts.error());
    if (hosts->isEmpty())
        return fail(Error::Kind::Invalid, QStringLiteral("network setup"),
                    QStringLiteral("no hosts are registered (clusterdeckctl host add)"));

    HostInspector inspector(m_registry, m_options.queryTimeout);
    inspector.setListImages(false);
    const QList<HostStatus> statuses = inspector.inspectAll(*hosts, {});
    QList<HostView> views;
    for (const HostStatus &status : statuses)
        views.append(viewOf(status));

    Report report;
    auto allFailed = [&](const QString &why) {
        for (const HostView &v : std::as_const(views)) {
            if (!v.reachable)
                report.entries.append({v.name, Action::Unreachable, v.error});
            else
                report.entries.append({v.name, Action::Failed, why});
        }
        return report;
    };

    qsizetype managerIndex = chooseManager(views);
    bool initialised = false;
    if (managerIndex < 0) {
        const qsizetype initIndex = chooseInitHost(views);
        if (initIndex < 0) {
            // Nobody to initialise on: every reachable host is in some swarm we cannot reach.
            const HostView none;
            for (const HostView &v : std::as_const(views)) {
                Entry e = classify(v, none, {});
                if (e.action == Action::DifferentSwarm)
                    e.detail = QStringLiteral("in a swarm whose manager is not a registered host");
                report.entries.append(e);
            }
            return report;
        }
        HostView &target = views[initIndex];
        const HostRecord &record = hosts->at(initIndex);
        if (target.advertiseAddress.isEmpty())
            return allFailed(
                QStringLiteral("cannot initialise a swarm on host %1: it has no address to "
                               "advertise (its endpoint is %2); register it with --address IP")
                    .arg(record.name, record.endpoint));
        auto client = m_registry->client(record);
        if (!client)
            return allFailed(client.error().toString());
        Docker::SwarmInitSpec spec;
        spec.listenAddr = QStringLiteral("0.0.0.0:") + m_options.listenPort;
        spec.advertiseAddr = target.advertiseAddress;
        qCDebug(lcHost) << "initialising a swarm on" << record.name << "advertising"
                        << spec.advertiseAddr;
        auto nodeId = (*client)->initSwarm(spec, within(m_options.joinTimeout));
        if (!nodeId)
            return allFailed(nodeId.error().withContext(QStringLiteral("swarm init")).toString());
        // Re-read what the new manager reports (cluster id, node address).
        const HostStatus fresh = inspector.inspect(record, {});
        target = viewOf(fresh);
        if (!target.manager)
            return allFailed(
                QStringLiteral("host %1 is not a manager right after swarm init").arg(record.name));
        managerIndex = initIndex;
        initialised = true;
    }

    const HostView manager = views.at(managerIndex);
    const HostRecord &managerRecord = hosts->at(managerIndex);
    report.managerHost = manager.name;
    report.clusterId = manager.clusterId;
    auto managerClient = m_registry->client(managerRecord);
    if (!managerClient)
        return allFailed(managerClient.error().toString());

    auto nodes = (*managerClient)->listNodes(within(m_options.joinTimeout));
    if (!nodes)
        return allFailed(
            nodes.error().withContext(QStringLiteral("listing swarm nodes")).toString());
    QSet<QString> nodeIds;
    for (const Docker::NodeInfo &node : std::as_const(*nodes))
        nodeIds.insert(node.id);

    // Join through every manager the swarm knows, the chosen one first.
    QStringList remoteAddrs;
    remoteAddrs.append(withPort(manager.nodeAddr, m_options.listenPort));
    for (const Docker::NodeInfo &node : std::as_const(*nodes)) {
        if (!node.managerAddr.isEmpty() && !remoteAddrs.contains(node.managerAddr))
            remoteAddrs.append(node.managerAddr);
    }
    remoteAddrs.removeAll(QString());

    std::optional<Docker::SwarmJoinTokens> tokens;
    for (qsizetype i = 0; i < views.size(); ++i) {
        const HostView &view = views.at(i);
        if (i == managerIndex) {
            report.entries.append({view.name,
                                   initialised ? Action::Initialised : Action::AlreadyManager,
                                   QStringLiteral("manager node %1, advertising %2")
                                       .arg(shortId(view.nodeId), view.nodeAddr)});
            continue;
        }
        Entry entry = classify(view, manager, nodeIds);
        if (entry.action != Action::Joined) {
            report.entries.append(entry);
            continue;
        }
        if (!tokens) {
            auto got = (*managerClient)->joinTokens(within(m_options.joinTimeout));
            if (!got) {
                entry.action = Action::Failed;
                entry.detail = got.error().withContext(QStringLiteral("join token")).toString();
                report.entries.append(entry);
                continue;
            }
            tokens = *got;
        }
        auto client = m_registry->client(hosts->at(i));
        if (!client) {
            report.entries.append({view.name, Action::Failed, client.error().toString()});
            continue;
        }
        Docker::SwarmJoinSpec join;
        join.listenAddr = QStringLiteral("0.0.0.0:") + m_options.listenPort;
        join.advertiseAddr = view.advertiseAddress; // empty: the daemon picks its own
        join.remoteAddrs = remoteAddrs;
        join.joinToken = tokens->worker;
        qCDebug(lcHost) << "joining" << view.name << "to the swarm of" << manager.name << "via"
                        << remoteAddrs;
        if (auto joined = (*client)->joinSwarm(join, within(m_options.joinTimeout)); !joined) {
            entry.action = Action::Failed;
            entry.detail = joined.error().withContext(QStringLiteral("swarm join")).toString();
        } else {
            entry.detail = QStringLiteral("as a worker via %1").arg(remoteAddrs.value(0));
        }
        report.entries.append(entry);
    }
    return report;
}

} // namespace ClusterDeck
