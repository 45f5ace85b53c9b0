#pragma once

#include "store/records.h"

#include <QObject>
#include <QProcessEnvironment>
#include <QString>

#include <optional>

#include <functional>

class QWidget;

namespace ClusterDeck::Ui {

class ConsoleController;

// First start: when the store holds no host, offers to register the daemon the docker CLI here
// talks to, once: DOCKER_HOST (with DOCKER_TLS_VERIFY/DOCKER_CERT_PATH), else the current docker
// context (DOCKER_CONTEXT or config.json's), else the local socket if it exists (as host "local");
// a "no" is remembered so the console does not ask on every start.
class LocalDockerOffer : public QObject
{
    Q_OBJECT

public:
    static constexpr const char *kSettingsKey = "hosts/offeredLocalDocker";

    LocalDockerOffer(ConsoleController *controller, QWidget *dialogParent);

    // Where the local daemon listens (default /var/run/docker.sock; tests point it elsewhere).
    void setSocketPath(const QString &path) { m_socketPath = path; }
    QString socketPath() const { return m_socketPath; }
    // The environment DOCKER_HOST, DOCKER_CONTEXT and DOCKER_CONFIG are read from (default: this
    // process's; tests give their own).
    void setEnvironment(const QProcessEnvironment &env) { m_env = env; }

    // What would be offered: the host record and where it comes from ("DOCKER_HOST", "docker
    // context gpu3", "the local socket"); nullopt when there is nothing to offer.
    struct Candidate
    {
        HostRecord host;
        QString from;
    };
    std::optional<Candidate> candidate() const;

    // Asked with "ENDPOINT (from WHERE)"; true registers it (tests answer here).
    using Ask = std::function<bool(const QString &description)>;
    void setAsk(Ask ask) { m_ask = std::move(ask); }

    // Registers the candidate (the local socket when there is none) without asking (the sessions
    // view's first-run button); `finished` reports the outcome.
    void addNow();

Q_SIGNALS:
    // After the offer was decided: whether it was asked, and what registering gave.
    void finished(bool asked, bool added, const QString &error);

private:
    void check();
    void add(const HostRecord &record);

    ConsoleController *m_controller;
    QWidget *m_dialogParent;
    QString m_socketPath = QStringLiteral("/var/run/docker.sock");
    QProcessEnvironment m_env = QProcessEnvironment::systemEnvironment();
    Ask m_ask;
    bool m_done = false;
};

} // namespace ClusterDeck::Ui
