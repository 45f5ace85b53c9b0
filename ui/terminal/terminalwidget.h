#pragma once

#include <QAbstractScrollArea>
#include <QPoint>

namespace ClusterDeck::Ui {

class TerminalScreen;

// Paints a TerminalScreen (libvterm) with the system's fixed font and turns keys, paste and
// resizes into input for it: colours, cursor, the alternate screen, scrollback (wheel or
// Shift+PageUp/PageDown), selection with the mouse, Ctrl+Shift+C / Ctrl+Shift+V.
class TerminalWidget : public QAbstractScrollArea
{
    Q_OBJECT

public:
    explicit TerminalWidget(QWidget *parent = nullptr);
    ~TerminalWidget() override;

    TerminalScreen *screen() const { return m_screen; }
    QSize cellSize() const { return m_cell; }
    QString selectedText() const;
    void copySelection();
    void pasteClipboard();
    // Lines scrolled back into the history (0: the live screen).
    int scrollOffset() const;

Q_SIGNALS:
    void sizeChanged(int rows, int cols);

protected:
    void paintEvent(QPaintEvent *event) override;
    void resizeEvent(QResizeEvent *event) override;
    void keyPressEvent(QKeyEvent *event) override;
    void mousePressEvent(QMouseEvent *event) override;
    void mouseMoveEvent(QMouseEvent *event) override;
    void mouseReleaseEvent(QMouseEvent *event) override;
    bool focusNextPrevChild(bool next) override;
    void scrollContentsBy(int dx, int dy) override;

private:
    void updateGeometryOfScreen();
    void updateScrollBar();
    QPoint cellAt(const QPoint &pos) const; // (col, absolute line incl. scrollback)
    bool isSelected(int line, int col) const;

    TerminalScreen *m_screen;
    QSize m_cell;
    int m_ascent = 0;
    bool m_selecting = false;
    QPoint m_selStart{-1, -1};
    QPoint m_selEnd{-1, -1};
};

} // namespace ClusterDeck::Ui
