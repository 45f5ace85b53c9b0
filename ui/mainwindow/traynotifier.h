#pragma once

#include "store/status.h"

#include <QHash>
#include <QObject>
#include <QPointer>
#include <QString>

#include <functional>
#include <optional>

class QModelIndex;
class QSystemTrayIcon;
class QWidget;

namespace ClusterDeck::Ui {

class SessionTreeModel;

// A tray icon (only where the desktop has a system tray) that tells the admin when a session fails
// or completes while the console's window is hidden or minimised; a click on it brings the window
// back. Watches the session tree's session rows: the status they show is the one announced.
class TrayNotifier : public QObject
{
    Q_OBJECT

public:
    struct Notice
    {
        QString title;
        QString message;
        bool failure = false;
    };

    TrayNotifier(SessionTreeModel *model, QWidget *window, QObject *parent = nullptr);
    ~TrayNotifier() override;

    // Pure: what to say when session `name` goes from `before` (unknown for a new row) to `after`;
    // nothing for every other change (a session the admin terminated is not news).
    static std::optional<Notice> noticeFor(const QString &name, std::optional<SessionStatus> before,
                                           SessionStatus after);
    // Hidden, minimised, or not shown at all: the admin cannot see the session tree.
    static bool isOutOfSight(const QWidget *window);

    QSystemTrayIcon *trayIcon() const { return m_tray; }
    // How a notice is shown: the tray icon's message by default (nothing without a tray). Tests
    // record notices instead.
    void setPresenter(std::function<void(const Notice &)> presenter)
    {
        m_presenter = std::move(presenter);
    }

private:
    void seedAll(bool announce);
    void check(const QModelIndex &sessionRow, bool announce);

    SessionTreeModel *m_model;
    QPointer<QWidget> m_window;
    QSystemTrayIcon *m_tray = nullptr;
    std::function<void(const Notice &)> m_presenter;
    QHash<QString, SessionStatus> m_known; // session id -> status last seen
    bool m_seeded = false;
};

} // namespace ClusterDeck::Ui
