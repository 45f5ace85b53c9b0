#pragma once

#include "common/networkdriver.h"
#include "stats/usageaggregator.h"

#include <QWidget>

class QPushButton;
class QTableView;
class QTimer;

namespace ClusterDeck::Ui {

class ConsoleController;
class HostsTableModel;
class KernelStatsFeed;

// The registered hosts and their live state; Add Host, Remove, and "Set Up Multi-Host
// Networking…" (the store's driver: VXLAN, nothing to set up, or the swarm setup with what it
// did on each host).
class HostsView : public QWidget
{
    Q_OBJECT

public:
    explicit HostsView(ConsoleController *controller, QWidget *parent = nullptr);

    HostsTableModel *model() const { return m_model; }
    QTableView *table() const { return m_table; }
    KernelStatsFeed *statsFeed() const { return m_stats; }

public Q_SLOTS:
    void addHost();
    void removeSelected();
    void setUpNetworking();

protected:
    void showEvent(QShowEvent *event) override;
    void hideEvent(QHideEvent *event) override;

private:
    void updateButtons();
    void publishUsage();
    // Records `driver` as the store's, in the background; swarm then joins the hosts.
    void applyNetworkDriver(NetworkDriver driver);
    void setNetworkBusy(bool busy, const QString &text = {});
    // A window-modal box, not exec'd: "networkSetupFailed" or "networkSetupDone".
    void showNetworkMessage(bool failed, const QString &text);

    ConsoleController *m_controller;
    HostsTableModel *m_model;
    QTableView *m_table;
    QPushButton *m_add;
    QPushButton *m_remove;
    QPushButton *m_network;
    QPushButton *m_refresh;
    // Live usage next to the allocated figures: the running kernels' stats, summed per host
    // once a second, only while the view is visible.
    KernelStatsFeed *m_stats;
    UsageAggregator m_usage;
    QTimer *m_publish;
};

} // namespace ClusterDeck::Ui
