// StoreIdentity: which objects are this store's, the one check before anything is adopted or
// removed (docs/architecture.md, Ownership).
#include "common/labels.h"
#include "store/storeidentity.h"

#include <QTest>

using namespace ClusterDeck;

namespace {
const QString kStore = QStringLiteral("5b0c2f4e-8d1a-4c36-9e7b-2a6f1d3c4b5a");
const QString kOther = QStringLiteral("0f9e8d7c-6b5a-4938-8271-605f4e3d2c1b");
const QString kLegacy = QStringLiteral("sqlite:///var/lib/cd/state.db");
const QString kSession = QStringLiteral("3f2c8a1e-1111-4222-8333-444455556666");
} // namespace

class TestStoreIdentity : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void owns_data();
    void owns();
    void ownsSessionObject_data();
    void ownsSessionObject();
    void wellFormed_data();
    void wellFormed();
};

void TestStoreIdentity::owns_data()
{
    QTest::addColumn<QString>("self");
    QTest::addColumn<QString>("label");
    QTest::addColumn<bool>("knownSession");
    QTest::addColumn<bool>("owned");

    QTest::newRow("own id") << kStore << kStore << false << true;
    QTest::newRow("own id, known session") << kStore << kStore << true << true;
    QTest::newRow("another store") << kStore << kOther << true << false;
    QTest::newRow("legacy URL, known session") << kStore << kLegacy << true << true;
    QTest::newRow("legacy URL, unknown session") << kStore << kLegacy << false << false;
    QTest::newRow("no label") << kStore << QString() << true << false;
    QTest::newRow("empty identity owns nothing") << QString() << QString() << true << false;
}

void TestStoreIdentity::owns()
{
    QFETCH(QString, self);
    QFETCH(QString, label);
    QFETCH(bool, knownSession);
    QFETCH(bool, owned);
    QCOMPARE(StoreIdentity(self, {kLegacy}).owns(label, knownSession), owned);
}

void TestStoreIdentity::ownsSessionObject_data()
{
    QTest::addColumn<QString>("storeLabel");
    QTest::addColumn<QString>("sessionLabel");
    QTest::addColumn<QString>("session");
    QTest::addColumn<bool>("owned");

    QTest::newRow("this store, this session") << kStore << kSession << kSession << true;
    QTest::newRow("legacy URL label, this session") << kLegacy << kSession << kSession << true;
    QTest::newRow("this store, another session")
        << kStore << QStringLiteral("9d8c7b6a-0000-4000-8000-000000000000") << kSession << false;
    QTest::newRow("another store, this session") << kOther << kSession << kSession << false;
    QTest::newRow("no session label") << kStore << QString() << kSession << false;
    QTest::newRow("no store label") << QString() << kSession << kSession << false;
    QTest::newRow("no session asked: nothing matches") << kStore << QString() << QString() << false;
}

void TestStoreIdentity::ownsSessionObject()
{
    QFETCH(QString, storeLabel);
    QFETCH(QString, sessionLabel);
    QFETCH(QString, session);
    QFETCH(bool, owned);
    QMap<QString, QString> labels{{QStringLiteral("com.example.other"), QStringLiteral("x")}};
    if (!storeLabel.isEmpty())
        labels.insert(Labels::store(), storeLabel);
    if (!sessionLabel.isEmpty())
        labels.insert(Labels::session(), sessionLabel);
    QCOMPARE(StoreIdentity(kStore, {kLegacy}).ownsSessionObject(labels, session), owned);
}

void TestStoreIdentity::wellFormed_data()
{
    QTest::addColumn<QString>("id");
    QTest::addColumn<bool>("wellFormed");

    QTest::newRow("canonical UUID") << kStore << true;
    QTest::newRow("braces") << (u'{' + kStore + u'}') << false;
    QTest::newRow("upper case") << kStore.toUpper() << false;
    QTest::newRow("path") << QStringLiteral("../../x") << false;
    QTest::newRow("empty") << QString() << false;
}

void TestStoreIdentity::wellFormed()
{
    QFETCH(QString, id);
    QFETCH(bool, wellFormed);
    QCOMPARE(StoreIdentity::isWellFormed(id), wellFormed);
}

QTEST_GUILESS_MAIN(TestStoreIdentity)
#include "tst_storeidentity.moc"
