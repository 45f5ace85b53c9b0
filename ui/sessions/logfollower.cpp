#include "logfollower.h"

#include "provision/sessioncontroller.h"

#include <QThread>
#include <QTimer>

namespace ClusterDeck::Ui {

LogFollower::LogFollower(SessionController *controller, const QString &sessionId,
                         const QString &hostname, bool follow, QObject *parent)
    : QObject(parent)
    , m_controller(controller)
    , m_sessionId(sessionId)
    , m_hostname(hostname)
    , m_follow(follow)
    , m_drainTimer(new QTimer(this))
    , m_shared(std::make_shared<Shared>())
{
    m_drainTimer->setInterval(100);
    connect(m_drainTimer, &QTimer::timeout, this, &LogFollower::drain);
}

LogFollower::~LogFollower()
{
    stop();
    if (m_thread) {
        // The controller (and its store) belong to the caller and outlive this object, not
        // necessarily the thread: wait for it. A cancelled transfer ends at curl's next progress
        // check; the wait is bounded only so that a wedged daemon cannot freeze the GUI.
        m_thread->wait(10000);
        if (m_thread->isRunning()) {
            // Left to end on its own, unowned: it holds only the shared state.
            QObject::connect(m_thread, &QThread::finished, m_thread, &QObject::deleteLater);
            m_thread->setParent(nullptr);
        } else {
            delete m_thread;
        }
    }
}

void LogFollower::start()
{
    if (m_thread || !m_controller)
        return;
    SessionController *controller = m_controller;
    const QString sessionId = m_sessionId;
    const QString hostname = m_hostname;
    const bool follow = m_follow;
    const CancelToken cancel = m_cancel;
    const std::shared_ptr<Shared> shared = m_shared;
    m_thread = QThread::create([shared, controller, sessionId, hostname, follow, cancel] {
        auto sink = [&shared](const QString &host, const QByteArray &line, bool) {
            QMutexLocker lock(&shared->mutex);
            shared->buffer.append(host + QStringLiteral(" | ") + QString::fromUtf8(line));
        };
        auto result = controller->logs(sessionId, hostname, follow, sink, cancel);
        QMutexLocker lock(&shared->mutex);
        if (!result && !cancel.isCancelled())
            shared->error = result.error().toString();
        shared->done = true;
    });
    m_thread->setObjectName(QStringLiteral("LogFollower"));
    m_thread->start();
    m_drainTimer->start();
}

void LogFollower::stop()
{
    m_cancel.cancel();
}

bool LogFollower::isRunning() const
{
    QMutexLocker lock(&m_shared->mutex);
    return m_thread && !m_shared->done;
}

void LogFollower::drain()
{
    QStringList batch;
    bool done = false;
    QString error;
    {
        QMutexLocker lock(&m_shared->mutex);
        batch.swap(m_shared->buffer);
        done = m_shared->done;
        error = m_shared->error;
    }
    if (!batch.isEmpty())
        Q_EMIT lines(batch);
    if (done) {
        m_drainTimer->stop();
        Q_EMIT finished(error);
    }
}

} // namespace ClusterDeck::Ui
