#pragma once

#include <QHash>
#include <QObject>
#include <QPointer>
#include <QSet>

class QTcpSocket;
class QTimer;

namespace ClusterDeck::Ui {

// Whether service ports answer right now: an asynchronous TCP connect to each watched
// address:port, repeated periodically. Never blocks: every probe is a QTcpSocket driven by the
// event loop with its own timeout.
class PortProber : public QObject
{
    Q_OBJECT

public:
    enum class State { Unknown, Probing, Open, Closed };
    Q_ENUM(State)

    explicit PortProber(QObject *parent = nullptr);
    ~PortProber() override;

    // The endpoints to watch ("address:port"); others are forgotten.
    void setEndpoints(const QSet<QString> &endpoints);
    QSet<QString> endpoints() const;
    State state(const QString &address, int port) const;
    State state(const QString &endpoint) const;

    // Period between rounds (0 = probe only when asked), and the connect timeout.
    void setInterval(int msec);
    void setTimeout(int msec) { m_timeoutMs = msec; }

    static QString endpointKey(const QString &address, int port);

public Q_SLOTS:
    void probeAll();

Q_SIGNALS:
    void stateChanged(const QString &endpoint, ClusterDeck::Ui::PortProber::State state);

private:
    void probe(const QString &endpoint);
    void finish(const QString &endpoint, State state);

    QHash<QString, State> m_states;
    QHash<QString, QPointer<QTcpSocket>> m_inFlight;
    QTimer *m_timer = nullptr;
    int m_timeoutMs = 2000;
};

} // namespace ClusterDeck::Ui
