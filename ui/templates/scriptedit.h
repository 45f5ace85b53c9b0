#pragma once

#include <QPlainTextEdit>

namespace ClusterDeck::Ui {

class ShellHighlighter;

// A shell script as the admin wrote it: monospace, no wrapping, line numbers in a gutter and
// shell highlighting. The text is the script itself, never a quoted or escaped form of it.
class ScriptEdit : public QPlainTextEdit
{
    Q_OBJECT

public:
    explicit ScriptEdit(QWidget *parent = nullptr);

    ShellHighlighter *highlighter() const { return m_highlighter; }
    QWidget *lineNumberArea() const { return m_gutter; }
    int lineNumberAreaWidth() const;
    // Paints the gutter; called by it.
    void paintLineNumbers(QPaintEvent *event);

protected:
    void resizeEvent(QResizeEvent *event) override;

private:
    void updateGutterWidth();
    void updateGutter(const QRect &rect, int dy);

    QWidget *m_gutter = nullptr;
    ShellHighlighter *m_highlighter = nullptr;
};

} // namespace ClusterDeck::Ui
