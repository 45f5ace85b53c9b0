#include "template/templateloader.h"
#include "template/templatewriter.h"

#include <QDir>
#include <QTemporaryDir>
#include <QTest>

using namespace ClusterDeck;

class TestTemplateWriter : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void roundTrip_data();
    void roundTrip();
    void roundTripInline_data();
    void roundTripInline();
    void readableOrder();
    void scriptsAsBlockScalars_data();
    void scriptsAsBlockScalars();
    void successPolicyYaml_data();
    void successPolicyYaml();
    void taskRoundTrip();
    void saveAndLoad();
};

namespace {

QString diagnostics(const TemplateLoader &loader)
{
    QStringList lines;
    for (const TemplateDiagnostic &d : loader.diagnostics())
        lines.append(d.toString());
    return lines.join(QLatin1Char('\n'));
}

} // namespace

void TestTemplateWriter::roundTrip_data()
{
    QTest::addColumn<QString>("file");
    const QString data =
        qEnvironmentVariable("CLUSTERDECK_TEST_DATA") + QStringLiteral("/templates");
    for (const char *f : {"full.yaml", "with-task-file.yaml"})
        QTest::newRow(f) << data + QLatin1Char('/') + QLatin1String(f);
    const QDir samples(qEnvironmentVariable("CLUSTERDECK_SOURCE_DIR") +
                       QStringLiteral("/templates"));
    for (const QString &f : samples.entryList({QStringLiteral("*.yaml")}, QDir::Files, QDir::Name))
        QTest::newRow(qPrintable(f)) << samples.filePath(f);
}

void TestTemplateWriter::roundTrip()
{
    QFETCH(QString, file);
    TemplateLoader loader;
    const auto original = loader.loadClusterFile(file);
    QVERIFY2(original, qPrintable(diagnostics(loader)));
    const QByteArray yaml = TemplateWriter::toYaml(*original);
    const auto again =
        loader.loadClusterFromData(yaml, QStringLiteral("written.yaml"), QFileInfo(file).path());
    QVERIFY2(again,
             qPrintable(diagnostics(loader) + QStringLiteral("\n") + QString::fromUtf8(yaml)));
    QVERIFY2(*again == *original, yaml.constData());
    QCOMPARE(TemplateWriter::toYaml(*again), yaml); // stable
}

void TestTemplateWriter::roundTripInline_data()
{
    QTest::addColumn<QByteArray>("yaml");
    QTest::newRow("values that look like numbers")
        << QByteArray("name: x\nenv: {A: '007', B: 'true', C: '', D: '1e3'}\n"
                      "roles: [{name: w, task: {image: i}}]\n");
    QTest::newRow("bootstrap without final newline") << QByteArray(
        "name: x\nroles: [{name: w, task: {image: i, bootstrap: \"echo a\\necho b\"}}]\n");
    QTest::newRow("bootstrap with blank lines at end") << QByteArray(
        "name: x\nroles: [{name: w, task: {image: i, bootstrap: \"echo a\\n\\n\"}}]\n");
    QTest::newRow("odd memory") << QByteArray(
        "name: x\nroles: [{name: w, task: {image: i, resources: {memory: 1000, cpus: 0.1}}}]\n");
    QTest::newRow("command with quotes") << QByteArray(
        "name: x\nroles: [{name: w, task: {image: i, command: ['a: b', '#c', \"it's\"]}}]\n");
    QTest::newRow("ignore policy")
        << QByteArray("name: x\nfailurePolicy: ignore\nroles: [{name: w, task: {image: i}}]\n");
    QTest::newRow("success primary-exits with ttl")
        << QByteArray("name: x\nsuccessPolicy: primary-exits\nttlAfterFinished: 10m\n"
                      "roles: [{name: w, task: {image: i}}]\n");
    QTest::newRow("success all-exit, ttl 0")
        << QByteArray("name: x\nsuccessPolicy: all-exit\nttlAfterFinished: 0\n"
                      "roles: [{name: w, task: {image: i}}]\n");
    QTest::newRow("success role-exits")
        << QByteArray("name: x\nsuccessPolicy: {role-exits: launcher}\n"
                      "roles: [{name: launcher, task: {image: i}}, {name: w, task: {image: i}}]\n");
    QTest::newRow("success kind form, ttl compound")
        << QByteArray("name: x\nsuccessPolicy: {kind: role-exits, role: w}\n"
                      "ttlAfterFinished: 1h30m\nroles: [{name: w, task: {image: i}}]\n");
    QTest::newRow("success none") << QByteArray(
        "name: x\nsuccessPolicy: none\nroles: [{name: w, task: {image: i}}]\n");
    QTest::newRow("volume with driver")
        << QByteArray("name: x\nmounts: [{source: v, target: /v, driver: local, readOnly: true}]\n"
                      "roles: [{name: w, task: {image: i}}]\n");
}

void TestTemplateWriter::roundTripInline()
{
    QFETCH(QByteArray, yaml);
    TemplateLoader loader;
    const auto original = loader.loadClusterFromData(yaml, QStringLiteral("t.yaml"));
    QVERIFY2(original, qPrintable(diagnostics(loader)));
    const QByteArray written = TemplateWriter::toYaml(*original);
    const auto again = loader.loadClusterFromData(written, QStringLiteral("w.yaml"));
    QVERIFY2(again,
             qPrintable(diagnostics(loader) + QStringLiteral("\n") + QString::fromUtf8(written)));
    QVERIFY2(*again == *original, written.constData());
}

void TestTemplateWriter::scriptsAsBlockScalars_data()
{
    QTest::addColumn<QStringList>("command");
    QTest::addColumn<QString>("written"); // the task's command lines

    QTest::newRow("script") << QStringList{QStringLiteral("/bin/sh"), QStringLiteral("-c"),
                                           QStringLiteral("mkdir -p /srv\nexec httpd -f\n")}
                            << QStringLiteral("      command: |\n"
                                              "        mkdir -p /srv\n"
                                              "        exec httpd -f\n");
    // One line, or a script whose end a `|` block cannot express: the argument list.
    QTest::newRow("one line") << QStringList{QStringLiteral("/bin/sh"), QStringLiteral("-c"),
                                             QStringLiteral("exec httpd -f")}
                              << QStringLiteral("      command: [/bin/sh, -c, exec httpd -f]\n");
    QTest::newRow("no final newline")
        << QStringList{QStringLiteral("/bin/sh"), QStringLiteral("-c"), QStringLiteral("a\nb")}
        << QStringLiteral("      command: [/bin/sh, -c, \"a\\nb\"]\n");
    QTest::newRow("arguments") << QStringList{QStringLiteral("python3"), QStringLiteral("train.py")}
                               << QStringLiteral("      command: [python3, train.py]\n");
}

// A new template is written as the samples are: a shell script as a `|` block scalar.
void TestTemplateWriter::scriptsAsBlockScalars()
{
    QFETCH(QStringList, command);
    QFETCH(QString, written);
    ClusterTemplate t;
    t.name = QStringLiteral("s");
    RoleTemplate role;
    role.name = QStringLiteral("main");
    role.task.image = QStringLiteral("clusterdeck/lab:latest");
    role.task.command = command;
    t.roles = {role};
    const QString yaml = QString::fromUtf8(TemplateWriter::toYaml(t));
    QVERIFY2(yaml.contains(QStringLiteral("      image: clusterdeck/lab:latest\n") + written),
             qPrintable(yaml));
    TemplateLoader loader;
    const auto again = loader.loadClusterFromData(yaml.toUtf8(), QStringLiteral("s.yaml"));
    QVERIFY2(again, qPrintable(diagnostics(loader)));
    QCOMPARE(again->roles.first().task.command, command);
}

void TestTemplateWriter::readableOrder()
{
    ClusterTemplate t;
    t.name = QStringLiteral("web");
    t.description = QStringLiteral("demo");
    t.presets = QStringList{QStringLiteral("ssh")};
    t.env.insert(QStringLiteral("A"), QStringLiteral("1"));
    RoleTemplate master;
    master.name = QStringLiteral("master");
    master.task.image = QStringLiteral("clusterdeck/lab:latest");
    master.task.command = QStringList{QStringLiteral("sleep"), QStringLiteral("infinity")};
    master.task.ports.append(ServicePort{QStringLiteral("web"), QStringLiteral("http"), 8080});
    master.task.resources.memoryBytes = 512LL << 20;
    master.task.bootstrap = QStringLiteral("echo hi\n");
    RoleTemplate worker;
    worker.name = QStringLiteral("worker");
    worker.taskFile = QStringLiteral("tasks/worker.yaml");
    worker.count = 2;
    worker.max = 12;
    worker.overrides.env.insert(QStringLiteral("B"), QStringLiteral("2"));
    t.roles = {master, worker};
    QCOMPARE(QString::fromUtf8(TemplateWriter::toYaml(t)),
             QStringLiteral("apiVersion: clusterdeck/v1\n"
                            "kind: Cluster\n"
                            "name: web\n"
                            "description: demo\n"
                            "mode: auto\n"
                            "failurePolicy:\n"
                            "  action: terminate-session\n"
                            "startupOrder: parallel\n"
                            "presets: [ssh]\n"
                            "env:\n"
                            "  A: \"1\"\n"
                            "roles:\n"
                            "  - name: master\n"
                            "    count: 1\n"
                            "    min: 1\n"
                            "    max: 1\n"
                            "    task:\n"
                            "      image: clusterdeck/lab:latest\n"
                            "      command: [sleep, infinity]\n"
                            "      resources:\n"
                            "        memory: 512m\n"
                            "      bootstrap: |\n"
                            "        echo hi\n"
                            "      ports:\n"
                            "        - web:http:8080\n"
                            "  - name: worker\n"
                            "    count: 2\n"
                            "    min: 1\n"
                            "    max: 12\n"
                            "    task: tasks/worker.yaml\n"
                            "    overrides:\n"
                            "      env:\n"
                            "        B: \"2\"\n"));
}

void TestTemplateWriter::successPolicyYaml_data()
{
    QTest::addColumn<SuccessPolicy::Kind>("kind");
    QTest::addColumn<QString>("role");
    QTest::addColumn<qint64>("ttl"); // -1: unset
    QTest::addColumn<QString>("expected");
    using K = SuccessPolicy::Kind;
    QTest::newRow("none: nothing written") << K::None << "" << qint64(-1) << "";
    QTest::newRow("primary-exits")
        << K::PrimaryExits << "" << qint64(-1) << "successPolicy: primary-exits\n";
    QTest::newRow("all-exit, ttl in hours")
        << K::AllExit << "" << qint64(7200) << "successPolicy: all-exit\nttlAfterFinished: 2h\n";
    QTest::newRow("role-exits, ttl in minutes")
        << K::RoleExits << "launcher" << qint64(600)
        << "successPolicy:\n  role-exits: launcher\nttlAfterFinished: 10m\n";
    QTest::newRow("ttl 0") << K::PrimaryExits << "" << qint64(0)
                           << "successPolicy: primary-exits\nttlAfterFinished: 0s\n";
    QTest::newRow("ttl odd seconds") << K::PrimaryExits << "" << qint64(61)
                                     << "successPolicy: primary-exits\nttlAfterFinished: 61s\n";
}

void TestTemplateWriter::successPolicyYaml()
{
    QFETCH(SuccessPolicy::Kind, kind);
    QFETCH(QString, role);
    QFETCH(qint64, ttl);
    QFETCH(QString, expected);
    ClusterTemplate t;
    t.name = QStringLiteral("job");
    t.successPolicy = {kind, role};
    if (ttl >= 0)
        t.ttlAfterFinishedSeconds = ttl;
    RoleTemplate launcher;
    launcher.name = QStringLiteral("launcher");
    launcher.task.image = QStringLiteral("i");
    t.roles = {launcher};
    const QString yaml = QString::fromUtf8(TemplateWriter::toYaml(t));
    // Right after the failure policy, before the startup order.
    const QString around =
        QStringLiteral("  action: terminate-session\n%1startupOrder: parallel\n").arg(expected);
    QVERIFY2(yaml.contains(around), qPrintable(yaml));
    TemplateLoader loader;
    const auto again = loader.loadClusterFromData(yaml.toUtf8(), QStringLiteral("w.yaml"));
    QVERIFY2(again, qPrintable(diagnostics(loader)));
    QCOMPARE(*again, t);
}

void TestTemplateWriter::taskRoundTrip()
{
    const QString file = qEnvironmentVariable("CLUSTERDECK_TEST_DATA") +
                         QStringLiteral("/templates/tasks/worker.yaml");
    TemplateLoader loader;
    const auto task = loader.loadTaskFile(file);
    QVERIFY2(task, qPrintable(diagnostics(loader)));
    const QByteArray yaml = TemplateWriter::toYaml(*task);
    QVERIFY(
        yaml.startsWith("apiVersion: clusterdeck/v1\nkind: Task\nimage: clusterdeck/lab:latest\n"));
    const auto again = loader.loadTaskFromData(yaml, QStringLiteral("w.yaml"));
    QVERIFY2(again, qPrintable(diagnostics(loader)));
    QCOMPARE(*again, *task);
}

void TestTemplateWriter::saveAndLoad()
{
    TemplateLoader loader;
    const auto original = loader.loadClusterFile(qEnvironmentVariable("CLUSTERDECK_TEST_DATA") +
                                                 QStringLiteral("/templates/full.yaml"));
    QVERIFY(original);
    QTemporaryDir dir;
    QVERIFY(QDir(dir.path()).mkpath(QStringLiteral("tasks")));
    for (const QString f : {"tasks/worker.yaml", "tasks/base.yaml"})
        QVERIFY(QFile::copy(qEnvironmentVariable("CLUSTERDECK_TEST_DATA") +
                                QStringLiteral("/templates/") + f,
                            dir.filePath(f)));
    const QString path = dir.filePath(QStringLiteral("saved.yaml"));
    QVERIFY(TemplateWriter::save(*original, path));
    const auto loaded = loader.loadClusterFile(path);
    QVERIFY2(loaded, qPrintable(diagnostics(loader)));
    QVERIFY(*loaded == *original);

    const auto bad =
        TemplateWriter::save(*original, dir.filePath(QStringLiteral("no/such/dir/x.yaml")));
    QVERIFY(!bad);
    QCOMPARE(bad.error().kind, Error::Kind::Io);
}

QTEST_GUILESS_MAIN(TestTemplateWriter)
#include "tst_templatewriter.moc"
