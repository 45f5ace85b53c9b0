#include "shellhighlighter.h"

#include <QSet>

namespace ClusterDeck::Ui {

namespace {
bool isWordChar(QChar c)
{
    return c.isLetterOrNumber() || c == u'_';
}
} // namespace

ShellHighlighter::ShellHighlighter(QTextDocument *document)
    : QSyntaxHighlighter(document)
{
    // Colours that read on both the light and the dark palette.
    m_comment.setForeground(QColor(0x6a, 0x99, 0x55));
    m_comment.setFontItalic(true);
    m_string.setForeground(QColor(0xc0, 0x6a, 0x2b));
    m_variable.setForeground(QColor(0x2f, 0x7f, 0xc1));
    m_keyword.setForeground(QColor(0xa0, 0x4c, 0xc0));
    m_keyword.setFontWeight(QFont::Bold);
}

int ShellHighlighter::variableLength(const QString &text, int i)
{
    if (i + 1 >= text.size() || text.at(i) != u'$')
        return 0;
    const QChar next = text.at(i + 1);
    if (next == u'{') {
        const int close = int(text.indexOf(u'}', i + 2));
        return close < 0 ? int(text.size()) - i : close - i + 1;
    }
    if (next == u'(') // the `$(` of a command substitution
        return 2;
    if (next.isDigit() || QStringView(u"#?@*$!-").contains(next))
        return 2;
    int end = i + 1;
    while (end < text.size() && isWordChar(text.at(end)))
        ++end;
    return end - i > 1 ? end - i : 0;
}

void ShellHighlighter::highlightBlock(const QString &text)
{
    static const QSet<QString> keywords{
        QStringLiteral("if"),    QStringLiteral("then"),     QStringLiteral("else"),
        QStringLiteral("elif"),  QStringLiteral("fi"),       QStringLiteral("for"),
        QStringLiteral("while"), QStringLiteral("until"),    QStringLiteral("do"),
        QStringLiteral("done"),  QStringLiteral("case"),     QStringLiteral("esac"),
        QStringLiteral("in"),    QStringLiteral("function"), QStringLiteral("return"),
        QStringLiteral("exit"),  QStringLiteral("export"),   QStringLiteral("local"),
        QStringLiteral("set"),   QStringLiteral("unset"),    QStringLiteral("shift"),
        QStringLiteral("break"), QStringLiteral("continue"), QStringLiteral("trap"),
        QStringLiteral("exec"),  QStringLiteral("readonly"), QStringLiteral("wait")};

    int state = previousBlockState() < 0 ? Normal : previousBlockState();
    int stringStart = 0; // where the open quote of this block's string began
    for (int i = 0; i < text.size();) {
        const QChar c = text.at(i);
        if (state == InSingleQuote) {
            // Nothing is special inside '...' but its end.
            const int close = int(text.indexOf(u'\'', i));
            const int end = close < 0 ? int(text.size()) : close + 1;
            setFormat(stringStart, end - stringStart, m_string);
            i = end;
            if (close >= 0)
                state = Normal;
            continue;
        }
        if (state == InDoubleQuote) {
            if (c == u'\\') {
                setFormat(i, 2, m_string);
                i += 2;
            } else if (const int length = variableLength(text, i); length > 0) {
                setFormat(i, length, m_variable);
                i += length;
            } else {
                setFormat(i, 1, m_string);
                ++i;
                if (c == u'"')
                    state = Normal;
            }
            continue;
        }
        if (c == u'#' && (i == 0 || text.at(i - 1).isSpace())) {
            setFormat(i, int(text.size()) - i, m_comment);
            break;
        }
        if (c == u'\\') {
            i += 2;
        } else if (c == u'\'' || c == u'"') {
            state = c == u'\'' ? InSingleQuote : InDoubleQuote;
            stringStart = i;
            setFormat(i, 1, m_string);
            ++i;
        } else if (const int length = variableLength(text, i); length > 0) {
            setFormat(i, length, m_variable);
            i += length;
        } else if (isWordChar(c) && (i == 0 || !isWordChar(text.at(i - 1)))) {
            int end = i;
            while (end < text.size() && isWordChar(text.at(end)))
                ++end;
            if (keywords.contains(text.mid(i, end - i)))
                setFormat(i, end - i, m_keyword);
            i = end;
        } else {
            ++i;
        }
    }
    setCurrentBlockState(state);
}

} // namespace ClusterDeck::Ui
