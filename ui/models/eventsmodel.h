#pragma once

#include "store/records.h"

#include <QAbstractTableModel>
#include <functional>

namespace ClusterDeck::Ui {

// The store's event log, newest first: time, session, kernel, what happened, detail, who.
// New events are inserted at the top (rowsInserted), never by a reset.
class EventsModel : public QAbstractTableModel
{
    Q_OBJECT

public:
    enum Column {
        TimeColumn,
        SessionColumn,
        KernelColumn,
        ActionColumn,
        DetailColumn,
        ActorColumn,
        ColumnCount
    };

    explicit EventsModel(QObject *parent = nullptr);

    // Names for ids (session id → name, kernel id → hostname); ids are shown when unknown.
    void setNameResolver(
        std::function<QString(const QString &sessionId, const QString &kernelId)> sessionName,
        std::function<QString(const QString &kernelId)> kernelName);
    void setEvents(const QList<EventRecord> &events); // any order
    void appendEvents(const QList<EventRecord> &events);
    void setLimit(int limit) { m_limit = limit; }
    EventRecord event(int row) const { return m_events.at(row); }

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

private:
    QList<EventRecord> m_events; // newest first
    int m_limit = 5000;
    std::function<QString(const QString &, const QString &)> m_sessionName;
    std::function<QString(const QString &)> m_kernelName;
};

} // namespace ClusterDeck::Ui
