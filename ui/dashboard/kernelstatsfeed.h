#pragma once

#include "docker/statstypes.h"

#include <QObject>

#include <functional>

class QThreadPool;
class QTimer;

namespace ClusterDeck {
class HostRegistry;
class StatsMonitor;
} // namespace ClusterDeck

namespace ClusterDeck::Ui {

class SessionTreeModel;

// Keeps one stats stream open per running kernel of the session tree while a view that shows
// usage is visible (setActive), and none otherwise. Streams follow the tree: re-checked a second
// after it changes. Docker clients are looked up off the GUI thread (the registry may ask its
// store); the samples arrive through `sampled` on the feed's thread.
class KernelStatsFeed : public QObject
{
    Q_OBJECT

public:
    // Lookups run on `pool`: its owner waits for it before the registry goes (a lookup on the
    // global pool outlived the registry it used).
    KernelStatsFeed(SessionTreeModel *model, std::function<HostRegistry *()> registry,
                    QThreadPool *pool, QObject *parent = nullptr);

    void setActive(bool active);
    bool isActive() const { return m_active; }
    StatsMonitor *monitor() const { return m_monitor; }

public Q_SLOTS:
    void sync();

Q_SIGNALS:
    void sampled(const QString &kernelId, const ClusterDeck::Docker::ResourceUsage &usage);
    // The kernel's stream ended (it stopped, its host went away) or is no longer wanted.
    void ended(const QString &kernelId);
    // setActive(false): every stream closed at once.
    void cleared();

private:
    SessionTreeModel *m_model;
    std::function<HostRegistry *()> m_registry;
    QThreadPool *m_pool;
    StatsMonitor *m_monitor;
    QTimer *m_resync;
    bool m_active = false;
    int m_generation = 0; // drops client lookups that finish after a deactivation
};

} // namespace ClusterDeck::Ui
