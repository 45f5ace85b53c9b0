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
{
    m_drainTimer->setInterval(100);
    connect(m_drainTimer, &QTimer::timeout, this, &LogFollower::drain);
}

LogFollower::~LogFollower()
{
    stop();
    if (m_thread) {
        m_thread->wait(5000);
        if (m_thread->isRunning()) {
            // A daemon that ignores the cancel: let the thread end on its own, unowned.
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
    const Http::CancelToken cancel = m_cancel;
    m_thread = QThread::create([this, controller, sessionId, hostname, follow, cancel] {
        auto sink = [this](const QString &host, const QByteArray &line, bool) {
            QMutexLocker lock(&m_mutex);
            m_buffer.append(host + QStringLiteral(" | ") + QString::fromUtf8(line));
        };
        auto result = controller->logs(sessionId, hostname, follow, sink, cancel);
        QMutexLocker lock(&m_mutex);
        if (!result && !cancel.isCancelled())
            m_error = result.error().toString();
        m_done = true;
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
    QMutexLocker lock(&m_mutex);
    return m_thread && !m_done;
}

void LogFollower::drain()
{
    QStringList batch;
    bool done = false;
    QString error;
    {
        QMutexLocker lock(&m_mutex);
        batch.swap(m_buffer);
        done = m_done;
        error = m_error;
    }
    if (!batch.isEmpty())
        Q_EMIT lines(batch);
    if (done) {
        m_drainTimer->stop();
        Q_EMIT finished(error);
    }
}

} // namespace ClusterDeck::Ui
