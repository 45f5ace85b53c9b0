#include "sparklinedelegate.h"

#include "models/sessiontreemodel.h"
#include "sessiontreeview.h"

#include <QApplication>
#include <QPainter>
#include <QPainterPath>

namespace ClusterDeck::Ui {

SparklineDelegate::SparklineDelegate(int historyRole, double maximum, QObject *parent)
    : QStyledItemDelegate(parent)
    , m_historyRole(historyRole)
    , m_maximum(maximum)
{}

QPolygonF SparklineDelegate::sparkline(const QList<double> &samples, const QRectF &rect,
                                       double maximum, int capacity)
{
    QPolygonF line;
    if (samples.isEmpty() || rect.width() <= 0 || rect.height() <= 0 || capacity < 2)
        return line;
    double top = maximum;
    if (top <= 0) {
        for (double v : samples)
            top = std::max(top, v);
    }
    // Above the fixed scale (several cores busy): the scale grows with the data.
    for (double v : samples)
        top = std::max(top, v);
    if (top <= 0)
        top = 1;
    // The newest sample at the right edge; one step per sample of the capacity.
    const double step = rect.width() / double(capacity - 1);
    const qsizetype n = samples.size();
    line.reserve(n);
    for (qsizetype i = 0; i < n; ++i) {
        const double x = rect.right() - double(n - 1 - i) * step;
        const double y = rect.bottom() - std::clamp(samples.at(i) / top, 0.0, 1.0) * rect.height();
        line.append(QPointF(x, y));
    }
    return line;
}

void SparklineDelegate::paint(QPainter *painter, const QStyleOptionViewItem &option,
                              const QModelIndex &index) const
{
    if (!SessionTreeView::cellExposed(option))
        return;
    QStyleOptionViewItem opt = option;
    initStyleOption(&opt, index);
    const QString text = opt.text;
    opt.text.clear();
    const QWidget *widget = option.widget;
    QStyle *style = widget ? widget->style() : QApplication::style();
    style->drawControl(QStyle::CE_ItemViewItem, &opt, painter, widget);

    const QList<double> samples = index.data(m_historyRole).value<QList<double>>();
    const QRectF area = QRectF(opt.rect).adjusted(2, 3, -2, -3);
    if (samples.size() >= 2) {
        const QPolygonF line = sparkline(samples, area, m_maximum, SessionTreeModel::kUsageHistory);
        QColor colour = opt.palette.color(QPalette::Highlight);
        painter->save();
        painter->setRenderHint(QPainter::Antialiasing);
        QPainterPath fill;
        fill.moveTo(line.first().x(), area.bottom());
        for (const QPointF &p : line)
            fill.lineTo(p);
        fill.lineTo(line.last().x(), area.bottom());
        fill.closeSubpath();
        QColor light = colour;
        light.setAlpha(50);
        painter->fillPath(fill, light);
        painter->setPen(QPen(colour, 1.2));
        painter->drawPolyline(line);
        painter->restore();
    }
    if (!text.isEmpty()) {
        painter->save();
        painter->setPen(opt.palette.color(
            opt.state & QStyle::State_Selected ? QPalette::HighlightedText : QPalette::Text));
        painter->drawText(QRectF(opt.rect).adjusted(4, 0, -4, 0), Qt::AlignRight | Qt::AlignVCenter,
                          text);
        painter->restore();
    }
}

QSize SparklineDelegate::sizeHint(const QStyleOptionViewItem &option,
                                  const QModelIndex &index) const
{
    QSize s = QStyledItemDelegate::sizeHint(option, index);
    s.setWidth(std::max(s.width(), 120));
    return s;
}

} // namespace ClusterDeck::Ui
