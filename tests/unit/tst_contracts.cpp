// docs/contracts.md against the code (issue 25, item 8): the BACKEND_* variables every kernel
// gets, the labels on a kernel's container, and the `--json` shapes that core builds (a session,
// a host, a controller pass) are exactly the ones the page lists. The page's CLI reference is
// checked by ctest cli_reference (scripts/cli-reference.sh).

#include "control/reconcilereport.h"
#include "host/hoststatus.h"
#include "host/hoststatusjson.h"
#include "plan/planresolver.h"
#include "provision/containerspecbuilder.h"
#include "provision/sessionjson.h"
#include "store/recordjson.h"
#include "template/templateloader.h"

#include <QDebug>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QRegularExpression>
#include <QSet>
#include <QTest>

using namespace ClusterDeck;

class TestContracts : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void kernelEnvironment();
    void containerLabels();
    void jsonShapes_data();
    void jsonShapes();
    void statusHistoryInTheStore();

private:
    // The page from the line `heading` to the next heading of the same or a higher level.
    QString section(const QString &heading) const;
    // The cells of the table rows in `text` (header and separator rows left out).
    static QList<QStringList> tableRows(const QString &text);
    // The JSON example after `<!-- json:NAME -->` (the next ```json block).
    QJsonObject example(const QString &name) const;

    QString m_page;
};

namespace {

const QString kSession = QStringLiteral("3f2c9a41-7b7e-4c1e-9d51-0a6f3b2c1d00");

// A role whose name has a '-' (BACKEND_CLUSTER_<ROLE>_HOSTS upper-cases it, '-' → '_').
const QByteArray kTemplate = "name: demo\n"
                             "roles:\n"
                             "  - name: master\n"
                             "    task: {image: img, ports: [web:http:8080]}\n"
                             "  - name: param-server\n"
                             "    task: {image: img}\n"
                             "    count: 2\n"
                             "    max: 4\n";

ClusterPlan resolved()
{
    TemplateLoader loader;
    auto t = loader.loadClusterFromData(kTemplate, QStringLiteral("demo.yaml"));
    if (!t)
        qFatal("test template does not load: %s", qPrintable(t.error().toString()));
    LaunchOptions options;
    options.sessionId = kSession;
    auto plan = resolvePlan(*t, options, {});
    if (!plan)
        qFatal("test plan does not resolve: %s", qPrintable(plan.error().toString()));
    return *plan;
}

// "a.b", "a.list[].c": every key of `value`, the first element standing for each array's. The
// content of the objects at `freeForm` paths is data (a host's labels), not shape.
void collectPaths(const QJsonValue &value, const QString &path, const QSet<QString> &freeForm,
                  QStringList *out)
{
    if (value.isObject()) {
        if (freeForm.contains(path))
            return;
        const QJsonObject o = value.toObject();
        for (auto it = o.begin(); it != o.end(); ++it) {
            const QString p = path.isEmpty() ? it.key() : path + QLatin1Char('.') + it.key();
            out->append(p);
            collectPaths(it.value(), p, freeForm, out);
        }
    } else if (value.isArray() && !value.toArray().isEmpty()) {
        collectPaths(value.toArray().first(), path + QStringLiteral("[]"), freeForm, out);
    }
}

QStringList paths(const QJsonObject &o, const QSet<QString> &freeForm = {})
{
    QStringList out;
    collectPaths(o, QString(), freeForm, &out);
    out.sort();
    return out;
}

// What differs between the page's list and the code's, for the failure message.
QByteArray difference(const QStringList &documented, const QStringList &made)
{
    QStringList onlyPage, onlyCode;
    for (const QString &d : documented) {
        if (!made.contains(d))
            onlyPage.append(d);
    }
    for (const QString &m : made) {
        if (!documented.contains(m))
            onlyCode.append(m);
    }
    return QStringLiteral("docs/contracts.md lists %1 that the code does not make; the code makes "
                          "%2 that the page does not list")
        .arg(onlyPage.isEmpty() ? QStringLiteral("nothing") : onlyPage.join(QStringLiteral(", ")),
             onlyCode.isEmpty() ? QStringLiteral("nothing") : onlyCode.join(QStringLiteral(", ")))
        .toUtf8();
}

QJsonObject sessionJson()
{
    SessionRecord s;
    s.id = kSession;
    s.name = QStringLiteral("demo-3f2c9a41");
    s.templateName = QStringLiteral("demo");
    s.mode = ClusterMode::MultiNode;
    s.status = SessionStatus::Running;
    s.networkName = QStringLiteral("cd-3f2c9a41");
    s.networkHost = QStringLiteral("h1");
    s.createdAt = QDateTime(QDate(2026, 12, 6), QTime(1, 0), Qt::UTC);
    KernelRecord k;
    k.id = QStringLiteral("0d4e5c36-0a53-5d4e-8f0b-4f1f7b1c2a10");
    k.sessionId = s.id;
    k.hostname = QStringLiteral("master1");
    k.role = QStringLiteral("master");
    k.roleIdx = 1;
    k.primary = true;
    k.host = QStringLiteral("h1");
    k.containerName = QStringLiteral("cd-3f2c9a41-master1");
    k.containerId = QStringLiteral("8f3a").repeated(16);
    k.status = KernelStatus::Running;
    k.ports.append(PortBinding{QStringLiteral("web"), QStringLiteral("http"), 8080, 49153,
                               QStringLiteral("http://10.0.0.1:49153")});
    return SessionJson::toJson(s, {k});
}

QJsonObject hostJson()
{
    // Reachable and with TLS files: the keys that only such a host has are there too.
    HostStatus s;
    s.host.name = QStringLiteral("h1");
    s.host.endpoint = QStringLiteral("tcp+tls://10.0.0.1:2376");
    s.host.tlsCa = QStringLiteral("/etc/cd/ca.pem");
    s.host.tlsCert = QStringLiteral("/etc/cd/cert.pem");
    s.host.tlsKey = QStringLiteral("/etc/cd/key.pem");
    s.host.labels.insert(QStringLiteral("zone"), QStringLiteral("a"));
    s.reachable = true;
    s.swarmState = QStringLiteral("active");
    s.images = QStringList{QStringLiteral("clusterdeck/lab:latest")};
    return HostStatusJson::toJson(s);
}

QJsonObject reconcileJson()
{
    // An action with every optional key (kernel, host, object, exit code). A refusal's "refused"
    // is not in the example: a pass that refuses has no changes.
    ReconcileReport r;
    ReconcileReport::Applied a;
    a.action.kind = ReconcileAction::Kind::KernelExited;
    a.action.sessionId = kSession;
    a.action.kernelId = QStringLiteral("0d4e5c36-0a53-5d4e-8f0b-4f1f7b1c2a10");
    a.action.host = QStringLiteral("h2");
    a.action.objectId = QStringLiteral("8f3a").repeated(16);
    a.action.objectName = QStringLiteral("cd-3f2c9a41-worker2");
    a.action.exitCode = 137;
    a.action.why = QStringLiteral("the container exited");
    a.done = true;
    a.outcome = QStringLiteral("restart-session");
    r.applied.append(a);
    r.notes.append(QStringLiteral("a note"));
    r.warnings.append(QStringLiteral("a warning"));
    r.startedAt = QDateTime(QDate(2026, 12, 6), QTime(1, 0), Qt::UTC);
    r.finishedAt = r.startedAt.addMSecs(120);
    return r.toJson();
}

} // namespace

void TestContracts::initTestCase()
{
    const QString path =
        qEnvironmentVariable("CLUSTERDECK_SOURCE_DIR") + QStringLiteral("/docs/contracts.md");
    QFile file(path);
    QVERIFY2(file.open(QIODevice::ReadOnly), qPrintable(path));
    m_page = QString::fromUtf8(file.readAll());
}

QString TestContracts::section(const QString &heading) const
{
    const qsizetype at = m_page.indexOf(QLatin1Char('\n') + heading + QLatin1Char('\n'));
    if (at < 0)
        return {};
    const QString level = heading.section(QLatin1Char(' '), 0, 0); // "##"
    const QRegularExpression next(QStringLiteral("\n#{1,%1} ").arg(level.size()));
    const qsizetype end = m_page.indexOf(next, at + 1);
    return m_page.mid(at, end < 0 ? -1 : end - at);
}

QList<QStringList> TestContracts::tableRows(const QString &text)
{
    QList<QStringList> rows;
    bool header = true;
    for (const QString &line : text.split(QLatin1Char('\n'))) {
        if (!line.startsWith(QLatin1Char('|'))) {
            header = true; // the next table starts with its header
            continue;
        }
        if (header || line.startsWith(QLatin1String("|---"))) {
            header = false;
            continue;
        }
        QStringList cells = line.mid(1, line.size() - 2).split(QLatin1Char('|'));
        for (QString &c : cells)
            c = c.trimmed();
        rows.append(cells);
    }
    return rows;
}

QJsonObject TestContracts::example(const QString &name) const
{
    const QString marker = QStringLiteral("<!-- json:%1 -->").arg(name);
    const qsizetype at = m_page.indexOf(marker);
    if (at < 0)
        return {};
    const QString open = QStringLiteral("```json\n");
    const qsizetype begin = m_page.indexOf(open, at);
    const qsizetype end = m_page.indexOf(QStringLiteral("\n```"), begin + open.size());
    if (begin < 0 || end < 0)
        return {};
    QJsonParseError error;
    const QJsonDocument doc = QJsonDocument::fromJson(
        m_page.mid(begin + open.size(), end - begin - open.size()).toUtf8(), &error);
    if (error.error != QJsonParseError::NoError)
        qWarning().noquote() << "the example" << name << "is not JSON:" << error.errorString();
    return doc.object();
}

void TestContracts::kernelEnvironment()
{
    const QString text = section(QStringLiteral("## Environment inside every kernel"));
    QVERIFY2(!text.isEmpty(), "no section '## Environment inside every kernel'");
    QStringList documented;
    for (const QStringList &row : tableRows(text)) {
        if (row.value(0).startsWith(QLatin1String("`BACKEND_")))
            documented.append(row.value(0).mid(1, row.value(0).size() - 2));
    }
    documented.sort();

    const ClusterPlan plan = resolved();
    QSet<QString> names;
    for (const KernelSpec &k : plan.kernels) {
        for (auto it = k.env.cbegin(); it != k.env.cend(); ++it) {
            if (!it.key().startsWith(QLatin1String("BACKEND_")))
                continue;
            QString name = it.key();
            // One row stands for every role's.
            for (const QString &role : {QStringLiteral("MASTER"), QStringLiteral("PARAM_SERVER")}) {
                if (name == QStringLiteral("BACKEND_CLUSTER_%1_HOSTS").arg(role))
                    name = QStringLiteral("BACKEND_CLUSTER_<ROLE>_HOSTS");
            }
            names.insert(name);
        }
    }
    QStringList made(names.begin(), names.end());
    made.sort();
    QVERIFY2(documented == made, difference(documented, made).constData());

    // The values the page's examples stand for.
    const KernelSpec &k = plan.kernels.at(2);
    QCOMPARE(k.env.value(QStringLiteral("BACKEND_CLUSTER_HOST")), QStringLiteral("param-server2"));
    QCOMPARE(k.env.value(QStringLiteral("BACKEND_CLUSTER_ROLE_IDX")), QStringLiteral("2"));
    QCOMPARE(k.env.value(QStringLiteral("BACKEND_CLUSTER_LOCAL_RANK")), QStringLiteral("2"));
    QCOMPARE(k.env.value(QStringLiteral("BACKEND_CLUSTER_HOSTS")),
             QStringLiteral("master1,param-server1,param-server2"));
    QCOMPARE(k.env.value(QStringLiteral("BACKEND_CLUSTER_PARAM_SERVER_HOSTS")),
             QStringLiteral("param-server1,param-server2"));
    QCOMPARE(k.env.value(QStringLiteral("BACKEND_CLUSTER_REPLICAS")),
             QStringLiteral("master:1,param-server:2"));
    QCOMPARE(k.env.value(QStringLiteral("BACKEND_CLUSTER_SIZE")), QStringLiteral("3"));
    QCOMPARE(k.env.value(QStringLiteral("BACKEND_CLUSTER_MODE")), QStringLiteral("multi-node"));
}

void TestContracts::containerLabels()
{
    const QString text = section(QStringLiteral("## Labels"));
    QVERIFY2(!text.isEmpty(), "no section '## Labels'");
    // | `label` | value | on: containers, networks, volumes |
    QStringList documented;
    for (const QStringList &row : tableRows(text)) {
        if (row.value(0).startsWith(QLatin1Char('`')) &&
            row.value(2).contains(QLatin1String("kernel containers")))
            documented.append(row.value(0).mid(1, row.value(0).size() - 2));
    }
    documented.sort();

    const ClusterPlan plan = resolved();
    const Docker::ContainerSpec c = ContainerSpecBuilder::specFor(
        plan.kernels.first(), plan.networkName,
        QStringLiteral("5e0b1c2d-0000-4000-8000-000000000001"), QStringLiteral("10.0.0.1"));
    QStringList made = c.labels.keys();
    made.sort();
    QVERIFY2(documented == made, difference(documented, made).constData());

    // Names: the container, its hostname and the network.
    QCOMPARE(c.name, QStringLiteral("cd-3f2c9a41-master1"));
    QCOMPARE(c.hostname, QStringLiteral("master1"));
    QCOMPARE(plan.networkName, QStringLiteral("cd-3f2c9a41"));
    QCOMPARE(plan.sessionName, QStringLiteral("demo-3f2c9a41"));
    QCOMPARE(plan.kernels.at(1).hostname, QStringLiteral("param-server1"));
}

void TestContracts::jsonShapes_data()
{
    QTest::addColumn<QString>("name");
    QTest::addColumn<QJsonObject>("made");
    QTest::addColumn<QStringList>("freeForm");
    QTest::newRow("session") << "session" << sessionJson() << QStringList{};
    QTest::newRow("host") << "host" << hostJson() << QStringList{QStringLiteral("labels")};
    QTest::newRow("reconcile") << "reconcile" << reconcileJson() << QStringList{};
}

void TestContracts::jsonShapes()
{
    QFETCH(QString, name);
    QFETCH(QJsonObject, made);
    QFETCH(QStringList, freeForm);
    const QJsonObject documented = example(name);
    QVERIFY2(!documented.isEmpty(),
             qPrintable(QStringLiteral("no JSON example after <!-- json:%1 -->").arg(name)));
    const QSet<QString> dataPaths(freeForm.begin(), freeForm.end());
    const QStringList page = paths(documented, dataPaths);
    const QStringList code = paths(made, dataPaths);
    QVERIFY2(page == code, difference(page, code).constData());
}

QTEST_GUILESS_MAIN(TestContracts)
// The store keeps a status history as the statuses' names, whatever the type inside.
void TestContracts::statusHistoryInTheStore()
{
    const QDateTime at =
        QDateTime::fromString(QStringLiteral("2026-12-07T05:00:00.000Z"), Qt::ISODateWithMs);
    KernelRecord k;
    k.id = QStringLiteral("k1");
    k.sessionId = QStringLiteral("s1");
    k.changeStatus(KernelStatus::Creating, at, {});
    k.changeStatus(KernelStatus::Running, at.addSecs(1), QStringLiteral("started"));
    const QJsonArray stored = RecordJson::toJson(k).value(QStringLiteral("history")).toArray();
    QCOMPARE(stored.size(), 2);
    QCOMPARE(stored.at(1).toObject().value(QStringLiteral("status")).toString(),
             QStringLiteral("RUNNING"));
    QCOMPARE(stored.at(1).toObject().value(QStringLiteral("reason")).toString(),
             QStringLiteral("started"));
    QVERIFY(RecordJson::kernelHistoryFromJson(stored) == k.history);

    SessionRecord s;
    s.changeStatus(SessionStatus::Degraded, at, QStringLiteral("worker2 exited"));
    const QJsonArray sessionStored =
        RecordJson::toJson(s).value(QStringLiteral("history")).toArray();
    QCOMPARE(sessionStored.at(0).toObject().value(QStringLiteral("status")).toString(),
             QStringLiteral("DEGRADED"));
    QVERIFY(RecordJson::sessionHistoryFromJson(sessionStored) == s.history);

    // A status a newer release wrote is left out; the entries around it are kept.
    QJsonArray newer = stored;
    newer.insert(1,
                 QJsonObject{{QStringLiteral("status"), QStringLiteral("HIBERNATING")},
                             {QStringLiteral("at"), QStringLiteral("2026-12-07T05:00:00.500Z")}});
    QVERIFY(RecordJson::kernelHistoryFromJson(newer) == k.history);
    // A kernel status is no session status.
    QVERIFY(RecordJson::sessionHistoryFromJson(stored).size() == 1); // only RUNNING is both
}

#include "tst_contracts.moc"
