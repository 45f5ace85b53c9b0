#pragma once

#include "provision/sessionexec.h"

#include <QAbstractTableModel>
#include <QHash>

namespace ClusterDeck::Ui {

// Per-kernel results of a command fanned out over a session ("Run Command…"): one row per
// selected kernel, output filled in line by line as it arrives, exit code when it ends.
class ExecResultsModel : public QAbstractTableModel
{
    Q_OBJECT

public:
    enum Column { KernelColumn, HostColumn, ExitColumn, DurationColumn, OutputColumn, ColumnCount };
    enum Roles { ExitCodeRole = Qt::UserRole + 1, FullOutputRole };

    explicit ExecResultsModel(QObject *parent = nullptr);

    // A new run: one "running" row per kernel.
    void start(const QList<KernelRecord> &kernels);
    void appendLine(const QString &hostname, const QByteArray &line, bool err);
    void finish(const QList<KernelExecResult> &results);
    int worstExitCode() const { return m_worst; }
    bool isRunning() const { return m_running; }

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

private:
    struct Row
    {
        QString hostname;
        QString host;
        std::optional<int> exitCode;
        QString error;
        qint64 elapsedMs = -1;
        QStringList lines;
    };
    QList<Row> m_rows;
    QHash<QString, int> m_byHostname;
    int m_worst = 0;
    bool m_running = false;
};

} // namespace ClusterDeck::Ui
