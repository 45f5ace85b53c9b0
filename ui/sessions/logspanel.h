#pragma once

#include <QPointer>
#include <QWidget>

class QCheckBox;
class QLabel;
class QPlainTextEdit;
class QToolButton;

namespace ClusterDeck {
class SessionController;
}

namespace ClusterDeck::Ui {

class LogFollower;

// The logs of the selected kernel or of a whole session, each line prefixed by its kernel's
// hostname, following as they come.
class LogsPanel : public QWidget
{
    Q_OBJECT

public:
    explicit LogsPanel(QWidget *parent = nullptr);
    ~LogsPanel() override;

    void setController(SessionController *controller) { m_controller = controller; }
    // hostname empty: every kernel of the session.
    void showLogs(const QString &sessionId, const QString &hostname, const QString &title);
    void stop();
    QString text() const;
    bool isFollowing() const;
    // "Own Window": asks the view to show the panel in a window of its own.
    QToolButton *detachButton() const { return m_detach; }

Q_SIGNALS:
    void detachRequested();

private:
    void restart();
    void appendLines(const QStringList &lines);

    SessionController *m_controller = nullptr;
    QLabel *m_title = nullptr;
    QCheckBox *m_follow = nullptr;
    QToolButton *m_stop = nullptr;
    QToolButton *m_clear = nullptr;
    QToolButton *m_detach = nullptr;
    QPlainTextEdit *m_text = nullptr;
    QPointer<LogFollower> m_follower;
    QString m_sessionId;
    QString m_hostname;
};

} // namespace ClusterDeck::Ui
