#include "scriptedit.h"

#include "shellhighlighter.h"

#include <QFontDatabase>
#include <QPainter>
#include <QTextBlock>

namespace ClusterDeck::Ui {

namespace {
// The gutter only forwards its painting: the editor knows where its lines are.
class Gutter : public QWidget
{
public:
    explicit Gutter(ScriptEdit *editor)
        : QWidget(editor)
        , m_editor(editor)
    {
        setObjectName(QStringLiteral("lineNumbers"));
    }
    QSize sizeHint() const override { return {m_editor->lineNumberAreaWidth(), 0}; }

protected:
    void paintEvent(QPaintEvent *event) override { m_editor->paintLineNumbers(event); }

private:
    ScriptEdit *m_editor;
};
} // namespace

ScriptEdit::ScriptEdit(QWidget *parent)
    : QPlainTextEdit(parent)
    , m_gutter(new Gutter(this))
    , m_highlighter(new ShellHighlighter(document()))
{
    setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    setLineWrapMode(QPlainTextEdit::NoWrap);
    setTabChangesFocus(true); // a form field: Tab moves on (scripts indent with spaces)
    connect(this, &QPlainTextEdit::blockCountChanged, this, &ScriptEdit::updateGutterWidth);
    connect(this, &QPlainTextEdit::updateRequest, this, &ScriptEdit::updateGutter);
    updateGutterWidth();
}

int ScriptEdit::lineNumberAreaWidth() const
{
    int digits = 1;
    for (int max = std::max(1, blockCount()); max >= 10; max /= 10)
        ++digits;
    digits = std::max(digits, 2); // the gutter does not jump at line 10
    return 8 + fontMetrics().horizontalAdvance(u'9') * digits;
}

void ScriptEdit::updateGutterWidth()
{
    setViewportMargins(lineNumberAreaWidth(), 0, 0, 0);
}

void ScriptEdit::updateGutter(const QRect &rect, int dy)
{
    if (dy)
        m_gutter->scroll(0, dy);
    else
        m_gutter->update(0, rect.y(), m_gutter->width(), rect.height());
    if (rect.contains(viewport()->rect()))
        updateGutterWidth();
}

void ScriptEdit::resizeEvent(QResizeEvent *event)
{
    QPlainTextEdit::resizeEvent(event);
    const QRect r = contentsRect();
    m_gutter->setGeometry(QRect(r.left(), r.top(), lineNumberAreaWidth(), r.height()));
}

void ScriptEdit::paintLineNumbers(QPaintEvent *event)
{
    QPainter painter(m_gutter);
    painter.fillRect(event->rect(), palette().color(QPalette::AlternateBase));
    painter.setPen(palette().color(QPalette::PlaceholderText));
    QTextBlock block = firstVisibleBlock();
    int top = qRound(blockBoundingGeometry(block).translated(contentOffset()).top());
    int bottom = top + qRound(blockBoundingRect(block).height());
    while (block.isValid() && top <= event->rect().bottom()) {
        if (block.isVisible() && bottom >= event->rect().top())
            painter.drawText(0, top, m_gutter->width() - 4, fontMetrics().height(), Qt::AlignRight,
                             QString::number(block.blockNumber() + 1));
        block = block.next();
        top = bottom;
        bottom = top + qRound(blockBoundingRect(block).height());
    }
}

} // namespace ClusterDeck::Ui
