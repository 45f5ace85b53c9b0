#pragma once

#include "common/error.h"
#include "hoststatus.h"

#include <QList>
#include <QSet>
#include <QString>

#include <chrono>

namespace ClusterDeck {

class HostRegistry;

// "Set up multi-host networking": makes every registered host a member of one swarm through the
// Engine API, so that sessions spanning hosts can use an attachable overlay network. Reuses a
// swarm a registered host already manages, otherwise initialises one on the first reachable
// host; joins the others as workers. Idempotent; hosts in another swarm are reported, never
// forced out of it.
class SwarmSetup
{
public:
    enum class Action {
        Initialised,    // a new swarm was created on this host (it is the manager)
        Joined,         // joined the swarm as a worker
        AlreadyManager, // a manager of the swarm already: nothing done
        AlreadyMember,  // a worker of the swarm already: nothing done
        DifferentSwarm, // belongs to another swarm: reported, not forced
        Unreachable,    // the daemon did not answer
        Failed,         // init/join failed, or the host is in a state we do not touch
    };

    // One host as its daemon describes its swarm membership: the input of the planning step.
    struct HostView
    {
        QString name;
        bool reachable = false;
        QString error;
        QString state; // HostStatus::swarmState
        bool manager = false;
        QString nodeId;
        QString nodeAddr;
        QString clusterId;
        QString advertiseAddress; // from the registry; empty when none is known
    };

    struct Entry
    {
        QString host;
        Action action = Action::Failed;
        QString detail;
    };

    struct Report
    {
        QList<Entry> entries; // in registry (name) order
        QString managerHost;
        QString clusterId;
        // Something was initialised or joined.
        bool changed() const;
        // Every reachable host is in the one swarm (unreachable hosts do not count).
        bool oneSwarm() const;
    };

    struct Options
    {
        std::chrono::milliseconds queryTimeout{5000}; // per host, in parallel
        std::chrono::milliseconds joinTimeout{60000}; // init / join / tokens
        QString listenPort = QStringLiteral("2377");
    };

    explicit SwarmSetup(HostRegistry *registry);
    SwarmSetup(HostRegistry *registry, Options options);

    Result<Report> run();

    static QString actionName(Action action);

    // --- pure steps, unit-tested ---
    static HostView viewOf(const HostStatus &status);
    // The IP to advertise for a host: its public address, else the host of a tcp endpoint.
    // Host names are resolved; empty when a unix-socket host has no --address.
    static QString advertiseAddressFor(const HostRecord &host);
    // The first reachable host that manages a swarm, or -1.
    static qsizetype chooseManager(const QList<HostView> &views);
    // The first reachable host that is in no swarm (where to initialise one), or -1.
    static qsizetype chooseInitHost(const QList<HostView> &views);
    // What to do with one host once the manager is known. `managerNodes` are the node ids the
    // manager lists; Joined means "join it" here.
    static Entry classify(const HostView &view, const HostView &manager,
                          const QSet<QString> &managerNodes);

private:
    HostRegistry *m_registry;
    Options m_options;
};

} // namespace ClusterDeck
