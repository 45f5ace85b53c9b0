// End to end against the lab (scripts/lab.sh env): launch lab-basic.yaml through the launch
// dialog, see the session RUNNING with its kernels in the tree, terminate it from the context
// menu, see it go; Cancel in the dialog mid-launch rolls everything back; and from an empty store
// with widgets alone: hosts added in their dialog, a sample edited and saved, launched, a terminal,
// terminated, nothing left. Fails (does not skip) when the lab is missing.

#include "../labcli.h"
#include "console/consolecontroller.h"
#include "dashboard/kernelstatsfeed.h"
#include "docker/dockerclient.h"
#include "host/hostregistry.h"
#include "hosts/addhostdialog.h"
#include "hosts/hostsview.h"
#include "launch/launchdialog.h"
#include "mainwindow/mainwindow.h"
#include "models/hoststablemodel.h"
#include "models/sessionfilterproxymodel.h"
#include "models/sessiontreemodel.h"
#include "provision/sessioncontroller.h"
#include "sessions/portprober.h"
#include "sessions/sessionsview.h"
#include "stats/statsmonitor.h"
#include "store/sqlitestore.h"
#include "templates/roletable.h"
#include "templates/templateeditor.h"
#include "terminal/terminalscreen.h"
#include "terminal/terminaltabs.h"
#include "terminal/terminalwidget.h"

#include <QAbstractItemDelegate>
#include <QAction>
#include <QDialogButtonBox>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QProcess>
#include <QPushButton>
#include <QScopeGuard>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QTreeWidget>
#include <QUuid>

using namespace ClusterDeck;
using namespace ClusterDeck::Ui;

class TestConsoleE2E : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void launchSeeRunningTerminateSeeItGo();
    void cancelInDialogRollsBack();
    void widgetsOnlyFromAnEmptyStore();
    void cleanupTestCase();

private:
    // `clusterdeckctl show SESSION --json` in a process of its own, as an admin's script runs it
    // beside the console.
    QJsonObject showFromAnotherProcess(const QString &sessionId) const;
    // Every running container of `sessionId` on the lab's hosts: kernel hostname → container id.
    QMap<QString, QString> runningContainers(const QString &sessionId) const;

    QTemporaryDir m_dir;
    std::unique_ptr<ConsoleController> m_controller;
    QString m_sessionId;
};

void TestConsoleE2E::initTestCase()
{
    const QStringList hosts =
        qEnvironmentVariable("CLUSTERDECK_LAB_HOSTS").split(u' ', Qt::SkipEmptyParts);
    QVERIFY2(!hosts.isEmpty(), "the lab is not up: eval \"$(scripts/lab.sh env)\" first");
    auto store = SqliteStore::open(m_dir.filePath(QStringLiteral("state.db")));
    QVERIFY(store.has_value());
    {
        HostRegistry registry(store->get());
        for (const QString &h : hosts) {
            const QString upper = h.toUpper();
            HostRecord record;
            record.name = h;
            record.endpoint = qEnvironmentVariable(
                qPrintable(QStringLiteral("CLUSTERDECK_LAB_%1_DOCKER").arg(upper)));
            record.publicAddress = qEnvironmentVariable(
                qPrintable(QStringLiteral("CLUSTERDECK_LAB_%1_ADDR").arg(upper)));
            auto added = registry.add(record);
            QVERIFY2(added.has_value(), qPrintable(added ? QString() : added.error().toString()));
        }
    }
    m_controller = std::make_unique<ConsoleController>();
    m_controller->setHostRefreshInterval(0);
    QSignalSpy statuses(m_controller.get(), &ConsoleController::hostStatusesChanged);
    store->reset();
    // As the console opens it: a store for the views and one for its embedded controller.
    m_controller->openStore(QStringLiteral("sqlite://") +
                            m_dir.filePath(QStringLiteral("state.db")));
    QTRY_VERIFY_WITH_TIMEOUT(statuses.size() > 0, 60000);
    QCOMPARE(m_controller->reachableHosts(), int(hosts.size()));
}

QJsonObject TestConsoleE2E::showFromAnotherProcess(const QString &sessionId) const
{
    const Proc p =
        runProcess(QStringLiteral(CLUSTERDECKCTL),
                   {QStringLiteral("--store"),
                    QStringLiteral("sqlite://") + m_dir.filePath(QStringLiteral("state.db")),
                    QStringLiteral("show"), sessionId, QStringLiteral("--json")},
                   60000);
    if (p.exitCode != 0)
        qWarning("clusterdeckctl show: %s", p.err.constData());
    return QJsonDocument::fromJson(p.out).object();
}

QMap<QString, QString> TestConsoleE2E::runningContainers(const QString &sessionId) const
{
    QMap<QString, QString> byHostname;
    const LabHosts lab = LabHosts::fromEnvironment();
    for (const QString &h : lab.names()) {
        const Proc ps = lab.docker(
            h, {QStringLiteral("ps"), QStringLiteral("--no-trunc"), QStringLiteral("--filter"),
                QStringLiteral("label=io.clusterdeck.session=") + sessionId,
                QStringLiteral("--format"),
                QStringLiteral("{{.Label \"io.clusterdeck.hostname\"}} {{.ID}}")});
        for (const QString &line : QString::fromUtf8(ps.out).split(u'\n', Qt::SkipEmptyParts)) {
            const QStringList parts = line.split(u' ');
            byHostname.insert(parts.value(0), parts.value(1));
        }
    }
    return byHostname;
}

void TestConsoleE2E::launchSeeRunningTerminateSeeItGo()
{
    MainWindow window(m_controller.get());
    window.resize(1400, 800);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    SessionsView *view = window.sessionsView();
    view->portProber()->setInterval(0);

    // Launch through the dialog, as an admin would.
    window.launchAction()->trigger();
    auto *dialog = window.findChild<LaunchDialog *>();
    QVERIFY(dialog);
    QVERIFY(QTest::qWaitForWindowExposed(dialog));
    const QString file = qEnvironmentVariable("CLUSTERDECK_SOURCE_DIR") +
                         QStringLiteral("/templates/lab-basic.yaml");
    dialog->addTemplateFile(file);
    QVERIFY(dialog->selectTemplate(file));
    QSpinBox *workers = dialog->countBox(QStringLiteral("worker"));
    QVERIFY(workers);
    workers->selectAll();
    QTest::keyClicks(workers, QStringLiteral("3"));
    QCOMPARE(workers->value(), 3);
    const QString name =
        QStringLiteral("e2e-") + QUuid::createUuid().toString(QUuid::Id128).left(6);
    QTest::keyClicks(dialog->nameEdit(), name);
    QTRY_COMPARE(dialog->previewTree()->topLevelItemCount(), 4); // master1 + worker1..3
    for (int i = 0; i < 4; ++i)
        QVERIFY(!dialog->previewTree()->topLevelItem(i)->text(2).isEmpty());
    QVERIFY(dialog->launchButton()->isEnabled());

    QSignalSpy launched(dialog, &LaunchDialog::launched);
    QSignalSpy failed(dialog, &LaunchDialog::launchFailed);
    QTest::mouseClick(dialog->launchButton(), Qt::LeftButton);
    QTRY_VERIFY_WITH_TIMEOUT(launched.size() + failed.size() > 0, 240000);
    QVERIFY2(failed.isEmpty(), qPrintable(failed.isEmpty() ? QString() : failed[0][0].toString()));
    m_sessionId = launched[0][0].toString();

    // The tree shows it, RUNNING, with its kernels grouped by role.
    SessionTreeModel *model = m_controller->sessionModel();
    QTRY_VERIFY_WITH_TIMEOUT(model->hasSession(m_sessionId), 30000);
    QTRY_COMPARE_WITH_TIMEOUT(
        model->sessionIndex(m_sessionId, SessionTreeModel::StatusColumn).data().toString(),
        QStringLiteral("RUNNING"), 30000);
    const QModelIndex session = model->sessionIndex(m_sessionId);
    QCOMPARE(session.data().toString(), name);
    QCOMPARE(model->rowCount(session), 2);
    QCOMPARE(session.siblingAtColumn(SessionTreeModel::KernelsColumn).data().toString(),
             QStringLiteral("4 kernels: master×1, worker×3"));
    QVERIFY(!session.data(SessionTreeModel::PortUrlsRole).toStringList().isEmpty());
    const QModelIndex workersRow = model->index(1, 0, session);
    QCOMPARE(model->rowCount(workersRow), 3);
    for (int i = 0; i < 3; ++i)
        QCOMPARE(model->index(i, SessionTreeModel::StatusColumn, workersRow).data().toString(),
                 QStringLiteral("RUNNING"));

    // A second process (an admin's script) reads what the console wrote, and closes the store
    // again while the console holds it open.
    {
        const QJsonObject shown = showFromAnotherProcess(m_sessionId);
        QCOMPARE(shown.value(QStringLiteral("status")).toString(), QStringLiteral("RUNNING"));
        QCOMPARE(shown.value(QStringLiteral("kernels")).toArray().size(), 4);
    }

    // The console's embedded controller leads, and says so.
    auto *controllerLabel = window.findChild<QLabel *>(QStringLiteral("controllerLabel"));
    QVERIFY(controllerLabel);
    QTRY_COMPARE_WITH_TIMEOUT(controllerLabel->text(), QStringLiteral("controller: this console"),
                              20000);

    // worker2 dies outside ClusterDeck: the tree shows it within 2 s, and lab-basic's
    // restart-session brings the whole session back.
    QString killedOn;
    for (const QString &h :
         qEnvironmentVariable("CLUSTERDECK_LAB_HOSTS").split(u' ', Qt::SkipEmptyParts)) {
        const QString endpoint = qEnvironmentVariable(
            qPrintable(QStringLiteral("CLUSTERDECK_LAB_%1_DOCKER").arg(h.toUpper())));
        QProcess ps;
        ps.start(QStringLiteral("docker"),
                 {QStringLiteral("-H"), endpoint, QStringLiteral("ps"), QStringLiteral("-q"),
                  QStringLiteral("--filter"),
                  QStringLiteral("label=io.clusterdeck.session=") + m_sessionId,
                  QStringLiteral("--filter"), QStringLiteral("name=-worker2$")});
        QVERIFY(ps.waitForFinished(30000));
        const QString id = QString::fromUtf8(ps.readAllStandardOutput()).trimmed();
        if (id.isEmpty())
            continue;
        QCOMPARE(QProcess::execute(QStringLiteral("docker"),
                                   {QStringLiteral("-H"), endpoint, QStringLiteral("kill"), id}),
                 0);
        killedOn = h;
    }
    QVERIFY2(!killedOn.isEmpty(), "found worker2's container");
    const QModelIndex worker2Status = model->index(1, SessionTreeModel::StatusColumn, workersRow);
    QTRY_VERIFY_WITH_TIMEOUT(
        worker2Status.data().toString() != u"RUNNING" ||
            model->sessionIndex(m_sessionId, SessionTreeModel::StatusColumn).data().toString() !=
                u"RUNNING",
        2000);
    qInfo() << "after the kill the tree shows worker2"
            << model->index(1, SessionTreeModel::StatusColumn, workersRow).data().toString()
            << "and the session"
            << model->sessionIndex(m_sessionId, SessionTreeModel::StatusColumn).data().toString();
    QTRY_COMPARE_WITH_TIMEOUT(
        model->sessionIndex(m_sessionId, SessionTreeModel::StatusColumn).data().toString(),
        QStringLiteral("RESTARTING"), 5000);
    QTRY_COMPARE_WITH_TIMEOUT(
        model->sessionIndex(m_sessionId, SessionTreeModel::StatusColumn).data().toString(),
        QStringLiteral("RUNNING"), 60000);
    for (int i = 0; i < 3; ++i)
        QTRY_COMPARE_WITH_TIMEOUT(
            model->index(i, SessionTreeModel::StatusColumn, workersRow).data().toString(),
            QStringLiteral("RUNNING"), 10000);

    // What the console's controller did is in the store for every other process (issue 24 A:
    // its writes once went to a WAL that a CLI process had deleted): the restart counted and
    // every kernel's container id the one that runs on the hosts.
    {
        const QJsonObject shown = showFromAnotherProcess(m_sessionId);
        QCOMPARE(shown.value(QStringLiteral("status")).toString(), QStringLiteral("RUNNING"));
        QVERIFY2(shown.value(QStringLiteral("restart_count")).toInt() >= 1,
                 QJsonDocument(shown).toJson().constData());
        const QMap<QString, QString> running = runningContainers(m_sessionId);
        QCOMPARE(running.size(), 4);
        for (const QJsonValue &k : shown.value(QStringLiteral("kernels")).toArray()) {
            const QString hostname = k[QStringLiteral("hostname")].toString();
            QCOMPARE(k[QStringLiteral("container_id")].toString(), running.value(hostname));
        }
    }

    // The Hosts tab shows live usage next to the allocated figures, for the hosts that run
    // the session's kernels; the sessions view, hidden meanwhile, streams nothing.
    auto *hostsView = window.findChild<HostsView *>();
    QVERIFY(hostsView);
    window.tabs()->setCurrentWidget(hostsView);
    QTRY_COMPARE_WITH_TIMEOUT(view->statsMonitor()->streamCount(), 0, 2000);
    QSet<QString> kernelHosts;
    for (int r = 0; r < model->rowCount(session); ++r) {
        const QModelIndex role = model->index(r, 0, session);
        for (int k = 0; k < model->rowCount(role); ++k)
            kernelHosts.insert(
                model
                    ->kernelRecord(
                        model->index(k, 0, role).data(SessionTreeModel::KernelIdRole).toString())
                    ->host);
    }
    HostsTableModel *hosts = hostsView->model();
    QTRY_COMPARE_WITH_TIMEOUT(hostsView->statsFeed()->monitor()->streamCount(), 4, 10000);
    for (int row = 0; row < hosts->rowCount(); ++row) {
        const QString host = hosts->hostName(row);
        const QModelIndex memory = hosts->index(row, HostsTableModel::MemoryUsedColumn);
        if (kernelHosts.contains(host)) {
            QTRY_VERIFY_WITH_TIMEOUT(memory.data(HostsTableModel::RatioRole).toDouble() > 0, 10000);
            QVERIFY2(
                hosts->index(row, HostsTableModel::CpuUsedColumn)
                    .data()
                    .toString()
                    .endsWith(QLatin1String(" %)")),
                qPrintable(hosts->index(row, HostsTableModel::CpuUsedColumn).data().toString()));
            qInfo() << host << "in use:"
                    << hosts->index(row, HostsTableModel::CpuUsedColumn).data().toString()
                    << memory.data().toString() << "allocated:"
                    << hosts->index(row, HostsTableModel::MemoryColumn).data().toString();
        } else {
            QCOMPARE(memory.data().toString(), QStringLiteral("idle"));
        }
    }
    window.tabs()->setCurrentWidget(view);
    QTRY_COMPARE_WITH_TIMEOUT(hostsView->statsFeed()->monitor()->streamCount(), 0, 2000);
    QVERIFY(!hosts->index(0, HostsTableModel::MemoryUsedColumn).data().isValid());

    // Terminate from the context menu of a member kernel: it acts on the whole session.
    view->tree()->expandAll();
    const QModelIndex worker2 = view->proxy()->mapFromSource(model->index(1, 0, workersRow));
    QVERIFY(worker2.isValid());
    QString asked;
    view->setConfirm([&asked](const QString &, const QString &text) {
        asked = text;
        return true;
    });
    std::unique_ptr<QMenu> menu(view->contextMenuFor(worker2));
    QAction *terminate = nullptr;
    for (QAction *a : menu->actions())
        if (a->objectName() == QStringLiteral("terminateSession"))
            terminate = a;
    QVERIFY(terminate);
    terminate->trigger();
    QVERIFY2(asked.contains(QStringLiteral("worker2 is a member kernel of session")),
             qPrintable(asked));

    // See it go: TERMINATED in the model, and out of the default view.
    QTRY_COMPARE_WITH_TIMEOUT(
        model->sessionIndex(m_sessionId, SessionTreeModel::StatusColumn).data().toString(),
        QStringLiteral("TERMINATED"), 120000);
    QTRY_VERIFY(!view->proxy()->mapFromSource(model->sessionIndex(m_sessionId)).isValid());
    m_sessionId.clear();
}

void TestConsoleE2E::cancelInDialogRollsBack()
{
    MainWindow window(m_controller.get());
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    window.launchAction()->trigger();
    auto *dialog = window.findChild<LaunchDialog *>();
    QVERIFY(dialog);
    const QString file = qEnvironmentVariable("CLUSTERDECK_SOURCE_DIR") +
                         QStringLiteral("/templates/lab-basic.yaml");
    dialog->addTemplateFile(file);
    QVERIFY(dialog->selectTemplate(file));
    QSpinBox *workers = dialog->countBox(QStringLiteral("worker"));
    workers->selectAll();
    QTest::keyClicks(workers, QStringLiteral("12"));
    QCOMPARE(workers->value(), 12);
    const QString name =
        QStringLiteral("e2e-cancel-") + QUuid::createUuid().toString(QUuid::Id128).left(6);
    QTest::keyClicks(dialog->nameEdit(), name);
    QTRY_COMPARE(dialog->previewTree()->topLevelItemCount(), 13);

    QSignalSpy launched(dialog, &LaunchDialog::launched);
    QSignalSpy failed(dialog, &LaunchDialog::launchFailed);
    QTest::mouseClick(dialog->launchButton(), Qt::LeftButton);
    // Cancel once kernels are being made (lab-basic is in-order: the master first).
    QTRY_VERIFY_WITH_TIMEOUT(
        [&] {
            for (int i = 0; i < dialog->progressTree()->topLevelItemCount(); ++i)
                if (dialog->progressTree()->topLevelItem(i)->text(2) == u"CREATING")
                    return true;
            return false;
        }(),
        60000);
    QVERIFY(dialog->cancelButton()->isEnabled());
    QTest::mouseClick(dialog->cancelButton(), Qt::LeftButton);
    QTRY_VERIFY_WITH_TIMEOUT(launched.size() + failed.size() > 0, 120000);
    QVERIFY2(launched.isEmpty(), "a cancelled launch must not report success");
    QVERIFY2(failed[0][0].toString().contains(QStringLiteral("cancel")),
             qPrintable(failed[0][0].toString()));

    // The session is CANCELLED, and nothing of it is left on any host.
    StateStore *store = m_controller->store();
    auto sessions = store->sessions();
    QVERIFY(sessions);
    QString id;
    for (const SessionRecord &s : std::as_const(*sessions))
        if (s.name == name)
            id = s.id;
    QVERIFY2(!id.isEmpty(), "the cancelled attempt is recorded");
    QCOMPARE(toString(store->session(id)->status), QStringLiteral("CANCELLED"));
    for (const HostRecord &h : m_controller->hosts()) {
        auto client = m_controller->registry()->client(h.name);
        QVERIFY(client);
        Docker::ContainerListOptions list;
        list.labels = {QStringLiteral("io.clusterdeck.session=") + id};
        auto left = (*client)->listContainers(list);
        QVERIFY(left);
        QCOMPARE(left->size(), 0);
    }
    dialog->close();
}

// Issue 29: from an empty store with nothing but the console's widgets: the lab's hosts added in
// the Add Host dialog, the lab-basic sample's worker count edited in the template editor and
// saved, a launch of it, RUNNING in the tree, a terminal tab on a worker, Terminate, and nothing
// of the session left on the hosts. The store's network driver is VXLAN (a new store's), which
// needs no setup.
void TestConsoleE2E::widgetsOnlyFromAnEmptyStore()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QByteArray dataHome = qgetenv("XDG_DATA_HOME");
    qputenv("XDG_DATA_HOME", QFile::encodeName(dir.filePath(QStringLiteral("data"))));
    auto restore = qScopeGuard([&] {
        if (dataHome.isEmpty())
            qunsetenv("XDG_DATA_HOME");
        else
            qputenv("XDG_DATA_HOME", dataHome);
    });
    ConsoleController controller;
    controller.setHostRefreshInterval(0);
    QSignalSpy opened(&controller, &ConsoleController::storeOpened);
    controller.openStore(QStringLiteral("sqlite://") + dir.filePath(QStringLiteral("state.db")));
    QTRY_COMPARE_WITH_TIMEOUT(opened.size(), 1, 30000);
    MainWindow window(&controller);
    window.resize(1400, 800);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    window.sessionsView()->portProber()->setInterval(0);

    // The hosts, one Add Host dialog each.
    const LabHosts lab = LabHosts::fromEnvironment();
    QVERIFY2(lab.names().size() >= 2, qPrintable(LabHosts::error()));
    auto *hostsView = window.findChild<HostsView *>();
    QVERIFY(hostsView);
    window.tabs()->setCurrentWidget(hostsView);
    for (const QString &h : lab.names()) {
        hostsView->addHost();
        AddHostDialog *dialog = nullptr;
        for (AddHostDialog *d : hostsView->findChildren<AddHostDialog *>())
            if (d->isVisible())
                dialog = d;
        QVERIFY(dialog);
        QTest::keyClicks(dialog->findChild<QLineEdit *>(QStringLiteral("hostName")), h);
        QTest::keyClicks(dialog->findChild<QLineEdit *>(QStringLiteral("hostEndpoint")),
                         lab.unixEndpoint(h));
        QTest::keyClicks(dialog->findChild<QLineEdit *>(QStringLiteral("hostAddress")),
                         lab.address(h));
        QSignalSpy accepted(dialog, &QDialog::accepted);
        dialog->findChild<QDialogButtonBox *>()->button(QDialogButtonBox::Ok)->click();
        QTRY_COMPARE_WITH_TIMEOUT(accepted.size(), 1, 30000);
    }
    QTRY_COMPARE_WITH_TIMEOUT(controller.hosts().size(), lab.names().size(), 30000);
    controller.refreshHosts();
    QTRY_COMPARE_WITH_TIMEOUT(controller.reachableHosts(), int(lab.names().size()), 60000);

    // The sample, its default worker count edited in the form, saved among the admin's own.
    TemplateEditor *editor = window.templateEditor();
    window.tabs()->setCurrentWidget(editor);
    const QString sample = qEnvironmentVariable("CLUSTERDECK_SOURCE_DIR") +
                           QStringLiteral("/templates/lab-basic.yaml");
    QVERIFY(editor->openFile(sample));
    QTableWidget *roles = editor->rolesTable();
    QTableWidgetItem *count = roles->item(1, TemplateEditor::RoleCount);
    QVERIFY(count);
    QCOMPARE(roles->item(1, TemplateEditor::RoleName)->text(), QStringLiteral("worker"));
    // As a double click does: the cell's spin box, typed into and committed.
    roles->setCurrentItem(count);
    roles->editItem(count);
    QWidget *cell = roles->viewport()->findChild<QSpinBox *>();
    if (!cell)
        cell = roles->viewport()->findChild<QLineEdit *>();
    QVERIFY(cell);
    cell->setFocus();
    QTest::keyClick(cell, Qt::Key_A, Qt::ControlModifier);
    QTest::keyClicks(cell, QStringLiteral("3"));
    QMetaObject::invokeMethod(roles, "commitData", Q_ARG(QWidget *, cell));
    QMetaObject::invokeMethod(
        roles, "closeEditor", Q_ARG(QWidget *, cell),
        Q_ARG(QAbstractItemDelegate::EndEditHint, QAbstractItemDelegate::NoHint));
    QCOMPARE(count->text(), QStringLiteral("3")); // the sample's is 2
    QVERIFY(editor->isModified());
    QVERIFY(editor->save());
    const QString saved = editor->currentFile();
    QVERIFY2(saved.startsWith(dir.path()), qPrintable(saved));

    // Launched from the dialog with the saved template.
    window.tabs()->setCurrentWidget(window.sessionsView());
    window.launchAction()->trigger();
    auto *dialog = window.findChild<LaunchDialog *>();
    QVERIFY(dialog);
    QVERIFY(QTest::qWaitForWindowExposed(dialog));
    dialog->addTemplateFile(saved);
    QVERIFY(dialog->selectTemplate(saved));
    QSpinBox *workers = dialog->countBox(QStringLiteral("worker"));
    QVERIFY(workers);
    QCOMPARE(workers->value(), 3); // the edited default
    QTRY_COMPARE(dialog->previewTree()->topLevelItemCount(), 4);
    QSignalSpy launched(dialog, &LaunchDialog::launched);
    QSignalSpy failed(dialog, &LaunchDialog::launchFailed);
    QTest::mouseClick(dialog->launchButton(), Qt::LeftButton);
    QTRY_VERIFY_WITH_TIMEOUT(launched.size() + failed.size() > 0, 240000);
    QVERIFY2(failed.isEmpty(), qPrintable(failed.isEmpty() ? QString() : failed[0][0].toString()));
    const QString sessionId = launched[0][0].toString();
    auto removeIfLeft = qScopeGuard([&] {
        runProcess(QStringLiteral(CLUSTERDECKCTL),
                   {QStringLiteral("--store"),
                    QStringLiteral("sqlite://") + dir.filePath(QStringLiteral("state.db")),
                    QStringLiteral("rm"), sessionId},
                   120000);
    });

    SessionTreeModel *model = controller.sessionModel();
    QTRY_VERIFY_WITH_TIMEOUT(model->hasSession(sessionId), 30000);
    QTRY_COMPARE_WITH_TIMEOUT(
        model->sessionIndex(sessionId, SessionTreeModel::StatusColumn).data().toString(),
        QStringLiteral("RUNNING"), 60000);
    const QModelIndex session = model->sessionIndex(sessionId);
    QCOMPARE(session.siblingAtColumn(SessionTreeModel::KernelsColumn).data().toString(),
             QStringLiteral("4 kernels: master×1, worker×3"));

    // A terminal on worker2: its shell answers in the Terminals tab.
    SessionsView *view = window.sessionsView();
    view->tree()->expandAll();
    const QModelIndex workersRow = model->index(1, 0, session);
    const QModelIndex worker2 = view->proxy()->mapFromSource(model->index(1, 0, workersRow));
    QVERIFY(worker2.isValid());
    view->tree()->setCurrentIndex(worker2);
    view->openTerminalAction()->trigger();
    QCOMPARE(window.tabs()->currentWidget(), window.terminals());
    QTRY_COMPARE(window.terminals()->count(), 1);
    TerminalWidget *terminal = window.terminals()->terminalAt(0);
    QVERIFY(terminal);
    QTRY_VERIFY2_WITH_TIMEOUT(terminal->screen()->screenText().contains(QLatin1String("~ #")),
                              qPrintable(terminal->screen()->screenText()), 20000);
    QTest::qWait(300); // ash's cursor query
    QTest::keyClicks(terminal, QStringLiteral("echo on-$BACKEND_CLUSTER_HOST"));
    QTest::keyClick(terminal, Qt::Key_Return);
    QTRY_VERIFY2_WITH_TIMEOUT(
        terminal->screen()->screenText().contains(QLatin1String("on-worker2")),
        qPrintable(terminal->screen()->screenText()), 10000);

    // Terminate, and nothing of the session stays on any host.
    window.tabs()->setCurrentWidget(view);
    view->tree()->setCurrentIndex(view->proxy()->mapFromSource(session));
    view->setConfirm([](const QString &, const QString &) { return true; });
    view->terminateAction()->trigger();
    QTRY_COMPARE_WITH_TIMEOUT(
        model->sessionIndex(sessionId, SessionTreeModel::StatusColumn).data().toString(),
        QStringLiteral("TERMINATED"), 120000);
    QCOMPARE(LabHosts::count(lab.containersOf(sessionId)), 0);
    QCOMPARE(LabHosts::count(lab.networksOf(sessionId)), 0);
    removeIfLeft.dismiss();
}

void TestConsoleE2E::cleanupTestCase()
{
    if (m_controller && !m_sessionId.isEmpty() && m_controller->sessionController())
        (void)m_controller->sessionController()->terminate(m_sessionId,
                                                           QStringLiteral("e2e cleanup"));
    if (m_controller)
        m_controller->waitForIdle();
    m_controller.reset();
}

QTEST_MAIN(TestConsoleE2E)
#include "tst_console_e2e.moc"
