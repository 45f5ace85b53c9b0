#pragma once

#include "http/httptypes.h"

#include <QMutex>
#include <QObject>
#include <QStringList>

#include <memory>

class QThread;
class QTimer;

namespace ClusterDeck {
class SessionController;
}

namespace ClusterDeck::Ui {

// Streams the logs of one kernel (or of every kernel of a session) on a thread of its own and
// hands them to the GUI thread in batches, each line prefixed by its kernel's hostname.
// Stopping cancels the stream; the object may be deleted at any time: the destructor cancels and
// waits for the thread (a cancelled stream ends within about a second), and the thread touches
// only state it shares with this object, never the object itself.
class LogFollower : public QObject
{
    Q_OBJECT

public:
    LogFollower(SessionController *controller, const QString &sessionId, const QString &hostname,
                bool follow, QObject *parent = nullptr);
    ~LogFollower() override;

    void start();
    void stop();
    bool isRunning() const;

Q_SIGNALS:
    void lines(const QStringList &lines); // "worker3 | text"
    void finished(const QString &error);  // empty when the stream just ended

private:
    void drain();

    // What the stream's thread and this object share: the thread holds it, never `this`, so
    // either may go first.
    struct Shared
    {
        QMutex mutex;
        QStringList buffer;
        QString error;
        bool done = false;
    };

    SessionController *m_controller;
    QString m_sessionId;
    QString m_hostname;
    bool m_follow;
    CancelToken m_cancel;
    QThread *m_thread = nullptr;
    QTimer *m_drainTimer = nullptr;
    std::shared_ptr<Shared> m_shared;
};

} // namespace ClusterDeck::Ui
