#include "docker/dockerclient.h"
#include "docker/dockerjson.h"

#include <QElapsedTimer>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTest>

using namespace ClusterDeck;
using namespace ClusterDeck::Docker;

namespace {

QByteArray testData(const QString &name)
{
    QFile file(qEnvironmentVariable("CLUSTERDECK_TEST_DATA") + QStringLiteral("/docker/") + name);
    if (!file.open(QIODevice::ReadOnly))
        qFatal("cannot read test data %s", qPrintable(file.fileName()));
    return file.readAll();
}

QJsonObject object(const QByteArray &json)
{
    return QJsonDocument::fromJson(json).object();
}

template<typename T>
const char *why(const Result<T> &r)
{
    static QByteArray text;
    text = r ? QByteArray() : r.error().toString().toUtf8();
    return text.constData();
}

} // namespace

class TestDockerJson : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void malformedBodies_data();
    void malformedBodies();
    void version();
    void systemInfo_data();
    void systemInfo();
    void imageList();
    void imageInfo();
    void importedImage_data();
    void importedImage();
    void containerInfo_data();
    void containerInfo();
    void containerList();
    void containerStatusSpelling_data();
    void containerStatusSpelling();
    void largeContainerList();
    void createdContainer();
    void networks();
    void overlayInstanceOnThisNode_data();
    void overlayInstanceOnThisNode();
    void volumes();
    void swarm();
    void nodes();
    void events();
    void oddEvents_data();
    void oddEvents();
    void errorMessage_data();
    void errorMessage();
    void encodeContainerSpec();
    void encodeContainerSpecMinimal();
    void encodeContainerSpecErrors_data();
    void encodeContainerSpecErrors();
    void encodeNetworkAndVolume();
    void encodeSwarm();
    void encodeFilters();
    void apiVersions_data();
    void apiVersions();
    void eventTime_data();
    void eventTime();
};

void TestDockerJson::malformedBodies_data()
{
    QTest::addColumn<QString>("decoder");
    QTest::addColumn<QByteArray>("body");
    QTest::addColumn<QString>("messagePart");

    QTest::newRow("info not json")
        << "info" << QByteArray("<html>bad gateway</html>") << "cannot decode system info";
    QTest::newRow("info empty") << "info" << QByteArray() << "empty body";
    QTest::newRow("info array") << "info" << QByteArray("[]") << "expected a JSON object";
    QTest::newRow("info without ids") << "info" << QByteArray("{\"NCPU\":4}") << "ServerVersion";
    QTest::newRow("version truncated")
        << "version" << QByteArray("{\"ApiVersion\":\"1.4") << "cannot decode version";
    QTest::newRow("container without Id")
        << "container" << QByteArray("{\"Name\":\"/x\"}") << "missing \"Id\"";
    QTest::newRow("container list object")
        << "containers" << QByteArray("{\"a\":1}") << "expected a JSON array";
    QTest::newRow("container list item")
        << "containers" << QByteArray("[{\"Id\":\"a\"}, 3]") << "item 1 is not an object";
    QTest::newRow("image list item without id")
        << "images" << QByteArray("[{\"Size\":3}]") << "item 0";
    QTest::newRow("volume list wrong type")
        << "volumes" << QByteArray("{\"Volumes\":{}}") << "not a list";
    QTest::newRow("swarm init not a string")
        << "swarminit" << QByteArray("{\"id\":1}") << "node id";
    QTest::newRow("event without action")
        << "event" << QByteArray("{\"Type\":\"container\"}") << "missing";
}

void TestDockerJson::malformedBodies()
{
    QFETCH(QString, decoder);
    QFETCH(QByteArray, body);
    QFETCH(QString, messagePart);

    Error error;
    auto check = [&](const auto &result) {
        QVERIFY(!result.has_value());
        error = result.error();
    };
    if (decoder == QLatin1String("info"))
        check(Json::decodeSystemInfo(body));
    else if (decoder == QLatin1String("version"))
        check(Json::decodeVersion(body));
    else if (decoder == QLatin1String("container"))
        check(Json::decodeContainerInfo(body));
    else if (decoder == QLatin1String("containers"))
        check(Json::decodeContainerList(body));
    else if (decoder == QLatin1String("images"))
        check(Json::decodeImageList(body));
    else if (decoder == QLatin1String("volumes"))
        check(Json::decodeVolumeList(body));
    else if (decoder == QLatin1String("swarminit"))
        check(Json::decodeSwarmInitNodeId(body));
    else if (decoder == QLatin1String("event"))
        check(Json::decodeEvent(body));
    else
        QFAIL("unknown decoder");
    QCOMPARE(error.kind, Error::Kind::Decode);
    QVERIFY2(error.message.contains(messagePart), qPrintable(error.message));
}

void TestDockerJson::version()
{
    const auto v = Json::decodeVersion(testData(QStringLiteral("version.json")));
    QVERIFY2(v, why(v));
    QCOMPARE(v->apiVersion, QStringLiteral("1.41"));
    QCOMPARE(v->minApiVersion, QStringLiteral("1.12"));
    QVERIFY(v->version.startsWith(QLatin1String("20.10")));
    QCOMPARE(v->os, QStringLiteral("linux"));
    QVERIFY(!v->arch.isEmpty());
}

void TestDockerJson::systemInfo_data()
{
    QTest::addColumn<QString>("file");
    QTest::addColumn<int>("state");
    QTest::addColumn<bool>("manager");
    QTest::addColumn<int>("nodes");

    QTest::newRow("standalone") << "info-standalone.json" << int(SwarmLocalState::Inactive) << false
                                << 0;
    QTest::newRow("swarm manager")
        << "info-manager.json" << int(SwarmLocalState::Active) << true << 3;
    QTest::newRow("swarm worker") << "info-worker.json" << int(SwarmLocalState::Active) << false
                                  << 0;
}

void TestDockerJson::systemInfo()
{
    QFETCH(QString, file);
    QFETCH(int, state);
    QFETCH(bool, manager);
    QFETCH(int, nodes);

    const auto info = Json::decodeSystemInfo(testData(file));
    QVERIFY2(info, why(info));
    QVERIFY(info->ncpu > 0);
    QVERIFY(info->memTotal > 1024LL * 1024 * 1024 / 4);
    QVERIFY(info->serverVersion.startsWith(QLatin1String("20.10")));
    QVERIFY(!info->id.isEmpty());
    QCOMPARE(info->osType, QStringLiteral("linux"));
    QCOMPARE(int(info->swarm.localState), state);
    QCOMPARE(info->swarm.controlAvailable, manager);
    QCOMPARE(info->swarm.nodes, nodes);
    if (state == int(SwarmLocalState::Active)) {
        QVERIFY(!info->swarm.nodeId.isEmpty());
        QVERIFY(info->swarm.nodeAddr.startsWith(QLatin1String("192.168.213.")));
        QVERIFY(!info->swarm.remoteManagers.isEmpty());
    }
    if (manager)
        QVERIFY(!info->swarm.clusterId.isEmpty());
}

void TestDockerJson::imageList()
{
    const auto images = Json::decodeImageList(testData(QStringLiteral("images.json")));
    QVERIFY2(images, why(images));
    QCOMPARE(images->size(), 1);
    QCOMPARE(images->at(0).repoTags, QStringList{QStringLiteral("clusterdeck/lab:latest")});
    QVERIFY(images->at(0).repoDigests.isEmpty()); // `null` in the body
    QCOMPARE(images->at(0).labels.value(QStringLiteral("io.clusterdeck.service-ports")),
             QStringLiteral("web:http:8080"));
    QVERIFY(images->at(0).size > 0);
}

void TestDockerJson::imageInfo()
{
    const auto image = Json::decodeImageInfo(testData(QStringLiteral("image-lab.json")));
    QVERIFY2(image, why(image));
    QVERIFY(image->id.startsWith(QLatin1String("sha256:")));
    QCOMPARE(image->labels.value(QStringLiteral("io.clusterdeck.service-ports")),
             QStringLiteral("web:http:8080"));
    QCOMPARE(image->envMap().value(QStringLiteral("LAB_GREETING")),
             QStringLiteral("hello-from-image"));
    QCOMPARE(image->exposedPorts, QStringList{QStringLiteral("8080/tcp")});
    QCOMPARE(image->cmd, QStringList{QStringLiteral("/bin/sh")});
    QVERIFY(image->entrypoint.isEmpty()); // `null`
    QCOMPARE(image->workingDir, QStringLiteral("/root"));
    QVERIFY(image->volumes.isEmpty());
}

void TestDockerJson::importedImage_data()
{
    QTest::addColumn<QByteArray>("body");
    QTest::addColumn<QString>("id");    // empty: an error
    QTest::addColumn<QString>("error"); // part of the message
    // As dockerd 20.10 answers POST /images/create?fromSrc=- (recorded on the lab).
    QTest::newRow("imported")
        << QByteArray("{\"status\":\"sha256:15cb11e0bf91761686d025ff1ab0440b36625f13552d135c472d"
                      "11c783a089f6\"}\r\n")
        << "sha256:15cb11e0bf91761686d025ff1ab0440b36625f13552d135c472d11c783a089f6"
        << "";
    QTest::newRow("error mid-stream")
        << QByteArray("{\"errorDetail\":{\"message\":\"no space left on device\"},\"error\":"
                      "\"no space left on device\"}\n")
        << ""
        << "no space left on device";
    QTest::newRow("no id") << QByteArray("{\"status\":\"Importing\"}\n") << ""
                           << "no image id";
}

void TestDockerJson::importedImage()
{
    QFETCH(QByteArray, body);
    QFETCH(QString, id);
    QFETCH(QString, error);
    const auto imported = Json::decodeImportedImage(body);
    if (!id.isEmpty()) {
        QVERIFY(imported);
        QCOMPARE(*imported, id);
    } else {
        QVERIFY(!imported);
        QVERIFY2(imported.error().message.contains(error), qPrintable(imported.error().message));
    }
}

void TestDockerJson::containerInfo_data()
{
    QTest::addColumn<QString>("file");
    QTest::addColumn<bool>("running");
    QTest::addColumn<int>("exitCode");
    QTest::addColumn<int>("hostPort");

    QTest::newRow("running, port published") << "container-running.json" << true << 0 << 32768;
    QTest::newRow("killed") << "container-exited.json" << false << 137 << 0;
}

void TestDockerJson::containerInfo()
{
    QFETCH(QString, file);
    QFETCH(bool, running);
    QFETCH(int, exitCode);
    QFETCH(int, hostPort);

    const auto c = Json::decodeContainerInfo(testData(file));
    QVERIFY2(c, why(c));
    QCOMPARE(c->id.size(), 64);
    QCOMPARE(c->name, QStringLiteral("cdrec-web"));
    QCOMPARE(c->image, QStringLiteral("clusterdeck/lab:latest"));
    QVERIFY(c->imageId.startsWith(QLatin1String("sha256:")));
    QCOMPARE(c->hostname, QStringLiteral("worker7"));
    QCOMPARE(c->labels.value(QStringLiteral("io.clusterdeck.session")),
             QStringLiteral("record-0000"));
    QVERIFY(c->env.contains(QStringLiteral("A=1")));
    QVERIFY(c->env.contains(QStringLiteral("LAB_GREETING=hello-from-image")));
    QCOMPARE(c->cmd, (QStringList{QStringLiteral("sleep"), QStringLiteral("30")}));
    QCOMPARE(c->nanoCpus, 500000000LL);
    QCOMPARE(c->memory, 67108864LL);
    QCOMPARE(c->restartPolicy.name, QStringLiteral("no"));
    QCOMPARE(c->networkMode, QStringLiteral("default"));
    QCOMPARE(c->state.running, running);
    QCOMPARE(c->state.status, running ? ContainerStatus::Running : ContainerStatus::Exited);
    QCOMPARE(c->state.exitCode, exitCode);
    QCOMPARE(c->hostPortFor(8080), hostPort);
    QCOMPARE(c->hostPortFor(8080, QStringLiteral("udp")), 0);
    if (running) {
        QVERIFY(c->state.pid > 0);
        QVERIFY(c->networks.contains(QStringLiteral("bridge")));
        QVERIFY(!c->networks.value(QStringLiteral("bridge")).ipAddress.isEmpty());
    }
}

void TestDockerJson::containerStatusSpelling_data()
{
    QTest::addColumn<QString>("docker");
    QTest::addColumn<ContainerStatus>("status");
    QTest::addColumn<QString>("spelled");
    QTest::newRow("created") << "created" << ContainerStatus::Created << "created";
    QTest::newRow("running") << "running" << ContainerStatus::Running << "running";
    QTest::newRow("paused") << "paused" << ContainerStatus::Paused << "paused";
    QTest::newRow("restarting") << "restarting" << ContainerStatus::Restarting << "restarting";
    QTest::newRow("removing") << "removing" << ContainerStatus::Removing << "removing";
    QTest::newRow("exited") << "exited" << ContainerStatus::Exited << "exited";
    QTest::newRow("dead") << "dead" << ContainerStatus::Dead << "dead";
    // ClusterDeck's own words in stored observations.
    QTest::newRow("removed") << "removed" << ContainerStatus::Removed << "removed";
    QTest::newRow("never seen") << "" << ContainerStatus::None << "";
    // A state of a newer daemon is kept apart, not mistaken for one we act on.
    QTest::newRow("unknown word") << "hibernating" << ContainerStatus::Unknown << "unknown";
    QTest::newRow("case matters") << "Running" << ContainerStatus::Unknown << "unknown";
}

void TestDockerJson::containerStatusSpelling()
{
    QFETCH(QString, docker);
    QFETCH(ContainerStatus, status);
    QFETCH(QString, spelled);
    QCOMPARE(parseContainerStatus(docker), status);
    QCOMPARE(containerStatusName(status), spelled);
    // An inspect reply is decoded to the same value.
    const QByteArray inspect =
        QJsonDocument(
            QJsonObject{{QStringLiteral("Id"), QStringLiteral("c0ffee")},
                        {QStringLiteral("State"), QJsonObject{{QStringLiteral("Status"), docker}}}})
            .toJson();
    const auto info = Json::decodeContainerInfo(inspect);
    QVERIFY2(info, why(info));
    QCOMPARE(info->state.status, status);
}

void TestDockerJson::containerList()
{
    const auto list = Json::decodeContainerList(testData(QStringLiteral("containers.json")));
    QVERIFY2(list, why(list));
    QCOMPARE(list->size(), 1);
    const ContainerSummary &c = list->at(0);
    QCOMPARE(c.names, QStringList{QStringLiteral("cdrec-web")});
    QCOMPARE(c.state, ContainerStatus::Running);
    QCOMPARE(c.labels.value(QStringLiteral("io.clusterdeck.session")),
             QStringLiteral("record-0000"));
    QCOMPARE(c.networks, QStringList{QStringLiteral("bridge")});
    QVERIFY(!c.ports.isEmpty());
    QCOMPARE(c.ports.at(0).containerPort, 8080);
    QCOMPARE(c.ports.at(0).hostPort, 32768);

    const auto empty = Json::decodeContainerList("null");
    QVERIFY(empty);
    QVERIFY(empty->isEmpty());
}

void TestDockerJson::largeContainerList()
{
    // A busy host: the recorded item repeated many times must decode quickly.
    const QJsonObject item = QJsonDocument::fromJson(testData(QStringLiteral("containers.json")))
                                 .array()
                                 .at(0)
                                 .toObject();
    QJsonArray array;
    constexpr int kCount = 5000;
    for (int i = 0; i < kCount; ++i) {
        QJsonObject copy = item;
        copy.insert(QStringLiteral("Id"), QString::number(i).rightJustified(64, u'0'));
        array.append(copy);
    }
    const QByteArray body = QJsonDocument(array).toJson(QJsonDocument::Compact);
    QElapsedTimer timer;
    timer.start();
    const auto list = Json::decodeContainerList(body);
    QVERIFY2(list, why(list));
    QCOMPARE(list->size(), kCount);
    QCOMPARE(list->last().id, QString::number(kCount - 1).rightJustified(64, u'0'));
    qInfo("decoded %d containers (%lld KiB) in %lld ms", kCount, body.size() / 1024,
          timer.elapsed());
    QVERIFY(timer.elapsed() < 5000);
}

void TestDockerJson::createdContainer()
{
    const auto created = Json::decodeCreatedContainer(testData(QStringLiteral("created.json")));
    QVERIFY2(created, why(created));
    QCOMPARE(created->id.size(), 64);
    QVERIFY(created->warnings.isEmpty());

    const auto warned = Json::decodeCreatedContainer(
        R"({"Id":"abc","Warnings":["Your kernel does not support swap limit capabilities"]})");
    QVERIFY(warned);
    QCOMPARE(warned->warnings.size(), 1);
}

void TestDockerJson::networks()
{
    const auto bridge = Json::decodeNetworkInfo(testData(QStringLiteral("network-bridge.json")));
    QVERIFY2(bridge, why(bridge));
    QCOMPARE(bridge->name, QStringLiteral("bridge"));
    QCOMPARE(bridge->driver, QStringLiteral("bridge"));
    QCOMPARE(bridge->scope, QStringLiteral("local"));
    QVERIFY(!bridge->ipam.isEmpty());
    QVERIFY(!bridge->ipam.at(0).subnet.isEmpty());
    QVERIFY(bridge->options.contains(QStringLiteral("com.docker.network.bridge.default_bridge")));

    const auto overlay = Json::decodeNetworkInfo(testData(QStringLiteral("network-overlay.json")));
    QVERIFY2(overlay, why(overlay));
    QCOMPARE(overlay->driver, QStringLiteral("overlay"));
    QCOMPARE(overlay->scope, QStringLiteral("swarm"));
    QVERIFY(overlay->attachable);
    QCOMPARE(overlay->options.value(QStringLiteral("com.docker.network.driver.mtu")),
             QStringLiteral("1400"));
    QCOMPARE(overlay->labels.value(QStringLiteral("io.clusterdeck.session")),
             QStringLiteral("record-0000"));

    const auto list = Json::decodeNetworkList(testData(QStringLiteral("networks.json")));
    QVERIFY2(list, why(list));
    QStringList names;
    for (const NetworkInfo &n : *list)
        names.append(n.name);
    QVERIFY(names.contains(QStringLiteral("bridge")));
    QVERIFY(names.contains(QStringLiteral("host")));
    QVERIFY(names.contains(QStringLiteral("none")));

    const auto created = Json::decodeCreatedNetworkId(R"({"Id":"5f1c","Warning":""})");
    QVERIFY(created);
    QCOMPARE(*created, QStringLiteral("5f1c"));
}

void TestDockerJson::overlayInstanceOnThisNode_data()
{
    // Shapes of GET /networks/{id} on Docker 20.10 swarm nodes (the lab's), trimmed.
    QTest::addColumn<QByteArray>("json");
    QTest::addColumn<bool>("instantiated");
    QTest::addColumn<bool>("containers");
    const QByteArray lb = R"("lb-pnw":{"Name":"pnw-endpoint","EndpointID":"baab"})";
    const QByteArray kernel = R"("2ea643f7":{"Name":"angry_allen","EndpointID":"2ca4"})";
    QTest::newRow("worker with a container on it")
        << QByteArray(R"({"Id":"x1","Scope":"swarm","Containers":{)" + kernel + "," + lb +
                      R"(},"Peers":[{"Name":"h2","IP":"192.168.213.12"}]})")
        << true << true;
    QTest::newRow("node dropping its instance: only the load balancer left")
        << QByteArray(R"({"Id":"x1","Scope":"swarm","Containers":{)" + lb +
                      R"(},"Peers":[{"Name":"h1","IP":"192.168.213.11"}]})")
        << true << false;
    QTest::newRow("manager's cluster view, no instance")
        << QByteArray(R"({"Id":"x1","Scope":"swarm","Containers":null})") << false << false;
}

void TestDockerJson::overlayInstanceOnThisNode()
{
    QFETCH(QByteArray, json);
    QFETCH(bool, instantiated);
    QFETCH(bool, containers);
    const auto n = Json::decodeNetworkInfo(json);
    QVERIFY2(n, why(n));
    QCOMPARE(n->instantiatedHere, instantiated);
    QCOMPARE(n->hasContainerEndpoints(), containers);
}

void TestDockerJson::volumes()
{
    const auto created = Json::decodeVolumeInfo(testData(QStringLiteral("volume-created.json")));
    QVERIFY2(created, why(created));
    QCOMPARE(created->name, QStringLiteral("cdrec-vol"));
    QCOMPARE(created->driver, QStringLiteral("local"));
    QCOMPARE(created->options.value(QStringLiteral("type")), QStringLiteral("tmpfs"));
    QCOMPARE(created->labels.value(QStringLiteral("io.clusterdeck.session")),
             QStringLiteral("record-0000"));
    QVERIFY(!created->mountpoint.isEmpty());

    const auto list = Json::decodeVolumeList(testData(QStringLiteral("volumes.json")));
    QVERIFY2(list, why(list));
    QCOMPARE(list->size(), 1);
    QCOMPARE(list->at(0).name, QStringLiteral("cdrec-vol"));

    const auto none = Json::decodeVolumeList(R"({"Volumes":null,"Warnings":null})");
    QVERIFY(none);
    QVERIFY(none->isEmpty());
}

void TestDockerJson::swarm()
{
    const auto swarm = Json::decodeSwarmInfo(testData(QStringLiteral("swarm.json")));
    QVERIFY2(swarm, why(swarm));
    QVERIFY(!swarm->id.isEmpty());
    QVERIFY(swarm->joinTokens.worker.startsWith(QLatin1String("SWMTKN-1-")));
    QVERIFY(swarm->joinTokens.manager.startsWith(QLatin1String("SWMTKN-1-")));
    QVERIFY(swarm->joinTokens.worker != swarm->joinTokens.manager);
    QVERIFY(swarm->versionIndex > 0);
    QCOMPARE(swarm->dataPathPort, 4789);

    const auto nodeId = Json::decodeSwarmInitNodeId("\"wq6k8pjv0r3rfbxz1u0hq4kqv\"\n");
    QVERIFY(nodeId);
    QCOMPARE(*nodeId, QStringLiteral("wq6k8pjv0r3rfbxz1u0hq4kqv"));
}

void TestDockerJson::nodes()
{
    const auto nodes = Json::decodeNodeList(testData(QStringLiteral("nodes.json")));
    QVERIFY2(nodes, why(nodes));
    QCOMPARE(nodes->size(), 3);
    int managers = 0;
    int leaders = 0;
    for (const NodeInfo &n : *nodes) {
        QVERIFY(!n.id.isEmpty());
        QVERIFY(!n.hostname.isEmpty());
        QCOMPARE(n.state, QStringLiteral("ready"));
        QCOMPARE(n.availability, QStringLiteral("active"));
        QVERIFY(n.addr.startsWith(QLatin1String("192.168.213.")));
        QVERIFY(n.engineVersion.startsWith(QLatin1String("20.10")));
        QVERIFY(n.nanoCpus > 0);
        QVERIFY(n.memoryBytes > 0);
        managers += n.role == QLatin1String("manager");
        leaders += n.leader;
        if (n.leader)
            QVERIFY(n.managerAddr.endsWith(QLatin1String(":2377")));
    }
    QCOMPARE(managers, 1);
    QCOMPARE(leaders, 1);
}

void TestDockerJson::events()
{
    const QByteArrayList lines = testData(QStringLiteral("events.jsonl")).split('\n');
    QStringList seen;
    for (const QByteArray &line : lines) {
        if (line.trimmed().isEmpty())
            continue;
        const auto event = Json::decodeEvent(line);
        QVERIFY2(event, why(event));
        QVERIFY(event->timeNano / 1000000000LL == event->time);
        QVERIFY(!event->actorId.isEmpty());
        seen.append(event->type + u':' + event->action);
        if (event->type == QLatin1String("container")) {
            QCOMPARE(event->attributes.value(QStringLiteral("io.clusterdeck.session")),
                     QStringLiteral("record-0000"));
            QCOMPARE(event->attributes.value(QStringLiteral("name")), QStringLiteral("cdrec-web"));
            QCOMPARE(event->scope, QStringLiteral("local"));
        }
        if (event->action == QLatin1String("die"))
            QCOMPARE(event->attributes.value(QStringLiteral("exitCode")), QStringLiteral("137"));
    }
    QVERIFY2(seen.contains(QStringLiteral("container:create")), qPrintable(seen.join(u',')));
    QVERIFY(seen.contains(QStringLiteral("container:start")));
    QVERIFY(seen.contains(QStringLiteral("container:die")));
    QVERIFY(seen.contains(QStringLiteral("network:connect")));
}

void TestDockerJson::oddEvents_data()
{
    QTest::addColumn<QByteArray>("line");
    QTest::addColumn<QString>("type");
    QTest::addColumn<QString>("action");
    QTest::addColumn<qint64>("timeNano");

    QTest::newRow("health status with colon")
        << QByteArray(
               R"({"Type":"container","Action":"health_status: healthy","Actor":{"ID":"c1",)"
               R"("Attributes":{}},"scope":"local","time":1700000000,"timeNano":1700000000123456789})")
        << "container"
        << "health_status: healthy" << qint64(1700000000123456789LL);
    QTest::newRow("legacy status only")
        << QByteArray(R"({"status":"start","id":"c2","from":"busybox","time":1700000001})")
        << "container"
        << "start" << qint64(1700000001000000000LL);
    QTest::newRow("attributes null")
        << QByteArray(R"({"Type":"node","Action":"update","Actor":{"ID":"n1","Attributes":null},)"
                      R"("scope":"swarm","time":1,"timeNano":1000000005})")
        << "node"
        << "update" << qint64(1000000005LL);
    QTest::newRow("unknown extra fields")
        << QByteArray(R"({"Type":"volume","Action":"mount","Actor":{"ID":"v"},"time":2,)"
                      R"("timeNano":2000000000,"Future":{"x":[1,2]}})")
        << "volume"
        << "mount" << qint64(2000000000LL);
}

void TestDockerJson::oddEvents()
{
    QFETCH(QByteArray, line);
    QFETCH(QString, type);
    QFETCH(QString, action);
    QFETCH(qint64, timeNano);
    const auto event = Json::decodeEvent(line);
    QVERIFY2(event, why(event));
    QCOMPARE(event->type, type);
    QCOMPARE(event->action, action);
    QCOMPARE(event->timeNano, timeNano);
}

void TestDockerJson::errorMessage_data()
{
    QTest::addColumn<QByteArray>("body");
    QTest::addColumn<QString>("message");

    QTest::newRow("recorded 404") << testData(QStringLiteral("error-404.json"))
                                  << "No such container: nonexistent";
    QTest::newRow("swarm 503")
        << QByteArray(
               R"({"message":"This node is not a swarm manager. Use \"docker swarm init\" or \"docker swarm join\" to connect this node to swarm and try again."})")
        << R"(This node is not a swarm manager. Use "docker swarm init" or "docker swarm join" to connect this node to swarm and try again.)";
    QTest::newRow("plain text") << QByteArray("page not found\n") << "page not found";
    QTest::newRow("json without message") << QByteArray("{\"error\":\"x\"}") << "{\"error\":\"x\"}";
    QTest::newRow("empty") << QByteArray() << "";
}

void TestDockerJson::errorMessage()
{
    QFETCH(QByteArray, body);
    QFETCH(QString, message);
    QCOMPARE(Json::decodeErrorMessage(body), message);
}

void TestDockerJson::encodeContainerSpec()
{
    ContainerSpec spec;
    spec.name = QStringLiteral("cd-1a2b3c4d-worker7");
    spec.image = QStringLiteral("clusterdeck/lab:latest");
    spec.hostname = QStringLiteral("worker7");
    spec.env = {QStringLiteral("BACKEND_CLUSTER_ROLE=worker"), QStringLiteral("A=b=c")};
    spec.labels = {{QStringLiteral("io.clusterdeck.session"), QStringLiteral("s1")}};
    spec.cmd = {QStringLiteral("sleep"), QStringLiteral("infinity")};
    spec.entrypoint = {QStringLiteral("/bin/sh"), QStringLiteral("-c")};
    spec.workingDir = QStringLiteral("/work");
    spec.user = QStringLiteral("1000:1000");
    spec.nanoCpus = 2000000000;
    spec.memory = 4LL * 1024 * 1024 * 1024;
    spec.binds = {QStringLiteral("/data:/data:ro")};
    MountSpec nfs;
    nfs.type = MountSpec::Type::Volume;
    nfs.source = QStringLiteral("cd-1a2b-shared");
    nfs.target = QStringLiteral("/shared");
    nfs.volumeDriverOptions = {{QStringLiteral("type"), QStringLiteral("nfs")},
                               {QStringLiteral("o"), QStringLiteral("addr=10.0.0.5,rw")},
                               {QStringLiteral("device"), QStringLiteral(":/export")}};
    spec.mounts = {nfs};
    spec.ports = {PortBinding{8080, QStringLiteral("tcp"), QString(), 0},
                  PortBinding{2200, QStringLiteral("tcp"), QStringLiteral("127.0.0.1"), 42200},
                  PortBinding{8080, QStringLiteral("tcp"), QStringLiteral("::"), 0}};
    spec.networkMode = QStringLiteral("cd-1a2b3c4d");
    spec.endpoints = {
        {QStringLiteral("cd-1a2b3c4d"), EndpointSpec{{QStringLiteral("worker7")}, {}}}};
    spec.deviceRequests = {
        DeviceRequest{QStringLiteral("nvidia"), -1, {}, {{QStringLiteral("gpu")}}, {}}};
    spec.capDrop = {QStringLiteral("ALL")};
    spec.capAdd = {QStringLiteral("NET_ADMIN")};

    const auto body = Json::encodeContainerSpec(spec, QStringLiteral("1.41"));
    QVERIFY2(body, why(body));
    const QJsonObject o = object(*body);
    QVERIFY(!o.contains(QLatin1String("name"))); // the name goes into the query
    QCOMPARE(o.value(QLatin1String("Image")).toString(), spec.image);
    QCOMPARE(o.value(QLatin1String("Hostname")).toString(), QStringLiteral("worker7"));
    QCOMPARE(o.value(QLatin1String("Env")).toVariant().toStringList(), spec.env);
    QCOMPARE(o.value(QLatin1String("Cmd")).toVariant().toStringList(), spec.cmd);
    QCOMPARE(o.value(QLatin1String("Entrypoint")).toVariant().toStringList(), spec.entrypoint);
    QCOMPARE(o.value(QLatin1String("WorkingDir")).toString(), QStringLiteral("/work"));
    QCOMPARE(o.value(QLatin1String("User")).toString(), QStringLiteral("1000:1000"));
    QCOMPARE(o.value(QLatin1String("Labels"))
                 .toObject()
                 .value(QLatin1String("io.clusterdeck.session"))
                 .toString(),
             QStringLiteral("s1"));
    QVERIFY(o.value(QLatin1String("ExposedPorts")).toObject().contains(QLatin1String("8080/tcp")));
    QVERIFY(o.value(QLatin1String("ExposedPorts")).toObject().contains(QLatin1String("2200/tcp")));

    const QJsonObject host = o.value(QLatin1String("HostConfig")).toObject();
    QCOMPARE(host.value(QLatin1String("CapDrop")).toVariant().toStringList(), spec.capDrop);
    QCOMPARE(host.value(QLatin1String("CapAdd")).toVariant().toStringList(), spec.capAdd);
    QCOMPARE(host.value(QLatin1String("NanoCpus")).toInteger(), 2000000000LL);
    QCOMPARE(host.value(QLatin1String("Memory")).toInteger(), 4LL * 1024 * 1024 * 1024);
    QCOMPARE(host.value(QLatin1String("Binds")).toVariant().toStringList(), spec.binds);
    QCOMPARE(host.value(QLatin1String("NetworkMode")).toString(), QStringLiteral("cd-1a2b3c4d"));
    QCOMPARE(host.value(QLatin1String("RestartPolicy"))
                 .toObject()
                 .value(QLatin1String("Name"))
                 .toString(),
             QStringLiteral("no"));
    const QJsonObject bindings = host.value(QLatin1String("PortBindings")).toObject();
    const QJsonArray web = bindings.value(QLatin1String("8080/tcp")).toArray();
    QCOMPARE(web.size(), 2);
    QCOMPARE(web.at(0).toObject().value(QLatin1String("HostPort")).toString(),
             QString()); // Docker picks
    QCOMPARE(web.at(1).toObject().value(QLatin1String("HostIp")).toString(), QStringLiteral("::"));
    const QJsonObject ssh = bindings.value(QLatin1String("2200/tcp")).toArray().at(0).toObject();
    QCOMPARE(ssh.value(QLatin1String("HostPort")).toString(), QStringLiteral("42200"));
    QCOMPARE(ssh.value(QLatin1String("HostIp")).toString(), QStringLiteral("127.0.0.1"));

    const QJsonObject mount = host.value(QLatin1String("Mounts")).toArray().at(0).toObject();
    QCOMPARE(mount.value(QLatin1String("Type")).toString(), QStringLiteral("volume"));
    QCOMPARE(mount.value(QLatin1String("Target")).toString(), QStringLiteral("/shared"));
    const QJsonObject driver = mount.value(QLatin1String("VolumeOptions"))
                                   .toObject()
                                   .value(QLatin1String("DriverConfig"))
                                   .toObject();
    QCOMPARE(driver.value(QLatin1String("Name")).toString(), QStringLiteral("local"));
    QCOMPARE(
        driver.value(QLatin1String("Options")).toObject().value(QLatin1String("type")).toString(),
        QStringLiteral("nfs"));

    const QJsonObject gpu = host.value(QLatin1String("DeviceRequests")).toArray().at(0).toObject();
    QCOMPARE(gpu.value(QLatin1String("Driver")).toString(), QStringLiteral("nvidia"));
    QCOMPARE(gpu.value(QLatin1String("Count")).toInt(), -1);
    QCOMPARE(gpu.value(QLatin1String("Capabilities")).toArray().at(0).toArray().at(0).toString(),
             QStringLiteral("gpu"));

    const QJsonObject endpoint = o.value(QLatin1String("NetworkingConfig"))
                                     .toObject()
                                     .value(QLatin1String("EndpointsConfig"))
                                     .toObject()
                                     .value(QLatin1String("cd-1a2b3c4d"))
                                     .toObject();
    QCOMPARE(endpoint.value(QLatin1String("Aliases")).toVariant().toStringList(),
             QStringList{QStringLiteral("worker7")});
}

void TestDockerJson::encodeContainerSpecMinimal()
{
    ContainerSpec spec;
    spec.image = QStringLiteral("busybox");
    const auto body = Json::encodeContainerSpec(spec, QStringLiteral("1.41"));
    QVERIFY(body);
    const QJsonObject o = object(*body);
    // Absent, not empty: an empty Cmd/Entrypoint would override the image's.
    QVERIFY(!o.contains(QLatin1String("Cmd")));
    QVERIFY(!o.contains(QLatin1String("Entrypoint")));
    QVERIFY(!o.contains(QLatin1String("NetworkingConfig")));
    const QJsonObject host = o.value(QLatin1String("HostConfig")).toObject();
    QVERIFY(!host.contains(QLatin1String("NanoCpus")));
    QVERIFY(!host.contains(QLatin1String("DeviceRequests")));
    QVERIFY(!host.contains(QLatin1String("PortBindings")));
}

void TestDockerJson::encodeContainerSpecErrors_data()
{
    QTest::addColumn<QString>("image");
    QTest::addColumn<int>("port");
    QTest::addColumn<bool>("gpu");
    QTest::addColumn<QString>("api");
    QTest::addColumn<QString>("messagePart");

    QTest::newRow("no image") << "" << 0 << false << "1.41"
                              << "no image";
    QTest::newRow("port zero") << "busybox" << -1 << false << "1.41"
                               << "invalid container port";
    QTest::newRow("port too big") << "busybox" << 70000 << false << "1.41"
                                  << "invalid container port";
    QTest::newRow("gpu on an old daemon") << "busybox" << 0 << true << "1.39"
                                          << "need API 1.40";
}

void TestDockerJson::encodeContainerSpecErrors()
{
    QFETCH(QString, image);
    QFETCH(int, port);
    QFETCH(bool, gpu);
    QFETCH(QString, api);
    QFETCH(QString, messagePart);
    ContainerSpec spec;
    spec.image = image;
    if (port != 0)
        spec.ports = {PortBinding{port, QStringLiteral("tcp"), QString(), 0}};
    if (gpu)
        spec.deviceRequests = {DeviceRequest{QStringLiteral("nvidia"), 1, {}, {}, {}}};
    const auto body = Json::encodeContainerSpec(spec, api);
    QVERIFY(!body);
    QCOMPARE(body.error().kind, Error::Kind::Invalid);
    QVERIFY2(body.error().message.contains(messagePart), qPrintable(body.error().message));
}

void TestDockerJson::encodeNetworkAndVolume()
{
    NetworkSpec network;
    network.name = QStringLiteral("cd-1a2b3c4d");
    network.driver = QStringLiteral("overlay");
    network.attachable = true;
    network.labels = {{QStringLiteral("io.clusterdeck.session"), QStringLiteral("s1")}};
    network.options = {{QStringLiteral("com.docker.network.driver.mtu"), QStringLiteral("1400")}};
    network.ipam = {IpamConfig{QStringLiteral("10.77.0.0/24"), {}, QStringLiteral("10.77.0.1")}};
    const QJsonObject n = object(Json::encodeNetworkSpec(network));
    QCOMPARE(n.value(QLatin1String("Name")).toString(), network.name);
    QCOMPARE(n.value(QLatin1String("Driver")).toString(), QStringLiteral("overlay"));
    QVERIFY(n.value(QLatin1String("Attachable")).toBool());
    QVERIFY(n.value(QLatin1String("CheckDuplicate")).toBool());
    QCOMPARE(n.value(QLatin1String("Options"))
                 .toObject()
                 .value(QLatin1String("com.docker.network.driver.mtu"))
                 .toString(),
             QStringLiteral("1400"));
    const QJsonObject ipam = n.value(QLatin1String("IPAM"))
                                 .toObject()
                                 .value(QLatin1String("Config"))
                                 .toArray()
                                 .at(0)
                                 .toObject();
    QCOMPARE(ipam.value(QLatin1String("Subnet")).toString(), QStringLiteral("10.77.0.0/24"));
    QVERIFY(!ipam.contains(QLatin1String("IPRange")));

    VolumeSpec volume;
    volume.name = QStringLiteral("shared");
    volume.driverOptions = {{QStringLiteral("type"), QStringLiteral("nfs")}};
    const QJsonObject v = object(Json::encodeVolumeSpec(volume));
    QCOMPARE(v.value(QLatin1String("Driver")).toString(), QStringLiteral("local"));
    QCOMPARE(
        v.value(QLatin1String("DriverOpts")).toObject().value(QLatin1String("type")).toString(),
        QStringLiteral("nfs"));
    QVERIFY(v.value(QLatin1String("Labels")).isObject());
}

void TestDockerJson::encodeSwarm()
{
    SwarmInitSpec init;
    init.advertiseAddr = QStringLiteral("192.168.213.11");
    init.listenAddr = QStringLiteral("192.168.213.11:2377");
    const QJsonObject i = object(Json::encodeSwarmInit(init));
    QCOMPARE(i.value(QLatin1String("AdvertiseAddr")).toString(), QStringLiteral("192.168.213.11"));
    QCOMPARE(i.value(QLatin1String("ListenAddr")).toString(),
             QStringLiteral("192.168.213.11:2377"));
    QVERIFY(!i.value(QLatin1String("ForceNewCluster")).toBool());

    SwarmJoinSpec join;
    join.joinToken = QStringLiteral("SWMTKN-1-abc");
    join.remoteAddrs = {QStringLiteral("192.168.213.11:2377")};
    join.advertiseAddr = QStringLiteral("192.168.213.12");
    const QJsonObject j = object(Json::encodeSwarmJoin(join));
    QCOMPARE(j.value(QLatin1String("JoinToken")).toString(), QStringLiteral("SWMTKN-1-abc"));
    QCOMPARE(j.value(QLatin1String("RemoteAddrs")).toVariant().toStringList(), join.remoteAddrs);
    QCOMPARE(j.value(QLatin1String("ListenAddr")).toString(), QStringLiteral("0.0.0.0:2377"));
}

void TestDockerJson::encodeFilters()
{
    QCOMPARE(Json::encodeFilters({}), QByteArray());
    QCOMPARE(Json::encodeFilters({{QStringLiteral("label"), {}}}), QByteArray());
    const QByteArray json =
        Json::encodeFilters({{QStringLiteral("label"),
                              {QStringLiteral("io.clusterdeck.session=s1"), QStringLiteral("x")}},
                             {QStringLiteral("type"), {QStringLiteral("container")}}});
    QCOMPARE(json,
             QByteArray(R"({"label":["io.clusterdeck.session=s1","x"],"type":["container"]})"));
}

void TestDockerJson::apiVersions_data()
{
    QTest::addColumn<QString>("a");
    QTest::addColumn<QString>("b");
    QTest::addColumn<int>("expected");
    QTest::newRow("equal") << "1.41"
                           << "1.41" << 0;
    QTest::newRow("older") << "1.40"
                           << "1.41" << -1;
    QTest::newRow("numeric not lexical") << "1.9"
                                         << "1.41" << -1;
    QTest::newRow("newer") << "1.43"
                           << "1.41" << 1;
    QTest::newRow("missing component") << "1"
                                       << "1.0" << 0;
}

void TestDockerJson::apiVersions()
{
    QFETCH(QString, a);
    QFETCH(QString, b);
    QFETCH(int, expected);
    QCOMPARE(Json::compareApiVersions(a, b), expected);
    QCOMPARE(Json::compareApiVersions(b, a), -expected);
}

void TestDockerJson::eventTime_data()
{
    QTest::addColumn<qint64>("nano");
    QTest::addColumn<QString>("text");
    QTest::newRow("padded") << qint64(1700000000000000042LL) << "1700000000.000000042";
    QTest::newRow("full") << qint64(1796211953008727930LL) << "1796211953.008727930";
    QTest::newRow("zero") << qint64(0) << "0.000000000";
}

void TestDockerJson::eventTime()
{
    QFETCH(qint64, nano);
    QFETCH(QString, text);
    QCOMPARE(DockerClient::formatEventTime(nano), text);
}

QTEST_GUILESS_MAIN(TestDockerJson)
#include "tst_dockerjson.moc"
