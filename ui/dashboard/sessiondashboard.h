#pragma once

#include "store/records.h"

#include <QWidget>

#include <functional>
#include <memory>

class QLabel;
class QTableView;
class QTimer;
class QChart;
class QChartView;
class QDateTimeAxis;
class QValueAxis;

namespace ClusterDeck {
class StatsMonitor;
namespace Docker {
class DockerClient;
}
} // namespace ClusterDeck

namespace ClusterDeck::Ui {

class UsageHistoryModel;

// One session's live resources: a table per kernel (with its host), CPU % per kernel and
// memory per role over the last 15 minutes (Qt Charts). Streams only while visible.
class SessionDashboard : public QWidget
{
    Q_OBJECT

public:
    using ClientProvider =
        std::function<std::shared_ptr<const Docker::DockerClient>(const QString &host)>;

    explicit SessionDashboard(QWidget *parent = nullptr);
    ~SessionDashboard() override;

    // `provider` is called on a worker thread (a registry may ask its store).
    void setClientProvider(ClientProvider provider) { m_provider = std::move(provider); }
    void showSession(const QString &title, const QList<KernelRecord> &kernels);

    UsageHistoryModel *model() const { return m_model; }
    StatsMonitor *monitor() const { return m_monitor; }
    QChart *cpuChart() const { return m_cpuChart; }
    QChart *memoryChart() const { return m_memoryChart; }
    // Redraws the charts from the model (once a second by itself while visible).
    void refreshCharts();

protected:
    void showEvent(QShowEvent *event) override;
    void hideEvent(QHideEvent *event) override;

private:
    void startStreams();

    ClientProvider m_provider;
    QLabel *m_title;
    QTableView *m_table;
    UsageHistoryModel *m_model;
    StatsMonitor *m_monitor;
    QTimer *m_refresh;
    QChart *m_cpuChart;
    QChart *m_memoryChart;
    QChartView *m_cpuView;
    QChartView *m_memoryView;
    int m_generation = 0;
};

} // namespace ClusterDeck::Ui
