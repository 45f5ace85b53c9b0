// An upgrade keeps every running session manageable (issue 24, item C): what the release of
// 2026-12-02 (0881ac6) left behind — its store schema and records, a running 1+4 multi-node
// session whose containers and overlay carry that release's labels (the store's URL, no store
// id) — recorded once by tests/data/previous-release/record.sh, is recreated on the lab, and
// this release's controller and CLI drive it: a reconcile pass that leaves it alone, a kernel
// killed and the policy's whole-session restart, a restart, a scale and a removal that leaves
// nothing behind. On SQLite and on etcd.

#include "common/logging.h"
#include "etcd/etcdclient.h"
#include "http/httptransport.h"
#include "labcli.h"

#include <QElapsedTimer>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLoggingCategory>
#include <QTemporaryDir>
#include <QTest>
#include <QThread>
#include <QUrl>
#include <QUuid>

#include <sqlite3.h>

using namespace ClusterDeck;
using namespace std::chrono_literals;

namespace {

// host → the Engine API of that lab host, as the fixture is recreated (not through our client:
// these are another release's requests, sent as it sent them).
Result<Http::HttpResponse> engine(const QString &endpoint, const QByteArray &method,
                                  const QString &path, const QByteArray &body = {},
                                  const QByteArray &contentType = "application/json")
{
    Http::TransportConfig config;
    config.baseUrl = QStringLiteral("http://localhost");
    config.unixSocketPath = QUrl(endpoint).path();
    const Http::HttpTransport transport(config);
    Http::HttpRequest r;
    r.method = method;
    const qsizetype q = path.indexOf(u'?');
    r.path = q < 0 ? path : path.left(q);
    if (q >= 0)
        r.query = QUrlQuery(path.mid(q + 1));
    r.body = body;
    r.contentType = contentType;
    r.timeout = 60s;
    return transport.perform(r);
}

QString describe(const Result<Http::HttpResponse> &r)
{
    if (!r)
        return r.error().toString();
    return QStringLiteral("HTTP %1: %2").arg(r->status).arg(QString::fromUtf8(r->body));
}

} // namespace

class TestPreviousRelease : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void upgradedSessionStaysManageable_data();
    void upgradedSessionStaysManageable();
    void cleanup();

private:
    Proc cli(const QStringList &args, int timeoutMs = 180000) const
    {
        return storeCli(QStringLiteral(CLUSTERDECKCTL), m_storeUrl, args, timeoutMs);
    }
    QJsonObject show() const
    {
        return showSession(QStringLiteral(CLUSTERDECKCTL), m_storeUrl, m_sessionId);
    }
    // hostname → container id, as the store records them.
    static QMap<QString, QString> containerIds(const QJsonObject &shown)
    {
        QMap<QString, QString> ids;
        for (const QJsonValue &k : shown.value(QStringLiteral("kernels")).toArray())
            ids.insert(k[QStringLiteral("hostname")].toString(),
                       k[QStringLiteral("container_id")].toString());
        return ids;
    }
    // Every kernel RUNNING in the live container its record names, and nothing else of the
    // session on the hosts.
    bool allRunning(const QJsonObject &shown, int kernels, QString *why) const;
    void removeRecreated();

    LabHosts m_lab;
    QTemporaryDir m_dir;
    QString m_storeUrl;
    QString m_sessionId;
};

void TestPreviousRelease::initTestCase()
{
    ClusterDeck::Logging::apply(ClusterDeck::Logging::Level::Info);
    m_lab = LabHosts::fromEnvironment();
    if (m_lab.names().size() < 3)
        QFAIL(qPrintable(LabHosts::error()));
    QVERIFY(m_dir.isValid());
}

void TestPreviousRelease::upgradedSessionStaysManageable_data()
{
    QTest::addColumn<QString>("fixture");
    QTest::newRow("0881ac6, SQLite") << QStringLiteral("0881ac6-sqlite.json");
    QTest::newRow("0881ac6, etcd") << QStringLiteral("0881ac6-etcd.json");
}

bool TestPreviousRelease::allRunning(const QJsonObject &shown, int kernels, QString *why) const
{
    const QJsonArray list = shown.value(QStringLiteral("kernels")).toArray();
    if (shown.value(QStringLiteral("status")).toString() != u"RUNNING" || list.size() != kernels) {
        *why = QStringLiteral("session %1 with %2 kernels: %3")
                   .arg(shown.value(QStringLiteral("status")).toString())
                   .arg(list.size())
                   .arg(shown.value(QStringLiteral("last_error")).toString());
        return false;
    }
    const QMap<QString, QStringList> live = m_lab.containersOf(m_sessionId);
    if (LabHosts::count(live) != kernels) {
        *why = QStringLiteral("%1 containers of the session on the hosts, %2 kernels")
                   .arg(LabHosts::count(live))
                   .arg(kernels);
        return false;
    }
    for (const QJsonValue &k : list) {
        const QString host = k[QStringLiteral("host")].toString();
        const Proc state = m_lab.docker(host, {QStringLiteral("inspect"), QStringLiteral("-f"),
                                               QStringLiteral("{{.Id}} {{.State.Running}}"),
                                               k[QStringLiteral("container_name")].toString()});
        const QString expected = k[QStringLiteral("container_id")].toString() + u" true";
        if (k[QStringLiteral("status")].toString() != u"RUNNING" ||
            QString::fromUtf8(state.out).trimmed() != expected) {
            *why = QStringLiteral("%1: %2, on %3: %4")
                       .arg(k[QStringLiteral("hostname")].toString(),
                            k[QStringLiteral("status")].toString(), host,
                            QString::fromUtf8(state.out + state.err).trimmed());
            return false;
        }
    }
    return true;
}

void TestPreviousRelease::upgradedSessionStaysManageable()
{
    QFETCH(QString, fixture);
    QFile file(qEnvironmentVariable("CLUSTERDECK_TEST_DATA") +
               QStringLiteral("/previous-release/") + fixture);
    QVERIFY2(file.open(QIODevice::ReadOnly), qPrintable(file.fileName()));
    const QJsonObject recorded = QJsonDocument::fromJson(file.readAll()).object();
    m_sessionId = recorded.value(QStringLiteral("session_id")).toString();
    QVERIFY(!m_sessionId.isEmpty());
    const bool etcd = recorded.value(QStringLiteral("store_kind")).toString() == u"etcd";
    const QString unique = QUuid::createUuid().toString(QUuid::Id128).left(12);
    m_storeUrl =
        etcd ? QStringLiteral("etcd://%1/cdprev-%2")
                   .arg(QUrl(qEnvironmentVariable("CLUSTERDECK_LAB_ETCD")).authority(), unique)
             : QStringLiteral("sqlite://") + m_dir.filePath(unique + u".db");
    removeRecreated(); // what a killed earlier run of this test recreated

    // The placeholders of record.sh: that release labelled objects with the store's URL.
    QMap<QString, QString> values{{QStringLiteral("@STORE_URL@"), m_storeUrl}};
    for (const QString &h : m_lab.names())
        values.insert(u'@' + h.toUpper() + QStringLiteral("_DOCKER@"), m_lab.unixEndpoint(h));
    auto fill = [&values](QString text) {
        for (auto it = values.cbegin(); it != values.cend(); ++it)
            text.replace(it.key(), it.value());
        return text;
    };

    // The Docker objects, as that release made them.
    for (const QJsonValue &n : recorded.value(QStringLiteral("networks")).toArray()) {
        const QString host = n[QStringLiteral("host")].toString();
        const QByteArray body =
            fill(QString::fromUtf8(QJsonDocument(n[QStringLiteral("create")].toObject())
                                       .toJson(QJsonDocument::Compact)))
                .toUtf8();
        const auto made =
            engine(m_lab.unixEndpoint(host), "POST", QStringLiteral("/networks/create"), body);
        QVERIFY2(made && made->status == 201, qPrintable(describe(made)));
        values.insert(QStringLiteral("@NETWORK_ID@"),
                      QJsonDocument::fromJson(made->body)[QStringLiteral("Id")].toString());
    }
    for (const QJsonValue &c : recorded.value(QStringLiteral("containers")).toArray()) {
        const QString host = c[QStringLiteral("host")].toString();
        const QString endpoint = m_lab.unixEndpoint(host);
        const QByteArray body =
            fill(QString::fromUtf8(QJsonDocument(c[QStringLiteral("create")].toObject())
                                       .toJson(QJsonDocument::Compact)))
                .toUtf8();
        const auto made = engine(endpoint, "POST",
                                 QStringLiteral("/containers/create?name=") +
                                     c[QStringLiteral("name")].toString(),
                                 body);
        QVERIFY2(made && made->status == 201, qPrintable(describe(made)));
        const QString id = QJsonDocument::fromJson(made->body)[QStringLiteral("Id")].toString();
        const QByteArray files =
            QByteArray::fromBase64(c[QStringLiteral("files_under_etc")].toString().toLatin1());
        if (!files.isEmpty()) {
            const auto put =
                engine(endpoint, "PUT", QStringLiteral("/containers/%1/archive?path=/etc").arg(id),
                       files, "application/x-tar");
            QVERIFY2(put && put->status == 200, qPrintable(describe(put)));
        }
        // A worker node may not know an overlay made a moment ago on the manager ("network …
        // not found", an attachment timeout): tried again, as this release's launch does.
        Result<Http::HttpResponse> started =
            fail(Error::Kind::Transport, QString(), QStringLiteral("not tried"));
        for (int attempt = 0; attempt < 5; ++attempt) {
            if (attempt > 0)
                QThread::msleep(1000);
            started = engine(endpoint, "POST", QStringLiteral("/containers/%1/start").arg(id));
            if (!started || started->status == 204 ||
                !(started->body.contains("not found") || started->body.contains("attach")))
                break;
        }
        QVERIFY2(started && started->status == 204, qPrintable(describe(started)));
        const QString hostname = c[QStringLiteral("create")][QStringLiteral("Hostname")].toString();
        values.insert(QStringLiteral("@CID:%1@").arg(hostname), id);
    }

    // Its store, as it wrote it (through SQLite, or etcd's API).
    const QJsonObject store = recorded.value(QStringLiteral("store")).toObject();
    if (etcd) {
        Etcd::EtcdConfig config;
        config.endpoints = {qEnvironmentVariable("CLUSTERDECK_LAB_ETCD")};
        const Etcd::EtcdClient client(config);
        for (const QJsonValue &kv : store.value(QStringLiteral("keys")).toArray()) {
            const QByteArray key = QStringLiteral("/cdprev-%1/%2")
                                       .arg(unique, kv[QStringLiteral("key")].toString())
                                       .toUtf8();
            const auto put = client.put(key, fill(kv[QStringLiteral("value")].toString()).toUtf8());
            QVERIFY2(put, qPrintable(put ? QString() : put.error().toString()));
        }
    } else {
        sqlite3 *db = nullptr;
        const QByteArray path = QUrl(m_storeUrl).path().toUtf8();
        QCOMPARE(sqlite3_open_v2(path.constData(), &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE,
                                 nullptr),
                 SQLITE_OK);
        char *error = nullptr;
        const int rc = sqlite3_exec(
            db, fill(store.value(QStringLiteral("sql")).toString()).toUtf8().constData(), nullptr,
            nullptr, &error);
        const QString message = error ? QString::fromUtf8(error) : QString();
        sqlite3_free(error);
        sqlite3_close(db);
        QVERIFY2(rc == SQLITE_OK, qPrintable(message));
    }
    const QMap<QString, QString> recreated = [&] {
        QMap<QString, QString> ids;
        for (auto it = values.cbegin(); it != values.cend(); ++it)
            if (it.key().startsWith(QStringLiteral("@CID:")))
                ids.insert(it.key().mid(5).chopped(1), it.value());
        return ids;
    }();
    QCOMPARE(recreated.size(), 5);

    // This release reads it (the store is migrated) and sees the session as it runs.
    QString why;
    QJsonObject shown = show();
    QVERIFY2(allRunning(shown, 5, &why), qPrintable(why));
    QCOMPARE(containerIds(shown), recreated);

    // A reconcile pass takes nothing of it for a stray or an orphan.
    const Proc pass = cli({QStringLiteral("reconcile"), QStringLiteral("--json")});
    QVERIFY2(pass.exitCode == 0, pass.err.constData());
    QCOMPARE(QJsonDocument::fromJson(pass.out)[QStringLiteral("changes")].toArray().size(), 0);
    QCOMPARE(containerIds(show()), recreated);

    // The policy (restart-session, 2 restarts): a killed kernel restarts the whole session in
    // fresh containers. (Before: "creating network cd-…: network with name cd-… already exists
    // (HTTP 409)", the session in ERROR and every kernel gone.)
    ControllerProcess controller(QStringLiteral(CLUSTERDECKCTL));
    controller.start(m_storeUrl, {});
    QVERIFY2(controller.waitFor(" leads", 20000), controller.err().constData());
    QString worker2Host;
    for (const QJsonValue &c : recorded.value(QStringLiteral("containers")).toArray())
        if (c[QStringLiteral("create")][QStringLiteral("Hostname")].toString() == u"worker2")
            worker2Host = c[QStringLiteral("host")].toString();
    const Proc killed = m_lab.docker(
        worker2Host, {QStringLiteral("kill"), recreated.value(QStringLiteral("worker2"))});
    QVERIFY2(killed.exitCode == 0 || killed.err.contains("is not running"), killed.err.constData());
    QVERIFY2(waitUntil(
                 [&] {
                     const QJsonObject now = show();
                     why = QStringLiteral("restart_count %1")
                               .arg(now.value(QStringLiteral("restart_count")).toInt());
                     return now.value(QStringLiteral("restart_count")).toInt() == 1 &&
                            allRunning(now, 5, &why);
                 },
                 90000),
             qPrintable(why + u'\n' + QString::fromUtf8(controller.err())));
    shown = show();
    for (auto it = recreated.cbegin(); it != recreated.cend(); ++it)
        QVERIFY2(containerIds(shown).value(it.key()) != it.value(), qPrintable(it.key()));

    // An admin's restart, then a scale to six workers.
    const auto before = containerIds(shown);
    const Proc restarted = cli({QStringLiteral("restart"), m_sessionId});
    QVERIFY2(restarted.exitCode == 0, restarted.err.constData());
    QVERIFY2(allRunning(show(), 5, &why), qPrintable(why));
    QVERIFY(containerIds(show()).value(QStringLiteral("master1")) !=
            before.value(QStringLiteral("master1")));
    const Proc scaled = cli({QStringLiteral("scale"), m_sessionId, QStringLiteral("worker=6"),
                             QStringLiteral("--settle"), QStringLiteral("0")});
    QVERIFY2(scaled.exitCode == 0, scaled.err.constData());
    QVERIFY2(waitUntil([&] { return allRunning(show(), 7, &why); }, 30000), qPrintable(why));

    // Removal leaves nothing of the session on any host, its old-labelled overlay included.
    const Proc removed = cli({QStringLiteral("rm"), m_sessionId});
    QVERIFY2(removed.exitCode == 0, removed.err.constData());
    QCOMPARE(show().value(QStringLiteral("status")).toString(), QStringLiteral("TERMINATED"));
    QCOMPARE(LabHosts::count(m_lab.containersOf(m_sessionId)), 0);
    QVERIFY2(waitUntil([&] { return LabHosts::count(m_lab.networksOf(m_sessionId)) == 0; }, 30000),
             "the session's overlay is still there 30 s after rm");
    QVERIFY(controller.stop());
}

void TestPreviousRelease::removeRecreated()
{
    // Only what this test recreates: the fixture's session, on the lab's hosts.
    for (const QString &h : m_lab.names()) {
        const QString label = QStringLiteral("label=io.clusterdeck.session=") + m_sessionId;
        const QStringList ids =
            QString::fromUtf8(m_lab
                                  .docker(h, {QStringLiteral("ps"), QStringLiteral("-aq"),
                                              QStringLiteral("--filter"), label})
                                  .out)
                .split(u'\n', Qt::SkipEmptyParts);
        if (!ids.isEmpty())
            m_lab.docker(h, QStringList{QStringLiteral("rm"), QStringLiteral("-f")} + ids);
    }
    for (const QString &h : m_lab.names()) {
        const QStringList nets = m_lab.networksOf(m_sessionId).value(h);
        for (const QString &n : nets)
            m_lab.docker(h, {QStringLiteral("network"), QStringLiteral("rm"), n});
    }
}

void TestPreviousRelease::cleanup()
{
    if (!m_sessionId.isEmpty()) {
        if (QTest::currentTestFailed())
            cli({QStringLiteral("rm"), m_sessionId});
        removeRecreated();
    }
    m_sessionId.clear();
}

QTEST_GUILESS_MAIN(TestPreviousRelease)
#include "tst_previousrelease.moc"
