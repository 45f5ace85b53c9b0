// `clusterdeckctl logs` streams (issue 14, item 6): a kernel in the lab prints 200,000 lines of
// about 100 bytes (20 MB); `--tail 1000` (the default) prints exactly the last 1000, `--tail all`
// prints all of them, and the CLI's peak RSS stays bounded whatever the log's size (measured with
// /usr/bin/time). Endpoints come from `eval "$(scripts/lab.sh env)"`; without them the test FAILS.

#include "labcli.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>
#include <QScopeGuard>
#include <QTemporaryDir>
#include <QTest>
#include <QThread>

#ifndef CLUSTERDECKCTL
#error "CLUSTERDECKCTL must name the clusterdeckctl binary"
#endif

namespace {

constexpr int kLines = 200000;

struct Measured
{
    Proc proc;
    qint64 maxRssKb = -1;
};

} // namespace

class TestLogsCli : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void cleanupTestCase();
    void tail_data();
    void tail();
    void tailUsageErrors_data();
    void tailUsageErrors();
    void peakRssIsBounded();
    void endlessLineStaysBounded();

private:
    Proc cli(const QStringList &args, int timeoutMs = 240000) const
    {
        return runProcess(QStringLiteral(CLUSTERDECKCTL),
                          QStringList{QStringLiteral("--store"), m_storeUrl} + args, timeoutMs);
    }
    // Runs the CLI under /usr/bin/time, its output to a file: the RSS is the CLI's own.
    Measured measured(const QStringList &args) const;

    QTemporaryDir m_dir;
    QString m_storeUrl;
    QString m_session;
};

void TestLogsCli::initTestCase()
{
    const LabHosts lab = LabHosts::fromEnvironment();
    if (lab.names().isEmpty())
        QFAIL(qPrintable(LabHosts::error()));
    QVERIFY(m_dir.isValid());
    m_storeUrl = QStringLiteral("sqlite://") + m_dir.filePath(QStringLiteral("state.db"));
    const QString h = lab.names().first();
    const QByteArray prefix = "CLUSTERDECK_LAB_" + h.toUpper().toLatin1();
    const Proc added =
        cli({QStringLiteral("host"), QStringLiteral("add"), h, QStringLiteral("--docker"),
             lab.unixEndpoint(h), QStringLiteral("--address"), lab.address(h)});
    QVERIFY2(added.exitCode == 0, added.err.constData());
    const Proc launched =
        cli({QStringLiteral("launch"),
             qEnvironmentVariable("CLUSTERDECK_TEST_DATA") +
                 QStringLiteral("/templates/logs-200k.yaml"),
             QStringLiteral("--name"), QStringLiteral("logs-200k"), QStringLiteral("--json")});
    const QJsonObject o = QJsonDocument::fromJson(launched.out).object();
    m_session = o.value(QStringLiteral("id")).toString();
    QVERIFY2(launched.exitCode == 0 && !m_session.isEmpty(), launched.err.constData());
    // Until the kernel has printed everything (its last line is "line 200000 …").
    QElapsedTimer waited;
    waited.start();
    bool done = false;
    Proc last;
    while (!done && waited.elapsed() < 120000) {
        last =
            cli({QStringLiteral("logs"), m_session, QStringLiteral("--tail"), QStringLiteral("1")});
        done = last.exitCode == 0 && last.out.contains("| line 200000 ");
        if (!done)
            QThread::msleep(500);
    }
    QVERIFY2(done, qPrintable(QStringLiteral("the kernel did not finish printing: exit %1, %2 %3")
                                  .arg(last.exitCode)
                                  .arg(QString::fromUtf8(last.out.left(300)),
                                       QString::fromUtf8(last.err.left(300)))));
}

void TestLogsCli::cleanupTestCase()
{
    if (!m_session.isEmpty()) {
        const Proc p = cli({QStringLiteral("rm"), m_session});
        if (p.exitCode != 0)
            qWarning("rm %s: %s", qPrintable(m_session), p.err.constData());
    }
}

void TestLogsCli::tail_data()
{
    QTest::addColumn<QStringList>("extra");
    QTest::addColumn<int>("lines");
    QTest::newRow("default: the last 1000") << QStringList() << 1000;
    QTest::newRow("--tail 1000") << QStringList{QStringLiteral("--tail"), QStringLiteral("1000")}
                                 << 1000;
    QTest::newRow("--tail 7") << QStringList{QStringLiteral("--tail"), QStringLiteral("7")} << 7;
    QTest::newRow("--tail all") << QStringList{QStringLiteral("--tail"), QStringLiteral("all")}
                                << kLines;
}

void TestLogsCli::tail()
{
    QFETCH(QStringList, extra);
    QFETCH(int, lines);
    const Proc p = cli(QStringList{QStringLiteral("logs"), m_session} + extra);
    QVERIFY2(p.exitCode == 0, p.err.constData());
    const QList<QByteArray> out = p.out.split('\n');
    QCOMPARE(out.size(), lines + 1); // the last is the empty one after the final newline
    QVERIFY(out.last().isEmpty());
    // Exactly the last `lines` lines, in order, each whole.
    const QRegularExpression shape(QStringLiteral("^printer1 \\| line (\\d+) 0{90}$"));
    for (int i = 0; i < lines; ++i) {
        const auto m = shape.match(QString::fromLatin1(out.at(i)));
        QVERIFY2(m.hasMatch(), out.at(i).left(200).constData());
        QCOMPARE(m.captured(1).toInt(), kLines - lines + 1 + i);
    }
}

void TestLogsCli::tailUsageErrors_data()
{
    QTest::addColumn<QString>("tail");
    QTest::newRow("negative") << QStringLiteral("-3");
    QTest::newRow("word") << QStringLiteral("many");
}

void TestLogsCli::tailUsageErrors()
{
    QFETCH(QString, tail);
    const Proc p = cli({QStringLiteral("logs"), m_session, QStringLiteral("--tail"), tail});
    QVERIFY(p.exitCode != 0);
    QVERIFY2(p.err.contains("--tail takes a number of lines or 'all'"), p.err.constData());
}

Measured TestLogsCli::measured(const QStringList &args) const
{
    Measured m;
    const QString rssFile = m_dir.filePath(QStringLiteral("rss.txt"));
    const QString outFile = m_dir.filePath(QStringLiteral("out.txt"));
    QProcess p;
    p.setStandardOutputFile(outFile);
    p.start(QStringLiteral("/usr/bin/time"),
            QStringList{QStringLiteral("-f"), QStringLiteral("%M"), QStringLiteral("-o"), rssFile,
                        QStringLiteral(CLUSTERDECKCTL), QStringLiteral("--store"), m_storeUrl} +
                args);
    m.proc = finishProcess(p, 240000);
    QFile out(outFile);
    if (out.open(QIODevice::ReadOnly))
        m.proc.out = out.readAll();
    QFile rss(rssFile);
    if (rss.open(QIODevice::ReadOnly))
        m.maxRssKb = rss.readAll().trimmed().split('\n').last().toLongLong();
    return m;
}

void TestLogsCli::peakRssIsBounded()
{
    const Measured small = measured(
        {QStringLiteral("logs"), m_session, QStringLiteral("--tail"), QStringLiteral("1000")});
    QVERIFY2(small.proc.exitCode == 0, small.proc.err.constData());
    const Measured all = measured(
        {QStringLiteral("logs"), m_session, QStringLiteral("--tail"), QStringLiteral("all")});
    QVERIFY2(all.proc.exitCode == 0, all.proc.err.constData());
    QCOMPARE(all.proc.out.count('\n'), kLines);
    QVERIFY(small.maxRssKb > 0 && all.maxRssKb > 0);
    const qint64 logKb = all.proc.out.size() / 1024;
    qInfo("peak RSS of clusterdeckctl logs: --tail 1000 %lld KiB, --tail all %lld KiB "
          "(its output: %lld KiB)",
          small.maxRssKb, all.maxRssKb, logKb);
    // Streaming: the whole log never sits in memory, not even once (it is ~21 MB, let alone
    // twice as before); allow 8 MiB above the small run for buffers and the allocator.
    QVERIFY2(all.maxRssKb < small.maxRssKb + 8 * 1024,
             qPrintable(QStringLiteral("%1 KiB vs %2 KiB").arg(all.maxRssKb).arg(small.maxRssKb)));
    QVERIFY(logKb > 16 * 1024); // the bound above means something
}

// Output without newlines (`yes | tr -d '\n'`) grows neither `exec` nor `logs` (issue 24 D.9):
// 100 MB from an exec and a 50 MB line in a kernel's log go through in pieces of 64 KiB, the CLI's
// peak RSS within 8 MiB of a 1000-line read, and `exec --json` keeps the first MiB and says how
// much more there was.
void TestLogsCli::endlessLineStaysBounded()
{
    const Measured small = measured(
        {QStringLiteral("logs"), m_session, QStringLiteral("--tail"), QStringLiteral("1000")});
    QVERIFY2(small.proc.exitCode == 0 && small.maxRssKb > 0, small.proc.err.constData());

    const QString endless = QStringLiteral("head -c %1 /dev/zero | tr '\\0' y");
    const Measured exec =
        measured({QStringLiteral("exec"), m_session, QStringLiteral("--"), QStringLiteral("sh"),
                  QStringLiteral("-c"), endless.arg(100000000)});
    QVERIFY2(exec.proc.exitCode == 0, exec.proc.err.constData());
    const QList<QByteArray> pieces = exec.proc.out.split('\n');
    qint64 ys = 0;
    for (const QByteArray &piece : pieces) {
        if (piece.isEmpty())
            continue;
        QVERIFY(piece.startsWith("printer1 | "));
        QVERIFY(piece.size() <= 64 * 1024 + 11);
        ys += piece.size() - 11;
    }
    QCOMPARE(ys, qint64(100000000));

    const Proc json =
        cli({QStringLiteral("exec"), m_session, QStringLiteral("--json"), QStringLiteral("--"),
             QStringLiteral("sh"), QStringLiteral("-c"), endless.arg(3000000)});
    QVERIFY2(json.exitCode == 0, json.err.constData());
    const QJsonObject result = QJsonDocument::fromJson(json.out)
                                   .object()
                                   .value(QStringLiteral("kernels"))
                                   .toArray()
                                   .first()
                                   .toObject();
    QCOMPARE(result.value(QStringLiteral("stdout")).toString().size(), 1024 * 1024);
    QCOMPARE(qint64(result.value(QStringLiteral("output_dropped_bytes")).toDouble()),
             qint64(3000000 - 1024 * 1024));

    // A kernel whose log is one line of 50 MB.
    const QString file = m_dir.filePath(QStringLiteral("endless.yaml"));
    QFile yaml(file);
    QVERIFY(yaml.open(QIODevice::WriteOnly));
    yaml.write("name: endless\nmode: single-node\nroles:\n  - name: writer\n    task:\n"
               "      image: clusterdeck/lab:latest\n"
               "      command: [/bin/sh, -c, \"head -c 50000000 /dev/zero | tr '\\\\0' y; "
               "echo; echo done; sleep 3600\"]\n");
    yaml.close();
    const Proc launched = cli({QStringLiteral("launch"), file, QStringLiteral("--json")});
    const QString sid = QJsonDocument::fromJson(launched.out).object().value("id").toString();
    QVERIFY2(launched.exitCode == 0 && !sid.isEmpty(), launched.err.constData());
    auto removeIt = qScopeGuard([&] { cli({QStringLiteral("rm"), sid}); });
    QElapsedTimer waited;
    waited.start();
    bool done = false;
    while (!done && waited.elapsed() < 60000) {
        const Proc last =
            cli({QStringLiteral("logs"), sid, QStringLiteral("--tail"), QStringLiteral("1")});
        done = last.exitCode == 0 && last.out.contains("| done");
        if (!done)
            QThread::msleep(500);
    }
    QVERIFY2(done, "the kernel did not write its 50 MB line");
    const Measured logs =
        measured({QStringLiteral("logs"), sid, QStringLiteral("--tail"), QStringLiteral("all")});
    QVERIFY2(logs.proc.exitCode == 0, logs.proc.err.constData());
    QVERIFY(logs.proc.out.size() > 50000000);
    qInfo("peak RSS of clusterdeckctl: logs --tail 1000 %lld KiB, exec printing 100 MB without a "
          "newline %lld KiB, logs of a 50 MB line %lld KiB",
          small.maxRssKb, exec.maxRssKb, logs.maxRssKb);
    QVERIFY2(exec.maxRssKb < small.maxRssKb + 8 * 1024,
             qPrintable(QStringLiteral("exec %1 KiB").arg(exec.maxRssKb)));
    QVERIFY2(logs.maxRssKb < small.maxRssKb + 8 * 1024,
             qPrintable(QStringLiteral("logs %1 KiB").arg(logs.maxRssKb)));
}

QTEST_GUILESS_MAIN(TestLogsCli)
#include "tst_logscli.moc"
