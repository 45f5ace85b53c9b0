// Text from kernels printed or shown inert (issue 24 D.11): no control sequence survives.

#include "common/inerttext.h"

#include <QTest>

using namespace ClusterDeck;

class TestInertText : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void of_data();
    void of();
};

void TestInertText::of_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<QString>("expected");
    QTest::newRow("plain text and UTF-8 stay") << QStringLiteral("worker3: Grüße, 学习 → done")
                                               << QStringLiteral("worker3: Grüße, 学习 → done");
    QTest::newRow("tab and newline stay") << QStringLiteral("a\tb\nc") << QStringLiteral("a\tb\nc");
    QTest::newRow("OSC 52 clipboard write") << QStringLiteral("\x1b]52;c;cm0gLXJmIH4=\x07")
                                            << QStringLiteral("\\e]52;c;cm0gLXJmIH4=\\x07");
    QTest::newRow("hidden text (SGR 8) and a cursor move")
        << QStringLiteral("\x1b[8msecret\x1b[0m\x1b[2A")
        << QStringLiteral("\\e[8msecret\\e[0m\\e[2A");
    QTest::newRow("carriage return overwriting a line")
        << QStringLiteral("ok\rFAIL") << QStringLiteral("ok\\x0dFAIL");
    QTest::newRow("DEL and NUL") << QString(QStringLiteral("a\x7f") + QChar(0) + u'b')
                                 << QStringLiteral("a\\x7f\\x00b");
    QTest::newRow("C1 CSI (U+009B)")
        << QString(QChar(0x9b) + QStringLiteral("2J")) << QStringLiteral("\\u009b2J");
}

void TestInertText::of()
{
    QFETCH(QString, text);
    QFETCH(QString, expected);
    const QString inert = InertText::of(text);
    QCOMPARE(inert, expected);
    for (const QChar c : inert)
        QVERIFY2(!InertText::isControl(c.unicode()), qPrintable(inert));
}

QTEST_GUILESS_MAIN(TestInertText)
#include "tst_inerttext.moc"
