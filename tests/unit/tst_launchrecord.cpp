// The launch record's one codec (issue 25, item 5): what a session's "launch_options" holds is
// read into typed fields and written back, keys of a newer release and a scale phase this release
// does not know included, and what is not of its type reads as empty instead of failing the read.
#include "store/launchrecord.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QTest>

using namespace ClusterDeck;

class TestLaunchRecord : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void fields_data();
    void fields();
    void roundTrip_data();
    void roundTrip();
    void scalePhases_data();
    void scalePhases();
};

namespace {

QJsonObject parse(const QByteArray &json)
{
    return QJsonDocument::fromJson(json).object();
}

} // namespace

void TestLaunchRecord::fields_data()
{
    QTest::addColumn<QByteArray>("json");
    QTest::addColumn<QString>("name");
    QTest::addColumn<int>("workers");
    QTest::addColumn<QString>("envA");
    QTest::addColumn<QStringList>("mounts");
    QTest::addColumn<QString>("strategy");
    QTest::addColumn<bool>("hasSpec");
    QTest::addColumn<bool>("scaling");
    QTest::addColumn<QStringList>("unknown");

    QTest::newRow("empty") << QByteArray("{}") << QString() << 0 << QString() << QStringList()
                           << QString() << false << false << QStringList();
    QTest::newRow("as launched")
        << QByteArray(R"({"name":"mpi","counts":{"worker":12},"env":{"A":"1"},)"
                      R"("mounts":["/data:/data:ro"],"mode":"template","strategy":"pack",)"
                      R"("spec":{"session_id":"s"}})")
        << QStringLiteral("mpi") << 12 << QStringLiteral("1")
        << QStringList{QStringLiteral("/data:/data:ro")} << QStringLiteral("pack") << true << false
        << QStringList();
    QTest::newRow("scaling") << QByteArray(R"({"spec":{"a":1},"scale":{"phase":"grow"}})")
                             << QString() << 0 << QString() << QStringList() << QString() << true
                             << true << QStringList();
    QTest::newRow("newer keys kept")
        << QByteArray(R"({"name":"x","gpus":{"worker":2},"quota":"team-a"})") << QStringLiteral("x")
        << 0 << QString() << QStringList() << QString() << false << false
        << QStringList{QStringLiteral("gpus"), QStringLiteral("quota")};
    // Not of its type: empty, never a failed read (the spec's decoder judges the spec).
    QTest::newRow("wrong types")
        << QByteArray(R"({"name":5,"counts":[1],"env":"A=1","mounts":"/x:/x","spec":[],)"
                      R"("scale":"grow"})")
        << QString() << 0 << QString() << QStringList() << QString() << false << false
        << QStringList();
}

void TestLaunchRecord::fields()
{
    QFETCH(QByteArray, json);
    const LaunchRecord r = LaunchRecord::fromJson(parse(json));
    QFETCH(QString, name);
    QCOMPARE(r.name, name);
    QFETCH(int, workers);
    QCOMPARE(r.counts.value(QStringLiteral("worker")), workers);
    QFETCH(QString, envA);
    QCOMPARE(r.env.value(QStringLiteral("A")), envA);
    QFETCH(QStringList, mounts);
    QCOMPARE(r.mounts, mounts);
    QFETCH(QString, strategy);
    QCOMPARE(r.strategy, strategy);
    QFETCH(bool, hasSpec);
    QCOMPARE(!r.spec.isEmpty(), hasSpec);
    QFETCH(bool, scaling);
    QCOMPARE(r.scale.has_value(), scaling);
    QFETCH(QStringList, unknown);
    QCOMPARE(r.unknown.keys(), unknown);
}

void TestLaunchRecord::roundTrip_data()
{
    QTest::addColumn<QByteArray>("json");
    QTest::newRow("empty") << QByteArray("{}");
    QTest::newRow("as launched") << QByteArray(
        R"({"counts":{"ps":1,"worker":12},"env":{"A":"1","B":"two"},)"
        R"("mode":"multi-node","mounts":["/a:/a","/b:/b:ro"],"name":"mpi",)"
        R"("secrets":{"s1":"sealed"},"spec":{"session_id":"s"},)"
        R"("strategy":"spread"})");
    QTest::newRow("scale in files phase")
        << QByteArray(R"({"scale":{"added":["worker3"],"at":"2026-12-07T10:00:00.123Z",)"
                      R"("counts":"worker=3","phase":"files","previous":{"k":1},)"
                      R"("removed":[]},"spec":{"k":2}})");
    QTest::newRow("newer keys, also in the scale")
        << QByteArray(R"({"later":[1,2],"name":"n","scale":{"added":[],)"
                      R"("at":"2026-12-07T10:00:00.000Z","counts":"w=1","phase":"shrink",)"
                      R"("previous":{},"removed":["w2"],"why":"later"}})");
    QTest::newRow("unknown phase")
        << QByteArray(R"({"scale":{"added":[],"at":"2026-12-07T10:00:00.000Z","counts":"w=1",)"
                      R"("phase":"rebalance","previous":{},"removed":[]}})");
}

void TestLaunchRecord::roundTrip()
{
    QFETCH(QByteArray, json);
    const QJsonObject in = parse(json);
    QVERIFY(!in.isEmpty() || json == "{}");
    const LaunchRecord r = LaunchRecord::fromJson(in);
    QCOMPARE(QJsonDocument(r.toJson()).toJson(QJsonDocument::Compact),
             QJsonDocument(in).toJson(QJsonDocument::Compact));
    QCOMPARE(LaunchRecord::fromJson(r.toJson()), r);
}

void TestLaunchRecord::scalePhases_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<ScaleIntent::Phase>("phase");
    QTest::newRow("grow") << QStringLiteral("grow") << ScaleIntent::Phase::Grow;
    QTest::newRow("shrink") << QStringLiteral("shrink") << ScaleIntent::Phase::Shrink;
    QTest::newRow("files") << QStringLiteral("files") << ScaleIntent::Phase::Files;
    QTest::newRow("newer") << QStringLiteral("rebalance") << ScaleIntent::Phase::Unknown;
    QTest::newRow("missing") << QString() << ScaleIntent::Phase::Unknown;
}

void TestLaunchRecord::scalePhases()
{
    QFETCH(QString, text);
    QFETCH(ScaleIntent::Phase, phase);
    QJsonObject intent{{QStringLiteral("counts"), QStringLiteral("worker=2")}};
    if (!text.isEmpty())
        intent.insert(QStringLiteral("phase"), text);
    const LaunchRecord r = LaunchRecord::fromJson(QJsonObject{{QStringLiteral("scale"), intent}});
    QVERIFY(r.scale);
    QCOMPARE(r.scale->phase, phase);
    QCOMPARE(r.scale->counts, QStringLiteral("worker=2"));
    if (phase != ScaleIntent::Phase::Unknown)
        QCOMPARE(ScaleIntent::phaseName(phase), text);
    // A phase this release does not know is written back as it was read.
    QCOMPARE(r.toJson().value(QStringLiteral("scale")).toObject().value(QStringLiteral("phase")),
             intent.value(QStringLiteral("phase")));
}

QTEST_GUILESS_MAIN(TestLaunchRecord)
#include "tst_launchrecord.moc"
