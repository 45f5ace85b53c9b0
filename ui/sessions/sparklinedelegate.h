#pragma once

#include <QStyledItemDelegate>

namespace ClusterDeck::Ui {

// Paints a usage cell: the figure as text and, behind it, a sparkline of the last minute taken
// from `historyRole` (a QList<double>). `maximum` fixes the scale (100 for CPU %); 0 scales to
// the largest sample (memory).
class SparklineDelegate : public QStyledItemDelegate
{
    Q_OBJECT

public:
    SparklineDelegate(int historyRole, double maximum, QObject *parent = nullptr);

    void paint(QPainter *painter, const QStyleOptionViewItem &option,
               const QModelIndex &index) const override;
    QSize sizeHint(const QStyleOptionViewItem &option, const QModelIndex &index) const override;

    // The polyline for `samples` in `rect` (pure: tested without painting).
    static QPolygonF sparkline(const QList<double> &samples, const QRectF &rect, double maximum,
                               int capacity);

private:
    int m_historyRole;
    double m_maximum;
};

} // namespace ClusterDeck::Ui
