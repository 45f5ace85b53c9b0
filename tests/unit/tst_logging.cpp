// Logging::apply, the one way programs set what ClusterDeck logs (issue 25, item 6).

#include "common/logging.h"

#include <QTest>

using namespace ClusterDeck;
using Level = Logging::Level;

// Not ClusterDeck's: Qt's own categories, a library's.
Q_LOGGING_CATEGORY(lcOther, "other.library")

namespace {
// debug, info, warning of a category, as "dIw" (lower case: off).
QString state(const QLoggingCategory &c)
{
    return QString(c.isDebugEnabled() ? u'D' : u'd') + (c.isInfoEnabled() ? u'I' : u'i') +
           (c.isWarningEnabled() ? u'W' : u'w');
}
} // namespace

Q_DECLARE_METATYPE(ClusterDeck::Logging::Level)

class TestLogging : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void init();
    void levels_data();
    void levels();
    void environmentDecides_data();
    void environmentDecides();
};

void TestLogging::init()
{
    qunsetenv("QT_LOGGING_RULES");
    QLoggingCategory::setFilterRules({});
}

void TestLogging::levels_data()
{
    QTest::addColumn<Level>("level");
    QTest::addColumn<bool>("controlAtInfo");
    QTest::addColumn<QString>("expected"); // clusterdeck.http, clusterdeck.control, another's

    QTest::newRow("quiet: nothing at all") << Level::Quiet << false << "diw diw diw";
    QTest::newRow("warnings: the default") << Level::Warnings << false << "diW diW DIW";
    QTest::newRow("info") << Level::Info << false << "dIW dIW DIW";
    QTest::newRow("debug: diagnostics") << Level::Debug << false << "DIW DIW DIW";
    QTest::newRow("controller: its decisions, not the chatter")
        << Level::Warnings << true << "diW dIW DIW";
}

void TestLogging::levels()
{
    QFETCH(Level, level);
    QFETCH(bool, controlAtInfo);
    if (controlAtInfo)
        Logging::apply(level, lcControl(), Level::Info);
    else
        Logging::apply(level);
    QTEST(QStringList({state(lcHttp()), state(lcControl()), state(lcOther())}).join(u' '),
          "expected");
}

void TestLogging::environmentDecides_data()
{
    QTest::addColumn<Level>("level");
    QTest::addColumn<QString>("http");
    // Set QT_LOGGING_RULES: the levels leave the rules as they were (here: Warnings), but Quiet
    // still silences (Qt puts what QT_LOGGING_RULES names over it).
    QTest::newRow("info") << Level::Info << "diW";
    QTest::newRow("debug") << Level::Debug << "diW";
    QTest::newRow("quiet") << Level::Quiet << "diw";
}

void TestLogging::environmentDecides()
{
    QFETCH(Level, level);
    Logging::apply(Level::Warnings);
    qputenv("QT_LOGGING_RULES", "clusterdeck.docker.debug=true");
    Logging::apply(level);
    QTEST(state(lcHttp()), "http");
}

QTEST_GUILESS_MAIN(TestLogging)
#include "tst_logging.moc"
