#include "swarmoverlaynetwork.h"

#include "common/concurrent.h"
#include "networklogging.h"

#include <QElapsedTimer>

#include <thread>

namespace ClusterDeck {

using namespace std::chrono_literals;

Docker::NetworkSpec SwarmOverlayNetwork::specFor(const Scope &) const
{
    Docker::NetworkSpec spec;
    spec.driver = QStringLiteral("overlay");
    spec.attachable = true; // standalone containers, not only services, may join
    return spec;
}

bool SwarmOverlayNetwork::isAttachmentTimeout(const Error &e)
{
    return e.httpStatus == 500 &&
           e.message.contains(QLatin1String("attaching to network failed")) &&
           e.message.contains(QLatin1String("deadline exceeded"));
}

bool SwarmOverlayNetwork::isNetworkNotFound(const Error &e)
{
    return e.httpStatus == 404 && e.message.startsWith(QLatin1String("network ")) &&
           e.message.contains(QLatin1String(" not found"));
}

// A busy swarm manager missed the daemon's deadline for an overlay attachment; or, on an overlay
// this launch has just created, the node does not know it yet ("network … not found", seen in the
// chaos suite with two launches at once). Neither is a bad request: the start is tried again.
// On a reused overlay "not found" is a node dropping its instance: before the first start that is
// awaitReuse's; after a start whose attachment timed out it is that failure's aftermath (the
// daemon undid the attachment, and the node dropped the instance it had made for it; seen in
// tst_controller leaderFrozenMidRestartTouchesNothing with two restarts at once on a loaded lab,
// and on a fresh overlay in the chaos suite's console-and-cli fault), and the start is tried
// again once that node's teardown is over (prepareRetry), whichever overlay it is.
bool SwarmOverlayNetwork::isTransientStartError(const Error &error, bool reused,
                                                StartAttempts &attempts) const
{
    if (isAttachmentTimeout(error)) {
        attempts.attachmentFailed = true;
        return true;
    }
    return (!reused || attempts.attachmentFailed) && isNetworkNotFound(error);
}

void SwarmOverlayNetwork::prepareRetry(const Scope &scope, const QString &hostName,
                                       const Docker::DockerHost &host, bool,
                                       const StartAttempts &attempts) const
{
    // The failed attachment may have left this node dropping its instance of the overlay: a
    // start into it fails ("not found") or leaves a stuck attachment.
    if (attempts.attachmentFailed)
        awaitTeardownOn(scope, hostName, host);
}

// A restart, the completion of an interrupted launch or a scale right after a scale-down reuse
// the session's overlay just after containers on it were removed. A node drops its instance of
// the network a moment after its last container left, asynchronously; a container started on
// that node meanwhile attaches to the instance being dropped, fails ("network … not found") and
// leaves the swarm an attachment task that no Engine API call removes: the network is "in use by
// task" for good (moby/moby#31068; seen in the chaos suite's kill9-controller trials). So before
// the first start, wait (bounded) until no host holds an instance without containers.
void SwarmOverlayNetwork::awaitReuse(
    const Scope &scope, const QHash<QString, std::shared_ptr<Docker::DockerHost>> &hosts,
    int perHostLimit, const CancelToken &cancel) const
{
    const QStringList names = hosts.keys();
    Concurrent::forEachPerHost(
        int(names.size()), [&](int i) { return names.at(i); },
        [&](int i) {
            if (const auto &client = hosts.value(names.at(i)))
                awaitTeardownOn(scope, names.at(i), *client);
        },
        perHostLimit, cancel);
}

void SwarmOverlayNetwork::awaitTeardownOn(const Scope &scope, const QString &hostName,
                                          const Docker::DockerHost &host) const
{
    using Clock = std::chrono::steady_clock;
    const auto until = Clock::now() + std::min<std::chrono::milliseconds>(scope.call.timeout, 15s);
    QElapsedTimer waited;
    waited.start();
    for (;;) {
        // Not found: this node has no instance (a worker without containers on it).
        // Another error: the starts that follow report the host properly.
        auto info = host.inspectNetwork(scope.name, scope.call);
        if (!info || !info->instantiatedHere || info->hasContainerEndpoints())
            break;
        if (Clock::now() >= until || scope.call.cancel.isCancelled()) {
            qCWarning(lcNetwork).noquote()
                << "host" << hostName << "still holds an unused instance of network" << scope.name
                << "after" << waited.elapsed() << "ms; starting anyway";
            break;
        }
        std::this_thread::sleep_for(100ms);
    }
    if (waited.elapsed() >= 100)
        qCInfo(lcNetwork).noquote() << "host" << hostName << "dropped its instance of network"
                                    << scope.name << "in" << waited.elapsed() << "ms";
}

// While a host does not answer, the swarm keeps its attachment to the network ("in use by
// task") until it does: then a few seconds for the others' endpoints is all removal gets. A host
// that failed its part of the removal (its daemon is down) is such a host too.
std::chrono::steady_clock::time_point
SwarmOverlayNetwork::removalDeadline(const Removal &removal, const QString &hostName) const
{
    QSet<QString> silent = removal.silentHosts;
    silent.remove(hostName);
    if (silent.isEmpty())
        return removal.deadline;
    return std::min(removal.deadline, std::chrono::steady_clock::now() + 5s);
}

QString SwarmOverlayNetwork::removalRefusedNote(const Removal &removal,
                                                const QString &hostName) const
{
    QSet<QString> silent = removal.silentHosts;
    silent.remove(hostName);
    if (silent.isEmpty())
        return {};
    QStringList hosts(silent.cbegin(), silent.cend());
    hosts.sort();
    return QStringLiteral(" (the swarm keeps the attachment of host(s) %1, which do not answer; "
                          "the network goes when they do)")
        .arg(hosts.join(QStringLiteral(", ")));
}

} // namespace ClusterDeck
