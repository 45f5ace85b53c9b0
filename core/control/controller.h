#pragma once

#include "common/error.h"
#include "reconcilereport.h"
#include "store/records.h"

#include <QObject>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <thread>

namespace ClusterDeck {

class ActionApplier;
class HostRegistry;
class Leadership;
class StateStore;
struct KernelExit;

namespace Docker {
class DockerEventStream;
struct DockerEvent;
} // namespace Docker

struct ControllerOptions
{
    std::chrono::seconds leaseTtl{10};               // a silent leader is replaced after this
    std::chrono::milliseconds resyncInterval{30000}; // full passes besides the events
    std::chrono::seconds orphanGrace{60};            // min. age of an orphan before removal
    std::chrono::milliseconds campaignRetry{1000};
    // Min. age of what an interrupted multi-step store write left behind before it is cleaned
    // (StateStore::removeStrayRecords).
    std::chrono::milliseconds strayRecordGrace{std::chrono::minutes(10)};
    QString actor; // for the event log; default "controller@HOST (pid N)"
    // Docker events waiting for the store: beyond this (a burst while the store is slow) they are
    // dropped and a full pass looks at everything instead, so memory stays bounded.
    qsizetype intakeCapacity = 10000;
};

// The one actor per store that works when nobody runs a command (docs/architecture.md, "The
// controller"): elected through the store, fenced (every write it makes is conditioned on still
// leading), it follows every host's Docker events, writes what it observes to the store, applies
// failure and success policies, and reconciles the store's desired state with the hosts in full
// passes (observe → pure plan → apply under the session lock) every resyncInterval, after an event
// gap, and when someone asks (`clusterdeckctl reconcile`).
//
// `store` is the controller's own store object: while it leads, every write through it is fenced.
// start() runs everything on background threads; signals come from them (connect queued).
class Controller : public QObject
{
    Q_OBJECT

public:
    Controller(StateStore *store, HostRegistry *registry, ControllerOptions options = {},
               QObject *parent = nullptr);
    ~Controller() override;

    const ControllerOptions &options() const { return m_options; }
    LeaderRecord candidate() const { return m_candidate; }

    // Campaigns in the background; leads while elected; campaigns again after losing.
    void start();
    // Resigns (the next candidate leads at once) and stops every thread.
    void stop();
    bool isLeading() const { return m_leading.load(); }
    // Ask the running controller for a pass soon.
    void requestPass();
    // Times the event intake was full and left its events to a full pass; the most events it
    // ever held at once (never above ControllerOptions::intakeCapacity).
    qint64 intakeOverflows() const;
    qsizetype intakePeak() const;

    // One pass now, on the calling thread, if this process can lead at once (CLI `reconcile`
    // with no controller running); Conflict naming the leader otherwise. Resigns afterwards.
    Result<ReconcileReport> runOnce();

Q_SIGNALS:
    void leadershipChanged(bool leading);
    void passFinished(int changes, int warnings);
    void policyApplied(const QString &sessionId, const QString &outcome, const QString &detail);

private:
    struct Intake
    {
        QString host;
        std::shared_ptr<Docker::DockerEvent> event;
    };
    struct PendingExit
    {
        QString sessionId;
        std::shared_ptr<KernelExit> exit;
    };

    void run();
    void lead(Leadership &leadership);
    ReconcileReport pass(Leadership &leadership);
    void syncStreams(const QList<HostRecord> &hosts);
    void stopStreams();
    void intakeLoop();
    void record(const QList<Intake> &batch);
    void updateHealth(const Observed &observed);
    void waitFor(std::chrono::milliseconds timeout);

    StateStore *m_store;
    HostRegistry *m_registry;
    const ControllerOptions m_options;
    LeaderRecord m_candidate;
    std::unique_ptr<ActionApplier> m_applier;

    std::thread m_thread;
    std::thread m_intakeThread;
    std::atomic_bool m_stopping{false};
    std::atomic_bool m_leading{false};

    mutable std::mutex m_mutex; // guards everything below
    std::condition_variable m_wake;
    bool m_passRequested = false;
    std::deque<PendingExit> m_exits;
    std::deque<Intake> m_intake;
    std::condition_variable m_intakeWake;
    bool m_intakeRunning = false;
    QHash<QString, std::shared_ptr<Docker::DockerEventStream>> m_streams; // host → stream
    QMap<QString, HostHealth> m_health;
    QStringList m_silentHosts; // did not answer in the last pass: probed until they do
    // Hosts whose VXLAN devices were checked since they last answered (NetworkRepair): empty at
    // each new leadership, a host leaves it when it stops answering.
    QSet<QString> m_networksChecked;
    qint64 m_passes = 0;
    // The status last put into the store, without its pass count and times: a pass that would
    // publish the same again writes nothing (an idle leader does not write), unless a pass was
    // asked for through the store (`reconcile` waits for the count to grow) or it is the first
    // pass of a leadership.
    QJsonObject m_publishedReport;
    QMap<QString, HostHealth> m_publishedHealth;
    bool m_mustPublish = true;
    qint64 m_intakeOverflows = 0;
    qsizetype m_intakePeak = 0;
};

} // namespace ClusterDeck
