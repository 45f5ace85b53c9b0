#include "common/error.h"

#include <QTest>

using namespace ClusterDeck;

class TestError : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void toString_data();
    void toString();
    void contextKeepsPlace();
    void resultCarriesError();
};

void TestError::toString_data()
{
    QTest::addColumn<QString>("where");
    QTest::addColumn<QString>("message");
    QTest::addColumn<QString>("expected");
    QTest::newRow("with place") << "host h1 (unix:///run/h1.sock)" << "no such image"
                                << "host h1 (unix:///run/h1.sock): no such image";
    QTest::newRow("no place") << "" << "bad" << "bad";
}

void TestError::toString()
{
    QFETCH(QString, where);
    QFETCH(QString, message);
    QFETCH(QString, expected);
    QCOMPARE(Error::make(Error::Kind::Http, where, message).toString(), expected);
}

void TestError::contextKeepsPlace()
{
    const Error e = Error::make(Error::Kind::NotFound, QStringLiteral("h2"), QStringLiteral("gone"))
                        .withContext(QStringLiteral("starting worker3"));
    QCOMPARE(e.where, QStringLiteral("h2"));
    QCOMPARE(e.message, QStringLiteral("starting worker3: gone"));
    QCOMPARE(e.kind, Error::Kind::NotFound);
}

void TestError::resultCarriesError()
{
    auto f = [](bool ok) -> Result<int> {
        if (!ok)
            return fail(Error::Kind::Invalid, QStringLiteral("x.yaml:1:2"), QStringLiteral("bad"));
        return 7;
    };
    QCOMPARE(f(true).value(), 7);
    QVERIFY(!f(false).has_value());
    QCOMPARE(f(false).error().where, QStringLiteral("x.yaml:1:2"));
}

QTEST_GUILESS_MAIN(TestError)
#include "tst_error.moc"
