#include "common/bytesize.h"
#include "console/consolecontroller.h"
#include "host/hostregistry.h"
#include "launch/launchdialog.h"
#include "models/eventsmodel.h"
#include "models/hoststablemodel.h"

#include <QAbstractItemModelTester>
#include <QComboBox>
#include <QFile>
#include <QLabel>
#include <QLocalServer>
#include <QPushButton>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTemporaryDir>
#include <QTest>
#include <QTreeWidget>

using namespace ClusterDeck;
using namespace ClusterDeck::Ui;

class TestHostsEvents : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void hostsTable();
    void hostsLiveUsage_data();
    void hostsLiveUsage();
    void eventsNewestFirst();
    void hostRefreshAskedDuringOneIsNotLost();
    void launchDialogCountsRespectMinMax_data();
    void launchDialogCountsRespectMinMax();
    void launchDialogPreviewMatchesCorePlacement();
    void launchDialogPreviewIsTheLaunchPlan_data();
    void launchDialogPreviewIsTheLaunchPlan();
    void launchDialogSaysWhatBlocks_data();
    void launchDialogSaysWhatBlocks();
    void launchDialogShowsHostPaths_data();
    void launchDialogShowsHostPaths();
};

static HostStatus status(const QString &name, bool reachable)
{
    HostStatus s;
    s.host.name = name;
    s.host.endpoint = QStringLiteral("unix:///run/%1.sock").arg(name);
    s.reachable = reachable;
    s.error = reachable ? QString() : QStringLiteral("connection refused");
    s.dockerVersion = QStringLiteral("24.0.5");
    s.apiVersion = QStringLiteral("1.43");
    s.swarmState = QStringLiteral("active");
    s.swarmRole = QStringLiteral("worker");
    s.swarmNodeId = name + QStringLiteral("-node");
    s.swarmClusterId = QStringLiteral("c1");
    s.ncpu = 4;
    s.memTotal = 8LL << 30;
    s.allocated.cpus = 1;
    s.allocated.memoryBytes = 2LL << 30;
    s.allocated.kernels = 3;
    return s;
}

void TestHostsEvents::hostsTable()
{
    HostsTableModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::Fatal);
    model.setStatuses({status("h1", true), status("h2", false)});
    QCOMPARE(model.rowCount(), 2);
    QCOMPARE(model.index(0, HostsTableModel::ReachableColumn).data().toString(),
             QStringLiteral("yes"));
    QCOMPARE(model.index(1, HostsTableModel::ReachableColumn).data().toString(),
             QStringLiteral("no: connection refused"));
    QCOMPARE(model.index(0, HostsTableModel::CpuColumn).data().toString(), QStringLiteral("1 / 4"));
    QCOMPARE(model.index(0, HostsTableModel::CpuColumn).data(HostsTableModel::RatioRole).toDouble(),
             0.25);
    QCOMPARE(model.index(0, HostsTableModel::KernelsColumn).data().toInt(), 3);
    QSignalSpy reset(&model, &QAbstractItemModel::modelReset);
    model.setStatuses({status("h1", false), status("h2", true)}); // same rows: in place
    QCOMPARE(reset.size(), 0);

    // What the controller saw: nothing yet, then h2 down with its reason.
    QCOMPARE(model.index(1, HostsTableModel::ControllerColumn).data().toString(),
             QStringLiteral("—"));
    const QDateTime since(QDate(2026, 12, 3), QTime(8, 30), Qt::LocalTime);
    QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
    model.setHealth(
        {{QStringLiteral("h1"), HostHealth{true, {}, since}},
         {QStringLiteral("h2"), HostHealth{false, QStringLiteral("connection refused"), since}}});
    QCOMPARE(changed.size(), 1);
    QCOMPARE(model.index(0, HostsTableModel::ControllerColumn).data().toString(),
             QStringLiteral("up since 2026-12-03 08:30:00"));
    QCOMPARE(model.index(1, HostsTableModel::ControllerColumn).data().toString(),
             QStringLiteral("down since 2026-12-03 08:30:00"));
    QCOMPARE(model.index(1, HostsTableModel::ControllerColumn).data(Qt::ToolTipRole).toString(),
             QStringLiteral("connection refused"));
}

void TestHostsEvents::hostsLiveUsage_data()
{
    // h1: 4 CPUs, 8 GiB, 3 kernels allocated (status()); h2 likewise but unreachable.
    QTest::addColumn<bool>("streaming");
    QTest::addColumn<double>("cpuPercent"); // summed over the host's kernels; 100 = one core
    QTest::addColumn<qint64>("memoryUsed");
    QTest::addColumn<QString>("cpuText");
    QTest::addColumn<double>("cpuRatio");
    QTest::addColumn<QString>("memoryText");
    QTest::addColumn<double>("memoryRatio");
    QTest::newRow("hidden: blank")
        << false << 150.0 << (qint64(1) << 30) << QString() << -1.0 << QString() << -1.0;
    QTest::newRow("no sample yet") << true << -1.0 << qint64(0) << QStringLiteral("waiting…")
                                   << -1.0 << QStringLiteral("waiting…") << -1.0;
    QTest::newRow("one and a half cores, 1 GiB")
        << true << 150.0 << (qint64(1) << 30) << QStringLiteral("1.50 cores (38 %)") << 0.375
        << QStringLiteral("%1 (13 %)").arg(formatBytes(qint64(1) << 30)) << 0.125;
    QTest::newRow("idle kernels") << true << 0.0 << (qint64(4) << 20)
                                  << QStringLiteral("0.00 cores (0 %)") << 0.0
                                  << QStringLiteral("%1 (0 %)").arg(formatBytes(qint64(4) << 20))
                                  << double(qint64(4) << 20) / double(qint64(8) << 30);
}

void TestHostsEvents::hostsLiveUsage()
{
    QFETCH(bool, streaming);
    QFETCH(double, cpuPercent);
    QFETCH(qint64, memoryUsed);
    QFETCH(QString, cpuText);
    QFETCH(double, cpuRatio);
    QFETCH(QString, memoryText);
    QFETCH(double, memoryRatio);
    HostsTableModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::Fatal);
    model.setStatuses({status("h1", true), status("h2", false)});
    QHash<QString, Docker::ResourceUsage> live;
    if (cpuPercent >= 0) {
        Docker::ResourceUsage u;
        u.cpuPercent = cpuPercent;
        u.memoryUsed = quint64(memoryUsed);
        u.kernels = 3;
        live.insert(QStringLiteral("h1"), u);
        live.insert(QStringLiteral("h2"), u); // unreachable: never shown
    }
    QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
    model.setLiveUsage(live, streaming);
    QCOMPARE(changed.size(), 2); // the two live columns
    const QModelIndex cpu = model.index(0, HostsTableModel::CpuUsedColumn);
    const QModelIndex memory = model.index(0, HostsTableModel::MemoryUsedColumn);
    QCOMPARE(cpu.data().toString(), cpuText);
    QCOMPARE(memory.data().toString(), memoryText);
    if (cpuRatio < 0) {
        QVERIFY(!cpu.data(HostsTableModel::RatioRole).isValid());
    } else {
        QCOMPARE(cpu.data(HostsTableModel::RatioRole).toDouble(), cpuRatio);
        QCOMPARE(memory.data(HostsTableModel::RatioRole).toDouble(), memoryRatio);
        QVERIFY(cpu.data(Qt::ToolTipRole).toString().contains(QLatin1String("3 running")));
    }
    QVERIFY(!model.index(1, HostsTableModel::CpuUsedColumn).data().isValid());
    // The allocated figures stay as they were, next to the live ones.
    QCOMPARE(model.index(0, HostsTableModel::CpuColumn).data().toString(), QStringLiteral("1 / 4"));
    // The same usage again changes nothing.
    changed.clear();
    model.setLiveUsage(live, streaming);
    QCOMPARE(changed.size(), 0);
}

void TestHostsEvents::eventsNewestFirst()
{
    EventsModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::Fatal);
    auto event = [](qint64 seq, const QString &action) {
        EventRecord e;
        e.seq = seq;
        e.at = QDateTime::currentDateTimeUtc();
        e.action = action;
        e.actor = QStringLiteral("alice@console");
        return e;
    };
    model.setEvents({event(1, "launch"), event(3, "terminate"), event(2, "kernel-status")});
    QCOMPARE(model.index(0, EventsModel::ActionColumn).data().toString(),
             QStringLiteral("terminate"));
    QSignalSpy inserted(&model, &QAbstractItemModel::rowsInserted);
    model.appendEvents({event(4, "restart"), event(3, "terminate")});
    QCOMPARE(inserted.size(), 1);
    QCOMPARE(model.rowCount(), 4);
    QCOMPARE(model.index(0, EventsModel::ActionColumn).data().toString(),
             QStringLiteral("restart"));
}

static QString labBasic()
{
    return qEnvironmentVariable("CLUSTERDECK_SOURCE_DIR") +
           QStringLiteral("/templates/lab-basic.yaml");
}

// A refresh asked for while one is in flight (a host added meanwhile) runs after it: dropping it
// left the Hosts tab without the new host until the next timer tick, never with the timer off.
void TestHostsEvents::hostRefreshAskedDuringOneIsNotLost()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    ConsoleController controller;
    controller.setHostRefreshInterval(0);
    QSignalSpy opened(&controller, &ConsoleController::storeOpened);
    QSignalSpy statuses(&controller, &ConsoleController::hostStatusesChanged);
    controller.openStore(QStringLiteral("sqlite://") + dir.filePath(QStringLiteral("state.db")));
    QTRY_COMPARE_WITH_TIMEOUT(opened.size(), 1, 30000);
    QTRY_VERIFY_WITH_TIMEOUT(statuses.size() >= 1, 10000); // the refresh opening the store made
    // Host a's daemon accepts and never answers, so the first inspection (which lists the hosts
    // as it starts) is still out when b is added and the refresh asked for again.
    QLocalServer silent;
    QVERIFY(silent.listen(dir.filePath(QStringLiteral("a.sock"))));
    const HostRegistry::AddOptions noPing{false, std::chrono::milliseconds(1000)};
    for (const QString &name : {QStringLiteral("a"), QStringLiteral("b")}) {
        HostRecord host;
        host.name = name;
        host.endpoint = QStringLiteral("unix://") + dir.filePath(name + QStringLiteral(".sock"));
        QVERIFY(controller.registry()->add(host, noPing));
        controller.refreshHosts();
        QTest::qWait(500);
    }
    QTRY_COMPARE_WITH_TIMEOUT(controller.hostStatuses().size(), 2, 20000);
    for (const HostStatus &s : controller.hostStatuses())
        QVERIFY2(!s.reachable && !s.error.isEmpty(), qPrintable(s.host.name));
}

void TestHostsEvents::launchDialogCountsRespectMinMax_data()
{
    QTest::addColumn<QString>("typed");
    QTest::addColumn<int>("expected");
    QTest::newRow("inside") << "5" << 5;
    QTest::newRow("above max is refused") << "99" << 9; // '9' accepted, the second '9' is not
}

void TestHostsEvents::launchDialogCountsRespectMinMax()
{
    QFETCH(QString, typed);
    QFETCH(int, expected);
    ConsoleController controller;
    LaunchDialog dialog(&controller);
    dialog.addTemplateFile(labBasic());
    QVERIFY(dialog.selectTemplate(labBasic()));
    QSpinBox *workers = dialog.countBox(QStringLiteral("worker"));
    QVERIFY(workers);
    QCOMPARE(workers->minimum(), 1);
    QCOMPARE(workers->maximum(), 12);
    QCOMPARE(workers->value(), 2);
    dialog.show();
    workers->setFocus();
    workers->selectAll();
    QTest::keyClicks(workers, typed);
    QTest::keyClick(workers, Qt::Key_Enter);
    QVERIFY(workers->value() >= workers->minimum() && workers->value() <= workers->maximum());
    QCOMPARE(workers->value(), expected);
    QSpinBox *master = dialog.countBox(QStringLiteral("master"));
    QCOMPARE(master->minimum(), 1);
    QCOMPARE(master->maximum(), 1);
}

void TestHostsEvents::launchDialogPreviewMatchesCorePlacement()
{
    ConsoleController controller;
    LaunchDialog dialog(&controller);
    dialog.addTemplateFile(labBasic());
    QVERIFY(dialog.selectTemplate(labBasic()));
    QList<HostCapacity> hosts;
    for (const QString &name : {QStringLiteral("h1"), QStringLiteral("h2"), QStringLiteral("h3")}) {
        HostCapacity h;
        h.name = name;
        h.ncpu = 2;
        h.memTotal = 4LL << 30;
        h.swarmActive = true;
        h.swarmClusterId = QStringLiteral("c1");
        h.swarmManager = name == u"h1";
        hosts << h;
    }
    dialog.setHostCapacities(hosts);
    dialog.countBox(QStringLiteral("worker"))->setValue(4);
    const auto placement = dialog.previewPlacement();
    QVERIFY2(placement.has_value(),
             qPrintable(placement ? QString() : placement.error().toString()));
    QTreeWidget *tree = dialog.previewTree();
    QCOMPARE(tree->topLevelItemCount(), 5);
    for (int i = 0; i < tree->topLevelItemCount(); ++i) {
        const QTreeWidgetItem *item = tree->topLevelItem(i);
        QCOMPARE(item->text(2), placement->hostOf.value(item->text(0)));
    }
    // Too small hosts: the preview says why, and Launch is off.
    for (HostCapacity &h : hosts)
        h.memTotal = 32LL << 20;
    dialog.setHostCapacities(hosts);
    QCOMPARE(tree->topLevelItemCount(), 0);
    QVERIFY(!dialog.launchButton()->isEnabled());
}

void TestHostsEvents::launchDialogSaysWhatBlocks_data()
{
    QTest::addColumn<int>("hosts");
    QTest::addColumn<bool>("reachable");
    QTest::addColumn<bool>("swarm");
    QTest::addColumn<QString>("mode"); // the dialog's mode choice ("" = the template's)
    QTest::addColumn<QString>("says");
    QTest::addColumn<QString>("driver"); // the store's multi-node network driver
    const QString vxlan = QStringLiteral("vxlan"), swarm = QStringLiteral("swarm");
    QTest::newRow("first run: no host")
        << 0 << true << false << QString() << QStringLiteral("No host registered yet") << vxlan;
    QTest::newRow("no host answers")
        << 3 << false << true << QString()
        << QStringLiteral("None of the 3 registered hosts answers") << vxlan;
    QTest::newRow("swarm: multi-node without a swarm")
        << 3 << true << false << QStringLiteral("multi-node")
        << QStringLiteral("Set Up Multi-Host Networking") << swarm;
    QTest::newRow("swarm: auto, too big for one host, no swarm")
        << 3 << true << false << QStringLiteral("auto")
        << QStringLiteral("Set Up Multi-Host Networking") << swarm;
    QTest::newRow("swarm: fits") << 3 << true << true << QStringLiteral("multi-node")
                                 << QStringLiteral("Fits: multi-node") << swarm;
    // VXLAN needs no swarm: the same hosts fit.
    QTest::newRow("vxlan: multi-node, no swarm")
        << 3 << true << false << QStringLiteral("multi-node") << QStringLiteral("Fits: multi-node")
        << vxlan;
    QTest::newRow("vxlan: auto, too big for one host, no swarm")
        << 3 << true << false << QStringLiteral("auto") << QStringLiteral("Fits: multi-node")
        << vxlan;
}

void TestHostsEvents::launchDialogSaysWhatBlocks()
{
    QFETCH(int, hosts);
    QFETCH(bool, reachable);
    QFETCH(bool, swarm);
    QFETCH(QString, mode);
    QFETCH(QString, says);
    QFETCH(QString, driver);
    ConsoleController controller;
    LaunchDialog dialog(&controller);
    dialog.setNetworkDriver(*parseNetworkDriver(driver));
    dialog.addTemplateFile(labBasic());
    QVERIFY(dialog.selectTemplate(labBasic()));
    if (!mode.isEmpty())
        dialog.modeBox()->setCurrentIndex(dialog.modeBox()->findData(mode));
    dialog.countBox(QStringLiteral("worker"))->setValue(8);
    QList<HostCapacity> capacities;
    for (int i = 1; i <= hosts; ++i) {
        HostCapacity h;
        h.name = QStringLiteral("h%1").arg(i);
        h.ncpu = 2; // 1+8 kernels of lab-basic do not fit on one host of 2 CPUs
        h.memTotal = 4LL << 30;
        h.reachable = reachable;
        h.swarmActive = swarm;
        h.swarmClusterId = swarm ? QStringLiteral("c1") : QString();
        h.swarmManager = swarm && i == 1;
        capacities << h;
    }
    dialog.setHostCapacities(capacities);
    const QString text = dialog.previewStatusText();
    QVERIFY2(text.contains(says), qPrintable(text));
    // The console points to its own actions, never to a command to type.
    QVERIFY2(!text.contains(QLatin1String("clusterdeckctl")), qPrintable(text));
    QCOMPARE(dialog.launchButton()->isEnabled(), says.startsWith(QLatin1String("Fits")));
}

// The preview is what the launch decides (issue 25, item 4): `auto` is decided (the plan says
// which mode, as BACKEND_CLUSTER_MODE), and the images' defaults count. The dialog used to
// resolve on its own: its plan stayed `auto` and knew no image's ENV.
void TestHostsEvents::launchDialogPreviewIsTheLaunchPlan_data()
{
    QTest::addColumn<int>("cpusPerHost");
    QTest::addColumn<int>("workers");
    QTest::addColumn<QString>("mode");
    QTest::newRow("fits on one host") << 2 << 2 << QStringLiteral("single-node");
    QTest::newRow("needs three hosts") << 1 << 8 << QStringLiteral("multi-node");
}

void TestHostsEvents::launchDialogPreviewIsTheLaunchPlan()
{
    QFETCH(int, cpusPerHost);
    QFETCH(int, workers);
    QFETCH(QString, mode);
    ConsoleController controller;
    LaunchDialog dialog(&controller);
    dialog.addTemplateFile(labBasic());
    QVERIFY(dialog.selectTemplate(labBasic()));
    QCOMPARE(dialog.currentTemplate()->mode, ClusterMode::Auto);
    QList<HostCapacity> hosts;
    for (const QString &name : {QStringLiteral("h1"), QStringLiteral("h2"), QStringLiteral("h3")}) {
        HostCapacity h;
        h.name = name;
        h.ncpu = cpusPerHost;
        h.memTotal = 4LL << 30;
        hosts << h;
    }
    dialog.setNetworkDriver(NetworkDriver::Vxlan);
    dialog.setHostCapacities(hosts);
    ImageDefaults image;
    image.env.insert(QStringLiteral("IMAGE_SAYS"), QStringLiteral("hello from the image"));
    const ImageDefaultsMap images{{QStringLiteral("clusterdeck/lab:latest"), image}};
    dialog.setImageDefaults(images);
    dialog.countBox(QStringLiteral("worker"))->setValue(workers);

    const auto plan = dialog.previewPlan();
    QVERIFY2(plan, qPrintable(plan ? QString() : plan.error().toString()));
    QCOMPARE(modeName(plan->mode), mode);
    QCOMPARE(plan->kernels.size(), 1 + workers);
    for (const KernelSpec &k : plan->kernels) {
        QCOMPARE(k.env.value(QStringLiteral("BACKEND_CLUSTER_MODE")), mode);
        QCOMPARE(k.env.value(QStringLiteral("IMAGE_SAYS")), QStringLiteral("hello from the image"));
    }
    // And the same as the provisioner's planner given the same inputs.
    const auto options = dialog.launchOptions();
    QVERIFY(options);
    const auto core = LaunchPlanner::plan(*dialog.currentTemplate(), *options, hosts, images,
                                          PlacementStrategy::Spread, NetworkDriver::Vxlan);
    QVERIFY(core && core->placement);
    const auto placement = dialog.previewPlacement();
    QVERIFY(placement);
    QCOMPARE(modeName(placement->mode), mode);
    QCOMPARE(placement->hostOf, core->placement->hostOf);
    QCOMPARE(placement->hostsUsed.size(), mode == u"multi-node" ? 3 : 1);
}

// A template that mounts host paths says which before anything starts (issue 24 D.6).
void TestHostsEvents::launchDialogShowsHostPaths_data()
{
    QTest::addColumn<QByteArray>("header"); // cluster-level lines before the roles
    QTest::addColumn<QString>("shown");     // empty: no warning
    QTest::newRow("no host paths") << QByteArray("mounts: [data:/data]\n") << QString();
    QTest::newRow("allowed, none mounted") << QByteArray("allowHostPaths: true\n") << QString();
    QTest::newRow("docker socket and /etc")
        << QByteArray("allowHostPaths: true\nmounts: [/var/run/docker.sock:/s, /etc/:/e:ro]\n")
        << QStringLiteral("its kernels mount /var/run/docker.sock (rw), /etc (ro) of every host");
}

void TestHostsEvents::launchDialogShowsHostPaths()
{
    QFETCH(QByteArray, header);
    QFETCH(QString, shown);
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString path = dir.filePath(QStringLiteral("hostpaths.yaml"));
    QFile file(path);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write("name: hostpaths\n" + header +
               "roles:\n  - name: worker\n    task: {image: busybox}\n");
    file.close();
    ConsoleController controller;
    LaunchDialog dialog(&controller);
    dialog.addTemplateFile(path);
    QVERIFY(dialog.selectTemplate(path));
    QVERIFY2(
        dialog.previewPlan(),
        qPrintable(dialog.previewPlan() ? QString() : dialog.previewPlan().error().toString()));
    QCOMPARE(dialog.hostPathsWarning()->isVisibleTo(&dialog), !shown.isEmpty());
    if (!shown.isEmpty())
        QVERIFY2(dialog.hostPathsWarning()->text().contains(shown),
                 qPrintable(dialog.hostPathsWarning()->text()));
}

QTEST_MAIN(TestHostsEvents)
#include "tst_hostsevents.moc"
