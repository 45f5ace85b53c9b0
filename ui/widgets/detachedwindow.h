#pragma once

#include <QPointer>
#include <QWidget>

#include <functional>

class QToolButton;

namespace ClusterDeck::Ui {

// A part of a window (a dashboard, a logs panel, a terminal) shown in a window of its own, so
// that it can sit beside another. Closing the window, or its Dock Back button, hands the part
// back to where it came from; nothing in it is stopped or lost on the way. The window's
// geometry is kept per kind (QSettings "DetachedWindows/<kind>").
//
// The window is a child of `owner` (with Qt::Window), so it ends with the view that owns the
// part even while the part is away.
class DetachedWindow : public QWidget
{
    Q_OBJECT

public:
    using DockBack = std::function<void(QWidget *content)>;

    // `content` must already be out of its place (removed from its tab widget or splitter).
    DetachedWindow(QWidget *content, const QString &title, const QString &kind, DockBack dockBack,
                   QWidget *owner);
    ~DetachedWindow() override;

    QWidget *content() const { return m_content; }
    QString kind() const { return m_kind; }
    QToolButton *dockBackButton() const { return m_dockBackButton; }
    // The window that shows `content`, if it is detached.
    static DetachedWindow *of(const QWidget *content);

public Q_SLOTS:
    // Hands the part back and closes the window.
    void dockBack();

protected:
    void closeEvent(QCloseEvent *event) override;

private:
    void saveGeometrySetting() const;

    QPointer<QWidget> m_content;
    QString m_kind;
    DockBack m_dockBack;
    QToolButton *m_dockBackButton = nullptr;
    bool m_docked = false;
};

} // namespace ClusterDeck::Ui
