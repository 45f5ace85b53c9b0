#include "terminalwidget.h"

#include "terminalscreen.h"

#include <QApplication>
#include <QClipboard>
#include <QFontDatabase>
#include <QKeyEvent>
#include <QPainter>
#include <QScrollBar>

namespace ClusterDeck::Ui {

TerminalWidget::TerminalWidget(QWidget *parent)
    : QAbstractScrollArea(parent)
    , m_screen(new TerminalScreen(24, 80, this))
{
    setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    const QFontMetrics fm(font());
    m_cell = QSize(std::max(1, fm.horizontalAdvance(QLatin1Char('M'))), std::max(1, fm.height()));
    m_ascent = fm.ascent();
    setFocusPolicy(Qt::StrongFocus);
    setAttribute(Qt::WA_InputMethodEnabled, false);
    viewport()->setCursor(Qt::IBeamCursor);
    viewport()->setAutoFillBackground(false);
    setVerticalScrollBarPolicy(Qt::ScrollBarAsNeeded);
    setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    connect(m_screen, &TerminalScreen::damaged, viewport(), [this](const QRect &cells) {
        if (scrollOffset() == 0)
            viewport()->update(QRect(cells.x() * m_cell.width(), cells.y() * m_cell.height(),
                                     cells.width() * m_cell.width(),
                                     cells.height() * m_cell.height()));
    });
    connect(m_screen, &TerminalScreen::cursorMoved, viewport(), qOverload<>(&QWidget::update));
    connect(m_screen, &TerminalScreen::scrollbackChanged, this, &TerminalWidget::updateScrollBar);
    updateScrollBar();
}

TerminalWidget::~TerminalWidget() = default;

int TerminalWidget::scrollOffset() const
{
    return verticalScrollBar()->maximum() - verticalScrollBar()->value();
}

void TerminalWidget::updateScrollBar()
{
    QScrollBar *bar = verticalScrollBar();
    const bool atBottom = bar->value() == bar->maximum();
    const int history = m_screen->altScreen() ? 0 : m_screen->scrollbackSize();
    bar->setRange(0, history);
    bar->setPageStep(m_screen->rows());
    if (atBottom)
        bar->setValue(bar->maximum());
}

void TerminalWidget::scrollContentsBy(int, int)
{
    viewport()->update();
}

void TerminalWidget::updateGeometryOfScreen()
{
    const int cols = std::max(2, viewport()->width() / m_cell.width());
    const int rows = std::max(1, viewport()->height() / m_cell.height());
    if (rows == m_screen->rows() && cols == m_screen->cols())
        return;
    m_screen->resize(rows, cols);
    updateScrollBar();
    Q_EMIT sizeChanged(rows, cols);
}

void TerminalWidget::resizeEvent(QResizeEvent *event)
{
    QAbstractScrollArea::resizeEvent(event);
    updateGeometryOfScreen();
}

QPoint TerminalWidget::cellAt(const QPoint &pos) const
{
    const int col = std::clamp(pos.x() / m_cell.width(), 0, m_screen->cols() - 1);
    const int row = std::clamp(pos.y() / m_cell.height(), 0, m_screen->rows() - 1);
    // Absolute line: scrollback lines first, then the screen.
    const int firstShown = m_screen->scrollbackSize() - scrollOffset();
    return QPoint(col, firstShown + row);
}

bool TerminalWidget::isSelected(int line, int col) const
{
    if (m_selStart.x() < 0 || m_selStart == m_selEnd)
        return false;
    QPoint a = m_selStart, b = m_selEnd;
    if (std::make_pair(b.y(), b.x()) < std::make_pair(a.y(), a.x()))
        std::swap(a, b);
    const auto here = std::make_pair(line, col);
    return here >= std::make_pair(a.y(), a.x()) && here < std::make_pair(b.y(), b.x());
}

void TerminalWidget::paintEvent(QPaintEvent *event)
{
    QPainter p(viewport());
    p.setFont(font());
    p.fillRect(event->rect(), m_screen->defaultBackground());
    const int history = m_screen->scrollbackSize();
    const int offset = scrollOffset();
    const int rows = m_screen->rows();
    const int cols = m_screen->cols();
    const int firstRow = std::max(0, event->rect().top() / m_cell.height());
    const int lastRow = std::min(rows - 1, event->rect().bottom() / m_cell.height());
    QFont bold = font();
    bold.setBold(true);
    for (int row = firstRow; row <= lastRow; ++row) {
        const int line = history - offset + row; // absolute
        const int y = row * m_cell.height();
        for (int col = 0; col < cols; ++col) {
            TerminalScreen::Cell cell;
            if (line < history) {
                const TerminalScreen::Line &l = m_screen->scrollbackLine(line);
                if (size_t(col) < l.size())
                    cell = l[size_t(col)];
                else
                    cell.bg = m_screen->defaultBackground();
            } else {
                cell = m_screen->cell(line - history, col);
            }
            QColor fg = cell.fg.isValid() ? cell.fg : m_screen->defaultForeground();
            QColor bg = cell.bg.isValid() ? cell.bg : m_screen->defaultBackground();
            if (isSelected(line, col))
                std::swap(fg, bg);
            const int w = std::max(1, cell.width) * m_cell.width();
            const QRect r(col * m_cell.width(), y, w, m_cell.height());
            if (bg != m_screen->defaultBackground())
                p.fillRect(r, bg);
            if (!cell.text.isEmpty() && cell.text != QLatin1String(" ")) {
                p.setFont(cell.bold ? bold : font());
                p.setPen(fg);
                p.drawText(r.x(), y + m_ascent, cell.text);
                if (cell.underline)
                    p.drawLine(r.x(), y + m_ascent + 1, r.right(), y + m_ascent + 1);
            }
            col += std::max(0, cell.width - 1);
        }
    }
    // The cursor: a block when focused, an outline when not.
    if (offset == 0 && m_screen->cursorVisible()) {
        const QPoint c = m_screen->cursor();
        const QRect r(c.x() * m_cell.width(), c.y() * m_cell.height(), m_cell.width(),
                      m_cell.height());
        if (hasFocus()) {
            p.fillRect(r, m_screen->defaultForeground());
            const TerminalScreen::Cell under = m_screen->cell(c.y(), c.x());
            if (!under.text.isEmpty()) {
                p.setPen(m_screen->defaultBackground());
                p.drawText(r.x(), r.y() + m_ascent, under.text);
            }
        } else {
            p.setPen(m_screen->defaultForeground());
            p.drawRect(r.adjusted(0, 0, -1, -1));
        }
    }
}

void TerminalWidget::keyPressEvent(QKeyEvent *event)
{
    const Qt::KeyboardModifiers mods = event->modifiers();
    const bool ctrlShift = (mods & Qt::ControlModifier) && (mods & Qt::ShiftModifier);
    if (ctrlShift && event->key() == Qt::Key_C) {
        copySelection();
        return;
    }
    if ((ctrlShift && event->key() == Qt::Key_V) ||
        (mods & Qt::ShiftModifier && event->key() == Qt::Key_Insert)) {
        pasteClipboard();
        return;
    }
    if (mods & Qt::ShiftModifier &&
        (event->key() == Qt::Key_PageUp || event->key() == Qt::Key_PageDown)) {
        QScrollBar *bar = verticalScrollBar();
        bar->setValue(bar->value() + (event->key() == Qt::Key_PageUp ? -1 : 1) * bar->pageStep());
        return;
    }
    // Typing brings the live screen back.
    verticalScrollBar()->setValue(verticalScrollBar()->maximum());
    m_selStart = m_selEnd = QPoint(-1, -1);
    if (m_screen->sendKey(event->key(), mods))
        return;
    if (mods & Qt::ControlModifier && event->key() >= Qt::Key_A && event->key() <= Qt::Key_Z) {
        m_screen->sendText(QString(QChar(u'a' + (event->key() - Qt::Key_A))), mods);
        return;
    }
    if (!event->text().isEmpty())
        m_screen->sendText(event->text(), mods & ~Qt::ShiftModifier);
}

bool TerminalWidget::focusNextPrevChild(bool)
{
    return false; // Tab belongs to the shell
}

void TerminalWidget::mousePressEvent(QMouseEvent *event)
{
    if (event->button() == Qt::LeftButton) {
        m_selecting = true;
        m_selStart = m_selEnd = cellAt(event->position().toPoint());
        viewport()->update();
    } else if (event->button() == Qt::MiddleButton) {
        const QString text = QApplication::clipboard()->text(QClipboard::Selection);
        if (!text.isEmpty())
            m_screen->paste(text);
    }
}

void TerminalWidget::mouseMoveEvent(QMouseEvent *event)
{
    if (!m_selecting)
        return;
    m_selEnd = cellAt(event->position().toPoint());
    m_selEnd.rx() += 1;
    viewport()->update();
}

void TerminalWidget::mouseReleaseEvent(QMouseEvent *event)
{
    if (event->button() != Qt::LeftButton)
        return;
    m_selecting = false;
    const QString text = selectedText();
    if (!text.isEmpty() && QApplication::clipboard()->supportsSelection())
        QApplication::clipboard()->setText(text, QClipboard::Selection);
}

QString TerminalWidget::selectedText() const
{
    if (m_selStart.x() < 0 || m_selStart == m_selEnd)
        return {};
    QPoint a = m_selStart, b = m_selEnd;
    if (std::make_pair(b.y(), b.x()) < std::make_pair(a.y(), a.x()))
        std::swap(a, b);
    const int history = m_screen->scrollbackSize();
    QStringList lines;
    for (int line = a.y(); line <= b.y(); ++line) {
        const QString text =
            line < history ? m_screen->scrollbackText(line) : m_screen->lineText(line - history);
        const int from = line == a.y() ? a.x() : 0;
        const int to = line == b.y() ? b.x() : int(text.size());
        lines.append(text.mid(from, std::max(0, to - from)));
    }
    return lines.join(u'\n');
}

void TerminalWidget::copySelection()
{
    const QString text = selectedText();
    if (!text.isEmpty())
        QApplication::clipboard()->setText(text);
}

void TerminalWidget::pasteClipboard()
{
    const QString text = QApplication::clipboard()->text();
    if (!text.isEmpty())
        m_screen->paste(text);
}

} // namespace ClusterDeck::Ui
