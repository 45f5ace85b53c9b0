// Request building and response decoding of the etcd JSON gateway, over bodies recorded from
// etcd 3.4 (tests/data/etcd/).
#include "etcd/etcdjson.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QTest>

using namespace ClusterDeck;
using namespace ClusterDeck::Etcd;

namespace {

QByteArray readData(const QString &name)
{
    const QString dir = qEnvironmentVariable("CLUSTERDECK_TEST_DATA"); // set by ctest
    QFile file(dir + QStringLiteral("/etcd/") + name);
    if (!file.open(QIODevice::ReadOnly))
        qFatal("cannot read test data %s", qPrintable(file.fileName()));
    return file.readAll();
}

QJsonObject object(const QString &name)
{
    auto parsed = Json::parseObject(readData(name));
    if (!parsed)
        qFatal("%s: %s", qPrintable(name), qPrintable(parsed.error().message));
    return *parsed;
}

QList<QJsonObject> lines(const QString &name)
{
    QList<QJsonObject> result;
    for (const QByteArray &line : readData(name).split('\n')) {
        if (line.trimmed().isEmpty())
            continue;
        result.append(*Json::parseObject(line));
    }
    return result;
}

QByteArray compact(const QJsonObject &o)
{
    return QJsonDocument(o).toJson(QJsonDocument::Compact);
}

} // namespace

class TestEtcdJson : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void prefixEndOf_data();
    void prefixEndOf();
    void bytes_data();
    void bytes();
    void int64_data();
    void int64();
    void errors_data();
    void errors();
    void encodeCompare_data();
    void encodeCompare();
    void encodeTxn();
    void encodeRange_data();
    void encodeRange();
    void encodePutAndDelete();
    void encodeWatch();
    void decodeRange();
    void decodePutPrevKv();
    void decodeDeletePrefix();
    void decodeTxn_data();
    void decodeTxn();
    void decodeLeases();
    void decodeWatchStream();
    void decodeWatchCancellations_data();
    void decodeWatchCancellations();
    void oddBodies_data();
    void oddBodies();
};

void TestEtcdJson::prefixEndOf_data()
{
    QTest::addColumn<QByteArray>("prefix");
    QTest::addColumn<QByteArray>("end");
    QTest::newRow("plain") << QByteArray("/cd/sessions/") << QByteArray("/cd/sessions0");
    QTest::newRow("one byte") << QByteArray("a") << QByteArray("b");
    QTest::newRow("trailing 0xff") << QByteArray("a\xff") << QByteArray("b");
    QTest::newRow("all 0xff") << QByteArray("\xff\xff") << QByteArray(1, '\0');
    QTest::newRow("empty") << QByteArray() << QByteArray(1, '\0');
    QTest::newRow("embedded zero") << QByteArray("a\0b", 3) << QByteArray("a\0c", 3);
}

void TestEtcdJson::prefixEndOf()
{
    QFETCH(QByteArray, prefix);
    QFETCH(QByteArray, end);
    QCOMPARE(Etcd::prefixEnd(prefix), end);
}

void TestEtcdJson::bytes_data()
{
    QTest::addColumn<QByteArray>("raw");
    QTest::addColumn<QString>("encoded");
    QTest::newRow("text") << QByteArray("foo") << QStringLiteral("Zm9v");
    QTest::newRow("binary") << QByteArray("\x00\x01\xfe\xff", 4) << QStringLiteral("AAH+/w==");
    QTest::newRow("empty") << QByteArray() << QString();
    QTest::newRow("utf-8") << QStringLiteral("grüße").toUtf8() << QStringLiteral("Z3LDvMOfZQ==");
}

void TestEtcdJson::bytes()
{
    QFETCH(QByteArray, raw);
    QFETCH(QString, encoded);
    QCOMPARE(Json::encodeBytes(raw), encoded);
    auto decoded = Json::decodeBytes(QJsonValue(encoded), QStringLiteral("f"));
    QVERIFY(decoded);
    QCOMPARE(*decoded, raw);
}

void TestEtcdJson::int64_data()
{
    QTest::addColumn<QJsonValue>("value");
    QTest::addColumn<bool>("ok");
    QTest::addColumn<qint64>("expected");
    QTest::newRow("string") << QJsonValue(QStringLiteral("1606")) << true << qint64(1606);
    QTest::newRow("negative string") << QJsonValue(QStringLiteral("-1")) << true << qint64(-1);
    QTest::newRow("beyond double precision")
        << QJsonValue(QStringLiteral("7751717738759705760")) << true << qint64(7751717738759705760);
    QTest::newRow("number tolerated") << QJsonValue(42) << true << qint64(42);
    QTest::newRow("missing is zero") << QJsonValue(QJsonValue::Undefined) << true << qint64(0);
    QTest::newRow("not a number") << QJsonValue(QStringLiteral("12abc")) << false << qint64(0);
    QTest::newRow("bool") << QJsonValue(true) << false << qint64(0);
}

void TestEtcdJson::int64()
{
    QFETCH(QJsonValue, value);
    QFETCH(bool, ok);
    QFETCH(qint64, expected);
    auto n = Json::decodeInt64(value, QStringLiteral("revision"));
    QCOMPARE(bool(n), ok);
    if (ok)
        QCOMPARE(*n, expected);
    else
        QVERIFY(n.error().message.contains(QLatin1String("revision")));
}

void TestEtcdJson::errors_data()
{
    QTest::addColumn<QString>("file");
    QTest::addColumn<int>("code");
    QTest::addColumn<QString>("message");
    QTest::addColumn<bool>("invalidToken");
    QTest::newRow("wrong password")
        << "error-auth-failed.json" << 3 << "authentication failed, invalid user ID or password"
        << false;
    QTest::newRow("invalid token")
        << "error-invalid-token.json" << 16 << "invalid auth token" << true;
    QTest::newRow("compacted") << "error-compacted.json" << 11
                               << "required revision has been compacted" << false;
    QTest::newRow("lease not found")
        << "error-lease-not-found.json" << 5 << "requested lease not found" << false;
}

void TestEtcdJson::errors()
{
    QFETCH(QString, file);
    QFETCH(int, code);
    QFETCH(QString, message);
    QFETCH(bool, invalidToken);
    const auto error = Json::decodeError(object(file));
    QVERIFY(error.has_value());
    QCOMPARE(error->code, code);
    QVERIFY2(error->message.contains(message), qPrintable(error->message));
    QCOMPARE(Json::isInvalidTokenError(*error), invalidToken);
    QVERIFY(!Json::decodeError(object(QStringLiteral("range-page.json"))).has_value());
}

void TestEtcdJson::encodeCompare_data()
{
    QTest::addColumn<TxnCompare>("compare");
    QTest::addColumn<QByteArray>("json");
    QTest::newRow("missing key (create == 0 is sent)")
        << TxnCompare::missing("/k")
        << QByteArray(R"({"create_revision":"0","key":"L2s=","result":"EQUAL","target":"CREATE"})");
    QTest::newRow("value")
        << TxnCompare::valueIs("/k", TxnCompare::Op::Equal, "v1")
        << QByteArray(R"({"key":"L2s=","result":"EQUAL","target":"VALUE","value":"djE="})");
    QTest::newRow("version greater")
        << TxnCompare::version("/k", TxnCompare::Op::Greater, 3)
        << QByteArray(R"({"key":"L2s=","result":"GREATER","target":"VERSION","version":"3"})");
    QTest::newRow("mod revision less")
        << TxnCompare::modRevision("/k", TxnCompare::Op::Less, 1606)
        << QByteArray(R"({"key":"L2s=","mod_revision":"1606","result":"LESS","target":"MOD"})");
    QTest::newRow("lease not equal")
        << TxnCompare::lease("/k", TxnCompare::Op::NotEqual, 7)
        << QByteArray(R"({"key":"L2s=","lease":"7","result":"NOT_EQUAL","target":"LEASE"})");
}

void TestEtcdJson::encodeCompare()
{
    QFETCH(TxnCompare, compare);
    QFETCH(QByteArray, json);
    QCOMPARE(compact(Json::encodeCompare(compare)), json);
}

void TestEtcdJson::encodeTxn()
{
    TxnRequest txn;
    txn.compare = {TxnCompare::modRevision("/a", TxnCompare::Op::Equal, 10)};
    PutOptions put;
    put.lease = 7751717738759705760;
    put.prevKv = true;
    DeleteOptions del;
    del.rangeEnd = prefixEnd("/p/");
    txn.success = {TxnOp::makePut("/a", "new", put), TxnOp::makeDelete("/p/", del)};
    RangeOptions range;
    range.limit = 1;
    txn.failure = {TxnOp::makeRange("/a", range)};
    const QJsonObject o = Json::encodeTxn(txn);
    QCOMPARE(
        compact(o),
        QByteArray(R"({"compare":[{"key":"L2E=","mod_revision":"10","result":"EQUAL",)"
                   R"("target":"MOD"}],"failure":[{"request_range":{"key":"L2E=","limit":"1"}}],)"
                   R"("success":[{"request_put":{"key":"L2E=","lease":"7751717738759705760",)"
                   R"("prev_kv":true,"value":"bmV3"}},{"request_delete_range":{"key":"L3Av",)"
                   R"("range_end":"L3Aw"}}]})"));
    QCOMPARE(compact(Json::encodeTxn({})), QByteArray("{}"));
}

void TestEtcdJson::encodeRange_data()
{
    QTest::addColumn<RangeOptions>("options");
    QTest::addColumn<QByteArray>("json");
    QTest::newRow("single key") << RangeOptions{} << QByteArray(R"({"key":"L2s="})");
    RangeOptions page;
    page.rangeEnd = prefixEnd("/k");
    page.limit = 1000;
    page.revision = 1606;
    QTest::newRow("page at a revision")
        << page
        << QByteArray(R"({"key":"L2s=","limit":"1000","range_end":"L2w=","revision":"1606"})");
    RangeOptions owner;
    owner.rangeEnd = prefixEnd("/k");
    owner.sortOrder = SortOrder::Descend;
    owner.sortTarget = SortTarget::Create;
    owner.maxCreateRevision = 99;
    owner.keysOnly = true;
    QTest::newRow("lock predecessor")
        << owner
        << QByteArray(
               R"({"key":"L2s=","keys_only":true,"max_create_revision":"99","range_end":"L2w=",)"
               R"("sort_order":"DESCEND","sort_target":"CREATE"})");
}

void TestEtcdJson::encodeRange()
{
    QFETCH(RangeOptions, options);
    QFETCH(QByteArray, json);
    QCOMPARE(compact(Json::encodeRange("/k", options)), json);
}

void TestEtcdJson::encodePutAndDelete()
{
    QCOMPARE(compact(Json::encodePut("/k", QByteArray(), {})),
             QByteArray(R"({"key":"L2s=","value":""})"));
    PutOptions keep;
    keep.ignoreLease = true;
    QCOMPARE(compact(Json::encodePut("/k", "v", keep)),
             QByteArray(R"({"ignore_lease":true,"key":"L2s=","value":"dg=="})"));
    DeleteOptions del;
    del.prevKv = true;
    QCOMPARE(compact(Json::encodeDelete("/k", del)),
             QByteArray(R"({"key":"L2s=","prev_kv":true})"));
}

void TestEtcdJson::encodeWatch()
{
    QCOMPARE(compact(Json::encodeWatchCreate("/w/", prefixEnd("/w/"), 1611, true)),
             QByteArray(R"({"create_request":{"key":"L3cv","prev_kv":true,"range_end":"L3cw",)"
                        R"("start_revision":"1611"}})"));
    QCOMPARE(compact(Json::encodeWatchCreate("/w", {}, 0, false)),
             QByteArray(R"({"create_request":{"key":"L3c="}})"));
}

void TestEtcdJson::decodeRange()
{
    auto page = Json::decodeRange(object(QStringLiteral("range-page.json")));
    QVERIFY2(page, qPrintable(page ? QString() : page.error().message));
    QCOMPARE(page->header.revision, 1606);
    QCOMPARE(page->header.clusterId, 9151734699010623715ULL);
    QCOMPARE(page->header.raftTerm, 2ULL);
    QVERIFY(page->more);
    QCOMPARE(page->count, 2);
    QCOMPARE(page->kvs.size(), 1);
    const KeyValue &kv = page->kvs.at(0);
    QCOMPARE(kv.key, QByteArray("/t/a"));
    QCOMPARE(kv.value, QByteArray("\x00\x01\xfe\xff", 4));
    QCOMPARE(kv.createRevision, 1605);
    QCOMPARE(kv.modRevision, 1605);
    QCOMPARE(kv.version, 1);
    QCOMPARE(kv.lease, 0);

    // etcd omits zero values: no kvs, no count, no more.
    auto empty = Json::decodeRange(object(QStringLiteral("range-empty.json")));
    QVERIFY(empty);
    QVERIFY(empty->kvs.isEmpty());
    QCOMPARE(empty->count, 0);
    QVERIFY(!empty->more);
}

void TestEtcdJson::decodePutPrevKv()
{
    auto put = Json::decodePut(object(QStringLiteral("put-prevkv.json")));
    QVERIFY(put);
    QCOMPARE(put->header.revision, 1607);
    QVERIFY(put->prevKv.has_value());
    QCOMPARE(put->prevKv->value, QByteArray("two"));
    QCOMPARE(put->prevKv->modRevision, 1606);
}

void TestEtcdJson::decodeDeletePrefix()
{
    auto del = Json::decodeDelete(object(QStringLiteral("delete-prefix.json")));
    QVERIFY(del);
    QCOMPARE(del->deleted, 1);
    QCOMPARE(del->prevKvs.size(), 1);
    QCOMPARE(del->prevKvs.at(0).key, QByteArray("/t/a"));
    QCOMPARE(del->prevKvs.at(0).version, 2);
}

void TestEtcdJson::decodeTxn_data()
{
    QTest::addColumn<QString>("file");
    QTest::addColumn<QList<int>>("types");
    QTest::newRow("failure branch: range + delete")
        << "txn-failure.json" << QList<int>{int(TxnOp::Type::Range), int(TxnOp::Type::Delete)};
    QTest::newRow("failure branch: put")
        << "txn-failure-put.json" << QList<int>{int(TxnOp::Type::Put)};
}

void TestEtcdJson::decodeTxn()
{
    QFETCH(QString, file);
    QFETCH(QList<int>, types);
    auto txn = Json::decodeTxn(object(file));
    QVERIFY2(txn, qPrintable(txn ? QString() : txn.error().message));
    QVERIFY(!txn->succeeded); // "succeeded": false is omitted by the gateway
    QCOMPARE(txn->responses.size(), types.size());
    for (int i = 0; i < types.size(); ++i)
        QCOMPARE(int(txn->responses.at(i).type), types.at(i));
    if (file == QLatin1String("txn-failure.json")) {
        QCOMPARE(txn->responses.at(0).range.kvs.at(0).value, QByteArray("\x00\x01\xfe\xff", 4));
        QCOMPARE(txn->responses.at(0).range.header.revision, 1607); // inner headers: revision only
        QCOMPARE(txn->responses.at(1).del.deleted, 1);
        QCOMPARE(txn->responses.at(1).del.prevKvs.at(0).value, QByteArray("three"));
    } else {
        QCOMPARE(txn->responses.at(0).put.header.revision, 1609);
    }
}

void TestEtcdJson::decodeLeases()
{
    auto grant = Json::decodeLeaseGrant(object(QStringLiteral("lease-grant.json")));
    QVERIFY(grant);
    QCOMPARE(grant->id, 7751717738759705760);
    QCOMPARE(grant->ttl, 30);

    auto alive = Json::decodeLeaseKeepAlive(object(QStringLiteral("lease-keepalive.json")));
    QVERIFY(alive);
    QCOMPARE(alive->id, 7751717738759705760);
    QCOMPARE(alive->ttl, 30);

    // A keep-alive of a revoked lease answers without TTL.
    auto gone = Json::decodeLeaseKeepAlive(object(QStringLiteral("lease-keepalive-gone.json")));
    QVERIFY(!gone);
    QCOMPARE(gone.error().kind, Error::Kind::NotFound);

    QJsonObject ttl{{"header", QJsonObject{{"revision", "9"}}},
                    {"ID", "7"},
                    {"TTL", "-1"},
                    {"keys", QJsonArray{"L2E=", "L2I="}}};
    auto timeToLive = Json::decodeLeaseTimeToLive(ttl);
    QVERIFY(timeToLive);
    QCOMPARE(timeToLive->ttl, -1);
    QCOMPARE(timeToLive->keys, (QList<QByteArray>{"/a", "/b"}));
}

void TestEtcdJson::decodeWatchStream()
{
    const QList<QJsonObject> stream = lines(QStringLiteral("watch-stream.ndjson"));
    QCOMPARE(stream.size(), 4);
    QList<WatchResponse> responses;
    for (const QJsonObject &line : stream) {
        auto r = Json::decodeWatchResponse(line);
        QVERIFY2(r, qPrintable(r ? QString() : r.error().message));
        responses.append(*r);
    }
    QVERIFY(responses.at(0).created);
    QVERIFY(responses.at(0).events.isEmpty());
    QCOMPARE(responses.at(0).header.revision, 1611);

    QCOMPARE(responses.at(1).events.size(), 1);
    QCOMPARE(responses.at(1).events.at(0).type, WatchEvent::Type::Put); // "type" omitted for PUT
    QCOMPARE(responses.at(1).events.at(0).kv.key, QByteArray("/w/a"));

    // One transaction: two events at one revision in one message.
    QCOMPARE(responses.at(2).events.size(), 2);
    QCOMPARE(responses.at(2).events.at(0).kv.modRevision, 1612);
    QCOMPARE(responses.at(2).events.at(1).kv.modRevision, 1612);
    QCOMPARE(responses.at(2).events.at(1).kv.value, QByteArray("3"));

    const WatchEvent &del = responses.at(3).events.at(0);
    QCOMPARE(del.type, WatchEvent::Type::Delete);
    QCOMPARE(del.kv.key, QByteArray("/w/a"));
    QVERIFY(del.kv.value.isEmpty());
    QCOMPARE(del.kv.modRevision, 1613);
    QVERIFY(del.prevKv.has_value());
    QCOMPARE(del.prevKv->value, QByteArray("1"));
}

void TestEtcdJson::decodeWatchCancellations_data()
{
    QTest::addColumn<QString>("file");
    QTest::addColumn<qint64>("compactRevision");
    QTest::addColumn<bool>("invalidToken");
    QTest::newRow("compacted") << "watch-compacted.ndjson" << qint64(1603) << false;
    QTest::newRow("invalid token") << "watch-invalid-token.ndjson" << qint64(0) << true;
}

void TestEtcdJson::decodeWatchCancellations()
{
    QFETCH(QString, file);
    QFETCH(qint64, compactRevision);
    QFETCH(bool, invalidToken);
    const QList<QJsonObject> stream = lines(file);
    auto last = Json::decodeWatchResponse(stream.constLast());
    QVERIFY(last);
    QVERIFY(last->canceled);
    QCOMPARE(last->compactRevision, compactRevision);
    QCOMPARE(Json::isInvalidTokenError({0, last->cancelReason}), invalidToken);
    if (invalidToken)
        QCOMPARE(last->watchId, -1);
}

void TestEtcdJson::oddBodies_data()
{
    QTest::addColumn<QByteArray>("body");
    QTest::addColumn<bool>("ok");
    QTest::addColumn<QString>("mentions");
    QTest::newRow("unknown fields are ignored")
        << QByteArray(R"({"header":{"revision":"3","future_field":1},"kvs":[],"shiny":true})")
        << true << QString();
    QTest::newRow("numbers instead of strings")
        << QByteArray(R"({"header":{"revision":3},"kvs":[{"key":"YQ==","version":2}],"count":1})")
        << true << QString();
    QTest::newRow("bad base64") << QByteArray(R"({"kvs":[{"key":"not base64!"}]})") << false
                                << "kv.key";
    QTest::newRow("kvs not an array") << QByteArray(R"({"kvs":{"key":"YQ=="}})") << false << "kvs";
    QTest::newRow("bad revision") << QByteArray(R"({"header":{"revision":"x1"}})") << false
                                  << "revision";
    QTest::newRow("not JSON") << QByteArray("<html>502 Bad Gateway</html>") << false
                              << "invalid JSON";
    QTest::newRow("array") << QByteArray("[]") << false << "not an object";
}

void TestEtcdJson::oddBodies()
{
    QFETCH(QByteArray, body);
    QFETCH(bool, ok);
    QFETCH(QString, mentions);
    auto parsed = Json::parseObject(body);
    Result<RangeResult> range = parsed ? Json::decodeRange(*parsed) : fail(parsed.error());
    QCOMPARE(bool(range), ok);
    if (!ok) {
        QCOMPARE(range.error().kind, Error::Kind::Decode);
        QVERIFY2(range.error().message.contains(mentions), qPrintable(range.error().message));
    }
}

QTEST_GUILESS_MAIN(TestEtcdJson)
#include "tst_etcdjson.moc"
