#pragma once

#include "common/networkdriver.h"

#include <QDialog>

class QLabel;
class QRadioButton;

namespace ClusterDeck::Ui {

// "Set Up Multi-Host Networking…": the choice of the store's driver for multi-node sessions
// (issue 26). VXLAN, the default, needs nothing on the hosts but UDP PORT open between them;
// Docker Swarm joins every registered host into one swarm. The dialog only asks: HostsView
// records the choice and does the work off the GUI thread.
class NetworkSetupDialog : public QDialog
{
    Q_OBJECT

public:
    explicit NetworkSetupDialog(QWidget *parent = nullptr);

    // What the store uses now: preselected, and the port named in the VXLAN choice's text.
    void setCurrent(NetworkDriver driver, int vxlanPort);
    // Why the store's settings could not be read (shown above the choice); empty hides it.
    void setProblem(const QString &problem);

    NetworkDriver driver() const;
    void setDriver(NetworkDriver driver);
    QRadioButton *vxlanButton() const { return m_vxlan; }
    QRadioButton *swarmButton() const { return m_swarm; }

private:
    QLabel *m_problem;
    QRadioButton *m_vxlan;
    QLabel *m_vxlanDetail;
    QRadioButton *m_swarm;
};

} // namespace ClusterDeck::Ui
