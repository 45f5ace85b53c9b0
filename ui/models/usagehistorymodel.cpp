#include "usagehistorymodel.h"

#include "common/bytesize.h"
#include <algorithm>

#include <QLocale>

#include <map>

namespace ClusterDeck::Ui {

namespace {
const std::deque<UsageHistoryModel::Sample> kNoSamples;
} // namespace

UsageHistoryModel::UsageHistoryModel(QObject *parent)
    : QAbstractTableModel(parent)
{}

void UsageHistoryModel::setKernels(const QList<KernelRecord> &kernels)
{
    beginResetModel(); // another session: a new table
    m_kernels = kernels;
    std::sort(m_kernels.begin(), m_kernels.end(), [](const KernelRecord &a, const KernelRecord &b) {
        return a.localRank < b.localRank;
    });
    m_rowOf.clear();
    for (int i = 0; i < m_kernels.size(); ++i)
        m_rowOf.insert(m_kernels.at(i).id, i);
    m_latest.clear();
    m_history.clear();
    endResetModel();
}

void UsageHistoryModel::addSample(const QString &kernelId, const Docker::ResourceUsage &usage,
                                  qint64 timeMs)
{
    const int row = m_rowOf.value(kernelId, -1);
    if (row < 0)
        return;
    m_latest.insert(kernelId, usage);
    std::deque<Sample> &h = m_history[kernelId];
    h.push_back(Sample{timeMs, usage.cpuPercent, double(usage.memoryUsed)});
    while (!h.empty() && h.front().timeMs < timeMs - qint64(kHistorySeconds) * 1000)
        h.pop_front();
    Q_EMIT dataChanged(index(row, CpuColumn), index(row, BlockColumn));
}

void UsageHistoryModel::clearSamples()
{
    m_latest.clear();
    m_history.clear();
    if (!m_kernels.isEmpty())
        Q_EMIT dataChanged(index(0, CpuColumn), index(int(m_kernels.size()) - 1, BlockColumn));
}

QStringList UsageHistoryModel::roles() const
{
    QStringList roles;
    for (const KernelRecord &k : m_kernels) {
        if (!roles.contains(k.role))
            roles.append(k.role);
    }
    return roles;
}

const std::deque<UsageHistoryModel::Sample> &
UsageHistoryModel::history(const QString &kernelId) const
{
    const auto it = m_history.constFind(kernelId);
    return it == m_history.cend() ? kNoSamples : *it;
}

QList<QPointF> UsageHistoryModel::roleMemory(const QString &role) const
{
    // A role's memory at the end of a second is the sum of each of its kernels' latest sample by
    // then. Kernels report at their own moments: summing only the samples that fell into a second
    // counted a late kernel not at all (the line's last point dropped by that kernel's memory
    // whenever its sample came a moment after the others', as on a loaded machine), or twice.
    struct Reading
    {
        qint64 timeMs;
        qsizetype kernel;
        double bytes;
    };
    QList<Reading> readings;
    qsizetype kernels = 0;
    for (const KernelRecord &k : m_kernels) {
        if (k.role != role)
            continue;
        for (const Sample &s : history(k.id))
            readings.append({s.timeMs, kernels, s.memoryBytes});
        ++kernels;
    }
    std::stable_sort(readings.begin(), readings.end(),
                     [](const Reading &a, const Reading &b) { return a.timeMs < b.timeMs; });
    QList<double> latest(kernels, 0.0);
    double sum = 0;
    QList<QPointF> points;
    for (qsizetype i = 0; i < readings.size(); ++i) {
        const Reading &r = readings.at(i);
        sum += r.bytes - latest.at(r.kernel);
        latest[r.kernel] = r.bytes;
        const qint64 second = r.timeMs / 1000;
        if (i + 1 == readings.size() || readings.at(i + 1).timeMs / 1000 != second)
            points.append(QPointF(double(second) * 1000.0, sum));
    }
    return points;
}

int UsageHistoryModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_kernels.size());
}

int UsageHistoryModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant UsageHistoryModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const KernelRecord &k = m_kernels.at(index.row());
    const auto latest = m_latest.constFind(k.id);
    const bool has = latest != m_latest.cend();
    if (role == Qt::TextAlignmentRole && index.column() >= CpuColumn)
        return int(Qt::AlignRight | Qt::AlignVCenter);
    if (role != Qt::DisplayRole)
        return {};
    switch (index.column()) {
    case KernelColumn:
        return k.hostname;
    case RoleColumn:
        return k.role;
    case HostColumn:
        return k.host;
    case CpuColumn:
        return has ? QStringLiteral("%1 %").arg(latest->cpuPercent, 0, 'f', 1) : QString();
    case MemoryColumn:
        return has ? formatBytes(latest->memoryUsed) + QStringLiteral(" / ") +
                         formatBytes(latest->memoryLimit)
                   : QString();
    case NetworkColumn:
        return has ? formatBytes(latest->rxBytes) + QStringLiteral(" / ") +
                         formatBytes(latest->txBytes)
                   : QString();
    case BlockColumn:
        return has ? formatBytes(latest->blockRead) + QStringLiteral(" / ") +
                         formatBytes(latest->blockWrite)
                   : QString();
    default:
        return {};
    }
}

QVariant UsageHistoryModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case KernelColumn:
        return tr("Kernel");
    case RoleColumn:
        return tr("Role");
    case HostColumn:
        return tr("Host");
    case CpuColumn:
        return tr("CPU");
    case MemoryColumn:
        return tr("Memory");
    case NetworkColumn:
        return tr("Net in / out");
    case BlockColumn:
        return tr("Block read / write");
    default:
        return {};
    }
}

} // namespace ClusterDeck::Ui
