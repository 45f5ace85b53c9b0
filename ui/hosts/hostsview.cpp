#include "hostsview.h"

#include "addhostdialog.h"
#include "common/inerttext.h"
#include "console/consolecontroller.h"
#include "dashboard/kernelstatsfeed.h"
#include "host/hostregistry.h"
#include "host/swarmsetup.h"
#include "models/hoststablemodel.h"
#include "models/sessiontreemodel.h"
#include "network/networksettings.h"
#include "networksetupdialog.h"
#include "store/statestore.h"
#include "style/themeicon.h"
#include "usagebardelegate.h"

#include <QDialog>
#include <QDialogButtonBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QMessageBox>
#include <QPushButton>
#include <QTableView>
#include <QTableWidget>
#include <QTimer>
#include <QVBoxLayout>

namespace ClusterDeck::Ui {

HostsView::HostsView(ConsoleController *controller, QWidget *parent)
    : QWidget(parent)
    , m_controller(controller)
    , m_model(new HostsTableModel(this))
    , m_table(new QTableView)
    , m_add(new QPushButton(themeIcon(QStringLiteral("list-add")), tr("&Add Host…")))
    , m_remove(new QPushButton(themeIcon(QStringLiteral("list-remove")), tr("&Remove")))
    , m_network(new QPushButton(tr("Set Up &Multi-Host Networking…")))
    , m_refresh(new QPushButton(themeIcon(QStringLiteral("view-refresh")), tr("Re&fresh")))
    , m_stats(new KernelStatsFeed(
          controller->sessionModel(), [controller] { return controller->registry(); },
          controller->pool(), this))
    , m_publish(new QTimer(this))
{
    setObjectName(QStringLiteral("hostsView"));
    m_table->setObjectName(QStringLiteral("hostsTable"));
    m_table->setAccessibleName(tr("Docker hosts"));
    m_table->setModel(m_model);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    m_table->verticalHeader()->hide();
    m_table->setAlternatingRowColors(true);
    m_table->horizontalHeader()->setStretchLastSection(true);
    m_table->setItemDelegateForColumn(HostsTableModel::CpuColumn, new UsageBarDelegate(this));
    m_table->setItemDelegateForColumn(HostsTableModel::MemoryColumn, new UsageBarDelegate(this));
    m_table->setItemDelegateForColumn(HostsTableModel::CpuUsedColumn, new UsageBarDelegate(this));
    m_table->setItemDelegateForColumn(HostsTableModel::MemoryUsedColumn,
                                      new UsageBarDelegate(this));
    m_table->setColumnWidth(HostsTableModel::NameColumn, 90);
    m_table->setColumnWidth(HostsTableModel::EndpointColumn, 260);
    m_table->setColumnWidth(HostsTableModel::ReachableColumn, 120);
    m_table->setColumnWidth(HostsTableModel::DockerColumn, 200);
    m_table->setColumnWidth(HostsTableModel::SwarmColumn, 130);
    m_table->setColumnWidth(HostsTableModel::CpuColumn, 150);
    m_table->setColumnWidth(HostsTableModel::CpuUsedColumn, 140);
    m_table->setColumnWidth(HostsTableModel::MemoryColumn, 190);
    m_table->setColumnWidth(HostsTableModel::MemoryUsedColumn, 150);
    m_network->setObjectName(QStringLiteral("setUpNetworking"));
    m_network->setToolTip(tr("Choose how sessions that span hosts are networked: ClusterDeck's "
                             "VXLAN overlay (nothing to set up) or one Docker swarm"));

    auto *buttons = new QHBoxLayout;
    buttons->addWidget(m_add);
    buttons->addWidget(m_remove);
    buttons->addStretch();
    buttons->addWidget(m_network);
    buttons->addWidget(m_refresh);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addLayout(buttons);
    layout->addWidget(m_table);

    connect(m_add, &QPushButton::clicked, this, &HostsView::addHost);
    connect(m_remove, &QPushButton::clicked, this, &HostsView::removeSelected);
    connect(m_network, &QPushButton::clicked, this, &HostsView::setUpNetworking);
    connect(m_refresh, &QPushButton::clicked, controller, &ConsoleController::refreshHosts);
    connect(controller, &ConsoleController::hostsChanged, this, [this] {
        m_model->setHosts(m_controller->hosts());
        m_controller->refreshHosts();
    });
    connect(controller, &ConsoleController::hostStatusesChanged, this,
            [this] { m_model->setStatuses(m_controller->hostStatuses()); });
    connect(controller, &ConsoleController::hostHealthChanged, this,
            [this] { m_model->setHealth(m_controller->hostHealth()); });
    connect(m_table->selectionModel(), &QItemSelectionModel::selectionChanged, this,
            &HostsView::updateButtons);
    connect(m_model, &QAbstractItemModel::modelReset, this, &HostsView::updateButtons);
    connect(m_stats, &KernelStatsFeed::sampled, this,
            [this](const QString &kernelId, const Docker::ResourceUsage &usage) {
                const auto k = m_controller->sessionModel()->kernelRecord(kernelId);
                if (k)
                    m_usage.set({k->sessionId, k->role, k->id, k->host}, usage);
            });
    connect(m_stats, &KernelStatsFeed::ended, this,
            [this](const QString &kernelId) { m_usage.remove(kernelId); });
    connect(m_stats, &KernelStatsFeed::cleared, this, [this] {
        m_usage.clear();
        m_model->setLiveUsage({}, false);
    });
    // Samples arrive per kernel; the table changes once a second.
    m_publish->setInterval(1000);
    connect(m_publish, &QTimer::timeout, this, &HostsView::publishUsage);

    m_model->setHosts(controller->hosts());
    m_model->setStatuses(controller->hostStatuses());
    m_model->setHealth(controller->hostHealth());
    updateButtons();
}

void HostsView::showEvent(QShowEvent *event)
{
    QWidget::showEvent(event);
    m_stats->setActive(true);
    publishUsage();
    m_publish->start();
}

void HostsView::hideEvent(QHideEvent *event)
{
    QWidget::hideEvent(event);
    m_publish->stop();
    m_stats->setActive(false); // clears the live columns
}

void HostsView::publishUsage()
{
    m_model->setLiveUsage(m_usage.byHost(), true);
}

void HostsView::updateButtons()
{
    m_remove->setEnabled(m_table->selectionModel()->hasSelection());
    m_network->setEnabled(m_model->rowCount() > 0);
}

void HostsView::addHost()
{
    auto *dialog = new AddHostDialog(m_controller, this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    connect(dialog, &QDialog::accepted, m_controller, &ConsoleController::refresh);
    dialog->open();
}

void HostsView::removeSelected()
{
    const QModelIndexList rows = m_table->selectionModel()->selectedRows();
    if (rows.isEmpty() || !m_controller->registry())
        return;
    const QString name = m_model->hostName(rows.first().row());
    if (QMessageBox::question(this, tr("Remove Host"),
                              tr("Remove host “%1” from ClusterDeck? Its containers are not "
                                 "touched; a host with running kernels cannot be removed.")
                                  .arg(name)) != QMessageBox::Yes)
        return;
    HostRegistry *registry = m_controller->registry();
    m_controller->runInBackground([registry, name] { return registry->remove(name); },
                                  [this, name](const Result<void> &result) {
                                      if (!result)
                                          QMessageBox::warning(this,
                                                               tr("Cannot Remove %1").arg(name),
                                                               result.error().toString());
                                  });
}

void HostsView::setUpNetworking()
{
    StateStore *store = m_controller->store();
    if (!store || !m_controller->registry())
        return;
    // The store's settings are read off the GUI thread; the dialog opens with them.
    setNetworkBusy(true, tr("Reading…"));
    m_controller->runInBackground(
        [store] { return NetworkSettings::read(*store); },
        [this](const Result<NetworkSettings::Values> &current) {
            setNetworkBusy(false);
            auto *dialog = new NetworkSetupDialog(this);
            dialog->setAttribute(Qt::WA_DeleteOnClose);
            if (current) {
                dialog->setCurrent(current->driver, current->vxlanPort);
            } else {
                dialog->setProblem(tr("The store's network settings cannot be read: %1. "
                                      "Applying a choice here records the driver again.")
                                       .arg(InertText::of(current.error().toString())));
            }
            connect(dialog, &QDialog::accepted, this,
                    [this, dialog] { applyNetworkDriver(dialog->driver()); });
            dialog->open();
        });
}

void HostsView::setNetworkBusy(bool busy, const QString &text)
{
    m_network->setText(busy ? text : tr("Set Up &Multi-Host Networking…"));
    if (busy)
        m_network->setEnabled(false);
    else
        updateButtons();
}

void HostsView::showNetworkMessage(bool failed, const QString &text)
{
    // Not modal to the application, not exec'd: the console keeps running behind it.
    auto *box = new QMessageBox(failed ? QMessageBox::Warning : QMessageBox::Information,
                                tr("Multi-Host Networking"), text, QMessageBox::Close, this);
    box->setObjectName(failed ? QStringLiteral("networkSetupFailed")
                              : QStringLiteral("networkSetupDone"));
    box->setAttribute(Qt::WA_DeleteOnClose);
    box->open();
}

void HostsView::applyNetworkDriver(NetworkDriver driver)
{
    StateStore *store = m_controller->store();
    HostRegistry *registry = m_controller->registry();
    if (!store || !registry)
        return;
    setNetworkBusy(true, tr("Setting Up…"));
    if (driver == NetworkDriver::Vxlan) {
        m_controller->runInBackground(
            [store]() -> Result<int> {
                if (auto ok = NetworkSettings::setDriver(*store, NetworkDriver::Vxlan); !ok)
                    return fail(ok.error());
                return NetworkSettings::vxlanPort(*store);
            },
            [this](const Result<int> &port) {
                setNetworkBusy(false);
                if (!port) {
                    showNetworkMessage(true, port.error().toString());
                    return;
                }
                showNetworkMessage(
                    false,
                    tr("New multi-node sessions use ClusterDeck's VXLAN overlay. Nothing is set "
                       "up on the hosts: they need UDP port %1 open between them.")
                        .arg(*port));
            });
        return;
    }
    // Swarm: the driver is recorded first, then every host joins the one swarm (as before).
    m_controller->runInBackground(
        [store, registry]() -> Result<SwarmSetup::Report> {
            if (auto ok = NetworkSettings::setDriver(*store, NetworkDriver::Swarm); !ok)
                return fail(ok.error());
            return SwarmSetup(registry).run();
        },
        [this](const Result<SwarmSetup::Report> &result) {
            setNetworkBusy(false);
            m_controller->refreshHosts();
            if (!result) {
                showNetworkMessage(true, result.error().toString());
                return;
            }
            auto *dialog = new QDialog(this);
            dialog->setAttribute(Qt::WA_DeleteOnClose);
            dialog->setObjectName(QStringLiteral("swarmReport"));
            dialog->setWindowTitle(tr("Multi-Host Networking"));
            auto *summary =
                new QLabel(result->oneSwarm()
                               ? tr("Every reachable host is in one swarm (manager: %1).")
                                     .arg(result->managerHost)
                               : tr("Not every reachable host could join the swarm — see below."));
            auto *table = new QTableWidget(int(result->entries.size()), 3);
            table->setHorizontalHeaderLabels({tr("Host"), tr("What was done"), tr("Detail")});
            table->verticalHeader()->hide();
            table->horizontalHeader()->setStretchLastSection(true);
            for (int i = 0; i < result->entries.size(); ++i) {
                const SwarmSetup::Entry &e = result->entries.at(i);
                table->setItem(i, 0, new QTableWidgetItem(e.host));
                table->setItem(i, 1, new QTableWidgetItem(SwarmSetup::actionName(e.action)));
                table->setItem(i, 2, new QTableWidgetItem(InertText::of(e.detail)));
            }
            table->resizeColumnsToContents();
            auto *buttons = new QDialogButtonBox(QDialogButtonBox::Close);
            connect(buttons, &QDialogButtonBox::rejected, dialog, &QDialog::reject);
            auto *layout = new QVBoxLayout(dialog);
            layout->addWidget(summary);
            layout->addWidget(table);
            layout->addWidget(buttons);
            dialog->resize(640, 300);
            dialog->open();
        });
}

} // namespace ClusterDeck::Ui
