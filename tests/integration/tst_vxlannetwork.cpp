// Multi-node sessions on ClusterDeck's own VXLAN network (issue 26), through `clusterdeckctl`
// against the 3-host lab: kernels on different hosts reach each other by hostname, two sessions
// cannot reach each other, a launch works with h1's dockerd stopped (no manager to lose), a
// scale onto a third host is known by hostname from old and new kernels, and `rm` leaves no
// network, bridge or VXLAN device on any host (checked in the hosts' namespaces with `ip -d
// link`, not only through Docker). Endpoints come from `eval "$(scripts/lab.sh env)"`; without
// them the test FAILS, never skips.

#include "labcli.h"
#include "store/statestore.h"
#include "store/storefactory.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QRegularExpression>
#include <QSet>
#include <QTemporaryDir>
#include <QTest>
#include <QUuid>

#include <QScopeGuard>

#include <algorithm>
#include <memory>

using namespace ClusterDeck;

#ifndef CLUSTERDECKCTL
#error "CLUSTERDECKCTL must name the clusterdeckctl binary"
#endif

namespace {

QString clusterTemplate(const QString &name, int workers, int maxWorkers = 12)
{
    return QStringLiteral(R"(apiVersion: clusterdeck/v1
kind: Cluster
name: %1
mode: multi-node
roles:
  - name: master
    count: 1
    task:
      image: clusterdeck/lab:latest
      command: [sleep, "3600"]
      resources: {cpus: 0.05, memory: 16m}
  - name: worker
    count: %2
    min: 1
    max: %3
    task:
      image: clusterdeck/lab:latest
      command: [sleep, "3600"]
      resources: {cpus: 0.05, memory: 16m}
)")
        .arg(name)
        .arg(workers)
        .arg(maxWorkers);
}

QStringList hostnamesOf(const QJsonObject &session)
{
    QStringList names;
    for (const QJsonValue &v : session.value(QStringLiteral("kernels")).toArray())
        names.append(v.toObject().value(QStringLiteral("hostname")).toString());
    return names;
}

QSet<QString> hostsOf(const QJsonObject &session)
{
    QSet<QString> hosts;
    for (const QJsonValue &v : session.value(QStringLiteral("kernels")).toArray())
        hosts.insert(v.toObject().value(QStringLiteral("host")).toString());
    return hosts;
}

} // namespace

class TestVxlanNetwork : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void init();
    void cleanup();

    void kernelsReachEachOtherByName();
    void withoutTheFirstHost();
    void scaleOntoAnotherHost();
    void lostDeviceIsRepaired();
    void twoStoresAtOnce();
    void vniTakenOnOneHost();

private:
    Proc cli(const QStringList &args, int timeoutMs = 300000) const
    {
        return runProcess(QStringLiteral(CLUSTERDECKCTL),
                          QStringList{QStringLiteral("--store"), m_storeUrl} + args, timeoutMs);
    }
    QJsonObject show(const QString &id) const
    {
        return QJsonDocument::fromJson(
                   cli({QStringLiteral("show"), id, QStringLiteral("--json")}).out)
            .object();
    }
    void addHosts(const QStringList &hosts);
    QJsonObject launch(const QString &name, const QString &yaml);
    // Runs `script` in every kernel of the session; hostname → "ok" or what failed.
    QMap<QString, QString> inEveryKernel(const QString &id, const QString &script) const;
    // Every kernel pings every hostname in `names` (one packet each).
    void expectAllReach(const QString &id, const QStringList &names);
    // On every lab host: VXLAN devices and bridges of the lab hosts' namespaces ("cdvx…",
    // "cdbr…"), and Docker networks named after the sessions.
    // `anyDevice`: every cdvx…/cdbr… device counts, not only the sessions' (after every
    // session of the test is gone), but those that were there before the test function began
    // (another test's on this lab: its own cleanup reports them).
    QStringList leftovers(const QStringList &sessionIds, bool anyDevice = false) const;
    // The VXLAN id of the session's device on `host` (empty: none), and the VNI its network
    // was made with (the label).
    QString vniOf(const QString &id, const QString &host) const;
    QString labelledVniOf(const QString &id, const QString &host) const;
    // Runs `ip ARGS` in the lab host's namespace; its exit code and output.
    Proc ipOn(const QString &host, const QStringList &args) const
    {
        return runProcess(QStringLiteral("ip"),
                          QStringList{QStringLiteral("-n"), LabHosts::netns(host)} + args, 10000);
    }
    Proc cliOn(const QString &storeUrl, const QStringList &args) const
    {
        return runProcess(QStringLiteral(CLUSTERDECKCTL),
                          QStringList{QStringLiteral("--store"), storeUrl} + args, 300000);
    }

    LabHosts m_lab;
    QTemporaryDir m_dir;
    QString m_storeUrl;
    QStringList m_sessions;
    QStringList m_devicesBefore; // leftovers({}, true) when the test function began
};

void TestVxlanNetwork::initTestCase()
{
    m_lab = LabHosts::fromEnvironment();
    if (m_lab.names().size() < 3)
        QFAIL(qPrintable(LabHosts::error()));
    QVERIFY(m_dir.isValid());
}

void TestVxlanNetwork::init()
{
    m_sessions.clear();
    const QString tag = QUuid::createUuid().toString(QUuid::Id128).left(12);
    m_storeUrl = QStringLiteral("sqlite://") + m_dir.filePath(tag + QStringLiteral(".db"));
    m_devicesBefore.clear(); // leftovers() leaves these out: empty, it lists every device
    m_devicesBefore = leftovers({}, true);
    if (!m_devicesBefore.isEmpty())
        qWarning().noquote() << "devices on the lab before this test function (not its own):"
                             << m_devicesBefore.join(QStringLiteral("; "));
}

void TestVxlanNetwork::cleanup()
{
    for (const QString &id : std::as_const(m_sessions)) {
        const Proc rm = cli({QStringLiteral("rm"), id});
        QVERIFY2(rm.exitCode == 0, rm.err.constData());
    }
    for (const QString &id : std::as_const(m_sessions))
        QVERIFY2(LabHosts::count(m_lab.containersOf(id)) == 0,
                 qPrintable(QStringLiteral("containers left behind: %1").arg(id)));
    const QStringList left = leftovers(m_sessions, true);
    QVERIFY2(left.isEmpty(), qPrintable(left.join(QStringLiteral("; "))));
}

void TestVxlanNetwork::addHosts(const QStringList &hosts)
{
    for (const QString &h : hosts) {
        const Proc added =
            cli({QStringLiteral("host"), QStringLiteral("add"), h, QStringLiteral("--docker"),
                 m_lab.unixEndpoint(h), QStringLiteral("--address"), m_lab.address(h)});
        QVERIFY2(added.exitCode == 0, added.err.constData());
    }
    const Proc setup = cli({QStringLiteral("network"), QStringLiteral("setup"),
                            QStringLiteral("--driver"), QStringLiteral("vxlan")});
    QVERIFY2(setup.exitCode == 0, setup.err.constData());
}

QString TestVxlanNetwork::vniOf(const QString &id, const QString &host) const
{
    // The device's own VNI, in the host's namespace: the network's io.clusterdeck.vni label is
    // the VNI first claimed, which a collision found while connecting renumbers.
    QProcess ip;
    ip.start(QStringLiteral("ip"),
             {QStringLiteral("-n"), LabHosts::netns(host), QStringLiteral("-o"),
              QStringLiteral("-d"), QStringLiteral("link"), QStringLiteral("show"),
              QStringLiteral("type"), QStringLiteral("vxlan")});
    ip.waitForFinished(10000);
    static const QRegularExpression vni(QStringLiteral(" vxlan id (\\d+) "));
    for (const QByteArray &line : ip.readAllStandardOutput().split('\n')) {
        if (!line.contains(QByteArray(QByteArray("io.clusterdeck.session=") + id.toUtf8())))
            continue;
        const auto m = vni.match(QString::fromUtf8(line));
        if (m.hasMatch())
            return m.captured(1);
    }
    return {};
}

QString TestVxlanNetwork::labelledVniOf(const QString &id, const QString &host) const
{
    const Proc p = m_lab.docker(host, {QStringLiteral("network"), QStringLiteral("inspect"),
                                       QStringLiteral("-f"),
                                       QStringLiteral("{{index .Labels \"io.clusterdeck.vni\"}}"),
                                       QStringLiteral("cd-") + id.left(8)});
    return QString::fromUtf8(p.out).trimmed();
}

QJsonObject TestVxlanNetwork::launch(const QString &name, const QString &yaml)
{
    const QString file = m_dir.filePath(name + QStringLiteral(".yaml"));
    if (!writeTextFile(file, yaml))
        return {};
    const Proc p = cli({QStringLiteral("launch"), file, QStringLiteral("--json")});
    const QJsonObject o = QJsonDocument::fromJson(p.out).object();
    const QString id = o.value(QStringLiteral("id")).toString();
    if (!id.isEmpty())
        m_sessions.append(id);
    else
        qWarning().noquote() << "launch failed:" << p.err;
    return o;
}

QMap<QString, QString> TestVxlanNetwork::inEveryKernel(const QString &id,
                                                       const QString &script) const
{
    const Proc p =
        cli({QStringLiteral("exec"), id, QStringLiteral("--all"), QStringLiteral("--json"),
             QStringLiteral("--"), QStringLiteral("sh"), QStringLiteral("-c"), script});
    QMap<QString, QString> result;
    for (const QJsonValue &v :
         QJsonDocument::fromJson(p.out).object().value(QStringLiteral("kernels")).toArray()) {
        const QJsonObject k = v.toObject();
        result.insert(k.value(QStringLiteral("hostname")).toString(),
                      k.value(QStringLiteral("exit_code")).toInt() == 0
                          ? QStringLiteral("ok")
                          : QStringLiteral("exit %1: %2%3")
                                .arg(k.value(QStringLiteral("exit_code")).toInt())
                                .arg(k.value(QStringLiteral("stdout")).toString(),
                                     k.value(QStringLiteral("stderr")).toString()));
    }
    return result;
}

void TestVxlanNetwork::expectAllReach(const QString &id, const QStringList &names)
{
    const QString script =
        QStringLiteral("for h in %1; do ping -c 1 -W 3 $h >/dev/null || { echo \"$h "
                       "unreachable\"; exit 1; }; done")
            .arg(names.join(u' '));
    const QMap<QString, QString> result = inEveryKernel(id, script);
    QCOMPARE(result.size(), names.size());
    for (auto it = result.cbegin(); it != result.cend(); ++it)
        QVERIFY2(it.value() == QLatin1String("ok"),
                 qPrintable(QStringLiteral("%1: %2").arg(it.key(), it.value())));
}

QStringList TestVxlanNetwork::leftovers(const QStringList &sessionIds, bool anyDevice) const
{
    QStringList found;
    for (const QString &h : m_lab.names()) {
        // -o: one line per device, its alias (the owner's store and session) included.
        QProcess ip;
        ip.start(QStringLiteral("ip"),
                 {QStringLiteral("-n"), LabHosts::netns(h), QStringLiteral("-o"),
                  QStringLiteral("-d"), QStringLiteral("link"), QStringLiteral("show")});
        ip.waitForFinished(10000);
        for (const QByteArray &line : ip.readAllStandardOutput().split('\n')) {
            const QList<QByteArray> words = line.simplified().split(' ');
            if (words.size() < 2)
                continue;
            const QString dev = QString::fromUtf8(words.at(1)).section(u'@', 0, 0).remove(u':');
            bool ours = false;
            for (const QString &id : sessionIds)
                ours = ours || line.contains(
                                   QByteArray(QByteArray("io.clusterdeck.session=") + id.toUtf8()));
            const QString entry = QStringLiteral("%1: device %2").arg(h, dev);
            if (ours ||
                (anyDevice &&
                 (dev.startsWith(QLatin1String("cdvx")) || dev.startsWith(QLatin1String("cdbr"))) &&
                 !m_devicesBefore.contains(entry)))
                found.append(entry);
        }
        const Proc nets =
            m_lab.docker(h, {QStringLiteral("network"), QStringLiteral("ls"),
                             QStringLiteral("--format"), QStringLiteral("{{.Name}}")});
        for (const QString &id : sessionIds) {
            const QString name = QStringLiteral("cd-") + id.left(8);
            if (QString::fromUtf8(nets.out).split(u'\n').contains(name))
                found.append(QStringLiteral("%1: network %2").arg(h, name));
        }
    }
    return found;
}

void TestVxlanNetwork::kernelsReachEachOtherByName()
{
    addHosts(m_lab.names());
    const QJsonObject a =
        launch(QStringLiteral("vx-a"), clusterTemplate(QStringLiteral("vx-a"), 5));
    const QString idA = a.value(QStringLiteral("id")).toString();
    QVERIFY2(!idA.isEmpty(), "launch of vx-a failed");
    const QJsonObject b =
        launch(QStringLiteral("vx-b"), clusterTemplate(QStringLiteral("vx-b"), 2));
    const QString idB = b.value(QStringLiteral("id")).toString();
    QVERIFY2(!idB.isEmpty(), "launch of vx-b failed");

    const QJsonObject sa = show(idA);
    QCOMPARE(sa.value(QStringLiteral("status")).toString(), QStringLiteral("RUNNING"));
    QCOMPARE(hostsOf(sa).size(), 3); // spread over every host: the network crosses them
    // No swarm is involved: the kernels' network is a local bridge on each host.
    for (const QString &h : m_lab.names()) {
        const Proc driver = m_lab.docker(
            h, {QStringLiteral("network"), QStringLiteral("inspect"), QStringLiteral("-f"),
                QStringLiteral("{{.Driver}} {{.Scope}}"), QStringLiteral("cd-") + idA.left(8)});
        QCOMPARE(QString::fromUtf8(driver.out).trimmed(), QStringLiteral("bridge local"));
    }
    expectAllReach(idA, hostnamesOf(sa));
    expectAllReach(idB, hostnamesOf(show(idB)));

    // The env contract is the driver's business not: the hostnames list is the same.
    const QMap<QString, QString> env =
        inEveryKernel(idA, QStringLiteral("test \"$BACKEND_CLUSTER_SIZE\" = 6 && test -n "
                                          "\"$BACKEND_CLUSTER_WORKER_HOSTS\""));
    for (auto it = env.cbegin(); it != env.cend(); ++it)
        QVERIFY2(it.value() == QLatin1String("ok"), qPrintable(it.key() + u": " + it.value()));

    // Two sessions cannot reach each other: a's master pings b's kernels by address.
    QStringList addressesOfB;
    for (const QString &h : m_lab.names()) {
        const Proc ips = m_lab.docker(
            h, {QStringLiteral("network"), QStringLiteral("inspect"), QStringLiteral("-f"),
                QStringLiteral("{{range .Containers}}{{.IPv4Address}} {{end}}"),
                QStringLiteral("cd-") + idB.left(8)});
        for (const QString &cidr :
             QString::fromUtf8(ips.out).simplified().split(u' ', Qt::SkipEmptyParts))
            addressesOfB.append(cidr.section(u'/', 0, 0));
    }
    QCOMPARE(addressesOfB.size(), 3);
    const QMap<QString, QString> isolated = inEveryKernel(
        idA, QStringLiteral("for a in %1; do ping -c 1 -W 1 $a >/dev/null && { echo \"reached "
                            "$a\"; exit 1; }; done; exit 0")
                 .arg(addressesOfB.join(u' ')));
    for (auto it = isolated.cbegin(); it != isolated.cend(); ++it)
        QVERIFY2(it.value() == QLatin1String("ok"), qPrintable(it.key() + u": " + it.value()));
}

void TestVxlanNetwork::withoutTheFirstHost()
{
    // h1 is registered but its dockerd is gone: with Swarm it was the manager, and nothing
    // multi-node could start. Here the session goes on h2 and h3.
    addHosts(m_lab.names());
    const QString h1 = m_lab.names().first();
    QProcess stop;
    stop.start(QStringLiteral("bash"),
               {QStringLiteral("-c"), QStringLiteral("%1/scripts/lab.sh dockerd stop 1")
                                          .arg(qEnvironmentVariable("CLUSTERDECK_SOURCE_DIR"))});
    QVERIFY(stop.waitForFinished(60000));
    QCOMPARE(stop.exitCode(), 0);
    auto restart = qScopeGuard([&] {
        QProcess start;
        start.start(
            QStringLiteral("bash"),
            {QStringLiteral("-c"), QStringLiteral("%1/scripts/lab.sh dockerd start 1")
                                       .arg(qEnvironmentVariable("CLUSTERDECK_SOURCE_DIR"))});
        start.waitForFinished(120000);
    });
    const QJsonObject o =
        launch(QStringLiteral("vx-noh1"), clusterTemplate(QStringLiteral("vx-noh1"), 4));
    const QString id = o.value(QStringLiteral("id")).toString();
    QVERIFY2(!id.isEmpty(), "launch without h1 failed");
    const QJsonObject s = show(id);
    QCOMPARE(s.value(QStringLiteral("status")).toString(), QStringLiteral("RUNNING"));
    QVERIFY(!hostsOf(s).contains(h1));
    QCOMPARE(hostsOf(s).size(), 2);
    expectAllReach(id, hostnamesOf(s));
    const Proc rm = cli({QStringLiteral("rm"), id});
    QVERIFY2(rm.exitCode == 0, rm.err.constData());
    m_sessions.removeAll(id);
    restart.dismiss();
    QProcess start;
    start.start(QStringLiteral("bash"),
                {QStringLiteral("-c"), QStringLiteral("%1/scripts/lab.sh dockerd start 1")
                                           .arg(qEnvironmentVariable("CLUSTERDECK_SOURCE_DIR"))});
    QVERIFY(start.waitForFinished(120000));
    QCOMPARE(start.exitCode(), 0);
    QVERIFY(leftovers({id}).isEmpty());
}

void TestVxlanNetwork::scaleOntoAnotherHost()
{
    // Launched on two hosts; the third joins the session with the scale.
    const QStringList two = m_lab.names().mid(0, 2);
    addHosts(two);
    const QJsonObject o =
        launch(QStringLiteral("vx-scale"), clusterTemplate(QStringLiteral("vx-scale"), 2));
    const QString id = o.value(QStringLiteral("id")).toString();
    QVERIFY2(!id.isEmpty(), "launch failed");
    QCOMPARE(hostsOf(show(id)).size(), 2);
    addHosts({m_lab.names().at(2)});

    const Proc grown = cli({QStringLiteral("scale"), id, QStringLiteral("worker=8")});
    QVERIFY2(grown.exitCode == 0, grown.err.constData());
    QJsonObject s = show(id);
    QCOMPARE(hostnamesOf(s).size(), 9);
    QCOMPARE(hostsOf(s).size(), 3);
    expectAllReach(id, hostnamesOf(s)); // old kernels know the new ones, and back

    const Proc shrunk = cli({QStringLiteral("scale"), id, QStringLiteral("worker=2")});
    QVERIFY2(shrunk.exitCode == 0, shrunk.err.constData());
    s = show(id);
    QCOMPARE(hostnamesOf(s).size(), 3);
    expectAllReach(id, hostnamesOf(s));
    // The host the shrink left without kernels left the network: no bridge network or device
    // there, and the others no longer forward to it.
    const QString third = m_lab.names().at(2);
    QVERIFY(!hostsOf(s).contains(third));
    QCOMPARE(vniOf(id, third), QString());
    const Proc nets =
        m_lab.docker(third, {QStringLiteral("network"), QStringLiteral("ls"),
                             QStringLiteral("--format"), QStringLiteral("{{.Name}}")});
    QVERIFY2(!QString::fromUtf8(nets.out).split(u'\n').contains(QStringLiteral("cd-") + id.left(8)),
             nets.out.constData());
    for (const QString &h : two) {
        const QString device = QStringLiteral("cdvx") + vniOf(id, h);
        const Proc fdb =
            runProcess(QStringLiteral("bridge"),
                       {QStringLiteral("-n"), LabHosts::netns(h), QStringLiteral("fdb"),
                        QStringLiteral("show"), QStringLiteral("dev"), device},
                       10000);
        QCOMPARE(fdb.exitCode, 0);
        QVERIFY2(!fdb.out.contains(m_lab.address(third).toUtf8()), fdb.out.constData());
        const QString peer = m_lab.address(two.at(h == two.first() ? 1 : 0));
        QVERIFY2(fdb.out.contains(peer.toUtf8()), fdb.out.constData());
    }
}

void TestVxlanNetwork::lostDeviceIsRepaired()
{
    // A reboot loses the host's kernel devices; here one is deleted by hand on h2. The next
    // leader's first pass (`reconcile`) checks every host and sets the session's network up
    // again there.
    addHosts(m_lab.names());
    const QJsonObject o =
        launch(QStringLiteral("vx-repair"), clusterTemplate(QStringLiteral("vx-repair"), 5));
    const QString id = o.value(QStringLiteral("id")).toString();
    QVERIFY2(!id.isEmpty(), "launch failed");
    const QString h2 = m_lab.names().at(1);
    const QString vni = vniOf(id, h2);
    QVERIFY2(!vni.isEmpty(), "no VXLAN device of the session on h2");
    const QString device = QStringLiteral("cdvx") + vni;
    QProcess del;
    del.start(QStringLiteral("ip"), {QStringLiteral("-n"), LabHosts::netns(h2),
                                     QStringLiteral("link"), QStringLiteral("del"), device});
    QVERIFY(del.waitForFinished(10000));
    QCOMPARE(del.exitCode(), 0);
    // Without it, h2's kernels are cut off from the others.
    const QMap<QString, QString> cut = inEveryKernel(
        id, QStringLiteral("for h in %1; do ping -c 1 -W 1 $h >/dev/null || exit 1; done")
                .arg(hostnamesOf(show(id)).join(u' ')));
    QVERIFY2(std::any_of(cut.cbegin(), cut.cend(),
                         [](const QString &v) { return v != QLatin1String("ok"); }),
             "every kernel still reaches every other without h2's device");

    const Proc reconcile = cli({QStringLiteral("reconcile"), QStringLiteral("--json")});
    QVERIFY2(reconcile.exitCode == 0, reconcile.err.constData());
    QVERIFY2(reconcile.out.contains("repaired network"), reconcile.out.constData());
    QProcess show;
    show.start(QStringLiteral("ip"),
               {QStringLiteral("-n"), LabHosts::netns(h2), QStringLiteral("-d"),
                QStringLiteral("link"), QStringLiteral("show"), device});
    QVERIFY(show.waitForFinished(10000));
    QCOMPARE(show.exitCode(), 0);
    QVERIFY(show.readAllStandardOutput().contains(QByteArray("vxlan id " + vni.toUtf8())));
    expectAllReach(id, hostnamesOf(this->show(id)));
    // A second pass of a new leader finds nothing to repair.
    const Proc again = cli({QStringLiteral("reconcile"), QStringLiteral("--json")});
    QVERIFY2(!again.out.contains("repaired network"), again.out.constData());
}

void TestVxlanNetwork::twoStoresAtOnce()
{
    // Two stores claim from the same default pool on the same hosts: launched at the same time,
    // each finds the other's subnet or VNI taken on the hosts (Docker refuses an overlapping
    // subnet, the kernel a second device of one VNI) and claims another.
    addHosts(m_lab.names());
    const QString other =
        QStringLiteral("sqlite://") +
        m_dir.filePath(QStringLiteral("other-") +
                       QUuid::createUuid().toString(QUuid::Id128).left(8) + QStringLiteral(".db"));
    for (const QString &h : m_lab.names()) {
        const Proc added = cliOn(other, {QStringLiteral("host"), QStringLiteral("add"), h,
                                         QStringLiteral("--docker"), m_lab.unixEndpoint(h),
                                         QStringLiteral("--address"), m_lab.address(h)});
        QVERIFY2(added.exitCode == 0, added.err.constData());
    }
    const QString fileA = m_dir.filePath(QStringLiteral("two-a.yaml"));
    const QString fileB = m_dir.filePath(QStringLiteral("two-b.yaml"));
    QVERIFY(writeTextFile(fileA, clusterTemplate(QStringLiteral("two-a"), 5)));
    QVERIFY(writeTextFile(fileB, clusterTemplate(QStringLiteral("two-b"), 5)));
    QProcess a, b;
    a.start(QStringLiteral(CLUSTERDECKCTL),
            {QStringLiteral("--store"), m_storeUrl, QStringLiteral("launch"), fileA,
             QStringLiteral("--json")});
    b.start(QStringLiteral(CLUSTERDECKCTL),
            {QStringLiteral("--store"), other, QStringLiteral("launch"), fileB,
             QStringLiteral("--json")});
    QVERIFY(a.waitForFinished(300000));
    QVERIFY(b.waitForFinished(300000));
    const QString idA =
        QJsonDocument::fromJson(a.readAllStandardOutput()).object().value("id").toString();
    const QString idB =
        QJsonDocument::fromJson(b.readAllStandardOutput()).object().value("id").toString();
    const QByteArray errA = a.readAllStandardError(), errB = b.readAllStandardError();
    if (!idA.isEmpty())
        m_sessions.append(idA);
    auto removeB = qScopeGuard([&] {
        if (!idB.isEmpty())
            cliOn(other, {QStringLiteral("rm"), idB});
    });
    QVERIFY2(!idA.isEmpty() && a.exitCode() == 0, errA.constData());
    QVERIFY2(!idB.isEmpty() && b.exitCode() == 0, errB.constData());
    expectAllReach(idA, hostnamesOf(show(idA)));
    const QJsonObject sb =
        QJsonDocument::fromJson(
            cliOn(other, {QStringLiteral("show"), idB, QStringLiteral("--json")}).out)
            .object();
    QCOMPARE(sb.value(QStringLiteral("status")).toString(), QStringLiteral("RUNNING"));
    // On a host both use: different VNIs and subnets.
    const QString h1 = m_lab.names().first();
    QVERIFY(!vniOf(idA, h1).isEmpty());
    QVERIFY(vniOf(idA, h1) != vniOf(idB, h1));
    auto subnetOf = [&](const QString &id) {
        return QString::fromUtf8(
                   m_lab
                       .docker(h1, {QStringLiteral("network"), QStringLiteral("inspect"),
                                    QStringLiteral("-f"),
                                    QStringLiteral("{{(index .IPAM.Config 0).Subnet}}"),
                                    QStringLiteral("cd-") + id.left(8)})
                       .out)
            .trimmed();
    };
    QVERIFY(subnetOf(idA) != subnetOf(idB));
    // Each store removes only its own: after B's rm, A's network and kernels still work.
    removeB.dismiss();
    const Proc rmB = cliOn(other, {QStringLiteral("rm"), idB});
    QVERIFY2(rmB.exitCode == 0, rmB.err.constData());
    QVERIFY(leftovers({idB}).isEmpty());
    expectAllReach(idA, hostnamesOf(show(idA)));
}

void TestVxlanNetwork::vniTakenOnOneHost()
{
    // Another tool's VXLAN device holds the VNI this store claims first (the pool's first, as
    // the test sets it), on h2 only, on the same UDP port and underlay: the kernel refuses a
    // second device of that VNI there. The launch finds it while its kernels are being created,
    // claims another VNI (the subnet, bridges and addresses stay) and runs; the foreign device
    // is left alone, before and after `rm`.
    addHosts(m_lab.names());
    const Proc vnis = cli({QStringLiteral("network"), QStringLiteral("setup"),
                           QStringLiteral("--vnis"), QStringLiteral("2000000-2000009")});
    QVERIFY2(vnis.exitCode == 0, vnis.err.constData());
    const QString h2 = m_lab.names().at(1);
    const Proc addr = ipOn(h2, {QStringLiteral("-o"), QStringLiteral("-4"), QStringLiteral("addr"),
                                QStringLiteral("show"), QStringLiteral("to"), m_lab.address(h2)});
    const QStringList words = QString::fromUtf8(addr.out).simplified().split(u' ');
    QVERIFY2(words.size() > 1, addr.out.constData());
    const QString underlay = words.at(1);
    const Proc made =
        ipOn(h2, {QStringLiteral("link"), QStringLiteral("add"), QStringLiteral("fx2000000"),
                  QStringLiteral("type"), QStringLiteral("vxlan"), QStringLiteral("id"),
                  QStringLiteral("2000000"), QStringLiteral("dstport"), QStringLiteral("4789"),
                  QStringLiteral("dev"), underlay});
    QVERIFY2(made.exitCode == 0, made.err.constData());
    auto removeForeign = qScopeGuard([&] {
        ipOn(h2, {QStringLiteral("link"), QStringLiteral("del"), QStringLiteral("fx2000000")});
    });

    const QJsonObject o =
        launch(QStringLiteral("vx-taken"), clusterTemplate(QStringLiteral("vx-taken"), 5));
    const QString id = o.value(QStringLiteral("id")).toString();
    QVERIFY2(!id.isEmpty(), "launch failed");
    const QJsonObject session = show(id);
    QCOMPARE(session.value(QStringLiteral("status")).toString(), QStringLiteral("RUNNING"));
    QCOMPARE(hostsOf(session).size(), 3);
    // Made with the first VNI, renumbered while connecting: every host has the new one.
    QCOMPARE(labelledVniOf(id, h2), QStringLiteral("2000000"));
    const QString vni = vniOf(id, h2);
    QVERIFY2(!vni.isEmpty() && vni != QLatin1String("2000000"), qPrintable(vni));
    for (const QString &h : m_lab.names())
        QCOMPARE(vniOf(id, h), vni);
    expectAllReach(id, hostnamesOf(session));
    QCOMPARE(ipOn(h2, {QStringLiteral("link"), QStringLiteral("show"), QStringLiteral("fx2000000")})
                 .exitCode,
             0);

    const Proc rm = cli({QStringLiteral("rm"), id});
    QVERIFY2(rm.exitCode == 0, rm.err.constData());
    m_sessions.removeAll(id);
    QVERIFY(leftovers({id}).isEmpty());
    QCOMPARE(ipOn(h2, {QStringLiteral("link"), QStringLiteral("show"), QStringLiteral("fx2000000")})
                 .exitCode,
             0);
}

QTEST_GUILESS_MAIN(TestVxlanNetwork)
#include "tst_vxlannetwork.moc"
