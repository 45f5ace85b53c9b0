#pragma once

#include "docker/statstypes.h"
#include "store/records.h"

#include <QAbstractTableModel>
#include <QHash>
#include <QPointF>

#include <deque>

namespace ClusterDeck::Ui {

// The dashboard's table: one row per kernel of a session (hostname, role, host, latest usage),
// with each kernel's history kept for the charts (the last kHistorySeconds of samples).
class UsageHistoryModel : public QAbstractTableModel
{
    Q_OBJECT

public:
    enum Column {
        KernelColumn,
        RoleColumn,
        HostColumn,
        CpuColumn,
        MemoryColumn,
        NetworkColumn,
        BlockColumn,
        ColumnCount
    };
    static constexpr int kHistorySeconds = 15 * 60;

    struct Sample
    {
        qint64 timeMs = 0;
        double cpuPercent = 0;
        double memoryBytes = 0;
    };

    explicit UsageHistoryModel(QObject *parent = nullptr);

    void setKernels(const QList<KernelRecord> &kernels); // rank order kept
    void addSample(const QString &kernelId, const Docker::ResourceUsage &usage, qint64 timeMs);
    void clearSamples();

    QList<KernelRecord> kernels() const { return m_kernels; }
    QStringList roles() const;
    const std::deque<Sample> &history(const QString &kernelId) const;
    // A role's memory summed over its kernels, one point per second (x = ms since epoch).
    QList<QPointF> roleMemory(const QString &role) const;

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

private:
    QList<KernelRecord> m_kernels;
    QHash<QString, int> m_rowOf;
    QHash<QString, Docker::ResourceUsage> m_latest;
    QHash<QString, std::deque<Sample>> m_history;
};

} // namespace ClusterDeck::Ui
