#include "localdockeroffer.h"

#include "console/consolecontroller.h"
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
    m_ask = [this](const QString &socketPath) {
        return QMessageBox::question(
                   m_dialogParent, tr("Add the Local Docker Host?"),
                   tr("No Docker host is registered yet. A Docker daemon listens on this machine "
                      "(%1).\n\nRegister it as host “local” so you can launch sessions here?")
                       .arg(socketPath),
                   QMessageBox::Yes | QMessageBox::No, QMessageBox::Yes) == QMessageBox::Yes;
    };
    // The first host list after the store opened decides; later ones are the admin's doing.
    connect(controller, &ConsoleController::hostsChanged, this, &LocalDockerOffer::check);
}

void LocalDockerOffer::check()
{
    if (m_done)
        return;
    m_done = true;
    disconnect(m_controller, &ConsoleController::hostsChanged, this, &LocalDockerOffer::check);
    QSettings settings;
    const QFileInfo socket(m_socketPath);
    if (!m_controller->hosts().isEmpty() || !m_controller->registry() || !socket.exists() ||
        settings.value(QLatin1String(kSettingsKey)).toBool()) {
        Q_EMIT finished(false, false, QString());
        return;
    }
    settings.setValue(QLatin1String(kSettingsKey), true);
    if (!m_ask(m_socketPath)) {
        Q_EMIT finished(true, false, QString());
        return;
    }
    addNow();
}

void LocalDockerOffer::addNow()
{
    m_done = true;
    const QFileInfo socket(m_socketPath);
    HostRegistry *registry = m_controller->registry();
    if (!registry) {
        Q_EMIT finished(false, false, tr("no store is open"));
        return;
    }
    HostRecord record;
    record.name = QStringLiteral("local");
    record.endpoint = QStringLiteral("unix://") + socket.absoluteFilePath();
    QPointer<LocalDockerOffer> self(this);
    m_controller->runInBackground(
        [registry, record] { return registry->add(record); },
        [self](const Result<HostRecord> &added) {
            if (!self)
                return;
            if (!added) {
                QMessageBox::warning(self->m_dialogParent, tr("Cannot Add the Local Docker Host"),
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
