#pragma once

#include <QHash>
#include <QList>
#include <QObject>
#include <QPointer>

namespace ClusterDeck::Ui {

class ConsoleController;
class MainWindow;

// The console's main windows: File ▸ New Window opens another on the same store (one
// ConsoleController, hence one embedded controller, per store in the process) or on another
// store. Each window keeps its geometry and store in a settings group of its own; the windows
// open when the console quits open again at the next start. A window closed while others stay
// open is forgotten.
class WindowManager : public QObject
{
    Q_OBJECT

public:
    explicit WindowManager(QObject *parent = nullptr);
    ~WindowManager() override;

    // The console's embedded controller in each store's ConsoleController (--no-controller: off).
    void setEmbeddedControllerEnabled(bool enabled) { m_embeddedController = enabled; }

    // The windows of the last run, each on its store; with `store` given, one window on it.
    // Always opens at least one window.
    QList<MainWindow *> restoreWindows(const QString &store = {});
    // A new window on `store` (empty: the default store), placed beside `beside` when its
    // settings group holds no geometry yet.
    MainWindow *openWindow(const QString &store, MainWindow *beside = nullptr);
    QList<MainWindow *> windows() const;
    // The store a window shows, as it was asked for (empty: the default store).
    QString storeOf(const MainWindow *window) const;
    ConsoleController *controllerFor(const QString &store) const;

    // Closes every window (each may refuse: unsaved template changes); the ones that close are
    // opened again at the next start. False when a window stayed open.
    bool quit();

Q_SIGNALS:
    void windowOpened(ClusterDeck::Ui::MainWindow *window);

private:
    struct Window
    {
        QPointer<MainWindow> window;
        QString store;
        QString group;
    };
    struct Store
    {
        ConsoleController *controller = nullptr;
        int windows = 0;
    };

    MainWindow *open(const QString &store, const QString &group, MainWindow *beside);
    void windowClosed(MainWindow *window);
    void askForStore(MainWindow *window);
    QString freeGroup() const;
    // "Windows/open": the groups of the windows open now, for the next start.
    void writeOpenWindows() const;

    QList<Window> m_windows;
    QHash<QString, Store> m_stores;
    bool m_embeddedController = true;
    bool m_quitting = false;
};

} // namespace ClusterDeck::Ui
