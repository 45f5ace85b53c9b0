#include "terminalscreen.h"

#include <vterm.h>

namespace ClusterDeck::Ui {

namespace {

VTermModifier modifiersOf(Qt::KeyboardModifiers m)
{
    int mod = VTERM_MOD_NONE;
    if (m & Qt::ShiftModifier)
        mod |= VTERM_MOD_SHIFT;
    if (m & Qt::AltModifier)
        mod |= VTERM_MOD_ALT;
    if (m & Qt::ControlModifier)
        mod |= VTERM_MOD_CTRL;
    return VTermModifier(mod);
}

} // namespace

struct TerminalScreenCallbacks
{
    static TerminalScreen *self(void *user) { return static_cast<TerminalScreen *>(user); }

    static int damage(VTermRect r, void *user)
    {
        Q_EMIT self(user)->damaged(
            QRect(r.start_col, r.start_row, r.end_col - r.start_col, r.end_row - r.start_row));
        return 1;
    }
    static int moveCursor(VTermPos pos, VTermPos, int visible, void *user)
    {
        TerminalScreen *t = self(user);
        t->m_cursor = QPoint(pos.col, pos.row);
        t->m_cursorVisible = visible;
        Q_EMIT t->cursorMoved();
        return 1;
    }
    static int termProp(VTermProp prop, VTermValue *value, void *user)
    {
        TerminalScreen *t = self(user);
        switch (prop) {
        case VTERM_PROP_CURSORVISIBLE:
            t->m_cursorVisible = value->boolean;
            Q_EMIT t->cursorMoved();
            break;
        case VTERM_PROP_ALTSCREEN:
            t->m_altScreen = value->boolean;
            break;
        case VTERM_PROP_TITLE:
            t->m_title = QString::fromUtf8(value->string);
            Q_EMIT t->titleChanged(t->m_title);
            break;
        default:
            break;
        }
        return 1;
    }
    static int bell(void *user)
    {
        Q_EMIT self(user)->bell();
        return 1;
    }
    static int pushLine(int cols, const VTermScreenCell *cells, void *user)
    {
        TerminalScreen *t = self(user);
        TerminalScreen::Line line;
        line.reserve(size_t(cols));
        for (int c = 0; c < cols; ++c)
            line.push_back(t->convert(&cells[c]));
        t->m_scrollback.push_back(std::move(line));
        while (int(t->m_scrollback.size()) > t->m_scrollbackLimit)
            t->m_scrollback.pop_front();
        Q_EMIT t->scrollbackChanged();
        return 1;
    }
    static int popLine(int cols, VTermScreenCell *cells, void *user)
    {
        // The window grew taller: the newest scrollback line comes back onto the screen.
        TerminalScreen *t = self(user);
        if (t->m_scrollback.empty())
            return 0;
        const TerminalScreen::Line line = std::move(t->m_scrollback.back());
        t->m_scrollback.pop_back();
        for (int c = 0; c < cols; ++c) {
            VTermScreenCell &cell = cells[c];
            cell = VTermScreenCell{};
            cell.width = 1;
            vterm_color_indexed(&cell.fg, 7);
            cell.fg.type = VTermColorType(cell.fg.type | VTERM_COLOR_DEFAULT_FG);
            vterm_color_indexed(&cell.bg, 0);
            cell.bg.type = VTermColorType(cell.bg.type | VTERM_COLOR_DEFAULT_BG);
            if (size_t(c) < line.size() && !line[size_t(c)].text.isEmpty()) {
                const QList<uint> ucs = line[size_t(c)].text.toUcs4();
                for (int i = 0; i < ucs.size() && i < VTERM_MAX_CHARS_PER_CELL; ++i)
                    cell.chars[i] = ucs.at(i);
            }
        }
        Q_EMIT t->scrollbackChanged();
        return 1;
    }
    static void output(const char *s, size_t len, void *user)
    {
        Q_EMIT self(user)->output(QByteArray(s, qsizetype(len)));
    }
};

namespace {
const VTermScreenCallbacks kCallbacks = {
    &TerminalScreenCallbacks::damage,     nullptr,
    &TerminalScreenCallbacks::moveCursor, &TerminalScreenCallbacks::termProp,
    &TerminalScreenCallbacks::bell,       nullptr,
    &TerminalScreenCallbacks::pushLine,   &TerminalScreenCallbacks::popLine,
};
} // namespace

TerminalScreen::TerminalScreen(int rows, int cols, QObject *parent)
    : QObject(parent)
    , m_rows(std::max(1, rows))
    , m_cols(std::max(1, cols))
{
    m_vt = vterm_new(m_rows, m_cols);
    vterm_set_utf8(m_vt, 1);
    vterm_output_set_callback(m_vt, &TerminalScreenCallbacks::output, this);
    m_screen = vterm_obtain_screen(m_vt);
    vterm_screen_set_callbacks(m_screen, &kCallbacks, this);
    vterm_screen_set_damage_merge(m_screen, VTERM_DAMAGE_SCROLL);
    vterm_screen_enable_altscreen(m_screen, 1);
    VTermColor fg, bg;
    vterm_color_rgb(&fg, uint8_t(m_defaultFg.red()), uint8_t(m_defaultFg.green()),
                    uint8_t(m_defaultFg.blue()));
    vterm_color_rgb(&bg, uint8_t(m_defaultBg.red()), uint8_t(m_defaultBg.green()),
                    uint8_t(m_defaultBg.blue()));
    vterm_state_set_default_colors(vterm_obtain_state(m_vt), &fg, &bg);
    vterm_screen_reset(m_screen, 1);
}

TerminalScreen::~TerminalScreen()
{
    vterm_free(m_vt);
}

void TerminalScreen::feed(const QByteArray &bytes)
{
    vterm_input_write(m_vt, bytes.constData(), size_t(bytes.size()));
    vterm_screen_flush_damage(m_screen);
}

void TerminalScreen::resize(int rows, int cols)
{
    rows = std::max(1, rows);
    cols = std::max(1, cols);
    if (rows == m_rows && cols == m_cols)
        return;
    m_rows = rows;
    m_cols = cols;
    vterm_set_size(m_vt, rows, cols);
    vterm_screen_flush_damage(m_screen);
}

void TerminalScreen::sendText(const QString &text, Qt::KeyboardModifiers modifiers)
{
    const VTermModifier mod = modifiersOf(modifiers);
    for (const uint c : text.toUcs4())
        vterm_keyboard_unichar(m_vt, c, mod);
}

bool TerminalScreen::sendKey(int qtKey, Qt::KeyboardModifiers modifiers)
{
    VTermKey key = VTERM_KEY_NONE;
    switch (qtKey) {
    case Qt::Key_Return:
    case Qt::Key_Enter:
        key = VTERM_KEY_ENTER;
        break;
    case Qt::Key_Tab:
        key = VTERM_KEY_TAB;
        break;
    case Qt::Key_Backspace:
        key = VTERM_KEY_BACKSPACE;
        break;
    case Qt::Key_Escape:
        key = VTERM_KEY_ESCAPE;
        break;
    case Qt::Key_Up:
        key = VTERM_KEY_UP;
        break;
    case Qt::Key_Down:
        key = VTERM_KEY_DOWN;
        break;
    case Qt::Key_Left:
        key = VTERM_KEY_LEFT;
        break;
    case Qt::Key_Right:
        key = VTERM_KEY_RIGHT;
        break;
    case Qt::Key_Insert:
        key = VTERM_KEY_INS;
        break;
    case Qt::Key_Delete:
        key = VTERM_KEY_DEL;
        break;
    case Qt::Key_Home:
        key = VTERM_KEY_HOME;
        break;
    case Qt::Key_End:
        key = VTERM_KEY_END;
        break;
    case Qt::Key_PageUp:
        key = VTERM_KEY_PAGEUP;
        break;
    case Qt::Key_PageDown:
        key = VTERM_KEY_PAGEDOWN;
        break;
    default:
        if (qtKey >= Qt::Key_F1 && qtKey <= Qt::Key_F12)
            key = VTermKey(VTERM_KEY_FUNCTION(qtKey - Qt::Key_F1 + 1));
        break;
    }
    if (key == VTERM_KEY_NONE)
        return false;
    vterm_keyboard_key(m_vt, key, modifiersOf(modifiers));
    return true;
}

void TerminalScreen::paste(const QString &text)
{
    vterm_keyboard_start_paste(m_vt);
    QString normalized = text;
    normalized.replace(QLatin1String("\r\n"), QLatin1String("\r")).replace(u'\n', u'\r');
    Q_EMIT output(normalized.toUtf8());
    vterm_keyboard_end_paste(m_vt);
}

TerminalScreen::Cell TerminalScreen::convert(const void *vtermCell) const
{
    VTermScreenCell c = *static_cast<const VTermScreenCell *>(vtermCell);
    Cell out;
    for (int i = 0; i < VTERM_MAX_CHARS_PER_CELL && c.chars[i]; ++i)
        out.text += QString::fromUcs4(reinterpret_cast<const char32_t *>(&c.chars[i]), 1);
    out.width = c.width;
    out.bold = c.attrs.bold;
    out.italic = c.attrs.italic;
    out.underline = c.attrs.underline != 0;
    out.reverse = c.attrs.reverse;
    const bool defaultFg = VTERM_COLOR_IS_DEFAULT_FG(&c.fg);
    const bool defaultBg = VTERM_COLOR_IS_DEFAULT_BG(&c.bg);
    vterm_screen_convert_color_to_rgb(m_screen, &c.fg);
    vterm_screen_convert_color_to_rgb(m_screen, &c.bg);
    out.fg = defaultFg ? m_defaultFg : QColor(c.fg.rgb.red, c.fg.rgb.green, c.fg.rgb.blue);
    out.bg = defaultBg ? m_defaultBg : QColor(c.bg.rgb.red, c.bg.rgb.green, c.bg.rgb.blue);
    if (out.reverse)
        std::swap(out.fg, out.bg);
    return out;
}

TerminalScreen::Cell TerminalScreen::cell(int row, int col) const
{
    VTermScreenCell c = {};
    vterm_screen_get_cell(m_screen, VTermPos{row, col}, &c);
    return convert(&c);
}

QString TerminalScreen::lineText(int row) const
{
    QString text;
    for (int col = 0; col < m_cols; ++col) {
        VTermScreenCell c = {};
        vterm_screen_get_cell(m_screen, VTermPos{row, col}, &c);
        if (!c.chars[0]) {
            text += u' ';
            continue;
        }
        for (int i = 0; i < VTERM_MAX_CHARS_PER_CELL && c.chars[i]; ++i)
            text += QString::fromUcs4(reinterpret_cast<const char32_t *>(&c.chars[i]), 1);
        col += std::max(0, c.width - 1);
    }
    while (text.endsWith(u' '))
        text.chop(1);
    return text;
}

QString TerminalScreen::screenText() const
{
    QStringList lines;
    for (int row = 0; row < m_rows; ++row)
        lines.append(lineText(row));
    return lines.join(u'\n');
}

QString TerminalScreen::scrollbackText(int index) const
{
    QString text;
    for (const Cell &c : m_scrollback.at(size_t(index)))
        text += c.text.isEmpty() && c.width > 0 ? QStringLiteral(" ") : c.text;
    while (text.endsWith(u' '))
        text.chop(1);
    return text;
}

} // namespace ClusterDeck::Ui
