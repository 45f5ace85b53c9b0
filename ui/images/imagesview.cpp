#include "imagesview.h"

#include "console/consolecontroller.h"
#include "docker/dockerclient.h"
#include "host/hostregistry.h"
#include "models/imagesmodel.h"
#include "registry/imagepuller.h"

#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPointer>
#include <QProgressBar>
#include <QPushButton>
#include <QSet>
#include <QSplitter>
#include <QTableView>
#include <QVBoxLayout>

#include <memory>
#include <mutex>

namespace ClusterDeck::Ui {

using namespace std::chrono_literals;

ImagesView::ImagesView(ConsoleController *controller, QWidget *parent)
    : QWidget(parent)
    , m_controller(controller)
    , m_model(new ImagesModel(this))
    , m_table(new QTableView)
    , m_image(new QLineEdit)
    , m_hosts(new QListWidget)
    , m_pull(new QPushButton(tr("&Pull to checked hosts")))
    , m_cancel(new QPushButton(tr("Cancel")))
    , m_remove(new QPushButton(tr("Remove unused")))
    , m_refresh(new QPushButton(tr("Refresh")))
    , m_bar(new QProgressBar)
    , m_status(new QLabel)
{
    m_table->setModel(m_model);
    m_table->setAccessibleName(tr("Images on the hosts"));
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    m_table->horizontalHeader()->setSectionResizeMode(ImagesModel::ImageColumn, QHeaderView::Stretch);
    m_table->verticalHeader()->hide();
    m_image->setPlaceholderText(tr("registry.example:5000/team/train:3"));
    m_hosts->setMaximumWidth(180);
    m_hosts->setAccessibleName(tr("Hosts to pull to")); // item views take no name from a label
    m_bar->setRange(0, 1000);
    m_bar->setValue(0);
    m_bar->setFormat(tr("%p%"));
    m_cancel->setEnabled(false);
    m_status->setWordWrap(true);
    m_status->setTextInteractionFlags(Qt::TextSelectableByMouse);

    auto *pullRow = new QHBoxLayout;
    auto *imageLabel = new QLabel(tr("&Image:"));
    imageLabel->setBuddy(m_image);
    pullRow->addWidget(imageLabel);
    pullRow->addWidget(m_image, 1);
    pullRow->addWidget(m_pull);
    pullRow->addWidget(m_cancel);
    auto *buttons = new QHBoxLayout;
    buttons->addWidget(m_refresh);
    buttons->addWidget(m_remove);
    buttons->addStretch();
    auto *hostsBox = new QVBoxLayout;
    hostsBox->addWidget(new QLabel(tr("Pull to:")));
    hostsBox->addWidget(m_hosts);
    auto *top = new QHBoxLayout;
    top->addWidget(m_table, 1);
    top->addLayout(hostsBox);
    auto *layout = new QVBoxLayout(this);
    layout->addLayout(buttons);
    layout->addLayout(top, 1);
    layout->addLayout(pullRow);
    layout->addWidget(m_bar);
    layout->addWidget(m_status);

    connect(m_refresh, &QPushButton::clicked, this, &ImagesView::refresh);
    connect(m_pull, &QPushButton::clicked, this, &ImagesView::pullToCheckedHosts);
    connect(m_cancel, &QPushButton::clicked, this, &ImagesView::cancelPull);
    connect(m_remove, &QPushButton::clicked, this, &ImagesView::removeSelectedUnused);
    connect(m_image, &QLineEdit::returnPressed, this, &ImagesView::pullToCheckedHosts);
    connect(m_controller, &ConsoleController::hostsChanged, this, &ImagesView::updateHosts);
    connect(m_table->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            [this](const QModelIndex &current) {
                if (current.isValid() && !m_busy)
                    m_image->setText(m_model->referenceOfRow(current.row()));
            });
    updateHosts();
}

ImagesView::~ImagesView()
{
    m_cancelToken.cancel();
}

void ImagesView::updateHosts()
{
    QSet<QString> unchecked;
    for (int i = 0; i < m_hosts->count(); ++i) {
        if (m_hosts->item(i)->checkState() == Qt::Unchecked)
            unchecked.insert(m_hosts->item(i)->text());
    }
    m_hosts->clear();
    for (const HostRecord &h : m_controller->hosts()) {
        auto *item = new QListWidgetItem(h.name, m_hosts);
        item->setFlags(item->flags() | Qt::ItemIsUserCheckable);
        item->setCheckState(unchecked.contains(h.name) ? Qt::Unchecked : Qt::Checked);
    }
}

void ImagesView::setBusy(bool busy)
{
    m_busy = busy;
    m_pull->setEnabled(!busy);
    m_remove->setEnabled(!busy);
    m_refresh->setEnabled(!busy);
    m_cancel->setEnabled(busy);
}

void ImagesView::refresh()
{
    HostRegistry *registry = m_controller->registry();
    if (!registry)
        return;
    QPointer<ImagesView> self(this);
    m_controller->runInBackground(
        [registry]() { return Registry::ImageInventory::survey(registry); },
        [self](const Result<Registry::ImageInventory> &inv) {
            if (!self)
                return;
            if (!inv) {
                self->m_status->setText(inv.error().toString());
            } else {
                self->m_model->setInventory(*inv);
                QStringList problems;
                for (auto it = inv->errors.cbegin(); it != inv->errors.cend(); ++it)
                    problems.append(it.value());
                self->m_status->setText(problems.isEmpty()
                                            ? tr("%n image(s) on %1 host(s)", nullptr,
                                                 int(inv->rows.size()))
                                                  .arg(inv->hosts.size())
                                            : problems.join(QLatin1Char('\n')));
            }
            Q_EMIT self->refreshed();
        });
}

void ImagesView::pullToCheckedHosts()
{
    const QString image = m_image->text().trimmed();
    HostRegistry *registry = m_controller->registry();
    if (image.isEmpty() || !registry || m_busy)
        return;
    QStringList hosts;
    for (int i = 0; i < m_hosts->count(); ++i) {
        if (m_hosts->item(i)->checkState() == Qt::Checked)
            hosts.append(m_hosts->item(i)->text());
    }
    if (hosts.isEmpty()) {
        m_status->setText(tr("Check at least one host to pull to."));
        return;
    }
    QList<Registry::PullTarget> targets;
    for (const QString &h : std::as_const(hosts)) {
        auto client = registry->client(h);
        if (!client) {
            m_status->setText(client.error().toString());
            return;
        }
        targets.append({h, *client, image, false});
    }
    setBusy(true);
    m_bar->setValue(0);
    m_status->setText(tr("Pulling %1 to %2 …").arg(image, hosts.join(QStringLiteral(", "))));
    m_cancelToken = CancelToken();
    const CancelToken cancel = m_cancelToken;
    QPointer<ImagesView> self(this);
    // Fractions per host, summed for the one bar; updates are queued to the GUI thread.
    auto fractions = std::make_shared<QMap<QString, double>>();
    auto mutex = std::make_shared<std::mutex>();
    const int n = int(targets.size());
    m_controller->runInBackground(
        [targets, cancel, self, fractions, mutex, n]() {
            Registry::ImagePuller puller;
            puller.setCredentialLookup(Registry::ImagePuller::dockerConfigLookup());
            puller.setStopOnFirstFailure(false);
            puller.setProgressCallback(
                [self, fractions, mutex, n](const Registry::PullTarget &t,
                                            const Docker::PullProgress &p) {
                    double total = 0;
                    {
                        std::lock_guard lock(*mutex);
                        fractions->insert(t.host, p.fraction());
                        for (double f : std::as_const(*fractions))
                            total += f;
                    }
                    QMetaObject::invokeMethod(
                        self.data(),
                        [self, total, n] {
                            if (self)
                                self->m_bar->setValue(int(1000 * total / n));
                        },
                        Qt::QueuedConnection);
                });
            return puller.run(targets, cancel);
        },
        [self, image](const QList<Registry::PullOutcome> &outcomes) {
            if (!self)
                return;
            self->setBusy(false);
            QStringList lines;
            bool ok = true;
            for (const Registry::PullOutcome &o : outcomes) {
                if (o.error) {
                    ok = false;
                    lines.append(o.error->toString());
                } else {
                    lines.append(tr("%1: %2").arg(o.host, o.repoDigest.isEmpty() ? o.imageId
                                                                                 : o.repoDigest));
                }
            }
            if (ok)
                self->m_bar->setValue(1000);
            self->m_status->setText(lines.join(QLatin1Char('\n')));
            Q_EMIT self->pullFinished(ok, lines.join(QLatin1Char('\n')));
            self->refresh();
        });
}

void ImagesView::cancelPull()
{
    m_cancelToken.cancel();
    m_cancel->setEnabled(false);
}

void ImagesView::removeSelectedUnused()
{
    const QModelIndex current = m_table->currentIndex();
    HostRegistry *registry = m_controller->registry();
    if (!current.isValid() || !registry)
        return;
    const QString reference = m_model->referenceOfRow(current.row());
    // Only where it is and no container uses it.
    QList<QPair<QString, std::shared_ptr<Docker::DockerClient>>> targets;
    QString target = reference;
    for (int c = ImagesModel::FirstHostColumn; c < m_model->columnCount(); ++c) {
        const QModelIndex cell = m_model->index(current.row(), c);
        if (!cell.data(ImagesModel::PresentRole).toBool() ||
            cell.data(ImagesModel::InUseRole).toBool())
            continue;
        auto client = registry->client(m_model->hostOfColumn(c));
        if (client)
            targets.append({m_model->hostOfColumn(c), *client});
    }
    if (reference.startsWith(QLatin1String("<none>@")))
        target = reference.mid(7);
    if (targets.isEmpty()) {
        m_status->setText(tr("%1 is in use (or absent) on every host.").arg(reference));
        return;
    }
    setBusy(true);
    QPointer<ImagesView> self(this);
    m_controller->runInBackground(
        [targets, target]() {
            QStringList lines;
            for (const auto &[host, client] : targets) {
                Docker::CallOptions call;
                call.timeout = 60s;
                auto removed = client->removeImage(target, false, call);
                lines.append(removed ? tr("removed from %1").arg(host)
                                     : removed.error().toString());
            }
            return lines;
        },
        [self](const QStringList &lines) {
            if (!self)
                return;
            self->setBusy(false);
            self->m_status->setText(lines.join(QLatin1Char('\n')));
            self->refresh();
        });
}

} // namespace ClusterDeck::Ui
