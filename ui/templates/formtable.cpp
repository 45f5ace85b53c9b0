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

} // namespace ClusterDeck::Ui
