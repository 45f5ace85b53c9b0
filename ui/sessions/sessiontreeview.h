#pragma once

#include <QRegion>
#include <QTreeView>

class QStyleOptionViewItem;

namespace ClusterDeck::Ui {

// The session tree's view: a QTreeView that repaints only the cells that changed. Live usage
// changes the CPU and memory cells of up to a hundred rows ten times a second, and QTreeView
// paints every column of a row with a dirty cell: laying out and shaping the text of the eight
// unchanged columns was most of the GUI thread's time (bench_statsgui). Its delegates (the default
// one it installs, SparklineDelegate, PortLinkDelegate) skip a cell outside the region being
// painted (cellExposed()).
class SessionTreeView : public QTreeView
{
    Q_OBJECT

public:
    explicit SessionTreeView(QWidget *parent = nullptr);

    // Whether a delegate must paint the cell of `option` (option.widget, option.rect): false only
    // while a SessionTreeView paints a region that misses the cell.
    static bool cellExposed(const QStyleOptionViewItem &option);

protected:
    void paintEvent(QPaintEvent *event) override;
    void dataChanged(const QModelIndex &topLeft, const QModelIndex &bottomRight,
                     const QList<int> &roles = QList<int>()) override;

private:
    QRegion m_painting; // the region of the paint event under way, viewport coordinates
};

} // namespace ClusterDeck::Ui
