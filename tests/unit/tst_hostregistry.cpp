// Unit tests of the host registry: name/label/endpoint/TLS validation, the registry over a
// temporary SQLite store (add, duplicates, remove refused while kernels run), allocations, and
// the pure steps of the swarm setup. No daemon is contacted except loopback port 1 (refused).

#include "docker/dockerclient.h"
#include "docker/dockerendpoint.h"
#include "host/hostinspector.h"
#include "host/hostregistry.h"
#include "host/swarmsetup.h"
#include "store/sqlitestore.h"

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>

#include <limits>

using namespace ClusterDeck;

Q_DECLARE_METATYPE(ClusterDeck::SwarmSetup::Action)
Q_DECLARE_METATYPE(ClusterDeck::SwarmSetup::HostView)

namespace {

template<typename T>
QByteArray why(const Result<T> &r)
{
    return r ? QByteArray() : r.error().toString().toUtf8();
}

KernelRecord kernel(const QString &session, const QString &host, std::optional<double> cpus,
                    std::optional<qint64> memory, DesiredState desired = DesiredState::Running)
{
    static int next = 0;
    KernelRecord k;
    k.id = QStringLiteral("k%1").arg(++next);
    k.sessionId = session;
    k.role = QStringLiteral("worker");
    k.roleIdx = next;
    k.hostname = QStringLiteral("worker%1").arg(next);
    k.host = host;
    k.cpus = cpus;
    k.memoryBytes = memory;
    k.desired = desired;
    k.createdAt = k.updatedAt = QDateTime::currentDateTimeUtc();
    return k;
}

SwarmSetup::HostView view(const QString &name, const QString &state, bool manager = false,
                          const QString &nodeId = {}, const QString &clusterId = {})
{
    SwarmSetup::HostView v;
    v.name = name;
    v.reachable = state != QLatin1String("unreachable");
    v.error = v.reachable ? QString() : QStringLiteral("connection refused");
    v.state = v.reachable ? state : QString();
    v.manager = manager;
    v.nodeId = nodeId;
    v.clusterId = clusterId;
    return v;
}

} // namespace

class TestHostRegistry : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void init();
    void cleanup();

    void validateName_data();
    void validateName();
    void parseLabel_data();
    void parseLabel();
    void validateEndpoint_data();
    void validateEndpoint();
    void validateNormalises();

    void addListInspectRemove();
    void addRefusesDuplicates();
    void addTestsTheConnection();
    void removeRefusedWhileKernelsRun();
    void clientIsCachedPerHost();

    void allocation_data();
    void allocation();

    void advertiseAddress_data();
    void advertiseAddress();
    void chooseManager_data();
    void chooseManager();
    void classify_data();
    void classify();
    void reportSummary();

private:
    QString tlsFile(const QString &name) const { return m_dir.filePath(name); }

    QTemporaryDir m_dir;
    std::unique_ptr<SqliteStore> m_store;
    std::unique_ptr<HostRegistry> m_registry;
    int m_storeIndex = 0;
};

void TestHostRegistry::initTestCase()
{
    QVERIFY(m_dir.isValid());
    for (const char *name : {"ca.pem", "cert.pem", "key.pem"}) {
        QFile file(m_dir.filePath(QString::fromLatin1(name)));
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write("-----BEGIN CERTIFICATE-----\n");
    }
    QVERIFY(QDir(m_dir.path()).mkpath(QStringLiteral("adir")));
}

void TestHostRegistry::init()
{
    auto store =
        SqliteStore::open(m_dir.filePath(QStringLiteral("state%1.db").arg(++m_storeIndex)));
    QVERIFY2(store, why(store));
    m_store = std::move(*store);
    m_registry = std::make_unique<HostRegistry>(m_store.get());
}

void TestHostRegistry::cleanup()
{
    m_registry.reset();
    m_store.reset();
}

void TestHostRegistry::validateName_data()
{
    QTest::addColumn<QString>("name");
    QTest::addColumn<bool>("valid");
    QTest::newRow("simple") << "h1" << true;
    QTest::newRow("digit first") << "1host" << true;
    QTest::newRow("dashes") << "gpu-node-7" << true;
    QTest::newRow("63 chars") << QString(63, u'a') << true;
    QTest::newRow("64 chars") << QString(64, u'a') << false;
    QTest::newRow("empty") << "" << false;
    QTest::newRow("upper case") << "H1" << false;
    QTest::newRow("leading dash") << "-h1" << false;
    QTest::newRow("underscore") << "h_1" << false;
    QTest::newRow("dot") << "h1.example" << false;
    QTest::newRow("space") << "h 1" << false;
    QTest::newRow("slash") << "h/1" << false;
}

void TestHostRegistry::validateName()
{
    QFETCH(QString, name);
    QFETCH(bool, valid);
    const auto result = HostRegistry::validateName(name);
    QCOMPARE(bool(result), valid);
    if (!valid) {
        QCOMPARE(result.error().kind, Error::Kind::Invalid);
        QVERIFY2(result.error().toString().contains(QStringLiteral("host name")),
                 qPrintable(result.error().toString()));
    }
}

void TestHostRegistry::parseLabel_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<bool>("valid");
    QTest::addColumn<QString>("key");
    QTest::addColumn<QString>("value");
    QTest::newRow("plain") << "gpu=a100" << true << "gpu"
                           << "a100";
    QTest::newRow("empty value") << "zone=" << true << "zone"
                                 << "";
    QTest::newRow("value with =") << "expr=a=b" << true << "expr"
                                  << "a=b";
    QTest::newRow("dotted key") << "io.example/rack=r7" << true << "io.example/rack"
                                << "r7";
    QTest::newRow("no =") << "gpu" << false << ""
                          << "";
    QTest::newRow("empty key") << "=x" << false << ""
                               << "";
    QTest::newRow("space in key") << "my key=x" << false << ""
                                  << "";
}

void TestHostRegistry::parseLabel()
{
    QFETCH(QString, text);
    QFETCH(bool, valid);
    const auto label = HostRegistry::parseLabel(text);
    QCOMPARE(bool(label), valid);
    if (valid) {
        QTEST(label->first, "key");
        QTEST(label->second, "value");
    }
}

void TestHostRegistry::validateEndpoint_data()
{
    QTest::addColumn<QString>("endpoint");
    QTest::addColumn<QStringList>("tls"); // ca, cert, key (file names in the temp dir)
    QTest::addColumn<QString>("expectedUrl");
    QTest::addColumn<QString>("errorPart"); // empty: valid

    const QStringList none{QString(), QString(), QString()};
    const QStringList all{QStringLiteral("ca.pem"), QStringLiteral("cert.pem"),
                          QStringLiteral("key.pem")};
    QTest::newRow("unix") << "unix:///run/cdlab/h1/docker.sock" << none
                          << "unix:///run/cdlab/h1/docker.sock"
                          << "";
    QTest::newRow("bare socket path")
        << "/var/run/docker.sock" << none << "unix:///var/run/docker.sock"
        << "";
    QTest::newRow("tcp default port")
        << "tcp://192.168.213.11" << none << "tcp://192.168.213.11:2375"
        << "";
    QTest::newRow("tcp+tls with files")
        << "tcp+tls://192.168.213.11:2376" << all << "tcp+tls://192.168.213.11:2376"
        << "";
    QTest::newRow("tcp with CA becomes tls")
        << "tcp://192.168.213.11:2376" << all << "tcp+tls://192.168.213.11:2376"
        << "";
    QTest::newRow("tcp+tls CA only")
        << "tcp+tls://h1:2376" << QStringList{QStringLiteral("ca.pem"), {}, {}}
        << "tcp+tls://h1:2376"
        << "";
    QTest::newRow("missing CA file")
        << "tcp+tls://h1:2376" << QStringList{QStringLiteral("nope.pem"), {}, {}} << ""
        << "does not exist";
    QTest::newRow("CA is a directory")
        << "tcp+tls://h1:2376" << QStringList{QStringLiteral("adir"), {}, {}} << ""
        << "is not a file";
    QTest::newRow("cert without key")
        << "tcp+tls://h1:2376"
        << QStringList{QStringLiteral("ca.pem"), QStringLiteral("cert.pem"), {}} << ""
        << "needs its key";
    QTest::newRow("tls files on unix") << "unix:///run/docker.sock" << all << ""
                                       << "need a tcp+tls:// endpoint";
    QTest::newRow("bad scheme") << "npipe:////./pipe/docker_engine" << none << ""
                                << "unsupported scheme";
    QTest::newRow("relative socket") << "unix://docker.sock" << none << ""
                                     << "absolute";
    QTest::newRow("no scheme") << "h1:2375" << none << ""
                               << "expected unix";
    QTest::newRow("bad port") << "tcp://h1:99999" << none << ""
                              << "port";
    QTest::newRow("empty") << "" << none << ""
                           << "empty";
}

void TestHostRegistry::validateEndpoint()
{
    QFETCH(QString, endpoint);
    QFETCH(QStringList, tls);
    QFETCH(QString, expectedUrl);
    QFETCH(QString, errorPart);
    HostRecord host;
    host.name = QStringLiteral("h1");
    host.endpoint = endpoint;
    host.tlsCa = tls.at(0).isEmpty() ? QString() : tlsFile(tls.at(0));
    host.tlsCert = tls.at(1).isEmpty() ? QString() : tlsFile(tls.at(1));
    host.tlsKey = tls.at(2).isEmpty() ? QString() : tlsFile(tls.at(2));
    const auto result = HostRegistry::validate(host);
    if (errorPart.isEmpty()) {
        QVERIFY2(result, why(result));
        QCOMPARE(result->endpoint, expectedUrl);
    } else {
        QVERIFY(!result);
        QCOMPARE(result.error().kind, Error::Kind::Invalid);
        QVERIFY2(result.error().toString().contains(errorPart),
                 qPrintable(result.error().toString()));
        QVERIFY2(result.error().toString().contains(QStringLiteral("host h1")),
                 qPrintable(result.error().toString()));
    }
}

void TestHostRegistry::validateNormalises()
{
    // Relative TLS paths become absolute: the CLI may run from another directory later.
    const QString previous = QDir::currentPath();
    QVERIFY(QDir::setCurrent(m_dir.path()));
    HostRecord host;
    host.name = QStringLiteral("h2");
    host.endpoint = QStringLiteral(" tcp+tls://192.168.213.12 ");
    host.tlsCa = QStringLiteral("ca.pem");
    host.tlsCert = QStringLiteral("cert.pem");
    host.tlsKey = QStringLiteral("key.pem");
    host.publicAddress = QStringLiteral(" 192.168.213.12 ");
    const auto result = HostRegistry::validate(host);
    QVERIFY(QDir::setCurrent(previous));
    QVERIFY2(result, why(result));
    QCOMPARE(result->endpoint, QStringLiteral("tcp+tls://192.168.213.12:2376"));
    QCOMPARE(result->tlsCa, QDir(m_dir.path()).absoluteFilePath(QStringLiteral("ca.pem")));
    QVERIFY(QDir::isAbsolutePath(result->tlsKey));
    QCOMPARE(result->publicAddress, QStringLiteral("192.168.213.12"));

    host.publicAddress = QStringLiteral("http://192.168.213.12/");
    QVERIFY(!HostRegistry::validate(host));
}

void TestHostRegistry::addListInspectRemove()
{
    HostRegistry::AddOptions offline;
    offline.testConnection = false;
    HostRecord b;
    b.name = QStringLiteral("b-host");
    b.endpoint = QStringLiteral("unix:///run/b.sock");
    b.publicAddress = QStringLiteral("10.1.2.3");
    b.labels.insert(QStringLiteral("gpu"), QStringLiteral("a100"));
    HostRecord a;
    a.name = QStringLiteral("a-host");
    a.endpoint = QStringLiteral("tcp://127.0.0.1:2375");

    const auto addedB = m_registry->add(b, offline);
    QVERIFY2(addedB, why(addedB));
    QVERIFY(addedB->addedAt.isValid());
    QVERIFY2(m_registry->add(a, offline), why(m_registry->add(a, offline)));

    const auto list = m_registry->list();
    QVERIFY2(list, why(list));
    QCOMPARE(list->size(), 2);
    QCOMPARE(list->at(0).name, QStringLiteral("a-host")); // name order
    QCOMPARE(list->at(1).labels.value(QStringLiteral("gpu")), QStringLiteral("a100"));

    const auto inspected = m_registry->inspect(QStringLiteral("b-host"));
    QVERIFY2(inspected, why(inspected));
    QCOMPARE(inspected->publicAddress, QStringLiteral("10.1.2.3"));
    QCOMPARE(inspected->endpoint, QStringLiteral("unix:///run/b.sock"));

    QVERIFY2(m_registry->remove(QStringLiteral("b-host")),
             why(m_registry->remove(QStringLiteral("b-host"))));
    const auto gone = m_registry->inspect(QStringLiteral("b-host"));
    QVERIFY(!gone);
    QCOMPARE(gone.error().kind, Error::Kind::NotFound);
    const auto again = m_registry->remove(QStringLiteral("b-host"));
    QVERIFY(!again);
    QCOMPARE(again.error().kind, Error::Kind::NotFound);
    QCOMPARE(m_registry->list()->size(), 1);
}

void TestHostRegistry::addRefusesDuplicates()
{
    HostRegistry::AddOptions offline;
    offline.testConnection = false;
    HostRecord h;
    h.name = QStringLiteral("h1");
    h.endpoint = QStringLiteral("tcp://192.168.213.11:2375");
    QVERIFY(m_registry->add(h, offline));

    const auto sameName = m_registry->add(h, offline);
    QVERIFY(!sameName);
    QCOMPARE(sameName.error().kind, Error::Kind::Conflict);
    QVERIFY2(sameName.error().message.contains(QStringLiteral("registered already")),
             qPrintable(sameName.error().toString()));

    HostRecord alias = h;
    alias.name = QStringLiteral("h1-again");
    alias.endpoint = QStringLiteral("tcp://192.168.213.11"); // same daemon, default port
    const auto sameEndpoint = m_registry->add(alias, offline);
    QVERIFY(!sameEndpoint);
    QCOMPARE(sameEndpoint.error().kind, Error::Kind::Conflict);
    QVERIFY2(sameEndpoint.error().message.contains(QStringLiteral("as host h1")),
             qPrintable(sameEndpoint.error().toString()));

    HostRecord badName = h;
    badName.name = QStringLiteral("Bad_Name");
    const auto invalid = m_registry->add(badName, offline);
    QVERIFY(!invalid);
    QCOMPARE(invalid.error().kind, Error::Kind::Invalid);
    QCOMPARE(m_registry->list()->size(), 1);
}

void TestHostRegistry::addTestsTheConnection()
{
    HostRecord dead;
    dead.name = QStringLiteral("dead");
    dead.endpoint = QStringLiteral("tcp://127.0.0.1:1");
    HostRegistry::AddOptions options;
    options.timeout = std::chrono::milliseconds(3000);
    const auto added = m_registry->add(dead, options);
    QVERIFY(!added);
    QCOMPARE(added.error().kind, Error::Kind::Transport);
    QVERIFY2(added.error().toString().contains(QStringLiteral("host dead")),
             qPrintable(added.error().toString()));
    QVERIFY2(added.error().toString().contains(QStringLiteral("cannot reach")),
             qPrintable(added.error().toString()));
    QVERIFY(m_registry->list()->isEmpty()); // nothing registered

    options.testConnection = false;
    QVERIFY(m_registry->add(dead, options));
}

void TestHostRegistry::removeRefusedWhileKernelsRun()
{
    HostRegistry::AddOptions offline;
    offline.testConnection = false;
    for (const char *name : {"h1", "h2"}) {
        HostRecord h;
        h.name = QString::fromLatin1(name);
        h.endpoint = QStringLiteral("unix:///run/%1.sock").arg(h.name);
        QVERIFY(m_registry->add(h, offline));
    }
    auto makeSession = [this](const QString &id, const QString &name,
                              const QList<KernelRecord> &kernels) {
        SessionRecord s;
        s.id = id;
        s.name = name;
        s.templateName = QStringLiteral("t");
        s.mode = ClusterMode::MultiNode;
        s.createdAt = s.updatedAt = QDateTime::currentDateTimeUtc();
        return m_store->createSession(s, kernels);
    };
    QVERIFY(makeSession(QStringLiteral("s-1"), QStringLiteral("train-a"),
                        {kernel(QStringLiteral("s-1"), QStringLiteral("h1"), 1, 1024),
                         kernel(QStringLiteral("s-1"), QStringLiteral("h2"), 1, 1024)}));
    QVERIFY(makeSession(QStringLiteral("s-2"), QStringLiteral("train-b"),
                        {kernel(QStringLiteral("s-2"), QStringLiteral("h2"), 2, 2048)}));

    const auto refused = m_registry->remove(QStringLiteral("h2"));
    QVERIFY(!refused);
    QCOMPARE(refused.error().kind, Error::Kind::Conflict);
    QVERIFY2(refused.error().message.contains(QStringLiteral("sessions train-a, train-b")),
             qPrintable(refused.error().toString()));
    QVERIFY(m_registry->inspect(QStringLiteral("h2")));

    // Meant to be terminated, but not removed yet (a host that did not answer): still refused,
    // or the controller could never remove what the host holds.
    for (const QString &session : {QStringLiteral("s-1"), QStringLiteral("s-2")}) {
        auto kernels = m_store->kernels(session);
        QVERIFY2(kernels, why(kernels));
        for (KernelRecord &k : *kernels) {
            k.desired = DesiredState::Terminated;
            k.status = KernelStatus::Terminating;
        }
        QVERIFY(m_store->updateKernels(*kernels));
    }
    const auto terminating = m_registry->remove(QStringLiteral("h2"));
    QVERIFY(!terminating);
    QCOMPARE(terminating.error().kind, Error::Kind::Conflict);
    QVERIFY2(terminating.error().message.contains(QStringLiteral("TERMINATING")),
             qPrintable(terminating.error().toString()));

    // Once their kernels there are gone, the host may go.
    for (const QString &session : {QStringLiteral("s-1"), QStringLiteral("s-2")}) {
        auto kernels = m_store->kernels(session);
        QVERIFY2(kernels, why(kernels));
        for (KernelRecord &k : *kernels)
            k.status = KernelStatus::Terminated;
        QVERIFY(m_store->updateKernels(*kernels));
    }
    QVERIFY2(m_registry->remove(QStringLiteral("h2")),
             why(m_registry->remove(QStringLiteral("h2"))));
}

void TestHostRegistry::clientIsCachedPerHost()
{
    HostRegistry::AddOptions offline;
    offline.testConnection = false;
    HostRecord h;
    h.name = QStringLiteral("h1");
    h.endpoint = QStringLiteral("unix:///run/h1.sock");
    QVERIFY(m_registry->add(h, offline));
    const auto first = m_registry->client(QStringLiteral("h1"));
    QVERIFY2(first, why(first));
    const auto second = m_registry->client(QStringLiteral("h1"));
    QCOMPARE(first->get(), second->get());
    QCOMPARE((*first)->hostName(), QStringLiteral("h1"));

    // Re-added with another endpoint: a fresh client.
    QVERIFY(m_registry->remove(QStringLiteral("h1")));
    h.endpoint = QStringLiteral("unix:///run/other.sock");
    QVERIFY(m_registry->add(h, offline));
    const auto third = m_registry->client(QStringLiteral("h1"));
    QVERIFY(third);
    QVERIFY(third->get() != first->get());
    QCOMPARE((*third)->endpoint().socketPath(), QStringLiteral("/run/other.sock"));
    QVERIFY(!m_registry->client(QStringLiteral("nope")));
}

void TestHostRegistry::allocation_data()
{
    QTest::addColumn<QList<KernelRecord>>("kernels");
    QTest::addColumn<int>("count");
    QTest::addColumn<double>("cpus");
    QTest::addColumn<qint64>("memory");
    QTest::addColumn<int>("unlimited");

    const QString s = QStringLiteral("s");
    const QString h1 = QStringLiteral("h1");
    const QString h2 = QStringLiteral("h2");
    QTest::newRow("none") << QList<KernelRecord>{} << 0 << 0.0 << qint64(0) << 0;
    QTest::newRow("two on h1") << QList<KernelRecord>{kernel(s, h1, 1.5, 1 << 20),
                                                      kernel(s, h1, 0.5, 1 << 20)}
                               << 2 << 2.0 << qint64(2 << 20) << 0;
    QTest::newRow("other host ignored")
        << QList<KernelRecord>{kernel(s, h1, 1, 100), kernel(s, h2, 4, 400)} << 1 << 1.0
        << qint64(100) << 0;
    QTest::newRow("terminated ignored")
        << QList<KernelRecord>{kernel(s, h1, 1, 100),
                               kernel(s, h1, 8, 800, DesiredState::Terminated)}
        << 1 << 1.0 << qint64(100) << 0;
    QTest::newRow("unlimited counted")
        << QList<KernelRecord>{kernel(s, h1, std::nullopt, std::nullopt), kernel(s, h1, 2, {})} << 2
        << 2.0 << qint64(0) << 2;
    QTest::newRow("negative memory counts 0")
        << QList<KernelRecord>{kernel(s, h1, 1, -500), kernel(s, h1, 1, 300)} << 2 << 2.0
        << qint64(300) << 0;
    QTest::newRow("memory saturates")
        << QList<KernelRecord>{kernel(s, h1, 1, std::numeric_limits<qint64>::max()),
                               kernel(s, h1, 1, std::numeric_limits<qint64>::max() / 2 + 1)}
        << 2 << 2.0 << std::numeric_limits<qint64>::max() << 0;
}

void TestHostRegistry::allocation()
{
    QFETCH(QList<KernelRecord>, kernels);
    const HostAllocation a = HostInspector::allocationFor(QStringLiteral("h1"), kernels);
    QTEST(a.kernels, "count");
    QTEST(a.cpus, "cpus");
    QTEST(a.memoryBytes, "memory");
    QTEST(a.unlimitedKernels, "unlimited");
    // All hosts in one pass (what a launch's survey uses) says the same for h1, and for every
    // other host what allocationFor says of it.
    const QHash<QString, HostAllocation> all = HostAllocation::byHost(kernels);
    const HostAllocation b = all.value(QStringLiteral("h1"));
    QCOMPARE(b.kernels, a.kernels);
    QCOMPARE(b.cpus, a.cpus);
    QCOMPARE(b.memoryBytes, a.memoryBytes);
    QCOMPARE(b.unlimitedKernels, a.unlimitedKernels);
    for (auto it = all.cbegin(); it != all.cend(); ++it) {
        const HostAllocation one = HostInspector::allocationFor(it.key(), kernels);
        QCOMPARE(it->kernels, one.kernels);
        QCOMPARE(it->cpus, one.cpus);
        QCOMPARE(it->memoryBytes, one.memoryBytes);
    }
    // What the store sums itself (SQLite: one aggregate over the rows) says the same.
    if (!kernels.isEmpty()) {
        SessionRecord session;
        session.id = kernels.first().sessionId;
        session.name = QStringLiteral("alloc");
        session.createdAt = session.updatedAt = QDateTime::currentDateTimeUtc();
        QVERIFY2(m_store->createSession(session, kernels), "creating the session");
    }
    const auto stored = m_store->allocationsByHost();
    QVERIFY2(stored, why(stored));
    QCOMPARE(stored->keys().size(), all.keys().size());
    for (auto it = all.cbegin(); it != all.cend(); ++it) {
        const HostAllocation s = stored->value(it.key());
        QCOMPARE(s.kernels, it->kernels);
        QCOMPARE(s.cpus, it->cpus);
        QCOMPARE(s.memoryBytes, it->memoryBytes);
        QCOMPARE(s.unlimitedKernels, it->unlimitedKernels);
    }
}

void TestHostRegistry::advertiseAddress_data()
{
    QTest::addColumn<QString>("endpoint");
    QTest::addColumn<QString>("address");
    QTest::addColumn<QString>("expected");
    QTest::newRow("unix, no address") << "unix:///run/h1.sock"
                                      << ""
                                      << "";
    QTest::newRow("unix with address") << "unix:///run/h1.sock"
                                       << "192.168.213.11"
                                       << "192.168.213.11";
    QTest::newRow("tcp ip") << "tcp://192.168.213.12:2375"
                            << ""
                            << "192.168.213.12";
    QTest::newRow("tls ip") << "tcp+tls://192.168.213.13:2376"
                            << ""
                            << "192.168.213.13";
    QTest::newRow("address wins") << "tcp://192.168.213.12:2375"
                                  << "192.168.213.99"
                                  << "192.168.213.99";
    QTest::newRow("loopback is no address") << "tcp://127.0.0.1:2375"
                                            << ""
                                            << "";
    QTest::newRow("ipv6") << "tcp://[fd00::12]:2375"
                          << ""
                          << "fd00::12";
}

void TestHostRegistry::advertiseAddress()
{
    QFETCH(QString, endpoint);
    QFETCH(QString, address);
    HostRecord h;
    h.name = QStringLiteral("h");
    h.endpoint = endpoint;
    h.publicAddress = address;
    QTEST(SwarmSetup::advertiseAddressFor(h), "expected");
}

void TestHostRegistry::chooseManager_data()
{
    QTest::addColumn<QList<SwarmSetup::HostView>>("views");
    QTest::addColumn<int>("manager");
    QTest::addColumn<int>("initHost");
    using Views = QList<SwarmSetup::HostView>;
    const QString inactive = QStringLiteral("inactive");
    const QString active = QStringLiteral("active");
    const QString down = QStringLiteral("unreachable");
    QTest::newRow("fresh hosts: init on the first")
        << Views{view("h1", inactive), view("h2", inactive)} << -1 << 0;
    QTest::newRow("first unreachable: init on the second")
        << Views{view("h1", down), view("h2", inactive), view("h3", inactive)} << -1 << 1;
    QTest::newRow("existing manager reused")
        << Views{view("h1", inactive), view("h2", active, true, "n2", "c1")} << 1 << 0;
    QTest::newRow("workers only: no manager")
        << Views{view("h1", active, false, "n1"), view("h2", inactive)} << -1 << 1;
    QTest::newRow("pending is not a manager")
        << Views{view("h1", QStringLiteral("pending"), true)} << -1 << -1;
    QTest::newRow("all unreachable") << Views{view("h1", down), view("h2", down)} << -1 << -1;
}

void TestHostRegistry::chooseManager()
{
    QFETCH(QList<SwarmSetup::HostView>, views);
    QFETCH(int, manager);
    QFETCH(int, initHost);
    QCOMPARE(int(SwarmSetup::chooseManager(views)), manager);
    QCOMPARE(int(SwarmSetup::chooseInitHost(views)), initHost);
}

void TestHostRegistry::classify_data()
{
    QTest::addColumn<SwarmSetup::HostView>("host");
    QTest::addColumn<SwarmSetup::Action>("action");
    QTest::addColumn<QString>("detailPart");
    using A = SwarmSetup::Action;
    QTest::newRow("inactive: join") << view("h2", "inactive") << A::Joined << "";
    QTest::newRow("worker of ours")
        << view("h2", "active", false, "n2") << A::AlreadyMember << "n2";
    QTest::newRow("the manager") << view("h1", "active", true, "n1", "c1") << A::AlreadyManager
                                 << "n1";
    QTest::newRow("another manager of ours")
        << view("h4", "active", true, "n4", "c1") << A::AlreadyManager << "n4";
    QTest::newRow("manager of another swarm")
        << view("h5", "active", true, "n5", "c9") << A::DifferentSwarm << "manages swarm c9";
    QTest::newRow("worker of another swarm")
        << view("h6", "active", false, "n6") << A::DifferentSwarm << "does not manage";
    QTest::newRow("unreachable") << view("h7", "unreachable") << A::Unreachable
                                 << "connection refused";
    QTest::newRow("pending: not touched")
        << view("h8", "pending") << A::Failed << "swarm state is pending";
    QTest::newRow("locked: not touched") << view("h9", "locked") << A::Failed << "locked";
}

void TestHostRegistry::classify()
{
    QFETCH(SwarmSetup::HostView, host);
    QFETCH(SwarmSetup::Action, action);
    QFETCH(QString, detailPart);
    const SwarmSetup::HostView manager = view("h1", "active", true, "n1", "c1");
    const QSet<QString> nodes{QStringLiteral("n1"), QStringLiteral("n2"), QStringLiteral("n3")};
    const SwarmSetup::Entry entry = SwarmSetup::classify(host, manager, nodes);
    QCOMPARE(entry.host, host.name);
    QCOMPARE(SwarmSetup::actionName(entry.action), SwarmSetup::actionName(action));
    QVERIFY2(entry.detail.contains(detailPart), qPrintable(entry.detail));
}

void TestHostRegistry::reportSummary()
{
    using A = SwarmSetup::Action;
    SwarmSetup::Report report;
    QVERIFY(!report.oneSwarm());
    report.entries = {{QStringLiteral("h1"), A::AlreadyManager, {}},
                      {QStringLiteral("h2"), A::AlreadyMember, {}},
                      {QStringLiteral("h3"), A::Unreachable, {}}};
    QVERIFY(report.oneSwarm()); // unreachable hosts do not count
    QVERIFY(!report.changed());
    report.entries[1].action = A::Joined;
    QVERIFY(report.changed());
    report.entries[2].action = A::DifferentSwarm;
    QVERIFY(!report.oneSwarm());
    for (A a : {A::Initialised, A::Joined, A::AlreadyManager, A::AlreadyMember, A::DifferentSwarm,
                A::Unreachable, A::Failed})
        QVERIFY(!SwarmSetup::actionName(a).isEmpty());
}

QTEST_GUILESS_MAIN(TestHostRegistry)
#include "tst_hostregistry.moc"
