#include "terminaltabs.h"

#include "terminalscreen.h"
#include "terminalsession.h"
#include "terminalwidget.h"
#include "widgets/detachedwindow.h"

#include <QMenu>
#include <QTabBar>

namespace ClusterDeck::Ui {

TerminalTabs::TerminalTabs(QWidget *parent)
    : QTabWidget(parent)
{
    setObjectName(QStringLiteral("terminalTabs"));
    setTabsClosable(true);
    setMovable(true);
    setDocumentMode(true);
    connect(this, &QTabWidget::tabCloseRequested, this, &TerminalTabs::closeTerminal);
    tabBar()->setContextMenuPolicy(Qt::CustomContextMenu);
    connect(tabBar(), &QWidget::customContextMenuRequested, this, &TerminalTabs::showTabMenu);
    updateTabBarFocus();
}

namespace {
constexpr char kTitleProperty[] = "clusterdeck_terminalTitle";
} // namespace

void TerminalTabs::showTabMenu(const QPoint &position)
{
    const int index = tabBar()->tabAt(position);
    if (index < 0)
        return;
    QMenu menu(this);
    menu.addAction(tr("Open in &Own Window"), this, [this, index] { detachTerminal(index); });
    menu.addAction(tr("&Close"), this, [this, index] { closeTerminal(index); });
    menu.exec(tabBar()->mapToGlobal(position));
}

void TerminalTabs::setTitle(TerminalWidget *terminal, const QString &title)
{
    terminal->setProperty(kTitleProperty, title);
    if (const int i = indexOf(terminal); i >= 0)
        setTabText(i, title);
    else if (DetachedWindow *away = DetachedWindow::of(terminal))
        away->setWindowTitle(tr("%1 — ClusterDeck").arg(title));
}

DetachedWindow *TerminalTabs::detachTerminal(int index)
{
    TerminalWidget *terminal = terminalAt(index);
    if (!terminal)
        return nullptr;
    const QString tip = tabToolTip(index);
    removeTab(index);
    auto *window = new DetachedWindow(
        terminal, tr("%1 — ClusterDeck").arg(terminal->property(kTitleProperty).toString()),
        QStringLiteral("terminal"),
        [this, tip](QWidget *content) {
            auto *back = static_cast<TerminalWidget *>(content);
            const int i = addTab(back, back->property(kTitleProperty).toString());
            setTabToolTip(i, tip);
            setCurrentIndex(i);
            back->setFocus();
        },
        this);
    window->show();
    terminal->setFocus();
    return window;
}

void TerminalTabs::tabInserted(int index)
{
    QTabWidget::tabInserted(index);
    updateTabBarFocus();
}

void TerminalTabs::tabRemoved(int index)
{
    QTabWidget::tabRemoved(index);
    updateTabBarFocus();
}

void TerminalTabs::updateTabBarFocus()
{
    // A tab bar without tabs has nothing to say or choose: no stop for Tab.
    tabBar()->setFocusPolicy(count() > 0 ? Qt::TabFocus : Qt::NoFocus);
}

TerminalTabs::~TerminalTabs() = default;

TerminalSession *TerminalTabs::sessionOf(TerminalWidget *widget) const
{
    return widget ? widget->findChild<TerminalSession *>(QString(), Qt::FindDirectChildrenOnly)
                  : nullptr;
}

TerminalWidget *TerminalTabs::terminalAt(int index) const
{
    return qobject_cast<TerminalWidget *>(widget(index));
}

TerminalWidget *TerminalTabs::openTerminal(std::shared_ptr<const Docker::DockerClient> client,
                                           const QString &containerId, const QString &title,
                                           const Docker::ExecStream::Options &options)
{
    return openTerminal(
        [client = std::move(client)]() -> Result<std::shared_ptr<const Docker::DockerClient>> {
            return client;
        },
        containerId, title, options);
}

TerminalWidget *TerminalTabs::openTerminal(
    std::function<Result<std::shared_ptr<const Docker::DockerClient>>()> provider,
    const QString &containerId, const QString &title, const Docker::ExecStream::Options &options)
{
    auto *terminal = new TerminalWidget;
    terminal->setObjectName(QStringLiteral("terminal:") + title);
    terminal->setAccessibleName(tr("Terminal in %1").arg(title));
    // Tab does not leave a terminal: say how one gets out.
    terminal->setAccessibleDescription(
        tr("Keys, Tab included, go to the shell; the console's shortcuts still work"));
    auto *session = new TerminalSession(std::move(provider), containerId, options, terminal);
    TerminalScreen *screen = terminal->screen();
    connect(session, &TerminalSession::received, screen, &TerminalScreen::feed);
    connect(screen, &TerminalScreen::output, session, &TerminalSession::send);
    connect(terminal, &TerminalWidget::sizeChanged, session, &TerminalSession::resize);
    terminal->setProperty(kTitleProperty, title);
    const int index = addTab(terminal, title);
    setTabToolTip(index, tr("Terminal in %1 (container %2)").arg(title, containerId.left(12)));
    auto markTab = [this, terminal, title](const QString &suffix) {
        setTitle(terminal, title + suffix);
    };
    connect(session, &TerminalSession::finished, this, [this, terminal, markTab](int code) {
        markTab(tr(" (exited %1)").arg(code));
        terminal->screen()->feed(tr("\r\n[process exited with code %1]\r\n").arg(code).toUtf8());
        Q_EMIT terminalFinished(terminal, code);
    });
    connect(session, &TerminalSession::failed, this, [terminal, markTab](const QString &message) {
        markTab(tr(" (failed)"));
        terminal->screen()->feed(("\r\n\x1b[31m" + message + "\x1b[0m\r\n").toUtf8());
    });
    setCurrentIndex(index);
    terminal->setFocus();
    // The size the widget has once laid out goes to the exec when it opens.
    session->resize(terminal->screen()->rows(), terminal->screen()->cols());
    session->start();
    return terminal;
}

void TerminalTabs::closeTerminal(int index)
{
    TerminalWidget *terminal = terminalAt(index);
    if (!terminal)
        return;
    removeTab(index);
    if (TerminalSession *session = sessionOf(terminal))
        session->close();
    terminal->deleteLater();
}

} // namespace ClusterDeck::Ui
