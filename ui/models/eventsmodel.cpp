#include "eventsmodel.h"

#include "common/inerttext.h"

#include <QLocale>

#include <algorithm>

namespace ClusterDeck::Ui {

EventsModel::EventsModel(QObject *parent)
    : QAbstractTableModel(parent)
{}

void EventsModel::setNameResolver(
    std::function<QString(const QString &, const QString &)> sessionName,
    std::function<QString(const QString &)> kernelName)
{
    m_sessionName = std::move(sessionName);
    m_kernelName = std::move(kernelName);
}

void EventsModel::setEvents(const QList<EventRecord> &events)
{
    beginResetModel();
    m_events = events;
    std::sort(m_events.begin(), m_events.end(),
              [](const EventRecord &a, const EventRecord &b) { return a.seq > b.seq; });
    if (m_events.size() > m_limit)
        m_events.resize(m_limit);
    endResetModel();
}

void EventsModel::appendEvents(const QList<EventRecord> &events)
{
    QList<EventRecord> fresh;
    const qint64 newest = m_events.isEmpty() ? 0 : m_events.constFirst().seq;
    for (const EventRecord &e : events)
        if (e.seq > newest)
            fresh.append(e);
    if (fresh.isEmpty())
        return;
    std::sort(fresh.begin(), fresh.end(),
              [](const EventRecord &a, const EventRecord &b) { return a.seq > b.seq; });
    beginInsertRows({}, 0, int(fresh.size()) - 1);
    m_events = fresh + m_events;
    endInsertRows();
    if (m_events.size() > m_limit) {
        beginRemoveRows({}, m_limit, int(m_events.size()) - 1);
        m_events.resize(m_limit);
        endRemoveRows();
    }
}

int EventsModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_events.size());
}

int EventsModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant EventsModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid))
        return {};
    const EventRecord &e = m_events.at(index.row());
    if (role == Qt::ToolTipRole && index.column() == DetailColumn)
        return InertText::of(e.detail);
    if (role == Qt::UserRole)
        return e.seq;
    if (role != Qt::DisplayRole)
        return {};
    switch (index.column()) {
    case TimeColumn:
        return QLocale().toString(e.at.toLocalTime(), QStringLiteral("yyyy-MM-dd HH:mm:ss"));
    case SessionColumn: {
        const QString name = m_sessionName ? m_sessionName(e.sessionId, e.kernelId) : QString();
        return name.isEmpty() ? e.sessionId.left(8) : name;
    }
    case KernelColumn: {
        const QString name = m_kernelName ? m_kernelName(e.kernelId) : QString();
        return name.isEmpty() ? e.kernelId.left(8) : name;
    }
    case ActionColumn:
        return e.action;
    case DetailColumn:
        return InertText::of(e.detail);
    case ActorColumn:
        return e.actor;
    }
    return {};
}

QVariant EventsModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case TimeColumn:
        return tr("Time");
    case SessionColumn:
        return tr("Session");
    case KernelColumn:
        return tr("Kernel");
    case ActionColumn:
        return tr("What happened");
    case DetailColumn:
        return tr("Detail");
    case ActorColumn:
        return tr("Who");
    }
    return {};
}

} // namespace ClusterDeck::Ui
