#include "formtable.h"

#include <QHeaderView>

namespace ClusterDeck::Ui {

FormTable::FormTable(const QStringList &headers, QWidget *parent)
    : QTableWidget(0, int(headers.size()), parent)
{
    setHorizontalHeaderLabels(headers);
    verticalHeader()->hide();
    setSelectionBehavior(QAbstractItemView::SelectRows);
    setSelectionMode(QAbstractItemView::SingleSelection);
    horizontalHeader()->setStretchLastSection(true);
}

bool FormTable::removeCurrentRow()
{
    if (currentRow() < 0)
        return false;
    removeRow(currentRow());
    return true;
}

} // namespace ClusterDeck::Ui
