#include "templates/scriptedit.h"
#include "templates/shellhighlighter.h"

#include <QTest>
#include <QTextBlock>
#include <QTextLayout>

using namespace ClusterDeck::Ui;

class TestScriptEdit : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void highlighting_data();
    void highlighting();
    void lineNumbersMakeRoom();
    void textIsKeptAsTyped();
};

namespace {
// The format the highlighter gave the character at `column` of `line`.
QTextCharFormat formatAt(const ScriptEdit &edit, int line, int column)
{
    const QTextBlock block = edit.document()->findBlockByLineNumber(line);
    for (const QTextLayout::FormatRange &r : block.layout()->formats()) {
        if (column >= r.start && column < r.start + r.length)
            return r.format;
    }
    return {};
}
} // namespace

void TestScriptEdit::highlighting_data()
{
    QTest::addColumn<QString>("script");
    QTest::addColumn<int>("line");
    QTest::addColumn<int>("column");
    QTest::addColumn<QString>("kind"); // comment, string, variable, keyword or none

    const QString script = QStringLiteral("#!/bin/sh\n"                               // 0
                                          "for h in $HOSTS; do\n"                     // 1
                                          "  echo \"hi ${h}\" # greet\n"              // 2
                                          "done\n"                                    // 3
                                          "echo 'a # not a comment\n"                 // 4
                                          "still $quoted'; n=$((n + 1)); exit $?\n"); // 5
    QTest::newRow("shebang") << script << 0 << 3 << "comment";
    QTest::newRow("for") << script << 1 << 0 << "keyword";
    QTest::newRow("a word named like a keyword's start") << script << 1 << 4 << "none";
    QTest::newRow("$HOSTS") << script << 1 << 10 << "variable";
    QTest::newRow("do") << script << 1 << 17 << "keyword";
    QTest::newRow("double-quoted text") << script << 2 << 8 << "string";
    QTest::newRow("${h} inside double quotes") << script << 2 << 13 << "variable";
    QTest::newRow("comment after code") << script << 2 << 20 << "comment";
    QTest::newRow("done") << script << 3 << 1 << "keyword";
    QTest::newRow("# inside single quotes") << script << 4 << 8 << "string";
    QTest::newRow("single quotes across lines") << script << 5 << 6 << "string";
    QTest::newRow("$(( after the quote ends") << script << 5 << 18 << "variable";
    QTest::newRow("exit") << script << 5 << 30 << "keyword";
    QTest::newRow("$?") << script << 5 << 35 << "variable";
}

void TestScriptEdit::highlighting()
{
    QFETCH(QString, script);
    QFETCH(int, line);
    QFETCH(int, column);
    QFETCH(QString, kind);
    ScriptEdit edit;
    edit.setPlainText(script);
    const ShellHighlighter *h = edit.highlighter();
    QVERIFY(h);
    const QBrush got = formatAt(edit, line, column).foreground();
    const QBrush expected = kind == u"comment"    ? h->commentFormat().foreground()
                            : kind == u"string"   ? h->stringFormat().foreground()
                            : kind == u"variable" ? h->variableFormat().foreground()
                            : kind == u"keyword"  ? h->keywordFormat().foreground()
                                                  : QBrush();
    const QString text = edit.document()->findBlockByLineNumber(line).text();
    QVERIFY2(
        got == expected,
        qPrintable(
            QStringLiteral("'%1' at %2 of \"%3\"").arg(text.mid(column, 1)).arg(column).arg(text)));
}

void TestScriptEdit::lineNumbersMakeRoom()
{
    ScriptEdit edit;
    edit.resize(400, 300);
    edit.show();
    QVERIFY(QTest::qWaitForWindowExposed(&edit));
    const int twoDigits = edit.lineNumberAreaWidth();
    QVERIFY(twoDigits > 0);
    QCOMPARE(edit.lineNumberArea()->width(), twoDigits);
    QVERIFY(edit.viewport()->geometry().left() >= twoDigits); // text starts right of the numbers
    QString many;
    for (int i = 0; i < 120; ++i)
        many += QStringLiteral("echo %1\n").arg(i);
    edit.setPlainText(many);
    QTRY_VERIFY(edit.lineNumberAreaWidth() > twoDigits); // "120" needs a third digit
    QTRY_COMPARE(edit.lineNumberArea()->width(), edit.lineNumberAreaWidth());
}

void TestScriptEdit::textIsKeptAsTyped()
{
    // What is typed is the script: no quoting, no escapes, the final newline kept.
    ScriptEdit edit;
    edit.setFocus();
    QTest::keyClicks(&edit, QStringLiteral("echo \"a\\tb\" 'c'"));
    QTest::keyClick(&edit, Qt::Key_Return);
    QCOMPARE(edit.toPlainText(), QStringLiteral("echo \"a\\tb\" 'c'\n"));
    QVERIFY(edit.font().fixedPitch() || edit.font().styleHint() == QFont::Monospace ||
            QFontInfo(edit.font()).fixedPitch());
}

QTEST_MAIN(TestScriptEdit)
#include "tst_scriptedit.moc"
