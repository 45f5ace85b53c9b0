// `clusterdeckctl exec` and `clusterdeckctl shell` against sessions launched in the 3-host lab:
// fan-out with hostname-prefixed lines and the worst exit code, --json, selections; the shell
// under a real pseudo-terminal (raw mode, SIGWINCH, exit code, the terminal given back).
// Endpoints come from `eval "$(scripts/lab.sh env)"`; without them the test FAILS.

#include "labcli.h"
#include "ptychild.h"

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

#include <csignal>
#include <sys/ioctl.h>
#include <unistd.h>

#ifndef CLUSTERDECKCTL
#error "CLUSTERDECKCTL must name the clusterdeckctl binary"
#endif

class TestExecCli : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void cleanupTestCase();
    void execAllWorstExitCode();
    void execJson();
    void execSelections_data();
    void execSelections();
    void execUsageErrors_data();
    void execUsageErrors();
    void execFanOutTwelve();
    void shellUnderPty();
    void topOneSample();
    void shellRestoresOnSigterm();

private:
    Proc cli(const QStringList &args, int timeoutMs = 240000) const
    {
        return runProcess(QStringLiteral(CLUSTERDECKCTL),
                          QStringList{QStringLiteral("--store"), m_storeUrl} + args, timeoutMs);
    }
    QString launch(int workers, const QString &name);

    QTemporaryDir m_dir;
    QString m_storeUrl;
    QString m_small; // 1+4
    QStringList m_sessions;
};

void TestExecCli::initTestCase()
{
    const QStringList hosts =
        qEnvironmentVariable("CLUSTERDECK_LAB_HOSTS").split(u' ', Qt::SkipEmptyParts);
    if (hosts.isEmpty())
        QFAIL("CLUSTERDECK_LAB_HOSTS is not set: start the lab and eval \"$(scripts/lab.sh env)\"");
    QVERIFY(m_dir.isValid());
    m_storeUrl = QStringLiteral("sqlite://") + m_dir.filePath(QStringLiteral("state.db"));
    for (const QString &h : hosts) {
        const QByteArray prefix = "CLUSTERDECK_LAB_" + h.toUpper().toLatin1();
        const Proc added =
            cli({QStringLiteral("host"), QStringLiteral("add"), h, QStringLiteral("--docker"),
                 qEnvironmentVariable(QByteArray(prefix + "_DOCKER_TLS").constData()),
                 QStringLiteral("--tls-ca"), qEnvironmentVariable("CLUSTERDECK_LAB_TLS_CA"),
                 QStringLiteral("--tls-cert"), qEnvironmentVariable("CLUSTERDECK_LAB_TLS_CERT"),
                 QStringLiteral("--tls-key"), qEnvironmentVariable("CLUSTERDECK_LAB_TLS_KEY"),
                 QStringLiteral("--address"),
                 qEnvironmentVariable(QByteArray(prefix + "_ADDR").constData())});
        QVERIFY2(added.exitCode == 0, added.err.constData());
    }
    m_small = launch(4, QStringLiteral("exec-small"));
    QVERIFY(!m_small.isEmpty());
}

QString TestExecCli::launch(int workers, const QString &name)
{
    const QString file = qEnvironmentVariable("CLUSTERDECK_SOURCE_DIR") +
                         QStringLiteral("/templates/lab-basic.yaml");
    QElapsedTimer timer;
    timer.start();
    const Proc p =
        cli({QStringLiteral("launch"), file, QStringLiteral("--name"), name,
             QStringLiteral("--count"), QStringLiteral("worker=%1").arg(workers),
             QStringLiteral("--mode"), QStringLiteral("multi-node"), QStringLiteral("--json")});
    const QJsonObject o = QJsonDocument::fromJson(p.out).object();
    const QString id = o.value(QStringLiteral("id")).toString();
    if (!id.isEmpty())
        m_sessions.append(id);
    if (p.exitCode != 0 ||
        o.value(QStringLiteral("status")).toString() != QStringLiteral("RUNNING")) {
        qWarning() << "launch failed:" << p.err << o;
        return {};
    }
    QSet<QString> hostsUsed;
    for (const QJsonValue &k : o.value(QStringLiteral("kernels")).toArray())
        hostsUsed.insert(k.toObject().value(QStringLiteral("host")).toString());
    qInfo("launched 1+%d kernels over %d hosts in %lld ms", workers, int(hostsUsed.size()),
          timer.elapsed());
    return id;
}

void TestExecCli::cleanupTestCase()
{
    for (const QString &id : std::as_const(m_sessions)) {
        const Proc p = cli({QStringLiteral("rm"), id});
        if (p.exitCode != 0)
            qWarning("rm %s: %s", qPrintable(id), p.err.constData());
    }
}

void TestExecCli::execAllWorstExitCode()
{
    const Proc p = cli({QStringLiteral("exec"), m_small, QStringLiteral("--all"),
                        QStringLiteral("--"), QStringLiteral("sh"), QStringLiteral("-c"),
                        QStringLiteral("echo rank $BACKEND_CLUSTER_LOCAL_RANK on $(hostname); "
                                       "echo oops >&2; exit $BACKEND_CLUSTER_LOCAL_RANK")});
    QVERIFY2(p.exitCode == 4, p.err.constData());
    const QString out = QString::fromUtf8(p.out);
    const QStringList hosts{QStringLiteral("master1"), QStringLiteral("worker1"),
                            QStringLiteral("worker2"), QStringLiteral("worker3"),
                            QStringLiteral("worker4")};
    for (int rank = 0; rank < hosts.size(); ++rank) {
        const QString host = hosts.at(rank);
        // "worker1 | rank 1 on worker1": prefixed with the hostname, padded like `logs`.
        const QRegularExpression line(QStringLiteral("^%1 *\\| rank %2 on %1$").arg(host).arg(rank),
                                      QRegularExpression::MultilineOption);
        QVERIFY2(line.match(out).hasMatch(),
                 qPrintable(host + QStringLiteral(" missing in:\n") + out));
        QVERIFY2(
            QString::fromUtf8(p.err).contains(QRegularExpression(
                QStringLiteral("^%1 *\\| oops$").arg(host), QRegularExpression::MultilineOption)),
            p.err.constData());
    }
    QCOMPARE(out.count(u'\n'), 5);
}

void TestExecCli::execJson()
{
    const Proc p =
        cli({QStringLiteral("exec"), m_small, QStringLiteral("--json"), QStringLiteral("--"),
             QStringLiteral("sh"), QStringLiteral("-c"),
             QStringLiteral("echo $BACKEND_CLUSTER_HOST; exit $BACKEND_CLUSTER_LOCAL_RANK")});
    QCOMPARE(p.exitCode, 4);
    const QJsonObject o = QJsonDocument::fromJson(p.out).object();
    QCOMPARE(o.value(QStringLiteral("exit_code")).toInt(), 4);
    const QJsonArray kernels = o.value(QStringLiteral("kernels")).toArray();
    QCOMPARE(kernels.size(), 5);
    QSet<QString> hostsUsed;
    for (int i = 0; i < kernels.size(); ++i) {
        const QJsonObject k = kernels.at(i).toObject();
        QCOMPARE(k.value(QStringLiteral("exit_code")).toInt(), i);
        QCOMPARE(k.value(QStringLiteral("local_rank")).toInt(), i);
        QCOMPARE(k.value(QStringLiteral("stdout")).toString(),
                 k.value(QStringLiteral("hostname")).toString() + u'\n');
        hostsUsed.insert(k.value(QStringLiteral("host")).toString());
    }
    QCOMPARE(hostsUsed.size(), 3); // multi-node over the 3 lab hosts
}

void TestExecCli::execSelections_data()
{
    QTest::addColumn<QStringList>("options");
    QTest::addColumn<QStringList>("expected");
    QTest::newRow("one kernel") << QStringList{QStringLiteral("--kernel"),
                                               QStringLiteral("worker3")}
                                << QStringList{QStringLiteral("worker3")};
    QTest::newRow("one role") << QStringList{QStringLiteral("--role"), QStringLiteral("master")}
                              << QStringList{QStringLiteral("master1")};
    QTest::newRow("workers two at a time")
        << QStringList{QStringLiteral("--role"), QStringLiteral("worker"),
                       QStringLiteral("--parallel"), QStringLiteral("2")}
        << QStringList{QStringLiteral("worker1"), QStringLiteral("worker2"),
                       QStringLiteral("worker3"), QStringLiteral("worker4")};
}

void TestExecCli::execSelections()
{
    QFETCH(QStringList, options);
    QFETCH(QStringList, expected);
    const Proc p = cli(
        QStringList{QStringLiteral("exec"), m_small} + options +
        QStringList{QStringLiteral("--json"), QStringLiteral("--"), QStringLiteral("hostname")});
    QVERIFY2(p.exitCode == 0, p.err.constData());
    QStringList got;
    for (const QJsonValue &k :
         QJsonDocument::fromJson(p.out).object().value(QStringLiteral("kernels")).toArray())
        got.append(k.toObject().value(QStringLiteral("stdout")).toString().trimmed());
    QCOMPARE(got, expected);
}

void TestExecCli::execUsageErrors_data()
{
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<int>("exitCode");
    QTest::addColumn<QString>("message");
    QTest::newRow("no command") << QStringList{} << 2 << QStringLiteral("a command");
    QTest::newRow("two selections")
        << QStringList{QStringLiteral("--all"), QStringLiteral("--role"), QStringLiteral("worker"),
                       QStringLiteral("--"), QStringLiteral("true")}
        << 2 << QStringLiteral("exclude each other");
    QTest::newRow("unknown kernel")
        << QStringList{QStringLiteral("--kernel"), QStringLiteral("worker9"), QStringLiteral("--"),
                       QStringLiteral("true")}
        << 1 << QStringLiteral("no kernel 'worker9'");
    QTest::newRow("unknown role") << QStringList{QStringLiteral("--role"), QStringLiteral("ps"),
                                                 QStringLiteral("--"), QStringLiteral("true")}
                                  << 1 << QStringLiteral("no role 'ps'");
}

void TestExecCli::execUsageErrors()
{
    QFETCH(QStringList, args);
    QFETCH(int, exitCode);
    QFETCH(QString, message);
    const Proc p = cli(QStringList{QStringLiteral("exec"), m_small} + args);
    QCOMPARE(p.exitCode, exitCode);
    QVERIFY2(QString::fromUtf8(p.err).startsWith(QLatin1String("error: ")), p.err.constData());
    QVERIFY2(QString::fromUtf8(p.err).contains(message), p.err.constData());
}

void TestExecCli::execFanOutTwelve()
{
    // The measurement of the issue: one command over 1+12 kernels on 3 hosts, wall time.
    const QString big = launch(12, QStringLiteral("exec-big"));
    QVERIFY(!big.isEmpty());
    QList<qint64> times;
    for (int round = 0; round < 5; ++round) {
        QElapsedTimer timer;
        timer.start();
        const Proc p = cli({QStringLiteral("exec"), big, QStringLiteral("--"), QStringLiteral("sh"),
                            QStringLiteral("-c"), QStringLiteral("echo $BACKEND_CLUSTER_HOST")});
        times.append(timer.elapsed());
        QVERIFY2(p.exitCode == 0, p.err.constData());
        QCOMPARE(p.out.count('\n'), 13);
    }
    std::sort(times.begin(), times.end());
    qInfo("exec over 1+12 kernels (whole CLI run, TLS): min %lld ms, median %lld ms, max %lld ms",
          times.first(), times.at(2), times.last());
    QVERIFY2(times.at(2) < 5000, "fan-out over 13 kernels should take well under 5 s");

    QElapsedTimer timer;
    timer.start();
    const Proc serial = cli({QStringLiteral("exec"), big, QStringLiteral("--parallel"),
                             QStringLiteral("1"), QStringLiteral("--"), QStringLiteral("true")});
    QVERIFY2(serial.exitCode == 0, serial.err.constData());
    qInfo("the same with --parallel 1: %lld ms", timer.elapsed());
}

void TestExecCli::shellUnderPty()
{
    PtyChild child;
    QVERIFY(child.start(CLUSTERDECKCTL,
                        {QStringLiteral("--store"), m_storeUrl, QStringLiteral("shell"), m_small,
                         QStringLiteral("--kernel"), QStringLiteral("worker3")},
                        24, 80));
    QVERIFY2(child.waitFor("# "), child.seen.constData()); // the prompt
    QTest::qWait(300);
    child.send("echo host=$BACKEND_CLUSTER_HOST; stty size\r");
    QVERIFY2(child.waitFor("24 80"), child.seen.constData());
    QVERIFY2(child.seen.contains("host=worker3"), child.seen.constData());
    QVERIFY2(!child.slaveIsCooked(), "the local terminal must be raw while the shell runs");

    // The local window grows: SIGWINCH reaches the CLI, which resizes the exec's TTY.
    struct winsize ws = {};
    ws.ws_row = 40;
    ws.ws_col = 120;
    QCOMPARE(ioctl(child.master, TIOCSWINSZ, &ws), 0);
    QTest::qWait(300);
    child.seen.clear();
    child.send("stty size\r");
    QVERIFY2(child.waitFor("40 120"), child.seen.constData());

    child.send("exit 3\r");
    QCOMPARE(child.wait(), 3);
    QVERIFY2(child.slaveIsCooked(), "the terminal must be given back as it was");
}

void TestExecCli::shellRestoresOnSigterm()
{
    PtyChild child;
    QVERIFY(child.start(CLUSTERDECKCTL,
                        {QStringLiteral("--store"), m_storeUrl, QStringLiteral("shell"), m_small,
                         QStringLiteral("--kernel"), QStringLiteral("master1"),
                         QStringLiteral("--"), QStringLiteral("sh")},
                        24, 80));
    QVERIFY2(child.waitFor("# "), child.seen.constData());
    QTest::qWait(300);
    child.send("echo ready-$((40+2))\r");
    QVERIFY2(child.waitFor("ready-42"), child.seen.constData());
    QVERIFY(!child.slaveIsCooked());
    ::kill(child.pid, SIGTERM);
    QCOMPARE(child.wait(), -SIGTERM);
    QVERIFY2(child.slaveIsCooked(), "SIGTERM must give the terminal back too");
}

void TestExecCli::topOneSample()
{
    QElapsedTimer timer;
    timer.start();
    const Proc p = cli(
        {QStringLiteral("top"), m_small, QStringLiteral("--no-stream"), QStringLiteral("--json")});
    QVERIFY2(p.exitCode == 0, p.err.constData());
    qInfo("top --no-stream over 5 kernels: %lld ms", timer.elapsed());
    const QJsonObject o = QJsonDocument::fromJson(p.out).object();
    const QJsonArray kernels = o.value(QStringLiteral("kernels")).toArray();
    QCOMPARE(kernels.size(), 5);
    qint64 memory = 0;
    for (const QJsonValue &v : kernels) {
        const QJsonObject k = v.toObject();
        QVERIFY(k.value(QStringLiteral("memory_used")).toInteger() > 0);
        QCOMPARE(k.value(QStringLiteral("memory_limit")).toInteger(), qint64(64) << 20);
        memory += k.value(QStringLiteral("memory_used")).toInteger();
    }
    const QJsonObject roles = o.value(QStringLiteral("roles")).toObject();
    QCOMPARE(roles.keys(), (QStringList{QStringLiteral("master"), QStringLiteral("worker")}));
    QCOMPARE(roles.value(QStringLiteral("worker"))
                 .toObject()
                 .value(QStringLiteral("memory_limit"))
                 .toInteger(),
             qint64(4 * 64) << 20);
    QCOMPARE(o.value(QStringLiteral("total"))
                 .toObject()
                 .value(QStringLiteral("memory_used"))
                 .toInteger(),
             memory);

    // The streaming form refreshes until interrupted.
    QProcess live;
    live.start(QStringLiteral(CLUSTERDECKCTL),
               {QStringLiteral("--store"), m_storeUrl, QStringLiteral("top"), m_small,
                QStringLiteral("--json")});
    QVERIFY(live.waitForStarted());
    QByteArray lines;
    QTRY_VERIFY_WITH_TIMEOUT((lines += live.readAllStandardOutput()).count('\n') >= 2, 8000);
    ::kill(pid_t(live.processId()), SIGINT);
    QVERIFY(live.waitForFinished(5000));
    QCOMPARE(live.exitCode(), 0);
    const QJsonObject sample = QJsonDocument::fromJson(lines.split('\n').first()).object();
    QCOMPARE(sample.value(QStringLiteral("kernels")).toArray().size(), 5);
}

QTEST_GUILESS_MAIN(TestExecCli)
#include "tst_execcli.moc"
