// `clusterdeckctl prune [--older-than DURATION] [--dry-run]` against the lab (issue 13, item 3):
// ended sessions leave the store, running ones (and their containers) stay; --dry-run only says
// what it would remove; --older-than keeps what ended more recently.
// Endpoints come from `eval "$(scripts/lab.sh env)"`; without them the test FAILS, never skips.

#include "labcli.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>

#ifndef CLUSTERDECKCTL
#error "CLUSTERDECKCTL must name the clusterdeckctl binary"
#endif

namespace {

const QString kTemplate = QStringLiteral(R"(apiVersion: clusterdeck/v1
kind: Cluster
name: prunable
roles:
  - name: worker
    count: 2
    task:
      image: clusterdeck/lab:latest
      command: [sleep, "3600"]
      resources: {cpus: 0.1, memory: 32m}
)");

} // namespace

class TestPruneCli : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void pruneForgetsEndedSessionsOnly();
    void badDuration();

private:
    Proc cli(const QStringList &args, int timeoutMs = 240000) const
    {
        return runProcess(QStringLiteral(CLUSTERDECKCTL),
                          QStringList{QStringLiteral("--store"), m_url} + args, timeoutMs);
    }
    QStringList sessionNames() const
    {
        const Proc ls = cli({QStringLiteral("ls"), QStringLiteral("--json")});
        QStringList names;
        for (const QJsonValue &v : QJsonDocument::fromJson(ls.out).array())
            names.append(v.toObject().value(QStringLiteral("name")).toString());
        names.sort();
        return names;
    }

    LabHosts m_lab;
    QTemporaryDir m_dir;
    QString m_url;
};

void TestPruneCli::initTestCase()
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

void TestPruneCli::pruneForgetsEndedSessionsOnly()
{
    const QString file = m_dir.filePath(QStringLiteral("prunable.yaml"));
    QVERIFY(writeTextFile(file, kTemplate));
    QStringList ids;
    for (const QString &name : {QStringLiteral("keep-running"), QStringLiteral("ended-one"),
                                QStringLiteral("ended-two")}) {
        const Proc launched = cli({QStringLiteral("launch"), file, QStringLiteral("--name"), name,
                                   QStringLiteral("--json")});
        QVERIFY2(launched.exitCode == 0, launched.err.constData());
        ids.append(
            QJsonDocument::fromJson(launched.out).object().value(QStringLiteral("id")).toString());
    }
    for (const QString &name : {QStringLiteral("ended-one"), QStringLiteral("ended-two")}) {
        const Proc rm = cli({QStringLiteral("rm"), name});
        QVERIFY2(rm.exitCode == 0, rm.err.constData());
    }
    const QStringList all{QStringLiteral("ended-one"), QStringLiteral("ended-two"),
                          QStringLiteral("keep-running")};
    QCOMPARE(sessionNames(), all);
    const int runningBefore = LabHosts::count(m_lab.containersOf(ids.at(0)));
    QCOMPARE(runningBefore, 2);

    // --dry-run: says what it would remove, removes nothing.
    const Proc dry = cli({QStringLiteral("prune"), QStringLiteral("--dry-run")});
    QVERIFY2(dry.exitCode == 0, dry.err.constData());
    QVERIFY2(dry.out.contains("would remove ended-one (") &&
                 dry.out.contains("would remove ended-two (") &&
                 !dry.out.contains("keep-running") &&
                 dry.out.contains("would remove 2 of 3 session(s) from the store"),
             dry.out.constData());
    QCOMPARE(sessionNames(), all);

    // --older-than: both ended seconds ago, so an hour keeps them.
    const Proc recent =
        cli({QStringLiteral("prune"), QStringLiteral("--older-than"), QStringLiteral("1h")});
    QVERIFY2(recent.exitCode == 0, recent.err.constData());
    QVERIFY2(recent.out.contains("removed 0 of 3 session(s)"), recent.out.constData());
    QCOMPARE(sessionNames(), all);

    // Old enough now: both ended ones go, the running one and its containers stay.
    QTest::qWait(2100);
    const Proc pruned =
        cli({QStringLiteral("prune"), QStringLiteral("--older-than"), QStringLiteral("2s")});
    QVERIFY2(pruned.exitCode == 0, pruned.err.constData());
    QVERIFY2(pruned.out.contains("removed ended-one (") &&
                 pruned.out.contains("removed ended-two (") &&
                 pruned.out.contains("removed 2 of 3 session(s) from the store"),
             pruned.out.constData());
    QCOMPARE(sessionNames(), QStringList{QStringLiteral("keep-running")});
    const Proc show = cli({QStringLiteral("show"), ids.at(1)});
    QVERIFY(show.exitCode != 0); // forgotten
    QCOMPARE(LabHosts::count(m_lab.containersOf(ids.at(0))), runningBefore);

    // Nothing left to prune; the running session is never pruned, even without --older-than.
    const Proc again = cli({QStringLiteral("prune")});
    QVERIFY2(again.exitCode == 0, again.err.constData());
    QVERIFY2(again.out.contains("removed 0 of 1 session(s)"), again.out.constData());

    const Proc rm = cli({QStringLiteral("rm"), QStringLiteral("keep-running")});
    QVERIFY2(rm.exitCode == 0, rm.err.constData());
    QTRY_COMPARE_WITH_TIMEOUT(LabHosts::count(m_lab.containersOf(ids.at(0))), 0, 30000);
    const Proc last = cli({QStringLiteral("prune")});
    QVERIFY2(last.out.contains("removed 1 of 1 session(s)"), last.out.constData());
    QCOMPARE(sessionNames(), QStringList());
}

void TestPruneCli::badDuration()
{
    const Proc bad =
        cli({QStringLiteral("prune"), QStringLiteral("--older-than"), QStringLiteral("soon")});
    QCOMPARE(bad.exitCode, 2);
    QVERIFY2(bad.err.startsWith("error: --older-than: "), bad.err.constData());
}

QTEST_GUILESS_MAIN(TestPruneCli)
#include "tst_prunecli.moc"
