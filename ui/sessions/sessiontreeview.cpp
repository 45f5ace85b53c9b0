#include "sessiontreeview.h"

#include "models/sessiontreemodel.h"
#include "sparklinedelegate.h"

#include <QPaintEvent>
#include <QStyledItemDelegate>

namespace ClusterDeck::Ui {

namespace {

// The default delegate of the columns without one of their own.
class ExposedCellDelegate : public QStyledItemDelegate
{
public:
    using QStyledItemDelegate::QStyledItemDelegate;

    void paint(QPainter *painter, const QStyleOptionViewItem &option,
               const QModelIndex &index) const override
    {
        if (SessionTreeView::cellExposed(option))
            QStyledItemDelegate::paint(painter, option, index);
    }
};

} // namespace

SessionTreeView::SessionTreeView(QWidget *parent)
    : QTreeView(parent)
{
    setUniformRowHeights(true);
    setItemDelegate(new ExposedCellDelegate(this));
    setItemDelegateForColumn(SessionTreeModel::CpuColumn,
                             new SparklineDelegate(SessionTreeModel::CpuHistoryRole, 100.0, this));
    setItemDelegateForColumn(SessionTreeModel::MemoryColumn,
                             new SparklineDelegate(SessionTreeModel::MemoryHistoryRole, 0.0, this));
}

bool SessionTreeView::cellExposed(const QStyleOptionViewItem &option)
{
    const auto *view = qobject_cast<const SessionTreeView *>(option.widget);
    return !view || view->m_painting.isEmpty() || view->m_painting.intersects(option.rect);
}

void SessionTreeView::paintEvent(QPaintEvent *event)
{
    m_painting = event->region();
    QTreeView::paintEvent(event);
    m_painting = QRegion();
}

void SessionTreeView::dataChanged(const QModelIndex &topLeft, const QModelIndex &bottomRight,
                                  const QList<int> &roles)
{
    // QTreeView::dataChanged measures the first row again (every column's size hint, i.e. text
    // layout) whenever a cell of it changes, to keep the uniform row height; a session on top has
    // its usage sums change at every flush, and a usage figure never changes a row's height.
    if (uniformRowHeights() && topLeft.isValid() &&
        topLeft.column() >= SessionTreeModel::CpuColumn &&
        bottomRight.column() <= SessionTreeModel::MemoryColumn) {
        QAbstractItemView::dataChanged(topLeft, bottomRight, roles);
        return;
    }
    QTreeView::dataChanged(topLeft, bottomRight, roles);
}

} // namespace ClusterDeck::Ui
