#include "provision/sessioncontroller.h"

#include <QTest>

using namespace ClusterDeck;

// SESSION references (issue 13): exact id, then exact name, then a unique id prefix; anything
// matching several is an error listing the candidates.

namespace {

SessionRecord session(const QString &id, const QString &name,
                      DesiredState desired = DesiredState::Running)
{
    SessionRecord s;
    s.id = id;
    s.name = name;
    s.desired = desired;
    s.status =
        desired == DesiredState::Running ? SessionStatus::Running : SessionStatus::Terminated;
    return s;
}

const QString kDb = QStringLiteral("db0c1a2b-0000-4000-8000-000000000001");
const QString kDb2 = QStringLiteral("db0c9999-0000-4000-8000-000000000002");
const QString kNamedDb = QStringLiteral("7f3e0000-0000-4000-8000-000000000003");
const QString kOld = QStringLiteral("a1a1a1a1-0000-4000-8000-000000000004");
const QString kNew = QStringLiteral("b2b2b2b2-0000-4000-8000-000000000005");

} // namespace

class TestSessionRef : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void match_data();
    void match();
};

void TestSessionRef::match_data()
{
    QTest::addColumn<QList<SessionRecord>>("sessions");
    QTest::addColumn<QString>("ref");
    QTest::addColumn<QString>("expected"); // the id, or "error: <part of the message>"

    const QList<SessionRecord> store{session(kDb, QStringLiteral("train")),
                                     session(kDb2, QStringLiteral("eval")),
                                     session(kNamedDb, QStringLiteral("db"))};
    QTest::newRow("exact id") << store << kDb << kDb;
    QTest::newRow("exact name beats an id prefix: rm db is the session named db")
        << store << QStringLiteral("db") << kNamedDb;
    QTest::newRow("unique id prefix") << store << QStringLiteral("db0c1") << kDb;
    QTest::newRow("ambiguous prefix lists the candidates")
        << store << QStringLiteral("db0c")
        << QStringLiteral("error: 'db0c' is the start of 2 session ids; give more of the id: "
                          "%1 (train, RUNNING); %2 (eval, RUNNING)")
               .arg(kDb, kDb2);
    QTest::newRow("unknown") << store << QStringLiteral("zz")
                             << QStringLiteral("error: no session 'zz'");
    QTest::newRow("an exact id beats a name equal to it")
        << QList<SessionRecord>{session(kDb, QStringLiteral("x")), session(kDb2, kDb)} << kDb
        << kDb;
    const QList<SessionRecord> reused{
        session(kOld, QStringLiteral("nightly"), DesiredState::Terminated),
        session(kNew, QStringLiteral("nightly"))};
    QTest::newRow("reused name: the one still wanted running")
        << reused << QStringLiteral("nightly") << kNew;
    QTest::newRow("two running sessions of one name: error listing both")
        << QList<SessionRecord>{session(kOld, QStringLiteral("nightly")),
                                session(kNew, QStringLiteral("nightly"))}
        << QStringLiteral("nightly")
        << QStringLiteral("error: 'nightly' names 2 sessions; give the id of one: "
                          "%1 (nightly, RUNNING); %2 (nightly, RUNNING)")
               .arg(kOld, kNew);
    QTest::newRow("two ended sessions of one name: error")
        << QList<SessionRecord>{session(kOld, QStringLiteral("n"), DesiredState::Terminated),
                                session(kNew, QStringLiteral("n"), DesiredState::Terminated)}
        << QStringLiteral("n") << QStringLiteral("error: 'n' names 2 sessions");
    QTest::newRow("empty reference")
        << store << QString() << QStringLiteral("error: no session given");
}

void TestSessionRef::match()
{
    QFETCH(QList<SessionRecord>, sessions);
    QFETCH(QString, ref);
    QFETCH(QString, expected);
    const auto found = SessionController::matchSession(sessions, ref);
    if (expected.startsWith(QLatin1String("error: "))) {
        QVERIFY2(!found, qPrintable(found ? found->id : QString()));
        QVERIFY2(found.error().message.startsWith(expected.mid(7)),
                 qPrintable(found.error().message));
    } else {
        QVERIFY2(found, qPrintable(found ? QString() : found.error().toString()));
        QCOMPARE(found->id, expected);
    }
}

QTEST_GUILESS_MAIN(TestSessionRef)
#include "tst_sessionref.moc"
