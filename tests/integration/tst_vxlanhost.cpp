// The host side of a VXLAN session network (issue 26, item 2) on two lab hosts, through the
// Engine API alone: the bridge networks of one /24 (gateway .1 on h1, .2 on h2), the VXLAN step
// by the helper container on each, kernels with static addresses and ExtraHosts that ping each
// other by hostname across the hosts, a second session (another VNI and subnet) that cannot
// reach the first, the step run again (same device) and with another peer set, and teardown
// leaving neither VXLAN device (checked in the hosts' network namespaces) nor helper container.
// Endpoints come from `eval "$(scripts/lab.sh env)"`; without them the test FAILS. Works with or
// without a swarm on the lab (the devices use VNIs far from Swarm's).

#include "common/labels.h"
#include "docker/dockerclient.h"
#include "labaddress.h"
#include "network/helpercontainer.h"
#include "network/nethelperimage.h"
#include "network/vxlanhostsetup.h"
#include "network/vxlansegment.h"

#include <QElapsedTimer>
#include <QProcess>
#include <QTest>
#include <QUuid>

#include <future>

using namespace ClusterDeck;
using namespace ClusterDeck::Docker;
using namespace std::chrono_literals;

namespace {

// On every network and kernel this test makes: what a killed earlier run left is found by it.
const QString kTestLabel = QStringLiteral("io.clusterdeck.test");
const QString kTestValue = QStringLiteral("tst_vxlanhost");
const quint32 kVniA = 7101;
const quint32 kVniB = 7102;
const quint32 kVniRace = 7103;

template<typename T>
QByteArray why(const Result<T> &r)
{
    return r ? QByteArray() : r.error().toString().toUtf8();
}

CallOptions within(std::chrono::milliseconds timeout)
{
    CallOptions options;
    options.timeout = timeout;
    return options;
}

struct LabHost
{
    QString name; // "h1"
    QString address;
    QString netns; // the host's network namespace: cdlab-h1 (lab 0), cdl1-h1 (lab 1), …
    std::shared_ptr<DockerClient> client;
};

// `ip` or `bridge` run in a host's network namespace, as an admin on the host would look.
QString inNetns(const LabHost &host, const QString &tool, const QStringList &args)
{
    QProcess p;
    p.start(tool, QStringList{QStringLiteral("-n"), host.netns} + args);
    if (!p.waitForFinished(5000) || p.exitCode() != 0)
        return tool + QStringLiteral(" failed: ") + QString::fromUtf8(p.readAllStandardError());
    return QString::fromUtf8(p.readAllStandardOutput());
}

QString vxlanLinks(const LabHost &host)
{
    return inNetns(host, QStringLiteral("ip"),
                   {QStringLiteral("-d"), QStringLiteral("-o"), QStringLiteral("link"),
                    QStringLiteral("show"), QStringLiteral("type"), QStringLiteral("vxlan")});
}

// The device's index (0: none) and the destinations of its all-zero forwarding entries, sorted.
int ifindexOf(const LabHost &host, const QString &device)
{
    const QString line = inNetns(host, QStringLiteral("ip"),
                                 {QStringLiteral("-o"), QStringLiteral("link"),
                                  QStringLiteral("show"), QStringLiteral("dev"), device});
    return line.section(u':', 0, 0).toInt();
}

QStringList fdbPeers(const LabHost &host, const QString &device)
{
    QStringList peers;
    const QString out =
        inNetns(host, QStringLiteral("bridge"),
                {QStringLiteral("fdb"), QStringLiteral("show"), QStringLiteral("dev"), device});
    for (const QString &line : out.split(u'\n', Qt::SkipEmptyParts)) {
        const QStringList w = line.split(u' ', Qt::SkipEmptyParts);
        if (w.size() >= 3 && w[0] == QLatin1String("00:00:00:00:00:00") &&
            w[1] == QLatin1String("dst"))
            peers.append(w[2]);
    }
    peers.sort();
    return peers;
}

void deleteLink(const LabHost &host, const QString &device)
{
    QProcess ip; // "Cannot find device" when there is none: nothing to say
    ip.start(QStringLiteral("ip"), {QStringLiteral("-n"), host.netns, QStringLiteral("link"),
                                    QStringLiteral("del"), device});
    ip.waitForFinished(5000);
}

} // namespace

class TestVxlanHost : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void cleanupTestCase();
    void helperImage();
    void pingAcrossHosts();
    void secondSessionIsolated();
    void applyAgain_data();
    void applyAgain();
    void killedRunConverges();
    void anotherStoreLeftAlone();
    void sameVniAtOnceOneWins();
    void teardownLeavesNothing();

private:
    struct Session
    {
        VxlanSegment segment;
        QMap<QString, QString> containers; // hostname → container id
    };
    VxlanSegment segmentOf(quint32 vni, const QString &subnet) const;
    // The session's bridge network and VXLAN device on h1 and h2 (at once).
    void setUpNetwork(const VxlanSegment &segment);
    // A kernel on `host` at `address` that knows `hosts` (hostname → address).
    QString startKernel(const LabHost &host, const VxlanSegment &segment, const QString &hostname,
                        const QString &address, const QMap<QString, QString> &hosts);
    int exec(const LabHost &host, const QString &container, const QStringList &cmd,
             QByteArray *output = nullptr);
    void removeLeftovers();

    QList<LabHost> m_hosts; // h1, h2
    StoreIdentity m_store;
    std::shared_ptr<const NetHelperImage> m_image;
    std::unique_ptr<VxlanHostSetup> m_setup;
    Session m_a;
    Session m_b;
    QString m_image_lab;
};

VxlanSegment TestVxlanHost::segmentOf(quint32 vni, const QString &subnet) const
{
    VxlanSegment s;
    s.sessionId = QUuid::createUuid().toString(QUuid::WithoutBraces);
    s.vni = vni;
    s.subnet = subnet;
    return s;
}

void TestVxlanHost::initTestCase()
{
    QElapsedTimer timer;
    timer.start();
    const QString labId = qEnvironmentVariable("CLUSTERDECK_LAB_ID", QStringLiteral("0"));
    const QString prefix = labId == QLatin1String("0") ? QStringLiteral("cdlab-")
                                                       : QStringLiteral("cdl%1-").arg(labId);
    for (const QString &name : {QStringLiteral("h1"), QStringLiteral("h2")}) {
        const QByteArray var = "CLUSTERDECK_LAB_" + name.toUpper().toLatin1();
        const QString url = qEnvironmentVariable(QByteArray(var + "_DOCKER").constData());
        QVERIFY2(!url.isEmpty(), "the lab is not up: eval \"$(scripts/lab.sh env)\"");
        auto endpoint = DockerEndpoint::parse(url);
        QVERIFY2(endpoint, why(endpoint));
        m_hosts.append(LabHost{name, qEnvironmentVariable(QByteArray(var + "_ADDR").constData()),
                               prefix + name, std::make_shared<DockerClient>(*endpoint, name)});
        QVERIFY(!m_hosts.last().address.isEmpty());
    }
    m_image_lab =
        qEnvironmentVariable("CLUSTERDECK_LAB_IMAGE", QStringLiteral("clusterdeck/lab:latest"));
    m_store = StoreIdentity(QUuid::createUuid().toString(QUuid::WithoutBraces));
    auto image = NetHelperImage::local();
    QVERIFY2(image, why(image));
    m_image = *image;
    m_setup = std::make_unique<VxlanHostSetup>(m_store, m_image);
    m_a.segment = segmentOf(kVniA, QStringLiteral("10.231.1.0/24"));
    m_b.segment = segmentOf(kVniB, QStringLiteral("10.231.2.0/24"));
    removeLeftovers();
    qInfo("initTestCase: %lld ms", timer.elapsed());
}

void TestVxlanHost::removeLeftovers()
{
    // What a killed earlier run left: its kernels, networks and devices (of another store id,
    // so removed here by hand, not by the helper).
    for (const LabHost &h : std::as_const(m_hosts)) {
        ContainerListOptions list;
        list.labels = {kTestLabel + QLatin1Char('=') + kTestValue};
        if (auto found = h.client->listContainers(list, within(10s))) {
            for (const ContainerSummary &c : std::as_const(*found))
                (void)h.client->removeContainer(c.id, {true, false}, within(10s));
        }
        if (auto nets =
                h.client->listNetworks({kTestLabel + QLatin1Char('=') + kTestValue}, within(10s))) {
            for (const NetworkInfo &n : std::as_const(*nets))
                (void)h.client->removeNetwork(n.id, within(10s));
        }
        for (const quint32 vni : {kVniA, kVniB, kVniRace})
            deleteLink(h, QStringLiteral("cdvx%1").arg(vni));
    }
}

void TestVxlanHost::cleanupTestCase()
{
    removeLeftovers();
}

void TestVxlanHost::helperImage()
{
    // Imported where missing, then found by its tag: the same reference on both hosts.
    QElapsedTimer timer;
    timer.start();
    for (const LabHost &h : std::as_const(m_hosts)) {
        auto ref = m_image->ensureOn(*h.client, within(60s));
        QVERIFY2(ref, why(ref));
        QCOMPARE(*ref, m_image->reference());
        auto info = h.client->inspectImage(*ref, within(10s));
        QVERIFY2(info, why(info));
        QCOMPARE(info->labels.value(Labels::helper()), QStringLiteral("nethelper"));
    }
    qInfo("helper image on both hosts: %lld ms", timer.elapsed());
}

void TestVxlanHost::setUpNetwork(const VxlanSegment &segment)
{
    QElapsedTimer timer;
    timer.start();
    std::vector<std::future<QByteArray>> steps;
    for (int i = 0; i < m_hosts.size(); ++i) {
        steps.push_back(std::async(std::launch::async, [this, i, segment]() -> QByteArray {
            const LabHost &h = m_hosts[i];
            Docker::NetworkSpec spec =
                segment.networkSpec(m_store.id, segment.gatewayFor(i + 1).value());
            spec.labels.insert(kTestLabel, kTestValue);
            auto id = h.client->createNetwork(spec, within(20s));
            if (!id)
                return why(id);
            VxlanHostSetup::Request request{segment, h.address, {m_hosts[1 - i].address}};
            auto device = m_setup->apply(*h.client, request, within(30s));
            if (!device)
                return why(device);
            if (device->master != segment.bridgeName() || !device->up)
                return "device not attached and up";
            return {};
        }));
    }
    for (auto &step : steps) {
        const QByteArray error = step.get();
        QVERIFY2(error.isEmpty(), error.constData());
    }
    qInfo("network %s (VNI %u) on both hosts: %lld ms", qPrintable(segment.networkName()),
          segment.vni, timer.elapsed());
}

QString TestVxlanHost::startKernel(const LabHost &host, const VxlanSegment &segment,
                                   const QString &hostname, const QString &address,
                                   const QMap<QString, QString> &hosts)
{
    ContainerSpec spec;
    spec.name = Labels::containerName(segment.sessionId, hostname);
    spec.image = m_image_lab;
    spec.hostname = hostname;
    spec.cmd = {QStringLiteral("sleep"), QStringLiteral("600")};
    spec.labels = {{Labels::session(), segment.sessionId},
                   {Labels::store(), m_store.id},
                   {Labels::hostname(), hostname},
                   {kTestLabel, kTestValue}};
    spec.networkMode = segment.networkName();
    spec.endpoints.insert(segment.networkName(), EndpointSpec{{hostname}, address});
    for (auto it = hosts.cbegin(); it != hosts.cend(); ++it)
        spec.extraHosts.append(it.key() + QLatin1Char(':') + it.value());
    auto created = host.client->createContainer(spec, within(20s));
    if (!created) {
        qWarning("%s", why(created).constData());
        return {};
    }
    if (auto started = host.client->startContainer(created->id, within(20s)); !started) {
        qWarning("%s", why(started).constData());
        return {};
    }
    return created->id;
}

int TestVxlanHost::exec(const LabHost &host, const QString &container, const QStringList &cmd,
                        QByteArray *output)
{
    ExecSpec spec;
    spec.cmd = cmd;
    QByteArray out;
    auto code = host.client->runExec(
        container, spec,
        [&](const LogFrame &frame) {
            out += frame.data;
            return true;
        },
        within(15s));
    if (output)
        *output = out;
    if (!code) {
        qWarning("%s", why(code).constData());
        return -1;
    }
    return *code;
}

void TestVxlanHost::pingAcrossHosts()
{
    setUpNetwork(m_a.segment);
    const QMap<QString, QString> hosts{{QStringLiteral("master1"), QStringLiteral("10.231.1.11")},
                                       {QStringLiteral("worker1"), QStringLiteral("10.231.1.12")}};
    QElapsedTimer timer;
    timer.start();
    m_a.containers[QStringLiteral("master1")] =
        startKernel(m_hosts[0], m_a.segment, QStringLiteral("master1"), hosts["master1"], hosts);
    m_a.containers[QStringLiteral("worker1")] =
        startKernel(m_hosts[1], m_a.segment, QStringLiteral("worker1"), hosts["worker1"], hosts);
    QVERIFY(!m_a.containers["master1"].isEmpty() && !m_a.containers["worker1"].isEmpty());
    QByteArray out;
    QCOMPARE(exec(m_hosts[0], m_a.containers["master1"],
                  {QStringLiteral("ping"), QStringLiteral("-c1"), QStringLiteral("-W3"),
                   QStringLiteral("worker1")},
                  &out),
             0);
    QVERIFY2(out.contains("10.231.1.12"), out.constData());
    QCOMPARE(exec(m_hosts[1], m_a.containers["worker1"],
                  {QStringLiteral("ping"), QStringLiteral("-c1"), QStringLiteral("-W3"),
                   QStringLiteral("master1")},
                  &out),
             0);
    QVERIFY2(out.contains("10.231.1.11"), out.constData());
    qInfo("kernels started and pinged across hosts: %lld ms", timer.elapsed());
}

void TestVxlanHost::secondSessionIsolated()
{
    setUpNetwork(m_b.segment);
    const QMap<QString, QString> hosts{{QStringLiteral("master1"), QStringLiteral("10.231.2.11")}};
    m_b.containers[QStringLiteral("master1")] =
        startKernel(m_hosts[0], m_b.segment, QStringLiteral("master1"), hosts["master1"], hosts);
    QVERIFY(!m_b.containers["master1"].isEmpty());
    // Neither the first session's kernel on the other host (another VNI) nor the one on the
    // same host (another bridge) answers: both tried at once, each exit code printed.
    QByteArray out;
    QCOMPARE(exec(m_hosts[0], m_b.containers["master1"],
                  {QStringLiteral("sh"), QStringLiteral("-c"),
                   QStringLiteral("ping -c1 -W1 10.231.1.12 >/dev/null 2>&1 & remote=$!; "
                                  "ping -c1 -W1 10.231.1.11 >/dev/null 2>&1; local=$?; "
                                  "wait $remote; echo \"remote=$? local=$local\"")},
                  &out),
             0);
    QVERIFY2(!out.contains("remote=0") && !out.contains("local=0") && out.contains("remote="),
             out.constData());
    // And the first session still works.
    QCOMPARE(exec(m_hosts[0], m_a.containers["master1"],
                  {QStringLiteral("ping"), QStringLiteral("-c1"), QStringLiteral("-W3"),
                   QStringLiteral("worker1")}),
             0);
}

void TestVxlanHost::applyAgain_data()
{
    // Rows run in order on h1's device of the first session.
    QTest::addColumn<QStringList>("peers"); // "h2" for h2's address, else an address
    QTest::newRow("the same again: same device, same entries") << QStringList{"h2"};
    QTest::newRow("a peer added") << QStringList{"h2", labSubnetAddress(250)};
    QTest::newRow("a peer removed: its entry goes") << QStringList{labSubnetAddress(250)};
    QTest::newRow("back to the session's peer") << QStringList{"h2"};
}

void TestVxlanHost::applyAgain()
{
    QFETCH(QStringList, peers);
    peers.replaceInStrings(QStringLiteral("h2"), m_hosts[1].address);
    const LabHost &h1 = m_hosts[0];
    const QString device = m_a.segment.deviceName();
    const int before = ifindexOf(h1, device);
    QVERIFY(before > 0);
    QElapsedTimer timer;
    timer.start();
    auto after = m_setup->apply(*h1.client, {m_a.segment, h1.address, peers}, within(30s));
    QVERIFY2(after, why(after));
    qInfo("apply: %lld ms", timer.elapsed());
    QCOMPARE(after->ifindex, before); // kept, not made again
    peers.sort();
    QCOMPARE(after->peers, peers);
    // As the host's own `bridge fdb` says it: exactly these destinations.
    QCOMPARE(fdbPeers(h1, device), peers);
    QCOMPARE(ifindexOf(h1, device), before);
    if (peers.contains(m_hosts[1].address))
        QCOMPARE(exec(h1, m_a.containers["master1"],
                      {QStringLiteral("ping"), QStringLiteral("-c1"), QStringLiteral("-W3"),
                       QStringLiteral("worker1")}),
                 0);
}

void TestVxlanHost::killedRunConverges()
{
    // What a kill -9 of the console leaves on h2: its helper still running (the next run's
    // name is taken), a device made but not yet marked (killed between `ip link add`, which
    // attaches it to the session's bridge, and the alias), and an exited helper of another of
    // this store's sessions.
    const LabHost &h2 = m_hosts[1];
    const auto leftover = h2.client->createContainer(
        HelperContainer::containerSpec(
            m_setup->helperRun(m_a.segment.sessionId, QStringLiteral("exec ip monitor link"))),
        within(10s));
    QVERIFY2(leftover, why(leftover));
    QVERIFY(h2.client->startContainer(leftover->id, within(10s)));
    const auto exited = h2.client->createContainer(
        HelperContainer::containerSpec(m_setup->helperRun(
            QUuid::createUuid().toString(QUuid::WithoutBraces), QStringLiteral("true"))),
        within(10s));
    QVERIFY2(exited, why(exited));
    QVERIFY(h2.client->startContainer(exited->id, within(10s)));
    QVERIFY(h2.client->followLogs(
        exited->id, {}, [](const LogFrame &) { return true; }, within(10s)));
    deleteLink(h2, m_a.segment.deviceName());
    QProcess ip;
    ip.start(QStringLiteral("ip"),
             {QStringLiteral("-n"), h2.netns, QStringLiteral("link"), QStringLiteral("add"),
              m_a.segment.deviceName(), QStringLiteral("master"), m_a.segment.bridgeName(),
              QStringLiteral("type"), QStringLiteral("vxlan"), QStringLiteral("id"),
              QString::number(m_a.segment.vni), QStringLiteral("dstport"),
              QString::number(m_a.segment.port), QStringLiteral("local"), h2.address,
              QStringLiteral("dev"), QStringLiteral("eth0"), QStringLiteral("nolearning")});
    QVERIFY(ip.waitForFinished(5000));
    QVERIFY2(ip.exitCode() == 0, ip.readAllStandardError().constData());

    QElapsedTimer timer;
    timer.start();
    auto device =
        m_setup->apply(*h2.client, {m_a.segment, h2.address, {m_hosts[0].address}}, within(30s));
    QVERIFY2(device, why(device));
    qInfo("apply over a killed run's leftovers: %lld ms", timer.elapsed());
    QCOMPARE(device->owner, VxlanHostSetup::ownerAlias(m_store.id, m_a.segment.sessionId));
    QCOMPARE(device->master, m_a.segment.bridgeName());
    QVERIFY(!h2.client->inspectContainer(leftover->id, within(10s)));
    auto swept = m_setup->removeLeftoverHelpers(*h2.client, within(10s));
    QVERIFY2(swept, why(swept));
    QCOMPARE(*swept, 1);
    QVERIFY(!h2.client->inspectContainer(exited->id, within(10s)));
    QCOMPARE(exec(m_hosts[0], m_a.containers["master1"],
                  {QStringLiteral("ping"), QStringLiteral("-c1"), QStringLiteral("-W3"),
                   QStringLiteral("worker1")}),
             0);
}

void TestVxlanHost::anotherStoreLeftAlone()
{
    // Another store with the same VNI on this host: refused as a conflict, and its teardown
    // leaves this store's device.
    const VxlanHostSetup other(StoreIdentity(QUuid::createUuid().toString(QUuid::WithoutBraces)),
                               m_image);
    const LabHost &h1 = m_hosts[0];
    auto applied =
        other.apply(*h1.client, {m_a.segment, h1.address, {m_hosts[1].address}}, within(30s));
    QVERIFY(!applied);
    QCOMPARE(applied.error().kind, Error::Kind::Conflict);
    QVERIFY2(applied.error().toString().contains(QLatin1String("h1")), why(applied));
    auto removed = other.teardown(*h1.client, m_a.segment, within(30s));
    QVERIFY2(removed, why(removed));
    QCOMPARE(*removed, VxlanHostSetup::Removal::NotOurs);
    QVERIFY(vxlanLinks(h1).contains(m_a.segment.deviceName()));
}

void TestVxlanHost::sameVniAtOnceOneWins()
{
    // Two stores that claimed the same VNI for their sessions set it up on one host at the same
    // moment (CI, 12-06: the loser adopted the winner's device while it was not yet marked and
    // failed with "set up, but not as asked: bridge …" instead of claiming another VNI). Each
    // round exactly one wins and the other is told Conflict, which makes it claim another.
    const StoreIdentity otherStore(QUuid::createUuid().toString(QUuid::WithoutBraces));
    const VxlanHostSetup other(otherStore, m_image);
    const LabHost &h1 = m_hosts[0];
    const VxlanSegment mine = segmentOf(kVniRace, QStringLiteral("10.231.3.0/24"));
    const VxlanSegment theirs = segmentOf(kVniRace, QStringLiteral("10.231.4.0/24"));
    for (const auto &[segment, store] :
         {std::pair{&mine, m_store.id}, std::pair{&theirs, otherStore.id}}) {
        Docker::NetworkSpec spec = segment->networkSpec(store, segment->gatewayFor(1).value());
        spec.labels.insert(kTestLabel, kTestValue);
        auto id = h1.client->createNetwork(spec, within(20s));
        QVERIFY2(id, why(id));
    }
    const int rounds = 6;
    int mineWon = 0;
    for (int round = 0; round < rounds; ++round) {
        const VxlanHostSetup::Request a{mine, h1.address, {m_hosts[1].address}};
        const VxlanHostSetup::Request b{theirs, h1.address, {m_hosts[1].address}};
        auto first = std::async(std::launch::async,
                                [&] { return m_setup->apply(*h1.client, a, within(30s)); });
        auto second =
            std::async(std::launch::async, [&] { return other.apply(*h1.client, b, within(30s)); });
        const auto ra = first.get();
        const auto rb = second.get();
        QVERIFY2(bool(ra) != bool(rb),
                 qPrintable(QStringLiteral("round %1: %2 | %3")
                                .arg(round)
                                .arg(ra ? QStringLiteral("ok") : ra.error().toString(),
                                     rb ? QStringLiteral("ok") : rb.error().toString())));
        const auto &lost = ra ? rb : ra;
        QVERIFY2(lost.error().kind == Error::Kind::Conflict, why(lost));
        const VxlanHostSetup &winner = ra ? *m_setup : other;
        const VxlanSegment &won = ra ? mine : theirs;
        QCOMPARE((ra ? *ra : *rb).master, won.bridgeName());
        mineWon += ra ? 1 : 0;
        auto removed = winner.teardown(*h1.client, won, within(30s));
        QVERIFY2(removed, why(removed));
        QCOMPARE(*removed, VxlanHostSetup::Removal::Removed);
    }
    qInfo("the same VNI from two stores at once, %d rounds: this store won %d", rounds, mineWon);
    for (const VxlanSegment *segment : {&mine, &theirs})
        QVERIFY(h1.client->removeNetwork(segment->networkName(), within(20s)));
}

void TestVxlanHost::teardownLeavesNothing()
{
    QElapsedTimer timer;
    timer.start();
    for (Session *s : {&m_a, &m_b}) {
        for (auto it = s->containers.cbegin(); it != s->containers.cend(); ++it) {
            for (const LabHost &h : std::as_const(m_hosts))
                (void)h.client->removeContainer(it.value(), {true, false}, within(10s));
        }
    }
    std::vector<std::future<QByteArray>> steps;
    for (const LabHost &h : std::as_const(m_hosts)) {
        steps.push_back(std::async(std::launch::async, [this, &h]() -> QByteArray {
            for (const Session *s : {&m_a, &m_b}) {
                auto removed = m_setup->teardown(*h.client, s->segment, within(30s));
                if (!removed)
                    return why(removed);
                if (*removed != VxlanHostSetup::Removal::Removed)
                    return "not removed: " + s->segment.deviceName().toUtf8();
                if (auto gone = h.client->removeNetwork(s->segment.networkName(), within(20s));
                    !gone)
                    return why(gone);
            }
            return {};
        }));
    }
    for (auto &step : steps) {
        const QByteArray error = step.get();
        QVERIFY2(error.isEmpty(), error.constData());
    }
    qInfo("teardown of two sessions on two hosts: %lld ms", timer.elapsed());
    // Again: nothing to do (h1); the helper sees no device (h1 by name, h2 in its list).
    const LabHost &h1 = m_hosts[0];
    auto again = m_setup->teardown(*h1.client, m_a.segment, within(30s));
    QVERIFY2(again, why(again));
    QCOMPARE(*again, VxlanHostSetup::Removal::Absent);
    auto seen = m_setup->inspect(*h1.client, m_b.segment, within(30s));
    QVERIFY2(seen, why(seen));
    QVERIFY(!seen->has_value());
    auto all = m_setup->listDevices(*m_hosts[1].client, within(30s));
    QVERIFY2(all, why(all));
    for (const auto &d : std::as_const(*all))
        QVERIFY2(!d.owner.contains(m_store.id), qPrintable(d.name));
    for (const LabHost &h : std::as_const(m_hosts)) {
        // The host's own view, in its network namespace.
        const QString links = vxlanLinks(h);
        QVERIFY2(!links.contains(QLatin1String("ip failed")), qPrintable(links));
        for (const Session *s : {&m_a, &m_b})
            QVERIFY2(!links.contains(s->segment.deviceName() + QLatin1Char(':')),
                     qPrintable(links));
        // No helper container of this store is left, and there is nothing to sweep.
        ContainerListOptions list;
        list.labels = {Labels::helper(), Labels::store() + QLatin1Char('=') + m_store.id};
        auto helpers = h.client->listContainers(list, within(10s));
        QVERIFY2(helpers, why(helpers));
        QVERIFY2(helpers->isEmpty(),
                 helpers->isEmpty() ? "" : qPrintable(helpers->first().names.join(u',')));
        auto swept = m_setup->removeLeftoverHelpers(*h.client, within(10s));
        QVERIFY2(swept, why(swept));
        QCOMPARE(*swept, 0);
    }
}

QTEST_GUILESS_MAIN(TestVxlanHost)
#include "tst_vxlanhost.moc"
