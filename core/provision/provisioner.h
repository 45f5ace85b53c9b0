#pragma once

#include "common/error.h"
#include "http/httptypes.h"
#include "placement/placement.h"
#include "plan/imagedefaults.h"
#include "plan/launchoptions.h"
#include "registry/imagepuller.h"
#include "sessionspec.h"
#include "sessionteardown.h"
#include "store/records.h"
#include "template/clustertemplate.h"

#include <QSet>

#include <chrono>
#include <functional>
#include <thread>

namespace ClusterDeck {

class HostRegistry;
class SessionLock;
class StateStore;

namespace Docker {
struct ContainerSpec;
struct ImageInfo;
class TarArchiveBuilder;
} // namespace Docker

// Everything a launch starts from.
struct LaunchRequest
{
    ClusterTemplate clusterTemplate;
    QString templateSource; // the YAML as launched, kept in the store
    LaunchOptions options;  // sessionId empty: a new UUID
    PlacementStrategy strategy = PlacementStrategy::Spread;
    QString actor; // who launches, for the event log ("alice@console1")
};

// Gang-launches cluster sessions: resolve → place → write the desired state → check images →
// network → all kernels concurrently (hostname + alias, env, labels, resources, mounts, ports,
// files uploaded before start) → RUNNING; or, on any failure or cancellation, remove everything
// made for the session on every host and end in ERROR / CANCELLED.
//
// Blocking by design: call launch()/provision() from a worker thread (never the GUI thread).
// Progress arrives through the callback (on worker threads); views follow the store's signals.
class Provisioner
{
public:
    using ProgressCallback = std::function<void(const KernelRecord &kernel)>;
    // One pull on one host changed (worker threads).
    using PullProgressCallback = std::function<void(const QString &host, const QString &image,
                                                    const Docker::PullProgress &progress)>;

    Provisioner(StateStore *store, HostRegistry *registry);
    ~Provisioner();
    Provisioner(const Provisioner &) = delete;
    Provisioner &operator=(const Provisioner &) = delete;

    void setPerHostConcurrency(int limit) { m_perHostLimit = limit; }
    int perHostConcurrency() const { return m_perHostLimit; }
    void setCallTimeout(std::chrono::milliseconds timeout) { m_callTimeout = timeout; }
    // A rollback gets this long in total (then the controller finishes it).
    void setRollbackTimeout(std::chrono::milliseconds timeout) { m_rollbackTimeout = timeout; }
    // Cancelled: a rollback under way stops at once and leaves the rest to the controller (the
    // desired state, TERMINATED, is in the store before a rollback starts).
    void setAbandonToken(const CancelToken &abandon) { m_abandon = abandon; }
    // Cancelled: provision() stops at once and leaves the session as it is — no rollback, no
    // final status; the controller finishes it. For the controller's own work: a leader that
    // lost its lease stops, it never rolls a live session back. Takes precedence over the
    // cancel given to provision() (the controller's cancel and stop are one token).
    void setStopToken(const CancelToken &stop) { m_stop = stop; }
    bool stopped() const { return m_stop.isCancelled(); }
    // How a host that stops answering during a launch is found (see HostWatchdog).
    void setHungHostDetection(std::chrono::milliseconds pingTimeout, int misses)
    {
        m_pingTimeout = pingTimeout;
        m_pingMisses = misses;
    }
    // A session is RUNNING once every kernel has stayed up this long after the last start (a
    // bootstrap that fails in its first second fails the launch, with its exit code and last
    // lines). 0 turns the check off.
    void setSettlePeriod(std::chrono::milliseconds period) { m_settle = period; }
    std::chrono::milliseconds settlePeriod() const { return m_settle; }
    // For a restart by the controller: when provision() fails and a host of the session does
    // not answer, nothing is rolled back and no status is final; provision() fails with an
    // Unavailable error and unansweredHosts() says which hosts and why (the caller records that
    // the session waits for them, and does it again once they answer).
    void setDeferOnUnansweredHosts(bool defer) { m_deferOnUnanswered = defer; }
    const QMap<QString, Error> &unansweredHosts() const { return m_unanswered; }
    void setProgressCallback(ProgressCallback callback) { m_progress = std::move(callback); }
    void setActor(const QString &actor) { m_actor = actor; }
    void setPullProgressCallback(PullProgressCallback callback)
    {
        m_pullProgress = std::move(callback);
    }
    // Registry logins for pulls; unset: the user's Docker config ($DOCKER_CONFIG, ~/.docker).
    void setCredentialLookup(Registry::ImagePuller::CredentialLookup lookup)
    {
        m_credentials = std::move(lookup);
    }

    // prepare() then provision(): returns the session as it ended (RUNNING), or the error that
    // made it end in ERROR / CANCELLED (the session then exists in the store with the reason).
    Result<SessionRecord> launch(const LaunchRequest &request,
                                 const CancelToken &cancel = {});

    // Resolve and place against the live hosts, then write the session and its kernels
    // (desired state Running, kernels SCHEDULED) to the store. No side effect on any host. A plan
    // that does not fit is recorded as a session in ERROR and returned as the error.
    Result<SessionSpec> prepare(const LaunchRequest &request);
    // What prepare() would decide (plan and placement, with why each unused host is unused),
    // without writing anything: `launch --dry-run`.
    Result<SessionSpec> preview(const LaunchRequest &request);

    // What the template's images bring (ENV, labels such as service ports, …): from the first of
    // `hosts` that has the image, else from its registry's config. Images found nowhere are
    // left out (a plan then lacks their defaults).
    ImageDefaultsMap imageDefaultsFor(const ClusterTemplate &t, const QStringList &hosts) const;

    // Makes the hosts match a stored session: adopts what exists and is right, creates the rest.
    // All-or-nothing. The caller holds the session lock (launch() takes it itself).
    // `lock`: the session lock the caller holds; when it is lost, the launch stops at once
    // (no rollback: the lock's new holder, usually the controller, finishes it) and fails with
    // its lostError().
    Result<SessionRecord> provision(const SessionSpec &spec, const CancelToken &cancel = {},
                                    const SessionLock *lock = nullptr);

    // `scale`: creates and starts the kernels `hostnames` of a running session whose spec (with
    // them in it) and kernel records are stored already; the network and the other kernels are
    // left as they are. All-or-nothing for the batch: on any failure the new containers (and
    // images pulled for them) are removed again. The caller holds the session lock.
    Result<void> addKernels(const SessionSpec &spec, const QStringList &hostnames,
                            const CancelToken &cancel = {});

    // Removes every container, the network and the volumes listed in `volumes` (host → names)
    // of a session, on every host involved, within options.deadline. Objects that are already
    // gone are fine. `unfinished` (optional) receives the hosts whose objects may remain.
    Result<void> removeSessionObjects(const SessionSpec &spec,
                                      const QMap<QString, QStringList> &volumes = {},
                                      const RemovalOptions &options = {},
                                      QStringList *unfinished = nullptr);

    // The store's record of a planned kernel placed on `host`, in its first status.
    static KernelRecord recordFor(const KernelSpec &kernel, const QString &sessionId,
                                  const QString &host, KernelStatus status, const QString &reason,
                                  const QDateTime &at);
    // What a plan takes from an image (ENV, labels such as service ports, entrypoint, cmd, user).
    static ImageDefaults imageDefaultsOf(const Docker::ImageInfo &image);

private:
    struct Run;
    Result<SessionSpec> prepareImpl(const LaunchRequest &request, bool record);
    // What a launch and a scale both start from: the driver of the session's network, the
    // session's record and its kernels' records.
    Result<void> loadRun(Run &run);
    // A record and a client for each of `hosts`; the first that cannot be had fails it, named.
    Result<void> connectHosts(Run &run, const QStringList &hosts);
    // The phases of a launch: doProvision runs them in turn, and ends in recordRunning or rollBack.
    Result<SessionRecord> doProvision(Run &run);
    void beginProvisioning(Run &run);
    std::thread startConnecting(Run &run);
    void createKernels(Run &run);
    Result<SessionRecord> recordRunning(Run &run);
    Result<SessionRecord> rollBack(Run &run, bool cancelled);
    // Removes the images this run pulled, until `until`, except on `skipHosts`.
    void removePulledImages(Run &run, const QStringList &skipHosts,
                            std::chrono::steady_clock::time_point until);
    // Stores desired TERMINATED (session and kernels) and why, before a rollback starts.
    void recordRollback(Run &run, const QString &reason);
    Result<void> prepareHosts(Run &run);
    Result<void> pullImages(Run &run);
    Result<void> createKernel(Run &run, const KernelSpec &kernel);
    Result<void> settle(Run &run);
    void setKernelStatus(Run &run, const QString &hostname, KernelStatus status,
                         const QString &reason = {});
    // Records the status; a failed write is logged and returned (the launch's outcome decides).
    Result<void> setSessionStatus(Run &run, SessionStatus status, const QString &reason = {});
    void logEvent(const QString &sessionId, const QString &kernelId, const QString &action,
                  const QString &detail);

    StateStore *m_store;
    HostRegistry *m_registry;
    int m_perHostLimit = 8;
    std::chrono::milliseconds m_callTimeout{60000};
    std::chrono::milliseconds m_rollbackTimeout{30000};
    std::chrono::milliseconds m_pingTimeout{5000};
    int m_pingMisses = 2;
    CancelToken m_abandon;
    CancelToken m_stop;
    std::chrono::milliseconds m_settle{2000};
    ProgressCallback m_progress;
    PullProgressCallback m_pullProgress;
    Registry::ImagePuller::CredentialLookup m_credentials;
    QString m_actor;
    bool m_deferOnUnanswered = false;
    QMap<QString, Error> m_unanswered;
};

} // namespace ClusterDeck
