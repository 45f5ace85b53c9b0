#include "windowmanager.h"

#include "console/consolecontroller.h"
#include "mainwindow.h"

#include <QAction>
#include <QApplication>
#include <QInputDialog>
#include <QScreen>
#include <QSettings>

namespace ClusterDeck::Ui {

namespace {
const QString kOpenKey = QStringLiteral("Windows/open");
const QString kFirstGroup = QStringLiteral("MainWindow");
} // namespace

WindowManager::WindowManager(QObject *parent)
    : QObject(parent)
{}

WindowManager::~WindowManager()
{
    // Windows first: their views use the controllers.
    for (const Window &w : std::as_const(m_windows))
        delete w.window.data();
    m_windows.clear();
    for (const Store &s : std::as_const(m_stores))
        delete s.controller;
}

QList<MainWindow *> WindowManager::restoreWindows(const QString &store)
{
    QList<MainWindow *> opened;
    if (store.isEmpty()) {
        QSettings settings;
        for (const QString &group : settings.value(kOpenKey).toStringList()) {
            if (group.isEmpty() || group.contains(u'/'))
                continue;
            const QString groupStore = settings.value(group + QStringLiteral("/store")).toString();
            opened.append(open(groupStore, group, nullptr));
        }
    }
    if (opened.isEmpty())
        opened.append(open(store, kFirstGroup, nullptr));
    return opened;
}

MainWindow *WindowManager::openWindow(const QString &store, MainWindow *beside)
{
    return open(store, freeGroup(), beside);
}

MainWindow *WindowManager::open(const QString &store, const QString &group, MainWindow *beside)
{
    Store &s = m_stores[store];
    if (!s.controller) {
        s.controller = new ConsoleController;
        s.controller->setEmbeddedControllerEnabled(m_embeddedController);
        s.controller->openStore(store); // in the background; the window shows now
    }
    ++s.windows;
    auto *window = new MainWindow(s.controller);
    window->setSettingsGroup(group);
    if (!window->restoreSettings() && beside) {
        // Beside the window it was opened from, on the same screen.
        const QRect screen = beside->screen()->availableGeometry();
        QRect place = beside->geometry().translated(48, 48);
        if (!screen.contains(place.topLeft()))
            place.moveTopLeft(screen.topLeft());
        window->setGeometry(place);
    }
    m_windows.append({window, store, group});
    QSettings().setValue(group + QStringLiteral("/store"), store);
    writeOpenWindows();

    window->newWindowAction()->setVisible(true);
    window->newWindowOnStoreAction()->setVisible(true);
    connect(window->newWindowAction(), &QAction::triggered, this,
            [this, window] { openWindow(storeOf(window), window)->show(); });
    connect(window->newWindowOnStoreAction(), &QAction::triggered, this,
            [this, window] { askForStore(window); });
    // Quit ends the console, every window with it (each is remembered for the next start).
    disconnect(window->quitAction(), &QAction::triggered, window, nullptr);
    connect(window->quitAction(), &QAction::triggered, this, &WindowManager::quit);
    connect(window, &MainWindow::closed, this, [this, window] { windowClosed(window); });
    Q_EMIT windowOpened(window);
    return window;
}

void WindowManager::askForStore(MainWindow *window)
{
    auto *dialog = new QInputDialog(window);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    dialog->setWindowTitle(tr("New Window on Store"));
    dialog->setLabelText(
        tr("Store URL (sqlite:///path/state.db or etcd://host:2379/prefix); empty: "
           "the default store:"));
    dialog->setTextValue(storeOf(window));
    connect(dialog, &QInputDialog::textValueSelected, this,
            [this, window](const QString &url) { openWindow(url.trimmed(), window)->show(); });
    dialog->open();
}

void WindowManager::windowClosed(MainWindow *window)
{
    const auto it = std::find_if(m_windows.begin(), m_windows.end(),
                                 [window](const Window &w) { return w.window == window; });
    if (it == m_windows.end())
        return;
    const QString store = it->store;
    // The last window, or any window while quitting, is what the admin had open: kept in the
    // list for the next start. Another window closed on its own is forgotten.
    const bool remember = m_quitting || m_windows.size() == 1;
    if (!remember) {
        m_windows.erase(it);
        writeOpenWindows();
    }
    Store &s = m_stores[store];
    if (!remember) {
        window->deleteLater();
        if (--s.windows == 0) {
            // After the window (posted first, deleted first): its views use the controller.
            s.controller->deleteLater();
            m_stores.remove(store);
        }
    }
}

bool WindowManager::quit()
{
    m_quitting = true;
    for (const Window &w : QList<Window>(m_windows)) {
        if (w.window && w.window->isVisible() && !w.window->close()) {
            m_quitting = false; // a window kept its unsaved template
            return false;
        }
    }
    QApplication::quit();
    return true;
}

QList<MainWindow *> WindowManager::windows() const
{
    QList<MainWindow *> list;
    for (const Window &w : m_windows)
        if (w.window)
            list.append(w.window);
    return list;
}

QString WindowManager::storeOf(const MainWindow *window) const
{
    for (const Window &w : m_windows)
        if (w.window == window)
            return w.store;
    return {};
}

ConsoleController *WindowManager::controllerFor(const QString &store) const
{
    return m_stores.value(store).controller;
}

QString WindowManager::freeGroup() const
{
    for (int n = 1;; ++n) {
        const QString group = n == 1 ? kFirstGroup : kFirstGroup + QString::number(n);
        if (std::none_of(m_windows.begin(), m_windows.end(),
                         [&group](const Window &w) { return w.group == group; }))
            return group;
    }
}

void WindowManager::writeOpenWindows() const
{
    QStringList groups;
    for (const Window &w : m_windows)
        groups.append(w.group);
    QSettings().setValue(kOpenKey, groups);
}

} // namespace ClusterDeck::Ui
