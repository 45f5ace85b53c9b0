#include "sessiondashboard.h"

#include "docker/dockerclient.h"
#include "stats/statsmonitor.h"
#include "models/usagehistorymodel.h"

#include <QChart>
#include <QChartView>
#include <QDateTime>
#include <QDateTimeAxis>
#include <QHeaderView>
#include <QLabel>
#include <QLineSeries>
#include <QPointer>
#include <QSplitter>
#include <QTableView>
#include <QThreadPool>
#include <QTimer>
#include <QVBoxLayout>
#include <QValueAxis>

namespace ClusterDeck::Ui {

namespace {

QChart *makeChart(const QString &title, const QString &unit, QDateTimeAxis *&xAxis,
                  QValueAxis *&yAxis)
{
    auto *chart = new QChart;
    chart->setTitle(title);
    chart->legend()->setAlignment(Qt::AlignRight);
    chart->setMargins(QMargins(4, 4, 4, 4));
    xAxis = new QDateTimeAxis;
    xAxis->setFormat(QStringLiteral("HH:mm:ss"));
    xAxis->setTickCount(6);
    yAxis = new QValueAxis;
    yAxis->setTitleText(unit);
    yAxis->setLabelFormat(QStringLiteral("%.0f"));
    chart->addAxis(xAxis, Qt::AlignBottom);
    chart->addAxis(yAxis, Qt::AlignLeft);
    return chart;
}

// Replaces the chart's series with `lines` (name → points), reusing series by name.
void setLines(QChart *chart, const QList<std::pair<QString, QList<QPointF>>> &lines, qint64 nowMs,
              double minimumTop)
{
    auto *xAxis = qobject_cast<QDateTimeAxis *>(chart->axes(Qt::Horizontal).value(0));
    auto *yAxis = qobject_cast<QValueAxis *>(chart->axes(Qt::Vertical).value(0));
    QHash<QString, QLineSeries *> existing;
    for (QAbstractSeries *s : chart->series())
        existing.insert(s->name(), static_cast<QLineSeries *>(s));
    double top = minimumTop;
    qint64 first = nowMs;
    for (const auto &[name, points] : lines) {
        QLineSeries *series = existing.take(name);
        if (!series) {
            series = new QLineSeries;
            series->setName(name);
            chart->addSeries(series);
            series->attachAxis(xAxis);
            series->attachAxis(yAxis);
        }
        series->replace(points);
        for (const QPointF &p : points) {
            top = std::max(top, p.y());
            first = std::min(first, qint64(p.x()));
        }
    }
    for (QLineSeries *gone : std::as_const(existing)) {
        chart->removeSeries(gone);
        delete gone;
    }
    // At least a minute shown, at most the history kept.
    first = std::min(first, nowMs - 60 * 1000);
    xAxis->setRange(QDateTime::fromMSecsSinceEpoch(first), QDateTime::fromMSecsSinceEpoch(nowMs));
    yAxis->setRange(0, top * 1.1);
}

} // namespace

SessionDashboard::SessionDashboard(QWidget *parent)
    : QWidget(parent)
    , m_title(new QLabel)
    , m_table(new QTableView)
    , m_model(new UsageHistoryModel(this))
    , m_monitor(new StatsMonitor(this))
    , m_refresh(new QTimer(this))
{
    setObjectName(QStringLiteral("sessionDashboard"));
    QDateTimeAxis *x = nullptr;
    QValueAxis *y = nullptr;
    m_cpuChart = makeChart(tr("CPU per kernel (last 15 min)"), tr("CPU %"), x, y);
    m_memoryChart = makeChart(tr("Memory per role (last 15 min)"), tr("MiB"), x, y);
    m_cpuView = new QChartView(m_cpuChart);
    m_memoryView = new QChartView(m_memoryChart);
    m_cpuView->setRenderHint(QPainter::Antialiasing);
    m_memoryView->setRenderHint(QPainter::Antialiasing);
    // The charts take no keys: no stop for Tab, but a name for a screen reader's review.
    for (QChartView *view : {m_cpuView, m_memoryView}) {
        view->setFocusPolicy(Qt::NoFocus);
        view->setAccessibleName(view->chart()->title());
    }
    m_title->setText(tr("Choose “Show Dashboard” on a session."));
    QFont f = m_title->font();
    f.setBold(true);
    m_title->setFont(f);
    m_table->setModel(m_model);
    m_table->setAccessibleName(tr("Usage per kernel"));
    m_table->verticalHeader()->hide();
    m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_table->horizontalHeader()->setStretchLastSection(true);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);

    auto *charts = new QSplitter(Qt::Horizontal);
    charts->addWidget(m_cpuView);
    charts->addWidget(m_memoryView);
    auto *split = new QSplitter(Qt::Vertical);
    split->addWidget(charts);
    split->addWidget(m_table);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 1);
    split->setSizes({480, 180});
    m_cpuView->setMinimumHeight(220);
    m_memoryView->setMinimumHeight(220);
    auto *layout = new QVBoxLayout(this);
    layout->addWidget(m_title);
    layout->addWidget(split, 1);

    connect(m_monitor, &StatsMonitor::sampled, this,
            [this](const QString &kernelId, const Docker::ResourceUsage &u) {
                m_model->addSample(kernelId, u, QDateTime::currentMSecsSinceEpoch());
            });
    m_refresh->setInterval(1000);
    connect(m_refresh, &QTimer::timeout, this, &SessionDashboard::refreshCharts);
}

SessionDashboard::~SessionDashboard()
{
    m_monitor->unwatchAll();
}

void SessionDashboard::showSession(const QString &title, const QList<KernelRecord> &kernels)
{
    ++m_generation;
    m_monitor->unwatchAll();
    m_title->setText(tr("Session %1 — %n kernel(s)", nullptr, int(kernels.size())).arg(title));
    m_model->setKernels(kernels);
    refreshCharts();
    if (isVisible())
        startStreams();
}

void SessionDashboard::startStreams()
{
    if (!m_provider)
        return;
    struct Wanted
    {
        QString kernelId, host, container;
    };
    QList<Wanted> wanted;
    for (const KernelRecord &k : m_model->kernels()) {
        if (k.status == KernelStatus::Running && !k.containerId.isEmpty() &&
            !m_monitor->isWatching(k.id))
            wanted.append({k.id, k.host, k.containerId});
    }
    if (wanted.isEmpty())
        return;
    QPointer<SessionDashboard> self(this);
    const ClientProvider provider = m_provider;
    const int generation = m_generation;
    QThreadPool::globalInstance()->start([self, provider, wanted, generation] {
        QList<std::pair<Wanted, std::shared_ptr<const Docker::DockerClient>>> ready;
        for (const Wanted &w : wanted) {
            if (auto client = provider(w.host))
                ready.append({w, client});
        }
        QMetaObject::invokeMethod(
            self.data(),
            [self, ready, generation] {
                if (!self || generation != self->m_generation || !self->isVisible())
                    return;
                for (const auto &[w, client] : ready)
                    self->m_monitor->watch(w.kernelId, client, w.container);
            },
            Qt::QueuedConnection);
    });
}

void SessionDashboard::refreshCharts()
{
    const qint64 now = QDateTime::currentMSecsSinceEpoch();
    QList<std::pair<QString, QList<QPointF>>> cpu;
    for (const KernelRecord &k : m_model->kernels()) {
        QList<QPointF> points;
        for (const UsageHistoryModel::Sample &s : m_model->history(k.id))
            points.append(QPointF(double(s.timeMs), s.cpuPercent));
        cpu.append({QStringLiteral("%1 (%2)").arg(k.hostname, k.host), points});
    }
    setLines(m_cpuChart, cpu, now, 10.0);
    QList<std::pair<QString, QList<QPointF>>> memory;
    for (const QString &role : m_model->roles()) {
        QList<QPointF> points = m_model->roleMemory(role);
        for (QPointF &p : points)
            p.setY(p.y() / (1 << 20));
        memory.append({role, points});
    }
    setLines(m_memoryChart, memory, now, 16.0);
}

void SessionDashboard::showEvent(QShowEvent *event)
{
    QWidget::showEvent(event);
    startStreams();
    m_refresh->start();
}

void SessionDashboard::hideEvent(QHideEvent *event)
{
    QWidget::hideEvent(event);
    // Hidden: every stream closes (the history stays for when it shows again).
    ++m_generation;
    m_refresh->stop();
    m_monitor->unwatchAll();
}

} // namespace ClusterDeck::Ui
