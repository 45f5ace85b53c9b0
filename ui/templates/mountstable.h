#pragma once

#include "template/clustertemplate.h"

#include "formtable.h"

namespace ClusterDeck::Ui {

// The template form's mounts (a role's, and the template-wide ones every role gets): type, source,
// target, read-only, volume driver and its options. A row with neither source nor target is not
// an entry yet. edited() follows every change a user makes, cell widgets included.
class MountsTable : public FormTable
{
    Q_OBJECT

public:
    enum Column { Type, Source, Target, ReadOnly, Driver, DriverOptions, Columns };

    explicit MountsTable(QWidget *parent = nullptr);

    void setMounts(const QList<Mount> &mounts);
    QList<Mount> mounts() const;
    // Rows that hold an entry, in order: mount i of mounts() is row usedRows().at(i) (a
    // diagnostic's `mounts[i]` marks that row).
    QList<int> usedRows() const;
    // A new row at the end, its source cell open for typing.
    void addEmptyRow();

Q_SIGNALS:
    void edited();

private:
    void addMountRow(const Mount &mount);
    bool m_filling = false;
};

} // namespace ClusterDeck::Ui
