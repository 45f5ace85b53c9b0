// The SessionNetwork seam: each driver's network spec, adoption of only this session's own
// network, the starts worth trying again, and a removal that leaves what is not ours and stays
// within its deadline. On the scripted fake host (tests/support): no daemon.

#include "common/labels.h"
#include "network/bridgenetwork.h"
#include "network/swarmoverlaynetwork.h"
#include "support/fakedockerhost.h"

#include <QElapsedTimer>
#include <QTest>

using namespace ClusterDeck;
using namespace ClusterDeck::TestSupport;
using namespace std::chrono_literals;

namespace {

const QString kSession = QStringLiteral("3f2c8a1e-0000-4000-8000-000000000001");
const QString kStore = QStringLiteral("9b1d5c7a-0000-4000-8000-000000000002");

SessionNetwork::Scope scope(std::optional<int> mtu = std::nullopt)
{
    Docker::CallOptions call;
    call.timeout = 2s;
    return {kSession, QStringLiteral("cd-3f2c8a1e"), mtu, StoreIdentity(kStore), call};
}

Error attachmentTimeout()
{
    return Error::make(Error::Kind::Http, QStringLiteral("host h2"),
                       QStringLiteral("attaching to network failed, make sure your network "
                                      "options are correct and check manager logs: context "
                                      "deadline exceeded"),
                       500);
}

Error networkNotFound()
{
    return Error::make(Error::Kind::NotFound, QStringLiteral("host h2"),
                       QStringLiteral("network wxp2qngpxrqtwg2lvsa2fvv3b not found"), 404);
}

Error otherNotFound()
{
    return Error::make(Error::Kind::NotFound, QStringLiteral("host h2"),
                       QStringLiteral("No such container: 4a3b"), 404);
}

} // namespace

class TestSessionNetwork : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void forModeAndSpec_data();
    void forModeAndSpec();
    void createAdoptsOnlyItsOwn_data();
    void createAdoptsOnlyItsOwn();
    void transientStartErrors_data();
    void transientStartErrors();
    void retryAwaitsTheNodesTeardown();
    void removeLeavesWhatIsNotOurs_data();
    void removeLeavesWhatIsNotOurs();
    void removalStaysWithinItsDeadline_data();
    void removalStaysWithinItsDeadline();
    void removalDeletesOnlyOrphanEndpoints_data();
    void removalDeletesOnlyOrphanEndpoints();
    void leaveFirstStopsAtASilentHost_data();
    void leaveFirstStopsAtASilentHost();
};

void TestSessionNetwork::forModeAndSpec_data()
{
    QTest::addColumn<QString>("mode");
    QTest::addColumn<QString>("driver");
    QTest::addColumn<bool>("attachable");
    QTest::newRow("single-node: a bridge") << QStringLiteral("single-node") << "bridge" << false;
    QTest::newRow("multi-node: an attachable overlay")
        << QStringLiteral("multi-node") << "overlay" << true;
}

void TestSessionNetwork::forModeAndSpec()
{
    QFETCH(QString, mode);
    QFETCH(QString, driver);
    QFETCH(bool, attachable);
    const auto parsed = parseMode(mode);
    QVERIFY(parsed);
    const auto network = SessionNetwork::forMode(*parsed);
    QCOMPARE(network->driverName(), driver);
    FakeDockerHost host(QStringLiteral("h1"));
    auto made = network->create(scope(1450), QStringLiteral("h1"), host);
    QVERIFY2(made, qPrintable(made ? QString() : made.error().toString()));
    QVERIFY(!made->reused);
    auto info = host.inspectNetwork(QStringLiteral("cd-3f2c8a1e"));
    QVERIFY(info);
    QCOMPARE(info->id, made->id);
    QCOMPARE(info->driver, driver);
    QCOMPARE(info->attachable, attachable);
    QCOMPARE(info->labels.value(Labels::session()), kSession);
    QCOMPARE(info->labels.value(Labels::store()), kStore);
    QCOMPARE(info->options.value(QStringLiteral("com.docker.network.driver.mtu")),
             QStringLiteral("1450"));
}

void TestSessionNetwork::createAdoptsOnlyItsOwn_data()
{
    QTest::addColumn<QString>("session"); // labels of the network already there
    QTest::addColumn<QString>("store");
    QTest::addColumn<bool>("adopted");
    QTest::newRow("this session's, this store's: adopted") << kSession << kStore << true;
    QTest::newRow("an earlier release's URL label: adopted")
        << kSession << QStringLiteral("sqlite:///var/lib/cd/state.db") << true;
    QTest::newRow("another session's: refused")
        << QStringLiteral("3f2c8a1e-ffff-4000-8000-000000000009") << kStore << false;
    QTest::newRow("another store's: refused")
        << kSession << QStringLiteral("11111111-0000-4000-8000-000000000003") << false;
    QTest::newRow("the admin's, unlabelled: refused") << QString() << QString() << false;
}

void TestSessionNetwork::createAdoptsOnlyItsOwn()
{
    QFETCH(QString, session);
    QFETCH(QString, store);
    QFETCH(bool, adopted);
    FakeDockerHost host(QStringLiteral("h1"));
    Docker::NetworkSpec existing;
    existing.name = QStringLiteral("cd-3f2c8a1e");
    if (!session.isEmpty())
        existing.labels.insert(Labels::session(), session);
    if (!store.isEmpty())
        existing.labels.insert(Labels::store(), store);
    auto id = host.createNetwork(existing);
    QVERIFY(id);

    SessionNetwork::Scope s = scope();
    s.self = StoreIdentity(kStore, {QStringLiteral("sqlite:///var/lib/cd/state.db")});
    BridgeNetwork network;
    auto made = network.create(s, QStringLiteral("h1"), host);
    QCOMPARE(bool(made), adopted);
    if (adopted) {
        QCOMPARE(made->id, *id);
        QVERIFY(made->reused);
    } else {
        // The error names the network and the host, and keeps the daemon's message.
        const QString text = made.error().toString();
        QVERIFY2(text.contains(QStringLiteral("cd-3f2c8a1e")) &&
                     text.contains(QStringLiteral("host h1")) &&
                     text.contains(QStringLiteral("already exists")),
                 qPrintable(text));
    }
}

void TestSessionNetwork::transientStartErrors_data()
{
    QTest::addColumn<QString>("mode");
    QTest::addColumn<bool>("reused");
    QTest::addColumn<QList<Error>>("errors");
    QTest::addColumn<QList<bool>>("transient");
    const QString multi = QStringLiteral("multi-node");
    QTest::newRow("overlay: an attachment timeout is passing")
        << multi << false << QList<Error>{attachmentTimeout(), attachmentTimeout()}
        << QList<bool>{true, true};
    QTest::newRow("fresh overlay: the node does not know it yet")
        << multi << false << QList<Error>{networkNotFound()} << QList<bool>{true};
    QTest::newRow("reused overlay: not found is the teardown wait's, final")
        << multi << true << QList<Error>{networkNotFound()} << QList<bool>{false};
    QTest::newRow("reused overlay: not found after a timeout is its aftermath")
        << multi << true << QList<Error>{attachmentTimeout(), networkNotFound()}
        << QList<bool>{true, true};
    QTest::newRow("overlay: another 404 is final")
        << multi << false << QList<Error>{otherNotFound()} << QList<bool>{false};
    QTest::newRow("bridge: nothing is the network's passing trouble")
        << QStringLiteral("single-node") << false
        << QList<Error>{attachmentTimeout(), networkNotFound()} << QList<bool>{false, false};
}

void TestSessionNetwork::transientStartErrors()
{
    QFETCH(QString, mode);
    QFETCH(bool, reused);
    QFETCH(QList<Error>, errors);
    QFETCH(QList<bool>, transient);
    const auto network = SessionNetwork::forMode(*parseMode(mode));
    SessionNetwork::StartAttempts attempts;
    for (int i = 0; i < errors.size(); ++i)
        QCOMPARE(network->isTransientStartError(errors.at(i), reused, attempts), transient.at(i));
}

// After an attachment timeout the next start waits (bounded) until the node has dropped the
// instance of the network it made for that attachment: a start into it would fail "not found".
void TestSessionNetwork::retryAwaitsTheNodesTeardown()
{
    FakeDockerHost host(QStringLiteral("h2"));
    host.setNetworkTeardownInspects(6);
    SwarmOverlayNetwork network;
    auto made = network.create(scope(), QStringLiteral("h2"), host);
    QVERIFY(made);
    Docker::ContainerSpec spec;
    spec.name = QStringLiteral("worker1");
    spec.image = QStringLiteral("busybox");
    spec.endpoints.insert(QStringLiteral("cd-3f2c8a1e"), {});
    auto created = host.createContainer(spec);
    QVERIFY(created);
    host.addFault({QStringLiteral("startContainer"), 1, attachmentTimeout()});
    auto started = host.startContainer(created->id);
    QVERIFY(!started);
    SessionNetwork::StartAttempts attempts;
    QVERIFY(network.isTransientStartError(started.error(), false, attempts));
    const int inspects = host.calls(QStringLiteral("inspectNetwork"));
    network.prepareRetry(scope(), QStringLiteral("h2"), host, false, attempts);
    QCOMPARE(host.calls(QStringLiteral("inspectNetwork")) - inspects, 7); // 6 dropping, then gone
    auto again = host.startContainer(created->id);
    QVERIFY2(again, qPrintable(again ? QString() : again.error().toString()));
    QCOMPARE(host.stuckAttachments(), 0);
}

void TestSessionNetwork::removeLeavesWhatIsNotOurs_data()
{
    QTest::addColumn<QString>("session");
    QTest::addColumn<bool>("removed");
    QTest::newRow("ours: removed") << kSession << true;
    QTest::newRow("another session's of that name: left alone")
        << QStringLiteral("3f2c8a1e-ffff-4000-8000-000000000009") << false;
}

void TestSessionNetwork::removeLeavesWhatIsNotOurs()
{
    QFETCH(QString, session);
    QFETCH(bool, removed);
    FakeDockerHost host(QStringLiteral("h1"));
    Docker::NetworkSpec existing;
    existing.name = QStringLiteral("cd-3f2c8a1e");
    existing.labels = {{Labels::session(), session}, {Labels::store(), kStore}};
    QVERIFY(host.createNetwork(existing));
    SessionNetwork::Removal removal;
    removal.deadline = std::chrono::steady_clock::now() + 2s;
    removal.call = [] {
        return std::optional<Docker::CallOptions>(Docker::CallOptions{});
    };
    BridgeNetwork network;
    auto ok = network.remove(scope(), QStringLiteral("h1"), host, removal);
    QVERIFY2(ok, qPrintable(ok ? QString() : ok.error().toString()));
    QCOMPARE(host.inspectNetwork(QStringLiteral("cd-3f2c8a1e")).has_value(), !removed);
    // Gone is done: a second removal has nothing to do.
    QVERIFY(network.remove(scope(), QStringLiteral("h1"), host, removal));
}

void TestSessionNetwork::removalStaysWithinItsDeadline_data()
{
    QTest::addColumn<QStringList>("silent"); // hosts that do not answer
    QTest::addColumn<int>("deadlineMs");
    QTest::addColumn<int>("atMostMs");
    QTest::addColumn<QString>("note");
    QTest::newRow("everyone answers: until the removal's deadline")
        << QStringList() << 1500 << 2500 << QString();
    QTest::newRow("h3 does not answer: the swarm keeps its attachment, 5 s at most")
        << QStringList{QStringLiteral("h3")} << 60000 << 6500
        << QStringLiteral("the swarm keeps the attachment of host(s) h3");
}

// An endpoint that never leaves (a container still on the network): the removal is refused
// with the daemon's message, and gives up in time, naming the hosts that hold the attachment.
void TestSessionNetwork::removalStaysWithinItsDeadline()
{
    QFETCH(QStringList, silent);
    QFETCH(int, deadlineMs);
    QFETCH(int, atMostMs);
    QFETCH(QString, note);
    FakeDockerHost host(QStringLiteral("h1"));
    SwarmOverlayNetwork network;
    QVERIFY(network.create(scope(), QStringLiteral("h1"), host));
    Docker::ContainerSpec spec;
    spec.name = QStringLiteral("master1");
    spec.image = QStringLiteral("busybox");
    spec.endpoints.insert(QStringLiteral("cd-3f2c8a1e"), {});
    QVERIFY(host.createContainer(spec));

    SessionNetwork::Removal removal;
    removal.deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(deadlineMs);
    removal.call = [] {
        return std::optional<Docker::CallOptions>(Docker::CallOptions{});
    };
    removal.silentHosts = QSet<QString>(silent.cbegin(), silent.cend());
    removal.silentHosts.insert(QStringLiteral("h1")); // the network's own host never counts
    QElapsedTimer t;
    t.start();
    auto ok = network.remove(scope(), QStringLiteral("h1"), host, removal);
    QVERIFY(!ok);
    QVERIFY2(t.elapsed() < atMostMs, qPrintable(QString::number(t.elapsed())));
    const QString text = ok.error().toString();
    QVERIFY2(text.contains(QStringLiteral("active endpoints")), qPrintable(text));
    QCOMPARE(text.contains(QStringLiteral("the swarm keeps")), !note.isEmpty());
    if (!note.isEmpty())
        QVERIFY2(text.contains(note), qPrintable(text));
    QVERIFY(host.inspectNetwork(QStringLiteral("cd-3f2c8a1e"))); // still there
}

void TestSessionNetwork::removalDeletesOnlyOrphanEndpoints_data()
{
    QTest::addColumn<QString>("staleEndpoint");   // an endpoint whose container is gone
    QTest::addColumn<bool>("staleCount");         // dockerd counts an endpoint it does not list
    QTest::addColumn<QString>("attached");        // a live container on the network: its name
    QTest::addColumn<QString>("attachedSession"); // its session label ("": none)
    QTest::addColumn<QString>("named");           // what the error says ("": removed)
    const QString other = QStringLiteral("3f2c8a1e-ffff-4000-8000-000000000009");
    QTest::newRow("an endpoint dockerd did not release: deleted, the network removed")
        << QStringLiteral("worker7") << false << QString() << QString() << QString();
    QTest::newRow("another owner's container on it: left alone and named")
        << QString() << false << QStringLiteral("theirs") << other
        << QStringLiteral("what holds it on host h1: theirs (container ");
    QTest::newRow("a kernel of this session still on it: left alone and named")
        << QString() << false << QStringLiteral("worker2") << kSession
        << QStringLiteral("worker2 (container ");
    // Docker would disconnect the live container of that name: the endpoint is left.
    QTest::newRow("an orphan endpoint whose name a live container has: left alone")
        << QStringLiteral("worker7") << false << QStringLiteral("worker7") << other
        << QStringLiteral("worker7 (container ");
    QTest::newRow("dockerd counts an endpoint it does not list: named, with what ends it")
        << QString() << true << QString() << QString()
        << QStringLiteral("no endpoint, yet dockerd counts some");
}

// Removal refused by endpoints that outlast the session's containers: one whose container is
// gone is deleted by a forced disconnect (nothing else would ever release it); a container's,
// whoever's it is, is left alone and named in the error.
void TestSessionNetwork::removalDeletesOnlyOrphanEndpoints()
{
    QFETCH(QString, staleEndpoint);
    QFETCH(bool, staleCount);
    QFETCH(QString, attached);
    QFETCH(QString, attachedSession);
    QFETCH(QString, named);
    FakeDockerHost host(QStringLiteral("h1"));
    BridgeNetwork network;
    QVERIFY(network.create(scope(), QStringLiteral("h1"), host));
    if (!staleEndpoint.isEmpty())
        host.addStaleEndpoint(QStringLiteral("cd-3f2c8a1e"), staleEndpoint);
    if (staleCount)
        host.addStaleEndpointCount(QStringLiteral("cd-3f2c8a1e"));
    if (!attached.isEmpty()) {
        Docker::ContainerSpec spec;
        spec.name = attached;
        spec.image = QStringLiteral("busybox");
        spec.labels = {{Labels::session(), attachedSession}, {Labels::store(), kStore}};
        // The live namesake of an orphan endpoint is on another network.
        if (attached != staleEndpoint)
            spec.endpoints.insert(QStringLiteral("cd-3f2c8a1e"), {});
        QVERIFY(host.createContainer(spec));
    }
    SessionNetwork::Removal removal;
    removal.deadline = std::chrono::steady_clock::now() + 1600ms; // one look at what holds it
    removal.call = [] {
        return std::optional<Docker::CallOptions>(Docker::CallOptions{});
    };
    auto ok = network.remove(scope(), QStringLiteral("h1"), host, removal);
    if (named.isEmpty()) {
        QVERIFY2(ok, qPrintable(ok ? QString() : ok.error().toString()));
        QVERIFY(!host.inspectNetwork(QStringLiteral("cd-3f2c8a1e")));
        QCOMPARE(host.calls(QStringLiteral("disconnectNetwork")), 1);
        return;
    }
    QVERIFY(!ok);
    const QString text = ok.error().toString();
    QVERIFY2(text.contains(QStringLiteral("active endpoints")), qPrintable(text));
    QVERIFY2(text.contains(named), qPrintable(text));
    QCOMPARE(host.calls(QStringLiteral("disconnectNetwork")), 0);
    QVERIFY(host.inspectNetwork(QStringLiteral("cd-3f2c8a1e"))); // still there
    if (!attached.isEmpty()) {
        QVERIFY2(text.contains(QStringLiteral(": left alone")), qPrintable(text));
        QVERIFY(host.container(attached)); // and so is the container
    }
}

QTEST_GUILESS_MAIN(TestSessionNetwork)
void TestSessionNetwork::leaveFirstStopsAtASilentHost_data()
{
    QTest::addColumn<QString>("mode");
    QTest::addColumn<QString>("host"); // answers, down, times out
    QTest::addColumn<int>("disconnects");
    // Four containers, none on the network: each disconnect fails as "not found" and the next
    // one is still asked.
    QTest::newRow("bridge, the host answers: each container") << "single-node"
                                                              << "answers" << 4;
    QTest::newRow("bridge, the host is down: one call") << "single-node"
                                                        << "down" << 1;
    QTest::newRow("bridge, the first call times out: one call") << "single-node"
                                                                << "times out" << 1;
    QTest::newRow("swarm overlay: nothing leaves first") << "multi-node"
                                                         << "answers" << 0;
}

void TestSessionNetwork::leaveFirstStopsAtASilentHost()
{
    // Containers leave a host-local bridge one at a time before they are stopped or removed: a
    // host that stops answering costs one call's bound, not one per container.
    QFETCH(QString, mode);
    QFETCH(QString, host);
    QFETCH(int, disconnects);
    FakeDockerHost fake(QStringLiteral("h1"));
    Docker::NetworkSpec existing;
    existing.name = QStringLiteral("cd-3f2c8a1e");
    QVERIFY(fake.createNetwork(existing));
    if (host == QLatin1String("down"))
        fake.setDown(true);
    else if (host == QLatin1String("times out"))
        fake.addFault({QStringLiteral("disconnectNetwork"), 1,
                       Error::make(Error::Kind::Timeout, QStringLiteral("h1"),
                                   QStringLiteral("no answer within 30 s"))});
    const auto parsed = parseMode(mode);
    QVERIFY(parsed);
    const auto network = SessionNetwork::forMode(*parsed);
    network->leaveFirst(
        existing.name, QStringLiteral("h1"), fake,
        {QStringLiteral("a"), QStringLiteral("b"), QStringLiteral("c"), QStringLiteral("d")},
        [] { return std::optional<Docker::CallOptions>(Docker::CallOptions{}); });
    QCOMPARE(fake.calls(QStringLiteral("disconnectNetwork")), disconnects);
}

#include "tst_sessionnetwork.moc"
