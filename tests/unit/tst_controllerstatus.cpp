// What a leading controller publishes (issue 28, item 2: an idle leader makes 0 store writes a
// minute): the status of a pass goes into the store when it says something new, when it is the
// first of a leadership, and when `clusterdeckctl reconcile` asked for the pass (it waits for
// the published pass count to grow); a pass that would publish the same again writes nothing.
// A real SQLite store in a temporary directory, a controller over no hosts, and the built
// clusterdeckctl as the other process.

#include "control/controller.h"
#include "host/hostregistry.h"
#include "labcli.h"
#include "store/statestore.h"
#include "store/storefactory.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include <atomic>

using namespace ClusterDeck;
using namespace std::chrono_literals;

#ifndef CLUSTERDECKCTL
#error "CLUSTERDECKCTL must name the clusterdeckctl binary"
#endif

class TestControllerStatus : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void init();
    void cleanup();
    void idleLeaderWritesNothing_data();
    void idleLeaderWritesNothing();
    void reconcileGetsAFreshReportFromAnIdleLeader();

private:
    // Starts the controller and waits for its first pass (published: the first of a leadership).
    void startLeading();

    QTemporaryDir m_dir;
    QString m_url;
    std::unique_ptr<StateStore> m_store;
    std::unique_ptr<HostRegistry> m_registry;
    std::unique_ptr<Controller> m_controller;
    std::atomic_int m_passes{0};
};

void TestControllerStatus::init()
{
    QVERIFY(m_dir.isValid());
    m_url = QStringLiteral("sqlite://") + m_dir.filePath(QStringLiteral("state.db"));
    auto store = openStore(m_url);
    QVERIFY2(store, qPrintable(store ? QString() : store.error().toString()));
    m_store = std::move(*store);
    m_registry = std::make_unique<HostRegistry>(m_store.get());
    ControllerOptions options;
    options.resyncInterval = 100ms; // many passes in a short test
    options.actor = QStringLiteral("tst_controllerstatus");
    m_controller = std::make_unique<Controller>(m_store.get(), m_registry.get(), options);
    m_passes = 0;
    connect(
        m_controller.get(), &Controller::passFinished, this, [this](int, int) { ++m_passes; },
        Qt::DirectConnection);
}

void TestControllerStatus::cleanup()
{
    if (m_controller)
        m_controller->stop();
    m_controller.reset();
    m_registry.reset();
    m_store.reset();
}

void TestControllerStatus::startLeading()
{
    m_controller->start();
    QTRY_VERIFY_WITH_TIMEOUT(m_controller->isLeading() && m_passes.load() >= 1, 20000);
    auto status = m_store->controllerStatus();
    QVERIFY2(status, qPrintable(status ? QString() : status.error().toString()));
    QVERIFY2(status->has_value(), "the first pass of a leadership was not published");
    QCOMPARE((*status)->actor, QStringLiteral("tst_controllerstatus"));
}

void TestControllerStatus::idleLeaderWritesNothing_data()
{
    QTest::addColumn<int>("passes");
    QTest::newRow("10 passes") << 10;
    QTest::newRow("30 passes") << 30;
}

void TestControllerStatus::idleLeaderWritesNothing()
{
    QFETCH(int, passes);
    startLeading();
    if (QTest::currentTestFailed())
        return;
    QTest::qWait(300); // the first pass's own change signal delivered before counting
    QSignalSpy controllerWrites(m_store.get(), &StateStore::controllerChanged);
    QSignalSpy sessionWrites(m_store.get(), &StateStore::sessionChanged);
    QSignalSpy eventWrites(m_store.get(), &StateStore::eventAppended);
    const int from = m_passes.load();
    QTRY_VERIFY_WITH_TIMEOUT(m_passes.load() >= from + passes, 30000);
    QTest::qWait(300);
    QVERIFY2(controllerWrites.count() == 0,
             qPrintable(QStringLiteral("%1 status write(s) in %2 passes over an unchanged store")
                            .arg(controllerWrites.count())
                            .arg(m_passes.load() - from)));
    QCOMPARE(sessionWrites.count(), 0);
    QCOMPARE(eventWrites.count(), 0);
}

void TestControllerStatus::reconcileGetsAFreshReportFromAnIdleLeader()
{
    startLeading();
    if (QTest::currentTestFailed())
        return;
    // Twice in a row with nothing changed in between: each asks the leader for a pass, and each
    // must see that pass published (the count grows) although it says what the last one said.
    for (int round = 1; round <= 2; ++round) {
        auto before = m_store->controllerStatus();
        QVERIFY(before && before->has_value());
        const Proc r = runProcess(QStringLiteral(CLUSTERDECKCTL),
                                  {QStringLiteral("--store"), m_url, QStringLiteral("reconcile"),
                                   QStringLiteral("--json"), QStringLiteral("--timeout"),
                                   QStringLiteral("20")},
                                  60000);
        QVERIFY2(r.exitCode == 0,
                 qPrintable(QStringLiteral("round %1: %2").arg(round).arg(r.err.constData())));
        QVERIFY2(QJsonDocument::fromJson(r.out).isObject(), r.out.constData());
        auto after = m_store->controllerStatus();
        QVERIFY(after && after->has_value());
        QVERIFY2((*after)->passes > (*before)->passes,
                 qPrintable(QStringLiteral("round %1: published pass count %2 -> %3")
                                .arg(round)
                                .arg((*before)->passes)
                                .arg((*after)->passes)));
    }
}

QTEST_GUILESS_MAIN(TestControllerStatus)
#include "tst_controllerstatus.moc"
