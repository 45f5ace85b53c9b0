// The libvterm-backed screen model: text, colours, cursor, the alternate screen, scrollback,
// resize and the bytes keys turn into. No lab needed.

#include "terminal/terminalscreen.h"
#include "terminal/terminalwidget.h"

#include <QApplication>
#include <QClipboard>
#include <QSignalSpy>
#include <QTest>

using namespace ClusterDeck::Ui;

class TestTerminalScreen : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void text();
    void colours();
    void cursorMoves();
    void alternateScreen();
    void scrollback();
    void resize();
    void keys_data();
    void keys();
    void widgetSizeFollowsFont();
    void selectionAndCopy();
};

void TestTerminalScreen::text()
{
    TerminalScreen s(5, 20);
    s.feed("hello\r\nwörld ✓\r\n");
    QCOMPARE(s.lineText(0), QStringLiteral("hello"));
    QCOMPARE(s.lineText(1), QStringLiteral("wörld ✓"));
    QCOMPARE(s.cursor(), QPoint(0, 2));
    QVERIFY(s.screenText().startsWith(QStringLiteral("hello\nwörld ✓\n")));
}

void TestTerminalScreen::colours()
{
    TerminalScreen s(3, 20);
    s.feed("\x1b[31mred\x1b[0m \x1b[1;44mbold\x1b[0m \x1b[38;2;1;2;3mrgb");
    QCOMPARE(s.cell(0, 0).fg, QColor(224, 0, 0)); // libvterm's default palette red
    QCOMPARE(s.cell(0, 3).fg, s.defaultForeground());
    QVERIFY(s.cell(0, 4).bold);
    QCOMPARE(s.cell(0, 4).bg, QColor(0, 0, 224));
    QCOMPARE(s.cell(0, 9).fg, QColor(1, 2, 3));
    s.feed("\x1b[7mX");
    QCOMPARE(s.cell(0, 12).fg, s.defaultBackground()); // reverse video swaps
}

void TestTerminalScreen::cursorMoves()
{
    TerminalScreen s(10, 40);
    QSignalSpy moved(&s, &TerminalScreen::cursorMoved);
    s.feed("\x1b[5;10H*");
    QCOMPARE(s.cell(4, 9).text, QStringLiteral("*"));
    QCOMPARE(s.cursor(), QPoint(10, 4));
    QVERIFY(moved.count() > 0);
    s.feed("\x1b[?25l");
    QVERIFY(!s.cursorVisible());
}

void TestTerminalScreen::alternateScreen()
{
    // What top, vi and less do: switch to the alternate screen, draw, switch back.
    TerminalScreen s(5, 20);
    s.feed("shell prompt $");
    s.feed("\x1b[?1049h\x1b[H\x1b[2Jfull screen app");
    QVERIFY(s.altScreen());
    QCOMPARE(s.lineText(0), QStringLiteral("full screen app"));
    s.feed("\x1b[?1049l");
    QVERIFY(!s.altScreen());
    QCOMPARE(s.lineText(0), QStringLiteral("shell prompt $"));
}

void TestTerminalScreen::scrollback()
{
    TerminalScreen s(3, 10);
    s.setScrollbackLimit(4);
    for (int i = 1; i <= 8; ++i)
        s.feed(QByteArray::number(i) + "\r\n");
    // 8 lines and the cursor line: 6 scrolled off, 4 kept (the newest).
    QCOMPARE(s.scrollbackSize(), 4);
    QCOMPARE(s.scrollbackText(0), QStringLiteral("3"));
    QCOMPARE(s.scrollbackText(3), QStringLiteral("6"));
    QCOMPARE(s.lineText(0), QStringLiteral("7"));
}

void TestTerminalScreen::resize()
{
    TerminalScreen s(5, 10);
    s.feed("abcdefghij");
    s.resize(8, 30);
    QCOMPARE(s.rows(), 8);
    QCOMPARE(s.cols(), 30);
    s.feed("\x1b[8;30H#");
    QCOMPARE(s.cell(7, 29).text, QStringLiteral("#"));
}

void TestTerminalScreen::keys_data()
{
    QTest::addColumn<int>("key");
    QTest::addColumn<int>("modifiers");
    QTest::addColumn<QByteArray>("bytes");
    QTest::newRow("enter") << int(Qt::Key_Return) << 0 << QByteArray("\r");
    QTest::newRow("up") << int(Qt::Key_Up) << 0 << QByteArray("\x1b[A");
    QTest::newRow("backspace") << int(Qt::Key_Backspace) << 0 << QByteArray("\x7f");
    QTest::newRow("ctrl+left") << int(Qt::Key_Left) << int(Qt::ControlModifier)
                               << QByteArray("\x1b[1;5D");
    QTest::newRow("F1") << int(Qt::Key_F1) << 0 << QByteArray("\x1bOP");
}

void TestTerminalScreen::keys()
{
    QFETCH(int, key);
    QFETCH(int, modifiers);
    QFETCH(QByteArray, bytes);
    TerminalScreen s;
    QByteArray out;
    connect(&s, &TerminalScreen::output, this, [&](const QByteArray &b) { out += b; });
    QVERIFY(s.sendKey(key, Qt::KeyboardModifiers(modifiers)));
    QCOMPARE(out, bytes);
}

void TestTerminalScreen::widgetSizeFollowsFont()
{
    TerminalWidget w;
    QSignalSpy sized(&w, &TerminalWidget::sizeChanged);
    w.resize(w.cellSize().width() * 100 + 40, w.cellSize().height() * 30 + 10);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    QTRY_VERIFY(sized.count() > 0);
    QCOMPARE(w.screen()->cols(), w.viewport()->width() / w.cellSize().width());
    QCOMPARE(w.screen()->rows(), w.viewport()->height() / w.cellSize().height());
    QCOMPARE(sized.last().at(0).toInt(), w.screen()->rows());
    QCOMPARE(sized.last().at(1).toInt(), w.screen()->cols());
    // Keys typed in the widget come out of the screen.
    QByteArray out;
    connect(w.screen(), &TerminalScreen::output, this, [&](const QByteArray &b) { out += b; });
    QTest::keyClicks(&w, QStringLiteral("ls"));
    QTest::keyClick(&w, Qt::Key_Return);
    QTest::keyClick(&w, Qt::Key_C, Qt::ControlModifier);
    QCOMPARE(out, QByteArray("ls\r\x03"));
}

void TestTerminalScreen::selectionAndCopy()
{
    TerminalWidget w;
    w.resize(w.cellSize().width() * 40 + 30, w.cellSize().height() * 10 + 4);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    w.screen()->feed("first line\r\nsecond line");
    const QSize c = w.cellSize();
    QTest::mousePress(w.viewport(), Qt::LeftButton, {}, QPoint(c.width() * 6 + 1, c.height() / 2));
    QTest::mouseMove(w.viewport(), QPoint(c.width() * 5 + 1, c.height() + c.height() / 2));
    QTest::mouseRelease(w.viewport(), Qt::LeftButton, {},
                        QPoint(c.width() * 5 + 1, c.height() + c.height() / 2));
    QCOMPARE(w.selectedText(), QStringLiteral("line\nsecond"));
    w.copySelection();
    QCOMPARE(QApplication::clipboard()->text(), QStringLiteral("line\nsecond"));
    // Paste goes to the process, newlines as carriage returns.
    QByteArray out;
    connect(w.screen(), &TerminalScreen::output, this, [&](const QByteArray &b) { out += b; });
    QApplication::clipboard()->setText(QStringLiteral("echo a\necho b"));
    w.pasteClipboard();
    QVERIFY2(out.contains("echo a\recho b"), out.constData());
}

QTEST_MAIN(TestTerminalScreen)
#include "tst_terminalscreen.moc"
