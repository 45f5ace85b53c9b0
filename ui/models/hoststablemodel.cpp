#include "hoststablemodel.h"
#include "common/bytesize.h"

#include <QColor>
#include <QLocale>

namespace ClusterDeck::Ui {

HostsTableModel::HostsTableModel(QObject *parent)
    : QAbstractTableModel(parent)
{}

void HostsTableModel::setHosts(const QList<HostRecord> &hosts)
{
    QStringList before;
    for (const HostRecord &h : std::as_const(m_hosts))
        before << h.name;
    QStringList after;
    for (const HostRecord &h : hosts)
        after << h.name;
    if (before == after) {
        // Same rows: update in place so the selection stays.
        m_hosts = hosts;
        if (!m_hosts.isEmpty())
            Q_EMIT dataChanged(index(0, 0), index(rowCount() - 1, ColumnCount - 1));
        return;
    }
    beginResetModel();
    m_hosts = hosts;
    endResetModel();
}

void HostsTableModel::setHealth(const QMap<QString, HostHealth> &health)
{
    if (health == m_health)
        return;
    m_health = health;
    if (!m_hosts.isEmpty())
        Q_EMIT dataChanged(index(0, ControllerColumn),
                           index(int(m_hosts.size()) - 1, ControllerColumn));
}

void HostsTableModel::setLiveUsage(const QHash<QString, Docker::ResourceUsage> &usage,
                                   bool streaming)
{
    if (usage == m_live && streaming == m_streaming)
        return;
    m_live = usage;
    m_streaming = streaming;
    if (m_hosts.isEmpty())
        return;
    Q_EMIT dataChanged(index(0, CpuUsedColumn), index(int(m_hosts.size()) - 1, CpuUsedColumn));
    Q_EMIT dataChanged(index(0, MemoryUsedColumn),
                       index(int(m_hosts.size()) - 1, MemoryUsedColumn));
}

void HostsTableModel::setStatuses(const QList<HostStatus> &statuses)
{
    m_statuses.clear();
    for (const HostStatus &s : statuses)
        m_statuses.insert(s.host.name, s);
    if (m_hosts.isEmpty() && !statuses.isEmpty()) {
        QList<HostRecord> hosts;
        for (const HostStatus &s : statuses)
            hosts << s.host;
        setHosts(hosts);
        return;
    }
    if (!m_hosts.isEmpty())
        Q_EMIT dataChanged(index(0, 0), index(rowCount() - 1, ColumnCount - 1));
}

std::optional<HostStatus> HostsTableModel::status(const QString &name) const
{
    auto it = m_statuses.constFind(name);
    if (it == m_statuses.constEnd())
        return std::nullopt;
    return *it;
}

QString HostsTableModel::hostName(int row) const
{
    return row >= 0 && row < m_hosts.size() ? m_hosts.at(row).name : QString();
}

int HostsTableModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_hosts.size());
}

int HostsTableModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant HostsTableModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid))
        return {};
    const HostRecord &h = m_hosts.at(index.row());
    const auto it = m_statuses.constFind(h.name);
    const HostStatus *s = it == m_statuses.constEnd() ? nullptr : &*it;
    if (role == NameRole)
        return h.name;
    if (role == ReachableRole)
        return s && s->reachable;
    switch (index.column()) {
    case NameColumn:
        if (role == Qt::DisplayRole)
            return h.name;
        if (role == Qt::ToolTipRole && !h.publicAddress.isEmpty())
            return tr("Public address: %1").arg(h.publicAddress);
        break;
    case EndpointColumn:
        if (role == Qt::DisplayRole)
            return h.endpoint;
        break;
    case ReachableColumn:
        if (role == Qt::DisplayRole)
            return !s ? tr("checking…") : s->reachable ? tr("yes") : tr("no: %1").arg(s->error);
        if (role == Qt::ForegroundRole && s)
            return s->reachable ? QColor(0x2e, 0x9d, 0x48) : QColor(0xcc, 0x33, 0x33);
        if (role == Qt::ToolTipRole && s && !s->error.isEmpty())
            return s->error;
        break;
    case DockerColumn:
        if (role == Qt::DisplayRole && s && s->reachable)
            return tr("%1 (API %2)").arg(s->dockerVersion, s->apiVersion);
        break;
    case SwarmColumn:
        if (role == Qt::DisplayRole && s && s->reachable)
            return s->swarmRole.isEmpty()
                       ? s->swarmState
                       : QString(s->swarmRole + QStringLiteral(" (") + s->swarmState + u')');
        break;
    case CpuColumn:
        if (!s || !s->reachable)
            break;
        if (role == Qt::DisplayRole)
            return tr("%1 / %2").arg(s->allocated.cpus, 0, 'g', 3).arg(s->ncpu);
        if (role == RatioRole)
            return s->ncpu > 0 ? s->allocated.cpus / s->ncpu : 0.0;
        break;
    case MemoryColumn:
        if (!s || !s->reachable)
            break;
        if (role == Qt::DisplayRole)
            return tr("%1 / %2").arg(formatBytes(s->allocated.memoryBytes),
                                     formatBytes(s->memTotal));
        if (role == RatioRole)
            return s->memTotal > 0 ? double(s->allocated.memoryBytes) / double(s->memTotal) : 0.0;
        break;
    case CpuUsedColumn:
    case MemoryUsedColumn: {
        if (!m_streaming || !s || !s->reachable)
            break;
        const auto live = m_live.constFind(h.name);
        const bool cpu = index.column() == CpuUsedColumn;
        if (live == m_live.cend()) {
            if (role == Qt::DisplayRole)
                return s->allocated.kernels > 0 ? tr("waiting…") : tr("idle");
            if (role == Qt::ToolTipRole)
                return s->allocated.kernels > 0
                           ? tr("Waiting for the first samples of this host's kernels")
                           : tr("No kernel of this store runs on this host");
            break;
        }
        if (role == Qt::DisplayRole) {
            if (cpu) {
                const double cores = live->cpuPercent / 100.0;
                return s->ncpu > 0 ? tr("%1 cores (%2 %)")
                                         .arg(cores, 0, 'f', 2)
                                         .arg(100.0 * cores / s->ncpu, 0, 'f', 0)
                                   : tr("%1 cores").arg(cores, 0, 'f', 2);
            }
            return s->memTotal > 0
                       ? tr("%1 (%2 %)")
                             .arg(formatBytes(qint64(live->memoryUsed)))
                             .arg(100.0 * double(live->memoryUsed) / double(s->memTotal), 0, 'f', 0)
                       : formatBytes(qint64(live->memoryUsed));
        }
        if (role == RatioRole) {
            if (cpu)
                return s->ncpu > 0 ? live->cpuPercent / 100.0 / s->ncpu : 0.0;
            return s->memTotal > 0 ? double(live->memoryUsed) / double(s->memTotal) : 0.0;
        }
        if (role == Qt::ToolTipRole)
            return tr("Live: %n running kernel(s) of this store summed, refreshed every second",
                      nullptr, live->kernels);
        break;
    }
    case KernelsColumn:
        if (role == Qt::DisplayRole && s)
            return s->allocated.kernels;
        break;
    case ControllerColumn: {
        const auto health = m_health.constFind(h.name);
        if (health == m_health.cend()) {
            if (role == Qt::DisplayRole)
                return tr("—");
            if (role == Qt::ToolTipRole)
                return tr("No controller has reported on this host yet");
            break;
        }
        const QString since =
            health->since.toLocalTime().toString(QStringLiteral("yyyy-MM-dd HH:mm:ss"));
        if (role == Qt::DisplayRole)
            return health->up ? tr("up since %1").arg(since) : tr("down since %1").arg(since);
        if (role == Qt::ForegroundRole)
            return health->up ? QColor(0x2e, 0x9d, 0x48) : QColor(0xcc, 0x33, 0x33);
        if (role == Qt::ToolTipRole && !health->reason.isEmpty())
            return health->reason;
        break;
    }
    }
    return {};
}

QVariant HostsTableModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case NameColumn:
        return tr("Name");
    case EndpointColumn:
        return tr("Endpoint");
    case ReachableColumn:
        return tr("Reachable");
    case DockerColumn:
        return tr("Docker");
    case SwarmColumn:
        return tr("Swarm");
    case CpuColumn:
        return tr("CPUs (allocated / total)");
    case CpuUsedColumn:
        return tr("CPU in use");
    case MemoryColumn:
        return tr("Memory (allocated / total)");
    case MemoryUsedColumn:
        return tr("Memory in use");
    case KernelsColumn:
        return tr("Kernels");
    case ControllerColumn:
        return tr("Controller sees");
    }
    return {};
}

} // namespace ClusterDeck::Ui
