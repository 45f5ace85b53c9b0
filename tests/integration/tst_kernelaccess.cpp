// How kernels are reached, against the lab (scripts/lab.sh; issue 13, items 5 and 6):
//   - the ssh preset for a non-root task user (a bare uid, and a name whose home is not under
//     /home): the key files are that user's, the home keeps its owner, and `ssh worker2 true`
//     works as that user from kernel to kernel across hosts (OpenSSH client, dropbear server);
//   - published ports, image-declared ones included, bind to the host's registered address
//     (HostIp), or to what the template's bindAddress says.
// Endpoints come from `eval "$(scripts/lab.sh env)"`; without them the test FAILS, never skips.

#include "labcli.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSet>
#include <QTemporaryDir>
#include <QTest>

#ifndef CLUSTERDECKCTL
#error "CLUSTERDECKCTL must name the clusterdeckctl binary"
#endif

namespace {

// Three workers across the lab's three hosts; each runs dropbear as the task's user (port 22:
// Docker lets containers bind low ports unprivileged), with a host key it makes itself.
QString sshTemplate(const QString &user)
{
    return QStringLiteral(R"(apiVersion: clusterdeck/v1
kind: Cluster
name: sshuser
mode: multi-node
presets: [ssh]
roles:
  - name: worker
    count: 3
    task:
      image: clusterdeck/lab:latest
      user: "%1"
      command: [/bin/sh, -c, "dropbearkey -t ed25519 -f /tmp/hostkey >/dev/null 2>&1 && exec dropbear -r /tmp/hostkey -F -E -s -p 22"]
      resources: {cpus: 0.1, memory: 32m}
)")
        .arg(user);
}

QString portTemplate(const QString &bindLine)
{
    // The lab image declares web:http:8080 by label; the template adds none.
    return QStringLiteral(R"(apiVersion: clusterdeck/v1
kind: Cluster
name: ports
roles:
  - name: main
    count: 1
    task:
      image: clusterdeck/lab:latest
      command: [sleep, "3600"]
      resources: {cpus: 0.1, memory: 32m}
%1)")
        .arg(bindLine);
}

} // namespace

class TestKernelAccess : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void cleanup();
    void sshAsNonRootUser_data();
    void sshAsNonRootUser();
    void publishedPortsBindToTheHostAddress_data();
    void publishedPortsBindToTheHostAddress();

private:
    Proc cli(const QStringList &args, int timeoutMs = 240000) const
    {
        return runProcess(QStringLiteral(CLUSTERDECKCTL),
                          QStringList{QStringLiteral("--store"), m_url} + args, timeoutMs);
    }
    // Launches `yaml`; returns `show --json`'s object (empty on failure, with a QFAIL).
    QJsonObject launch(const QString &yaml);
    Proc execIn(const QJsonObject &kernel, const QString &script) const
    {
        return m_lab.docker(kernel.value(QStringLiteral("host")).toString(),
                            {QStringLiteral("exec"),
                             kernel.value(QStringLiteral("container_id")).toString(),
                             QStringLiteral("/bin/sh"), QStringLiteral("-c"), script});
    }

    LabHosts m_lab;
    QTemporaryDir m_dir;
    QString m_url;
    QStringList m_sessions;
};

void TestKernelAccess::initTestCase()
{
    m_lab = LabHosts::fromEnvironment();
    if (m_lab.names().size() < 3)
        QFAIL(qPrintable(LabHosts::error()));
    QVERIFY(m_dir.isValid());
    m_url = QStringLiteral("sqlite://") + m_dir.filePath(QStringLiteral("state.db"));
    for (const QString &h : m_lab.names()) {
        const Proc added =
            cli({QStringLiteral("host"), QStringLiteral("add"), h, QStringLiteral("--docker"),
                 m_lab.unixEndpoint(h), QStringLiteral("--address"), m_lab.address(h)});
        QVERIFY2(added.exitCode == 0, added.err.constData());
    }
}

void TestKernelAccess::cleanup()
{
    for (const QString &sid : std::as_const(m_sessions)) {
        const Proc rm = cli({QStringLiteral("rm"), sid});
        if (rm.exitCode != 0)
            qWarning("rm %s: %s", qPrintable(sid), rm.err.constData());
    }
    m_sessions.clear();
}

QJsonObject TestKernelAccess::launch(const QString &yaml)
{
    const QString file = m_dir.filePath(QStringLiteral("t.yaml"));
    if (!writeTextFile(file, yaml)) {
        qWarning("cannot write %s", qPrintable(file));
        return {};
    }
    const Proc launched = cli({QStringLiteral("launch"), file, QStringLiteral("--json")});
    const QJsonObject session = QJsonDocument::fromJson(launched.out).object();
    if (!session.value(QStringLiteral("id")).toString().isEmpty())
        m_sessions.append(session.value(QStringLiteral("id")).toString());
    if (launched.exitCode != 0) {
        qWarning("launch failed: %s", launched.err.constData());
        return {};
    }
    return session;
}

void TestKernelAccess::sshAsNonRootUser_data()
{
    QTest::addColumn<QString>("user");
    QTest::addColumn<QString>("name");
    QTest::addColumn<QString>("home");
    QTest::addColumn<QString>("ids"); // id -u:id -g
    QTest::newRow("uid 1000 (alice in the image)")
        << QStringLiteral("1000") << QStringLiteral("alice") << QStringLiteral("/home/alice")
        << QStringLiteral("1000:1000");
    QTest::newRow("name, home outside /home")
        << QStringLiteral("bob") << QStringLiteral("bob") << QStringLiteral("/srv/bob")
        << QStringLiteral("1001:1001");
}

void TestKernelAccess::sshAsNonRootUser()
{
    QFETCH(QString, user);
    QFETCH(QString, name);
    QFETCH(QString, home);
    QFETCH(QString, ids);
    const QJsonObject session = launch(sshTemplate(user));
    QVERIFY(!session.isEmpty());
    const QJsonArray kernels = session.value(QStringLiteral("kernels")).toArray();
    QCOMPARE(kernels.size(), 3);
    QSet<QString> hosts;
    for (const QJsonValue &k : kernels)
        hosts.insert(k.toObject().value(QStringLiteral("host")).toString());
    QVERIFY2(hosts.size() >= 2, "the workers should be spread over the lab's hosts");

    for (const QJsonValue &v : kernels) {
        const QJsonObject k = v.toObject();
        const QString hostname = k.value(QStringLiteral("hostname")).toString();
        // Ownership and modes as the user sees them; the home keeps the image's owner and mode.
        const Proc st = execIn(
            k, QStringLiteral("stat -c '%n %U:%G %a' %1 %1/.ssh %1/.ssh/id_ed25519 "
                              "%1/.ssh/authorized_keys %1/.ssh/config; "
                              "test -e /home/%2 && echo planned-home-made || echo no-planned-home")
                   .arg(home, user));
        // Nothing went to the home the plan guessed (/home/<user>), only to the image's.
        QVERIFY2(st.out.contains("no-planned-home"), st.out.constData());
        const QString expect =
            QStringLiteral("%1 %2:%2 755\n%1/.ssh %2:%2 700\n%1/.ssh/id_ed25519 %2:%2 600\n"
                           "%1/.ssh/authorized_keys %2:%2 600\n%1/.ssh/config %2:%2 644\n")
                .arg(home, name);
        QVERIFY2(st.out.startsWith(expect.toUtf8()),
                 qPrintable(hostname + QStringLiteral(": ") +
                            QString::fromUtf8(QByteArray(st.out + st.err))));

        // From this kernel to every other one, on whichever host it runs: plain `ssh <host>`.
        for (const QJsonValue &w : kernels) {
            const QString target = w.toObject().value(QStringLiteral("hostname")).toString();
            if (target == hostname)
                continue;
            Proc ssh;
            for (int attempt = 0; attempt < 20; ++attempt) { // dropbear may still be starting
                ssh = execIn(k, QStringLiteral("ssh -o BatchMode=yes -o ConnectTimeout=5 %1 "
                                               "'true && echo $(id -un) $(id -u):$(id -g) $HOME'")
                                    .arg(target));
                if (ssh.exitCode == 0)
                    break;
                QTest::qWait(500);
            }
            QVERIFY2(ssh.exitCode == 0,
                     qPrintable(QStringLiteral("%1 → %2: %3")
                                    .arg(hostname, target, QString::fromUtf8(ssh.err))));
            QCOMPARE(QString::fromUtf8(ssh.out).trimmed(),
                     QStringLiteral("%1 %2 %3").arg(name, ids, home));
        }
    }
    qInfo().noquote() << QStringLiteral("user %1: ssh between all 3 kernels on %2 hosts as %3 (%4)")
                             .arg(user)
                             .arg(hosts.size())
                             .arg(name, ids);
}

void TestKernelAccess::publishedPortsBindToTheHostAddress_data()
{
    QTest::addColumn<QString>("bindLine");
    QTest::addColumn<bool>("hostAddress"); // else every interface
    QTest::newRow("default: the registered address") << QString() << true;
    QTest::newRow("bindAddress 0.0.0.0") << QStringLiteral("      bindAddress: 0.0.0.0\n") << false;
}

void TestKernelAccess::publishedPortsBindToTheHostAddress()
{
    QFETCH(QString, bindLine);
    QFETCH(bool, hostAddress);
    // render shows the image-declared port (from a registered host that has the image).
    const QString file = m_dir.filePath(QStringLiteral("ports.yaml"));
    QVERIFY(writeTextFile(file, portTemplate(bindLine)));
    const Proc rendered = cli({QStringLiteral("template"), QStringLiteral("render"), file});
    QVERIFY2(rendered.exitCode == 0, rendered.err.constData());
    QVERIFY2(rendered.out.contains("web:http:8080"), rendered.out.constData());
    const Proc json =
        cli({QStringLiteral("template"), QStringLiteral("render"), file, QStringLiteral("--json")});
    QVERIFY2(json.exitCode == 0, json.err.constData());
    const QJsonObject planned = QJsonDocument::fromJson(json.out)
                                    .object()
                                    .value(QStringLiteral("kernels"))
                                    .toArray()
                                    .first()
                                    .toObject();
    QCOMPARE(planned.value(QStringLiteral("bind_address")).toString(),
             hostAddress ? QStringLiteral("host-address") : QStringLiteral("0.0.0.0"));

    const QJsonObject session = launch(portTemplate(bindLine));
    QVERIFY(!session.isEmpty());
    const QJsonObject k = session.value(QStringLiteral("kernels")).toArray().first().toObject();
    const QString host = k.value(QStringLiteral("host")).toString();
    const QString address = m_lab.address(host);
    const Proc inspect = m_lab.docker(
        host, {QStringLiteral("inspect"), QStringLiteral("-f"),
               QStringLiteral("{{json .HostConfig.PortBindings}}|{{json .NetworkSettings.Ports}}"),
               k.value(QStringLiteral("container_id")).toString()});
    QVERIFY2(inspect.exitCode == 0, inspect.err.constData());
    const QList<QByteArray> parts = inspect.out.trimmed().split('|');
    QCOMPARE(parts.size(), 2);
    const QJsonArray configured =
        QJsonDocument::fromJson(parts.at(0)).object().value(QStringLiteral("8080/tcp")).toArray();
    QCOMPARE(configured.size(), 1);
    const QString expected = hostAddress ? address : QStringLiteral("0.0.0.0");
    QCOMPARE(configured.first().toObject().value(QStringLiteral("HostIp")).toString(), expected);
    const QJsonArray live =
        QJsonDocument::fromJson(parts.at(1)).object().value(QStringLiteral("8080/tcp")).toArray();
    QVERIFY2(!live.isEmpty(), parts.at(1).constData());
    for (const QJsonValue &b : live)
        QCOMPARE(b.toObject().value(QStringLiteral("HostIp")).toString(), expected);

    // The link uses the registered address and the port the binding got.
    const QJsonObject port = k.value(QStringLiteral("ports")).toArray().first().toObject();
    QCOMPARE(port.value(QStringLiteral("name")).toString(), QStringLiteral("web"));
    const int hostPort = port.value(QStringLiteral("host_port")).toInt();
    QVERIFY(hostPort > 0);
    QCOMPARE(port.value(QStringLiteral("url")).toString(),
             QStringLiteral("http://%1:%2").arg(address).arg(hostPort));
    qInfo().noquote()
        << QStringLiteral("8080/tcp on %1 published at %2:%3").arg(host, expected).arg(hostPort);
}

QTEST_GUILESS_MAIN(TestKernelAccess)
#include "tst_kernelaccess.moc"
