#include "portlinkdelegate.h"

#include "models/sessiontreemodel.h"
#include "portprober.h"
#include "sessiontreeview.h"

#include <QAbstractItemView>
#include <QApplication>
#include <QHelpEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>

namespace ClusterDeck::Ui {

namespace {
constexpr int kDot = 8;
constexpr int kGap = 14;
constexpr int kMargin = 4;
} // namespace

PortLinkDelegate::PortLinkDelegate(PortProber *prober, QObject *parent)
    : QStyledItemDelegate(parent)
    , m_prober(prober)
{}

QList<PortLinkDelegate::Link> PortLinkDelegate::links(const QStyleOptionViewItem &option,
                                                      const QModelIndex &index) const
{
    QList<Link> out;
    QFont font = option.font;
    font.setUnderline(true);
    const QFontMetrics fm(font);
    int x = option.rect.left() + kMargin;
    for (const QVariant &v : index.data(SessionTreeModel::PortsRole).toList()) {
        const QVariantMap port = v.toMap();
        Link link;
        link.url = port.value(QStringLiteral("url")).toString();
        const QString name = port.value(QStringLiteral("name")).toString();
        const QString address = port.value(QStringLiteral("address")).toString();
        const int hostPort = port.value(QStringLiteral("port")).toInt();
        link.label = name + QStringLiteral(" → ") +
                     (port.value(QStringLiteral("protocol")).toString() == u"http"
                          ? link.url
                          : address + u':' + QString::number(hostPort));
        link.endpoint = PortProber::endpointKey(address, hostPort);
        const int width = kDot + 4 + fm.horizontalAdvance(link.label);
        link.rect = QRect(x, option.rect.top(), width, option.rect.height());
        x += width + kGap;
        out.append(link);
    }
    return out;
}

void PortLinkDelegate::paint(QPainter *painter, const QStyleOptionViewItem &option,
                             const QModelIndex &index) const
{
    if (!SessionTreeView::cellExposed(option))
        return;
    QStyleOptionViewItem opt = option;
    initStyleOption(&opt, index);
    opt.text.clear(); // the background and selection only; the links are drawn below
    const QWidget *widget = option.widget;
    QStyle *style = widget ? widget->style() : QApplication::style();
    style->drawControl(QStyle::CE_ItemViewItem, &opt, painter, widget);

    const QList<Link> all = links(option, index);
    if (all.isEmpty())
        return;
    painter->save();
    painter->setClipRect(option.rect);
    QFont font = option.font;
    font.setUnderline(true);
    painter->setFont(font);
    const bool selected = option.state & QStyle::State_Selected;
    const QColor linkColor = selected ? option.palette.color(QPalette::HighlightedText)
                                      : option.palette.color(QPalette::Link);
    for (const Link &link : all) {
        const PortProber::State state =
            m_prober ? m_prober->state(link.endpoint) : PortProber::State::Unknown;
        QColor dot(0x9a, 0x9a, 0x9a); // unknown / probing
        if (state == PortProber::State::Open)
            dot = QColor(0x2e, 0x9d, 0x48);
        else if (state == PortProber::State::Closed)
            dot = QColor(0xcc, 0x33, 0x33);
        const QRect dotRect(link.rect.left(), link.rect.center().y() - kDot / 2, kDot, kDot);
        painter->setRenderHint(QPainter::Antialiasing);
        painter->setPen(Qt::NoPen);
        painter->setBrush(dot);
        painter->drawEllipse(dotRect);
        painter->setPen(linkColor);
        const QRect textRect = link.rect.adjusted(kDot + 4, 0, 0, 0);
        painter->drawText(textRect, Qt::AlignVCenter | Qt::AlignLeft, link.label);
    }
    painter->restore();
}

QSize PortLinkDelegate::sizeHint(const QStyleOptionViewItem &option, const QModelIndex &index) const
{
    QSize size = QStyledItemDelegate::sizeHint(option, index);
    QStyleOptionViewItem opt = option;
    opt.rect = QRect(0, 0, 0, size.height());
    const QList<Link> all = links(opt, index);
    if (!all.isEmpty())
        size.setWidth(std::max(size.width(), all.constLast().rect.right() + kMargin));
    return size;
}

bool PortLinkDelegate::editorEvent(QEvent *event, QAbstractItemModel *model,
                                   const QStyleOptionViewItem &option, const QModelIndex &index)
{
    if (event->type() == QEvent::MouseButtonRelease) {
        auto *mouse = static_cast<QMouseEvent *>(event);
        if (mouse->button() == Qt::LeftButton) {
            for (const Link &link : links(option, index)) {
                if (link.rect.contains(mouse->position().toPoint())) {
                    Q_EMIT linkActivated(link.url);
                    return true;
                }
            }
        }
    }
    return QStyledItemDelegate::editorEvent(event, model, option, index);
}

bool PortLinkDelegate::helpEvent(QHelpEvent *event, QAbstractItemView *view,
                                 const QStyleOptionViewItem &option, const QModelIndex &index)
{
    if (event->type() == QEvent::ToolTip) {
        for (const Link &link : links(option, index)) {
            if (!link.rect.contains(event->pos()))
                continue;
            QString state = tr("not probed yet");
            switch (m_prober ? m_prober->state(link.endpoint) : PortProber::State::Unknown) {
            case PortProber::State::Open:
                state = tr("answers");
                break;
            case PortProber::State::Closed:
                state = tr("does not answer");
                break;
            case PortProber::State::Probing:
            case PortProber::State::Unknown:
                break;
            }
            QToolTip::showText(event->globalPos(),
                               tr("%1\n%2 — click to open").arg(link.url, state), view);
            return true;
        }
    }
    return QStyledItemDelegate::helpEvent(event, view, option, index);
}

} // namespace ClusterDeck::Ui
