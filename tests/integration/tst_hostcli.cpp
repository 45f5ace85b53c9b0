// `clusterdeckctl host add|ls|inspect|rm` and `network setup` as scripts use them: output, exit
// status and the one-line `error: …` on stderr, against the lab (scripts/lab.sh) with a
// temporary SQLite store. Fails, never skips, without the lab environment. Non-disruptive: the
// lab stays one swarm throughout (the rejoin case is in tst_hostregistry_lab).

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>

namespace {

QString env(const QString &name)
{
    return qEnvironmentVariable(name.toLatin1().constData());
}

QString labVar(const QString &host, const char *suffix)
{
    return env(QStringLiteral("CLUSTERDECK_LAB_%1_%2").arg(host.toUpper(), QLatin1String(suffix)));
}

struct Run
{
    int exitCode = -1;
    QString out;
    QString err;
};

} // namespace

class TestHostCli : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void addHosts();
    void addErrors_data();
    void addErrors();
    void listTable();
    void listJson();
    void inspect();
    void unreachableHost();
    void networkSetup();
    void remove();

private:
    Run ctl(const QStringList &args, int timeoutMs = 60000) const;

    QTemporaryDir m_dir;
    QString m_store;
    QStringList m_hosts;
};

Run TestHostCli::ctl(const QStringList &args, int timeoutMs) const
{
    QProcess process;
    process.start(QStringLiteral(CLUSTERDECKCTL),
                  QStringList{QStringLiteral("--store"), m_store} + args);
    Run run;
    if (!process.waitForFinished(timeoutMs)) {
        process.kill();
        process.waitForFinished();
        run.err = QStringLiteral("timed out");
        return run;
    }
    run.exitCode = process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1;
    run.out = QString::fromUtf8(process.readAllStandardOutput());
    run.err = QString::fromUtf8(process.readAllStandardError());
    return run;
}

#define CHECK_RUN(run, code)                                                                       \
    QVERIFY2((run).exitCode == (code), qPrintable(QStringLiteral("exit %1, stdout: %2 stderr: %3") \
                                                      .arg((run).exitCode)                         \
                                                      .arg((run).out, (run).err)))

void TestHostCli::initTestCase()
{
    m_hosts = env(QStringLiteral("CLUSTERDECK_LAB_HOSTS")).split(u' ', Qt::SkipEmptyParts);
    QVERIFY2(m_hosts.size() >= 3, "the lab is not set up: eval \"$(scripts/lab.sh env)\"");
    QVERIFY2(!qEnvironmentVariableIsEmpty("CLUSTERDECK_LAB_TLS_CA"), "CLUSTERDECK_LAB_TLS_CA");
    QVERIFY(m_dir.isValid());
    m_store = QStringLiteral("sqlite://") + m_dir.filePath(QStringLiteral("state.db"));
}

void TestHostCli::addHosts()
{
    // h1 over its unix socket with an address; the others over tcp+tls.
    Run run =
        ctl({QStringLiteral("host"), QStringLiteral("add"), m_hosts.at(0),
             QStringLiteral("--docker"), labVar(m_hosts.at(0), "DOCKER"),
             QStringLiteral("--address"), labVar(m_hosts.at(0), "ADDR"), QStringLiteral("--label"),
             QStringLiteral("rack=r1"), QStringLiteral("--label"), QStringLiteral("gpu=none")});
    CHECK_RUN(run, 0);
    QVERIFY2(run.out.startsWith(QStringLiteral("added host ") + m_hosts.at(0)),
             qPrintable(run.out));
    QVERIFY(run.err.isEmpty());
    for (const QString &host : m_hosts.mid(1)) {
        run = ctl({QStringLiteral("host"), QStringLiteral("add"), host, QStringLiteral("--docker"),
                   labVar(host, "DOCKER_TLS"),
                   QStringLiteral("--tls-ca=") + env(QStringLiteral("CLUSTERDECK_LAB_TLS_CA")),
                   QStringLiteral("--tls-cert"), env(QStringLiteral("CLUSTERDECK_LAB_TLS_CERT")),
                   QStringLiteral("--tls-key"), env(QStringLiteral("CLUSTERDECK_LAB_TLS_KEY"))});
        CHECK_RUN(run, 0);
    }
}

void TestHostCli::addErrors_data()
{
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<int>("exitCode");
    QTest::addColumn<QString>("errorPart");
    const QString sock = QStringLiteral("unix:///run/nowhere.sock");
    QTest::newRow("duplicate name")
        << QStringList{QStringLiteral("h1"), QStringLiteral("--docker"),
                       QStringLiteral("unix:///run/other.sock"), QStringLiteral("--no-check")}
        << 1 << "registered already";
    QTest::newRow("bad name") << QStringList{QStringLiteral("Bad_Name"), QStringLiteral("--docker"),
                                             sock, QStringLiteral("--no-check")}
                              << 1 << "host name";
    QTest::newRow("bad endpoint") << QStringList{QStringLiteral("x1"), QStringLiteral("--docker"),
                                                 QStringLiteral("ftp://x")}
                                  << 1 << "unsupported scheme";
    QTest::newRow("missing tls file")
        << QStringList{QStringLiteral("x1"), QStringLiteral("--docker"),
                       QStringLiteral("tcp+tls://192.168.213.11:2376"), QStringLiteral("--tls-ca"),
                       QStringLiteral("/nonexistent/ca.pem")}
        << 1 << "does not exist";
    QTest::newRow("bad label") << QStringList{QStringLiteral("x1"), QStringLiteral("--docker"),
                                              sock, QStringLiteral("--label"),
                                              QStringLiteral("novalue")}
                               << 1 << "KEY=VALUE";
    QTest::newRow("unreachable") << QStringList{QStringLiteral("x1"), QStringLiteral("--docker"),
                                                QStringLiteral("tcp://127.0.0.1:1")}
                                 << 1 << "cannot reach";
    QTest::newRow("no endpoint") << QStringList{QStringLiteral("x1")} << 2 << "--docker";
    QTest::newRow("no name") << QStringList{QStringLiteral("--docker"), sock} << 2 << "NAME";
    QTest::newRow("unknown option") << QStringList{QStringLiteral("x1"), QStringLiteral("--docker"),
                                                   sock, QStringLiteral("--bogus")}
                                    << 2 << "unknown option";
}

void TestHostCli::addErrors()
{
    QFETCH(QStringList, args);
    QFETCH(int, exitCode);
    QFETCH(QString, errorPart);
    const Run run = ctl(QStringList{QStringLiteral("host"), QStringLiteral("add")} + args);
    CHECK_RUN(run, exitCode);
    QVERIFY2(run.err.startsWith(QStringLiteral("error: ")), qPrintable(run.err));
    QVERIFY2(run.err.contains(errorPart), qPrintable(run.err));
    if (exitCode == 1) // usage errors add the usage text; others are exactly one line
        QCOMPARE(run.err.count(u'\n'), 1);
    QVERIFY(run.out.isEmpty());
}

void TestHostCli::listTable()
{
    const Run run = ctl({QStringLiteral("host"), QStringLiteral("ls")});
    CHECK_RUN(run, 0);
    const QStringList lines = run.out.split(u'\n', Qt::SkipEmptyParts);
    QCOMPARE(lines.size(), 1 + m_hosts.size());
    const QStringList header = lines.first().simplified().split(u' ');
    QCOMPARE(header,
             (QStringList{QStringLiteral("NAME"), QStringLiteral("ENDPOINT"),
                          QStringLiteral("REACHABLE"), QStringLiteral("VERSION"),
                          QStringLiteral("SWARM"), QStringLiteral("CPUS"), QStringLiteral("MEMORY"),
                          QStringLiteral("KERNELS"), QStringLiteral("CONTROLLER")}));
    for (qsizetype i = 0; i < m_hosts.size(); ++i) {
        const QStringList cells = lines.at(i + 1).simplified().split(u' ');
        QCOMPARE(cells.size(), header.size());
        QCOMPARE(cells.at(0), m_hosts.at(i));
        QCOMPARE(cells.at(2), QStringLiteral("yes"));
        QCOMPARE(cells.at(4), i == 0 ? QStringLiteral("manager") : QStringLiteral("worker"));
        QVERIFY2(cells.at(5).startsWith(QStringLiteral("0/")), qPrintable(cells.at(5)));
        QCOMPARE(cells.at(7), QStringLiteral("0"));
        QCOMPARE(cells.at(8), QStringLiteral("-")); // no controller has run on this store
    }
}

void TestHostCli::listJson()
{
    const Run run = ctl({QStringLiteral("host"), QStringLiteral("ls"), QStringLiteral("--json")});
    CHECK_RUN(run, 0);
    QJsonParseError error;
    const QJsonDocument doc = QJsonDocument::fromJson(run.out.toUtf8(), &error);
    QVERIFY2(error.error == QJsonParseError::NoError, qPrintable(error.errorString()));
    const QJsonArray hosts = doc.array();
    QCOMPARE(hosts.size(), m_hosts.size());
    for (qsizetype i = 0; i < hosts.size(); ++i) {
        const QJsonObject h = hosts.at(i).toObject();
        QCOMPARE(h.value(QStringLiteral("name")).toString(), m_hosts.at(i));
        QVERIFY(h.value(QStringLiteral("reachable")).toBool());
        QVERIFY(h.value(QStringLiteral("ncpu")).toInt() > 0);
        QVERIFY(h.value(QStringLiteral("mem_total")).toDouble() > 0);
        QVERIFY(!h.value(QStringLiteral("docker_version")).toString().isEmpty());
        QCOMPARE(h.value(QStringLiteral("swarm")).toObject().value(QStringLiteral("state")),
                 QJsonValue(QStringLiteral("active")));
        QVERIFY(h.value(QStringLiteral("images"))
                    .toArray()
                    .contains(QJsonValue(QStringLiteral("clusterdeck/lab:latest"))));
    }
    QCOMPARE(hosts.at(0)
                 .toObject()
                 .value(QStringLiteral("labels"))
                 .toObject()
                 .value(QStringLiteral("rack")),
             QJsonValue(QStringLiteral("r1")));
}

void TestHostCli::inspect()
{
    Run run = ctl({QStringLiteral("host"), QStringLiteral("inspect"), m_hosts.at(1)});
    CHECK_RUN(run, 0);
    QVERIFY2(run.out.contains(QStringLiteral("reachable:      yes")), qPrintable(run.out));
    QVERIFY2(run.out.contains(labVar(m_hosts.at(1), "DOCKER_TLS")), qPrintable(run.out));
    QVERIFY2(run.out.contains(QStringLiteral("swarm:          active, worker")),
             qPrintable(run.out));

    run = ctl({QStringLiteral("host"), QStringLiteral("inspect"), m_hosts.at(0),
               QStringLiteral("--json")});
    CHECK_RUN(run, 0);
    const QJsonObject h = QJsonDocument::fromJson(run.out.toUtf8()).object();
    QCOMPARE(h.value(QStringLiteral("address")).toString(), labVar(m_hosts.at(0), "ADDR"));
    QCOMPARE(h.value(QStringLiteral("swarm")).toObject().value(QStringLiteral("role")),
             QJsonValue(QStringLiteral("manager")));
    QVERIFY(!h.value(QStringLiteral("api_version")).toString().isEmpty());

    run = ctl({QStringLiteral("host"), QStringLiteral("inspect"), QStringLiteral("nope")});
    CHECK_RUN(run, 1);
    QVERIFY2(run.err.startsWith(QStringLiteral("error: ")), qPrintable(run.err));
    QCOMPARE(run.err.count(u'\n'), 1);
}

void TestHostCli::unreachableHost()
{
    Run run = ctl({QStringLiteral("host"), QStringLiteral("add"), QStringLiteral("dead"),
                   QStringLiteral("--docker"), QStringLiteral("tcp://127.0.0.1:1"),
                   QStringLiteral("--no-check")});
    CHECK_RUN(run, 0);
    run = ctl({QStringLiteral("host"), QStringLiteral("ls"), QStringLiteral("--timeout"),
               QStringLiteral("3")});
    CHECK_RUN(run, 0); // listing worked; one host being down is data, not a failure
    const QStringList lines = run.out.split(u'\n', Qt::SkipEmptyParts);
    const QString row = lines.filter(QRegularExpression(QStringLiteral("^dead "))).value(0);
    QVERIFY2(row.simplified().split(u' ').value(2) == QLatin1String("no"), qPrintable(run.out));
    QVERIFY2(!lines.filter(QStringLiteral("dead: unreachable: host dead")).isEmpty(),
             qPrintable(run.out));

    // network setup on the swarm driver (recorded here; the store's default is vxlan, which makes
    // no swarm) leaves it out and still reports the reachable hosts as one swarm.
    run = ctl({QStringLiteral("network"), QStringLiteral("setup"), QStringLiteral("--driver"),
               QStringLiteral("swarm")});
    CHECK_RUN(run, 0);
    QVERIFY2(run.out.contains(QRegularExpression(QStringLiteral("^dead +unreachable"),
                                                 QRegularExpression::MultilineOption)),
             qPrintable(run.out));

    run = ctl({QStringLiteral("host"), QStringLiteral("rm"), QStringLiteral("dead")});
    CHECK_RUN(run, 0);
    QCOMPARE(run.out, QStringLiteral("removed host dead\n"));
}

void TestHostCli::networkSetup()
{
    // The lab is one swarm already: every host is reported as it is, nothing changes. (The store's
    // driver is swarm since unreachableHost: `network setup` alone is the swarm setup.)
    Run run = ctl({QStringLiteral("network"), QStringLiteral("setup")});
    CHECK_RUN(run, 0);
    const QStringList lines = run.out.split(u'\n', Qt::SkipEmptyParts);
    QCOMPARE(lines.size(), m_hosts.size() + 1);
    QVERIFY2(lines.at(0).startsWith(m_hosts.at(0)) &&
                 lines.at(0).contains(QStringLiteral("already manager")),
             qPrintable(run.out));
    for (qsizetype i = 1; i < m_hosts.size(); ++i)
        QVERIFY2(lines.at(i).startsWith(m_hosts.at(i)) &&
                     lines.at(i).contains(QStringLiteral("already member")),
                 qPrintable(run.out));
    QVERIFY2(lines.last().contains(QStringLiteral("managed by ") + m_hosts.at(0) +
                                   QStringLiteral(": no change")),
             qPrintable(run.out));

    run = ctl({QStringLiteral("network"), QStringLiteral("setup"), QStringLiteral("--json")});
    CHECK_RUN(run, 0);
    const QJsonObject report = QJsonDocument::fromJson(run.out.toUtf8()).object();
    QCOMPARE(report.value(QStringLiteral("driver")), QJsonValue(QStringLiteral("swarm")));
    QCOMPARE(report.value(QStringLiteral("changed")), QJsonValue(false));
    QCOMPARE(report.value(QStringLiteral("one_swarm")), QJsonValue(true));
    QCOMPARE(report.value(QStringLiteral("hosts")).toArray().size(), m_hosts.size());

    run = ctl({QStringLiteral("network"), QStringLiteral("bogus")});
    CHECK_RUN(run, 2);
    QVERIFY(run.err.startsWith(QStringLiteral("error: ")));
}

void TestHostCli::remove()
{
    for (const QString &host : std::as_const(m_hosts)) {
        const Run run = ctl({QStringLiteral("host"), QStringLiteral("rm"), host});
        CHECK_RUN(run, 0);
    }
    Run run = ctl({QStringLiteral("host"), QStringLiteral("rm"), m_hosts.first()});
    CHECK_RUN(run, 1);
    QVERIFY2(run.err.startsWith(QStringLiteral("error: ")), qPrintable(run.err));
    run = ctl({QStringLiteral("host"), QStringLiteral("ls")});
    CHECK_RUN(run, 0);
    QCOMPARE(run.out.split(u'\n', Qt::SkipEmptyParts).size(), 1); // the header only

    // With no hosts, network setup says so.
    run = ctl({QStringLiteral("network"), QStringLiteral("setup")});
    CHECK_RUN(run, 1);
    QVERIFY2(run.err.contains(QStringLiteral("no hosts are registered")), qPrintable(run.err));
}

QTEST_GUILESS_MAIN(TestHostCli)
#include "tst_hostcli.moc"
