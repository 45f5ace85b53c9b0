// Integration tests of the Docker Engine API client against the real lab (scripts/lab.sh).
// Endpoints come from `eval "$(scripts/lab.sh env)"`; without them the test FAILS, it never skips.
// Everything created carries io.clusterdeck.session=<test uuid> and is removed at the end.

#include "docker/dockerclient.h"
#include "docker/dockereventstream.h"
#include "docker/tararchivebuilder.h"
#include "http/httptransport.h"
#include "labaddress.h"

#include <QElapsedTimer>
#include <QSet>
#include <QTest>
#include <QThread>
#include <QUuid>

#include <atomic>
#include <mutex>
#include <thread>

using namespace ClusterDeck;
using namespace ClusterDeck::Docker;
using namespace std::chrono_literals;

namespace {

const QString kSessionLabel = QStringLiteral("io.clusterdeck.session");
const QString kImage = QStringLiteral("clusterdeck/lab:latest");

template<typename T>
QByteArray why(const Result<T> &r)
{
    return r ? QByteArray() : r.error().toString().toUtf8();
}

QString env(const char *name)
{
    return qEnvironmentVariable(name);
}

QString env(const QByteArray &name)
{
    return qEnvironmentVariable(name.constData());
}

CallOptions within(std::chrono::milliseconds timeout)
{
    CallOptions options;
    options.timeout = timeout;
    return options;
}

} // namespace

// Receives the stream's queued signal on the test thread.
class EventRecorder : public QObject
{
    Q_OBJECT
public:
    QList<DockerEvent> events;
    int lost = 0;
public Q_SLOTS:
    void record(const ClusterDeck::Docker::DockerEvent &event) { events.append(event); }
    void connectionLost(const QString &) { ++lost; }
};

class TestDockerClient : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void cleanupTestCase();

    void negotiatesVersion_data();
    void negotiatesVersion();
    void info_data();
    void info();
    void wrongCaIsRejected();
    void unreachableEndpointTimesOut();
    void errorsNameEndpointAndDaemonMessage();
    void imageInspect_data();
    void imageInspect();
    void containerLifecycle_data();
    void containerLifecycle();
    void bridgeNetwork_data();
    void bridgeNetwork();
    void overlayNetwork();
    void volumes_data();
    void volumes();
    void swarm();
    void events_data();
    void events();
    void ttyLogs();
    void cancelLongRequest();
    void logsFollowTimesOut();
    void concurrentCalls();

private:
    std::shared_ptr<DockerClient> client(const QString &host, bool tls) const;
    Labels sessionLabels() const { return {{kSessionLabel, m_session}}; }
    QString name(const QString &suffix) const
    {
        return QStringLiteral("cdtest-%1-%2").arg(m_session.left(8), suffix);
    }
    void removeEverything();
    Result<QString> runContainer(const DockerClient &c, const QString &suffix,
                                 const QStringList &cmd);

    QString m_session;
    QStringList m_hosts;
    TlsFiles m_tls;
    QString m_wrongCa;
    QMap<QString, std::shared_ptr<DockerClient>> m_unix;
    QMap<QString, std::shared_ptr<DockerClient>> m_tlsClients;
};

std::shared_ptr<DockerClient> TestDockerClient::client(const QString &host, bool tls) const
{
    return tls ? m_tlsClients.value(host) : m_unix.value(host);
}

void TestDockerClient::initTestCase()
{
    QStringList missing;
    for (const char *var : {"CLUSTERDECK_LAB_HOSTS", "CLUSTERDECK_LAB_TLS_CA",
                            "CLUSTERDECK_LAB_TLS_CERT", "CLUSTERDECK_LAB_TLS_KEY"}) {
        if (env(var).isEmpty())
            missing.append(QString::fromLatin1(var));
    }
    m_hosts = env("CLUSTERDECK_LAB_HOSTS").split(u' ', Qt::SkipEmptyParts);
    for (const QString &host : std::as_const(m_hosts)) {
        for (const QString &suffix :
             {QStringLiteral("_DOCKER"), QStringLiteral("_DOCKER_TLS"), QStringLiteral("_ADDR")}) {
            const QString var = QStringLiteral("CLUSTERDECK_LAB_") + host.toUpper() + suffix;
            if (qEnvironmentVariable(var.toLatin1().constData()).isEmpty())
                missing.append(var);
        }
    }
    if (!missing.isEmpty())
        QFAIL(qPrintable(QStringLiteral("the lab environment is missing (%1): run "
                                        "`eval \"$(scripts/lab.sh env)\"` with the lab up")
                             .arg(missing.join(QStringLiteral(", ")))));
    QVERIFY2(m_hosts.size() >= 3, "the lab has fewer than 3 hosts");

    m_session = QUuid::createUuid().toString(QUuid::WithoutBraces);
    m_tls = {env("CLUSTERDECK_LAB_TLS_CA"), env("CLUSTERDECK_LAB_TLS_CERT"),
             env("CLUSTERDECK_LAB_TLS_KEY")};
    m_wrongCa = env("CLUSTERDECK_LAB_TLS_WRONG_CA");
    if (m_wrongCa.isEmpty())
        m_wrongCa = env("CLUSTERDECK_TEST_DATA") + QStringLiteral("/docker/wrong-ca.pem");

    for (const QString &host : std::as_const(m_hosts)) {
        const QByteArray prefix = "CLUSTERDECK_LAB_" + host.toUpper().toLatin1();
        auto unixEndpoint = DockerEndpoint::parse(env(QByteArray(prefix + "_DOCKER")));
        QVERIFY2(unixEndpoint, why(unixEndpoint));
        auto tlsEndpoint = DockerEndpoint::parse(env(QByteArray(prefix + "_DOCKER_TLS")), m_tls);
        QVERIFY2(tlsEndpoint, why(tlsEndpoint));
        QCOMPARE(tlsEndpoint->kind(), DockerEndpoint::Kind::TcpTls);
        m_unix.insert(host, std::make_shared<DockerClient>(*unixEndpoint, host));
        m_tlsClients.insert(host, std::make_shared<DockerClient>(*tlsEndpoint, host));
    }
    qInfo("session label %s=%s", qPrintable(kSessionLabel), qPrintable(m_session));
}

void TestDockerClient::cleanupTestCase()
{
    if (!m_session.isEmpty())
        removeEverything();
}

void TestDockerClient::removeEverything()
{
    const QStringList labels{kSessionLabel + u'=' + m_session};
    for (const auto &c : std::as_const(m_unix)) {
        if (auto containers = c->listContainers({true, labels, {}})) {
            for (const ContainerSummary &s : *containers) {
                auto removed = c->removeContainer(s.id, {true, true});
                if (!removed)
                    qWarning("cleanup: %s", why(removed).constData());
            }
        }
        if (auto networks = c->listNetworks(labels)) {
            for (const NetworkInfo &n : *networks) {
                // Overlay networks show on workers only while in use; remove where they live.
                auto removed = c->removeNetwork(n.id);
                if (!removed && removed.error().kind != Error::Kind::NotFound)
                    qWarning("cleanup: %s", why(removed).constData());
            }
        }
        if (auto volumes = c->listVolumes(labels)) {
            for (const VolumeInfo &v : *volumes) {
                auto removed = c->removeVolume(v.name, true);
                if (!removed)
                    qWarning("cleanup: %s", why(removed).constData());
            }
        }
    }
    // Verify nothing is left behind.
    for (auto it = m_unix.cbegin(); it != m_unix.cend(); ++it) {
        auto containers = it.value()->listContainers({true, labels, {}});
        if (containers && !containers->isEmpty())
            qWarning("cleanup: %lld containers left on %s", qint64(containers->size()),
                     qPrintable(it.key()));
    }
}

Result<QString> TestDockerClient::runContainer(const DockerClient &c, const QString &suffix,
                                               const QStringList &cmd)
{
    ContainerSpec spec;
    spec.name = name(suffix);
    spec.image = kImage;
    spec.labels = sessionLabels();
    spec.cmd = cmd;
    auto created = c.createContainer(spec);
    if (!created)
        return fail(created.error());
    auto started = c.startContainer(created->id);
    if (!started)
        return fail(started.error());
    return created->id;
}

// ---------------------------------------------------------------------------------------------

void TestDockerClient::negotiatesVersion_data()
{
    QTest::addColumn<QString>("host");
    QTest::addColumn<bool>("tls");
    for (const QString &host : std::as_const(m_hosts)) {
        QTest::addRow("%s unix", qPrintable(host)) << host << false;
        QTest::addRow("%s tcp+tls", qPrintable(host)) << host << true;
    }
}

void TestDockerClient::negotiatesVersion()
{
    QFETCH(QString, host);
    QFETCH(bool, tls);
    const auto c = client(host, tls);
    const auto ping = c->ping();
    QVERIFY2(ping, why(ping));
    QCOMPARE(ping->apiVersion, QStringLiteral("1.41")); // Docker 20.10
    QCOMPARE(ping->osType, QStringLiteral("linux"));
    const auto api = c->apiVersion();
    QVERIFY2(api, why(api));
    QCOMPARE(*api, QStringLiteral("1.41"));
    const auto version = c->version();
    QVERIFY2(version, why(version));
    QVERIFY(version->version.startsWith(QLatin1String("20.10")));
    QCOMPARE(version->apiVersion, QStringLiteral("1.41"));
}

void TestDockerClient::info_data()
{
    negotiatesVersion_data();
}

void TestDockerClient::info()
{
    QFETCH(QString, host);
    QFETCH(bool, tls);
    const auto info = client(host, tls)->info();
    QVERIFY2(info, why(info));
    QVERIFY(info->ncpu > 0);
    QVERIFY(info->memTotal > 0);
    QVERIFY(info->serverVersion.startsWith(QLatin1String("20.10")));
    QCOMPARE(info->swarm.localState, SwarmLocalState::Active);
    QVERIFY(!info->swarm.nodeId.isEmpty());
    QCOMPARE(info->swarm.controlAvailable, host == m_hosts.first()); // h1 is the manager
    const QString addr = qEnvironmentVariable(
        QByteArray("CLUSTERDECK_LAB_" + host.toUpper().toLatin1() + "_ADDR").constData());
    QCOMPARE(info->swarm.nodeAddr, addr);
}

void TestDockerClient::wrongCaIsRejected()
{
    const QString h1 = m_hosts.first();
    auto endpoint =
        DockerEndpoint::parse(qEnvironmentVariable(QByteArray(
                                  "CLUSTERDECK_LAB_" + h1.toUpper().toLatin1() + "_DOCKER_TLS")),
                              {m_wrongCa, m_tls.certFile, m_tls.keyFile});
    QVERIFY2(endpoint, why(endpoint));
    DockerClient c(*endpoint, h1);
    QElapsedTimer timer;
    timer.start();
    const auto ping = c.ping(within(10s));
    QVERIFY(!ping);
    qInfo("wrong CA: %s", why(ping).constData());
    QCOMPARE(ping.error().kind, Error::Kind::Transport);
    QVERIFY2(ping.error().where.contains(endpoint->url()), qPrintable(ping.error().where));
    QVERIFY2(ping.error().where.startsWith(QStringLiteral("host ") + h1),
             qPrintable(ping.error().where));
    QVERIFY2(ping.error().message.contains(QLatin1String("certificate"), Qt::CaseInsensitive),
             qPrintable(ping.error().message));
    QVERIFY2(ping.error().message.contains(m_wrongCa), qPrintable(ping.error().message));
    QVERIFY(timer.elapsed() < 5000);
    // Every call fails the same way; nothing is cached from a failed negotiation.
    const auto info = c.info(within(10s));
    QVERIFY(!info);
    QCOMPARE(info.error().kind, Error::Kind::Transport);
}

void TestDockerClient::unreachableEndpointTimesOut()
{
    // An address on the lab subnet that no host uses.
    const QString ghostUrl = QStringLiteral("tcp+tls://%1:2376").arg(labSubnetAddress(250));
    auto endpoint = DockerEndpoint::parse(ghostUrl, m_tls);
    QVERIFY(endpoint);
    DockerClient c(*endpoint, QStringLiteral("ghost"));
    QElapsedTimer timer;
    timer.start();
    const auto info = c.info(within(1500ms));
    const qint64 elapsed = timer.elapsed();
    QVERIFY(!info);
    qInfo("unreachable after %lld ms: %s", elapsed, why(info).constData());
    QVERIFY2(info.error().kind == Error::Kind::Timeout ||
                 info.error().kind == Error::Kind::Transport,
             why(info).constData());
    QCOMPARE(info.error().where, QStringLiteral("host ghost (%1)").arg(ghostUrl));
    QVERIFY2(elapsed < 4000, qPrintable(QString::number(elapsed)));
}

void TestDockerClient::errorsNameEndpointAndDaemonMessage()
{
    const auto c = client(m_hosts.first(), true);
    const auto missing = c->inspectContainer(name(QStringLiteral("does-not-exist")));
    QVERIFY(!missing);
    QCOMPARE(missing.error().kind, Error::Kind::NotFound);
    QCOMPARE(missing.error().httpStatus, 404);
    QVERIFY2(missing.error().message.contains(QLatin1String("No such container")),
             why(missing).constData());
    QVERIFY(missing.error().where.contains(c->endpoint().url()));

    const auto image = c->inspectImage(QStringLiteral("clusterdeck/not-there:1"));
    QVERIFY(!image);
    QCOMPARE(image.error().kind, Error::Kind::NotFound);
    QVERIFY2(image.error().message.contains(QLatin1String("No such image")),
             why(image).constData());

    // A bad request comes back with the daemon's explanation.
    ContainerSpec bad;
    bad.image = kImage;
    bad.name = QStringLiteral("invalid name!");
    bad.labels = sessionLabels();
    const auto created = c->createContainer(bad);
    QVERIFY(!created);
    QCOMPARE(created.error().kind, Error::Kind::Invalid);
    QVERIFY2(created.error().message.contains(QLatin1String("Invalid container name")),
             why(created).constData());
}

void TestDockerClient::imageInspect_data()
{
    QTest::addColumn<bool>("tls");
    QTest::newRow("unix") << false;
    QTest::newRow("tcp+tls") << true;
}

void TestDockerClient::imageInspect()
{
    QFETCH(bool, tls);
    const auto c = client(m_hosts.first(), tls);
    const auto image = c->inspectImage(kImage);
    QVERIFY2(image, why(image));
    QCOMPARE(image->labels.value(QStringLiteral("io.clusterdeck.service-ports")),
             QStringLiteral("web:http:8080"));
    QVERIFY(!image->envMap().value(QStringLiteral("LAB_GREETING")).isEmpty());
    QVERIFY(image->exposedPorts.contains(QStringLiteral("8080/tcp")));
    QVERIFY(image->repoTags.contains(kImage));

    const auto images = c->listImages({QStringLiteral("io.clusterdeck.service-ports")});
    QVERIFY2(images, why(images));
    QVERIFY(std::any_of(images->begin(), images->end(),
                        [&](const ImageSummary &i) { return i.id == image->id; }));
    const auto none = c->listImages({QStringLiteral("io.clusterdeck.no-such-label=x")});
    QVERIFY2(none, why(none));
    QVERIFY(none->isEmpty());
}

void TestDockerClient::containerLifecycle_data()
{
    imageInspect_data();
}

void TestDockerClient::containerLifecycle()
{
    QFETCH(bool, tls);
    const QString host = m_hosts.first();
    const auto c = client(host, tls);
    const QString suffix = tls ? QStringLiteral("web-tls") : QStringLiteral("web-unix");

    VolumeSpec volumeSpec;
    volumeSpec.name = name(suffix + QStringLiteral("-data"));
    volumeSpec.labels = sessionLabels();
    const auto volume = c->createVolume(volumeSpec);
    QVERIFY2(volume, why(volume));

    ContainerSpec spec;
    spec.name = name(suffix);
    spec.image = kImage;
    spec.hostname = QStringLiteral("worker7");
    spec.env = {QStringLiteral("BACKEND_CLUSTER_ROLE=worker"), QStringLiteral("A=b=c")};
    spec.labels = sessionLabels();
    spec.labels.insert(QStringLiteral("io.clusterdeck.hostname"), QStringLiteral("worker7"));
    spec.entrypoint = {QStringLiteral("/bin/sh"), QStringLiteral("-c")};
    spec.cmd = {QStringLiteral("cat /srv/www/hello.txt; echo \"role=$BACKEND_CLUSTER_ROLE A=$A "
                               "greeting=$LAB_GREETING pwd=$(pwd) user=$(id -u)\"; "
                               "echo to-stderr >&2; exec httpd -f -p 8080 -h /srv/www")};
    spec.workingDir = QStringLiteral("/srv");
    spec.user = QStringLiteral("0");
    spec.nanoCpus = 500000000;
    spec.memory = 64LL * 1024 * 1024;
    spec.mounts = {MountSpec{
        MountSpec::Type::Volume, volumeSpec.name, QStringLiteral("/srv/www"), false, {}, {}, {}}};
    spec.ports = {PortBinding{8080, QStringLiteral("tcp"), QString(), 0}};
    spec.restartPolicy.name = QStringLiteral("no");

    const auto created = c->createContainer(spec);
    QVERIFY2(created, why(created));
    const QString id = created->id;

    auto inspected = c->inspectContainer(id);
    QVERIFY2(inspected, why(inspected));
    QCOMPARE(inspected->state.status, ContainerStatus::Created);
    QCOMPARE(inspected->name, spec.name);

    // Files go in before the first start: the command `cat`s them into the logs.
    TarArchiveBuilder files;
    files.addFile(QStringLiteral("hello.txt"), "hello from the tar upload\n");
    files.addDirectory(QStringLiteral("sub"));
    files.addFile(QStringLiteral("sub/nested.txt"), "nested\n");
    const auto uploaded = c->uploadFiles(id, QStringLiteral("/srv/www"), files);
    QVERIFY2(uploaded, why(uploaded));
    const auto badUpload = c->uploadArchive(id, QStringLiteral("/no/such/dir"), "not a tar");
    QVERIFY(!badUpload);

    const auto started = c->startContainer(id);
    QVERIFY2(started, why(started));
    QVERIFY2(c->startContainer(id), "starting a running container is not an error");

    // Logs: stdout and stderr demultiplexed.
    ContainerLogs logs;
    QTRY_VERIFY_WITH_TIMEOUT(
        [&] {
            auto l = c->containerLogs(id);
            if (l)
                logs = *l;
            return l && logs.stderrData.contains("to-stderr");
        }(),
        15000);
    QVERIFY2(logs.stdoutData.contains("hello from the tar upload\n"), logs.stdoutData.constData());
    QVERIFY2(
        logs.stdoutData.contains("role=worker A=b=c greeting=hello-from-image pwd=/srv user=0"),
        logs.stdoutData.constData());
    QCOMPARE(logs.stderrData, QByteArray("to-stderr\n"));

    inspected = c->inspectContainer(id);
    QVERIFY2(inspected, why(inspected));
    QVERIFY(inspected->state.running);
    QCOMPARE(inspected->hostname, QStringLiteral("worker7"));
    QCOMPARE(inspected->labels.value(kSessionLabel), m_session);
    QCOMPARE(inspected->nanoCpus, spec.nanoCpus);
    QCOMPARE(inspected->memory, spec.memory);
    QCOMPARE(inspected->workingDir, QStringLiteral("/srv"));
    QCOMPARE(inspected->restartPolicy.name, QStringLiteral("no"));
    QVERIFY(std::any_of(inspected->mounts.begin(), inspected->mounts.end(),
                        [&](const MountInfo &m) { return m.name == volumeSpec.name; }));
    const int hostPort = inspected->hostPortFor(8080);
    QVERIFY2(hostPort > 0, "Docker did not publish 8080/tcp");

    // The published port really serves the uploaded file from the host's address.
    const QString addr = qEnvironmentVariable(
        QByteArray("CLUSTERDECK_LAB_" + host.toUpper().toLatin1() + "_ADDR").constData());
    Http::TransportConfig web;
    web.baseUrl = QStringLiteral("http://%1:%2").arg(addr).arg(hostPort);
    Http::HttpTransport transport(web);
    Http::HttpRequest get;
    get.path = QStringLiteral("/sub/nested.txt");
    get.timeout = 5s;
    Result<Http::HttpResponse> page =
        fail(Error::Kind::Transport, QString(), QStringLiteral("not tried"));
    QTRY_VERIFY_WITH_TIMEOUT((page = transport.perform(get)) && page->status == 200, 10000);
    QCOMPARE(page->body, QByteArray("nested\n"));

    // Listing by label finds exactly this one (plus the other variant's container, if any).
    const auto listed = c->listContainers({true, {kSessionLabel + u'=' + m_session}, {}});
    QVERIFY2(listed, why(listed));
    const auto mine = std::find_if(listed->begin(), listed->end(),
                                   [&](const ContainerSummary &s) { return s.id == id; });
    QVERIFY(mine != listed->end());
    QCOMPARE(mine->names, QStringList{spec.name});
    QCOMPARE(mine->state, ContainerStatus::Running);
    const auto notMine = c->listContainers({true, {kSessionLabel + QStringLiteral("=other")}, {}});
    QVERIFY2(notMine, why(notMine));
    QVERIFY(std::none_of(notMine->begin(), notMine->end(),
                         [&](const ContainerSummary &s) { return s.id == id; }));

    // restart → stop → kill → remove
    const QString startedAt = inspected->state.startedAt;
    QVERIFY2(c->restartContainer(id, 1), "restart");
    inspected = c->inspectContainer(id);
    QVERIFY2(inspected, why(inspected));
    QVERIFY(inspected->state.running);
    QVERIFY(inspected->state.startedAt != startedAt);

    const auto stopped = c->stopContainer(id, 1);
    QVERIFY2(stopped, why(stopped));
    inspected = c->inspectContainer(id);
    QVERIFY2(inspected, why(inspected));
    QVERIFY(!inspected->state.running);
    QVERIFY2(c->stopContainer(id, 1), "stopping a stopped container is not an error");
    const auto killStopped = c->killContainer(id);
    QVERIFY(!killStopped);
    QCOMPARE(killStopped.error().kind, Error::Kind::Conflict);
    QVERIFY2(killStopped.error().message.contains(QLatin1String("not running")),
             why(killStopped).constData());

    QVERIFY2(c->startContainer(id), "start again");
    const auto killed = c->killContainer(id, QStringLiteral("SIGKILL"));
    QVERIFY2(killed, why(killed));
    QTRY_VERIFY_WITH_TIMEOUT(!c->inspectContainer(id)->state.running, 10000);
    QCOMPARE(c->inspectContainer(id)->state.exitCode, 137);

    const auto removed = c->removeContainer(id, {true, true});
    QVERIFY2(removed, why(removed));
    const auto gone = c->inspectContainer(id);
    QVERIFY(!gone);
    QCOMPARE(gone.error().kind, Error::Kind::NotFound);
    const auto volumeRemoved = c->removeVolume(volumeSpec.name);
    QVERIFY2(volumeRemoved, why(volumeRemoved));
}

void TestDockerClient::bridgeNetwork_data()
{
    imageInspect_data();
}

void TestDockerClient::bridgeNetwork()
{
    QFETCH(bool, tls);
    const QString t = tls ? QStringLiteral("-tls") : QStringLiteral("-unix");
    const auto c = client(m_hosts.first(), tls);
    NetworkSpec spec;
    spec.name = name(QStringLiteral("bridge") + t);
    spec.driver = QStringLiteral("bridge");
    spec.labels = sessionLabels();
    spec.options = {{QStringLiteral("com.docker.network.driver.mtu"), QStringLiteral("1400")}};
    const auto id = c->createNetwork(spec);
    QVERIFY2(id, why(id));

    const auto duplicate = c->createNetwork(spec);
    QVERIFY(!duplicate);
    QCOMPARE(duplicate.error().kind, Error::Kind::Conflict);

    const auto network = c->inspectNetwork(spec.name);
    QVERIFY2(network, why(network));
    QCOMPARE(network->id, *id);
    QCOMPARE(network->driver, QStringLiteral("bridge"));
    QCOMPARE(network->scope, QStringLiteral("local"));
    QCOMPARE(network->options.value(QStringLiteral("com.docker.network.driver.mtu")),
             QStringLiteral("1400"));
    QCOMPARE(network->labels.value(kSessionLabel), m_session);

    // Two kernels on it find each other by alias (embedded DNS).
    ContainerSpec kernel;
    kernel.image = kImage;
    kernel.labels = sessionLabels();
    kernel.networkMode = spec.name;
    kernel.name = name(QStringLiteral("master1") + t);
    kernel.hostname = QStringLiteral("master1");
    kernel.endpoints = {{spec.name, EndpointSpec{{QStringLiteral("master1")}, {}}}};
    kernel.cmd = {QStringLiteral("sleep"), QStringLiteral("60")};
    const auto master = c->createContainer(kernel);
    QVERIFY2(master, why(master));
    QVERIFY2(c->startContainer(master->id), "start master1");
    const auto inspected = c->inspectContainer(master->id);
    QVERIFY2(inspected, why(inspected));
    QVERIFY(inspected->networks.contains(spec.name));
    QVERIFY(inspected->networks.value(spec.name).aliases.contains(QStringLiteral("master1")));
    QCOMPARE(inspected->networkMode, spec.name);

    kernel.name = name(QStringLiteral("worker1") + t);
    kernel.hostname = QStringLiteral("worker1");
    kernel.endpoints = {{spec.name, EndpointSpec{{QStringLiteral("worker1")}, {}}}};
    kernel.cmd = {QStringLiteral("sh"), QStringLiteral("-c"),
                  QStringLiteral("ping -c 1 -W 3 master1 >/dev/null && echo resolved-master1")};
    const auto worker = c->createContainer(kernel);
    QVERIFY2(worker, why(worker));
    QVERIFY2(c->startContainer(worker->id), "start worker1");
    QTRY_VERIFY_WITH_TIMEOUT(c->containerLogs(worker->id)->stdoutData.contains("resolved-master1"),
                             15000);

    const auto listed = c->listNetworks({kSessionLabel + u'=' + m_session});
    QVERIFY2(listed, why(listed));
    QVERIFY(std::any_of(listed->begin(), listed->end(),
                        [&](const NetworkInfo &n) { return n.id == *id; }));

    // A live container holds the network until it is disconnected; a forced disconnect of a
    // name that no container and no endpoint has is NotFound (what removal treats as done).
    const auto held = c->removeNetwork(*id);
    QVERIFY(!held);
    QCOMPARE(held.error().httpStatus, 403);
    const auto disconnected = c->disconnectNetwork(*id, master->id, false);
    QVERIFY2(disconnected, why(disconnected));
    QVERIFY(!c->inspectNetwork(*id)->containers.contains(master->id));
    const auto nobody = c->disconnectNetwork(*id, name(QStringLiteral("nobody") + t), true);
    QVERIFY(!nobody);
    QVERIFY2(nobody.error().isGone(), qPrintable(nobody.error().toString()));

    QVERIFY2(c->removeContainer(master->id, {true, false}), "remove master1");
    QVERIFY2(c->removeContainer(worker->id, {true, false}), "remove worker1");
    const auto removed = c->removeNetwork(*id);
    QVERIFY2(removed, why(removed));
    QCOMPARE(c->inspectNetwork(*id).error().kind, Error::Kind::NotFound);
}

void TestDockerClient::overlayNetwork()
{
    const auto manager = client(m_hosts.first(), true);
    NetworkSpec spec;
    spec.name = name(QStringLiteral("overlay"));
    spec.driver = QStringLiteral("overlay");
    spec.attachable = true;
    spec.labels = sessionLabels();
    spec.options = {{QStringLiteral("com.docker.network.driver.mtu"), QStringLiteral("1400")}};
    const auto id = manager->createNetwork(spec);
    QVERIFY2(id, why(id));

    // Right after creation the manager may answer from the swarm store before the allocator
    // filled in the driver: give it a moment.
    auto network = manager->inspectNetwork(*id);
    QTRY_VERIFY_WITH_TIMEOUT((network = manager->inspectNetwork(*id)) && !network->driver.isEmpty(),
                             5000);
    QCOMPARE(network->driver, QStringLiteral("overlay"));
    QCOMPARE(network->scope, QStringLiteral("swarm"));
    QVERIFY(network->attachable);
    QCOMPARE(network->options.value(QStringLiteral("com.docker.network.driver.mtu")),
             QStringLiteral("1400"));

    // A standalone container on a worker joins the attachable network by name, with an alias.
    const auto worker = client(m_hosts.at(1), false);
    ContainerSpec kernel;
    kernel.name = name(QStringLiteral("overlay-worker1"));
    kernel.image = kImage;
    kernel.hostname = QStringLiteral("worker1");
    kernel.labels = sessionLabels();
    kernel.networkMode = spec.name;
    kernel.endpoints = {{spec.name, EndpointSpec{{QStringLiteral("worker1")}, {}}}};
    kernel.cmd = {QStringLiteral("sleep"), QStringLiteral("60")};
    const auto created = worker->createContainer(kernel);
    QVERIFY2(created, why(created));
    QVERIFY2(worker->startContainer(created->id), "start on the worker");
    const auto inspected = worker->inspectContainer(created->id);
    QVERIFY2(inspected, why(inspected));
    QVERIFY(inspected->networks.value(spec.name).aliases.contains(QStringLiteral("worker1")));
    QVERIFY(!inspected->networks.value(spec.name).ipAddress.isEmpty());

    const auto listed = manager->listNetworks({kSessionLabel + u'=' + m_session});
    QVERIFY2(listed, why(listed));
    QVERIFY(std::any_of(listed->begin(), listed->end(),
                        [&](const NetworkInfo &n) { return n.id == *id; }));

    QVERIFY2(worker->removeContainer(created->id, {true, false}), "remove worker container");
    // The worker may release its attachment asynchronously; the manager refuses while in use.
    Result<void> removed = manager->removeNetwork(*id);
    QElapsedTimer timer;
    timer.start();
    while (!removed && removed.error().kind != Error::Kind::NotFound && timer.elapsed() < 15000) {
        QThread::msleep(200);
        removed = manager->removeNetwork(*id);
    }
    QVERIFY2(removed, why(removed).constData());
    QCOMPARE(manager->inspectNetwork(*id).error().kind, Error::Kind::NotFound);
}

void TestDockerClient::volumes_data()
{
    imageInspect_data();
}

void TestDockerClient::volumes()
{
    QFETCH(bool, tls);
    const auto c = client(m_hosts.at(2), tls);
    VolumeSpec spec;
    spec.name = name(tls ? QStringLiteral("scratch-tls") : QStringLiteral("scratch-unix"));
    spec.driver = QStringLiteral("local");
    spec.driverOptions = {{QStringLiteral("type"), QStringLiteral("tmpfs")},
                          {QStringLiteral("device"), QStringLiteral("tmpfs")},
                          {QStringLiteral("o"), QStringLiteral("size=4m")}};
    spec.labels = sessionLabels();
    const auto volume = c->createVolume(spec);
    QVERIFY2(volume, why(volume));
    QCOMPARE(volume->name, spec.name);
    QCOMPARE(volume->options.value(QStringLiteral("type")), QStringLiteral("tmpfs"));

    const auto inspected = c->inspectVolume(spec.name);
    QVERIFY2(inspected, why(inspected));
    QCOMPARE(inspected->labels.value(kSessionLabel), m_session);

    const auto listed = c->listVolumes({kSessionLabel + u'=' + m_session});
    QVERIFY2(listed, why(listed));
    QCOMPARE(listed->size(), 1);
    QCOMPARE(listed->at(0).name, spec.name);

    const auto removed = c->removeVolume(spec.name);
    QVERIFY2(removed, why(removed));
    const auto again = c->removeVolume(spec.name);
    QVERIFY(!again);
    QCOMPARE(again.error().kind, Error::Kind::NotFound);
}

void TestDockerClient::swarm()
{
    const auto manager = client(m_hosts.first(), true);
    const auto swarm = manager->inspectSwarm();
    QVERIFY2(swarm, why(swarm));
    QVERIFY(!swarm->id.isEmpty());
    const auto tokens = manager->joinTokens();
    QVERIFY2(tokens, why(tokens));
    QVERIFY(tokens->worker.startsWith(QLatin1String("SWMTKN-1-")));
    QVERIFY(tokens->manager.startsWith(QLatin1String("SWMTKN-1-")));

    const auto nodes = manager->listNodes();
    QVERIFY2(nodes, why(nodes));
    QCOMPARE(nodes->size(), m_hosts.size());
    QSet<QString> addrs;
    int managers = 0;
    for (const NodeInfo &n : *nodes) {
        QCOMPARE(n.state, QStringLiteral("ready"));
        addrs.insert(n.addr);
        managers += n.role == QLatin1String("manager");
    }
    QCOMPARE(managers, 1);
    for (const QString &host : std::as_const(m_hosts)) {
        const QString addr = qEnvironmentVariable(
            QByteArray("CLUSTERDECK_LAB_" + host.toUpper().toLatin1() + "_ADDR").constData());
        QVERIFY2(addrs.contains(addr), qPrintable(addr));
    }

    // A worker cannot answer for the swarm: a clear error naming it.
    const auto worker = client(m_hosts.at(1), false);
    const auto notManager = worker->inspectSwarm();
    QVERIFY(!notManager);
    QCOMPARE(notManager.error().httpStatus, 503);
    QVERIFY2(notManager.error().message.contains(QLatin1String("not a swarm manager")),
             why(notManager).constData());
    QVERIFY(notManager.error().where.startsWith(QStringLiteral("host ") + m_hosts.at(1)));

    // init/join are exercised without changing the lab: both nodes are already in the swarm.
    SwarmInitSpec init;
    init.advertiseAddr = qEnvironmentVariable("CLUSTERDECK_LAB_H1_ADDR");
    const auto initAgain = manager->initSwarm(init);
    QVERIFY(!initAgain);
    QVERIFY2(initAgain.error().message.contains(QLatin1String("already part of a swarm")),
             why(initAgain).constData());
    SwarmJoinSpec join;
    join.joinToken = tokens->worker;
    join.remoteAddrs = {init.advertiseAddr + QStringLiteral(":2377")};
    join.advertiseAddr = qEnvironmentVariable("CLUSTERDECK_LAB_H2_ADDR");
    const auto joinAgain = worker->joinSwarm(join);
    QVERIFY(!joinAgain);
    QVERIFY2(joinAgain.error().message.contains(QLatin1String("already part of a swarm")),
             why(joinAgain).constData());
}

void TestDockerClient::events_data()
{
    imageInspect_data();
}

void TestDockerClient::events()
{
    QFETCH(bool, tls);
    const QString t = tls ? QStringLiteral("-tls") : QStringLiteral("-unix");
    const auto c = client(m_hosts.first(), tls);
    EventFilter filter;
    filter.types = {QStringLiteral("container")};
    filter.labels = {kSessionLabel + u'=' + m_session};

    std::mutex mutex;
    QList<DockerEvent> received; // via the callback, on the worker thread
    DockerEventStream stream(c, filter);
    stream.setCallback([&](const DockerEvent &e) {
        std::lock_guard lock(mutex);
        received.append(e);
    });
    EventRecorder recorder;
    connect(&stream, &DockerEventStream::eventReceived, &recorder, &EventRecorder::record);
    connect(&stream, &DockerEventStream::connectionLost, &recorder, &EventRecorder::connectionLost);
    stream.start();

    auto seen = [&](const QString &id, const QString &action) {
        std::lock_guard lock(mutex);
        return int(std::count_if(received.begin(), received.end(), [&](const DockerEvent &e) {
            return e.actorId == id && e.action == action;
        }));
    };

    const auto first =
        runContainer(*c, QStringLiteral("events-1") + t,
                     {QStringLiteral("sh"), QStringLiteral("-c"), QStringLiteral("exit 3")});
    QVERIFY2(first, why(first));
    QTRY_VERIFY_WITH_TIMEOUT(seen(*first, QStringLiteral("die")) == 1, 15000);
    QCOMPARE(seen(*first, QStringLiteral("create")), 1);
    QCOMPARE(seen(*first, QStringLiteral("start")), 1);

    // Drop the connection and act at once, before the stream is back: nothing may be lost or
    // delivered twice.
    stream.forceReconnect();
    const auto second =
        runContainer(*c, QStringLiteral("events-2") + t,
                     {QStringLiteral("sh"), QStringLiteral("-c"), QStringLiteral("exit 4")});
    QVERIFY2(second, why(second));
    QTRY_VERIFY_WITH_TIMEOUT(seen(*second, QStringLiteral("die")) == 1, 15000);
    QCOMPARE(seen(*second, QStringLiteral("create")), 1);
    QCOMPARE(seen(*second, QStringLiteral("start")), 1);
    QVERIFY(stream.connectionCount() >= 2);
    {
        std::lock_guard lock(mutex);
        for (const DockerEvent &e : std::as_const(received)) {
            QCOMPARE(e.attributes.value(kSessionLabel), m_session);
            if (e.actorId == *second && e.action == QLatin1String("die"))
                QCOMPARE(e.attributes.value(QStringLiteral("exitCode")), QStringLiteral("4"));
        }
        // No duplicates even though the reconnect replayed from the newest event seen.
        QSet<QString> keys;
        for (const DockerEvent &e : std::as_const(received))
            keys.insert(QString::number(e.timeNano) + e.action + e.actorId);
        QCOMPARE(keys.size(), received.size());
    }
    // The queued signal delivers the same events on this thread.
    QTRY_COMPARE_WITH_TIMEOUT(
        recorder.events.size(),
        [&] {
            std::lock_guard lock(mutex);
            return received.size();
        }(),
        5000);
    QVERIFY(recorder.lost >= 1);

    QElapsedTimer timer;
    timer.start();
    stream.stop();
    QVERIFY2(timer.elapsed() < 3000, "stopping the stream took too long");
    QVERIFY(!stream.isRunning());
    for (const QString &id : {*first, *second})
        QVERIFY2(c->removeContainer(id, {true, true}), "remove");
}

void TestDockerClient::ttyLogs()
{
    // A TTY container's logs are raw bytes, not frames: read back as stdout as they are.
    const auto c = client(m_hosts.at(2), true);
    ContainerSpec spec;
    spec.name = name(QStringLiteral("tty"));
    spec.image = kImage;
    spec.labels = sessionLabels();
    spec.tty = true;
    spec.cmd = {QStringLiteral("sh"), QStringLiteral("-c"),
                QStringLiteral("echo tty-out; echo tty-err >&2")};
    const auto created = c->createContainer(spec);
    QVERIFY2(created, why(created));
    QVERIFY2(c->startContainer(created->id), "start");
    QTRY_VERIFY_WITH_TIMEOUT(!c->inspectContainer(created->id)->state.running, 10000);
    const auto logs = c->containerLogs(created->id);
    QVERIFY2(logs, why(logs));
    QVERIFY2(logs->stdoutData.contains("tty-out"), logs->stdoutData.constData());
    QVERIFY2(logs->stdoutData.contains("tty-err"), logs->stdoutData.constData());
    QVERIFY(logs->stderrData.isEmpty());
    QVERIFY2(c->removeContainer(created->id, {true, true}), "remove");
}

void TestDockerClient::cancelLongRequest()
{
    const auto c = client(m_hosts.first(), true);
    CallOptions options;
    options.timeout = 0ms; // would run forever
    EventFilter filter;
    filter.labels = {kSessionLabel + QStringLiteral("=never-") + m_session};
    std::thread canceller([token = options.cancel] {
        std::this_thread::sleep_for(300ms);
        token.cancel();
    });
    QElapsedTimer timer;
    timer.start();
    const auto result = c->streamEvents(
        filter, std::nullopt, std::nullopt, [](const DockerEvent &) { return true; }, options);
    const qint64 elapsed = timer.elapsed();
    canceller.join();
    QVERIFY(!result);
    QCOMPARE(result.error().kind, Error::Kind::Cancelled);
    QVERIFY(result.error().where.contains(c->endpoint().url()));
    qInfo("cancelled after %lld ms", elapsed);
    QVERIFY2(elapsed < 2500, qPrintable(QString::number(elapsed)));

    // An already cancelled token never reaches the daemon.
    const auto again = c->info(options);
    QVERIFY(!again);
    QCOMPARE(again.error().kind, Error::Kind::Cancelled);
}

void TestDockerClient::logsFollowTimesOut()
{
    const auto c = client(m_hosts.at(1), true);
    const auto id = runContainer(
        *c, QStringLiteral("follow"),
        {QStringLiteral("sh"), QStringLiteral("-c"), QStringLiteral("echo first; exec sleep 120")});
    QVERIFY2(id, why(id));
    QByteArray seen;
    QElapsedTimer timer;
    timer.start();
    const auto followed = c->followLogs(
        *id, {},
        [&](const LogFrame &frame) {
            seen += frame.data;
            return true;
        },
        within(1500ms));
    QVERIFY(!followed);
    QCOMPARE(followed.error().kind, Error::Kind::Timeout);
    QCOMPARE(seen, QByteArray("first\n"));
    QVERIFY(timer.elapsed() < 4000);

    // A sink returning false ends the follow cleanly.
    const auto stopped = c->followLogs(
        *id, {}, [](const LogFrame &) { return false; }, within(10s));
    QVERIFY2(stopped, why(stopped));
    QVERIFY2(c->removeContainer(*id, {true, true}), "remove");
}

void TestDockerClient::concurrentCalls()
{
    const auto c = client(m_hosts.first(), true);
    const auto id = runContainer(*c, QStringLiteral("concurrent"),
                                 {QStringLiteral("sleep"), QStringLiteral("60")});
    QVERIFY2(id, why(id));

    // A fresh client so the threads also race the version negotiation.
    const auto fresh = std::make_shared<DockerClient>(c->endpoint(), c->hostName());
    constexpr int kThreads = 8;
    constexpr int kCallsPerThread = 25;
    std::atomic_int ok{0};
    std::mutex mutex;
    QStringList failures;
    QElapsedTimer timer;
    timer.start();
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) {
        threads.emplace_back([&, t] {
            for (int i = 0; i < kCallsPerThread; ++i) {
                const auto info =
                    (i + t) % 5 == 0 ? Result<bool>(fresh->info().has_value()) : Result<bool>(true);
                const auto inspected = fresh->inspectContainer(*id);
                if (inspected && inspected->id == *id && info && *info) {
                    ++ok;
                } else {
                    std::lock_guard lock(mutex);
                    failures.append(inspected ? QStringLiteral("info failed")
                                              : inspected.error().toString());
                }
            }
        });
    }
    for (std::thread &t : threads)
        t.join();
    qInfo("%d concurrent inspects over tcp+tls in %lld ms", kThreads * kCallsPerThread,
          timer.elapsed());
    QVERIFY2(failures.isEmpty(), qPrintable(failures.join(u'\n')));
    QCOMPARE(ok.load(), kThreads * kCallsPerThread);
    QVERIFY2(c->removeContainer(*id, {true, true}), "remove");
}

QTEST_GUILESS_MAIN(TestDockerClient)
#include "tst_dockerclient.moc"
