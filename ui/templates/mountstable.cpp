#include "mountstable.h"

#include "template/templatevalues.h"

#include <QComboBox>
#include <QHeaderView>
#include <QScopedValueRollback>

namespace ClusterDeck::Ui {

namespace {
// Driver options in one cell: `type=nfs; o=addr=10.0.0.5,ro` (NFS options contain commas).
QString joinOptions(const QMap<QString, QString> &options)
{
    QStringList parts;
    for (auto it = options.cbegin(); it != options.cend(); ++it)
        parts << it.key() + QLatin1Char('=') + it.value();
    return parts.join(QStringLiteral("; "));
}

QMap<QString, QString> splitOptions(const QString &text)
{
    QMap<QString, QString> options;
    for (const QString &part : text.split(QLatin1Char(';'), Qt::SkipEmptyParts)) {
        const qsizetype eq = part.indexOf(QLatin1Char('='));
        if (eq < 0)
            options.insert(part.trimmed(), QString());
        else
            options.insert(part.left(eq).trimmed(), part.mid(eq + 1).trimmed());
    }
    return options;
}
} // namespace

MountsTable::MountsTable(QWidget *parent)
    : FormTable(
          {tr("Type"), tr("Source"), tr("Target"), tr("Read-only"), tr("Driver"), tr("Options")},
          parent)
{
    horizontalHeader()->setSectionResizeMode(ReadOnly, QHeaderView::ResizeToContents);
    horizontalHeaderItem(DriverOptions)
        ->setToolTip(tr("Volume driver options, e.g. type=nfs; o=addr=10.0.0.5,ro"));
    connect(this, &QTableWidget::itemChanged, this, [this] {
        if (!m_filling)
            Q_EMIT edited();
    });
}

void MountsTable::addMountRow(const Mount &mount)
{
    const QScopedValueRollback filling(m_filling, true);
    const int row = rowCount();
    insertRow(row);
    auto *type = new QComboBox;
    type->setAccessibleName(tr("Mount type")); // a cell widget: no header speaks for it
    for (Mount::Type t : {Mount::Type::Volume, Mount::Type::Bind})
        type->addItem(TemplateValues::mountTypeName(t), int(t));
    type->setCurrentIndex(type->findData(int(mount.type)));
    connect(type, &QComboBox::activated, this, &MountsTable::edited);
    setCellWidget(row, Type, type);
    setItem(row, Source, new QTableWidgetItem(mount.source));
    setItem(row, Target, new QTableWidgetItem(mount.target));
    auto *readOnly = new QTableWidgetItem;
    readOnly->setFlags(Qt::ItemIsEnabled | Qt::ItemIsSelectable | Qt::ItemIsUserCheckable);
    readOnly->setCheckState(mount.readOnly ? Qt::Checked : Qt::Unchecked);
    setItem(row, ReadOnly, readOnly);
    setItem(row, Driver, new QTableWidgetItem(mount.driver));
    setItem(row, DriverOptions, new QTableWidgetItem(joinOptions(mount.driverOptions)));
}

void MountsTable::setMounts(const QList<Mount> &mounts)
{
    const QScopedValueRollback filling(m_filling, true);
    setRowCount(0);
    for (const Mount &m : mounts)
        addMountRow(m);
}

void MountsTable::addEmptyRow()
{
    addMountRow(Mount{});
    setCurrentCell(rowCount() - 1, Source);
    editItem(item(rowCount() - 1, Source));
}

static QString cellText(const QTableWidget *table, int row, int column)
{
    const QTableWidgetItem *it = table->item(row, column);
    return it ? it->text().trimmed() : QString();
}

QList<int> MountsTable::usedRows() const
{
    QList<int> rows;
    for (int row = 0; row < rowCount(); ++row)
        if (!cellText(this, row, Source).isEmpty() || !cellText(this, row, Target).isEmpty())
            rows << row;
    return rows;
}

QList<Mount> MountsTable::mounts() const
{
    QList<Mount> mounts;
    for (int row : usedRows()) {
        Mount m;
        if (const auto *type = qobject_cast<const QComboBox *>(cellWidget(row, Type)))
            m.type = Mount::Type(type->currentData().toInt());
        m.source = cellText(this, row, Source);
        m.target = cellText(this, row, Target);
        const QTableWidgetItem *readOnly = item(row, ReadOnly);
        m.readOnly = readOnly && readOnly->checkState() == Qt::Checked;
        m.driver = cellText(this, row, Driver);
        m.driverOptions = splitOptions(cellText(this, row, DriverOptions));
        mounts << m;
    }
    return mounts;
}

} // namespace ClusterDeck::Ui
