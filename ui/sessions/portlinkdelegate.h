#pragma once

#include <QStyledItemDelegate>

namespace ClusterDeck::Ui {

class PortProber;

// Paints a row's service ports as links ("● web → http://10.0.0.3:49153"), the dot coloured by
// whether the port answers (PortProber), and opens the one clicked.
class PortLinkDelegate : public QStyledItemDelegate
{
    Q_OBJECT

public:
    explicit PortLinkDelegate(PortProber *prober, QObject *parent = nullptr);

    void paint(QPainter *painter, const QStyleOptionViewItem &option,
               const QModelIndex &index) const override;
    QSize sizeHint(const QStyleOptionViewItem &option, const QModelIndex &index) const override;
    bool editorEvent(QEvent *event, QAbstractItemModel *model, const QStyleOptionViewItem &option,
                     const QModelIndex &index) override;
    bool helpEvent(QHelpEvent *event, QAbstractItemView *view, const QStyleOptionViewItem &option,
                   const QModelIndex &index) override;

    struct Link
    {
        QRect rect;
        QString url;
        QString label;
        QString endpoint; // address:port
    };
    // Where each port's link sits in a cell (for painting, clicking and tests).
    QList<Link> links(const QStyleOptionViewItem &option, const QModelIndex &index) const;

Q_SIGNALS:
    void linkActivated(const QString &url);

private:
    PortProber *m_prober;
};

} // namespace ClusterDeck::Ui
