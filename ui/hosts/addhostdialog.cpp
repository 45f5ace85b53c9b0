#include "addhostdialog.h"
#include "common/bytesize.h"

#include "console/consolecontroller.h"
#include "docker/dockerendpoint.h"
#include "host/dockercontexts.h"
#include "host/hostinspector.h"
#include "host/hostregistry.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QFileDialog>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QPointer>
#include <QPushButton>
#include <QToolButton>

namespace ClusterDeck::Ui {

AddHostDialog::AddHostDialog(ConsoleController *controller, QWidget *parent)
    : QDialog(parent)
    , m_controller(controller)
    , m_context(new QComboBox)
    , m_name(new QLineEdit)
    , m_endpoint(new QLineEdit)
    , m_ca(new QLineEdit)
    , m_cert(new QLineEdit)
    , m_key(new QLineEdit)
    , m_address(new QLineEdit)
    , m_labels(new QLineEdit)
    , m_result(new QLabel)
    , m_test(new QPushButton(tr("&Test Connection")))
    , m_trust(new QPushButton(tr("Trust Host &Key…")))
    , m_buttons(new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel))
{
    setWindowTitle(tr("Add Docker Host"));
    setObjectName(QStringLiteral("addHostDialog"));
    m_name->setObjectName(QStringLiteral("hostName"));
    m_endpoint->setObjectName(QStringLiteral("hostEndpoint"));
    m_address->setObjectName(QStringLiteral("hostAddress"));
    m_endpoint->setPlaceholderText(
        tr("unix:///run/docker.sock, tcp+tls://host:2376 or ssh://user@host"));
    m_address->setPlaceholderText(tr("address browsers use for service ports (optional)"));
    m_labels->setPlaceholderText(tr("zone=a, gpu=true"));
    m_result->setWordWrap(true);
    m_result->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_result->setObjectName(QStringLiteral("testResult"));

    m_context->setObjectName(QStringLiteral("hostContext"));
    m_context->setToolTip(tr("Take the endpoint and TLS files of one of the docker CLI's contexts "
                             "(docker context ls); ClusterDeck only reads them"));
    m_context->setAccessibleDescription(m_context->toolTip());

    auto *form = new QFormLayout;
    form->addRow(tr("From Docker con&text:"), m_context);
    form->addRow(tr("&Name:"), m_name);
    form->addRow(tr("&Endpoint:"), m_endpoint);
    auto fileRow = [this, form](const QString &label, QLineEdit *edit) {
        auto *row = new QHBoxLayout;
        row->addWidget(edit);
        auto *pick = new QToolButton;
        pick->setText(QStringLiteral("…"));
        pick->setToolTip(tr("Choose a file"));
        const QString caption = QString(label).remove(u'&').chopped(1); // "TLS CA"
        connect(pick, &QToolButton::clicked, this, [this, edit, caption] {
            const QString file = QFileDialog::getOpenFileName(this, caption, edit->text());
            if (!file.isEmpty())
                edit->setText(file);
        });
        pick->setAccessibleName(tr("Choose the %1 file").arg(caption));
        row->addWidget(pick);
        // A row whose field is a layout gets no buddy from QFormLayout: without one the label
        // would show its "&" instead of a mnemonic.
        auto *text = new QLabel(label);
        text->setBuddy(edit);
        form->addRow(text, row);
    };
    fileRow(tr("TLS &CA:"), m_ca);
    fileRow(tr("TLS c&ertificate:"), m_cert);
    fileRow(tr("TLS &key:"), m_key);
    form->addRow(tr("Public &address:"), m_address);
    form->addRow(tr("&Labels:"), m_labels);

    m_trust->setObjectName(QStringLiteral("trustHostKey"));
    m_trust->setToolTip(tr("Show the SSH host key this host presents and, if it is the host's, "
                           "add it to your known_hosts"));
    m_trust->setAccessibleDescription(m_trust->toolTip());
    m_trust->hide();
    // The result under the buttons, the dialog's full width: a long error (an SSH host key's
    // fingerprint and what to do) grows the dialog instead of squeezing the form.
    auto *testRow = new QHBoxLayout;
    testRow->addWidget(m_test);
    testRow->addStretch(1);
    testRow->addWidget(m_trust);

    auto *layout = new QVBoxLayout(this);
    layout->addLayout(form);
    layout->addLayout(testRow);
    layout->addWidget(m_result);
    layout->addWidget(m_buttons);
    loadContexts(DockerContexts::configDir());
    connect(m_context, &QComboBox::activated, this, &AddHostDialog::useContext);
    connect(m_test, &QPushButton::clicked, this, &AddHostDialog::testConnection);
    connect(m_trust, &QPushButton::clicked, this, &AddHostDialog::trustHostKey);
    connect(m_buttons, &QDialogButtonBox::accepted, this, &AddHostDialog::accept);
    connect(m_buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    resize(560, sizeHint().height());
}

void AddHostDialog::loadContexts(const QString &configDir)
{
    // A few small local files: read here, not in the background.
    m_contextsDir = configDir;
    m_context->clear();
    auto contexts = DockerContexts::list(configDir);
    if (!contexts) {
        m_context->addItem(tr("(cannot read the docker contexts)"));
        m_context->setToolTip(contexts.error().toString());
        m_context->setEnabled(false);
        return;
    }
    m_context->setEnabled(!contexts->isEmpty());
    m_context->addItem(contexts->isEmpty() ? tr("(no docker contexts)")
                                           : tr("(none: enter below)"));
    for (const DockerContexts::Context &c : std::as_const(*contexts))
        m_context->addItem(c.description.isEmpty()
                               ? QStringLiteral("%1 — %2").arg(c.name, c.host)
                               : QStringLiteral("%1 — %2 (%3)").arg(c.name, c.host, c.description),
                           c.name);
}

void AddHostDialog::useContext(int index)
{
    const QString name = m_context->itemData(index).toString();
    if (name.isEmpty())
        return;
    auto context = DockerContexts::find(m_contextsDir, name);
    auto record = context ? DockerContexts::hostRecord(*context, name)
                          : Result<HostRecord>(std::unexpected(context.error()));
    if (!record) {
        m_result->setText(QStringLiteral("<span style='color:#cc3333'>%1</span>")
                              .arg(record.error().toString().toHtmlEscaped()));
        return;
    }
    if (m_name->text().trimmed().isEmpty() && HostRegistry::validateName(name))
        m_name->setText(name);
    m_endpoint->setText(record->endpoint);
    m_ca->setText(record->tlsCa);
    m_cert->setText(record->tlsCert);
    m_key->setText(record->tlsKey);
    m_result->setText(tr("Filled from docker context %1.").arg(name.toHtmlEscaped()));
}

HostRecord AddHostDialog::host() const
{
    HostRecord h;
    h.name = m_name->text().trimmed();
    h.endpoint = m_endpoint->text().trimmed();
    h.tlsCa = m_ca->text().trimmed();
    h.tlsCert = m_cert->text().trimmed();
    h.tlsKey = m_key->text().trimmed();
    h.publicAddress = m_address->text().trimmed();
    for (const QString &pair : m_labels->text().split(u',', Qt::SkipEmptyParts)) {
        if (auto label = HostRegistry::parseLabel(pair.trimmed()))
            h.labels.insert(label->first, label->second);
    }
    return h;
}

QString AddHostDialog::validationError() const
{
    for (const QString &pair : m_labels->text().split(u',', Qt::SkipEmptyParts))
        if (auto label = HostRegistry::parseLabel(pair.trimmed()); !label)
            return label.error().toString();
    if (auto valid = HostRegistry::validate(host()); !valid)
        return valid.error().toString();
    return {};
}

void AddHostDialog::showError(const QString &error)
{
    // Only a key never seen: a changed key is the admin's to investigate, not to click away.
    const bool unknownKey = Http::SshTunnel::isUnknownHostKey(error);
    const QString text =
        unknownKey ? Http::SshTunnel::withoutCommandLineAdvice(error) +
                         tr(" Trust Host Key… shows it again to compare with the host's own.")
                   : error;
    m_result->setText(
        QStringLiteral("<span style='color:#cc3333'>%1</span>").arg(text.toHtmlEscaped()));
    m_trust->setVisible(unknownKey);
    if (sizeHint().height() > height())
        resize(width(), sizeHint().height());
}

void AddHostDialog::trustHostKey()
{
    auto endpoint = Docker::DockerEndpoint::parse(m_endpoint->text());
    if (!endpoint || endpoint->kind() != Docker::DockerEndpoint::Kind::Ssh)
        return;
    const Http::SshTarget target = endpoint->sshTarget();
    setBusy(true, tr("Reading the host's key…"));
    QPointer<AddHostDialog> self(this);
    m_controller->runInBackground(
        [target] { return Http::SshTunnel::scanHostKeys(target); },
        [self, target](const Result<QList<Http::SshTunnel::HostKey>> &keys) {
            if (!self)
                return;
            self->setBusy(false, {});
            if (!keys) {
                self->showError(keys.error().toString());
                return;
            }
            QStringList lines;
            for (const Http::SshTunnel::HostKey &k : *keys)
                lines.append(k.type + u' ' + k.fingerprint);
            QMessageBox ask(QMessageBox::Question, tr("Trust Host Key"),
                            tr("%1 presents this SSH host key:\n\n%2\n\nCompare it with the "
                               "host's own (ssh-keygen -lf /etc/ssh/ssh_host_ed25519_key.pub on "
                               "the host). Add it to your known_hosts?")
                                .arg(target.display(), lines.join(u'\n')),
                            QMessageBox::Yes | QMessageBox::Cancel, self);
            ask.setObjectName(QStringLiteral("trustHostKeyQuestion"));
            ask.setDefaultButton(QMessageBox::Cancel);
            ask.setTextInteractionFlags(Qt::TextSelectableByMouse);
            if (ask.exec() != QMessageBox::Yes)
                return;
            self->setBusy(true, tr("Adding the key…"));
            self->m_controller->runInBackground(
                [target, keys = *keys] { return Http::SshTunnel::trustHostKeys(target, keys); },
                [self](const Result<QString> &file) {
                    if (!self)
                        return;
                    self->setBusy(false, {});
                    if (!file) {
                        self->showError(file.error().toString());
                        return;
                    }
                    self->m_trust->hide();
                    self->testConnection();
                });
        });
}

void AddHostDialog::setBusy(bool busy, const QString &message)
{
    m_trust->setEnabled(!busy);
    m_test->setEnabled(!busy);
    m_buttons->button(QDialogButtonBox::Ok)->setEnabled(!busy);
    m_result->setText(message);
}

void AddHostDialog::testConnection()
{
    if (const QString error = validationError(); !error.isEmpty()) {
        m_result->setText(
            QStringLiteral("<span style='color:#cc3333'>%1</span>").arg(error.toHtmlEscaped()));
        return;
    }
    if (!m_controller->registry()) {
        m_result->setText(tr("No store is open."));
        return;
    }
    setBusy(true, tr("Connecting…"));
    HostRegistry *registry = m_controller->registry();
    const HostRecord record = *HostRegistry::validate(host());
    QPointer<AddHostDialog> self(this);
    m_controller->runInBackground(
        [registry, record] {
            HostInspector inspector(registry, std::chrono::milliseconds(8000));
            inspector.setListImages(false);
            return inspector.inspect(record, {});
        },
        [self](const HostStatus &status) {
            if (!self)
                return;
            self->setBusy(false, {});
            if (status.reachable)
                self->m_result->setText(
                    tr("<span style='color:#2e9d48'>Connected</span>: Docker %1, %2 CPUs, %3, "
                       "swarm %4")
                        .arg(status.dockerVersion)
                        .arg(status.ncpu)
                        .arg(formatBytes(status.memTotal))
                        .arg(status.swarmState));
            else
                self->showError(status.error);
        });
}

void AddHostDialog::accept()
{
    if (const QString error = validationError(); !error.isEmpty()) {
        m_result->setText(
            QStringLiteral("<span style='color:#cc3333'>%1</span>").arg(error.toHtmlEscaped()));
        return;
    }
    HostRegistry *registry = m_controller->registry();
    if (!registry) {
        m_result->setText(tr("No store is open."));
        return;
    }
    setBusy(true, tr("Registering…"));
    const HostRecord record = host();
    QPointer<AddHostDialog> self(this);
    m_controller->runInBackground(
        [registry, record] { return registry->add(record); },
        [self](const Result<HostRecord> &result) {
            if (!self)
                return;
            self->setBusy(false, {});
            if (!result) {
                self->showError(result.error().toString());
                return;
            }
            self->QDialog::accept();
        });
}

} // namespace ClusterDeck::Ui
