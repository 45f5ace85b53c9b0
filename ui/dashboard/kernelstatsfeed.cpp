#include "kernelstatsfeed.h"

#include "docker/dockerclient.h"
#include "host/hostregistry.h"
#include "models/sessiontreemodel.h"
#include "stats/statsmonitor.h"

#include <QPointer>
#include <QThreadPool>
#include <QTimer>

namespace ClusterDeck::Ui {

KernelStatsFeed::KernelStatsFeed(SessionTreeModel *model, std::function<HostRegistry *()> registry,
                                 QThreadPool *pool, QObject *parent)
    : QObject(parent)
    , m_model(model)
    , m_registry(std::move(registry))
    , m_pool(pool)
    , m_monitor(new StatsMonitor(this))
    , m_resync(new QTimer(this))
{
    connect(m_monitor, &StatsMonitor::sampled, this, &KernelStatsFeed::sampled);
    connect(m_monitor, &StatsMonitor::streamEnded, this,
            [this](const QString &kernelId, const QString &) { Q_EMIT ended(kernelId); });
    m_resync->setSingleShot(true);
    m_resync->setInterval(1000);
    connect(m_resync, &QTimer::timeout, this, &KernelStatsFeed::sync);
    auto schedule = [this] {
        if (m_active)
            m_resync->start();
    };
    connect(m_model, &QAbstractItemModel::modelReset, this, schedule);
    connect(m_model, &QAbstractItemModel::rowsInserted, this, schedule);
    connect(m_model, &QAbstractItemModel::rowsRemoved, this, schedule);
    connect(m_model, &QAbstractItemModel::dataChanged, this,
            [schedule](const QModelIndex &, const QModelIndex &bottomRight) {
                // Usage updates (ours) change the usage columns only.
                if (bottomRight.column() < SessionTreeModel::CpuColumn)
                    schedule();
            });
}

void KernelStatsFeed::setActive(bool active)
{
    if (active == m_active)
        return;
    m_active = active;
    if (active) {
        sync();
        return;
    }
    ++m_generation;
    m_resync->stop();
    m_monitor->unwatchAll();
    Q_EMIT cleared();
}

void KernelStatsFeed::sync()
{
    HostRegistry *registry = m_registry ? m_registry() : nullptr;
    if (!m_active || !registry)
        return;
    struct Wanted
    {
        QString kernelId, host, container;
    };
    QList<Wanted> wanted;
    QSet<QString> running;
    for (const KernelRecord &k : m_model->runningKernels()) {
        running.insert(k.id);
        if (!m_monitor->isWatching(k.id) && !k.containerId.isEmpty())
            wanted.append({k.id, k.host, k.containerId});
    }
    for (const QString &id : m_monitor->watchedKernels()) {
        if (!running.contains(id)) {
            m_monitor->unwatch(id);
            Q_EMIT ended(id);
        }
    }
    if (wanted.isEmpty())
        return;
    QPointer<KernelStatsFeed> self(this);
    const int generation = m_generation;
    m_pool->start([self, registry, wanted, generation] {
        QList<std::pair<Wanted, std::shared_ptr<const Docker::DockerClient>>> ready;
        for (const Wanted &w : wanted) {
            if (auto client = registry->client(w.host))
                ready.append({w, *client});
        }
        QMetaObject::invokeMethod(
            self.data(),
            [self, ready, generation] {
                if (!self || generation != self->m_generation || !self->m_active)
                    return;
                for (const auto &[w, client] : ready)
                    self->m_monitor->watch(w.kernelId, client, w.container);
            },
            Qt::QueuedConnection);
    });
}

} // namespace ClusterDeck::Ui
