#include "provision/sessionhistory.h"
#include "store/status.h"

#include <QTest>
#include <QTimeZone>

using namespace ClusterDeck;
using namespace std::chrono_literals;

// prune's choice (issue 13): only ended sessions whose kernels all ended, older than asked.

namespace {

const QDateTime kNow = QDateTime::fromSecsSinceEpoch(1768478400, QTimeZone::utc());

SessionRecord session(const QString &id, SessionStatus status, qint64 endedSecondsAgo)
{
    SessionRecord s;
    s.id = id;
    s.name = id;
    s.status = status;
    s.desired = isFinal(status) ? DesiredState::Terminated : DesiredState::Running;
    s.createdAt = kNow.addDays(-30);
    if (endedSecondsAgo >= 0)
        s.finishedAt = kNow.addSecs(-endedSecondsAgo);
    return s;
}

KernelRecord kernel(const QString &sessionId, KernelStatus status)
{
    KernelRecord k;
    k.id = sessionId + QStringLiteral("-k");
    k.sessionId = sessionId;
    k.status = status;
    return k;
}

} // namespace

class TestSessionHistory : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void prunable_data();
    void prunable();
    void parseDuration_data();
    void parseDuration();
};

void TestSessionHistory::prunable_data()
{
    QTest::addColumn<qint64>("olderThan"); // -1: no limit
    QTest::addColumn<QStringList>("expected");
    QTest::newRow("all ended, oldest first")
        << qint64(-1) << QStringList{"err", "done", "term", "fresh"};
    QTest::newRow("older than a day") << qint64(86400) << QStringList{"err", "done", "term"};
    QTest::newRow("older than a week") << qint64(7 * 86400) << QStringList{"err"};
    QTest::newRow("older than a year") << qint64(365 * 86400) << QStringList{};
}

void TestSessionHistory::prunable()
{
    QFETCH(qint64, olderThan);
    QFETCH(QStringList, expected);
    const QList<SessionRecord> sessions{
        session(QStringLiteral("running"), SessionStatus::Running, -1),
        session(QStringLiteral("degraded"), SessionStatus::Degraded, -1),
        session(QStringLiteral("term"), SessionStatus::Terminated, 2 * 86400),
        session(QStringLiteral("done"), SessionStatus::Completed, 3 * 86400),
        session(QStringLiteral("err"), SessionStatus::Error, 8 * 86400),
        session(QStringLiteral("fresh"), SessionStatus::Cancelled, 60),
        // Ended by its status, but a kernel still terminating: not yet.
        session(QStringLiteral("halfway"), SessionStatus::Terminated, 9 * 86400),
    };
    QHash<QString, QList<KernelRecord>> kernels;
    kernels[QStringLiteral("running")] = {kernel(QStringLiteral("running"), KernelStatus::Running)};
    kernels[QStringLiteral("term")] = {kernel(QStringLiteral("term"), KernelStatus::Terminated)};
    kernels[QStringLiteral("halfway")] = {
        kernel(QStringLiteral("halfway"), KernelStatus::Terminating)};
    const auto chosen = SessionHistory::prunable(
        sessions, kernels,
        olderThan < 0 ? std::nullopt : std::optional<std::chrono::seconds>(olderThan), kNow);
    QStringList ids;
    for (const SessionRecord &s : chosen)
        ids.append(s.id);
    QCOMPARE(ids, expected);
}

void TestSessionHistory::parseDuration_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<qint64>("seconds"); // -1: an error
    QTest::newRow("seconds") << "90s" << qint64(90);
    QTest::newRow("minutes") << "30m" << qint64(1800);
    QTest::newRow("hours") << "12h" << qint64(43200);
    QTest::newRow("days") << "7d" << qint64(604800);
    QTest::newRow("weeks") << "2w" << qint64(1209600);
    QTest::newRow("combined") << "1h30m" << qint64(5400);
    QTest::newRow("no unit") << "10" << qint64(-1);
    QTest::newRow("negative") << "-1d" << qint64(-1);
    QTest::newRow("unknown unit") << "3y" << qint64(-1);
    QTest::newRow("empty") << "" << qint64(-1);
}

void TestSessionHistory::parseDuration()
{
    QFETCH(QString, text);
    QFETCH(qint64, seconds);
    const auto d = SessionHistory::parseDuration(text);
    if (seconds < 0) {
        QVERIFY(!d);
        QVERIFY2(d.error().message.contains(QStringLiteral("is not a duration")),
                 qPrintable(d.error().message));
    } else {
        QVERIFY2(d, qPrintable(d ? QString() : d.error().toString()));
        QCOMPARE(qint64(d->count()), seconds);
    }
}

QTEST_GUILESS_MAIN(TestSessionHistory)
#include "tst_sessionhistory.moc"
