// clusterdeckctl export (issue 29, item 5): every sample template as a JobSet and as a Compose
// file, read back with yaml-cpp and held to what ClusterDeck would have made of it.
#include "export/composeexporter.h"
#include "export/exportmodel.h"
#include "export/jobsetexporter.h"
#include "plan/planresolver.h"
#include "plan/presets.h"
#include "plan/sshkeypair.h"
#include "template/templateloader.h"
#include "template/templatevalues.h"

#include <QDir>
#include <QRegularExpression>
#include <QTest>

#include <yaml-cpp/yaml.h>

using namespace ClusterDeck;

// ROLE → N, as `--count` gives them.
using Counts = QMap<QString, int>;

namespace {

QString samplesDir()
{
    return qEnvironmentVariable("CLUSTERDECK_SOURCE_DIR") + QStringLiteral("/templates");
}

// Whether a sample's commands, bootstrap scripts or env name a kernel by its short hostname
// (`master1`): those get the warning in a JobSet. A new sample must be added here.
const QMap<QString, bool> kUsesShortNames{
    {QStringLiteral("batch-job.yaml"), false},   {QStringLiteral("lab-basic.yaml"), true},
    {QStringLiteral("mpi.yaml"), false},         {QStringLiteral("pytorch-ddp.yaml"), false},
    {QStringLiteral("spark.yaml"), true},        {QStringLiteral("tensorflow.yaml"), false},
    {QStringLiteral("web-cluster.yaml"), false},
};

// A failed Result's message, for QVERIFY2 (which evaluates its message either way).
template<typename R>
QString why(const R &result)
{
    return result ? QString() : result.error().toString();
}

QString str(const YAML::Node &n)
{
    return QString::fromStdString(n.as<std::string>());
}

// A sequence of strings; an absent key gives none.
QStringList strings(const YAML::Node &n)
{
    QStringList out;
    if (!n.IsDefined())
        return out;
    for (const auto &item : n)
        out.append(str(item));
    return out;
}

// What the kubelet makes of a command, arg or env value: `$$` → `$`, `$(NAME)` of a variable in
// `env` → its value, anything else as written.
QString kubeletExpand(const QString &text, const QMap<QString, QString> &env = {})
{
    QString out;
    for (qsizetype i = 0; i < text.size(); ++i) {
        if (text.at(i) != u'$' || i + 1 >= text.size()) {
            out += text.at(i);
            continue;
        }
        const QChar next = text.at(i + 1);
        if (next == u'$') {
            out += u'$';
            ++i;
        } else if (next == u'(') {
            const qsizetype close = text.indexOf(u')', i + 2);
            const QString name = close < 0 ? QString() : text.mid(i + 2, close - i - 2);
            if (close >= 0 && env.contains(name)) {
                out += env.value(name);
                i = close;
            } else {
                out += u'$';
            }
        } else {
            out += u'$';
        }
    }
    return out;
}

QMap<QString, QString> envOf(const YAML::Node &container)
{
    QMap<QString, QString> env;
    for (const auto &e : container["env"])
        env.insert(str(e["name"]), str(e["value"]));
    return env;
}

ClusterTemplate load(const QString &file)
{
    TemplateLoader loader;
    auto t = loader.loadClusterFile(file);
    if (!t)
        qFatal("cannot load %s: %s", qPrintable(file), qPrintable(why(t)));
    return *t;
}

} // namespace

class TestExporters : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void everySampleIsListed();
    void jobSet_data();
    void jobSet();
    void compose_data();
    void compose();
    void policies_data();
    void policies();
    void badInput_data();
    void badInput();
    void escapeDollars_data();
    void escapeDollars();
    void shortNames_data();
    void shortNames();
    void bootstrapInterpreter_data();
    void bootstrapInterpreter();
    void quantities();
    void fromPlan_data();
    void fromPlan();
    void fromScaledPlan();

private:
    void samples();
};

void TestExporters::everySampleIsListed()
{
    const QStringList files =
        QDir(samplesDir()).entryList({QStringLiteral("*.yaml")}, QDir::Files, QDir::Name);
    QVERIFY(!files.isEmpty());
    QCOMPARE(files, kUsesShortNames.keys());
}

// Every sample, with its own counts and with the last role at its max.
void TestExporters::samples()
{
    QTest::addColumn<QString>("file");
    QTest::addColumn<Counts>("counts");
    QTest::addColumn<bool>("usesShortNames");
    for (const QString &name :
         QDir(samplesDir()).entryList({QStringLiteral("*.yaml")}, QDir::Files, QDir::Name)) {
        const QString file = samplesDir() + QLatin1Char('/') + name;
        const ClusterTemplate t = load(file);
        QTest::newRow(qPrintable(name + QStringLiteral(" default")))
            << file << Counts{} << kUsesShortNames.value(name);
        QTest::newRow(qPrintable(name + QStringLiteral(" max")))
            << file << Counts{{t.roles.last().name, t.roles.last().max}}
            << kUsesShortNames.value(name);
    }
}

void TestExporters::jobSet_data()
{
    samples();
}

void TestExporters::jobSet()
{
    QFETCH(QString, file);
    QFETCH(Counts, counts);
    QFETCH(bool, usesShortNames);
    const ClusterTemplate t = load(file);
    const auto model = ExportModel::build(t, counts);
    QVERIFY2(model, qPrintable(why(model)));
    const auto out = JobSetExporter::exportModel(*model);
    QVERIFY2(out, qPrintable(why(out)));

    const YAML::Node doc = YAML::Load(out->yaml.toStdString());
    QCOMPARE(str(doc["apiVersion"]), QStringLiteral("jobset.x-k8s.io/v1alpha2"));
    QCOMPARE(str(doc["kind"]), QStringLiteral("JobSet"));
    const QString js = JobSetExporter::jobSetName(t.name);
    QCOMPARE(str(doc["metadata"]["name"]), js);
    QVERIFY(doc["spec"]["network"]["enableDNSHostnames"].as<bool>());
    QCOMPARE(str(doc["spec"]["network"]["subdomain"]), js);

    // The DNS names, in rank order, written out here rather than by the exporter's function.
    QStringList hosts;
    QMap<QString, QStringList> roleHosts;
    int size = 0;
    QStringList replicas;
    for (const RoleTemplate &r : t.roles) {
        const int n = counts.value(r.name, r.count);
        for (int i = 0; i < n; ++i) {
            hosts.append(QStringLiteral("%1-%2-0-%3.%1").arg(js, r.name).arg(i));
            roleHosts[r.name].append(hosts.last());
        }
        size += n;
        replicas.append(QStringLiteral("%1:%2").arg(r.name).arg(n));
    }

    const YAML::Node jobs = doc["spec"]["replicatedJobs"];
    QCOMPARE(int(jobs.size()), int(t.roles.size()));
    int rank = 0;
    for (int i = 0; i < int(t.roles.size()); ++i) {
        const RoleTemplate &role = t.roles.at(i);
        const int n = counts.value(role.name, role.count);
        const YAML::Node job = jobs[i];
        QCOMPARE(str(job["name"]), role.name);
        QCOMPARE(job["replicas"].as<int>(), 1);
        const YAML::Node spec = job["template"]["spec"];
        QCOMPARE(spec["parallelism"].as<int>(), n);
        QCOMPARE(spec["completions"].as<int>(), n);
        QCOMPARE(str(spec["completionMode"]), QStringLiteral("Indexed"));
        QCOMPARE(job["dependsOn"].IsDefined(), i > 0 && t.startupOrder == StartupOrder::InOrder);
        const YAML::Node container = spec["template"]["spec"]["containers"][0];
        QCOMPARE(str(container["image"]), role.task.image);

        const QMap<QString, QString> env = envOf(container);
        QCOMPARE(env.value(QStringLiteral("BACKEND_CLUSTER_ROLE")), role.name);
        QCOMPARE(env.value(QStringLiteral("BACKEND_CLUSTER_HOSTS")), hosts.join(u','));
        QCOMPARE(env.value(QStringLiteral("BACKEND_CLUSTER_SIZE")), QString::number(size));
        QCOMPARE(env.value(QStringLiteral("BACKEND_CLUSTER_REPLICAS")), replicas.join(u','));
        QCOMPARE(env.value(QStringLiteral("BACKEND_CLUSTER_MODE")), QStringLiteral("multi-node"));
        for (auto it = roleHosts.cbegin(); it != roleHosts.cend(); ++it)
            QCOMPARE(env.value(ExportModel::roleHostsVariable(it.key())), it->join(u','));
        // The template's env as the container will see it (after the kubelet's expansion):
        // task, then cluster-wide, then the role's overrides.
        QMap<QString, QString> expected = role.task.env;
        expected.insert(t.env);
        expected.insert(role.overrides.env);
        QVERIFY(!expected.isEmpty() || t.env.isEmpty());
        for (auto it = expected.cbegin(); it != expected.cend(); ++it)
            QCOMPARE(kubeletExpand(env.value(it.key()), env), it.value());

        // The command runs as given, after the per-pod values and the bootstrap.
        const QStringList argv = role.task.entrypoint + role.task.command;
        QStringList args;
        for (const QString &a : strings(container["args"]))
            args.append(kubeletExpand(a, env));
        QCOMPARE(args, argv);
        const QStringList command = strings(container["command"]);
        QCOMPARE(command.size(), 4);
        const QString script = kubeletExpand(command.at(2), env);
        QVERIFY2(script.contains(QStringLiteral("BACKEND_CLUSTER_LOCAL_RANK=$((JOB_COMPLETION_"
                                                "INDEX + %1))")
                                     .arg(rank)),
                 qPrintable(script));
        QVERIFY(script.endsWith(QStringLiteral("exec \"$@\"\n")));
        QCOMPARE(script.contains(QStringLiteral("CLUSTERDECK_BOOTSTRAP")),
                 !role.task.bootstrap.isEmpty());
        if (!role.task.bootstrap.isEmpty())
            QVERIFY(script.contains(role.task.bootstrap));
        if (role.task.resources.cpus || role.overrides.resources.cpus) {
            const double cpus =
                role.overrides.resources.cpus.value_or(role.task.resources.cpus.value_or(0));
            QCOMPARE(str(container["resources"]["limits"]["cpu"]),
                     JobSetExporter::cpuQuantity(cpus));
            QCOMPARE(str(container["resources"]["requests"]["cpu"]),
                     JobSetExporter::cpuQuantity(cpus));
        }
        QCOMPARE(container["ports"].IsDefined() ? int(container["ports"].size()) : 0,
                 int(role.task.ports.size()));
        rank += n;
    }

    const bool warned =
        std::any_of(out->warnings.cbegin(), out->warnings.cend(),
                    [](const QString &w) { return w.contains(u"short hostnames"); });
    QCOMPARE(warned, usesShortNames);
    QCOMPARE(out->yaml.section(QStringLiteral("\napiVersion:"), 0, 0)
                 .contains(QStringLiteral(
                     "# WARNING: the template names kernels by their short hostnames")),
             usesShortNames);
}

void TestExporters::compose_data()
{
    samples();
}

void TestExporters::compose()
{
    QFETCH(QString, file);
    QFETCH(Counts, counts);
    QFETCH(bool, usesShortNames);
    Q_UNUSED(usesShortNames);
    const ClusterTemplate t = load(file);
    const auto model = ExportModel::build(t, counts);
    QVERIFY2(model, qPrintable(why(model)));
    const auto out = ComposeExporter::exportModel(*model);
    QVERIFY2(out, qPrintable(why(out)));
    // Short names work on a compose network: no warning of them.
    for (const QString &w : out->warnings)
        QVERIFY2(!w.contains(u"short hostnames"), qPrintable(w));

    const YAML::Node doc = YAML::Load(out->yaml.toStdString());
    QCOMPARE(str(doc["name"]), ComposeExporter::projectName(t.name));
    QStringList hosts;
    for (const RoleTemplate &r : t.roles) {
        for (int i = 1; i <= counts.value(r.name, r.count); ++i)
            hosts.append(r.name + QString::number(i));
    }
    const YAML::Node services = doc["services"];
    QStringList names;
    for (const auto &s : services)
        names.append(str(s.first));
    QCOMPARE(names, hosts);
    QVERIFY(doc["networks"][ComposeExporter::kNetwork].IsMap());

    int rank = 0;
    for (const RoleTemplate &role : t.roles) {
        for (int idx = 1; idx <= counts.value(role.name, role.count); ++idx, ++rank) {
            const QString host = role.name + QString::number(idx);
            const YAML::Node s = services[host.toStdString()];
            QCOMPARE(str(s["hostname"]), host);
            QCOMPARE(str(s["image"]), role.task.image);
            QCOMPARE(strings(s["networks"]), QStringList{QLatin1String(ComposeExporter::kNetwork)});
            QMap<QString, QString> env;
            for (const auto &e : s["environment"])
                env.insert(str(e.first),
                           str(e.second).replace(QStringLiteral("$$"), QStringLiteral("$")));
            QCOMPARE(env.value(QStringLiteral("BACKEND_CLUSTER_HOST")), host);
            QCOMPARE(env.value(QStringLiteral("BACKEND_CLUSTER_HOSTS")), hosts.join(u','));
            QCOMPARE(env.value(QStringLiteral("BACKEND_CLUSTER_ROLE")), role.name);
            QCOMPARE(env.value(QStringLiteral("BACKEND_CLUSTER_ROLE_IDX")), QString::number(idx));
            QCOMPARE(env.value(QStringLiteral("BACKEND_CLUSTER_LOCAL_RANK")),
                     QString::number(rank));
            QCOMPARE(env.value(QStringLiteral("BACKEND_CLUSTER_SIZE")),
                     QString::number(hosts.size()));
            QCOMPARE(env.value(QStringLiteral("BACKEND_CLUSTER_MODE")),
                     QStringLiteral("single-node"));
            for (auto it = t.env.cbegin(); it != t.env.cend(); ++it)
                QCOMPARE(env.value(it.key()), it.value());
            QStringList command;
            for (const QString &c : strings(s["command"]))
                command.append(QString(c).replace(QStringLiteral("$$"), QStringLiteral("$")));
            if (role.task.bootstrap.isEmpty()) {
                QCOMPARE(command, role.task.command);
            } else {
                QCOMPARE(command, role.task.entrypoint + role.task.command);
                QVERIFY(str(s["entrypoint"][2])
                            .contains(
                                QString(role.task.bootstrap).replace(u'$', QStringLiteral("$$"))));
            }
            const Resources res = role.task.resources;
            const auto cpus =
                role.overrides.resources.cpus ? role.overrides.resources.cpus : res.cpus;
            if (cpus)
                QCOMPARE(s["cpus"].as<double>(), *cpus);
            QCOMPARE(s["restart"].IsDefined(),
                     t.failurePolicy.action == FailurePolicy::Action::RestartSession &&
                         t.failurePolicy.maxRestarts > 0);
            if (s["restart"].IsDefined())
                QCOMPARE(str(s["restart"]),
                         QStringLiteral("on-failure:%1").arg(t.failurePolicy.maxRestarts));
        }
    }
}

void TestExporters::policies_data()
{
    QTest::addColumn<QString>("policies");
    QTest::addColumn<int>("maxRestarts");
    QTest::addColumn<QString>("successOperator"); // empty: no spec.successPolicy
    QTest::addColumn<QStringList>("targets");
    QTest::addColumn<bool>("warning");
    QTest::newRow("restart-session 5")
        << "failurePolicy: {action: restart-session, maxRestarts: 5}\n"
        << 5 << QString() << QStringList{} << false;
    QTest::newRow("restart-session default 3") << "failurePolicy: restart-session\n"
                                               << 3 << QString() << QStringList{} << false;
    QTest::newRow("terminate-session: FailJobSet") << "failurePolicy: terminate-session\n"
                                                   << 0 << QString() << QStringList{} << false;
    QTest::newRow("default is terminate") << "" << 0 << QString() << QStringList{} << false;
    QTest::newRow("ignore: no equivalent, warned") << "failurePolicy: ignore\n"
                                                   << 0 << QString() << QStringList{} << true;
    QTest::newRow("all-exit") << "successPolicy: all-exit\n"
                              << 0 << "All" << QStringList{} << false;
    QTest::newRow("primary-exits") << "successPolicy: primary-exits\n"
                                   << 0 << "All" << QStringList{"launcher"} << false;
    QTest::newRow("role-exits worker")
        << "successPolicy: {role-exits: worker}\nttlAfterFinished: 10m\n"
        << 0 << "All" << QStringList{"worker"} << false;
}

void TestExporters::policies()
{
    QFETCH(QString, policies);
    QFETCH(int, maxRestarts);
    QFETCH(QString, successOperator);
    QFETCH(QStringList, targets);
    QFETCH(bool, warning);
    const QString yaml = QStringLiteral("name: p\n") + policies +
                         QStringLiteral("roles:\n"
                                        "  - name: launcher\n"
                                        "    task: {image: busybox, command: [x]}\n"
                                        "  - name: worker\n"
                                        "    count: 3\n"
                                        "    max: 3\n"
                                        "    task: {image: busybox, command: [x]}\n");
    TemplateLoader loader;
    const auto t = loader.loadClusterFromData(yaml.toUtf8(), QStringLiteral("p.yaml"));
    QVERIFY2(t, qPrintable(why(t)));
    const auto model = ExportModel::build(*t, {});
    QVERIFY(model);
    const auto out = JobSetExporter::exportModel(*model);
    QVERIFY2(out, qPrintable(why(out)));
    const YAML::Node spec = YAML::Load(out->yaml.toStdString())["spec"];
    QCOMPARE(spec["failurePolicy"]["maxRestarts"].as<int>(), maxRestarts);
    QCOMPARE(spec["successPolicy"].IsDefined(), !successOperator.isEmpty());
    if (!successOperator.isEmpty()) {
        QCOMPARE(str(spec["successPolicy"]["operator"]), successOperator);
        QCOMPARE(strings(spec["successPolicy"]["targetReplicatedJobs"]), targets);
    }
    QCOMPARE(spec["ttlSecondsAfterFinished"].IsDefined(), t->ttlAfterFinishedSeconds.has_value());
    if (t->ttlAfterFinishedSeconds)
        QCOMPARE(spec["ttlSecondsAfterFinished"].as<qint64>(), *t->ttlAfterFinishedSeconds);
    QCOMPARE(!out->warnings.isEmpty(), warning);
}

void TestExporters::badInput_data()
{
    QTest::addColumn<QString>("yaml");
    QTest::addColumn<Counts>("counts");
    QTest::addColumn<QString>("format");
    QTest::addColumn<QString>("error");
    const QString ok = QStringLiteral("name: t\nroles:\n  - name: master\n    task: {image: b, "
                                      "command: [x]}\n  - name: worker\n    count: 2\n    max: "
                                      "12\n    task: {image: b, command: [x]}\n");
    QTest::newRow("unknown role") << ok << Counts{{"wroker", 2}} << "jobset"
                                  << "--count wroker=2: template 't' has no role 'wroker' (its "
                                     "roles: master, worker)";
    QTest::newRow("over max") << ok << Counts{{"worker", 13}} << "compose"
                              << "--count worker=13: role 'worker' takes 1 to 12 kernels";
    QTest::newRow("under min") << ok << Counts{{"master", 0}} << "jobset"
                               << "--count master=0: role 'master' takes 1 to 1 kernels";
    const QString noCommand = QStringLiteral("name: t\nroles:\n  - name: master\n    task: "
                                             "{image: b, bootstrap: \"echo hi\"}\n");
    QTest::newRow("bootstrap, no command (jobset)")
        << noCommand << Counts{} << "jobset"
        << "role master: the task has a bootstrap script but no command";
    QTest::newRow("bootstrap, no command (compose)")
        << noCommand << Counts{} << "compose"
        << "role master: the task has a bootstrap script but no command";
    const QString longName =
        QStringLiteral("name: %1\nroles:\n  - name: worker\n    task: {image: b}\n")
            .arg(QString(60, u'a'));
    QTest::newRow("pod hostname over 63") << longName << Counts{} << "jobset"
                                          << "is longer than 63 characters";
}

void TestExporters::badInput()
{
    QFETCH(QString, yaml);
    QFETCH(Counts, counts);
    QFETCH(QString, format);
    QFETCH(QString, error);
    TemplateLoader loader;
    const auto t = loader.loadClusterFromData(yaml.toUtf8(), QStringLiteral("t.yaml"));
    QVERIFY2(t, qPrintable(why(t)));
    const auto model = ExportModel::build(*t, counts);
    Result<ExportOutput> out =
        model ? (format == QLatin1String("jobset") ? JobSetExporter::exportModel(*model)
                                                   : ComposeExporter::exportModel(*model))
              : Result<ExportOutput>(std::unexpected(model.error()));
    QVERIFY(!out);
    QVERIFY2(out.error().toString().contains(error), qPrintable(why(out)));
}

void TestExporters::escapeDollars_data()
{
    QTest::addColumn<QString>("text");
    QTest::newRow("plain") << "echo hi";
    QTest::newRow("shell variable") << "echo $HOME ${USER}";
    QTest::newRow("command substitution") << "for h in $(echo a b); do :; done";
    QTest::newRow("arithmetic") << "$((JOB_COMPLETION_INDEX + 1))";
    QTest::newRow("pid") << "echo $$ $$$";
    QTest::newRow("a defined variable's name") << "$(BACKEND_CLUSTER_ROLE)";
    QTest::newRow("trailing dollar") << "cost: 5$";
}

void TestExporters::escapeDollars()
{
    QFETCH(QString, text);
    const QMap<QString, QString> env{{QStringLiteral("BACKEND_CLUSTER_ROLE"), QStringLiteral("x")}};
    QCOMPARE(kubeletExpand(JobSetExporter::escapeDollars(text), env), text);
    QCOMPARE(
        ComposeExporter::escapeDollars(text).replace(QStringLiteral("$$"), QStringLiteral("$")),
        text);
}

void TestExporters::shortNames_data()
{
    QTest::addColumn<QString>("command");
    QTest::addColumn<QString>("found"); // empty: none
    QTest::newRow("host:port") << "wget http://master1:8080/"
                               << "role worker: command names master1";
    QTest::newRow("url") << "spark://master1:7077"
                         << "role worker: command names master1";
    QTest::newRow("two digits") << "ping worker12"
                                << "role worker: command names worker12";
    QTest::newRow("longer name") << "ping xmaster1 master1a master1.example"
                                 << "";
    QTest::newRow("variable") << "ping $BACKEND_CLUSTER_MASTER_HOSTS"
                              << "";
    QTest::newRow("index 0 is no kernel") << "ping master0"
                                          << "";
}

void TestExporters::shortNames()
{
    QFETCH(QString, command);
    QFETCH(QString, found);
    ClusterTemplate t;
    t.name = QStringLiteral("t");
    RoleTemplate master;
    master.name = QStringLiteral("master");
    master.task.image = QStringLiteral("b");
    RoleTemplate worker = master;
    worker.name = QStringLiteral("worker");
    worker.max = 12;
    worker.task.command = {QStringLiteral("/bin/sh"), QStringLiteral("-c"), command};
    t.roles = {master, worker};
    const auto model = ExportModel::build(t, {});
    QVERIFY(model);
    QCOMPARE(model->shortNameReferences(), found.isEmpty() ? QStringList{} : QStringList{found});
}

void TestExporters::bootstrapInterpreter_data()
{
    QTest::addColumn<QString>("bootstrap");
    QTest::addColumn<bool>("warned");
    QTest::newRow("no #! line") << "mkdir -p /run/sshd\n" << false;
    QTest::newRow("#!/bin/sh") << "#!/bin/sh\nset -e\n" << false;
    QTest::newRow("#!/usr/bin/env bash") << "#!/usr/bin/env bash\necho\n" << false;
    QTest::newRow("#!/usr/bin/env python3") << "#!/usr/bin/env python3\nprint(1)\n" << true;
    QTest::newRow("#!/bin/shell-ish") << "#!/bin/shx\n" << true;
}

void TestExporters::bootstrapInterpreter()
{
    QFETCH(QString, bootstrap);
    QFETCH(bool, warned);
    ExportedRole role;
    role.name = QStringLiteral("worker");
    role.task.bootstrap = bootstrap;
    QCOMPARE(!ExportModel::bootstrapWarning(role).isEmpty(), warned);
    // Both formats pass it on.
    ClusterTemplate t;
    t.name = QStringLiteral("t");
    RoleTemplate r;
    r.name = role.name;
    r.task.image = QStringLiteral("b");
    r.task.command = {QStringLiteral("true")};
    r.task.bootstrap = bootstrap;
    t.roles = {r};
    const auto model = ExportModel::build(t, {});
    QVERIFY(model);
    const auto jobSet = JobSetExporter::exportModel(*model);
    const auto compose = ComposeExporter::exportModel(*model);
    QVERIFY(jobSet && compose);
    auto hasIt = [](const QStringList &warnings) {
        return std::any_of(warnings.cbegin(), warnings.cend(),
                           [](const QString &w) { return w.contains(u"bootstrap script"); });
    };
    QCOMPARE(hasIt(jobSet->warnings), warned);
    QCOMPARE(hasIt(compose->warnings), warned);
}

void TestExporters::quantities()
{
    QCOMPARE(JobSetExporter::cpuQuantity(2), QStringLiteral("2"));
    QCOMPARE(JobSetExporter::cpuQuantity(0.25), QStringLiteral("250m"));
    QCOMPARE(JobSetExporter::memoryQuantity(64ll << 20), QStringLiteral("64Mi"));
    QCOMPARE(JobSetExporter::memoryQuantity(16ll << 30), QStringLiteral("16Gi"));
    QCOMPARE(JobSetExporter::memoryQuantity(1000), QStringLiteral("1000"));
    QCOMPARE(ComposeExporter::memoryValue(64ll << 20), QStringLiteral("64m"));
    QCOMPARE(ComposeExporter::memoryValue(1536ll << 20), QStringLiteral("1536m"));
    QCOMPARE(ComposeExporter::memoryValue(1000), QStringLiteral("1000b"));
    QCOMPARE(JobSetExporter::jobSetName(QStringLiteral("Nightly Run #2")),
             QStringLiteral("nightly-run-2"));
    QCOMPARE(ComposeExporter::projectName(QStringLiteral("_v1.2")), QStringLiteral("v1-2"));
}

namespace {

ClusterPlan planOf(const ClusterTemplate &t, const Counts &counts = {})
{
    LaunchOptions opts;
    for (auto it = counts.cbegin(); it != counts.cend(); ++it)
        opts.counts.insert(it.key(), it.value());
    if (Presets::needsSshKeyPair(t.presets))
        opts.sshKeyPair = *SshKeyPair::generate(QStringLiteral("test@%1").arg(t.name));
    auto plan = resolvePlan(t, opts, {});
    if (!plan)
        qFatal("cannot resolve %s: %s", qPrintable(t.name), qPrintable(plan.error().toString()));
    return *plan;
}

// The YAML without its header comment (which names the template or the session).
QString body(const QString &yaml)
{
    return yaml.mid(yaml.indexOf(
        QRegularExpression(QStringLiteral("^[^#]"), QRegularExpression::MultilineOption)));
}

} // namespace

// A stored session is exported from its resolved plan: for a template without presets, exactly
// what the template gives; with presets, their variables too (and a warning for their files).
void TestExporters::fromPlan_data()
{
    samples();
}

void TestExporters::fromPlan()
{
    QFETCH(QString, file);
    QFETCH(Counts, counts);
    const ClusterTemplate t = load(file);
    const ClusterPlan plan = planOf(t, counts);
    const auto fromTemplate = ExportModel::build(t, counts);
    const auto fromSession = ExportModel::fromPlan(plan);
    QVERIFY2(fromTemplate, qPrintable(why(fromTemplate)));
    QVERIFY2(fromSession, qPrintable(why(fromSession)));
    QVERIFY(fromSession->sourceName().startsWith(QStringLiteral("session '")));
    const auto jobT = JobSetExporter::exportModel(*fromTemplate);
    const auto jobP = JobSetExporter::exportModel(*fromSession);
    const auto composeT = ComposeExporter::exportModel(*fromTemplate);
    const auto composeP = ComposeExporter::exportModel(*fromSession);
    QVERIFY(jobT && jobP && composeT && composeP);
    if (t.presets.isEmpty()) {
        QCOMPARE(body(jobP->yaml), body(jobT->yaml));
        QCOMPARE(body(composeP->yaml), body(composeT->yaml));
        QCOMPARE(fromSession->sourceWarnings(), QStringList{});
        return;
    }
    QVERIFY(std::any_of(jobP->warnings.cbegin(), jobP->warnings.cend(),
                        [](const QString &w) { return w.contains(u"files of the presets"); }));
    // Every variable the primary has (presets' included) is in its role's container.
    const YAML::Node container =
        YAML::Load(jobP->yaml.toStdString())["spec"]["replicatedJobs"][0]["template"]["spec"]
                                            ["template"]["spec"]["containers"][0];
    const QMap<QString, QString> env = envOf(container);
    for (auto it = plan.kernels.first().env.cbegin(); it != plan.kernels.first().env.cend(); ++it) {
        if (!it.key().startsWith(QLatin1String("BACKEND_")))
            QCOMPARE(kubeletExpand(env.value(it.key()), env), it.value());
    }
}

void TestExporters::fromScaledPlan()
{
    ClusterPlan plan = planOf(load(samplesDir() + QStringLiteral("/lab-basic.yaml")));
    QCOMPARE(plan.kernels.size(), 3);
    plan.kernels[2].hostname = QStringLiteral("worker13");
    plan.kernels[2].env.insert(QStringLiteral("GREETING"), QStringLiteral("other"));
    const auto model = ExportModel::fromPlan(plan);
    QVERIFY2(model, qPrintable(why(model)));
    QCOMPARE(
        model->sourceWarnings(),
        (QStringList{QStringLiteral("role worker: GREETING differ between its kernels (per-kernel "
                                    "values of a preset): exported with worker1's values"),
                     QStringLiteral("role worker: the session's kernels worker1,worker13 "
                                    "(indices after a scale) are exported as "
                                    "worker1,worker2")}));
    QCOMPARE(model->roles().at(1).count, 2);
    QCOMPARE(model->roles().at(0).task.bootstrap,
             load(samplesDir() + QStringLiteral("/lab-basic.yaml")).roles.at(0).task.bootstrap);
    QCOMPARE(model->roles().at(0).task.entrypoint, QStringList{});
}

QTEST_GUILESS_MAIN(TestExporters)
#include "tst_exporters.moc"
