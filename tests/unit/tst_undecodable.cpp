// One undecodable session record must not hide the others (issue 13, item 7): the store lists
// the rest and names the bad key or row apart; `clusterdeckctl ls` lists the rest with a warning
// naming it; `clusterdeckctl reconcile` refuses to act (its containers would look like orphans).
//
// Built twice: as a unit test against SQLite (a temporary file), and with UNDECODABLE_ETCD as a
// lab test against the lab's etcd ($CLUSTERDECK_LAB_ETCD, a unique prefix removed afterwards;
// fails, never skips, without the lab). The bad record is written directly, as a corrupt write or
// a newer build would leave it.

#include "etcd/etcdclient.h"
#include "labcli.h"
#include "store/statestore.h"
#include "store/storefactory.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>
#include <QUrl>
#include <QUuid>

#include <sqlite3.h>

using namespace ClusterDeck;

#ifndef CLUSTERDECKCTL
#error "CLUSTERDECKCTL must name the clusterdeckctl binary"
#endif

namespace {

QString newId()
{
    return QUuid::createUuid().toString(QUuid::WithoutBraces);
}

SessionRecord makeSession(const QString &name, int minutes)
{
    SessionRecord s;
    s.id = newId();
    s.name = name;
    s.templateName = QStringLiteral("t");
    s.status = SessionStatus::Terminated;
    s.desired = DesiredState::Terminated;
    s.createdAt = QDateTime(QDate(2026, 1, 1), QTime(12, minutes), Qt::UTC);
    s.updatedAt = s.createdAt;
    s.networkName = QStringLiteral("cd-") + s.id.left(8);
    return s;
}

KernelRecord makeKernel(const SessionRecord &s)
{
    KernelRecord k;
    k.id = newId();
    k.sessionId = s.id;
    k.role = QStringLiteral("worker");
    k.hostname = QStringLiteral("worker1");
    k.containerName = QStringLiteral("cd-") + s.id.left(8) + QStringLiteral("-worker1");
    k.status = KernelStatus::Terminated;
    k.desired = DesiredState::Terminated;
    k.createdAt = s.createdAt;
    k.updatedAt = s.createdAt;
    return k;
}

} // namespace

#define CHECK_OK(expr)                                                                             \
    do {                                                                                           \
        const auto &r_ = (expr);                                                                   \
        QVERIFY2(r_.has_value(), qPrintable(r_ ? QString() : r_.error().toString()));              \
    } while (false)

class TestUndecodable : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void init();
    void cleanup();
    void storeListsTheOthersAndNamesTheBadRecord_data();
    void storeListsTheOthersAndNamesTheBadRecord();
    void lsListsTheOthersWithAWarning();
    void reconcileRefuses();

private:
    Proc cli(const QStringList &args) const
    {
        return runProcess(QStringLiteral(CLUSTERDECKCTL),
                          QStringList{QStringLiteral("--store"), m_url} + args, 60000);
    }
    // Two good sessions and one whose record cannot be decoded (`how` corrupts it).
    void fill(const QString &how = QStringLiteral("json"));

    QString m_url;
    std::unique_ptr<QTemporaryDir> m_dir;
    std::unique_ptr<StateStore> m_store;
    std::unique_ptr<Etcd::EtcdClient> m_etcd;
    QString m_etcdPrefix;
    SessionRecord m_good1, m_good2, m_bad;
};

void TestUndecodable::init()
{
#ifdef UNDECODABLE_ETCD
    const QString endpoint = qEnvironmentVariable("CLUSTERDECK_LAB_ETCD");
    QVERIFY2(!endpoint.isEmpty(),
             "CLUSTERDECK_LAB_ETCD is not set: start the lab and eval \"$(scripts/lab.sh env)\"");
    Etcd::EtcdConfig config;
    config.endpoints = {endpoint};
    m_etcd = std::make_unique<Etcd::EtcdClient>(config);
    m_etcdPrefix = QStringLiteral("/cdtest-undecodable/") + newId();
    m_url = QStringLiteral("etcd://") + QUrl(endpoint).authority() + m_etcdPrefix;
#else
    m_dir = std::make_unique<QTemporaryDir>();
    QVERIFY(m_dir->isValid());
    m_url = QStringLiteral("sqlite://") + m_dir->filePath(QStringLiteral("state.db"));
#endif
    auto store = openStore(m_url);
    QVERIFY2(store, qPrintable(store ? QString() : store.error().toString()));
    m_store = std::move(*store);
}

void TestUndecodable::cleanup()
{
    m_store.reset();
    if (m_etcd && !m_etcdPrefix.isEmpty()) {
        auto removed = m_etcd->removePrefix((m_etcdPrefix + u'/').toUtf8());
        QVERIFY2(removed, qPrintable(removed ? QString() : removed.error().toString()));
    }
    m_etcd.reset();
    m_dir.reset();
}

void TestUndecodable::fill(const QString &how)
{
    m_good1 = makeSession(QStringLiteral("good-one"), 1);
    m_bad = makeSession(QStringLiteral("bad-one"), 2);
    m_good2 = makeSession(QStringLiteral("good-two"), 3);
    for (const SessionRecord &s : {m_good1, m_bad, m_good2})
        CHECK_OK(m_store->createSession(s, {makeKernel(s)}));
#ifdef UNDECODABLE_ETCD
    const QByteArray id = m_bad.id.toUtf8();
    const QByteArray value =
        how == u"json"
            ? QByteArray("{\"id\": \"" + id + "\", ")
            : QByteArray("{\"id\":\"" + id + "\",\"status\":\"WEIRD\",\"desired\":\"RUNNING\"}");
    CHECK_OK(m_etcd->put((m_etcdPrefix + QStringLiteral("/sessions/") + m_bad.id).toUtf8(), value));
#else
    const QByteArray path = m_url.mid(QStringLiteral("sqlite://").size()).toUtf8();
    sqlite3 *db = nullptr;
    QCOMPARE(sqlite3_open(path.constData(), &db), SQLITE_OK);
    const QByteArray id = m_bad.id.toUtf8();
    const QByteArray sql =
        how == u"json"
            ? QByteArray("UPDATE sessions SET history = '[{\"status\": ' WHERE id = '" + id + "'")
            : QByteArray("UPDATE sessions SET status = 'WEIRD' WHERE id = '" + id + "'");
    char *message = nullptr;
    const int rc = sqlite3_exec(db, sql.constData(), nullptr, nullptr, &message);
    const QString text = QString::fromUtf8(message ? message : "");
    sqlite3_free(message);
    QCOMPARE(sqlite3_changes(db), 1);
    sqlite3_close(db);
    QVERIFY2(rc == SQLITE_OK, qPrintable(text));
#endif
}

void TestUndecodable::storeListsTheOthersAndNamesTheBadRecord_data()
{
    QTest::addColumn<QString>("how");
    QTest::newRow("broken JSON") << QStringLiteral("json");
    QTest::newRow("unknown status") << QStringLiteral("status");
}

void TestUndecodable::storeListsTheOthersAndNamesTheBadRecord()
{
    QFETCH(QString, how);
    fill(how);
    if (QTest::currentTestFailed())
        return;
    auto listing = m_store->listSessions();
    CHECK_OK(listing);
    QCOMPARE(listing->sessions.size(), 2);
    QCOMPARE(listing->sessions.at(0).id, m_good1.id);
    QCOMPARE(listing->sessions.at(1).id, m_good2.id);
    QCOMPARE(listing->undecodable.size(), 1);
    QVERIFY2(listing->undecodable.at(0).key.contains(m_bad.id),
             qPrintable(listing->undecodable.at(0).toString()));
    QVERIFY(!listing->undecodable.at(0).message.isEmpty());

    // sessions() lists the others too, and logs the bad one by its key.
    QTest::ignoreMessage(QtWarningMsg,
                         QRegularExpression(QStringLiteral("undecodable session record.*") +
                                            QRegularExpression::escape(m_bad.id)));
    auto sessions = m_store->sessions();
    CHECK_OK(sessions);
    QCOMPARE(sessions->size(), 2);

    // The good ones stay readable one by one; the bad one fails alone.
    CHECK_OK(m_store->session(m_good2.id));
    QVERIFY(!m_store->session(m_bad.id));
}

void TestUndecodable::lsListsTheOthersWithAWarning()
{
    fill();
    if (QTest::currentTestFailed())
        return;
    const Proc ls = cli({QStringLiteral("ls")});
    QVERIFY2(ls.exitCode == 0, ls.err.constData());
    QVERIFY2(ls.out.contains("good-one") && ls.out.contains("good-two"), ls.out.constData());
    QVERIFY2(!ls.out.contains("bad-one"), ls.out.constData());
    QVERIFY2(ls.err.contains("warning: cannot read session record") &&
                 ls.err.contains(m_bad.id.toUtf8()),
             ls.err.constData());

    const Proc json = cli({QStringLiteral("ls"), QStringLiteral("--json")});
    QVERIFY2(json.exitCode == 0, json.err.constData());
    const QJsonArray array = QJsonDocument::fromJson(json.out).array();
    QCOMPARE(array.size(), 2);
    QCOMPARE(array.at(0).toObject().value(QStringLiteral("id")).toString(), m_good1.id);
    QVERIFY2(json.err.contains(m_bad.id.toUtf8()), json.err.constData());

    // The good sessions still resolve by name.
    const Proc show = cli({QStringLiteral("show"), QStringLiteral("good-two")});
    QVERIFY2(show.exitCode == 0, show.err.constData());
}

void TestUndecodable::reconcileRefuses()
{
    fill();
    if (QTest::currentTestFailed())
        return;
    const Proc r = cli({QStringLiteral("reconcile")});
    QVERIFY2(r.exitCode != 0, r.out.constData());
    QVERIFY2(r.err.contains("error: reconcile refused: the store holds 1 undecodable") &&
                 r.err.contains(m_bad.id.toUtf8()),
             r.err.constData());
    QVERIFY2(!r.out.contains("nothing to do"), r.out.constData());

    const Proc json = cli({QStringLiteral("reconcile"), QStringLiteral("--json")});
    QVERIFY2(json.exitCode != 0, json.out.constData());
    QVERIFY2(QJsonDocument::fromJson(json.out)
                 .object()
                 .value(QStringLiteral("refused"))
                 .toString()
                 .contains(m_bad.id),
             json.out.constData());

    // Once the bad record is gone, reconcile acts again.
    CHECK_OK(m_store->removeSession(m_bad.id));
    const Proc again = cli({QStringLiteral("reconcile")});
    QVERIFY2(again.exitCode == 0, again.err.constData());
}

QTEST_GUILESS_MAIN(TestUndecodable)
#include "tst_undecodable.moc"
