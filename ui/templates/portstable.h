#pragma once

#include "template/clustertemplate.h"

#include "formtable.h"

namespace ClusterDeck::Ui {

// The template form's service ports (a role's task ports, and the ports a role's overrides
// replace or add): name, protocol, number. A row with no name and port 0 is not an entry yet.
// edited() follows every change a user makes, the protocol's cell widget included.
class PortsTable : public FormTable
{
    Q_OBJECT

public:
    enum Column { Name, Protocol, Number, Columns };

    explicit PortsTable(QWidget *parent = nullptr);

    void setPorts(const QList<ServicePort> &ports);
    QList<ServicePort> ports() const;
    // Rows that hold an entry, in order: port i of ports() is row usedRows().at(i).
    QList<int> usedRows() const;
    // A new row at the end, its name cell open for typing.
    void addEmptyRow();

Q_SIGNALS:
    void edited();

private:
    void addPortRow(const ServicePort &port);
    bool m_filling = false;
};

} // namespace ClusterDeck::Ui
