#pragma once

#include <QTableWidget>

namespace ClusterDeck::Ui {

// A table of the template form (env, labels, mounts, ports): whole rows selected one at a time,
// the last column stretched, no row numbers.
class FormTable : public QTableWidget
{
    Q_OBJECT

public:
    // What a table's Remove button does: the current row goes; false when none is current.
    bool removeCurrentRow();

protected:
    FormTable(const QStringList &headers, QWidget *parent);
};

} // namespace ClusterDeck::Ui
