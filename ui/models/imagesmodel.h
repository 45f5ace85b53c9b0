#pragma once

#include "registry/imageinventory.h"

#include <QAbstractTableModel>

namespace ClusterDeck::Ui {

// The host × image matrix: one row per image reference; columns IMAGE, VERSION (the image's
// org.opencontainers.image.version label), SIZE, DIGEST, then one per host (the image id there,
// or empty when absent). The image and version cells' tooltip gives the image's OCI title,
// version, source and revision. A new inventory updates rows in place.
class ImagesModel : public QAbstractTableModel
{
    Q_OBJECT

public:
    enum Column { ImageColumn, VersionColumn, SizeColumn, DigestColumn, FirstHostColumn };
    enum Role { PresentRole = Qt::UserRole + 1, InUseRole, ReferenceRole };

    explicit ImagesModel(QObject *parent = nullptr);

    void setInventory(const Registry::ImageInventory &inventory);
    const Registry::ImageInventory &inventory() const { return m_inventory; }
    QString hostOfColumn(int column) const;
    QString referenceOfRow(int row) const;

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

private:
    Registry::ImageInventory m_inventory;
};

} // namespace ClusterDeck::Ui
