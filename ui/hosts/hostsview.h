#pragma once

#include <QWidget>

class QPushButton;
class QTableView;

namespace ClusterDeck::Ui {

class ConsoleController;
class HostsTableModel;

// The registered hosts and their live state; Add Host, Remove, and "Set up multi-host
// networking" (the swarm setup, with what it did on each host).
class HostsView : public QWidget
{
    Q_OBJECT

public:
    explicit HostsView(ConsoleController *controller, QWidget *parent = nullptr);

    HostsTableModel *model() const { return m_model; }
    QTableView *table() const { return m_table; }

public Q_SLOTS:
    void addHost();
    void removeSelected();
    void setUpNetworking();

private:
    void updateButtons();

    ConsoleController *m_controller;
    HostsTableModel *m_model;
    QTableView *m_table;
    QPushButton *m_add;
    QPushButton *m_remove;
    QPushButton *m_network;
    QPushButton *m_refresh;
};

} // namespace ClusterDeck::Ui
