// Session tree model at scale: 1,000 sessions × 10 kernels.
// Targets (issue 7): build < 100 ms, one status update < 0.1 ms, filter stays interactive.

#include "gui/sessionfixtures.h"
#include "models/sessionfilterproxymodel.h"
#include "models/sessiontreemodel.h"

#include <QTest>

#include <ctime>
#include <memory>
#include <vector>

using namespace ClusterDeck;
using namespace ClusterDeck::Ui;
using namespace ClusterDeck::Fixtures;

// CPU time of this thread: on a shared, loaded machine wall time overstates the cost, so each
// benchmark also prints the CPU milliseconds per iteration.
class CpuTimer
{
public:
    CpuTimer() { m_start = now(); }
    void report(const char *what, int iterations) const
    {
        if (iterations > 0)
            qInfo("%s: %.4f ms CPU per iteration (%d iterations)", what,
                  (now() - m_start) / iterations, iterations);
    }

private:
    static double now()
    {
        timespec ts{};
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
        return double(ts.tv_sec) * 1e3 + double(ts.tv_nsec) / 1e6;
    }
    double m_start = 0;
};

// Every visible row, as a fully expanded view would ask for them.
static int visibleRows(const QAbstractItemModel &model, const QModelIndex &parent = {})
{
    int n = model.rowCount(parent);
    for (int r = 0, rows = n; r < rows; ++r)
        n += visibleRows(model, model.index(r, 0, parent));
    return n;
}

class BenchSessionTreeModel : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void build();
    void rebuild();
    void statusUpdate();
    void statusUpdateThroughProxy();
    void filter();
    void filterByHost();

private:
    QList<SessionRecord> m_sessions;
    QHash<QString, QList<KernelRecord>> m_kernels;
};

void BenchSessionTreeModel::initTestCase()
{
    makeMany(1000, 10, m_sessions, m_kernels);
}

void BenchSessionTreeModel::build()
{
    // From empty, as at start; tearing the models down is not part of the figure.
    std::vector<std::unique_ptr<SessionTreeModel>> built;
    int iterations = 0;
    const CpuTimer cpu;
    QBENCHMARK
    {
        ++iterations;
        auto model = std::make_unique<SessionTreeModel>();
        model->setSessions(m_sessions, m_kernels);
        built.push_back(std::move(model));
    }
    cpu.report("build", iterations);
    QCOMPARE(built.back()->kernelCount(), 10000);
}

void BenchSessionTreeModel::rebuild()
{
    // A full reset of a loaded model (the old tree is freed within the figure).
    SessionTreeModel model;
    model.setSessions(m_sessions, m_kernels);
    int iterations = 0;
    const CpuTimer cpu;
    QBENCHMARK
    {
        ++iterations;
        model.setSessions(m_sessions, m_kernels);
    }
    cpu.report("rebuild", iterations);
    QCOMPARE(model.kernelCount(), 10000);
}

void BenchSessionTreeModel::statusUpdate()
{
    SessionTreeModel model;
    model.setSessions(m_sessions, m_kernels);
    KernelRecord k = m_kernels.value(m_sessions[500].id)[7];
    int i = 0;
    int iterations = 0;
    const CpuTimer cpu;
    QBENCHMARK
    {
        ++iterations;
        k.status = (++i % 2) ? KernelStatus::Error : KernelStatus::Running;
        model.updateKernel(k);
    }
    cpu.report("statusUpdate", iterations);
}

void BenchSessionTreeModel::statusUpdateThroughProxy()
{
    // The same update with a live (filtered) proxy attached, as in the console.
    SessionTreeModel model;
    model.setSessions(m_sessions, m_kernels);
    SessionFilterProxyModel proxy;
    proxy.setSourceModel(&model);
    proxy.setFilterText(QStringLiteral("host:h3"));
    visibleRows(proxy); // the mapping a view would have built
    KernelRecord k = m_kernels.value(m_sessions[500].id)[7];
    int i = 0;
    int iterations = 0;
    const CpuTimer cpu;
    QBENCHMARK
    {
        ++iterations;
        k.status = (++i % 2) ? KernelStatus::Error : KernelStatus::Running;
        model.updateKernel(k);
    }
    cpu.report("statusUpdateThroughProxy", iterations);
}

void BenchSessionTreeModel::filter()
{
    SessionTreeModel model;
    model.setSessions(m_sessions, m_kernels);
    SessionFilterProxyModel proxy;
    proxy.setSourceModel(&model);
    int i = 0;
    int iterations = 0;
    const CpuTimer cpu;
    QBENCHMARK
    {
        ++iterations;
        proxy.setFilterText((++i % 2) ? QStringLiteral("session-99") : QStringLiteral("worker7"));
        visibleRows(proxy); // filtering is lazy: count what a fully expanded view shows
    }
    cpu.report("filter", iterations);
    QVERIFY(visibleRows(proxy) > 0);
}

void BenchSessionTreeModel::filterByHost()
{
    SessionTreeModel model;
    model.setSessions(m_sessions, m_kernels);
    SessionFilterProxyModel proxy;
    proxy.setSourceModel(&model);
    int i = 0;
    int iterations = 0;
    const CpuTimer cpu;
    QBENCHMARK
    {
        ++iterations;
        proxy.setFilterText((++i % 2) ? QStringLiteral("host:h3") : QStringLiteral("host:h9"));
        visibleRows(proxy);
    }
    cpu.report("filterByHost", iterations);
    QVERIFY(proxy.rowCount() > 0);
}

QTEST_MAIN(BenchSessionTreeModel)
#include "bench_sessiontreemodel.moc"
