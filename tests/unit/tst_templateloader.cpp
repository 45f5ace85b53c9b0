#include "template/templateloader.h"
#include "template/templatevalues.h"

#include <QDir>
#include <QTest>

using namespace ClusterDeck;

// Inline YAML documents are reported as "t.yaml"; fixture files under tests/data/templates as
// "$D/<name>" where $D is that folder.
class TestTemplateLoader : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void errors_data();
    void errors();
    void fileErrors_data();
    void fileErrors();
    void valid_data();
    void valid();
    void successPolicy_data();
    void successPolicy();
    void durations_data();
    void durations();
    void countDefaults_data();
    void countDefaults();
    void fullTemplate();
    void taskFileRelativeToClusterTemplate();
    void errorValueNamesFirstProblem();
    void samplesValidate_data();
    void samplesValidate();

private:
    QString m_data;
};

namespace {

QStringList render(const TemplateDiagnostics &diagnostics)
{
    QStringList out;
    for (const TemplateDiagnostic &d : diagnostics)
        out.append(d.toString());
    return out;
}

const char *const kRoles = "roles:\n  - name: worker\n    task:\n      image: busybox\n";

} // namespace

void TestTemplateLoader::initTestCase()
{
    m_data = qEnvironmentVariable("CLUSTERDECK_TEST_DATA") + QStringLiteral("/templates");
    QVERIFY2(QFileInfo(m_data).isDir(), qPrintable(m_data));
}

void TestTemplateLoader::errors_data()
{
    QTest::addColumn<QByteArray>("yaml");
    QTest::addColumn<QStringList>("expected");

    QTest::newRow("unknown top-level key, did you mean")
        << QByteArray("name: x\ndescripton: hi\n") + kRoles
        << QStringList{
               "t.yaml:2:1 descripton: unknown key 'descripton' (did you mean 'description'?)"};
    QTest::newRow("failure policy without action (found by fuzzing)")
        << QByteArray("name: x\nfailurePolicy:\n  actio\x1fn: ignore\n") + kRoles
        << QStringList{
               "t.yaml:3:3 failurePolicy.actio\x1fn: unknown key 'actio\x1fn' (did you mean "
               "'action'?)",
               "t.yaml:3:3 failurePolicy.action: action is required (one of "
               "terminate-session, restart-session, ignore)"};
    QTest::newRow("unknown key without suggestion")
        << QByteArray("name: x\nflavour: big\n") + kRoles
        << QStringList{
               "t.yaml:2:1 flavour: unknown key 'flavour' (expected one of: apiVersion, kind, "
               "name, description, mode, network, failurePolicy, successPolicy, "
               "ttlAfterFinished, startupOrder, presets, env, mounts, allowHostPaths, roles)"};
    QTest::newRow("unknown role key")
        << QByteArray(
               "name: x\nroles:\n  - name: worker\n    cuont: 3\n    task: {image: busybox}\n")
        << QStringList{"t.yaml:4:5 roles[0].cuont: unknown key 'cuont' (did you mean 'count'?)"};
    QTest::newRow("unknown task key")
        << QByteArray("name: x\nroles:\n  - name: worker\n    task:\n      image: busybox\n      "
                      "comand: [ls]\n")
        << QStringList{
               "t.yaml:6:7 roles[0].task.comand: unknown key 'comand' (did you mean 'command'?)"};
    QTest::newRow("all errors reported")
        << QByteArray("name: x\nmode: cluster\nstartupOrder: random\nroles:\n  - name: Worker\n"
                      "    task: {image: busybox}\n    min: 0\n")
        << QStringList{
               "t.yaml:2:7 mode: 'cluster' is not one of single-node, multi-node, auto",
               "t.yaml:3:15 startupOrder: 'random' is not one of parallel, in-order",
               "t.yaml:5:11 roles[0].name: role name 'Worker' must match [a-z][a-z0-9-]{0,30}",
               "t.yaml:7:10 roles[0].min: 0 is outside 1-100000"};
    QTest::newRow("enum did you mean")
        << QByteArray("name: x\nmode: multinode\n") + kRoles
        << QStringList{"t.yaml:2:7 mode: 'multinode' is not one of single-node, multi-node, auto "
                       "(did you mean 'multi-node'?)"};
    QTest::newRow("no roles") << QByteArray("name: x\nroles: []\n")
                              << QStringList{"t.yaml:2:8 roles: at least one role is required"};
    QTest::newRow("roles missing")
        << QByteArray("name: x\n")
        << QStringList{"t.yaml:1:1 roles: at least one role is required"};
    QTest::newRow("name missing") << QByteArray(kRoles)
                                  << QStringList{"t.yaml:1:1 name: name is required"};
    QTest::newRow("roles not a list")
        << QByteArray("name: x\nroles: worker\n")
        << QStringList{"t.yaml:2:8 roles: expected a list, got 'worker'"};
    QTest::newRow("not a mapping")
        << QByteArray("- a\n- b\n")
        << QStringList{"t.yaml:1:1: expected a mapping of template fields, got a list"};
    QTest::newRow("syntax error")
        << QByteArray("name: x\nroles: [\n")
        << QStringList{"t.yaml:3:1: YAML syntax error: end of sequence flow not found"};
    QTest::newRow("duplicate key") << QByteArray("name: x\nname: y\n") + kRoles
                                   << QStringList{"t.yaml:2:1 name: duplicate key 'name'"};

    // Counts: 1 <= min <= count <= max
    QTest::newRow("count above max")
        << QByteArray("name: x\nroles:\n  - name: worker\n    task: {image: busybox}\n    count: "
                      "13\n    max: 12\n")
        << QStringList{
               "t.yaml:5:12 roles[0].count: count (13) must be between min (1) and max (12)"};
    QTest::newRow("count below min")
        << QByteArray("name: x\nroles:\n  - name: worker\n    task: {image: busybox}\n    min: 3\n "
                      "   count: 2\n    max: 4\n")
        << QStringList{"t.yaml:6:12 roles[0].count: count (2) must be between min (3) and max (4)"};
    QTest::newRow("max below min")
        << QByteArray("name: x\nroles:\n  - name: worker\n    task: {image: busybox}\n    min: 3\n "
                      "   max: 2\n")
        << QStringList{"t.yaml:6:10 roles[0].max: max (2) must be >= min (3)"};
    QTest::newRow("count not a number")
        << QByteArray(
               "name: x\nroles:\n  - name: worker\n    task: {image: busybox}\n    count: many\n")
        << QStringList{"t.yaml:5:12 roles[0].count: expected a whole number, got 'many'"};
    QTest::newRow("count zero")
        << QByteArray(
               "name: x\nroles:\n  - name: worker\n    task: {image: busybox}\n    count: 0\n")
        << QStringList{"t.yaml:5:12 roles[0].count: 0 is outside 1-100000"};

    // Role names
    QTest::newRow("role name ends in digit")
        << QByteArray("name: x\nroles:\n  - name: worker2\n    task: {image: busybox}\n")
        << QStringList{"t.yaml:3:11 roles[0].name: role name 'worker2' must not end in a digit"};
    QTest::newRow("duplicate role")
        << QByteArray("name: x\nroles:\n  - name: worker\n    task: {image: busybox}\n"
                      "  - name: worker\n    task: {image: busybox}\n")
        << QStringList{
               "t.yaml:5:11 roles[1].name: duplicate role name 'worker' (first defined on line 3)"};
    const QString longName = QStringLiteral("a").repeated(62);
    QTest::newRow("hostname over 63 characters")
        << QByteArray("name: x\nroles:\n  - name: ") + longName.toUtf8() +
               "\n    task: {image: busybox}\n    max: 10\n"
        << QStringList{QStringLiteral("t.yaml:3:11 roles[0].name: role name '%1' must match "
                                      "[a-z][a-z0-9-]{0,30}")
                           .arg(longName),
                       QStringLiteral("t.yaml:5:10 roles[0].max: hostname '%1' of the largest "
                                      "index has 64 characters (at most 63)")
                           .arg(longName + QStringLiteral("10"))};
    QTest::newRow("task missing") << QByteArray("name: x\nroles:\n  - name: worker\n")
                                  << QStringList{"t.yaml:3:5 roles[0].task: task is required "
                                                 "(inline fields or a task template file name)"};
    QTest::newRow("image missing")
        << QByteArray("name: x\nroles:\n  - name: worker\n    task:\n      command: [ls]\n")
        << QStringList{"t.yaml:5:7 roles[0].task.image: image is required"};

    // Ports
    QTest::newRow("port out of range")
        << QByteArray("name: x\nroles:\n  - name: w\n    task:\n      image: b\n      ports: "
                      "[web:http:70000]\n")
        << QStringList{"t.yaml:6:15 roles[0].task.ports[0]: port 70000 is outside 1-65535"};
    QTest::newRow("port zero")
        << QByteArray("name: x\nroles:\n  - name: w\n    task:\n      image: b\n      ports: "
                      "[web:http:0]\n")
        << QStringList{"t.yaml:6:15 roles[0].task.ports[0]: port 0 is outside 1-65535"};
    QTest::newRow("port protocol")
        << QByteArray("name: x\nroles:\n  - name: w\n    task:\n      image: b\n      ports: "
                      "[web:udp:53]\n")
        << QStringList{"t.yaml:6:15 roles[0].task.ports[0]: protocol 'udp' must be http or tcp"};
    QTest::newRow("port syntax")
        << QByteArray(
               "name: x\nroles:\n  - name: w\n    task:\n      image: b\n      ports: [\"8080\"]\n")
        << QStringList{"t.yaml:6:15 roles[0].task.ports[0]: expected name:protocol:port (e.g. "
                       "web:http:8080), got '8080'"};
    QTest::newRow("port not a number")
        << QByteArray("name: x\nroles:\n  - name: w\n    task:\n      image: b\n      ports: "
                      "[web:http:x]\n")
        << QStringList{"t.yaml:6:15 roles[0].task.ports[0]: port 'x' is not a number in 1-65535"};
    QTest::newRow("port name") << QByteArray("name: x\nroles:\n  - name: w\n    task:\n      "
                                             "image: b\n      ports: [Web:http:80]\n")
                               << QStringList{"t.yaml:6:15 roles[0].task.ports[0]: port name 'Web' "
                                              "must match [a-z][a-z0-9-]{0,30}"};
    QTest::newRow("duplicate port name")
        << QByteArray("name: x\nroles:\n  - name: w\n    task:\n      image: b\n"
                      "      ports: [web:http:80, web:tcp:81]\n")
        << QStringList{"t.yaml:6:28 roles[0].task.ports[1]: duplicate port name 'web'"};
    QTest::newRow("duplicate port number")
        << QByteArray("name: x\nroles:\n  - name: w\n    task:\n      image: b\n"
                      "      ports: [web:http:80, api:tcp:80]\n")
        << QStringList{"t.yaml:6:28 roles[0].task.ports[1]: port 80 is already used by 'web'"};
    QTest::newRow("override port clashes with task port")
        << QByteArray("name: x\nroles:\n  - name: w\n    task:\n      image: b\n      ports: "
                      "[web:http:80]\n"
                      "    overrides:\n      ports: [api:http:80]\n")
        << QStringList{
               "t.yaml:8:14 roles[0].overrides.ports: port 80 is used by both 'web' and 'api'"};
    QTest::newRow("port mapping missing number")
        << QByteArray("name: x\nroles:\n  - name: w\n    task:\n      image: b\n      ports:\n"
                      "        - {name: web, protocol: http}\n")
        << QStringList{"t.yaml:7:11 roles[0].task.ports[0].port: port is required"};

    // Resources
    QTest::newRow("memory syntax")
        << QByteArray("name: x\nroles:\n  - name: w\n    task:\n      image: b\n      resources: "
                      "{memory: 4 gigs}\n")
        << QStringList{"t.yaml:6:27 roles[0].task.resources.memory: expected a memory size such as "
                       "512m or 4g (at most 1024t), got '4 gigs'"};
    QTest::newRow("memory beyond 1 PiB (sums would overflow)")
        << QByteArray("name: x\nroles:\n  - name: w\n    task:\n      image: b\n      resources: "
                      "{memory: 4000000t}\n")
        << QStringList{"t.yaml:6:27 roles[0].task.resources.memory: expected a memory size such as "
                       "512m or 4g (at most 1024t), got '4000000t'"};
    QTest::newRow("cpu syntax")
        << QByteArray("name: x\nroles:\n  - name: w\n    task:\n      image: b\n      resources: "
                      "{cpus: -1}\n")
        << QStringList{
               "t.yaml:6:25 roles[0].task.resources.cpus: expected a decimal number of cpus > 0 "
               "(e.g. 0.5, 2), got '-1'"};
    QTest::newRow("cpu zero")
        << QByteArray("name: x\nroles:\n  - name: w\n    task:\n      image: b\n      resources: "
                      "{cpus: 0}\n")
        << QStringList{
               "t.yaml:6:25 roles[0].task.resources.cpus: expected a decimal number of cpus > 0 "
               "(e.g. 0.5, 2), got '0'"};
    QTest::newRow("unknown resource")
        << QByteArray("name: x\nroles:\n  - name: w\n    task:\n      image: b\n      resources: "
                      "{gpu: 1}\n")
        << QStringList{
               "t.yaml:6:19 roles[0].task.resources.gpu: unknown key 'gpu' (did you mean 'gpus'?)"};

    // Env, mounts, presets, policies
    QTest::newRow("env name")
        << QByteArray("name: x\nenv:\n  1BAD: x\n") + kRoles
        << QStringList{
               "t.yaml:3:3 env.1BAD: '1BAD' is not a valid variable name ([A-Za-z_][A-Za-z0-9_]*)"};
    QTest::newRow("env value not scalar")
        << QByteArray("name: x\nenv:\n  A: [1, 2]\n") + kRoles
        << QStringList{"t.yaml:3:6 env.A: expected a single value, got a list"};
    QTest::newRow("mount relative target")
        << QByteArray("name: x\nmounts:\n  - data:relative\n") + kRoles
        << QStringList{"t.yaml:3:5 mounts[0]: target 'relative' must be an absolute path"};
    QTest::newRow("bind relative source")
        << QByteArray("name: x\nmounts:\n  - {type: bind, source: data, target: /data}\n") + kRoles
        << QStringList{"t.yaml:3:5 mounts[0]: bind source 'data' must be an absolute host path"};
    QTest::newRow("mount type")
        << QByteArray("name: x\nmounts:\n  - {type: tmpfs, source: a, target: /a}\n") + kRoles
        << QStringList{"t.yaml:3:12 mounts[0].type: 'tmpfs' is not one of volume, bind"};
    QTest::newRow("mount target twice")
        << QByteArray("name: x\nmounts:\n  - a:/data\n  - b:/data\n") + kRoles
        << QStringList{"t.yaml:4:5 mounts[1]: target '/data' is mounted twice"};
    QTest::newRow("mount missing target")
        << QByteArray("name: x\nmounts:\n  - {source: a}\n") + kRoles
        << QStringList{"t.yaml:3:5 mounts[0].target: target is required"};
    // Host paths (issue 24 D.6): the Docker socket, the root, a volume that binds a host path.
    QTest::newRow("docker socket")
        << QByteArray("name: x\nroles:\n  - name: w\n    task:\n      image: b\n      mounts: "
                      "[/var/run/docker.sock:/sock]\n")
        << QStringList{"t.yaml:6:16 roles[0].task.mounts[0]: '/var/run/docker.sock' is a path on "
                       "the host: kernels could read or change the host through it (set "
                       "allowHostPaths: true at the top of the cluster template to allow host "
                       "paths)"};
    QTest::newRow("root through dot-dot")
        << QByteArray("name: x\nmounts:\n  - {type: bind, source: /srv/.., target: /h}\n") + kRoles
        << QStringList{"t.yaml:3:5 mounts[0]: '/' is a path on the host: kernels could read or "
                       "change the host through it (set allowHostPaths: true at the top of the "
                       "cluster template to allow host paths)"};
    QTest::newRow("volume binding a host path")
        << QByteArray("name: x\nmounts:\n  - {source: v, target: /h, driver: local, "
                      "driverOptions: {type: none, o: bind, device: /}}\n") +
               kRoles
        << QStringList{"t.yaml:3:5 mounts[0]: '/' is a path on the host: kernels could read or "
                       "change the host through it (set allowHostPaths: true at the top of the "
                       "cluster template to allow host paths)"};
    QTest::newRow("volume mounting a host device")
        << QByteArray("name: x\nmounts:\n  - {source: v, target: /h, driverOptions: {type: "
                      "ext4, device: /dev/sda1}}\n") +
               kRoles
        << QStringList{"t.yaml:3:5 mounts[0]: '/dev/sda1' is a path on the host: kernels could "
                       "read or change the host through it (set allowHostPaths: true at the top "
                       "of the cluster template to allow host paths)"};
    QTest::newRow("allowHostPaths not a boolean")
        << QByteArray("name: x\nallowHostPaths: maybe\n") + kRoles
        << QStringList{"t.yaml:2:17 allowHostPaths: expected true or false, got 'maybe'"};
    QTest::newRow("unknown preset")
        << QByteArray("name: x\npresets: [pytroch]\n") + kRoles
        << QStringList{
               "t.yaml:2:11 presets[0]: 'pytroch' is not one of pytorch, tensorflow, mpi, ssh "
               "(did you mean 'pytorch'?)"};
    QTest::newRow("preset twice") << QByteArray("name: x\npresets: [ssh, ssh]\n") + kRoles
                                  << QStringList{
                                         "t.yaml:2:16 presets[1]: preset 'ssh' is listed twice"};
    QTest::newRow("failure policy action")
        << QByteArray("name: x\nfailurePolicy: restart\n") + kRoles
        << QStringList{"t.yaml:2:16 failurePolicy: 'restart' is not one of terminate-session, "
                       "restart-session, ignore"};
    QTest::newRow("maxRestarts needs restart-session")
        << QByteArray("name: x\nfailurePolicy:\n  action: ignore\n  maxRestarts: 2\n") + kRoles
        << QStringList{"t.yaml:4:16 failurePolicy.maxRestarts: maxRestarts applies only to "
                       "restart-session"};

    // successPolicy: a string, {role-exits: ROLE}, or {kind: KIND, role: ROLE}
    const QByteArray launcherAndWorkers =
        "roles:\n  - name: launcher\n    task: {image: b}\n  - name: worker\n"
        "    task: {image: b}\n    max: 8\n";
    QTest::newRow("success policy unknown word, did you mean")
        << QByteArray("name: x\nsuccessPolicy: primary-exit\n") + kRoles
        << QStringList{"t.yaml:2:16 successPolicy: 'primary-exit' is not one of none, "
                       "primary-exits, all-exit, role-exits (did you mean 'primary-exits'?)"};
    QTest::newRow("success policy unknown word")
        << QByteArray("name: x\nsuccessPolicy: whenever\n") + kRoles
        << QStringList{"t.yaml:2:16 successPolicy: 'whenever' is not one of none, "
                       "primary-exits, all-exit, role-exits"};
    QTest::newRow("success policy role-exits without a role")
        << QByteArray("name: x\nsuccessPolicy: role-exits\n") + kRoles
        << QStringList{
               "t.yaml:2:16 successPolicy: role-exits needs a role: write {role-exits: ROLE}"};
    QTest::newRow("success policy role-exits unknown role")
        << QByteArray("name: x\nsuccessPolicy: {role-exits: driver}\n") + launcherAndWorkers
        << QStringList{"t.yaml:2:29 successPolicy.role-exits: role 'driver' is not one of the "
                       "template's roles: launcher, worker"};
    QTest::newRow("success policy role-exits role typo")
        << QByteArray("name: x\nsuccessPolicy:\n  role-exits: workers\n") + launcherAndWorkers
        << QStringList{"t.yaml:3:15 successPolicy.role-exits: role 'workers' is not one of the "
                       "template's roles: launcher, worker (did you mean 'worker'?)"};
    QTest::newRow("success policy kind form unknown role")
        << QByteArray("name: x\nsuccessPolicy:\n  kind: role-exits\n  role: launcher\n") + kRoles
        << QStringList{"t.yaml:4:9 successPolicy.role: role 'launcher' is not one of the "
                       "template's roles: worker"};
    QTest::newRow("success policy role-exits empty role")
        << QByteArray("name: x\nsuccessPolicy: {role-exits: ''}\n") + kRoles
        << QStringList{"t.yaml:2:29 successPolicy.role-exits: role-exits needs the name of a role"};
    QTest::newRow("success policy kind missing")
        << QByteArray("name: x\nsuccessPolicy:\n  role: worker\n") + kRoles
        << QStringList{"t.yaml:3:3 successPolicy.kind: kind is required (one of none, "
                       "primary-exits, all-exit, role-exits)"};
    QTest::newRow("success policy kind unknown")
        << QByteArray("name: x\nsuccessPolicy: {kind: all-exits}\n") + kRoles
        << QStringList{"t.yaml:2:23 successPolicy.kind: 'all-exits' is not one of none, "
                       "primary-exits, all-exit, role-exits (did you mean 'all-exit'?)"};
    QTest::newRow("success policy kind role-exits without role")
        << QByteArray("name: x\nsuccessPolicy: {kind: role-exits}\n") + kRoles
        << QStringList{"t.yaml:2:16 successPolicy.role: role is required with role-exits"};
    QTest::newRow("success policy role with another kind")
        << QByteArray("name: x\nsuccessPolicy: {kind: all-exit, role: worker}\n") + kRoles
        << QStringList{"t.yaml:2:39 successPolicy.role: role applies only to role-exits"};
    QTest::newRow("success policy both forms")
        << QByteArray("name: x\nsuccessPolicy: {role-exits: worker, kind: role-exits}\n") + kRoles
        << QStringList{"t.yaml:2:16 successPolicy: write either {role-exits: ROLE} or {kind: "
                       "role-exits, role: ROLE}, not both"};
    QTest::newRow("success policy unknown key")
        << QByteArray("name: x\nsuccessPolicy: {role-exit: worker}\n") + kRoles
        << QStringList{"t.yaml:2:17 successPolicy.role-exit: unknown key 'role-exit' (did you "
                       "mean 'role-exits'?)",
                       "t.yaml:2:16 successPolicy.kind: kind is required (one of none, "
                       "primary-exits, all-exit, role-exits)"};
    QTest::newRow("success policy a list")
        << QByteArray("name: x\nsuccessPolicy: [primary-exits]\n") + kRoles
        << QStringList{"t.yaml:2:16 successPolicy: expected one of none, primary-exits, "
                       "all-exit, or {role-exits: ROLE}, got a list"};

    // ttlAfterFinished: a duration, and only with a success policy
    QTest::newRow("ttl not a duration")
        << QByteArray("name: x\nsuccessPolicy: all-exit\nttlAfterFinished: 10 minutes\n") + kRoles
        << QStringList{"t.yaml:3:19 ttlAfterFinished: expected a duration such as 30s, 10m or "
                       "2h, or a whole number of seconds, got '10 minutes'"};
    QTest::newRow("ttl negative")
        << QByteArray("name: x\nsuccessPolicy: all-exit\nttlAfterFinished: -5\n") + kRoles
        << QStringList{"t.yaml:3:19 ttlAfterFinished: expected a duration such as 30s, 10m or "
                       "2h, or a whole number of seconds, got '-5'"};
    QTest::newRow("ttl units out of order")
        << QByteArray("name: x\nsuccessPolicy: all-exit\nttlAfterFinished: 30m1h\n") + kRoles
        << QStringList{"t.yaml:3:19 ttlAfterFinished: expected a duration such as 30s, 10m or "
                       "2h, or a whole number of seconds, got '30m1h'"};
    QTest::newRow("ttl unknown unit")
        << QByteArray("name: x\nsuccessPolicy: all-exit\nttlAfterFinished: 2w\n") + kRoles
        << QStringList{"t.yaml:3:19 ttlAfterFinished: expected a duration such as 30s, 10m or "
                       "2h, or a whole number of seconds, got '2w'"};
    QTest::newRow("ttl over a year")
        << QByteArray("name: x\nsuccessPolicy: all-exit\nttlAfterFinished: 366d\n") + kRoles
        << QStringList{"t.yaml:3:19 ttlAfterFinished: 366d is longer than 365d (leave "
                       "ttlAfterFinished out to keep a finished session until it is removed)"};
    QTest::newRow("ttl a mapping")
        << QByteArray("name: x\nsuccessPolicy: all-exit\nttlAfterFinished: {m: 10}\n") + kRoles
        << QStringList{"t.yaml:3:19 ttlAfterFinished: expected a single value, got a mapping"};
    QTest::newRow("ttl without a success policy")
        << QByteArray("name: x\nttlAfterFinished: 10m\n") + kRoles
        << QStringList{"t.yaml:2:19 ttlAfterFinished: ttlAfterFinished applies only with a "
                       "successPolicy (primary-exits, all-exit or role-exits)"};
    QTest::newRow("ttl with success policy none")
        << QByteArray("name: x\nsuccessPolicy: none\nttlAfterFinished: 10m\n") + kRoles
        << QStringList{"t.yaml:3:19 ttlAfterFinished: ttlAfterFinished applies only with a "
                       "successPolicy (primary-exits, all-exit or role-exits)"};
    QTest::newRow("mtu range") << QByteArray("name: x\nnetwork:\n  mtu: 100000\n") + kRoles
                               << QStringList{"t.yaml:3:8 network.mtu: 100000 is outside 576-9216"};
    QTest::newRow("wrong kind") << QByteArray("kind: Task\nname: x\n") + kRoles
                                << QStringList{
                                       "t.yaml:1:7 kind: expected kind Cluster, got 'Task'"};
    QTest::newRow("wrong apiVersion")
        << QByteArray("apiVersion: clusterdeck/v9\nname: x\n") + kRoles
        << QStringList{"t.yaml:1:13 apiVersion: unsupported apiVersion 'clusterdeck/v9' (expected "
                       "clusterdeck/v1)"};
    QTest::newRow("relative working dir")
        << QByteArray(
               "name: x\nroles:\n  - name: w\n    task:\n      image: b\n      workingDir: src\n")
        << QStringList{
               "t.yaml:6:19 roles[0].task.workingDir: expected an absolute path, got 'src'"};
    QTest::newRow("readOnly not boolean")
        << QByteArray("name: x\nmounts:\n  - {source: a, target: /a, readOnly: maybe}\n") + kRoles
        << QStringList{"t.yaml:3:39 mounts[0].readOnly: expected true or false, got 'maybe'"};
}

void TestTemplateLoader::errors()
{
    QFETCH(QByteArray, yaml);
    QFETCH(QStringList, expected);
    TemplateLoader loader;
    const auto result = loader.loadClusterFromData(yaml, QStringLiteral("t.yaml"), m_data);
    QVERIFY(!result);
    QCOMPARE(result.error().kind, Error::Kind::Invalid);
    QCOMPARE(render(loader.diagnostics()), expected);
}

void TestTemplateLoader::fileErrors_data()
{
    QTest::addColumn<QString>("file");
    QTest::addColumn<QStringList>("expected");
    QTest::newRow("missing task file")
        << "missing-task-file.yaml"
        << QStringList{"$D/missing-task-file.yaml:4:11 roles[0].task: task template file "
                       "'tasks/does-not-exist.yaml' not found"};
    QTest::newRow("errors inside the task file carry its name")
        << "broken-task-file.yaml"
        << QStringList{"$D/tasks/broken.yaml:3:1 resorces: unknown key 'resorces' (did you mean "
                       "'resources'?)"};
    QTest::newRow("cycle through extends")
        << "cycle-cluster.yaml"
        << QStringList{"$D/cycle/b.yaml:2:10 extends: task template files form a cycle: a.yaml -> "
                       "b.yaml -> a.yaml"};
    QTest::newRow("a task file's host path, refused by the cluster that uses it")
        << "host-path-task-file.yaml"
        << QStringList{"$D/tasks/host-path.yaml:3:5 mounts[0]: '/etc' is a path on the host: "
                       "kernels could read or change the host through it (set allowHostPaths: "
                       "true at the top of the cluster template to allow host paths)"};
    QTest::newRow("no such cluster file")
        << "nope.yaml" << QStringList{"$D/nope.yaml: no such file"};
}

void TestTemplateLoader::fileErrors()
{
    QFETCH(QString, file);
    QFETCH(QStringList, expected);
    TemplateLoader loader;
    const auto result = loader.loadClusterFile(m_data + QLatin1Char('/') + file);
    QVERIFY(!result);
    QStringList want;
    for (const QString &e : expected)
        want.append(QString(e).replace(QStringLiteral("$D"), m_data));
    QCOMPARE(render(loader.diagnostics()), want);
}

void TestTemplateLoader::valid_data()
{
    QTest::addColumn<QByteArray>("yaml");
    QTest::addColumn<int>("roles");
    QTest::newRow("minimal") << QByteArray("name: x\n") + kRoles << 1;
    QTest::newRow("flow style") << QByteArray("{name: x, roles: [{name: a, task: {image: b}}]}")
                                << 1;
    QTest::newRow("command as string")
        << QByteArray("name: x\nroles:\n  - name: w\n    task: {image: b, command: echo hi}\n")
        << 1;
    QTest::newRow("empty env") << QByteArray("name: x\nenv:\n") + kRoles << 1;
    QTest::newRow("failure policy shorthand")
        << QByteArray("name: x\nfailurePolicy: ignore\n") + kRoles << 1;
    QTest::newRow("hyphenated role") << QByteArray("name: x\nroles:\n  - name: param-server\n"
                                                   "    task: {image: b}\n    max: 99\n")
                                     << 1;
    QTest::newRow("hostname exactly 63")
        << QByteArray("name: x\nroles:\n  - name: abcdefghijklmnopqrstuvwxyzabcde\n"
                      "    task: {image: b}\n    max: 99999\n")
        << 1;
    QTest::newRow("memory units") << QByteArray("name: x\nroles:\n  - name: w\n    task: {image: "
                                                "b, resources: {memory: 1.5Gi, cpus: .5}}\n")
                                  << 1;
    QTest::newRow("two roles") << QByteArray("name: x\nroles:\n  - {name: master, task: {image: "
                                             "b}}\n  - {name: worker, task: {image: b}, max: 12}\n")
                               << 2;
    QTest::newRow("all presets")
        << QByteArray("name: x\npresets: [pytorch, tensorflow, mpi, ssh]\n") + kRoles << 1;
    QTest::newRow("nfs volume is no host path")
        << QByteArray(
               "name: x\nmounts:\n  - {source: d, target: /d, driver: local, "
               "driverOptions: {type: nfs, o: \"addr=10.0.0.5,ro\", device: \":/export\"}}\n") +
               kRoles
        << 1;
    QTest::newRow("host paths allowed")
        << QByteArray("name: x\nallowHostPaths: true\nmounts: [/var/run/docker.sock:/sock, "
                      "/:/host:ro]\n") +
               kRoles
        << 1;
}

void TestTemplateLoader::valid()
{
    QFETCH(QByteArray, yaml);
    QFETCH(int, roles);
    TemplateLoader loader;
    const auto result = loader.loadClusterFromData(yaml, QStringLiteral("t.yaml"), m_data);
    QVERIFY2(result, qPrintable(render(loader.diagnostics()).join(QLatin1Char('\n'))));
    QCOMPARE(result->roles.size(), roles);
}

void TestTemplateLoader::successPolicy_data()
{
    QTest::addColumn<QByteArray>("policy");
    QTest::addColumn<SuccessPolicy::Kind>("kind");
    QTest::addColumn<QString>("role");
    QTest::addColumn<qint64>("ttl"); // -1: absent

    using K = SuccessPolicy::Kind;
    QTest::newRow("absent") << QByteArray() << K::None << "" << qint64(-1);
    QTest::newRow("none") << QByteArray("successPolicy: none\n") << K::None << "" << qint64(-1);
    QTest::newRow("primary-exits")
        << QByteArray("successPolicy: primary-exits\n") << K::PrimaryExits << "" << qint64(-1);
    QTest::newRow("all-exit") << QByteArray("successPolicy: all-exit\n") << K::AllExit << ""
                              << qint64(-1);
    QTest::newRow("role-exits mapping") << QByteArray("successPolicy:\n  role-exits: launcher\n")
                                        << K::RoleExits << "launcher" << qint64(-1);
    QTest::newRow("role-exits flow mapping") << QByteArray("successPolicy: {role-exits: worker}\n")
                                             << K::RoleExits << "worker" << qint64(-1);
    QTest::newRow("kind form role-exits")
        << QByteArray("successPolicy: {kind: role-exits, role: worker}\n") << K::RoleExits
        << "worker" << qint64(-1);
    QTest::newRow("kind form primary-exits")
        << QByteArray("successPolicy:\n  kind: primary-exits\n") << K::PrimaryExits << ""
        << qint64(-1);
    QTest::newRow("kind form none")
        << QByteArray("successPolicy: {kind: none}\n") << K::None << "" << qint64(-1);
    QTest::newRow("ttl whole seconds")
        << QByteArray("successPolicy: primary-exits\nttlAfterFinished: 90\n") << K::PrimaryExits
        << "" << qint64(90);
    QTest::newRow("ttl zero: remove at once")
        << QByteArray("successPolicy: all-exit\nttlAfterFinished: 0\n") << K::AllExit << ""
        << qint64(0);
    QTest::newRow("ttl 30s") << QByteArray("successPolicy: all-exit\nttlAfterFinished: 30s\n")
                             << K::AllExit << "" << qint64(30);
    QTest::newRow("ttl 10m") << QByteArray("successPolicy: primary-exits\nttlAfterFinished: 10m\n")
                             << K::PrimaryExits << "" << qint64(600);
    QTest::newRow("ttl 2h") << QByteArray("ttlAfterFinished: 2h\nsuccessPolicy: all-exit\n")
                            << K::AllExit << "" << qint64(7200);
    QTest::newRow("ttl 1d with role-exits")
        << QByteArray("successPolicy: {role-exits: launcher}\nttlAfterFinished: 1d\n")
        << K::RoleExits << "launcher" << qint64(86400);
    QTest::newRow("ttl 1h30m") << QByteArray("successPolicy: all-exit\nttlAfterFinished: 1h30m\n")
                               << K::AllExit << "" << qint64(5400);
    QTest::newRow("ttl quoted") << QByteArray("successPolicy: all-exit\nttlAfterFinished: '45s'\n")
                                << K::AllExit << "" << qint64(45);
    QTest::newRow("ttl at the limit")
        << QByteArray("successPolicy: all-exit\nttlAfterFinished: 365d\n") << K::AllExit << ""
        << qint64(365) * 86400;
}

void TestTemplateLoader::successPolicy()
{
    QFETCH(QByteArray, policy);
    QFETCH(SuccessPolicy::Kind, kind);
    QFETCH(QString, role);
    QFETCH(qint64, ttl);
    const QByteArray yaml = "name: x\n" + policy +
                            "roles:\n  - name: launcher\n    task: {image: b}\n"
                            "  - name: worker\n    task: {image: b}\n    max: 8\n";
    TemplateLoader loader;
    const auto t = loader.loadClusterFromData(yaml, QStringLiteral("t.yaml"));
    QVERIFY2(t, qPrintable(render(loader.diagnostics()).join(QLatin1Char('\n'))));
    QCOMPARE(t->successPolicy.kind, kind);
    QCOMPARE(t->successPolicy.role, role);
    QCOMPARE(t->ttlAfterFinishedSeconds,
             ttl < 0 ? std::optional<qint64>() : std::optional<qint64>(ttl));
}

void TestTemplateLoader::durations_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<qint64>("seconds"); // -1: invalid
    QTest::addColumn<QString>("formatted");
    QTest::newRow("plain") << "90" << qint64(90) << "90s";
    QTest::newRow("zero") << "0" << qint64(0) << "0s";
    QTest::newRow("zero seconds") << "0s" << qint64(0) << "0s";
    QTest::newRow("seconds") << "30s" << qint64(30) << "30s";
    QTest::newRow("minutes") << "10m" << qint64(600) << "10m";
    QTest::newRow("hours") << "2h" << qint64(7200) << "2h";
    QTest::newRow("days") << "3d" << qint64(3 * 86400) << "3d";
    QTest::newRow("60 minutes is an hour") << "60m" << qint64(3600) << "1h";
    QTest::newRow("compound") << "1h30m" << qint64(5400) << "90m";
    QTest::newRow("all units") << "1d1h1m1s" << qint64(90061) << "90061s";
    QTest::newRow("empty") << "" << qint64(-1) << "";
    QTest::newRow("unit only") << "m" << qint64(-1) << "";
    QTest::newRow("negative") << "-1" << qint64(-1) << "";
    QTest::newRow("fraction") << "1.5h" << qint64(-1) << "";
    QTest::newRow("space") << "10 m" << qint64(-1) << "";
    QTest::newRow("upper case") << "10M" << qint64(-1) << "";
    QTest::newRow("unit twice") << "1m1m" << qint64(-1) << "";
    QTest::newRow("non-ASCII digits") << QString::fromUtf8("\u0663s") << qint64(-1) << "";
}

void TestTemplateLoader::durations()
{
    QFETCH(QString, text);
    QFETCH(qint64, seconds);
    QFETCH(QString, formatted);
    const auto parsed = TemplateValues::parseDuration(text);
    if (seconds < 0) {
        QCOMPARE(parsed, std::optional<qint64>());
        return;
    }
    QCOMPARE(parsed, std::optional<qint64>(seconds));
    QCOMPARE(TemplateValues::formatDuration(seconds), formatted);
    QCOMPARE(TemplateValues::parseDuration(formatted), std::optional<qint64>(seconds));
}

void TestTemplateLoader::countDefaults_data()
{
    QTest::addColumn<QByteArray>("counts");
    QTest::addColumn<int>("min");
    QTest::addColumn<int>("count");
    QTest::addColumn<int>("max");
    QTest::newRow("nothing") << QByteArray("") << 1 << 1 << 1;
    QTest::newRow("count only") << QByteArray("    count: 3\n") << 1 << 3 << 3;
    QTest::newRow("max only") << QByteArray("    max: 12\n") << 1 << 1 << 12;
    QTest::newRow("min only") << QByteArray("    min: 2\n") << 2 << 2 << 2;
    QTest::newRow("all") << QByteArray("    min: 2\n    count: 4\n    max: 8\n") << 2 << 4 << 8;
}

void TestTemplateLoader::countDefaults()
{
    QFETCH(QByteArray, counts);
    QFETCH(int, min);
    QFETCH(int, count);
    QFETCH(int, max);
    TemplateLoader loader;
    const auto t = loader.loadClusterFromData(QByteArray(kRoles).prepend("name: x\n") + counts,
                                              QStringLiteral("t.yaml"));
    QVERIFY2(t, qPrintable(render(loader.diagnostics()).join(QLatin1Char('\n'))));
    QCOMPARE(t->roles.first().min, min);
    QCOMPARE(t->roles.first().count, count);
    QCOMPARE(t->roles.first().max, max);
}

void TestTemplateLoader::fullTemplate()
{
    TemplateLoader loader;
    const auto t = loader.loadClusterFile(m_data + QStringLiteral("/full.yaml"));
    QVERIFY2(t, qPrintable(render(loader.diagnostics()).join(QLatin1Char('\n'))));
    QCOMPARE(t->name, QStringLiteral("full"));
    QCOMPARE(t->description, QStringLiteral("Every field set once."));
    QCOMPARE(t->mode, ClusterMode::MultiNode);
    QCOMPARE(t->mtu, std::optional<int>(1450));
    QCOMPARE(t->failurePolicy.action, FailurePolicy::Action::RestartSession);
    QCOMPARE(t->failurePolicy.maxRestarts, 5);
    QCOMPARE(t->startupOrder, StartupOrder::InOrder);
    QCOMPARE(t->presets, (QStringList{"pytorch", "ssh"}));
    QCOMPARE(t->env.value("CLUSTER_WIDE"), QStringLiteral("1"));
    QCOMPARE(t->mounts.size(), 2);
    QCOMPARE(t->mounts.at(0).driverOptions.value("device"), QStringLiteral(":/export"));
    QCOMPARE(t->mounts.at(1).type, Mount::Type::Bind);
    QVERIFY(t->mounts.at(1).readOnly);
    QVERIFY(t->allowHostPaths);

    const RoleTemplate &master = t->roles.at(0);
    QCOMPARE(master.name, QStringLiteral("master"));
    QCOMPARE(master.task.command, (QStringList{"python3", "-m", "http.server", "8080"}));
    QCOMPARE(master.task.entrypoint, QStringList{"/usr/bin/env"});
    QCOMPARE(master.task.user, QStringLiteral("1000"));
    QCOMPARE(master.task.env.value("DEBUG"), QStringLiteral("true"));
    QCOMPARE(master.task.resources.cpus, std::optional<double>(1.5));
    QCOMPARE(master.task.resources.memoryBytes, std::optional<qint64>(4LL << 30));
    QCOMPARE(master.task.resources.gpus, std::optional<int>(1));
    QCOMPARE(master.task.bootstrap, QStringLiteral("echo ready > /tmp/ready\n"));
    QCOMPARE(master.task.ports, (QList<ServicePort>{{"web", "http", 8080}, {"ssh", "tcp", 22}}));
    QCOMPARE(master.task.labels.value("team"), QStringLiteral("research"));

    const RoleTemplate &worker = t->roles.at(1);
    QCOMPARE(worker.taskFile, QStringLiteral("tasks/worker.yaml"));
    QCOMPARE(worker.max, 12);
    QCOMPARE(worker.overrides.env.value("ROLE_KIND"), QStringLiteral("override"));
    QCOMPARE(worker.overrides.resources.memoryBytes, std::optional<qint64>(1LL << 30));
    QCOMPARE(worker.hostLabels.value("gpu"), QStringLiteral("true"));
}

void TestTemplateLoader::taskFileRelativeToClusterTemplate()
{
    // Loaded from another working directory: the reference must still resolve.
    const QString previous = QDir::currentPath();
    QDir::setCurrent(QDir::tempPath());
    TemplateLoader loader;
    const auto t = loader.loadClusterFile(m_data + QStringLiteral("/with-task-file.yaml"));
    QDir::setCurrent(previous);
    QVERIFY2(t, qPrintable(render(loader.diagnostics()).join(QLatin1Char('\n'))));
    const TaskTemplate &task = t->roles.first().task;
    QCOMPARE(task.image, QStringLiteral("clusterdeck/lab:latest"));  // from base.yaml via extends
    QCOMPARE(task.env.value("ROLE_KIND"), QStringLiteral("worker")); // worker.yaml wins
    QCOMPARE(task.env.value("SHARED"), QStringLiteral("yes"));
    QCOMPARE(task.command, (QStringList{"sleep", "infinity"}));
    QCOMPARE(task.workingDir, QStringLiteral("/work"));
    QCOMPARE(task.resources.memoryBytes, std::optional<qint64>(256LL << 20));
    QCOMPARE(task.ports, (QList<ServicePort>{{"metrics", "http", 9100}}));

    const auto self = loader.loadTaskFile(m_data + QStringLiteral("/cycle/self.yaml"));
    QVERIFY(!self);
    QCOMPARE(self.error().message,
             QStringLiteral("task template files form a cycle: self.yaml -> self.yaml"));
}

void TestTemplateLoader::errorValueNamesFirstProblem()
{
    TemplateLoader loader;
    const auto result = loader.loadClusterFromData(
        "name: x\nmode: a\nstartupOrder: b\n" + QByteArray(kRoles), QStringLiteral("t.yaml"));
    QVERIFY(!result);
    QCOMPARE(result.error().where, QStringLiteral("t.yaml:2:7 mode"));
    QCOMPARE(result.error().toString(),
             QStringLiteral("t.yaml:2:7 mode: 'a' is not one of single-node, multi-node, auto "
                            "(and 1 more)"));
}

void TestTemplateLoader::samplesValidate_data()
{
    QTest::addColumn<QString>("file");
    const QDir dir(qEnvironmentVariable("CLUSTERDECK_SOURCE_DIR") + QStringLiteral("/templates"));
    const QStringList samples = dir.entryList({QStringLiteral("*.yaml")}, QDir::Files, QDir::Name);
    QVERIFY(samples.size() >= 6);
    for (const QString &f : samples)
        QTest::newRow(qPrintable(f)) << dir.filePath(f);
}

void TestTemplateLoader::samplesValidate()
{
    QFETCH(QString, file);
    TemplateLoader loader;
    const auto t = loader.loadClusterFile(file);
    QVERIFY2(t, qPrintable(render(loader.diagnostics()).join(QLatin1Char('\n'))));
}

QTEST_GUILESS_MAIN(TestTemplateLoader)
#include "tst_templateloader.moc"
