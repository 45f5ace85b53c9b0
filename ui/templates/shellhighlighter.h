#pragma once

#include <QSyntaxHighlighter>
#include <QTextCharFormat>

namespace ClusterDeck::Ui {

// Simple POSIX shell highlighting for the scripts of a template (`command: |`, `bootstrap`):
// comments, quoted strings (also across lines), $variables and ${...}, and the shell's
// keywords. Enough to read a script at a glance; not a shell parser.
class ShellHighlighter : public QSyntaxHighlighter
{
    Q_OBJECT

public:
    explicit ShellHighlighter(QTextDocument *document);

    // What each kind of word is drawn with (tests look here).
    QTextCharFormat commentFormat() const { return m_comment; }
    QTextCharFormat stringFormat() const { return m_string; }
    QTextCharFormat variableFormat() const { return m_variable; }
    QTextCharFormat keywordFormat() const { return m_keyword; }

protected:
    void highlightBlock(const QString &text) override;

private:
    // A block that ends inside quotes hands them on to the next one.
    enum State { Normal = 0, InSingleQuote = 1, InDoubleQuote = 2 };

    // The length of a variable reference at `i` ($NAME, ${...}, $1, $?, $( ), 0 when none.
    static int variableLength(const QString &text, int i);

    QTextCharFormat m_comment;
    QTextCharFormat m_string;
    QTextCharFormat m_variable;
    QTextCharFormat m_keyword;
};

} // namespace ClusterDeck::Ui
