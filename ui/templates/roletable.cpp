#include "roletable.h"

#include <QDropEvent>
#include <QHeaderView>
#include <QMimeData>

namespace ClusterDeck::Ui {

namespace {
// Carries the dragged row; only this table understands it, so nothing else can be dropped here.
const QString kRowMime = QStringLiteral("application/x-clusterdeck-role-row");
} // namespace

RoleTable::RoleTable(int columns, QWidget *parent)
    : QTableWidget(0, columns, parent)
{
    setSelectionBehavior(QAbstractItemView::SelectRows);
    setSelectionMode(QAbstractItemView::SingleSelection);
    setDragEnabled(true);
    setAcceptDrops(true);
    setDragDropMode(QAbstractItemView::InternalMove);
    setDragDropOverwriteMode(false);
    setDropIndicatorShown(true);
    setDefaultDropAction(Qt::MoveAction);
}

QStringList RoleTable::mimeTypes() const
{
    return {kRowMime};
}

QMimeData *RoleTable::mimeData(const QList<QTableWidgetItem *> &items) const
{
    if (items.isEmpty())
        return nullptr;
    auto *data = new QMimeData;
    data->setData(kRowMime, QByteArray::number(items.first()->row()));
    return data;
}

void RoleTable::dragEnterEvent(QDragEnterEvent *event)
{
    // Not the base: it also asks for event->source() == this, which only a QDrag of this
    // process has; the private format already says where the row comes from.
    if (event->mimeData()->hasFormat(kRowMime)) {
        setState(DraggingState);
        event->acceptProposedAction();
    } else {
        event->ignore();
    }
}

void RoleTable::dragMoveEvent(QDragMoveEvent *event)
{
    if (event->mimeData()->hasFormat(kRowMime))
        QTableWidget::dragMoveEvent(event);
    else
        event->ignore();
}

int RoleTable::dropTarget(int from, const QPoint &pos) const
{
    // Insert before the row under the cursor, or after it when in its lower half.
    int insertAt = rowAt(pos.y());
    if (insertAt < 0)
        insertAt = rowCount();
    else if (pos.y() > visualRect(model()->index(insertAt, 0)).center().y())
        ++insertAt;
    return insertAt > from ? insertAt - 1 : insertAt;
}

void RoleTable::dropEvent(QDropEvent *event)
{
    bool ok = false;
    const int from = event->mimeData()->data(kRowMime).toInt(&ok);
    if (!ok || from < 0 || from >= rowCount()) {
        event->ignore();
        return;
    }
    moveRow(from, dropTarget(from, event->position().toPoint()));
    // Not MoveAction: the view would then remove the dragged row it thinks was copied.
    event->setDropAction(Qt::CopyAction);
    event->accept();
    stopAutoScroll();
    setState(NoState);
    viewport()->update();
}

void RoleTable::moveRow(int from, int to)
{
    if (from == to || from < 0 || to < 0 || from >= rowCount() || to >= rowCount())
        return;
    const int column = qMax(currentColumn(), 0);
    {
        // One move, not a series of cell edits for whoever listens to itemChanged.
        const QSignalBlocker block(this);
        QList<QTableWidgetItem *> items;
        for (int c = 0; c < columnCount(); ++c)
            items << takeItem(from, c);
        removeRow(from);
        insertRow(to);
        for (int c = 0; c < columnCount(); ++c)
            setItem(to, c, items.at(c));
    }
    setCurrentCell(to, column);
    Q_EMIT rowMoved(from, to);
}

} // namespace ClusterDeck::Ui
