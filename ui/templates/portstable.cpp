#include "portstable.h"

#include <QComboBox>
#include <QScopedValueRollback>

namespace ClusterDeck::Ui {

PortsTable::PortsTable(QWidget *parent)
    : FormTable({tr("Name"), tr("Protocol"), tr("Port")}, parent)
{
    connect(this, &QTableWidget::itemChanged, this, [this] {
        if (!m_filling)
            Q_EMIT edited();
    });
}

void PortsTable::addPortRow(const ServicePort &port)
{
    const QScopedValueRollback filling(m_filling, true);
    const int row = rowCount();
    insertRow(row);
    setItem(row, Name, new QTableWidgetItem(port.name));
    auto *protocol = new QComboBox;
    protocol->setAccessibleName(tr("Port protocol")); // a cell widget: no header speaks for it
    protocol->addItems({QStringLiteral("http"), QStringLiteral("tcp")});
    protocol->setCurrentText(port.protocol);
    connect(protocol, &QComboBox::activated, this, &PortsTable::edited);
    setCellWidget(row, Protocol, protocol);
    // An int gets a spin box editor; its range is wider than 1-65535 so the loader can say why.
    auto *number = new QTableWidgetItem;
    number->setData(Qt::EditRole, port.port);
    setItem(row, Number, number);
}

void PortsTable::setPorts(const QList<ServicePort> &ports)
{
    const QScopedValueRollback filling(m_filling, true);
    setRowCount(0);
    for (const ServicePort &p : ports)
        addPortRow(p);
}

void PortsTable::addEmptyRow()
{
    addPortRow(ServicePort{QString(), QStringLiteral("tcp"), 0});
    setCurrentCell(rowCount() - 1, Name);
    editItem(item(rowCount() - 1, Name));
}

QList<int> PortsTable::usedRows() const
{
    QList<int> rows;
    for (int row = 0; row < rowCount(); ++row) {
        const QTableWidgetItem *name = item(row, Name);
        const QTableWidgetItem *number = item(row, Number);
        if ((name && !name->text().trimmed().isEmpty()) ||
            (number && number->data(Qt::EditRole).toInt() != 0))
            rows << row;
    }
    return rows;
}

QList<ServicePort> PortsTable::ports() const
{
    QList<ServicePort> ports;
    for (int row : usedRows()) {
        ServicePort p;
        if (const QTableWidgetItem *name = item(row, Name))
            p.name = name->text().trimmed();
        if (const auto *protocol = qobject_cast<const QComboBox *>(cellWidget(row, Protocol)))
            p.protocol = protocol->currentText();
        if (const QTableWidgetItem *number = item(row, Number))
            p.port = number->data(Qt::EditRole).toInt();
        ports << p;
    }
    return ports;
}

} // namespace ClusterDeck::Ui
