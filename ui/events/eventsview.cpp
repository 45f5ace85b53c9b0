#include "eventsview.h"

#include "console/consolecontroller.h"
#include "models/eventsmodel.h"
#include "models/sessiontreemodel.h"

#include <QHeaderView>
#include <QLineEdit>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QVBoxLayout>

namespace ClusterDeck::Ui {

EventsView::EventsView(ConsoleController *controller, QWidget *parent)
    : QWidget(parent)
    , m_controller(controller)
    , m_model(new EventsModel(this))
    , m_proxy(new QSortFilterProxyModel(this))
    , m_filter(new QLineEdit)
    , m_table(new QTableView)
{
    setObjectName(QStringLiteral("eventsView"));
    SessionTreeModel *sessions = controller->sessionModel();
    m_model->setNameResolver(
        [sessions](const QString &sessionId, const QString &) {
            const auto s = sessions->sessionRecord(sessionId);
            return s ? s->name : QString();
        },
        [sessions](const QString &kernelId) {
            const auto k = sessions->kernelRecord(kernelId);
            return k ? k->hostname : QString();
        });
    m_proxy->setSourceModel(m_model);
    m_proxy->setFilterKeyColumn(-1);
    m_proxy->setFilterCaseSensitivity(Qt::CaseInsensitive);
    m_filter->setObjectName(QStringLiteral("eventsFilter"));
    m_filter->setPlaceholderText(tr("Filter events: session, kernel, action, detail, who"));
    m_filter->setClearButtonEnabled(true);
    m_filter->setAccessibleName(tr("Filter events")); // the placeholder only describes it
    m_table->setObjectName(QStringLiteral("eventsTable"));
    m_table->setAccessibleName(tr("Events"));
    m_table->setModel(m_proxy);
    m_table->verticalHeader()->hide();
    m_table->setAlternatingRowColors(true);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->horizontalHeader()->setStretchLastSection(true);
    m_table->setColumnWidth(EventsModel::TimeColumn, 150);
    m_table->setColumnWidth(EventsModel::SessionColumn, 140);
    m_table->setColumnWidth(EventsModel::KernelColumn, 90);
    m_table->setColumnWidth(EventsModel::ActionColumn, 120);
    m_table->setColumnWidth(EventsModel::DetailColumn, 420);

    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_filter);
    layout->addWidget(m_table);

    connect(m_filter, &QLineEdit::textChanged, m_proxy,
            &QSortFilterProxyModel::setFilterFixedString);
    connect(controller, &ConsoleController::eventsReset, this,
            [this] { m_model->setEvents(m_controller->events()); });
    connect(controller, &ConsoleController::eventsAppended, m_model, &EventsModel::appendEvents);
    m_model->setEvents(controller->events());
}

} // namespace ClusterDeck::Ui
