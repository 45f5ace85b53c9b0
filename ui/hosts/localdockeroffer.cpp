#include "localdockeroffer.h"

#include "console/consolecontroller.h"
#include "docker/dockerendpoint.h"
#include "host/dockercontexts.h"
#include "host/hostregistry.h"

#include <QFileInfo>
#include <QMessageBox>
#include <QPointer>
#include <QSettings>

namespace ClusterDeck::Ui {

LocalDockerOffer::LocalDockerOffer(ConsoleController *controller, QWidget *dialogParent)
    : QObject(controller)
    , m_controller(controller)
    , m_dialogParent(dialogParent)
{
    m_ask = [this](const QString &description) {
        return QMessageBox::question(
                   m_dialogParent, tr("Add the Docker Host?"),
                   tr("No Docker host is registered yet. The docker CLI on this machine talks to "
                      "%1.\n\nRegister it so you can launch sessions there?")
                       .arg(description),
                   QMessageBox::Yes | QMessageBox::No, QMessageBox::Yes) == QMessageBox::Yes;
    };
    // The first host list after the store opened decides; later ones are the admin's doing.
    connect(controller, &ConsoleController::hostsChanged, this, &LocalDockerOffer::check);
}

std::optional<LocalDockerOffer::Candidate> LocalDockerOffer::candidate() const
{
    if (!m_env.value(QStringLiteral("DOCKER_HOST")).isEmpty()) {
        auto endpoint = Docker::DockerEndpoint::fromEnvironment(m_env);
        if (endpoint) {
            Candidate c;
            c.from = QStringLiteral("DOCKER_HOST");
            c.host.endpoint = endpoint->url();
            c.host.name = endpoint->kind() == Docker::DockerEndpoint::Kind::Unix
                              ? QStringLiteral("local")
                              : QStringLiteral("docker-host");
            c.host.tlsCa = endpoint->tls().caFile;
            c.host.tlsCert = endpoint->tls().certFile;
            c.host.tlsKey = endpoint->tls().keyFile;
            return c;
        }
    }
    const QString configDir = DockerContexts::configDir(m_env);
    const QString current = DockerContexts::current(configDir, m_env);
    if (current != QLatin1String("default")) {
        if (auto context = DockerContexts::find(configDir, current)) {
            const QString name =
                HostRegistry::validateName(current) ? current : QStringLiteral("local");
            if (auto record = DockerContexts::hostRecord(*context, name))
                return Candidate{*record, QStringLiteral("docker context %1").arg(current)};
        }
    }
    if (!QFileInfo::exists(m_socketPath))
        return std::nullopt;
    Candidate c;
    c.from = QStringLiteral("the local socket");
    c.host.name = QStringLiteral("local");
    c.host.endpoint = QStringLiteral("unix://") + QFileInfo(m_socketPath).absoluteFilePath();
    return c;
}

void LocalDockerOffer::check()
{
    if (m_done)
        return;
    m_done = true;
    disconnect(m_controller, &ConsoleController::hostsChanged, this, &LocalDockerOffer::check);
    QSettings settings;
    // The environment and the docker CLI's files are read only when there is something to offer.
    const bool nothingToDo = !m_controller->hosts().isEmpty() || !m_controller->registry() ||
                             settings.value(QLatin1String(kSettingsKey)).toBool();
    const auto offered = nothingToDo ? std::nullopt : candidate();
    if (!offered) {
        Q_EMIT finished(false, false, QString());
        return;
    }
    settings.setValue(QLatin1String(kSettingsKey), true);
    if (!m_ask(QStringLiteral("%1 (from %2)").arg(offered->host.endpoint, offered->from))) {
        Q_EMIT finished(true, false, QString());
        return;
    }
    add(offered->host);
}

void LocalDockerOffer::addNow()
{
    if (const auto offered = candidate()) {
        add(offered->host);
        return;
    }
    HostRecord record;
    record.name = QStringLiteral("local");
    record.endpoint = QStringLiteral("unix://") + QFileInfo(m_socketPath).absoluteFilePath();
    add(record);
}

void LocalDockerOffer::add(const HostRecord &record)
{
    m_done = true;
    HostRegistry *registry = m_controller->registry();
    if (!registry) {
        Q_EMIT finished(false, false, tr("no store is open"));
        return;
    }
    QPointer<LocalDockerOffer> self(this);
    m_controller->runInBackground(
        [registry, record] { return registry->add(record); },
        [self](const Result<HostRecord> &added) {
            if (!self)
                return;
            if (!added) {
                QMessageBox::warning(self->m_dialogParent, tr("Cannot Add the Docker Host"),
                                     added.error().toString());
                Q_EMIT self->finished(true, false, added.error().toString());
                return;
            }
            self->m_controller->refresh();
            self->m_controller->refreshHosts();
            Q_EMIT self->finished(true, true, QString());
        });
}

} // namespace ClusterDeck::Ui
