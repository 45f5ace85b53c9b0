#pragma once

#include "docker/statstypes.h"
#include "host/hoststatus.h"

#include <QAbstractTableModel>

namespace ClusterDeck::Ui {

// The registered hosts with their live status: name, endpoint, reachable (the error when not),
// Docker version, swarm role, CPUs and memory (allocated / total, and in use now: the live
// usage of the host's running kernels, summed), kernels placed.
class HostsTableModel : public QAbstractTableModel
{
    Q_OBJECT

public:
    enum Column {
        NameColumn,
        EndpointColumn,
        ReachableColumn,
        DockerColumn,
        SwarmColumn,
        CpuColumn,
        CpuUsedColumn, // live: the host's kernels' CPU summed, in cores
        MemoryColumn,
        MemoryUsedColumn, // live: the host's kernels' memory summed
        KernelsColumn,
        ControllerColumn, // what the leading controller last saw: up/down since when
        ColumnCount
    };
    enum Roles { RatioRole = Qt::UserRole + 1, NameRole, ReachableRole };

    explicit HostsTableModel(QObject *parent = nullptr);

    // Registered hosts (order kept); statuses are matched by name and may lag behind.
    void setHosts(const QList<HostRecord> &hosts);
    void setStatuses(const QList<HostStatus> &statuses);
    void setHealth(const QMap<QString, HostHealth> &health);
    // The live usage of each host's running kernels (hosts absent: none reported); `streaming`
    // false means no usage is gathered (the view is hidden) and the columns are blank.
    void setLiveUsage(const QHash<QString, Docker::ResourceUsage> &usage, bool streaming = true);
    std::optional<HostStatus> status(const QString &name) const;
    QString hostName(int row) const;

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

private:
    QList<HostRecord> m_hosts;
    QHash<QString, HostStatus> m_statuses;
    QMap<QString, HostHealth> m_health;
    QHash<QString, Docker::ResourceUsage> m_live;
    bool m_streaming = false;
};

} // namespace ClusterDeck::Ui
