#include "imagesmodel.h"
#include "common/bytesize.h"

#include <QBrush>
#include <QColor>
#include <QLocale>

namespace ClusterDeck::Ui {

namespace {

// One line per OCI label the image has, in ociKeys() order; empty when it has none.
QString ociToolTip(const Registry::ImageRow &row)
{
    const QMap<QString, QString> names{{QStringLiteral("title"), ImagesModel::tr("Title")},
                                       {QStringLiteral("version"), ImagesModel::tr("Version")},
                                       {QStringLiteral("source"), ImagesModel::tr("Source")},
                                       {QStringLiteral("revision"), ImagesModel::tr("Revision")}};
    QStringList lines;
    for (const QString &key : Registry::ociKeys()) {
        if (row.oci.contains(key))
            lines.append(ImagesModel::tr("%1: %2").arg(names.value(key), row.oci.value(key)));
    }
    return lines.join(QLatin1Char('\n'));
}

} // namespace

ImagesModel::ImagesModel(QObject *parent)
    : QAbstractTableModel(parent)
{}

void ImagesModel::setInventory(const Registry::ImageInventory &inventory)
{
    if (inventory.hosts != m_inventory.hosts) {
        // Other columns: a new shape.
        beginResetModel();
        m_inventory = inventory;
        endResetModel();
        return;
    }
    // Same hosts: remove rows that went, insert rows that came, update the rest in place.
    const QList<Registry::ImageRow> &next = inventory.rows;
    QMap<QString, Registry::ImageRow> byRef;
    for (const Registry::ImageRow &r : next)
        byRef.insert(r.reference, r);
    for (int i = int(m_inventory.rows.size()) - 1; i >= 0; --i) {
        if (!byRef.contains(m_inventory.rows.at(i).reference)) {
            beginRemoveRows({}, i, i);
            m_inventory.rows.removeAt(i);
            endRemoveRows();
        }
    }
    m_inventory.errors = inventory.errors;
    // Both lists are sorted by reference: merge.
    int i = 0;
    for (const Registry::ImageRow &r : next) {
        if (i < m_inventory.rows.size() && m_inventory.rows.at(i).reference == r.reference) {
            if (!(m_inventory.rows.at(i) == r)) {
                m_inventory.rows[i] = r;
                Q_EMIT dataChanged(index(i, 0), index(i, columnCount() - 1));
            }
        } else {
            beginInsertRows({}, i, i);
            m_inventory.rows.insert(i, r);
            endInsertRows();
        }
        ++i;
    }
}

QString ImagesModel::hostOfColumn(int column) const
{
    const int h = column - FirstHostColumn;
    return h >= 0 && h < m_inventory.hosts.size() ? m_inventory.hosts.at(h) : QString();
}

QString ImagesModel::referenceOfRow(int row) const
{
    return row >= 0 && row < m_inventory.rows.size() ? m_inventory.rows.at(row).reference : QString();
}

int ImagesModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_inventory.rows.size());
}

int ImagesModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : FirstHostColumn + int(m_inventory.hosts.size());
}

QVariant ImagesModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const Registry::ImageRow &row = m_inventory.rows.at(index.row());
    if (role == ReferenceRole)
        return row.reference;
    switch (index.column()) {
    case ImageColumn:
        if (role == Qt::DisplayRole)
            return row.reference;
        if (role == Qt::ToolTipRole) {
            const QString oci = ociToolTip(row);
            return oci.isEmpty() ? QVariant() : QVariant(row.reference + u'\n' + oci);
        }
        return {};
    case VersionColumn:
        if (role == Qt::DisplayRole)
            return row.oci.value(QStringLiteral("version"));
        if (role == Qt::ToolTipRole) {
            const QString oci = ociToolTip(row);
            return oci.isEmpty() ? tr("the image has no org.opencontainers.image.* labels") : oci;
        }
        return {};
    case SizeColumn:
        if (role == Qt::DisplayRole)
            return formatBytes(row.size());
        if (role == Qt::TextAlignmentRole)
            return int(Qt::AlignRight | Qt::AlignVCenter);
        return {};
    case DigestColumn:
        if (role == Qt::DisplayRole)
            return row.digest.isEmpty() ? QStringLiteral("—")
                                        : row.digest.section(QLatin1Char('@'), 1).left(19);
        if (role == Qt::ToolTipRole)
            return row.digest.isEmpty() ? tr("not from a registry (loaded or built locally)")
                                        : row.digest;
        return {};
    default:
        break;
    }
    const QString host = hostOfColumn(index.column());
    const bool present = row.hosts.contains(host);
    const Registry::HostImage image = row.hosts.value(host);
    switch (role) {
    case Qt::DisplayRole:
        if (!present)
            return m_inventory.errors.contains(host) ? QStringLiteral("?") : QString();
        return QStringLiteral("✓ %1%2")
            .arg(image.id.section(QLatin1Char(':'), 1).left(12),
                 image.containers > 0 ? tr(" (in use)") : QString());
    case Qt::ToolTipRole:
        if (!present)
            return m_inventory.errors.contains(host) ? m_inventory.errors.value(host)
                                                     : tr("not on %1").arg(host);
        return tr("%1 on %2: %3 containers").arg(image.id, host).arg(image.containers);
    case Qt::BackgroundRole:
        return present ? QBrush(QColor(0xd7, 0xf0, 0xd8)) : QVariant();
    case PresentRole:
        return present;
    case InUseRole:
        return present && image.containers > 0;
    default:
        return {};
    }
}

QVariant ImagesModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case ImageColumn:
        return tr("Image");
    case VersionColumn:
        return tr("Version");
    case SizeColumn:
        return tr("Size");
    case DigestColumn:
        return tr("Digest");
    default:
        return hostOfColumn(section);
    }
}

} // namespace ClusterDeck::Ui
