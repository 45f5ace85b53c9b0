#pragma once

#include <QWidget>

class QLineEdit;
class QSortFilterProxyModel;
class QTableView;

namespace ClusterDeck::Ui {

class ConsoleController;
class EventsModel;

// Lifecycle events from the store's event log, newest first, with a filter box.
class EventsView : public QWidget
{
    Q_OBJECT

public:
    explicit EventsView(ConsoleController *controller, QWidget *parent = nullptr);

    EventsModel *model() const { return m_model; }
    QSortFilterProxyModel *proxy() const { return m_proxy; }
    QLineEdit *filterEdit() const { return m_filter; }

private:
    ConsoleController *m_controller;
    EventsModel *m_model;
    QSortFilterProxyModel *m_proxy;
    QLineEdit *m_filter;
    QTableView *m_table;
};

} // namespace ClusterDeck::Ui
