#pragma once

#include <QByteArray>
#include <QColor>
#include <QList>
#include <QObject>
#include <QPoint>
#include <QRect>
#include <QString>

#include <deque>
#include <vector>

struct VTerm;
struct VTermScreen;

namespace ClusterDeck::Ui {

// One terminal's state, kept by libvterm (parsing, modes, the alternate screen): what the
// process wrote goes in through feed(), keys go out through the `output` signal, and the cells,
// cursor and scrollback are read back for painting (TerminalWidget) or for tests.
class TerminalScreen : public QObject
{
    Q_OBJECT

public:
    struct Cell
    {
        QString text; // the grapheme; empty for the right half of a wide character
        QColor fg;
        QColor bg;
        bool bold = false;
        bool italic = false;
        bool underline = false;
        bool reverse = false;
        int width = 1;
    };
    using Line = std::vector<Cell>;

    explicit TerminalScreen(int rows = 24, int cols = 80, QObject *parent = nullptr);
    ~TerminalScreen() override;

    void feed(const QByteArray &bytes);
    void resize(int rows, int cols);
    int rows() const { return m_rows; }
    int cols() const { return m_cols; }

    // Keyboard input, encoded by libvterm for the current modes (cursor keys, keypad…).
    void sendText(const QString &text, Qt::KeyboardModifiers modifiers = {});
    // Returns false for a key libvterm does not know (then the caller may send text).
    bool sendKey(int qtKey, Qt::KeyboardModifiers modifiers);
    void paste(const QString &text);

    Cell cell(int row, int col) const;
    QString lineText(int row) const;           // trailing blanks trimmed
    QString screenText() const;                // every row, '\n' joined
    QPoint cursor() const { return m_cursor; } // x = column, y = row
    bool cursorVisible() const { return m_cursorVisible; }
    bool altScreen() const { return m_altScreen; }
    QString title() const { return m_title; }

    int scrollbackSize() const { return int(m_scrollback.size()); }
    // 0 = the oldest line kept.
    const Line &scrollbackLine(int index) const { return m_scrollback.at(size_t(index)); }
    QString scrollbackText(int index) const;
    void setScrollbackLimit(int lines) { m_scrollbackLimit = lines; }

    QColor defaultForeground() const { return m_defaultFg; }
    QColor defaultBackground() const { return m_defaultBg; }

Q_SIGNALS:
    void output(const QByteArray &bytes); // to the process
    void damaged(const QRect &cells);     // x = col, y = row
    void cursorMoved();
    void titleChanged(const QString &title);
    void scrollbackChanged();
    void bell();

private:
    friend struct TerminalScreenCallbacks; // libvterm's C callbacks, in the .cpp
    Cell convert(const void *vtermCell) const;

    VTerm *m_vt = nullptr;
    VTermScreen *m_screen = nullptr;
    int m_rows;
    int m_cols;
    QPoint m_cursor;
    bool m_cursorVisible = true;
    bool m_altScreen = false;
    QString m_title;
    std::deque<Line> m_scrollback;
    int m_scrollbackLimit = 5000;
    QColor m_defaultFg{0xdc, 0xdc, 0xdc};
    QColor m_defaultBg{0x1e, 0x1e, 0x1e};
};

} // namespace ClusterDeck::Ui
