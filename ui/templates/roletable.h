#pragma once

#include <QTableWidget>

namespace ClusterDeck::Ui {

// The template editor's roles table: whole rows are reordered by dragging them (as well as by the
// editor's Move Up / Move Down, which use the same moveRow()). QTableWidget's own drop would
// overwrite the cells under the cursor, so drops from this table are handled here.
class RoleTable : public QTableWidget
{
    Q_OBJECT

public:
    explicit RoleTable(int columns, QWidget *parent = nullptr);

    // Moves row `from` so that it ends up at index `to`; the current cell follows the row.
    void moveRow(int from, int to);
    // The row index a drop at `pos` (viewport coordinates) of a dragged row `from` ends up at.
    int dropTarget(int from, const QPoint &pos) const;

Q_SIGNALS:
    void rowMoved(int from, int to);

protected:
    QMimeData *mimeData(const QList<QTableWidgetItem *> &items) const override;
    QStringList mimeTypes() const override;
    void dragEnterEvent(QDragEnterEvent *event) override;
    void dragMoveEvent(QDragMoveEvent *event) override;
    void dropEvent(QDropEvent *event) override;
};

} // namespace ClusterDeck::Ui
