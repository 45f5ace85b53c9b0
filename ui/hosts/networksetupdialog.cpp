#include "networksetupdialog.h"

#include "network/networksettings.h"

#include <QButtonGroup>
#include <QDialogButtonBox>
#include <QLabel>
#include <QPushButton>
#include <QRadioButton>
#include <QVBoxLayout>

namespace ClusterDeck::Ui {

namespace {

QLabel *detailLabel(const QString &text)
{
    auto *label = new QLabel(text);
    label->setWordWrap(true);
    label->setIndent(24); // under its radio button's text
    return label;
}

} // namespace

NetworkSetupDialog::NetworkSetupDialog(QWidget *parent)
    : QDialog(parent)
    , m_problem(new QLabel)
    , m_vxlan(new QRadioButton(tr("&VXLAN (recommended)")))
    , m_vxlanDetail(detailLabel(QString()))
    , m_swarm(new QRadioButton(tr("Docker &Swarm")))
{
    setObjectName(QStringLiteral("networkSetupDialog"));
    setWindowTitle(tr("Multi-Host Networking"));
    m_vxlan->setObjectName(QStringLiteral("vxlanDriver"));
    m_swarm->setObjectName(QStringLiteral("swarmDriver"));
    m_problem->setObjectName(QStringLiteral("networkSettingsProblem"));
    m_problem->setWordWrap(true);
    m_problem->hide();
    auto *group = new QButtonGroup(this);
    group->addButton(m_vxlan);
    group->addButton(m_swarm);

    auto *intro = new QLabel(tr("How should the kernels of a session that spans several hosts "
                                "reach each other? Running sessions keep the network they were "
                                "launched with."));
    intro->setWordWrap(true);
    auto *swarmDetail = detailLabel(
        tr("Joins every registered host into one swarm, managed by one of them. For stores set "
           "up that way; a session cannot start while the manager host is down."));
    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel);
    buttons->button(QDialogButtonBox::Ok)->setText(tr("&Apply"));
    connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);

    auto *layout = new QVBoxLayout(this);
    layout->addWidget(m_problem);
    layout->addWidget(intro);
    layout->addWidget(m_vxlan);
    layout->addWidget(m_vxlanDetail);
    layout->addWidget(m_swarm);
    layout->addWidget(swarmDetail);
    layout->addStretch();
    layout->addWidget(buttons);
    setCurrent(NetworkDriver::Vxlan, NetworkSettings::kDefaultVxlanPort);
    resize(480, sizeHint().height());
}

void NetworkSetupDialog::setCurrent(NetworkDriver driver, int vxlanPort)
{
    setDriver(driver);
    m_vxlanDetail->setText(
        tr("ClusterDeck's own overlay: no setup on the hosts; they need UDP %1 open between "
           "them.")
            .arg(vxlanPort));
}

void NetworkSetupDialog::setProblem(const QString &problem)
{
    m_problem->setText(problem);
    m_problem->setVisible(!problem.isEmpty());
}

NetworkDriver NetworkSetupDialog::driver() const
{
    return m_swarm->isChecked() ? NetworkDriver::Swarm : NetworkDriver::Vxlan;
}

void NetworkSetupDialog::setDriver(NetworkDriver driver)
{
    (driver == NetworkDriver::Swarm ? m_swarm : m_vxlan)->setChecked(true);
}

} // namespace ClusterDeck::Ui
