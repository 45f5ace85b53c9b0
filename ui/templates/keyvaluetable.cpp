#include "keyvaluetable.h"

#include <QHeaderView>

namespace ClusterDeck::Ui {

KeyValueTable::KeyValueTable(const QString &keyHeader, const QString &valueHeader, QWidget *parent)
    : FormTable({keyHeader, valueHeader}, parent)
{
    horizontalHeader()->resizeSection(0, 170); // SPARK_WORKER_MEMORY, NCCL_SOCKET_IFNAME
}

void KeyValueTable::setPairs(const QMap<QString, QString> &pairs)
{
    setRowCount(0);
    for (auto it = pairs.cbegin(); it != pairs.cend(); ++it) {
        const int row = rowCount();
        insertRow(row);
        setItem(row, 0, new QTableWidgetItem(it.key()));
        setItem(row, 1, new QTableWidgetItem(it.value()));
    }
}

QMap<QString, QString> KeyValueTable::pairs() const
{
    QMap<QString, QString> pairs;
    for (int row = 0; row < rowCount(); ++row) {
        const QTableWidgetItem *key = item(row, 0);
        const QTableWidgetItem *value = item(row, 1);
        const QString k = key ? key->text().trimmed() : QString();
        if (k.isEmpty() && (!value || value->text().isEmpty()))
            continue;
        pairs.insert(k, value ? value->text() : QString());
    }
    return pairs;
}

void KeyValueTable::addEmptyRow()
{
    const int row = rowCount();
    {
        const QSignalBlocker quiet(this); // an empty row is no edit
        insertRow(row);
        setItem(row, 0, new QTableWidgetItem);
        setItem(row, 1, new QTableWidgetItem);
    }
    setCurrentCell(row, 0);
    editItem(item(row, 0));
}

} // namespace ClusterDeck::Ui
