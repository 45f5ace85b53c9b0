#include "detachedwindow.h"

#include <QAction>
#include <QCloseEvent>
#include <QHBoxLayout>
#include <QLabel>
#include <QSettings>
#include <QToolButton>
#include <QVBoxLayout>

namespace ClusterDeck::Ui {

namespace {
constexpr char kContentProperty[] = "clusterdeck_detachedWindow";
QString settingsKey(const QString &kind)
{
    return QStringLiteral("DetachedWindows/%1/geometry").arg(kind);
}
} // namespace

DetachedWindow::DetachedWindow(QWidget *content, const QString &title, const QString &kind,
                               DockBack dockBack, QWidget *owner)
    : QWidget(owner, Qt::Window)
    , m_content(content)
    , m_kind(kind)
    , m_dockBack(std::move(dockBack))
{
    setObjectName(QStringLiteral("detached:") + kind);
    setAttribute(Qt::WA_DeleteOnClose);
    setWindowTitle(title);
    setAccessibleName(title);

    m_dockBackButton = new QToolButton;
    m_dockBackButton->setObjectName(QStringLiteral("dockBack"));
    auto *action = new QAction(tr("&Dock Back"), this);
    action->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_D));
    action->setToolTip(tr("Put this back into the window it came from (Ctrl+Shift+D)"));
    connect(action, &QAction::triggered, this, &DetachedWindow::dockBack);
    m_dockBackButton->setDefaultAction(action);
    m_dockBackButton->setAccessibleName(tr("Dock back"));
    m_dockBackButton->setAccessibleDescription(action->toolTip());
    addAction(action);

    auto *bar = new QHBoxLayout;
    bar->setContentsMargins(6, 4, 6, 0);
    auto *titleLabel = new QLabel(title);
    titleLabel->setObjectName(QStringLiteral("detachedTitle"));
    bar->addWidget(titleLabel, 1);
    bar->addWidget(m_dockBackButton);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(2);
    layout->addLayout(bar);
    content->setParent(this);
    layout->addWidget(content, 1);
    content->setProperty(kContentProperty, QVariant::fromValue<QObject *>(this));
    content->show();

    const QByteArray geometry = QSettings().value(settingsKey(kind)).toByteArray();
    if (geometry.isEmpty() || !restoreGeometry(geometry))
        resize(content->size().expandedTo(QSize(640, 420)));
}

DetachedWindow::~DetachedWindow() = default;

DetachedWindow *DetachedWindow::of(const QWidget *content)
{
    if (!content)
        return nullptr;
    return qobject_cast<DetachedWindow *>(content->property(kContentProperty).value<QObject *>());
}

void DetachedWindow::saveGeometrySetting() const
{
    QSettings().setValue(settingsKey(m_kind), saveGeometry());
}

void DetachedWindow::dockBack()
{
    close(); // closeEvent hands the content back
}

void DetachedWindow::closeEvent(QCloseEvent *event)
{
    if (!m_docked) {
        m_docked = true;
        saveGeometrySetting();
        if (m_content) {
            layout()->removeWidget(m_content);
            m_content->setProperty(kContentProperty, QVariant());
            m_content->setParent(nullptr);
            if (m_dockBack)
                m_dockBack(m_content);
        }
    }
    QWidget::closeEvent(event);
}

} // namespace ClusterDeck::Ui
