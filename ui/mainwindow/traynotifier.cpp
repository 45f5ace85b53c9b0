#include "traynotifier.h"

#include "models/sessiontreemodel.h"
#include "style/themeicon.h"

#include <QApplication>
#include <QLoggingCategory>
#include <QSystemTrayIcon>
#include <QWidget>

Q_LOGGING_CATEGORY(lcTray, "clusterdeck.ui.tray")

namespace ClusterDeck::Ui {

TrayNotifier::TrayNotifier(SessionTreeModel *model, QWidget *window, QObject *parent)
    : QObject(parent)
    , m_model(model)
    , m_window(window)
{
    if (QSystemTrayIcon::isSystemTrayAvailable()) {
        m_tray = new QSystemTrayIcon(QApplication::windowIcon().isNull()
                                         ? themeIcon(QStringLiteral("computer"))
                                         : QApplication::windowIcon(),
                                     this);
        m_tray->setToolTip(QStringLiteral("ClusterDeck"));
        connect(m_tray, &QSystemTrayIcon::activated, this,
                [this](QSystemTrayIcon::ActivationReason reason) {
                    if (!m_window || reason == QSystemTrayIcon::Context)
                        return;
                    m_window->showNormal();
                    m_window->raise();
                    m_window->activateWindow();
                });
        connect(m_tray, &QSystemTrayIcon::messageClicked, this, [this] {
            if (m_window) {
                m_window->showNormal();
                m_window->activateWindow();
            }
        });
        m_tray->show();
        m_presenter = [this](const Notice &n) {
            m_tray->showMessage(
                n.title, n.message,
                n.failure ? QSystemTrayIcon::Critical : QSystemTrayIcon::Information, 15000);
        };
    } else {
        qCDebug(lcTray) << "no system tray: no notifications";
    }

    connect(m_model, &QAbstractItemModel::modelReset, this, [this] { seedAll(m_seeded); });
    connect(m_model, &QAbstractItemModel::rowsInserted, this,
            [this](const QModelIndex &parent, int first, int last) {
                if (parent.isValid())
                    return;
                for (int row = first; row <= last; ++row)
                    check(m_model->index(row, 0), false);
            });
    connect(m_model, &QAbstractItemModel::dataChanged, this,
            [this](const QModelIndex &topLeft, const QModelIndex &bottomRight) {
                if (topLeft.parent().isValid())
                    return; // roles and kernels: their session row changes too
                for (int row = topLeft.row(); row <= bottomRight.row(); ++row)
                    check(m_model->index(row, 0), true);
            });
    seedAll(false);
}

TrayNotifier::~TrayNotifier() = default;

std::optional<TrayNotifier::Notice> TrayNotifier::noticeFor(const QString &name,
                                                            std::optional<SessionStatus> before,
                                                            SessionStatus after)
{
    if (!before || *before == after)
        return std::nullopt;
    switch (after) {
    case SessionStatus::Error:
        return Notice{tr("Session %1 failed").arg(name),
                      tr("%1 is in ERROR: open ClusterDeck to see why.").arg(name), true};
    case SessionStatus::Degraded:
        if (*before == SessionStatus::Error)
            return std::nullopt; // recovering, not failing
        return Notice{tr("Session %1 is degraded").arg(name),
                      tr("Some kernels of %1 stopped: open ClusterDeck to see which.").arg(name),
                      true};
    case SessionStatus::Completed:
        return Notice{tr("Session %1 completed").arg(name), tr("%1 finished its work.").arg(name),
                      false};
    default:
        return std::nullopt;
    }
}

bool TrayNotifier::isOutOfSight(const QWidget *window)
{
    return !window || !window->isVisible() || window->isMinimized();
}

void TrayNotifier::seedAll(bool announce)
{
    const int rows = m_model->rowCount();
    if (!announce)
        m_known.clear();
    for (int row = 0; row < rows; ++row)
        check(m_model->index(row, 0), announce);
    m_seeded = m_seeded || rows > 0 || announce;
}

void TrayNotifier::check(const QModelIndex &sessionRow, bool announce)
{
    const QString id = sessionRow.data(SessionTreeModel::IdRole).toString();
    const QVariant shown = sessionRow.data(SessionTreeModel::SessionStatusRole);
    if (id.isEmpty() || !shown.isValid())
        return;
    const auto status = shown.value<SessionStatus>();
    const std::optional<SessionStatus> before =
        m_known.contains(id) ? std::optional(m_known.value(id)) : std::nullopt;
    m_known.insert(id, status);
    if (!announce || !m_presenter || !isOutOfSight(m_window))
        return;
    const QString name = sessionRow.data(SessionTreeModel::SessionNameRole).toString();
    if (const auto notice = noticeFor(name.isEmpty() ? id.left(8) : name, before, status)) {
        qCInfo(lcTray) << notice->title;
        m_presenter(*notice);
    }
}

} // namespace ClusterDeck::Ui
