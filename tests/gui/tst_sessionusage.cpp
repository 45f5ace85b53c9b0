// Live usage in the session tree: CPU and memory columns per kernel with a 60-sample history,
// sums on role and session rows, the sparkline geometry and its painting, and the Run Command
// results model — every model under QAbstractItemModelTester.

#include "gui/sessionfixtures.h"
#include "models/execresultsmodel.h"
#include "models/sessionfilterproxymodel.h"
#include "models/sessiontreemodel.h"
#include "models/usagehistorymodel.h"
#include "sessions/sessiontreeview.h"
#include "sessions/sparklinedelegate.h"

#include <QAbstractItemModelTester>
#include <QSignalSpy>
#include <QStyledItemDelegate>
#include <QTest>
#include <QTreeView>

using namespace ClusterDeck;
using namespace ClusterDeck::Ui;
using namespace ClusterDeck::Fixtures;
using Model = SessionTreeModel;

namespace {

// Counts the cells of its column that SessionTreeView says must be painted.
class ExposureCounter : public QStyledItemDelegate
{
public:
    using QStyledItemDelegate::QStyledItemDelegate;
    void paint(QPainter *painter, const QStyleOptionViewItem &option,
               const QModelIndex &index) const override
    {
        ++(SessionTreeView::cellExposed(option) ? exposed : skipped);
        QStyledItemDelegate::paint(painter, option, index);
    }
    mutable int exposed = 0;
    mutable int skipped = 0;
};

Docker::ResourceUsage usage(double cpu, quint64 mem, quint64 limit = 64 << 20)
{
    Docker::ResourceUsage u;
    u.cpuPercent = cpu;
    u.memoryUsed = mem;
    u.memoryLimit = limit;
    u.kernels = 1;
    return u;
}

} // namespace

class TestSessionUsage : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void init();
    void cleanup();
    void kernelCells();
    void sumsOnRoleAndSession();
    void historyIsCapped();
    void removedKernelLeavesSums();
    void sparklineGeometry_data();
    void sparklineGeometry();
    void delegatePaints();
    void usageRepaintsOnlyItsCells();
    void execResults();
    void roleMemoryOfLateSamples_data();
    void roleMemoryOfLateSamples();
    void dashboardHistory();

private:
    std::unique_ptr<Model> m_model;
    std::unique_ptr<QAbstractItemModelTester> m_tester;
    SessionFixture m_session;
};

void TestSessionUsage::init()
{
    m_model = std::make_unique<Model>();
    m_tester = std::make_unique<QAbstractItemModelTester>(
        m_model.get(), QAbstractItemModelTester::FailureReportingMode::Fatal);
    m_session =
        makeSession(QStringLiteral("11111111-0000-4000-8000-000000000000"), QStringLiteral("alpha"),
                    {{QStringLiteral("master"), 1}, {QStringLiteral("worker"), 3}});
    m_model->upsertSession(m_session.session, m_session.kernels);
}

void TestSessionUsage::cleanup()
{
    m_tester.reset();
    m_model.reset();
}

void TestSessionUsage::kernelCells()
{
    const QString k = m_session.kernels.at(1).id; // worker1
    QSignalSpy changed(m_model.get(), &QAbstractItemModel::dataChanged);
    QVERIFY(m_model->kernelIndex(k, Model::CpuColumn).data().toString().isEmpty());
    m_model->setUsage(k, usage(42.25, 10 << 20));
    QCOMPARE(changed.count(), 0);     // announced together, a moment later
    // Kernel, role and session rows, each cell alone (a view repaints one cell, but the whole
    // viewport for a range).
    QTRY_COMPARE(changed.count(), 3 * 2);
    QCOMPARE(changed.at(0).at(0).value<QModelIndex>(), m_model->kernelIndex(k, Model::CpuColumn));
    QCOMPARE(changed.at(0).at(1).value<QModelIndex>(), m_model->kernelIndex(k, Model::CpuColumn));
    QCOMPARE(changed.at(1).at(0).value<QModelIndex>(),
             m_model->kernelIndex(k, Model::MemoryColumn));
    for (const QList<QVariant> &args : std::as_const(changed))
        QCOMPARE(args.at(0).value<QModelIndex>(), args.at(1).value<QModelIndex>());
    QCOMPARE(m_model->kernelIndex(k, Model::CpuColumn).data().toString(), QStringLiteral("42.3 %"));
    QCOMPARE(m_model->kernelIndex(k, Model::MemoryColumn).data().toString(),
             QStringLiteral("10.0 MiB / 64.0 MiB"));
    QCOMPARE(m_model->kernelIndex(k, Model::CpuColumn).data(Model::SortRole).toDouble(), 42.25);
    QCOMPARE(m_model->kernelIndex(k, Model::CpuColumn)
                 .data(Model::CpuHistoryRole)
                 .value<QList<double>>(),
             QList<double>{42.25});
    // Other roles on a usage cell still describe the row.
    QCOMPARE(m_model->kernelIndex(k, Model::CpuColumn).data(Model::HostnameRole).toString(),
             QStringLiteral("worker1"));
}

void TestSessionUsage::sumsOnRoleAndSession()
{
    QSignalSpy changed(m_model.get(), &QAbstractItemModel::dataChanged);
    for (int i = 0; i < m_session.kernels.size(); ++i)
        m_model->setUsage(m_session.kernels.at(i).id, usage(10.0 * (i + 1), quint64(i + 1) << 20));
    m_model->flushUsageNow();
    // Every kernel once, both roles once, the session once: two cells each.
    QCOMPARE(changed.count(), (4 + 2 + 1) * 2);
    const QModelIndex session = m_model->sessionIndex(m_session.session.id);
    QModelIndex workers;
    for (int r = 0; r < m_model->rowCount(session); ++r) {
        if (m_model->index(r, 0, session).data(Model::RoleNameRole) == QStringLiteral("worker"))
            workers = m_model->index(r, 0, session);
    }
    QVERIFY(workers.isValid());
    const auto roleUsage = workers.siblingAtColumn(Model::CpuColumn)
                               .data(Model::UsageRole)
                               .value<Docker::ResourceUsage>();
    QCOMPARE(roleUsage.cpuPercent, 20.0 + 30.0 + 40.0);
    QCOMPARE(roleUsage.kernels, 3);
    QCOMPARE(roleUsage.memoryUsed, quint64(2 + 3 + 4) << 20);
    QCOMPARE(session.siblingAtColumn(Model::CpuColumn).data().toString(),
             QStringLiteral("100.0 %"));
    QCOMPARE(session.siblingAtColumn(Model::MemoryColumn).data().toString(),
             QStringLiteral("10.0 MiB / 256.0 MiB"));
    // Sums have no sparkline of their own.
    QVERIFY(!session.siblingAtColumn(Model::CpuColumn).data(Model::CpuHistoryRole).isValid());
}

void TestSessionUsage::historyIsCapped()
{
    const QString k = m_session.kernels.at(0).id;
    for (int i = 0; i < 75; ++i)
        m_model->setUsage(k, usage(i, 1 << 20));
    const auto history = m_model->kernelIndex(k, Model::CpuColumn)
                             .data(Model::CpuHistoryRole)
                             .value<QList<double>>();
    QCOMPARE(history.size(), Model::kUsageHistory);
    QCOMPARE(history.first(), 15.0);
    QCOMPARE(history.last(), 74.0);
    m_model->clearAllUsage();
    QVERIFY(!m_model->kernelIndex(k, Model::CpuColumn).data(Model::CpuHistoryRole).isValid());
}

void TestSessionUsage::removedKernelLeavesSums()
{
    m_model->setUsage(m_session.kernels.at(0).id, usage(50, 1 << 20));
    m_model->setUsage(m_session.kernels.at(3).id, usage(25, 1 << 20));
    m_model->removeKernel(m_session.session.id, m_session.kernels.at(3).id);
    const QModelIndex session = m_model->sessionIndex(m_session.session.id, Model::CpuColumn);
    QCOMPARE(session.data(Model::UsageRole).value<Docker::ResourceUsage>().cpuPercent, 50.0);
    m_model->setUsage(QStringLiteral("unknown-kernel"), usage(1, 1)); // ignored
    QCOMPARE(session.data(Model::UsageRole).value<Docker::ResourceUsage>().kernels, 1);
}

void TestSessionUsage::sparklineGeometry_data()
{
    QTest::addColumn<QList<double>>("samples");
    QTest::addColumn<double>("maximum");
    QTest::addColumn<QList<QPointF>>("expected");
    const QRectF r(0, 0, 59, 10); // one pixel per sample of a 60-sample history
    Q_UNUSED(r);
    QTest::newRow("fixed scale, newest on the right")
        << QList<double>{0, 50, 100} << 100.0 << QList<QPointF>{{57, 10}, {58, 5}, {59, 0}};
    QTest::newRow("above the scale grows it")
        << QList<double>{100, 200} << 100.0 << QList<QPointF>{{58, 5}, {59, 0}};
    QTest::newRow("auto scale (memory)")
        << QList<double>{10, 20, 40} << 0.0 << QList<QPointF>{{57, 7.5}, {58, 5}, {59, 0}};
    QTest::newRow("all zero stays at the bottom")
        << QList<double>{0, 0} << 0.0 << QList<QPointF>{{58, 10}, {59, 10}};
}

void TestSessionUsage::sparklineGeometry()
{
    QFETCH(QList<double>, samples);
    QFETCH(double, maximum);
    QFETCH(QList<QPointF>, expected);
    const QPolygonF line =
        SparklineDelegate::sparkline(samples, QRectF(0, 0, 59, 10), maximum, Model::kUsageHistory);
    QCOMPARE(QList<QPointF>(line.begin(), line.end()), expected);
}

void TestSessionUsage::delegatePaints()
{
    QTreeView view;
    view.setModel(m_model.get());
    view.setItemDelegateForColumn(Model::CpuColumn,
                                  new SparklineDelegate(Model::CpuHistoryRole, 100, &view));
    view.expandAll();
    view.resize(1400, 300);
    for (int i = 0; i < 30; ++i)
        m_model->setUsage(m_session.kernels.at(0).id, usage(i % 2 ? 90 : 10, 1 << 20));
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    const QRect cell =
        view.visualRect(m_model->kernelIndex(m_session.kernels.at(0).id, Model::CpuColumn));
    QVERIFY(cell.isValid());
    const QImage image = view.viewport()->grab(cell).toImage();
    // The sparkline is drawn in the highlight colour somewhere in the cell.
    const QColor highlight = view.palette().color(QPalette::Highlight);
    int hits = 0;
    for (int y = 0; y < image.height(); ++y)
        for (int x = 0; x < image.width(); ++x)
            hits += qAbs(image.pixelColor(x, y).hue() - highlight.hue()) < 12 &&
                    image.pixelColor(x, y).saturation() > 80;
    QVERIFY2(hits > 20, qPrintable(QString::number(hits)));
}

void TestSessionUsage::usageRepaintsOnlyItsCells()
{
    // Through the proxy the sessions view uses: a usage update announces the usage cells and
    // nothing else (no re-filtered parent rows), and a repaint of those cells paints no other.
    SessionFilterProxyModel proxy;
    proxy.setSourceModel(m_model.get());
    QSignalSpy changed(&proxy, &QAbstractItemModel::dataChanged);
    SessionTreeView view;
    view.setModel(&proxy);
    auto *names = new ExposureCounter(&view);
    view.setItemDelegateForColumn(Model::NameColumn, names);
    view.expandAll();
    view.resize(1400, 300);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    QTRY_VERIFY(names->exposed > 0); // the first paint: every cell

    m_model->setUsage(m_session.kernels.at(2).id, usage(50, 2 << 20));
    m_model->flushUsageNow();
    QCOMPARE(changed.count(), 3 * 2); // the kernel's, its role's and the session's two cells
    for (const QList<QVariant> &args : std::as_const(changed)) {
        const int column = args.at(0).value<QModelIndex>().column();
        QVERIFY2(column == Model::CpuColumn || column == Model::MemoryColumn,
                 qPrintable(QString::number(column)));
    }
    names->exposed = names->skipped = 0;
    view.viewport()->repaint(view.visualRect(
        proxy.mapFromSource(m_model->kernelIndex(m_session.kernels.at(2).id, Model::CpuColumn))));
    QCOMPARE(names->exposed, 0);
    QVERIFY(names->skipped > 0); // the row was drawn, its name cell was not
    view.viewport()->repaint();
    QVERIFY(names->exposed >= 6); // session, two roles, four kernels (some may be scrolled away)
}

void TestSessionUsage::execResults()
{
    ExecResultsModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::Fatal);
    model.start(m_session.kernels);
    QCOMPARE(model.rowCount(), 4);
    QVERIFY(model.isRunning());
    QCOMPARE(model.index(2, ExecResultsModel::ExitColumn).data().toString(),
             QStringLiteral("running…"));
    model.appendLine(QStringLiteral("worker2"), "first", false);
    model.appendLine(QStringLiteral("worker2"), "second", true);
    model.appendLine(QStringLiteral("nobody"), "ignored", false);
    QCOMPARE(model.index(2, ExecResultsModel::OutputColumn).data().toString(),
             QStringLiteral("! second"));
    QList<KernelExecResult> results;
    for (int i = 0; i < m_session.kernels.size(); ++i) {
        KernelExecResult r;
        r.kernel = m_session.kernels.at(i);
        r.exitCode = i;
        r.elapsedMs = 10 * i;
        if (i == 3)
            r.error = Error::make(Error::Kind::Transport, QStringLiteral("host h1"),
                                  QStringLiteral("down"));
        results.append(r);
    }
    model.finish(results);
    QVERIFY(!model.isRunning());
    QCOMPARE(model.worstExitCode(), 255);
    QCOMPARE(model.index(2, ExecResultsModel::ExitColumn).data().toString(), QStringLiteral("2"));
    QCOMPARE(model.index(2, ExecResultsModel::DurationColumn).data().toString(),
             QStringLiteral("20 ms"));
    QCOMPARE(model.index(3, ExecResultsModel::OutputColumn).data().toString(),
             QStringLiteral("host h1: down"));
    QCOMPARE(model.index(2, 0).data(ExecResultsModel::FullOutputRole).toString(),
             QStringLiteral("first\n! second"));
}

void TestSessionUsage::roleMemoryOfLateSamples_data()
{
    QTest::addColumn<int>("stepMs"); // how far apart the three workers report within each round
    QTest::newRow("together") << 1;
    QTest::newRow("0.6 s apart: the last one in the next second") << 600;
    QTest::newRow("nearly a second apart") << 990;
}

// tst_dashboard_lab's flake on a loaded machine: the memory line's last point was 32.9 MiB for
// workers holding 8 + 16 + 24 MiB: the worker whose sample came after the second turned was
// left out of the sum. Every point is the sum of each worker's latest sample by then.
void TestSessionUsage::roleMemoryOfLateSamples()
{
    QFETCH(int, stepMs);
    UsageHistoryModel model;
    model.setKernels(m_session.kernels);
    const qint64 t0 = 1'700'000'000'000;
    for (int round = 0; round < 5; ++round)
        for (int k = 1; k < 4; ++k)
            model.addSample(m_session.kernels.at(k).id, usage(k, quint64(8 * k) << 20),
                            t0 + round * 1000 + (k - 1) * stepMs);
    const QList<QPointF> workers = model.roleMemory(QStringLiteral("worker"));
    QVERIFY(!workers.isEmpty());
    QCOMPARE(workers.last().y(), double(48 << 20));
    // Once every worker has reported, no point leaves one out or counts one twice.
    for (const QPointF &p : workers) {
        if (p.x() >= double(t0 + 2000))
            QCOMPARE(p.y(), double(48 << 20));
    }
}

void TestSessionUsage::dashboardHistory()
{
    UsageHistoryModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::Fatal);
    model.setKernels(m_session.kernels);
    QCOMPARE(model.rowCount(), 4);
    QCOMPARE(model.roles(), (QStringList{QStringLiteral("master"), QStringLiteral("worker")}));
    QCOMPARE(model.index(1, UsageHistoryModel::HostColumn).data().toString(),
             m_session.kernels.at(1).host);
    const qint64 t0 = 1'700'000'000'000;
    // 16 minutes of one sample a second per worker: only the last 15 are kept.
    for (int s = 0; s < 16 * 60; ++s)
        for (int k = 1; k < 4; ++k)
            model.addSample(m_session.kernels.at(k).id, usage(k, quint64(k) << 20),
                            t0 + s * 1000 + k);
    QCOMPARE(int(model.history(m_session.kernels.at(1).id).size()),
             UsageHistoryModel::kHistorySeconds + 1);
    const QList<QPointF> workers = model.roleMemory(QStringLiteral("worker"));
    QCOMPARE(workers.size(), UsageHistoryModel::kHistorySeconds + 1);
    QCOMPARE(workers.last().y(), double((1 + 2 + 3) << 20)); // summed per second
    QVERIFY(model.roleMemory(QStringLiteral("master")).isEmpty());
    QCOMPARE(model.index(3, UsageHistoryModel::CpuColumn).data().toString(),
             QStringLiteral("3.0 %"));
    model.addSample(QStringLiteral("not-in-session"), usage(1, 1), t0); // ignored
    model.clearSamples();
    QVERIFY(model.history(m_session.kernels.at(1).id).empty());
}

QTEST_MAIN(TestSessionUsage)
#include "tst_sessionusage.moc"
