// Integration tests of the provisioning engine against the 3-host lab (scripts/lab.sh): gang launch
// over several hosts, the environment and network inside kernels, service ports, gang failures,
// whole-session restart/terminate, crash recovery through the reconciler, failure policies.
// Endpoints come from `eval "$(scripts/lab.sh env)"`; without them the test FAILS, never skips.
// Every session lives in a temporary SQLite store and is removed at the end.

#include "docker/dockerclient.h"
#include "host/hostregistry.h"
#include "labaddress.h"
#include "labcli.h"
#include "provision/provisioner.h"
#include "store/statestore.h"
#include "store/storefactory.h"
#include "template/templateloader.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QRegularExpression>
#include <QSet>
#include <QTemporaryDir>
#include <QTest>
#include <QThread>
#include <QUuid>

#include <sqlite3.h>

#include <csignal>

using namespace ClusterDeck;
using namespace std::chrono_literals;

#ifndef CLUSTERDECKCTL
#error "CLUSTERDECKCTL must name the clusterdeckctl binary"
#endif

namespace {

const QString kImage = QStringLiteral("clusterdeck/lab:latest");

QString templateText(const QString &name, const QString &policy, const QString &image = kImage,
                     const QString &startup = QStringLiteral("parallel"))
{
    return QStringLiteral(R"(apiVersion: clusterdeck/v1
kind: Cluster
name: %1
mode: auto
failurePolicy:
  action: %2%5
startupOrder: %4
env:
  LAB_GREETING: from-template
  LEVEL: template
roles:
  - name: master
    count: 1
    max: 2
    task:
      image: %3
      bootstrap: |
        #!/bin/sh
        mkdir -p /srv/www
        echo "hello from $BACKEND_CLUSTER_HOST" > /srv/www/index.html
      command: [busybox, httpd, -f, -p, "8080", -h, /srv/www]
      ports:
        - web:http:8080
      resources:
        cpus: 0.1
        memory: 32m
  - name: worker
    count: 2
    max: 12
    task:
      image: %3
      command: [sleep, "3600"]
      resources:
        cpus: 0.1
        memory: 32m
)")
        .arg(name, policy, image, startup,
             policy == QLatin1String("restart-session") ? QStringLiteral("\n  maxRestarts: 2")
                                                        : QString());
}

} // namespace

class TestProvisioner : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void cleanupTestCase();

    void multiNodeLaunch();
    void singleNodeOnOneBridge();
    void gangDoesNotFit();
    void gangMissingImageOnOneHost();
    void gangHostUnreachableMidLaunch();
    void restartRestartsEveryKernel();
    void crashRecovery_data();
    void crashRecovery();
    void crashDuringRm();
    void cancelLaunch_data();
    void cancelLaunch();
    void failurePolicy_data();
    void failurePolicy();
    void lockLostDuringLaunch();

private:
    Proc cli(const QStringList &args, int timeoutMs = 240000) const
    {
        return runProcess(QStringLiteral(CLUSTERDECKCTL),
                          QStringList{QStringLiteral("--store"), m_storeUrl} + args, timeoutMs);
    }
    Proc docker(const QString &host, const QStringList &args) const
    {
        return runProcess(QStringLiteral("docker"),
                          QStringList{QStringLiteral("-H"), m_unix.value(host)} + args, 60000);
    }
    QString writeTemplate(const QString &name, const QString &text) const
    {
        const QString path = m_dir.filePath(name + QStringLiteral(".yaml"));
        QFile f(path);
        f.open(QIODevice::WriteOnly | QIODevice::Truncate);
        f.write(text.toUtf8());
        return path;
    }
    QJsonObject launchJson(const QStringList &args, Proc *proc = nullptr);
    // host → container names / network names of a session
    QMap<QString, QStringList> containersOf(const QString &sessionId) const;
    QMap<QString, QStringList> networksOf(const QString &sessionId) const;
    int count(const QMap<QString, QStringList> &m) const
    {
        int n = 0;
        for (const QStringList &l : m)
            n += l.size();
        return n;
    }
    QString execIn(const QString &host, const QString &container, const QString &script) const
    {
        return QString::fromUtf8(docker(host, {QStringLiteral("exec"), container,
                                               QStringLiteral("sh"), QStringLiteral("-c"), script})
                                     .out);
    }
    QString startedAt(const QString &host, const QString &container) const
    {
        return QString::fromUtf8(docker(host, {QStringLiteral("inspect"), QStringLiteral("-f"),
                                               QStringLiteral("{{.State.StartedAt}}"), container})
                                     .out)
            .trimmed();
    }
    void expectGone(const QString &sessionId);
    void expectFullyRunning(const QJsonObject &session);

    QTemporaryDir m_dir;
    QString m_storeUrl;
    std::unique_ptr<StateStore> m_store;
    QStringList m_hosts;
    QMap<QString, QString> m_unix;
    QStringList m_sessions; // to remove at the end
    QStringList m_tags;     // "host image" tags this test made
};

void TestProvisioner::initTestCase()
{
    const QString hosts = qEnvironmentVariable("CLUSTERDECK_LAB_HOSTS");
    if (hosts.isEmpty())
        QFAIL("CLUSTERDECK_LAB_HOSTS is not set: start the lab and eval \"$(scripts/lab.sh env)\"");
    m_hosts = hosts.split(QLatin1Char(' '), Qt::SkipEmptyParts);
    QVERIFY2(m_hosts.size() >= 2, "the lab needs at least 2 hosts");
    QVERIFY(m_dir.isValid());
    m_storeUrl = QStringLiteral("sqlite://") + m_dir.filePath(QStringLiteral("state.db"));
    auto store = openStore(m_storeUrl);
    QVERIFY2(store, qPrintable(store ? QString() : store.error().toString()));
    m_store = std::move(*store);
    const QString ca = qEnvironmentVariable("CLUSTERDECK_LAB_TLS_CA");
    const QString cert = qEnvironmentVariable("CLUSTERDECK_LAB_TLS_CERT");
    const QString key = qEnvironmentVariable("CLUSTERDECK_LAB_TLS_KEY");
    for (const QString &h : std::as_const(m_hosts)) {
        const QByteArray prefix = "CLUSTERDECK_LAB_" + h.toUpper().toLatin1();
        const QString tls = qEnvironmentVariable(QByteArray(prefix + "_DOCKER_TLS").constData());
        const QString addr = qEnvironmentVariable(QByteArray(prefix + "_ADDR").constData());
        m_unix.insert(h, qEnvironmentVariable(QByteArray(prefix + "_DOCKER").constData()));
        QVERIFY2(!tls.isEmpty() && !addr.isEmpty(),
                 QByteArray(prefix + "_DOCKER_TLS / _ADDR missing").constData());
        const Proc added =
            cli({QStringLiteral("host"), QStringLiteral("add"), h, QStringLiteral("--docker"), tls,
                 QStringLiteral("--tls-ca"), ca, QStringLiteral("--tls-cert"), cert,
                 QStringLiteral("--tls-key"), key, QStringLiteral("--address"), addr});
        QVERIFY2(added.exitCode == 0, added.err.constData());
    }
}

void TestProvisioner::cleanupTestCase()
{
    for (const QString &id : std::as_const(m_sessions))
        cli({QStringLiteral("rm"), id});
    for (const QString &tag : std::as_const(m_tags))
        docker(tag.section(QLatin1Char(' '), 0, 0),
               {QStringLiteral("rmi"), tag.section(QLatin1Char(' '), 1)});
    for (const QString &id : std::as_const(m_sessions)) {
        const auto left = containersOf(id);
        QVERIFY2(count(left) == 0, qPrintable(QStringLiteral("left behind: %1").arg(id)));
    }
}

QJsonObject TestProvisioner::launchJson(const QStringList &args, Proc *procOut)
{
    const Proc p =
        cli(QStringList{QStringLiteral("launch")} + args + QStringList{QStringLiteral("--json")});
    if (procOut)
        *procOut = p;
    const QJsonObject o = QJsonDocument::fromJson(p.out).object();
    if (!o.value(QStringLiteral("id")).toString().isEmpty())
        m_sessions.append(o.value(QStringLiteral("id")).toString());
    if (p.exitCode != 0 && !procOut)
        qWarning() << "launch failed:" << p.err;
    return o;
}

QMap<QString, QStringList> TestProvisioner::containersOf(const QString &sessionId) const
{
    QMap<QString, QStringList> result;
    for (const QString &h : m_hosts) {
        const Proc p =
            docker(h, {QStringLiteral("ps"), QStringLiteral("-a"), QStringLiteral("--filter"),
                       QStringLiteral("label=io.clusterdeck.session=") + sessionId,
                       QStringLiteral("--format"), QStringLiteral("{{.Names}}")});
        const QStringList names =
            QString::fromUtf8(p.out).split(QLatin1Char('\n'), Qt::SkipEmptyParts);
        if (!names.isEmpty())
            result.insert(h, names);
    }
    return result;
}

QMap<QString, QStringList> TestProvisioner::networksOf(const QString &sessionId) const
{
    QMap<QString, QStringList> result;
    for (const QString &h : m_hosts) {
        const Proc p =
            docker(h, {QStringLiteral("network"), QStringLiteral("ls"), QStringLiteral("--filter"),
                       QStringLiteral("label=io.clusterdeck.session=") + sessionId,
                       QStringLiteral("--format"), QStringLiteral("{{.Name}}")});
        const QStringList names =
            QString::fromUtf8(p.out).split(QLatin1Char('\n'), Qt::SkipEmptyParts);
        if (!names.isEmpty())
            result.insert(h, names);
    }
    return result;
}

void TestProvisioner::expectGone(const QString &sessionId)
{
    QTRY_COMPARE_WITH_TIMEOUT(count(containersOf(sessionId)), 0, 20000);
    // A worker drops its copy of an overlay a moment after its last container left.
    QTRY_COMPARE_WITH_TIMEOUT(count(networksOf(sessionId)), 0, 20000);
}

void TestProvisioner::expectFullyRunning(const QJsonObject &session)
{
    const QString id = session.value(QStringLiteral("id")).toString();
    QCOMPARE(session.value(QStringLiteral("status")).toString(), QStringLiteral("RUNNING"));
    const QJsonArray kernels = session.value(QStringLiteral("kernels")).toArray();
    QSet<QString> hostnames;
    for (const QJsonValue &v : kernels) {
        const QJsonObject k = v.toObject();
        QCOMPARE(k.value(QStringLiteral("status")).toString(), QStringLiteral("RUNNING"));
        QVERIFY(!hostnames.contains(k.value(QStringLiteral("hostname")).toString()));
        hostnames.insert(k.value(QStringLiteral("hostname")).toString());
        const QString host = k.value(QStringLiteral("host")).toString();
        const Proc st = docker(host, {QStringLiteral("inspect"), QStringLiteral("-f"),
                                      QStringLiteral("{{.State.Running}}"),
                                      k.value(QStringLiteral("container_name")).toString()});
        QCOMPARE(QString::fromUtf8(st.out).trimmed(), QStringLiteral("true"));
    }
    QCOMPARE(count(containersOf(id)), int(kernels.size()));
}

void TestProvisioner::multiNodeLaunch()
{
    const QString file =
        writeTemplate(QStringLiteral("multi"),
                      templateText(QStringLiteral("provtest"), QStringLiteral("restart-session")));
    QElapsedTimer timer;
    timer.start();
    const QJsonObject s = launchJson({file, QStringLiteral("--count"), QStringLiteral("master=2"),
                                      QStringLiteral("--count"), QStringLiteral("worker=12"),
                                      QStringLiteral("--mode"), QStringLiteral("multi-node"),
                                      QStringLiteral("--env"), QStringLiteral("LEVEL=option")});
    qInfo() << "14-kernel multi-node launch took" << timer.elapsed() << "ms";
    QCOMPARE(s.value(QStringLiteral("mode")).toString(), QStringLiteral("multi-node"));
    const QString id = s.value(QStringLiteral("id")).toString();
    const QJsonArray kernels = s.value(QStringLiteral("kernels")).toArray();
    QCOMPARE(kernels.size(), 14);
    expectFullyRunning(s);

    QStringList expected{QStringLiteral("master1"), QStringLiteral("master2")};
    for (int i = 1; i <= 12; ++i)
        expected.append(QStringLiteral("worker%1").arg(i));
    QStringList hostnames;
    QSet<QString> hostsUsed;
    QMap<QString, QString> hostOf, containerOf;
    for (const QJsonValue &v : kernels) {
        const QJsonObject k = v.toObject();
        hostnames.append(k.value(QStringLiteral("hostname")).toString());
        hostsUsed.insert(k.value(QStringLiteral("host")).toString());
        hostOf.insert(hostnames.last(), k.value(QStringLiteral("host")).toString());
        containerOf.insert(hostnames.last(), k.value(QStringLiteral("container_name")).toString());
    }
    QCOMPARE(hostnames, expected);
    QVERIFY2(hostsUsed.size() >= 2, "multi-node must use at least 2 hosts");

    // From master1, every other hostname resolves and answers ping, across hosts.
    QString script;
    for (const QString &h : std::as_const(expected)) {
        if (h != QLatin1String("master1"))
            script +=
                QStringLiteral("ping -c1 -W3 %1 >/dev/null 2>&1 && echo ok:%1 || echo FAIL:%1;")
                    .arg(h);
    }
    const QString pings = execIn(hostOf.value(QStringLiteral("master1")),
                                 containerOf.value(QStringLiteral("master1")), script);
    QVERIFY2(!pings.contains(QStringLiteral("FAIL")), qPrintable(pings));
    QCOMPARE(pings.count(QStringLiteral("ok:")), 13);
    bool crossHost = false;
    for (const QString &h : std::as_const(expected))
        crossHost = crossHost || hostOf.value(h) != hostOf.value(QStringLiteral("master1"));
    QVERIFY(crossHost);

    // Every BACKEND_* variable, in every kernel.
    const QString all = expected.join(QLatin1Char(','));
    QStringList workers = expected.mid(2);
    for (int rank = 0; rank < kernels.size(); ++rank) {
        const QJsonObject k = kernels.at(rank).toObject();
        const QString hostname = k.value(QStringLiteral("hostname")).toString();
        const QString out =
            execIn(hostOf.value(hostname), containerOf.value(hostname), QStringLiteral("env"));
        QMap<QString, QString> env;
        for (const QString &line : out.split(QLatin1Char('\n'), Qt::SkipEmptyParts))
            env.insert(line.section(QLatin1Char('='), 0, 0), line.section(QLatin1Char('='), 1));
        const QString role = k.value(QStringLiteral("role")).toString();
        QCOMPARE(env.value(QStringLiteral("BACKEND_SESSION_ID")), id);
        QCOMPARE(env.value(QStringLiteral("BACKEND_KERNEL_ID")),
                 k.value(QStringLiteral("id")).toString());
        QCOMPARE(env.value(QStringLiteral("BACKEND_CLUSTER_ROLE")), role);
        QCOMPARE(env.value(QStringLiteral("BACKEND_CLUSTER_ROLE_IDX")),
                 QString::number(k.value(QStringLiteral("role_idx")).toInt()));
        QCOMPARE(env.value(QStringLiteral("BACKEND_CLUSTER_LOCAL_RANK")), QString::number(rank));
        QCOMPARE(env.value(QStringLiteral("BACKEND_CLUSTER_HOST")), hostname);
        QCOMPARE(env.value(QStringLiteral("BACKEND_CLUSTER_HOSTS")), all);
        QCOMPARE(env.value(QStringLiteral("BACKEND_CLUSTER_SIZE")), QStringLiteral("14"));
        QCOMPARE(env.value(QStringLiteral("BACKEND_CLUSTER_MODE")), QStringLiteral("multi-node"));
        QCOMPARE(env.value(QStringLiteral("BACKEND_CLUSTER_REPLICAS")),
                 QStringLiteral("master:2,worker:12"));
        QCOMPARE(env.value(QStringLiteral("BACKEND_CLUSTER_MASTER_HOSTS")),
                 QStringLiteral("master1,master2"));
        QCOMPARE(env.value(QStringLiteral("BACKEND_CLUSTER_WORKER_HOSTS")),
                 workers.join(QLatin1Char(',')));
        // Precedence: image < template < launch option.
        QCOMPARE(env.value(QStringLiteral("LAB_GREETING")), QStringLiteral("from-template"));
        QCOMPARE(env.value(QStringLiteral("LEVEL")), QStringLiteral("option"));
    }

    // The service port answers over http at the URL `show --json` prints.
    const Proc shown = cli({QStringLiteral("show"), id.left(8), QStringLiteral("--json")});
    QCOMPARE(shown.exitCode, 0);
    const QJsonObject master1 = QJsonDocument::fromJson(shown.out)
                                    .object()
                                    .value(QStringLiteral("kernels"))
                                    .toArray()
                                    .at(0)
                                    .toObject();
    const QString url = master1.value(QStringLiteral("ports"))
                            .toArray()
                            .at(0)
                            .toObject()
                            .value(QStringLiteral("url"))
                            .toString();
    QVERIFY2(url.startsWith(QStringLiteral("http://%1").arg(labSubnetAddress(1).chopped(1))),
             qPrintable(url));
    QString body;
    for (int attempt = 0; attempt < 20 && !body.contains(QStringLiteral("master1")); ++attempt) {
        body = QString::fromUtf8(
            runProcess(QStringLiteral("curl"), {QStringLiteral("-s"), QStringLiteral("--max-time"),
                                                QStringLiteral("3"), url})
                .out);
        if (!body.contains(QStringLiteral("master1")))
            QThread::msleep(250);
    }
    QCOMPARE(body.trimmed(), QStringLiteral("hello from master1"));

    // A second session cannot resolve the first one's hostnames.
    const QString single =
        writeTemplate(QStringLiteral("other"),
                      templateText(QStringLiteral("provother"), QStringLiteral("ignore")));
    const QJsonObject other =
        launchJson({single, QStringLiteral("--count"), QStringLiteral("worker=1")});
    QCOMPARE(other.value(QStringLiteral("status")).toString(), QStringLiteral("RUNNING"));
    const QJsonObject om = other.value(QStringLiteral("kernels")).toArray().at(0).toObject();
    const QString probe = execIn(
        om.value(QStringLiteral("host")).toString(),
        om.value(QStringLiteral("container_name")).toString(),
        QStringLiteral("ping -c1 -W2 worker7 >/dev/null 2>&1 && echo reachable || echo isolated; "
                       "ping -c1 -W2 master2 >/dev/null 2>&1 && echo reachable || echo isolated"));
    QCOMPARE(probe.split(QLatin1Char('\n'), Qt::SkipEmptyParts),
             (QStringList{QStringLiteral("isolated"), QStringLiteral("isolated")}));
    QCOMPARE(cli({QStringLiteral("rm"), other.value(QStringLiteral("id")).toString()}).exitCode, 0);

    // rm --kernel removes the whole session, its network included.
    const Proc rm =
        cli({QStringLiteral("rm"), id, QStringLiteral("--kernel"), QStringLiteral("worker3")});
    QVERIFY2(rm.exitCode == 0, rm.err.constData());
    expectGone(id);
    const Proc after = cli({QStringLiteral("show"), id, QStringLiteral("--json")});
    QCOMPARE(QJsonDocument::fromJson(after.out).object().value(QStringLiteral("status")).toString(),
             QStringLiteral("TERMINATED"));
}

void TestProvisioner::singleNodeOnOneBridge()
{
    const QString file =
        writeTemplate(QStringLiteral("single"),
                      templateText(QStringLiteral("provsingle"), QStringLiteral("ignore")));
    const QJsonObject s = launchJson({file, QStringLiteral("--mode"), QStringLiteral("single-node"),
                                      QStringLiteral("--count"), QStringLiteral("worker=3")});
    QCOMPARE(s.value(QStringLiteral("mode")).toString(), QStringLiteral("single-node"));
    expectFullyRunning(s);
    QSet<QString> hosts;
    for (const QJsonValue &v : s.value(QStringLiteral("kernels")).toArray())
        hosts.insert(v.toObject().value(QStringLiteral("host")).toString());
    QCOMPARE(hosts.size(), 1);
    const QString host = *hosts.begin();
    const Proc driver = docker(host, {QStringLiteral("network"), QStringLiteral("inspect"),
                                      QStringLiteral("-f"), QStringLiteral("{{.Driver}}"),
                                      s.value(QStringLiteral("network")).toString()});
    QCOMPARE(QString::fromUtf8(driver.out).trimmed(), QStringLiteral("bridge"));
    const QJsonObject w = s.value(QStringLiteral("kernels")).toArray().at(1).toObject();
    const QString env = execIn(
        host, w.value(QStringLiteral("container_name")).toString(),
        QStringLiteral("echo $BACKEND_CLUSTER_MODE; ping -c1 -W2 worker3 >/dev/null && echo ok"));
    QCOMPARE(env.split(QLatin1Char('\n'), Qt::SkipEmptyParts),
             (QStringList{QStringLiteral("single-node"), QStringLiteral("ok")}));
    QCOMPARE(cli({QStringLiteral("rm"), s.value(QStringLiteral("name")).toString()}).exitCode, 0);
    expectGone(s.value(QStringLiteral("id")).toString());
}

void TestProvisioner::gangDoesNotFit()
{
    // 14 kernels of 0.5 cpu cannot share one 2-cpu host.
    QString text = templateText(QStringLiteral("provfit"), QStringLiteral("ignore"));
    text.replace(QStringLiteral("cpus: 0.1"), QStringLiteral("cpus: 0.5"));
    const QString file = writeTemplate(QStringLiteral("fit"), text);
    Proc p;
    const QJsonObject s = launchJson({file, QStringLiteral("--mode"), QStringLiteral("single-node"),
                                      QStringLiteral("--count"), QStringLiteral("worker=12")},
                                     &p);
    QVERIFY(p.exitCode != 0);
    QVERIFY2(p.err.startsWith("error: "), p.err.constData());
    QCOMPARE(s.value(QStringLiteral("status")).toString(), QStringLiteral("ERROR"));
    expectGone(s.value(QStringLiteral("id")).toString());
}

void TestProvisioner::gangMissingImageOnOneHost()
{
    // The image exists on every host but the last: spread puts kernels there too.
    const QString image = QStringLiteral("clusterdeck/provtest-partial:latest");
    for (const QString &h : m_hosts.mid(0, m_hosts.size() - 1)) {
        QCOMPARE(docker(h, {QStringLiteral("tag"), kImage, image}).exitCode, 0);
        m_tags.append(h + QLatin1Char(' ') + image);
    }
    const QString missingOn = m_hosts.last();
    const QString file =
        writeTemplate(QStringLiteral("partial"),
                      templateText(QStringLiteral("provpartial"), QStringLiteral("ignore"), image));
    Proc p;
    const QJsonObject s = launchJson({file, QStringLiteral("--mode"), QStringLiteral("multi-node"),
                                      QStringLiteral("--count"), QStringLiteral("worker=8")},
                                     &p);
    QVERIFY(p.exitCode != 0);
    QVERIFY2(p.err.contains(image.toUtf8()) && p.err.contains(missingOn.toUtf8()),
             p.err.constData());
    QCOMPARE(s.value(QStringLiteral("status")).toString(), QStringLiteral("ERROR"));
    expectGone(s.value(QStringLiteral("id")).toString());
}

void TestProvisioner::gangHostUnreachableMidLaunch()
{
    // Placed while every host answered; then one host's endpoint goes dead before provisioning.
    TemplateLoader loader;
    const QString file = writeTemplate(
        QStringLiteral("dead"), templateText(QStringLiteral("provdead"), QStringLiteral("ignore")));
    auto t = loader.loadClusterFile(file);
    QVERIFY(t);
    HostRegistry registry(m_store.get());
    Provisioner provisioner(m_store.get(), &registry);
    LaunchRequest request;
    request.clusterTemplate = *t;
    request.options.counts.insert(QStringLiteral("worker"), 8);
    request.options.mode = ClusterMode::MultiNode;
    auto spec = provisioner.prepare(request);
    QVERIFY2(spec, qPrintable(spec ? QString() : spec.error().toString()));
    m_sessions.append(spec->plan.sessionId);
    const QString victim = spec->placement.hostsUsed.last();
    QVERIFY(victim != spec->placement.networkHost);
    auto original = m_store->host(victim);
    QVERIFY(original);
    HostRecord dead = *original;
    dead.endpoint =
        QStringLiteral("tcp://%1:2375").arg(labSubnetAddress(254)); // nothing listens there
    dead.tlsCa.clear();
    dead.tlsCert.clear();
    dead.tlsKey.clear();
    QVERIFY(m_store->putHost(dead));
    HostRegistry fresh(m_store.get());
    Provisioner second(m_store.get(), &fresh);
    second.setCallTimeout(5s);
    auto result = second.provision(*spec);
    QVERIFY(m_store->putHost(*original));
    QVERIFY(!result);
    QVERIFY2(result.error().toString().contains(victim), qPrintable(result.error().toString()));
    auto session = m_store->session(spec->plan.sessionId);
    QVERIFY(session);
    QCOMPARE(toString(session->status), QStringLiteral("ERROR"));
    QVERIFY2(session->lastError.contains(victim), qPrintable(session->lastError));
    expectGone(spec->plan.sessionId);
}

void TestProvisioner::restartRestartsEveryKernel()
{
    const QString file =
        writeTemplate(QStringLiteral("restart"),
                      templateText(QStringLiteral("provrestart"), QStringLiteral("ignore")));
    const QJsonObject s = launchJson({file, QStringLiteral("--mode"), QStringLiteral("multi-node"),
                                      QStringLiteral("--count"), QStringLiteral("worker=4")});
    expectFullyRunning(s);
    QMap<QString, QString> before;
    for (const QJsonValue &v : s.value(QStringLiteral("kernels")).toArray()) {
        const QJsonObject k = v.toObject();
        before.insert(k.value(QStringLiteral("container_name")).toString() + QLatin1Char('@') +
                          k.value(QStringLiteral("host")).toString(),
                      startedAt(k.value(QStringLiteral("host")).toString(),
                                k.value(QStringLiteral("container_name")).toString()));
    }
    const Proc r = cli({QStringLiteral("restart"), s.value(QStringLiteral("id")).toString(),
                        QStringLiteral("--kernel"), QStringLiteral("worker2")});
    QVERIFY2(r.exitCode == 0, r.err.constData());
    for (auto it = before.cbegin(); it != before.cend(); ++it) {
        const QString now = startedAt(it.key().section(QLatin1Char('@'), 1),
                                      it.key().section(QLatin1Char('@'), 0, 0));
        QVERIFY2(now != it.value(), qPrintable(it.key() + QStringLiteral(" did not restart")));
    }
    const Proc shown = cli({QStringLiteral("show"), s.value(QStringLiteral("id")).toString(),
                            QStringLiteral("--json")});
    expectFullyRunning(QJsonDocument::fromJson(shown.out).object());
    QCOMPARE(cli({QStringLiteral("rm"), s.value(QStringLiteral("id")).toString()}).exitCode, 0);
    expectGone(s.value(QStringLiteral("id")).toString());
}

void TestProvisioner::crashRecovery_data()
{
    QTest::addColumn<int>("killAfterMs");
    QTest::newRow("during placement") << 150;
    QTest::newRow("network/early kernels") << 900;
    QTest::newRow("kernels being created") << 2500;
    QTest::newRow("late") << 6000;
}

void TestProvisioner::crashRecovery()
{
    QFETCH(int, killAfterMs);
    const QString file =
        writeTemplate(QStringLiteral("crash"),
                      templateText(QStringLiteral("provcrash"), QStringLiteral("ignore")));
    QProcess launch;
    launch.start(QStringLiteral(CLUSTERDECKCTL),
                 {QStringLiteral("--store"), m_storeUrl, QStringLiteral("launch"), file,
                  QStringLiteral("--mode"), QStringLiteral("multi-node"), QStringLiteral("--count"),
                  QStringLiteral("master=2"), QStringLiteral("--count"),
                  QStringLiteral("worker=12")});
    QVERIFY(launch.waitForStarted());
    QThread::msleep(killAfterMs);
    ::kill(pid_t(launch.processId()), SIGKILL);
    launch.waitForFinished();

    const Proc rec = cli({QStringLiteral("reconcile"), QStringLiteral("--json")});
    QVERIFY2(rec.exitCode == 0, rec.err.constData());
    QVERIFY(QJsonDocument::fromJson(rec.out).isObject());
    const Proc ls = cli({QStringLiteral("ls"), QStringLiteral("--json")});
    const QJsonArray sessions = QJsonDocument::fromJson(ls.out).array();
    int checked = 0;
    for (const QJsonValue &v : sessions) {
        QJsonObject s = v.toObject();
        if (s.value(QStringLiteral("template")).toString() != QLatin1String("provcrash") ||
            m_sessions.contains(s.value(QStringLiteral("id")).toString()))
            continue;
        const QString id = s.value(QStringLiteral("id")).toString();
        m_sessions.append(id);
        ++checked;
        if (s.value(QStringLiteral("desired")).toString() == QLatin1String("running")) {
            qInfo() << "killed after" << killAfterMs << "ms: completed by the reconciler";
            expectFullyRunning(s);
            QCOMPARE(count(networksOf(id)) >= 1, true);
            QCOMPARE(cli({QStringLiteral("rm"), id}).exitCode, 0);
        } else {
            qInfo() << "killed after" << killAfterMs << "ms: rolled back,"
                    << s.value(QStringLiteral("status")).toString();
        }
        expectGone(id);
    }
    // Killed before the desired state was written: nothing may exist at all.
    QVERIFY(checked <= 1);
}

void TestProvisioner::crashDuringRm()
{
    const QString file =
        writeTemplate(QStringLiteral("crashrm"),
                      templateText(QStringLiteral("provcrashrm"), QStringLiteral("ignore")));
    const QJsonObject s = launchJson({file, QStringLiteral("--mode"), QStringLiteral("multi-node"),
                                      QStringLiteral("--count"), QStringLiteral("worker=12")});
    expectFullyRunning(s);
    const QString id = s.value(QStringLiteral("id")).toString();
    QProcess rm;
    rm.start(QStringLiteral(CLUSTERDECKCTL),
             {QStringLiteral("--store"), m_storeUrl, QStringLiteral("rm"), id});
    QVERIFY(rm.waitForStarted());
    QThread::msleep(400);
    ::kill(pid_t(rm.processId()), SIGKILL);
    rm.waitForFinished();
    const Proc rec = cli({QStringLiteral("reconcile"), QStringLiteral("--json")});
    QVERIFY2(rec.exitCode == 0, rec.err.constData());
    qInfo().noquote() << "reconcile:" << rec.out.left(1500);
    const Proc shown = cli({QStringLiteral("show"), id, QStringLiteral("--json")});
    const QJsonObject after = QJsonDocument::fromJson(shown.out).object();
    if (after.value(QStringLiteral("desired")).toString() == QLatin1String("running")) {
        // Killed before rm wrote the desired state: still fully running.
        expectFullyRunning(after);
        QCOMPARE(cli({QStringLiteral("rm"), id}).exitCode, 0);
    } else {
        QCOMPARE(after.value(QStringLiteral("status")).toString(), QStringLiteral("TERMINATED"));
    }
    expectGone(id);
}

void TestProvisioner::cancelLaunch_data()
{
    QTest::addColumn<int>("interruptAfterMs");
    QTest::newRow("early") << 400;
    QTest::newRow("kernels being created") << 1500;
}

void TestProvisioner::cancelLaunch()
{
    // Ctrl-C during a 14-kernel launch: the CLI rolls back everything it made on every host
    // and the session ends CANCELLED; no reconcile needed.
    QFETCH(int, interruptAfterMs);
    const QString tag = QStringLiteral("provcancel%1").arg(interruptAfterMs);
    const QString file = writeTemplate(tag, templateText(tag, QStringLiteral("terminate-session")));
    QProcess launch;
    launch.start(QStringLiteral(CLUSTERDECKCTL),
                 {QStringLiteral("--store"), m_storeUrl, QStringLiteral("launch"), file,
                  QStringLiteral("--mode"), QStringLiteral("multi-node"), QStringLiteral("--count"),
                  QStringLiteral("master=2"), QStringLiteral("--count"),
                  QStringLiteral("worker=12"), QStringLiteral("--json")});
    QVERIFY(launch.waitForStarted());
    QThread::msleep(interruptAfterMs);
    ::kill(pid_t(launch.processId()), SIGINT);
    QVERIFY(launch.waitForFinished(120000));
    const QByteArray err = launch.readAllStandardError();
    QVERIFY2(launch.exitStatus() != QProcess::NormalExit || launch.exitCode() != 0,
             "an interrupted launch must not report success");

    const QJsonArray sessions =
        QJsonDocument::fromJson(cli({QStringLiteral("ls"), QStringLiteral("--json")}).out).array();
    QString id;
    for (const QJsonValue &v : sessions) {
        const QJsonObject o = v.toObject();
        if (o.value(QStringLiteral("template")).toString() != tag)
            continue;
        QVERIFY2(id.isEmpty(), "one launch, one session");
        id = o.value(QStringLiteral("id")).toString();
        QCOMPARE(o.value(QStringLiteral("status")).toString(), QStringLiteral("CANCELLED"));
        QCOMPARE(o.value(QStringLiteral("desired")).toString(), QStringLiteral("terminated"));
        for (const QJsonValue &k : o.value(QStringLiteral("kernels")).toArray())
            QCOMPARE(k.toObject().value(QStringLiteral("status")).toString(),
                     QStringLiteral("CANCELLED"));
    }
    if (id.isEmpty()) {
        // Interrupted before the desired state was written: nothing may exist anywhere.
        qInfo() << "interrupted after" << interruptAfterMs << "ms, before the session existed";
        return;
    }
    qInfo() << "interrupted after" << interruptAfterMs << "ms:" << err.trimmed().right(120);
    QVERIFY2(err.contains("cancel"), err.constData());
    m_sessions.append(id);
    QCOMPARE(count(containersOf(id)), 0); // at once: the rollback finished before the exit
    expectGone(id);
}

void TestProvisioner::lockLostDuringLaunch()
{
    // Issue 14, item 4: the launch's session lock is taken by another owner while kernels are
    // being created: the CLI stops at once (no rollback: the new holder finishes), says so, and
    // the next reconcile (once that owner's row expired) completes the session.
    const QString tag = QStringLiteral("provlocklost");
    const QString file = writeTemplate(tag, templateText(tag, QStringLiteral("ignore")));
    const QByteArray path = m_storeUrl.mid(QStringLiteral("sqlite://").size()).toUtf8();
    auto lockRows = [&]() {
        QStringList sessions;
        sqlite3 *db = nullptr;
        if (sqlite3_open(path.constData(), &db) != SQLITE_OK)
            return sessions;
        sqlite3_stmt *s = nullptr;
        sqlite3_prepare_v2(db, "SELECT session_id FROM locks", -1, &s, nullptr);
        while (sqlite3_step(s) == SQLITE_ROW)
            sessions << QString::fromUtf8(
                reinterpret_cast<const char *>(sqlite3_column_text(s, 0)));
        sqlite3_finalize(s);
        sqlite3_close(db);
        return sessions;
    };
    const QStringList before = lockRows();
    qputenv("CLUSTERDECK_SQLITE_LOCK_TTL_MS", "1500");
    QProcess launch;
    launch.start(QStringLiteral(CLUSTERDECKCTL),
                 {QStringLiteral("--store"), m_storeUrl, QStringLiteral("launch"), file,
                  QStringLiteral("--mode"), QStringLiteral("multi-node"), QStringLiteral("--count"),
                  QStringLiteral("master=2"), QStringLiteral("--count"),
                  QStringLiteral("worker=12")});
    QVERIFY(launch.waitForStarted());
    qunsetenv("CLUSTERDECK_SQLITE_LOCK_TTL_MS");
    QString id;
    QElapsedTimer waited;
    waited.start();
    while (id.isEmpty() && waited.elapsed() < 30000) {
        for (const QString &sid : lockRows()) {
            if (!before.contains(sid))
                id = sid;
        }
        QThread::msleep(20);
    }
    QVERIFY2(!id.isEmpty(), "the launch never took its session lock");
    m_sessions.append(id);
    QThread::msleep(800); // kernels are being created
    {
        sqlite3 *db = nullptr;
        QCOMPARE(sqlite3_open(path.constData(), &db), SQLITE_OK);
        sqlite3_busy_timeout(db, 5000);
        const QByteArray sql =
            "UPDATE locks SET token = 'theirs', owner = 'the test', owner_id = '" +
            QUuid::createUuid().toString(QUuid::WithoutBraces).toUtf8() +
            "', expires_ms = " + QByteArray::number(QDateTime::currentMSecsSinceEpoch() + 3000) +
            " WHERE session_id = '" + id.toUtf8() + "'";
        QCOMPARE(sqlite3_exec(db, sql.constData(), nullptr, nullptr, nullptr), SQLITE_OK);
        const int changed = sqlite3_changes(db);
        sqlite3_close(db);
        if (changed == 0)
            QSKIP("the launch finished before its lock could be taken");
    }
    QElapsedTimer stopped;
    stopped.start();
    QVERIFY(launch.waitForFinished(60000));
    const qint64 stopMs = stopped.elapsed();
    const QByteArray err = launch.readAllStandardError();
    qInfo() << "the launch stopped" << stopMs
            << "ms after its lock was taken:" << err.trimmed().right(200);
    QVERIFY2(launch.exitCode() != 0, err.constData());
    const QByteArray expected =
        QByteArray("lost the lock of session ") + id.toUtf8() + QByteArray(" (taken by the test)");
    QVERIFY2(err.contains(expected), err.constData());
    QVERIFY2(err.contains("the controller finishes it"), err.constData());
    QVERIFY2(stopMs < 15000, qPrintable(QString::number(stopMs)));

    // Still wanted running (no rollback was made); the reconcile after the row expired
    // completes it.
    QThread::msleep(3200);
    const Proc rec = cli({QStringLiteral("reconcile"), QStringLiteral("--json")});
    QVERIFY2(rec.exitCode == 0, rec.err.constData());
    const Proc shown = cli({QStringLiteral("show"), id, QStringLiteral("--json")});
    const QJsonObject after = QJsonDocument::fromJson(shown.out).object();
    QCOMPARE(after.value(QStringLiteral("desired")).toString(), QStringLiteral("running"));
    expectFullyRunning(after);
    QCOMPARE(cli({QStringLiteral("rm"), id}).exitCode, 0);
    expectGone(id);
}

void TestProvisioner::failurePolicy_data()
{
    QTest::addColumn<QString>("policy");
    QTest::newRow("restart-session") << QStringLiteral("restart-session");
    QTest::newRow("terminate-session") << QStringLiteral("terminate-session");
    QTest::newRow("ignore") << QStringLiteral("ignore");
}

void TestProvisioner::failurePolicy()
{
    QFETCH(QString, policy);
    const QString file =
        writeTemplate(QStringLiteral("policy"), templateText(QStringLiteral("provpolicy"), policy));
    const QJsonObject s = launchJson({file, QStringLiteral("--mode"), QStringLiteral("multi-node"),
                                      QStringLiteral("--count"), QStringLiteral("worker=3")});
    expectFullyRunning(s);
    const QString id = s.value(QStringLiteral("id")).toString();
    QMap<QString, QString> before;
    QString victimHost, victim;
    for (const QJsonValue &v : s.value(QStringLiteral("kernels")).toArray()) {
        const QJsonObject k = v.toObject();
        const QString key = k.value(QStringLiteral("container_name")).toString() +
                            QLatin1Char('@') + k.value(QStringLiteral("host")).toString();
        before.insert(key, startedAt(k.value(QStringLiteral("host")).toString(),
                                     k.value(QStringLiteral("container_name")).toString()));
        if (k.value(QStringLiteral("hostname")).toString() == QLatin1String("worker2")) {
            victimHost = k.value(QStringLiteral("host")).toString();
            victim = k.value(QStringLiteral("container_name")).toString();
        }
    }
    // The policies have one owner: a controller, which must lead before the kill.
    QProcess controller;
    controller.start(QStringLiteral(CLUSTERDECKCTL),
                     {QStringLiteral("--store"), m_storeUrl, QStringLiteral("controller"),
                      QStringLiteral("--lease-ttl"), QStringLiteral("3")});
    QVERIFY(controller.waitForStarted());
    QByteArray controllerErr;
    QElapsedTimer waited;
    waited.start();
    while (!controllerErr.contains(" leads") && waited.elapsed() < 30000) {
        controller.waitForReadyRead(500);
        controllerErr += controller.readAllStandardError();
    }
    QVERIFY2(controllerErr.contains(" leads"), controllerErr.constData());
    QThread::msleep(500);
    // The worker's main process dies (SIGKILL from the host: PID 1 ignores it from inside).
    QCOMPARE(docker(victimHost, {QStringLiteral("kill"), victim}).exitCode, 0);

    // The session's status as `show --json` reports it.
    auto statusOf = [&] {
        return showSession(QStringLiteral(CLUSTERDECKCTL), m_storeUrl, id, 240000)
            .value(QStringLiteral("status"))
            .toString();
    };
    if (policy == QLatin1String("restart-session")) {
        QTRY_VERIFY_WITH_TIMEOUT(
            [&] {
                for (auto it = before.cbegin(); it != before.cend(); ++it) {
                    const QString host = it.key().section(QLatin1Char('@'), 1);
                    const QString name = it.key().section(QLatin1Char('@'), 0, 0);
                    const QString now = startedAt(host, name);
                    if (now == it.value() || now.isEmpty())
                        return false;
                }
                return statusOf() == QLatin1String("RUNNING");
            }(),
            60000);
    } else if (policy == QLatin1String("ignore")) {
        // The session goes on without the worker: DEGRADED, the victim down, the others untouched.
        QTRY_COMPARE_WITH_TIMEOUT(statusOf(), QStringLiteral("DEGRADED"), 60000);
        const QJsonObject shown =
            showSession(QStringLiteral(CLUSTERDECKCTL), m_storeUrl, id, 240000);
        int running = 0;
        for (const QJsonValue &v : shown.value(QStringLiteral("kernels")).toArray()) {
            const QJsonObject k = v.toObject();
            const bool isVictim = k.value(QStringLiteral("hostname")).toString() == u"worker2";
            if (k.value(QStringLiteral("status")).toString() == u"RUNNING")
                ++running;
            else
                QVERIFY2(isVictim, qPrintable(k.value(QStringLiteral("hostname")).toString()));
        }
        QCOMPARE(running, int(before.size()) - 1);
        for (auto it = before.cbegin(); it != before.cend(); ++it) {
            const QString host = it.key().section(QLatin1Char('@'), 1);
            const QString name = it.key().section(QLatin1Char('@'), 0, 0);
            if (name != victim)
                QCOMPARE(startedAt(host, name), it.value());
        }
    } else {
        // TERMINATED is written after the whole teardown (the kernels, then the session's
        // networks on every host), so the kernels are gone a moment before it: wait for the
        // status, then nothing of the session may be left.
        QTRY_COMPARE_WITH_TIMEOUT(statusOf(), QStringLiteral("TERMINATED"), 60000);
        QCOMPARE(count(containersOf(id)), 0);
    }
    ::kill(pid_t(controller.processId()), SIGTERM);
    QVERIFY(controller.waitForFinished(15000));
    bool logged = false;
    auto events = m_store->events(0, 10000);
    QVERIFY(events);
    for (const EventRecord &e : std::as_const(*events))
        logged = logged || (e.sessionId == id && e.action == QLatin1String("policy") &&
                            e.detail.contains(policy));
    QVERIFY2(logged, "the policy decision is in the event log");
    cli({QStringLiteral("rm"), id});
    expectGone(id);
}

QTEST_GUILESS_MAIN(TestProvisioner)
#include "tst_provisioner.moc"
