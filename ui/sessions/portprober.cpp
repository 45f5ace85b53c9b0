#include "portprober.h"

#include <QLoggingCategory>
#include <QTcpSocket>
#include <QTimer>

Q_LOGGING_CATEGORY(lcPortProbe, "clusterdeck.ui.portprobe")

namespace ClusterDeck::Ui {

PortProber::PortProber(QObject *parent)
    : QObject(parent)
    , m_timer(new QTimer(this))
{
    m_timer->setInterval(15000);
    connect(m_timer, &QTimer::timeout, this, &PortProber::probeAll);
    m_timer->start();
}

PortProber::~PortProber()
{
    for (const QPointer<QTcpSocket> &socket : std::as_const(m_inFlight))
        if (socket)
            socket->abort();
}

QString PortProber::endpointKey(const QString &address, int port)
{
    return address + u':' + QString::number(port);
}

void PortProber::setEndpoints(const QSet<QString> &endpoints)
{
    QList<QString> fresh;
    for (const QString &e : endpoints)
        if (!m_states.contains(e))
            fresh.append(e);
    for (auto it = m_states.begin(); it != m_states.end();) {
        if (!endpoints.contains(it.key())) {
            if (QPointer<QTcpSocket> socket = m_inFlight.take(it.key()))
                socket->deleteLater();
            it = m_states.erase(it);
        } else {
            ++it;
        }
    }
    for (const QString &e : std::as_const(fresh)) {
        m_states.insert(e, State::Unknown);
        probe(e); // new ports get an answer at once, not at the next round
    }
}

QSet<QString> PortProber::endpoints() const
{
    const QList<QString> keys = m_states.keys();
    return QSet<QString>(keys.cbegin(), keys.cend());
}

PortProber::State PortProber::state(const QString &address, int port) const
{
    return state(endpointKey(address, port));
}

PortProber::State PortProber::state(const QString &endpoint) const
{
    return m_states.value(endpoint, State::Unknown);
}

void PortProber::setInterval(int msec)
{
    if (msec <= 0) {
        m_timer->stop();
        return;
    }
    m_timer->setInterval(msec);
    m_timer->start();
}

void PortProber::probeAll()
{
    const QList<QString> keys = m_states.keys();
    for (const QString &e : keys)
        probe(e);
}

void PortProber::probe(const QString &endpoint)
{
    if (m_inFlight.value(endpoint))
        return; // the previous probe is still waiting
    const qsizetype colon = endpoint.lastIndexOf(u':');
    const QString address = endpoint.left(colon);
    const int port = endpoint.mid(colon + 1).toInt();
    if (address.isEmpty() || port <= 0)
        return;
    auto *socket = new QTcpSocket(this);
    m_inFlight.insert(endpoint, socket);
    auto *timeout = new QTimer(socket);
    timeout->setSingleShot(true);
    connect(socket, &QTcpSocket::connected, this,
            [this, endpoint] { finish(endpoint, State::Open); });
    connect(socket, &QTcpSocket::errorOccurred, this, [this, endpoint, socket] {
        qCDebug(lcPortProbe) << endpoint << socket->errorString();
        finish(endpoint, State::Closed);
    });
    connect(timeout, &QTimer::timeout, this, [this, endpoint] { finish(endpoint, State::Closed); });
    timeout->start(m_timeoutMs);
    socket->connectToHost(address, quint16(port));
}

void PortProber::finish(const QString &endpoint, State state)
{
    if (QPointer<QTcpSocket> socket = m_inFlight.take(endpoint)) {
        socket->disconnect(this); // before abort(), which may report an error of its own
        socket->abort();
        socket->deleteLater();
    } else {
        return; // already finished (abort() also reports an error)
    }
    if (!m_states.contains(endpoint))
        return;
    const State before = m_states.value(endpoint);
    m_states.insert(endpoint, state);
    if (before != state)
        Q_EMIT stateChanged(endpoint, state);
}

} // namespace ClusterDeck::Ui
