#include "control/reconcileplanner.h"
#include "common/labels.h"

#include <QJsonObject>
#include <QTest>
#include <QTimeZone>

using namespace ClusterDeck;

// planReconcile() is pure: every row builds a snapshot of the world (hosts' listings, the store's
// sessions and kernels, the clock) and the exact list of actions it must produce, in order.
// Actions are compared as "kind session kernel host object [exit=N]" ('-' for empty).

Q_DECLARE_METATYPE(ClusterDeck::Observed)

namespace {

using Kind = ReconcileAction::Kind;

const QString kStore = QStringLiteral("store-a");
const QString kOtherStore = QStringLiteral("store-b");
constexpr std::chrono::seconds kGrace{60};
const QDateTime kListedAt = QDateTime::fromSecsSinceEpoch(1768478400, QTimeZone::utc());

QString dash(const QString &s)
{
    return s.isEmpty() ? QStringLiteral("-") : s;
}

QString describe(const ReconcileAction &a)
{
    QString s = ReconcileAction::name(a.kind) + QLatin1Char(' ') + dash(a.sessionId) +
                QLatin1Char(' ') + dash(a.kernelId) + QLatin1Char(' ') + dash(a.host) +
                QLatin1Char(' ') + dash(a.objectId);
    if (a.exitCode)
        s += QStringLiteral(" exit=%1").arg(*a.exitCode);
    return s;
}

// The expected form of one action.
QString act(Kind kind, const QString &session, const QString &kernel = {}, const QString &host = {},
            const QString &object = {}, std::optional<int> exitCode = std::nullopt)
{
    ReconcileAction a{kind, session, kernel, host, object, QString(), exitCode, QString()};
    return describe(a);
}

// Builds an Observed. By convention kernel `k` of session `s` is "s-k", its container "c-s-k".
class World
{
public:
    World()
    {
        m_o.listedAt = kListedAt;
        m_o.now = kListedAt.addSecs(2);
    }

    World &up(const QString &host)
    {
        m_o.hosts[host].reachable = true;
        return *this;
    }
    World &down(const QString &host, const QString &error = QStringLiteral("connection refused"))
    {
        HostListing &h = m_o.hosts[host];
        h.reachable = false;
        h.error = error;
        return *this;
    }
    World &session(const QString &id, SessionStatus status,
                   DesiredState desired = DesiredState::Running)
    {
        SessionRecord s;
        s.id = id;
        s.name = id + QStringLiteral("-name");
        s.status = status;
        s.desired = desired;
        s.networkName = QStringLiteral("cd-") + id;
        m_o.sessions.append(s);
        m_o.kernels[id]; // a session may have no kernels yet
        return *this;
    }
    // A COMPLETED session's policies and finish time (`ttl` < 0: no ttlAfterFinished).
    World &completed(const QString &id, qint64 finishedSecondsAgo, qint64 ttl)
    {
        SessionRecord &s = sessionRef(id);
        s.status = SessionStatus::Completed;
        s.finishedAt = m_o.now.addSecs(-finishedSecondsAgo);
        QJsonObject spec{{QStringLiteral("success_policy"),
                          QJsonObject{{QStringLiteral("kind"), QStringLiteral("primary-exits")}}}};
        if (ttl >= 0)
            spec.insert(QStringLiteral("ttl_after_finished_seconds"), double(ttl));
        s.launch.spec = spec;
        return *this;
    }
    World &desired(const QString &id, DesiredState desired)
    {
        sessionRef(id).desired = desired;
        return *this;
    }
    // An unfinished `scale` (its intent stored in the session).
    World &scaling(const QString &id, const QString &phase)
    {
        sessionRef(id).launch.scale =
            LaunchRecord::fromJson(
                QJsonObject{{QStringLiteral("scale"),
                             QJsonObject{{QStringLiteral("phase"), phase},
                                         {QStringLiteral("counts"), QStringLiteral("worker=3")}}}})
                .scale;
        return *this;
    }
    World &networkHost(const QString &id, const QString &host)
    {
        sessionRef(id).networkHost = host;
        return *this;
    }
    // A kernel record; its container id is "c-<session>-<kernel>" unless given.
    World &kernel(const QString &sessionId, const QString &name, const QString &host,
                  KernelStatus status = KernelStatus::Running, const QString &containerId = {})
    {
        KernelRecord k;
        k.id = kernelId(sessionId, name);
        k.sessionId = sessionId;
        k.hostname = name;
        k.role = name.chopped(1);
        k.primary = m_o.kernels[sessionId].isEmpty();
        k.host = host;
        k.containerId = containerId.isEmpty() ? containerOf(sessionId, name) : containerId;
        k.status = status;
        m_o.kernels[sessionId].append(k);
        return *this;
    }
    // A container on `host` carrying the session's and kernel's labels (and `store`'s, unless
    // empty), created `age` seconds before the listing began.
    World &container(const QString &host, const QString &sessionId, const QString &name,
                     const QString &state = QStringLiteral("running"),
                     const QString &status = QStringLiteral("Up 5 minutes"), qint64 age = 3600,
                     const QString &store = kStore, const QString &id = {})
    {
        Docker::ContainerSummary c;
        c.id = id.isEmpty() ? containerOf(sessionId, name) : id;
        c.names = {QStringLiteral("cd-%1-%2").arg(sessionId, name)};
        c.state = parseContainerStatus(state); // the listing as Docker words it
        c.status = status;
        c.created = age == 0 ? 0 : kListedAt.toSecsSinceEpoch() - age;
        c.labels.insert(Labels::session(), sessionId);
        c.labels.insert(Labels::kernel(), kernelId(sessionId, name));
        c.labels.insert(Labels::hostname(), name);
        if (!store.isEmpty())
            c.labels.insert(Labels::store(), store);
        m_o.hosts[host].containers.append(c);
        return *this;
    }
    // A session network on `host`, with Docker's timestamp format.
    World &network(const QString &host, const QString &sessionId, qint64 age = 3600,
                   const QString &store = kStore)
    {
        Docker::NetworkInfo n;
        n.id = QStringLiteral("n-") + sessionId;
        n.name = QStringLiteral("cd-") + sessionId;
        n.created = kListedAt.addSecs(-age).toString(QStringLiteral("yyyy-MM-ddTHH:mm:ss")) +
                    QStringLiteral(".919976724Z");
        n.labels.insert(Labels::session(), sessionId);
        if (!store.isEmpty())
            n.labels.insert(Labels::store(), store);
        m_o.hosts[host].networks.append(n);
        return *this;
    }
    // A session RUNNING on h1 (master1) and h2 (worker1), everything in place.
    World &healthy(const QString &id)
    {
        up(QStringLiteral("h1")).up(QStringLiteral("h2"));
        session(id, SessionStatus::Running).networkHost(id, QStringLiteral("h1"));
        kernel(id, QStringLiteral("master1"), QStringLiteral("h1"));
        kernel(id, QStringLiteral("worker1"), QStringLiteral("h2"));
        container(QStringLiteral("h1"), id, QStringLiteral("master1"));
        container(QStringLiteral("h2"), id, QStringLiteral("worker1"));
        network(QStringLiteral("h1"), id);
        return *this;
    }
    // Removes what `healthy` put on a host.
    World &removeContainer(const QString &host, const QString &id)
    {
        QList<Docker::ContainerSummary> &list = m_o.hosts[host].containers;
        list.removeIf([&](const Docker::ContainerSummary &c) { return c.id == id; });
        return *this;
    }
    // The container `id` on `host` gets another name (one run from a committed kernel image).
    World &rename(const QString &host, const QString &id, const QString &name)
    {
        for (Docker::ContainerSummary &c : m_o.hosts[host].containers)
            if (c.id == id)
                c.names = {name};
        return *this;
    }
    World &removeNetworks(const QString &host)
    {
        m_o.hosts[host].networks.clear();
        return *this;
    }
    operator Observed() const { return m_o; }

    static QString kernelId(const QString &sessionId, const QString &name)
    {
        return sessionId + QLatin1Char('-') + name;
    }
    static QString containerOf(const QString &sessionId, const QString &name)
    {
        return QStringLiteral("c-") + kernelId(sessionId, name);
    }

private:
    SessionRecord &sessionRef(const QString &id)
    {
        for (SessionRecord &s : m_o.sessions) {
            if (s.id == id)
                return s;
        }
        qFatal("no session %s", qPrintable(id));
        static SessionRecord none;
        return none;
    }

    Observed m_o;
};

const QString h1 = QStringLiteral("h1");
const QString h2 = QStringLiteral("h2");
const QString m1 = QStringLiteral("master1");
const QString w1 = QStringLiteral("worker1");

QString kid(const QString &session, const QString &name)
{
    return World::kernelId(session, name);
}
QString cid(const QString &session, const QString &name)
{
    return World::containerOf(session, name);
}

} // namespace

class TestReconcilePlanner : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void plan_data();
    void plan();
    void withoutStoreIdNothingIsTouched();
    void legacyLabels_data();
    void legacyLabels();
    void actionsNameTheirReason();
    void exitCodeFromStatus_data();
    void exitCodeFromStatus();
};

void TestReconcilePlanner::plan_data()
{
    QTest::addColumn<Observed>("observed");
    QTest::addColumn<QStringList>("expected");
    QTest::addColumn<QString>("note"); // a note the plan must contain (empty: not checked)

    const QString s1 = QStringLiteral("s1");
    const QString s9 = QStringLiteral("s9"); // unknown to the store

    QTest::newRow("healthy session: nothing to do")
        << Observed(World().healthy(s1)) << QStringList{} << "";

    // Orphans: this store's label, a session the store does not know.
    QTest::newRow("orphan container older than the grace period: removed")
        << Observed(World().up(h1).container(h1, s9, w1, "exited", "Exited (0) 1 hour ago", 120))
        << QStringList{act(Kind::RemoveOrphanContainer, s9, {}, h1, cid(s9, w1))} << "";
    QTest::newRow("orphan container exactly at the cutoff: removed")
        << Observed(World().up(h1).container(h1, s9, w1, "running", "Up 1 minute", 60))
        << QStringList{act(Kind::RemoveOrphanContainer, s9, {}, h1, cid(s9, w1))} << "";
    QTest::newRow("orphan container younger than the grace period: left, noted")
        << Observed(World().up(h1).container(h1, s9, w1, "running", "Up 30 seconds", 30))
        << QStringList{}
        << "host h1: 1 object(s) of unknown sessions younger than the 60 s grace period left "
           "for now";
    QTest::newRow("container created after the listing began (fresh launch): not removed")
        << Observed(World().up(h1).container(h1, s9, w1, "running", "Up 1 second", -5))
        << QStringList{} << "younger than the 60 s grace period";
    QTest::newRow("orphan without a creation time: not removed")
        << Observed(World().up(h1).container(h1, s9, w1, "created", "Created", 0)) << QStringList{}
        << "younger than the 60 s grace period";
    QTest::newRow("container of another store: never touched")
        << Observed(World().up(h1).container(h1, s9, w1, "exited", "Exited (1) 2 days ago", 172800,
                                             kOtherStore))
        << QStringList{}
        << "host h1: 1 object(s) of other stores or without a store label left alone";
    QTest::newRow("container without a store label: never touched")
        << Observed(
               World().up(h1).container(h1, s9, w1, "exited", "Exited (1) 2 days ago", 172800, {}))
        << QStringList{} << "other stores or without a store label";
    QTest::newRow("another store's container with a known session's labels: not stray")
        << Observed(World().healthy(s1).container(h1, s1, QStringLiteral("worker7"), "running",
                                                  "Up 1 hour", 3600, kOtherStore))
        << QStringList{} << "other stores or without a store label";
    // Issue 24 D.5: labels inherited from an image committed from a kernel are not ownership.
    QTest::newRow("a committed kernel's copy (this store's labels, its own name): left alone")
        << Observed(World()
                        .healthy(s1)
                        .container(h2, s1, w1, "running", "Up 1 minute", 7200, kStore,
                                   QStringLiteral("c-copy"))
                        .rename(h2, QStringLiteral("c-copy"), QStringLiteral("copy-of-worker1")))
        << QStringList{}
        << "host h2: 1 container(s) with this store's labels but not a kernel's name";
    QTest::newRow("a committed orphan's copy: not removed as an orphan")
        << Observed(World()
                        .up(h1)
                        .container(h1, s9, w1, "exited", "Exited (0) 1 hour ago", 7200)
                        .rename(h1, cid(s9, w1), QStringLiteral("/my-copy")))
        << QStringList{} << "not a kernel's name";
    QTest::newRow("orphan network older than the grace period: removed")
        << Observed(World().up(h1).network(h1, s9, 600))
        << QStringList{act(Kind::RemoveOrphanNetwork, s9, {}, h1, QStringLiteral("n-s9"))} << "";
    QTest::newRow("orphan network younger than the grace period: left")
        << Observed(World().up(h1).network(h1, s9, 10)) << QStringList{}
        << "host h1: 1 object(s) of unknown sessions younger than the 60 s grace period";
    QTest::newRow("network of another store: never touched")
        << Observed(World().up(h1).network(h1, s9, 600, kOtherStore)) << QStringList{}
        << "other stores or without a store label";
    QTest::newRow("orphans on a host that does not answer: not removed")
        << Observed(World()
                        .up(h1)
                        .down(h2, QStringLiteral("timed out"))
                        .container(h2, s9, w1, "exited", "Exited (0) 1 hour ago", 3600)
                        .network(h2, s9, 3600))
        << QStringList{}
        << "host h2 does not answer (timed out): its objects and kernels wait until it does";

    // Strays: this store's, a known session, but not where/what the store says.
    QTest::newRow("container of a known session on the wrong host: stray")
        << Observed(World().healthy(s1).container(h1, s1, w1, "running", "Up 1 hour", 3600, kStore,
                                                  QStringLiteral("c-copy")))
        << QStringList{act(Kind::RemoveStrayContainer, s1, kid(s1, w1), h1,
                           QStringLiteral("c-copy"))}
        << "";
    QTest::newRow("container of a kernel the session does not have: stray")
        << Observed(World().healthy(s1).container(h2, s1, QStringLiteral("worker2")))
        << QStringList{act(Kind::RemoveStrayContainer, s1, kid(s1, QStringLiteral("worker2")), h2,
                           cid(s1, QStringLiteral("worker2")))}
        << "";
    QTest::newRow("an older container of a kernel (the record names another): stray")
        << Observed(World().healthy(s1).container(h2, s1, w1, "exited", "Exited (137) 1 hour ago",
                                                  7200, kStore, QStringLiteral("c-old")))
        << QStringList{act(Kind::RemoveStrayContainer, s1, kid(s1, w1), h2,
                           QStringLiteral("c-old"))}
        << "";
    QTest::newRow("the only container of a kernel, not the recorded one: taken as its own")
        << Observed(World()
                        .healthy(s1)
                        .removeContainer(h2, cid(s1, w1))
                        .container(h2, s1, w1, "running", "Up 2 seconds", 2, kStore,
                                   QStringLiteral("c-new")))
        << QStringList{} << "";

    // A running session's kernels against their containers.
    QTest::newRow("desired running, a kernel's container is gone from a reachable host")
        << Observed(World().healthy(s1).removeContainer(h2, cid(s1, w1)))
        << QStringList{act(Kind::KernelVanished, s1, kid(s1, w1), h2, cid(s1, w1))} << "";
    QTest::newRow("a kernel's container exited: exit code from Docker's status")
        << Observed(World()
                        .healthy(s1)
                        .removeContainer(h2, cid(s1, w1))
                        .container(h2, s1, w1, "exited", "Exited (137) 3 seconds ago"))
        << QStringList{act(Kind::KernelExited, s1, kid(s1, w1), h2, cid(s1, w1), 137)} << "";
    QTest::newRow("another store's container with a kernel's labels is not its container")
        << Observed(World()
                        .healthy(s1)
                        .removeContainer(h2, cid(s1, w1))
                        .container(h2, s1, w1, "running", "Up 1 hour", 3600, kOtherStore,
                                   QStringLiteral("c-foreign")))
        << QStringList{act(Kind::KernelVanished, s1, kid(s1, w1), h2, cid(s1, w1))}
        << "other stores or without a store label";
    QTest::newRow("an unlabelled exited container with a kernel's labels is not its container")
        << Observed(World().healthy(s1).container(h2, s1, w1, "exited", "Exited (1) 1 hour ago",
                                                  7200, {}, QStringLiteral("c-unlabelled")))
        << QStringList{} << "other stores or without a store label";
    QTest::newRow("the primary exited with 0")
        << Observed(World()
                        .healthy(s1)
                        .removeContainer(h1, cid(s1, m1))
                        .container(h1, s1, m1, "exited", "Exited (0) 1 second ago"))
        << QStringList{act(Kind::KernelExited, s1, kid(s1, m1), h1, cid(s1, m1), 0)} << "";
    QTest::newRow("a dead container: exited, code unknown")
        << Observed(World()
                        .healthy(s1)
                        .removeContainer(h2, cid(s1, w1))
                        .container(h2, s1, w1, "dead", "Dead"))
        << QStringList{act(Kind::KernelExited, s1, kid(s1, w1), h2, cid(s1, w1))} << "";
    QTest::newRow("a container that was never started: exited, code unknown")
        << Observed(World()
                        .healthy(s1)
                        .removeContainer(h2, cid(s1, w1))
                        .container(h2, s1, w1, "created", "Created"))
        << QStringList{act(Kind::KernelExited, s1, kid(s1, w1), h2, cid(s1, w1))} << "";
    QTest::newRow("a paused container: nothing to decide")
        << Observed(World()
                        .healthy(s1)
                        .removeContainer(h2, cid(s1, w1))
                        .container(h2, s1, w1, "paused", "Up 1 hour (Paused)"))
        << QStringList{} << "";
    QTest::newRow("a kernel that is ERROR already (failure ignored): left alone")
        << Observed(World()
                        .up(h1)
                        .up(h2)
                        .session(s1, SessionStatus::Degraded)
                        .kernel(s1, m1, h1)
                        .kernel(s1, w1, h2, KernelStatus::Error)
                        .container(h1, s1, m1)
                        .container(h2, s1, w1, "exited", "Exited (1) 1 hour ago"))
        << QStringList{} << "";
    QTest::newRow("a kernel that succeeded (TERMINATED) in a running session: left alone")
        << Observed(World()
                        .up(h1)
                        .up(h2)
                        .session(s1, SessionStatus::Running)
                        .kernel(s1, m1, h1)
                        .kernel(s1, w1, h2, KernelStatus::Terminated)
                        .container(h1, s1, m1))
        << QStringList{} << "";
    QTest::newRow("exits in two sessions, in store order")
        << Observed(World()
                        .healthy(s1)
                        .removeContainer(h1, cid(s1, m1))
                        .session(QStringLiteral("s2"), SessionStatus::Running)
                        .kernel(QStringLiteral("s2"), m1, h2)
                        .container(h2, QStringLiteral("s2"), m1, "exited", "Exited (2) now"))
        << QStringList{act(Kind::KernelVanished, s1, kid(s1, m1), h1, cid(s1, m1)),
                       act(Kind::KernelExited, QStringLiteral("s2"), kid(QStringLiteral("s2"), m1),
                           h2, cid(QStringLiteral("s2"), m1), 2)}
        << "";

    // Hosts that do not answer.
    QTest::newRow("host down: its kernels UNKNOWN, nothing removed there")
        << Observed(World()
                        .healthy(s1)
                        .down(h2, QStringLiteral("connection refused"))
                        .container(h2, s9, w1, "exited", "Exited (0) 1 hour ago", 3600))
        << QStringList{act(Kind::MarkUnknown, s1, kid(s1, w1), h2)}
        << "host h2 does not answer (connection refused)";
    QTest::newRow("host still down, kernel UNKNOWN already: nothing")
        << Observed(World()
                        .up(h1)
                        .down(h2)
                        .session(s1, SessionStatus::Running)
                        .kernel(s1, m1, h1)
                        .kernel(s1, w1, h2, KernelStatus::Unknown)
                        .container(h1, s1, m1))
        << QStringList{} << "host h2 does not answer";
    QTest::newRow("UNKNOWN kernel whose host answers with it running: recovered")
        << Observed(World()
                        .up(h1)
                        .up(h2)
                        .session(s1, SessionStatus::Running)
                        .kernel(s1, m1, h1)
                        .kernel(s1, w1, h2, KernelStatus::Unknown)
                        .container(h1, s1, m1)
                        .container(h2, s1, w1))
        << QStringList{act(Kind::MarkRecovered, s1, kid(s1, w1), h2, cid(s1, w1))} << "";
    QTest::newRow("UNKNOWN kernel whose host answers with it exited: exited")
        << Observed(World()
                        .up(h1)
                        .up(h2)
                        .session(s1, SessionStatus::Running)
                        .kernel(s1, m1, h1)
                        .kernel(s1, w1, h2, KernelStatus::Unknown)
                        .container(h1, s1, m1)
                        .container(h2, s1, w1, "exited", "Exited (143) 10 minutes ago"))
        << QStringList{act(Kind::KernelExited, s1, kid(s1, w1), h2, cid(s1, w1), 143)} << "";
    QTest::newRow("UNKNOWN kernel whose host answers without it: vanished")
        << Observed(World()
                        .up(h1)
                        .up(h2)
                        .session(s1, SessionStatus::Running)
                        .kernel(s1, m1, h1)
                        .kernel(s1, w1, h2, KernelStatus::Unknown)
                        .container(h1, s1, m1))
        << QStringList{act(Kind::KernelVanished, s1, kid(s1, w1), h2, cid(s1, w1))} << "";
    QTest::newRow("kernel on a host that is not registered: UNKNOWN")
        << Observed(World()
                        .up(h1)
                        .session(s1, SessionStatus::Running)
                        .kernel(s1, m1, h1)
                        .kernel(s1, w1, QStringLiteral("h9"))
                        .container(h1, s1, m1))
        << QStringList{act(Kind::MarkUnknown, s1, kid(s1, w1), QStringLiteral("h9"))} << "";

    // Desired terminated.
    QTest::newRow("desired terminated, everything still running: remove the session's objects")
        << Observed(World().healthy(s1).desired(s1, DesiredState::Terminated))
        << QStringList{act(Kind::RemoveSessionObjects, s1)} << "";
    QTest::newRow("desired terminated, objects on reachable hosts: removed")
        << Observed(World()
                        .up(h1)
                        .up(h2)
                        .session(s1, SessionStatus::Terminating, DesiredState::Terminated)
                        .kernel(s1, m1, h1, KernelStatus::Terminating)
                        .kernel(s1, w1, h2, KernelStatus::Terminating)
                        .container(h2, s1, w1, "exited", "Exited (137) 1 second ago"))
        << QStringList{act(Kind::RemoveSessionObjects, s1)} << "";
    QTest::newRow("desired terminated, only the network left: removed")
        << Observed(World()
                        .up(h1)
                        .session(s1, SessionStatus::Terminating, DesiredState::Terminated)
                        .kernel(s1, m1, h1, KernelStatus::Terminated)
                        .network(h1, s1))
        << QStringList{act(Kind::RemoveSessionObjects, s1)} << "";
    QTest::newRow("desired terminated, nothing left where asked, a host down: TERMINATING")
        << Observed(World()
                        .up(h1)
                        .down(h2)
                        .session(s1, SessionStatus::Running, DesiredState::Terminated)
                        .kernel(s1, m1, h1)
                        .kernel(s1, w1, h2))
        << QStringList{act(Kind::MarkTerminating, s1)} << "";
    QTest::newRow("ERROR, desired terminated, network host down: nothing, noted")
        << Observed(World()
                        .up(h1)
                        .down(h2)
                        .session(s1, SessionStatus::Error, DesiredState::Terminated)
                        .networkHost(s1, h2)
                        .kernel(s1, m1, h1, KernelStatus::Error))
        << QStringList{} << "session s1-name: host(s) h2 do not answer";
    QTest::newRow("desired terminated, host down, TERMINATING already: nothing, noted")
        << Observed(World()
                        .up(h1)
                        .down(h2)
                        .session(s1, SessionStatus::Terminating, DesiredState::Terminated)
                        .kernel(s1, m1, h1, KernelStatus::Terminated)
                        .kernel(s1, w1, h2, KernelStatus::Terminating))
        << QStringList{}
        << "session s1-name: host(s) h2 do not answer; what they hold is removed when they do";
    QTest::newRow("desired terminated, nothing left, every host up: TERMINATED")
        << Observed(World()
                        .up(h1)
                        .up(h2)
                        .session(s1, SessionStatus::Terminating, DesiredState::Terminated)
                        .kernel(s1, m1, h1, KernelStatus::Terminated)
                        .kernel(s1, w1, h2, KernelStatus::Terminating))
        << QStringList{act(Kind::MarkTerminated, s1)} << "";
    QTest::newRow("failed launch (ERROR), kernel TERMINATING on a host back, nothing left: "
                  "its kernels TERMINATED")
        << Observed(World()
                        .up(h1)
                        .up(h2)
                        .session(s1, SessionStatus::Error, DesiredState::Terminated)
                        .kernel(s1, m1, h1, KernelStatus::Error)
                        .kernel(s1, w1, h2, KernelStatus::Terminating))
        << QStringList{act(Kind::MarkTerminated, s1)} << "";
    QTest::newRow("failed launch (ERROR), kernel TERMINATING on a host still hung: nothing, noted")
        << Observed(World()
                        .up(h1)
                        .down(h2)
                        .session(s1, SessionStatus::Error, DesiredState::Terminated)
                        .kernel(s1, m1, h1, KernelStatus::Error)
                        .kernel(s1, w1, h2, KernelStatus::Terminating))
        << QStringList{} << "session s1-name: host(s) h2 do not answer";
    QTest::newRow("terminated, nothing left: nothing")
        << Observed(World().up(h1).session(s1, SessionStatus::Terminated, DesiredState::Terminated))
        << QStringList{} << "";

    // Final and finished sessions.
    QTest::newRow("final session (ERROR, desired running): nothing, whatever its containers do")
        << Observed(World()
                        .up(h1)
                        .session(s1, SessionStatus::Error)
                        .kernel(s1, m1, h1, KernelStatus::Error)
                        .container(h1, s1, m1, "exited", "Exited (1) 1 hour ago"))
        << QStringList{} << "";
    QTest::newRow("COMPLETED, ttlAfterFinished elapsed: remove the session's objects")
        << Observed(World()
                        .healthy(s1)
                        .completed(s1, 601, 600)
                        .removeContainer(h1, cid(s1, m1))
                        .container(h1, s1, m1, "exited", "Exited (0) 10 minutes ago"))
        << QStringList{act(Kind::RemoveSessionObjects, s1)} << "";
    QTest::newRow("COMPLETED, ttlAfterFinished exactly elapsed: removed")
        << Observed(World().healthy(s1).completed(s1, 600, 600))
        << QStringList{act(Kind::RemoveSessionObjects, s1)} << "";
    QTest::newRow("COMPLETED, ttlAfterFinished 0: removed at once")
        << Observed(World().healthy(s1).completed(s1, 0, 0))
        << QStringList{act(Kind::RemoveSessionObjects, s1)} << "";
    QTest::newRow("COMPLETED, ttlAfterFinished not elapsed: kept")
        << Observed(World().healthy(s1).completed(s1, 599, 600)) << QStringList{} << "";
    QTest::newRow("COMPLETED without ttlAfterFinished: kept")
        << Observed(World().healthy(s1).completed(s1, 86400 * 30, -1)) << QStringList{} << "";
    QTest::newRow("COMPLETED, ttl elapsed, nothing left: nothing")
        << Observed(World()
                        .healthy(s1)
                        .completed(s1, 7200, 600)
                        .removeContainer(h1, cid(s1, m1))
                        .removeContainer(h2, cid(s1, w1))
                        .removeNetworks(h1))
        << QStringList{} << "";
    QTest::newRow("COMPLETED, its stopped kernels are not exits")
        << Observed(World()
                        .healthy(s1)
                        .completed(s1, 5, -1)
                        .removeContainer(h2, cid(s1, w1))
                        .container(h2, s1, w1, "exited", "Exited (143) 5 seconds ago"))
        << QStringList{} << "";

    // Interrupted commands.
    QTest::newRow("PENDING: complete the launch")
        << Observed(World()
                        .up(h1)
                        .session(s1, SessionStatus::Pending)
                        .kernel(s1, m1, h1, KernelStatus::Pending, {}))
        << QStringList{act(Kind::CompleteSession, s1)} << "";
    QTest::newRow("PROVISIONING: complete the launch (its fresh container is no stray)")
        << Observed(World()
                        .up(h1)
                        .session(s1, SessionStatus::Provisioning)
                        .kernel(s1, m1, h1, KernelStatus::Creating)
                        .container(h1, s1, m1, "created", "Created", 1))
        << QStringList{act(Kind::CompleteSession, s1)} << "";
    QTest::newRow("RESTARTING: complete the restart")
        << Observed(World().healthy(s1).session(QStringLiteral("s2"), SessionStatus::Restarting))
        << QStringList{act(Kind::CompleteSession, QStringLiteral("s2"))} << "";
    QTest::newRow("RESTARTING with a kernel's container gone: completed, not vanished")
        << Observed(World()
                        .up(h1)
                        .session(s1, SessionStatus::Restarting)
                        .kernel(s1, m1, h1, KernelStatus::Restarting))
        << QStringList{act(Kind::CompleteSession, s1)} << "";

    // An interrupted scale: its kernels are neither failures nor orphans; finish-scale decides.
    QTest::newRow("scale grow interrupted: a new kernel not yet a record is no stray")
        << Observed(World()
                        .healthy(s1)
                        .scaling(s1, QStringLiteral("grow"))
                        .container(h1, s1, QStringLiteral("worker2")))
        << QStringList{act(Kind::FinishScale, s1)} << "";
    QTest::newRow("scale grow interrupted: a new kernel without its container is not vanished")
        << Observed(World()
                        .healthy(s1)
                        .scaling(s1, QStringLiteral("grow"))
                        .kernel(s1, QStringLiteral("worker2"), h2))
        << QStringList{act(Kind::FinishScale, s1)} << "";
    QTest::newRow("scale shrink interrupted: a removed kernel's exit is no failure")
        << Observed(World()
                        .healthy(s1)
                        .scaling(s1, QStringLiteral("shrink"))
                        .removeContainer(h2, cid(s1, w1))
                        .container(h2, s1, w1, "exited", "Exited (137) 1 second ago"))
        << QStringList{act(Kind::FinishScale, s1)} << "";
    QTest::newRow("scale interrupted, another session's orphan still goes")
        << Observed(World()
                        .healthy(s1)
                        .scaling(s1, QStringLiteral("files"))
                        .container(h2, s9, w1, "exited", "Exited (0) 1 hour ago", 3600))
        << QStringList{act(Kind::RemoveOrphanContainer, s9, {}, h2, cid(s9, w1)),
                       act(Kind::FinishScale, s1)}
        << "";

    // Everything at once, in order: hosts (sorted) first, then sessions.
    QTest::newRow("orphan, stray and exit together")
        << Observed(World()
                        .healthy(s1)
                        .container(h2, s9, w1, "exited", "Exited (0) 1 hour ago", 3600)
                        .container(h1, s1, QStringLiteral("worker2"))
                        .removeContainer(h2, cid(s1, w1))
                        .container(h2, s1, w1, "exited", "Exited (1) 2 seconds ago"))
        << QStringList{act(Kind::RemoveStrayContainer, s1, kid(s1, QStringLiteral("worker2")), h1,
                           cid(s1, QStringLiteral("worker2"))),
                       act(Kind::RemoveOrphanContainer, s9, {}, h2, cid(s9, w1)),
                       act(Kind::KernelExited, s1, kid(s1, w1), h2, cid(s1, w1), 1)}
        << "";
}

void TestReconcilePlanner::plan()
{
    QFETCH(Observed, observed);
    QFETCH(QStringList, expected);
    QFETCH(QString, note);
    const ReconcilePlan plan = planReconcile(observed, kStore, kGrace);
    QStringList actual;
    for (const ReconcileAction &a : plan.actions) {
        actual.append(describe(a));
        QVERIFY2(!a.why.isEmpty(), qPrintable(describe(a)));
    }
    QCOMPARE(actual, expected);
    if (!note.isEmpty()) {
        const bool found = std::any_of(plan.notes.cbegin(), plan.notes.cend(),
                                       [&](const QString &n) { return n.contains(note); });
        QVERIFY2(found, qPrintable(plan.notes.join(QLatin1Char('\n'))));
    }
}

// Objects of builds before the store id carry the store's URL as their label: that counts as ours
// only for sessions the store knows, never for orphans (a new store at the old path must not take
// the old store's objects for its own).
void TestReconcilePlanner::legacyLabels_data()
{
    QTest::addColumn<Observed>("observed");
    QTest::addColumn<QStringList>("legacy"); // this store's legacy labels
    QTest::addColumn<QStringList>("expected");
    QTest::addColumn<QString>("note");

    const QString s1 = QStringLiteral("s1");
    const QString s9 = QStringLiteral("s9");
    const QString url = QStringLiteral("sqlite:///home/a/.local/share/clusterdeck/state.db");

    QTest::newRow("URL label, unknown session: left alone, not an orphan")
        << Observed(World()
                        .up(h1)
                        .container(h1, s9, w1, "exited", "Exited (0) 1 hour ago", 3600, url)
                        .network(h1, s9, 3600, url))
        << QStringList{url} << QStringList{}
        << "host h1: 2 object(s) of other stores or without a store label left alone";
    QTest::newRow("new store at the old path (no legacy labels): the old objects are foreign")
        << Observed(World()
                        .up(h1)
                        .container(h1, s9, w1, "running", "Up 1 hour", 3600, url)
                        .network(h1, s9, 3600, url))
        << QStringList{} << QStringList{}
        << "host h1: 2 object(s) of other stores or without a store label left alone";
    QTest::newRow("URL label, known session terminated: its objects removed")
        << Observed(World()
                        .up(h1)
                        .session(s1, SessionStatus::Terminating, DesiredState::Terminated)
                        .kernel(s1, m1, h1, KernelStatus::Terminating)
                        .container(h1, s1, m1, "running", "Up 1 hour", 3600, url)
                        .network(h1, s1, 3600, url))
        << QStringList{url} << QStringList{act(Kind::RemoveSessionObjects, s1)} << "";
    QTest::newRow("URL label, known session running, kernel exited: the policies decide")
        << Observed(World()
                        .up(h1)
                        .session(s1, SessionStatus::Running)
                        .kernel(s1, m1, h1)
                        .container(h1, s1, m1, "exited", "Exited (3) 1 second ago", 3600, url))
        << QStringList{url}
        << QStringList{act(Kind::KernelExited, s1, kid(s1, m1), h1, cid(s1, m1), 3)} << "";
    QTest::newRow("URL label of another URL on a known session: foreign, kernel vanished")
        << Observed(World()
                        .up(h1)
                        .session(s1, SessionStatus::Running)
                        .kernel(s1, m1, h1)
                        .container(h1, s1, m1, "running", "Up 1 hour", 3600,
                                   QStringLiteral("sqlite:///elsewhere.db")))
        << QStringList{url}
        << QStringList{act(Kind::KernelVanished, s1, kid(s1, m1), h1, cid(s1, m1))}
        << "host h1: 1 object(s) of other stores or without a store label left alone";
    QTest::newRow("another store's id on a known session: never removed as a stray")
        << Observed(World()
                        .up(h1)
                        .session(s1, SessionStatus::Running)
                        .kernel(s1, m1, h1)
                        .container(h1, s1, m1)
                        .container(h1, s1, QStringLiteral("worker2"), "running", "Up 1 hour", 3600,
                                   kOtherStore))
        << QStringList{url} << QStringList{}
        << "host h1: 1 object(s) of other stores or without a store label left alone";
}

void TestReconcilePlanner::legacyLabels()
{
    QFETCH(Observed, observed);
    QFETCH(QStringList, legacy);
    QFETCH(QStringList, expected);
    QFETCH(QString, note);
    const ReconcilePlan plan = planReconcile(observed, StoreIdentity(kStore, legacy), kGrace);
    QStringList actual;
    for (const ReconcileAction &a : plan.actions)
        actual.append(describe(a));
    QCOMPARE(actual, expected);
    if (!note.isEmpty())
        QVERIFY2(plan.notes.contains(note), qPrintable(plan.notes.join(QLatin1Char('\n'))));
}

void TestReconcilePlanner::withoutStoreIdNothingIsTouched()
{
    // An empty store id matches no label, not even an empty one.
    const Observed o =
        World()
            .up(h1)
            .container(h1, QStringLiteral("s9"), w1, "exited", "Exited (0)", 3600, {})
            .network(h1, QStringLiteral("s9"), 3600, {});
    QVERIFY(planReconcile(o, kStore, kGrace).actions.isEmpty());
    QVERIFY(planReconcile(o, QString(), kGrace).actions.isEmpty());
    const Observed ours = World()
                              .up(h1)
                              .container(h1, QStringLiteral("s9"), w1, "exited", "Exited (0)", 3600)
                              .network(h1, QStringLiteral("s9"), 3600);
    QCOMPARE(planReconcile(ours, kStore, kGrace).actions.size(), 2);
    QVERIFY(planReconcile(ours, QString(), kGrace).actions.isEmpty());
}

void TestReconcilePlanner::actionsNameTheirReason()
{
    const Observed o = World().healthy(QStringLiteral("s1")).down(h2, QStringLiteral("no route"));
    const ReconcilePlan plan = planReconcile(o, kStore, kGrace);
    QCOMPARE(plan.actions.size(), 1);
    const ReconcileAction &a = plan.actions.first();
    QCOMPARE(a.why, QStringLiteral("host h2 does not answer: no route"));
    QCOMPARE(a.objectName, w1);
    const QJsonObject json = a.toJson();
    QCOMPARE(json.value(QStringLiteral("action")).toString(), QStringLiteral("mark-unknown"));
    QCOMPARE(json.value(QStringLiteral("kernel")).toString(), kid(QStringLiteral("s1"), w1));
    QCOMPARE(json.value(QStringLiteral("host")).toString(), h2);
    QVERIFY(!json.contains(QStringLiteral("exit_code")));
}

void TestReconcilePlanner::exitCodeFromStatus_data()
{
    QTest::addColumn<QString>("status");
    QTest::addColumn<int>("code"); // -1000: none
    QTest::newRow("killed") << "Exited (137) 3 seconds ago" << 137;
    QTest::newRow("zero") << "Exited (0) About a minute ago" << 0;
    QTest::newRow("one") << "Exited (1) 2 hours ago" << 1;
    QTest::newRow("terminated") << "Exited (143) Less than a second ago" << 143;
    QTest::newRow("negative") << "Exited (-1) 5 minutes ago" << -1;
    QTest::newRow("without age") << "Exited (255)" << 255;
    QTest::newRow("running") << "Up 5 minutes" << -1000;
    QTest::newRow("paused") << "Up 5 minutes (Paused)" << -1000;
    QTest::newRow("restarting") << "Restarting (1) 2 seconds ago" << -1000;
    QTest::newRow("created") << "Created" << -1000;
    QTest::newRow("dead") << "Dead" << -1000;
    QTest::newRow("empty") << "" << -1000;
    QTest::newRow("not at the start") << "was Exited (3)" << -1000;
    QTest::newRow("no number") << "Exited () 1 second ago" << -1000;
}

void TestReconcilePlanner::exitCodeFromStatus()
{
    QFETCH(QString, status);
    QFETCH(int, code);
    QCOMPARE(ClusterDeck::exitCodeFromStatus(status),
             code == -1000 ? std::optional<int>() : std::optional<int>(code));
}

QTEST_GUILESS_MAIN(TestReconcilePlanner)
#include "tst_reconcileplanner.moc"
