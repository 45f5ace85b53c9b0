#pragma once

#include <QObject>
#include <QString>

#include <functional>

class QWidget;

namespace ClusterDeck::Ui {

class ConsoleController;

// First start: when the store holds no host and the local Docker socket exists, offers to register
// it (as host "local"), once; a "no" is remembered so the console does not ask on every start.
class LocalDockerOffer : public QObject
{
    Q_OBJECT

public:
    static constexpr const char *kSettingsKey = "hosts/offeredLocalDocker";

    LocalDockerOffer(ConsoleController *controller, QWidget *dialogParent);

    // Where the local daemon listens (default /var/run/docker.sock; tests point it elsewhere).
    void setSocketPath(const QString &path) { m_socketPath = path; }
    QString socketPath() const { return m_socketPath; }
    // Asked with the socket path; true registers it (tests answer here).
    using Ask = std::function<bool(const QString &socketPath)>;
    void setAsk(Ask ask) { m_ask = std::move(ask); }

    // Registers the local daemon as host "local" without asking (the sessions view's first-run
    // button); `finished` reports the outcome.
    void addNow();

Q_SIGNALS:
    // After the offer was decided: whether it was asked, and what registering gave.
    void finished(bool asked, bool added, const QString &error);

private:
    void check();

    ConsoleController *m_controller;
    QWidget *m_dialogParent;
    QString m_socketPath = QStringLiteral("/var/run/docker.sock");
    Ask m_ask;
    bool m_done = false;
};

} // namespace ClusterDeck::Ui
