#pragma once

#include <QStyledItemDelegate>

namespace ClusterDeck::Ui {

// Draws "allocated / total" cells as a bar (the model's RatioRole) with the text on top.
class UsageBarDelegate : public QStyledItemDelegate
{
    Q_OBJECT

public:
    using QStyledItemDelegate::QStyledItemDelegate;
    void paint(QPainter *painter, const QStyleOptionViewItem &option,
               const QModelIndex &index) const override;
};

} // namespace ClusterDeck::Ui
