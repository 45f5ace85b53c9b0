// The chaos suite (issue 14): randomized faults against the lab, and after every trial the
// invariants ClusterDeck promises, checked against the store and the real hosts:
//   - the store and the hosts agree (every object of this store belongs to a session that wants
//     it; a RUNNING session has every kernel running where the store says);
//   - 0 orphan containers or networks after the next reconcile;
//   - no session in a transitional state (PENDING, PROVISIONING, RESTARTING, TERMINATING) for
//     longer than two resync periods of the controller once the fault is over;
//   - no kernel of a RUNNING session missing.
// Run through scripts/chaos.sh (which brings a lab up when none is), or directly with the lab's
// environment (eval "$(scripts/lab.sh env)"). Prints one table: fault, trials, violations,
// leftovers; exits 1 when any trial violated an invariant or left something behind.

#include "common/logging.h"
#include "delayproxy.h"
#include "labcli.h"

#include "docker/dockerclient.h"
#include "docker/dockerendpoint.h"
#include "store/statestore.h"
#include "store/storefactory.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QDateTime>
#include <QDir>
#include <QElapsedTimer>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLoggingCategory>
#include <QProcess>
#include <QProcessEnvironment>
#include <QRandomGenerator>
#include <QScopeGuard>
#include <QSet>
#include <QTemporaryDir>
#include <QTextStream>
#include <QThread>
#include <QUrl>
#include <QUuid>

#include <algorithm>
#include <cctype>
#include <csignal>
#include <cstdio>
#include <memory>
#include <sqlite3.h>
#include <sys/mount.h>

using namespace ClusterDeck;
using namespace std::chrono_literals;

#ifndef CLUSTERDECKCTL
#error "CLUSTERDECKCTL must name the clusterdeckctl binary"
#endif
#ifndef CLUSTERDECK_GUI
#error "CLUSTERDECK_GUI must name the console binary"
#endif

namespace {

// clusterdeckctl: the build's, unless --ctl names another (a copy, while the tree rebuilds).
QString g_ctl = QStringLiteral(CLUSTERDECKCTL);
// The multi-node network driver of every store of the run (--driver); empty: the default.
QString g_driver;

// The error a command ended with: its last line (warnings come first).
QString lastLine(const QByteArray &err)
{
    const QStringList lines =
        QString::fromUtf8(err).trimmed().split(QLatin1Char('\n'), Qt::SkipEmptyParts);
    return lines.isEmpty() ? QString() : lines.last().left(400);
}

QTextStream &out()
{
    static QTextStream s(stdout);
    return s;
}

void say(const QString &line)
{
    out() << QDateTime::currentDateTime().toString(QStringLiteral("HH:mm:ss ")) << line << Qt::endl;
}

const QStringList kFaults = {
    QStringLiteral("kill9-launch"),    QStringLiteral("kill9-rm"),
    QStringLiteral("kill9-restart"),   QStringLiteral("kill9-controller"),
    QStringLiteral("sigstop-host"),    QStringLiteral("netem"),
    QStringLiteral("etcd-leader"),     QStringLiteral("sqlite-full"),
    QStringLiteral("sigstop-leader"),  QStringLiteral("host-restart"),
    QStringLiteral("console-and-cli"),
};

QString clusterTemplate(const QString &name, int workers, const QString &policy)
{
    return QStringLiteral(R"(apiVersion: clusterdeck/v1
kind: Cluster
name: %1
mode: multi-node
failurePolicy:
  action: %3
roles:
  - name: master
    count: 1
    task:
      image: clusterdeck/lab:latest
      command: [sleep, "3600"]
      resources: {cpus: 0.02, memory: 16m}
  - name: worker
    count: %2
    max: 16
    task:
      image: clusterdeck/lab:latest
      command: [sleep, "3600"]
      resources: {cpus: 0.02, memory: 16m}
)")
        .arg(name)
        .arg(workers)
        .arg(policy);
}

QString labScript()
{
    QString src = qEnvironmentVariable("CLUSTERDECK_SOURCE_DIR");
    if (src.isEmpty())
        src = QStringLiteral(CLUSTERDECK_SOURCE_DIR_DEFAULT);
    return src + QStringLiteral("/scripts/lab.sh");
}

Proc lab(const QStringList &args, int timeoutMs = 120000)
{
    return runProcess(labScript(), args, timeoutMs);
}

pid_t dockerdPid(const QString &host)
{
    return pid_t(
        QString::fromUtf8(lab({QStringLiteral("dockerd"), QStringLiteral("pid"), host.mid(1)}).out)
            .trimmed()
            .toLongLong());
}

QString labNamespace(const QString &host)
{
    const QString id = qEnvironmentVariable("CLUSTERDECK_LAB_ID", QStringLiteral("0"));
    return id == u"0" ? QStringLiteral("cdlab-") + host : QStringLiteral("cdl%1-%2").arg(id, host);
}

// A controller process whose log goes to a file (a pipe nobody reads would block it).
class Controller
{
public:
    Controller(QString storeUrl, QString logFile, int resync)
        : m_storeUrl(std::move(storeUrl))
        , m_log(std::move(logFile))
        , m_resync(resync)
    {}
    ~Controller() { stop(); }
    bool start()
    {
        m_process = std::make_unique<QProcess>();
        m_process->setStandardOutputFile(m_log, QIODevice::Append);
        m_process->setStandardErrorFile(m_log, QIODevice::Append);
        m_process->start(g_ctl,
                         {QStringLiteral("--store"), m_storeUrl, QStringLiteral("controller"),
                          QStringLiteral("--resync"), QString::number(m_resync),
                          QStringLiteral("--lease-ttl"), QStringLiteral("5"),
                          QStringLiteral("--grace"), QStringLiteral("2")});
        return m_process->waitForStarted(10000);
    }
    bool running() const { return m_process && m_process->state() == QProcess::Running; }
    qint64 pid() const { return m_process ? m_process->processId() : 0; }
    void kill9()
    {
        if (!running())
            return;
        ::kill(pid_t(m_process->processId()), SIGKILL);
        m_process->waitForFinished(10000);
    }
    void stop()
    {
        if (!running())
            return;
        ::kill(pid_t(m_process->processId()), SIGTERM);
        if (!m_process->waitForFinished(20000)) {
            m_process->kill();
            m_process->waitForFinished();
        }
    }

private:
    QString m_storeUrl;
    QString m_log;
    int m_resync;
    std::unique_ptr<QProcess> m_process;
};

// One store, the lab's hosts registered in it, and its controller.
struct Bench
{
    QString name;
    QString url;
    std::unique_ptr<StateStore> store;
    QHash<QString, std::shared_ptr<Docker::DockerClient>> docker; // host → client (unix socket)
    std::unique_ptr<Controller> controller;
    QString mountPoint; // sqlite-full: the tmpfs
};

struct Check
{
    QStringList violations; // invariants that do not hold
    QStringList leftovers;  // objects of this store that nothing wants
    bool clean() const { return violations.isEmpty() && leftovers.isEmpty(); }
};

struct Tally
{
    int trials = 0;
    int violations = 0; // trials with a violated invariant
    int leftovers = 0;  // distinct objects left behind (one that stays is counted once)
    QSet<QString> leftoverObjects;
    QStringList notes;
};

class Chaos
{
public:
    Chaos(int trials, quint64 seed, int resync, QString workDir)
        : m_trials(trials)
        , m_rng(seed)
        , m_seed(seed)
        , m_resync(resync)
        , m_dir(std::move(workDir))
    {}

    bool setUp(QString *error);
    void run(const QStringList &faults, QMap<QString, Tally> &tallies);

private:
    Proc cli(const Bench &b, const QStringList &args, int timeoutMs = 180000) const
    {
        return runProcess(g_ctl, QStringList{QStringLiteral("--store"), b.url} + args, timeoutMs);
    }
    void startCli(QProcess &p, const Bench &b, const QStringList &args) const
    {
        p.start(g_ctl, QStringList{QStringLiteral("--store"), b.url} + args);
        p.waitForStarted(10000);
    }
    int ms(int from, int to) { return from + int(m_rng.bounded(quint32(to - from + 1))); }
    QString templateFile(int workers, const QString &policy = QStringLiteral("terminate-session"))
    {
        const QString name = QStringLiteral("chaos%1").arg(++m_launches);
        const QString file = QDir(m_dir).filePath(name + QStringLiteral(".yaml"));
        writeTextFile(file, clusterTemplate(name, workers, policy));
        return file;
    }
    QString randomHost()
    {
        return m_lab.names().at(int(m_rng.bounded(quint32(m_lab.names().size()))));
    }

    std::unique_ptr<Bench> makeBench(const QString &name, const QString &url, bool proxied,
                                     QString *error);
    void tearDown(Bench &b, Tally &tally);
    Check check(const Bench &b) const;
    Check settle(Bench &b, const QString &fault);
    void cleanSessions(Bench &b);
    // Waits for a command; one that does not end within `limitMs` breaks "time is bounded".
    Proc finishBounded(QProcess &p, int limitMs, const QString &what, QStringList *problems);

    // One trial of each fault; problems found while it ran go to `problems`.
    void kill9Command(Bench &b, const QString &command, QStringList *problems);
    void kill9Controller(Bench &b, QStringList *problems);
    void sigstopHost(Bench &b, QStringList *problems);
    void netem(Bench &b, QStringList *problems);
    void etcdLeader(Bench &b, QStringList *problems);
    void sqliteFull(Bench &b, QStringList *problems);
    void sigstopLeader(Bench &b, QStringList *problems);
    void hostRestart(Bench &b, QStringList *problems);
    void consoleAndCli(Bench &b, QStringList *problems);
    // `launch --json` of 1+`workers` kernels with the restart-session policy; {} if it failed.
    QJsonObject launchRestarting(const Bench &b, int workers, QStringList *problems);
    QJsonObject randomKernel(const QJsonObject &launched);
    // Polls the store until session `id` is `status` (true) or `limitMs` passed (false).
    bool waitForStatus(const Bench &b, const QString &id, SessionStatus status, int limitMs) const;

    const int m_trials;
    QRandomGenerator m_rng;
    const quint64 m_seed;
    const int m_resync;
    const QString m_dir;
    LabHosts m_lab;
    int m_launches = 0;
    std::map<QString, std::unique_ptr<DelayProxy>> m_proxies; // host → proxy (netem)
};

bool Chaos::setUp(QString *error)
{
    m_lab = LabHosts::fromEnvironment();
    if (m_lab.names().size() < 3) {
        *error = LabHosts::error() + QStringLiteral(" (the suite needs 3 hosts)");
        return false;
    }
    for (const QString &h : m_lab.names()) {
        auto proxy = std::make_unique<DelayProxy>(m_lab.address(h), 2376);
        if (!proxy->start(error))
            return false;
        m_proxies[h] = std::move(proxy);
    }
    return true;
}

std::unique_ptr<Bench> Chaos::makeBench(const QString &name, const QString &url, bool proxied,
                                        QString *error)
{
    auto b = std::make_unique<Bench>();
    b->name = name;
    b->url = url;
    auto store = openStore(url);
    if (!store) {
        *error = store.error().toString();
        return nullptr;
    }
    b->store = std::move(*store);
    for (const QString &h : m_lab.names()) {
        QStringList add{QStringLiteral("host"), QStringLiteral("add"), h,
                        QStringLiteral("--address"), m_lab.address(h)};
        if (proxied)
            add << QStringLiteral("--docker")
                << QStringLiteral("tcp+tls://127.0.0.1:%1").arg(m_proxies.at(h)->port())
                << QStringLiteral("--tls-ca") << qEnvironmentVariable("CLUSTERDECK_LAB_TLS_CA")
                << QStringLiteral("--tls-cert") << qEnvironmentVariable("CLUSTERDECK_LAB_TLS_CERT")
                << QStringLiteral("--tls-key") << qEnvironmentVariable("CLUSTERDECK_LAB_TLS_KEY");
        else
            add << QStringLiteral("--docker") << m_lab.unixEndpoint(h);
        const Proc p = cli(*b, add);
        if (p.exitCode != 0) {
            *error = QStringLiteral("host add %1: %2").arg(h, QString::fromUtf8(p.err));
            return nullptr;
        }
        auto endpoint = Docker::DockerEndpoint::parse(m_lab.unixEndpoint(h));
        if (!endpoint) {
            *error = endpoint.error().toString();
            return nullptr;
        }
        b->docker.insert(h, std::make_shared<Docker::DockerClient>(*endpoint, h));
    }
    if (!g_driver.isEmpty()) {
        const Proc p = cli(*b, {QStringLiteral("network"), QStringLiteral("setup"),
                                QStringLiteral("--driver"), g_driver});
        if (p.exitCode != 0) {
            *error = QStringLiteral("network setup --driver %1: %2")
                         .arg(g_driver, QString::fromUtf8(p.err));
            return nullptr;
        }
    }
    b->controller = std::make_unique<Controller>(
        url, QDir(m_dir).filePath(name + QStringLiteral("-controller.log")), m_resync);
    if (!b->controller->start()) {
        *error = QStringLiteral("the controller did not start");
        return nullptr;
    }
    return b;
}

Check Chaos::check(const Bench &b) const
{
    Check c;
    const QString storeLabel = QStringLiteral("io.clusterdeck.store=") + b.store->storeId();
    auto sessions = b.store->sessions();
    auto kernels = b.store->allKernels();
    if (!sessions || !kernels) {
        c.violations.append(
            QStringLiteral("the store cannot be read: %1")
                .arg(!sessions ? sessions.error().toString() : kernels.error().toString()));
        return c;
    }
    QHash<QString, SessionRecord> byId;
    for (const SessionRecord &s : std::as_const(*sessions))
        byId.insert(s.id, s);
    QHash<QString, QList<KernelRecord>> kernelsOf;
    for (const KernelRecord &k : std::as_const(*kernels))
        kernelsOf[k.sessionId].append(k);

    // What the hosts hold of this store.
    QHash<QString, QList<Docker::ContainerSummary>> containers;
    for (auto it = b.docker.cbegin(); it != b.docker.cend(); ++it) {
        Docker::CallOptions call;
        call.timeout = 20s;
        Docker::ContainerListOptions list;
        list.all = true;
        list.labels = {storeLabel};
        auto listed = it.value()->listContainers(list, call);
        auto networks = it.value()->listNetworks({storeLabel}, call);
        if (!listed || !networks) {
            c.violations.append(QStringLiteral("host %1 does not answer the check").arg(it.key()));
            continue;
        }
        containers.insert(it.key(), *listed);
        for (const Docker::ContainerSummary &ct : std::as_const(*listed)) {
            const QString sid = ct.labels.value(QStringLiteral("io.clusterdeck.session"));
            const SessionRecord s = byId.value(sid);
            if (s.id.isEmpty())
                c.leftovers.append(
                    QStringLiteral("container %1 on %2: session unknown to the store")
                        .arg(ct.names.value(0), it.key()));
            else if (s.desired == DesiredState::Terminated)
                c.leftovers.append(
                    QStringLiteral("container %1 on %2: session %3 is %4, desired "
                                   "TERMINATED")
                        .arg(ct.names.value(0), it.key(), s.name, toString(s.status)));
        }
        for (const Docker::NetworkInfo &n : std::as_const(*networks)) {
            const QString sid = n.labels.value(QStringLiteral("io.clusterdeck.session"));
            const SessionRecord s = byId.value(sid);
            if (s.id.isEmpty() || s.desired == DesiredState::Terminated)
                c.leftovers.append(QStringLiteral("network %1 on %2: session %3")
                                       .arg(n.name, it.key(),
                                            s.id.isEmpty() ? QStringLiteral("unknown") : s.name));
        }
        // VXLAN devices live in the host's namespace, not in Docker: each names its store and
        // session in its alias.
        QProcess ip;
        ip.start(QStringLiteral("ip"),
                 {QStringLiteral("-n"), LabHosts::netns(it.key()), QStringLiteral("-o"),
                  QStringLiteral("-d"), QStringLiteral("link"), QStringLiteral("show"),
                  QStringLiteral("type"), QStringLiteral("vxlan")});
        if (!ip.waitForFinished(10000) || ip.exitCode() != 0) {
            c.violations.append(
                QStringLiteral("the VXLAN devices of host %1 cannot be listed").arg(it.key()));
            continue;
        }
        const QByteArray mine = "io.clusterdeck.store=" + b.store->storeId().toUtf8();
        for (const QByteArray &line : ip.readAllStandardOutput().split('\n')) {
            if (!line.contains(mine))
                continue;
            const qsizetype at = line.indexOf("io.clusterdeck.session=");
            QString sid;
            for (const char ch : at < 0 ? QByteArray() : line.mid(at + 23)) {
                if (!std::isxdigit(static_cast<unsigned char>(ch)) && ch != '-')
                    break; // the id ends at a blank or at ip's line joint
                sid += QLatin1Char(ch);
            }
            const SessionRecord s = byId.value(sid);
            if (s.id.isEmpty() || s.desired == DesiredState::Terminated)
                c.leftovers.append(
                    QStringLiteral("VXLAN device %1 on %2: session %3")
                        .arg(QString::fromUtf8(line.simplified().split(' ').value(1)), it.key(),
                             s.id.isEmpty() ? QStringLiteral("unknown") : s.name));
        }
    }

    for (const SessionRecord &s : std::as_const(*sessions)) {
        switch (s.status) {
        case SessionStatus::Pending:
        case SessionStatus::Provisioning:
        case SessionStatus::Restarting:
        case SessionStatus::Terminating:
            c.violations.append(
                QStringLiteral("session %1 is still %2").arg(s.name, toString(s.status)));
            continue;
        default:
            break;
        }
        for (const KernelRecord &k : kernelsOf.value(s.id)) {
            if (isFinal(s.status) && !isFinal(k.status))
                c.violations.append(
                    QStringLiteral("session %1 is %2 but kernel %3 is %4")
                        .arg(s.name, toString(s.status), k.hostname, toString(k.status)));
        }
        if (s.status != SessionStatus::Running)
            continue;
        // No kernel of a RUNNING session missing, each where the store says.
        for (const KernelRecord &k : kernelsOf.value(s.id)) {
            bool found = false;
            for (const Docker::ContainerSummary &ct : containers.value(k.host)) {
                found =
                    found || (ct.labels.value(QStringLiteral("io.clusterdeck.kernel")) == k.id &&
                              ct.state == ContainerStatus::Running &&
                              (k.containerId.isEmpty() || ct.id == k.containerId));
            }
            if (k.status != KernelStatus::Running || !found)
                c.violations.append(
                    QStringLiteral("RUNNING session %1: kernel %2 is %3 in the "
                                   "store%4")
                        .arg(s.name, k.hostname, toString(k.status),
                             found ? QString()
                                   : QStringLiteral(", and not running on %1").arg(k.host)));
        }
    }
    return c;
}

Check Chaos::settle(Bench &b, const QString &fault)
{
    // The next reconcile, then at most two resync periods for the controller to converge.
    if (!b.controller->running())
        b.controller->start();
    QElapsedTimer t;
    t.start();
    cli(b, {QStringLiteral("reconcile"), QStringLiteral("--timeout"), QStringLiteral("60")}, 90000);
    Check c = check(b);
    while (!c.clean() && t.elapsed() < 2 * m_resync * 1000) {
        QThread::msleep(1000);
        c = check(b);
    }
    if (!c.clean()) {
        say(QStringLiteral("  [%1] not converged %2 s after the fault:")
                .arg(fault)
                .arg(t.elapsed() / 1000));
        for (const QString &v : std::as_const(c.violations))
            say(QStringLiteral("    violation: ") + v);
        for (const QString &l : std::as_const(c.leftovers))
            say(QStringLiteral("    leftover: ") + l);
    }
    return c;
}

void Chaos::cleanSessions(Bench &b)
{
    auto sessions = b.store->sessions();
    if (!sessions)
        return;
    for (const SessionRecord &s : std::as_const(*sessions)) {
        if (s.desired == DesiredState::Running)
            cli(b, {QStringLiteral("rm"), s.id}, 120000);
    }
}

Proc Chaos::finishBounded(QProcess &p, int limitMs, const QString &what, QStringList *problems)
{
    Proc r = finishProcess(p, limitMs);
    if (r.err == "timed out")
        problems->append(
            QStringLiteral("%1 did not end within %2 s").arg(what).arg(limitMs / 1000));
    return r;
}

void Chaos::kill9Command(Bench &b, const QString &command, QStringList *problems)
{
    QString id;
    if (command != u"launch") {
        const Proc launched =
            cli(b, {QStringLiteral("launch"), templateFile(3), QStringLiteral("--settle"),
                    QStringLiteral("0.5"), QStringLiteral("--json")});
        id = QJsonDocument::fromJson(launched.out).object().value(QStringLiteral("id")).toString();
        if (launched.exitCode != 0 || id.isEmpty()) {
            problems->append(QStringLiteral("setup launch failed: ") +
                             QString::fromUtf8(launched.err).trimmed());
            return;
        }
    }
    QProcess p;
    const int at = command == u"launch" ? ms(200, 6000) : ms(0, 2500);
    if (command == u"launch")
        startCli(p, b,
                 {QStringLiteral("launch"), templateFile(ms(2, 6)), QStringLiteral("--settle"),
                  QStringLiteral("0.5")});
    else
        startCli(p, b, {command, id});
    QThread::msleep(at);
    const bool alive = p.state() == QProcess::Running;
    if (alive)
        ::kill(pid_t(p.processId()), SIGKILL);
    p.waitForFinished(10000);
    say(QStringLiteral("  kill -9 of %1 at %2 ms%3")
            .arg(command)
            .arg(at)
            .arg(alive ? QString() : QStringLiteral(" (it had ended already)")));
}

void Chaos::kill9Controller(Bench &b, QStringList *problems)
{
    // A kernel dies and the controller applies the session's policy; it is killed at a random
    // moment of that, and a new one takes over.
    const QJsonObject s = launchRestarting(b, 3, problems);
    if (s.isEmpty())
        return;
    const QJsonObject victim = randomKernel(s);
    QThread::msleep(500);
    m_lab.docker(
        victim.value(QStringLiteral("host")).toString(),
        {QStringLiteral("kill"), victim.value(QStringLiteral("container_name")).toString()});
    const int at = ms(0, 4000);
    QThread::msleep(at);
    b.controller->kill9();
    say(QStringLiteral("  docker kill %1, kill -9 of the controller %2 ms later")
            .arg(victim.value(QStringLiteral("hostname")).toString())
            .arg(at));
    b.controller->start();
}

void Chaos::sigstopHost(Bench &b, QStringList *problems)
{
    const QString host = randomHost();
    const pid_t pid = dockerdPid(host);
    QProcess p;
    QElapsedTimer t;
    t.start();
    startCli(p, b,
             {QStringLiteral("launch"), templateFile(ms(3, 8)), QStringLiteral("--settle"),
              QStringLiteral("0.5")});
    const int at = ms(300, 4000);
    QThread::msleep(at);
    ::kill(pid, SIGSTOP);
    const int hold = ms(3000, 15000);
    QThread::msleep(hold);
    ::kill(pid, SIGCONT);
    const Proc r = finishBounded(p, 120000, QStringLiteral("the launch"), problems);
    say(QStringLiteral("  SIGSTOP %1 at %2 ms for %3 ms: launch %4 after %5 s%6")
            .arg(host)
            .arg(at)
            .arg(hold)
            .arg(r.exitCode == 0 ? QStringLiteral("ran") : QStringLiteral("failed"))
            .arg(double(t.elapsed()) / 1000.0, 0, 'f', 1)
            .arg(r.exitCode == 0 ? QString() : QStringLiteral(": ") + lastLine(r.err)));
}

void Chaos::netem(Bench &b, QStringList *problems)
{
    // 200 ms more round trip on the API (the proxy, 100 ms each way) and 5 % packet loss on the
    // host's link (iptables statistic in its namespace) during a launch.
    const QString host = randomHost();
    const QString ns = labNamespace(host);
    const QStringList rule{
        QStringLiteral("-m"),     QStringLiteral("statistic"),     QStringLiteral("--mode"),
        QStringLiteral("random"), QStringLiteral("--probability"), QStringLiteral("0.05"),
        QStringLiteral("-j"),     QStringLiteral("DROP")};
    auto iptables = [&](const QString &op, const QString &chain, const QString &dir) {
        return runProcess(QStringLiteral("ip"),
                          QStringList{QStringLiteral("netns"), QStringLiteral("exec"), ns,
                                      QStringLiteral("iptables"), op, chain, dir,
                                      QStringLiteral("eth0")} +
                              rule,
                          20000);
    };
    if (iptables(QStringLiteral("-I"), QStringLiteral("INPUT"), QStringLiteral("-i")).exitCode !=
            0 ||
        iptables(QStringLiteral("-I"), QStringLiteral("OUTPUT"), QStringLiteral("-o")).exitCode !=
            0)
        problems->append(QStringLiteral("could not add the packet loss on %1").arg(host));
    m_proxies.at(host)->setDelay(100ms);
    QElapsedTimer t;
    t.start();
    QProcess p;
    startCli(p, b,
             {QStringLiteral("launch"), templateFile(ms(3, 6)), QStringLiteral("--settle"),
              QStringLiteral("0.5")});
    const Proc r = finishBounded(p, 180000, QStringLiteral("the launch"), problems);
    m_proxies.at(host)->setDelay(0ms);
    iptables(QStringLiteral("-D"), QStringLiteral("INPUT"), QStringLiteral("-i"));
    iptables(QStringLiteral("-D"), QStringLiteral("OUTPUT"), QStringLiteral("-o"));
    say(QStringLiteral("  slow lossy link on %1: launch %2 after %3 s%4")
            .arg(host)
            .arg(r.exitCode == 0 ? QStringLiteral("ran") : QStringLiteral("failed"))
            .arg(double(t.elapsed()) / 1000.0, 0, 'f', 1)
            .arg(r.exitCode == 0 ? QString() : QStringLiteral(": ") + lastLine(r.err)));
}

void Chaos::etcdLeader(Bench &b, QStringList *problems)
{
    QElapsedTimer t;
    t.start();
    QProcess p;
    startCli(p, b,
             {QStringLiteral("launch"), templateFile(ms(3, 6)), QStringLiteral("--settle"),
              QStringLiteral("0.5")});
    const int at = ms(200, 4000);
    QThread::msleep(at);
    const QString leader =
        QString::fromUtf8(lab({QStringLiteral("etcd-member"), QStringLiteral("leader")}).out)
            .trimmed();
    lab({QStringLiteral("etcd-member"), QStringLiteral("kill"), leader});
    const Proc r = finishBounded(p, 180000, QStringLiteral("the launch"), problems);
    const Proc started = lab({QStringLiteral("etcd-member"), QStringLiteral("start"), leader});
    if (started.exitCode != 0)
        problems->append(QStringLiteral("etcd member %1 did not start again").arg(leader));
    say(QStringLiteral("  etcd leader (member %1) killed at %2 ms: launch %3 after %4 s%5")
            .arg(leader)
            .arg(at)
            .arg(r.exitCode == 0 ? QStringLiteral("ran") : QStringLiteral("failed"))
            .arg(double(t.elapsed()) / 1000.0, 0, 'f', 1)
            .arg(r.exitCode == 0 ? QString() : QStringLiteral(": ") + lastLine(r.err)));
}

void Chaos::sqliteFull(Bench &b, QStringList *problems)
{
    // The tmpfs that holds the store fills up at a random moment of a launch.
    const QString filler = QDir(b.mountPoint).filePath(QStringLiteral("filler"));
    QProcess p;
    QElapsedTimer t;
    t.start();
    startCli(p, b,
             {QStringLiteral("launch"), templateFile(ms(2, 5)), QStringLiteral("--settle"),
              QStringLiteral("0.5")});
    const int at = ms(0, 3000);
    QThread::msleep(at);
    runProcess(
        QStringLiteral("dd"),
        {QStringLiteral("if=/dev/zero"), QStringLiteral("of=") + filler, QStringLiteral("bs=64k")},
        30000);
    const int hold = ms(1000, 5000);
    QThread::msleep(hold);
    const Proc r = finishBounded(p, 120000, QStringLiteral("the launch"), problems);
    QFile::remove(filler);
    say(QStringLiteral("  store's disk full at %1 ms (for %2 ms+): launch %3 after %4 s%5")
            .arg(at)
            .arg(hold)
            .arg(r.exitCode == 0 ? QStringLiteral("ran") : QStringLiteral("failed"))
            .arg(double(t.elapsed()) / 1000.0, 0, 'f', 1)
            .arg(r.exitCode == 0 ? QString() : QStringLiteral(": ") + lastLine(r.err)));
}

void Chaos::tearDown(Bench &b, Tally &tally)
{
    cleanSessions(b);
    const Check c = settle(b, b.name + QStringLiteral(" teardown"));
    for (const QString &l : std::as_const(c.leftovers))
        tally.leftoverObjects.insert(l);
    tally.leftovers = int(tally.leftoverObjects.size());
    b.controller->stop();
    b.store.reset();
    if (!b.mountPoint.isEmpty())
        ::umount2(b.mountPoint.toLocal8Bit().constData(), MNT_DETACH);
}

QJsonObject Chaos::launchRestarting(const Bench &b, int workers, QStringList *problems)
{
    const Proc launched =
        cli(b, {QStringLiteral("launch"), templateFile(workers, QStringLiteral("restart-session")),
                QStringLiteral("--settle"), QStringLiteral("0.5"), QStringLiteral("--json")});
    const QJsonObject s = QJsonDocument::fromJson(launched.out).object();
    if (launched.exitCode != 0 || s.value(QStringLiteral("id")).toString().isEmpty()) {
        problems->append(QStringLiteral("setup launch failed: ") + lastLine(launched.err));
        return {};
    }
    return s;
}

QJsonObject Chaos::randomKernel(const QJsonObject &launched)
{
    const QJsonArray kernels = launched.value(QStringLiteral("kernels")).toArray();
    return kernels.at(int(m_rng.bounded(quint32(kernels.size())))).toObject();
}

bool Chaos::waitForStatus(const Bench &b, const QString &id, SessionStatus status,
                          int limitMs) const
{
    QElapsedTimer t;
    t.start();
    for (;;) {
        const auto s = b.store->session(id);
        if (s && s->status == status)
            return true;
        if (t.elapsed() > limitMs)
            return false;
        QThread::msleep(50);
    }
}

// Issue 24 D.1: the leader is frozen (SIGSTOP) in the middle of a whole-session restart; a standby
// takes over and finishes it; the old leader, resumed, must touch nothing: 8 s later every kernel
// still runs in the container the new leader gave it.
void Chaos::sigstopLeader(Bench &b, QStringList *problems)
{
    Controller standby(b.url, QDir(m_dir).filePath(b.name + QStringLiteral("-standby.log")),
                       m_resync);
    if (!standby.start()) {
        problems->append(QStringLiteral("the standby controller did not start"));
        return;
    }
    const QJsonObject s = launchRestarting(b, 3, problems);
    const QString id = s.value(QStringLiteral("id")).toString();
    if (id.isEmpty())
        return;
    const QJsonObject victim = randomKernel(s);
    m_lab.docker(
        victim.value(QStringLiteral("host")).toString(),
        {QStringLiteral("kill"), victim.value(QStringLiteral("container_name")).toString()});
    if (!waitForStatus(b, id, SessionStatus::Restarting, 15000)) {
        problems->append(QStringLiteral("the policy did not start a restart within 15 s"));
        return;
    }
    const int at = ms(0, 1500);
    QThread::msleep(at);
    const auto leader = b.store->leader();
    const qint64 pid = leader && *leader ? (*leader)->pid : 0;
    if (pid != b.controller->pid() && pid != standby.pid()) {
        problems->append(QStringLiteral("the leader (pid %1) is neither controller").arg(pid));
        return;
    }
    ::kill(pid_t(pid), SIGSTOP);
    const bool finished = waitForStatus(b, id, SessionStatus::Running, 90000);
    auto byNewLeader = b.store->kernels(id);
    ::kill(pid_t(pid), SIGCONT);
    say(QStringLiteral("  docker kill %1, SIGSTOP of the leader (pid %2) %3 ms into the restart; "
                       "the standby %4")
            .arg(victim.value(QStringLiteral("hostname")).toString())
            .arg(pid)
            .arg(at)
            .arg(finished ? QStringLiteral("finished it") : QStringLiteral("did not finish it")));
    if (!finished || !byNewLeader) {
        problems->append(QStringLiteral("the standby did not finish the restart within 90 s"));
        return;
    }
    QThread::msleep(8000); // the old leader runs again
    auto now = b.store->kernels(id);
    if (!now) {
        problems->append(now.error().toString());
        return;
    }
    for (const KernelRecord &k : std::as_const(*byNewLeader)) {
        Docker::CallOptions call;
        call.timeout = 20s;
        const auto info = b.docker.value(k.host)->inspectContainer(k.containerId, call);
        if (!info || !info->state.running)
            problems->append(QStringLiteral("the resumed old leader left %1 without its container "
                                            "%2 (%3)")
                                 .arg(k.hostname, k.containerId.left(12),
                                      info ? QStringLiteral("not running") : info.error().message));
        const auto same = std::find_if(now->cbegin(), now->cend(),
                                       [&](const KernelRecord &n) { return n.id == k.id; });
        if (same == now->cend() || same->containerId != k.containerId)
            problems->append(QStringLiteral("%1 changed container after the old leader resumed")
                                 .arg(k.hostname));
    }
    standby.stop();
}

// Issue 24 B: a host's dockerd stopped and started again (its containers die with it) under a
// running session whose policy restarts it: RUNNING again within 90 s of the daemon's start.
void Chaos::hostRestart(Bench &b, QStringList *problems)
{
    const QJsonObject s = launchRestarting(b, ms(3, 6), problems);
    const QString id = s.value(QStringLiteral("id")).toString();
    if (id.isEmpty())
        return;
    const QString host = randomKernel(s).value(QStringLiteral("host")).toString();
    const Proc stopped = lab({QStringLiteral("dockerd"), QStringLiteral("stop"), host.mid(1)});
    if (stopped.exitCode != 0) {
        problems->append(
            QStringLiteral("lab.sh dockerd stop %1: %2").arg(host, lastLine(stopped.err)));
        return;
    }
    const int hold = ms(2000, 12000);
    QThread::msleep(hold);
    const Proc started = lab({QStringLiteral("dockerd"), QStringLiteral("start"), host.mid(1)});
    if (started.exitCode != 0) {
        problems->append(
            QStringLiteral("lab.sh dockerd start %1: %2").arg(host, lastLine(started.err)));
        return;
    }
    QElapsedTimer t;
    t.start();
    // The session leaves RUNNING (the policy restarts it, waiting for the host) and comes back.
    bool left = false;
    while (!left && t.elapsed() < 30000) {
        const auto now = b.store->session(id);
        left = now && now->status != SessionStatus::Running;
        if (!left)
            QThread::msleep(50);
    }
    const bool running = left && waitForStatus(b, id, SessionStatus::Running, 90000);
    say(QStringLiteral("  dockerd of %1 stopped for %2 ms: session %3 after %4 s")
            .arg(host)
            .arg(hold)
            .arg(running ? QStringLiteral("RUNNING again") : QStringLiteral("not RUNNING"))
            .arg(double(t.elapsed()) / 1000.0, 0, 'f', 1));
    if (!running)
        problems->append(QStringLiteral("session not RUNNING within 90 s of %1's start").arg(host));
}

// Issue 24 A: an offscreen console leads the SQLite store while CLI processes launch, show, kill
// and remove sessions on it; the console's own writes (the policy restart of a killed kernel)
// must be seen by other processes, and the file must stay whole. The trial's check (settle) reads
// the store from this process, not the console's.
void Chaos::consoleAndCli(Bench &b, QStringList *problems)
{
    b.controller->stop();
    QProcess console;
    console.setStandardOutputFile(QDir(m_dir).filePath(QStringLiteral("console.log")),
                                  QIODevice::Append);
    console.setStandardErrorFile(QDir(m_dir).filePath(QStringLiteral("console.log")),
                                 QIODevice::Append);
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("QT_QPA_PLATFORM"), QStringLiteral("offscreen"));
    console.setProcessEnvironment(env);
    console.start(QStringLiteral(CLUSTERDECK_GUI), {QStringLiteral("--store"), b.url});
    // Without an event loop the state leaves Starting only here.
    if (!console.waitForStarted(10000)) {
        problems->append(QStringLiteral("the console did not start: ") + console.errorString());
        b.controller->start();
        return;
    }
    auto closeConsole = qScopeGuard([&] {
        if (console.state() == QProcess::Running) {
            ::kill(pid_t(console.processId()), SIGTERM);
            if (!console.waitForFinished(20000)) {
                console.kill();
                console.waitForFinished();
            }
        }
        b.controller->start();
    });
    QElapsedTimer t;
    t.start();
    bool leads = false;
    while (!leads && t.elapsed() < 30000) {
        const auto leader = b.store->leader();
        leads = leader && *leader && (*leader)->pid == console.processId();
        if (!leads)
            QThread::msleep(100);
    }
    if (!leads) {
        problems->append(QStringLiteral("the console did not lead within 30 s"));
        return;
    }
    // Two launches at once, `show` beside them, then a kernel killed and a session removed.
    QProcess first, second;
    startCli(first, b,
             {QStringLiteral("launch"), templateFile(ms(2, 4), QStringLiteral("restart-session")),
              QStringLiteral("--settle"), QStringLiteral("0.5"), QStringLiteral("--json")});
    startCli(second, b,
             {QStringLiteral("launch"), templateFile(ms(2, 4)), QStringLiteral("--settle"),
              QStringLiteral("0.5"), QStringLiteral("--json")});
    for (int i = 0; i < 5; ++i)
        cli(b, {QStringLiteral("ls")});
    const Proc one = finishBounded(first, 120000, QStringLiteral("the first launch"), problems);
    const Proc two = finishBounded(second, 120000, QStringLiteral("the second launch"), problems);
    const QJsonObject kept = QJsonDocument::fromJson(one.out).object();
    const QString keptId = kept.value(QStringLiteral("id")).toString();
    const QString removedId =
        QJsonDocument::fromJson(two.out).object().value(QStringLiteral("id")).toString();
    if (one.exitCode != 0 || two.exitCode != 0 || keptId.isEmpty() || removedId.isEmpty()) {
        problems->append(QStringLiteral("a launch failed: ") + lastLine(one.err + two.err));
        return;
    }
    const QJsonObject victim = randomKernel(kept);
    const QString before = victim.value(QStringLiteral("container_id")).toString();
    m_lab.docker(
        victim.value(QStringLiteral("host")).toString(),
        {QStringLiteral("kill"), victim.value(QStringLiteral("container_name")).toString()});
    const Proc removed = cli(b, {QStringLiteral("rm"), removedId});
    if (removed.exitCode != 0)
        problems->append(QStringLiteral("rm failed: ") + lastLine(removed.err));
    // The console restarts the session; `show` (another process) sees the new container.
    t.restart();
    QString after;
    while (t.elapsed() < 90000) {
        const Proc shown = cli(b, {QStringLiteral("show"), keptId, QStringLiteral("--json")});
        const QJsonObject o = QJsonDocument::fromJson(shown.out).object();
        if (o.value(QStringLiteral("status")).toString() == u"RUNNING") {
            for (const QJsonValue &k : o.value(QStringLiteral("kernels")).toArray()) {
                if (k.toObject().value(QStringLiteral("hostname")) ==
                    victim.value(QStringLiteral("hostname")))
                    after = k.toObject().value(QStringLiteral("container_id")).toString();
            }
            if (!after.isEmpty() && after != before)
                break;
        }
        QThread::msleep(500);
    }
    say(QStringLiteral("  console leads; two launches, docker kill %1, rm: another process sees "
                       "%2")
            .arg(victim.value(QStringLiteral("hostname")).toString(),
                 after.isEmpty() || after == before ? QStringLiteral("no new container")
                                                    : QStringLiteral("its new container")));
    if (after.isEmpty() || after == before)
        problems->append(QStringLiteral("the console's restart is not seen by another process "
                                        "within 90 s"));
    // The file itself, read by this process while the console holds it open.
    const QString path = b.url.mid(int(qstrlen("sqlite://")));
    sqlite3 *db = nullptr;
    QString integrity;
    if (sqlite3_open_v2(path.toUtf8().constData(), &db, SQLITE_OPEN_READONLY, nullptr) ==
        SQLITE_OK) {
        sqlite3_stmt *st = nullptr;
        if (sqlite3_prepare_v2(db, "PRAGMA integrity_check", -1, &st, nullptr) == SQLITE_OK &&
            sqlite3_step(st) == SQLITE_ROW)
            integrity =
                QString::fromUtf8(reinterpret_cast<const char *>(sqlite3_column_text(st, 0)));
        sqlite3_finalize(st);
    }
    sqlite3_close(db);
    if (integrity != u"ok")
        problems->append(QStringLiteral("PRAGMA integrity_check: %1").arg(integrity));
}

void Chaos::run(const QStringList &faults, QMap<QString, Tally> &tallies)
{
    say(QStringLiteral("chaos: %1 trial(s) per fault, seed %2, controller resync %3 s, work in %4")
            .arg(m_trials)
            .arg(m_seed)
            .arg(m_resync)
            .arg(m_dir));
    const QString tag = QUuid::createUuid().toString(QUuid::Id128).left(8);
    for (const QString &fault : faults) {
        Tally &tally = tallies[fault];
        QString error;
        QString url;
        QString mountPoint;
        bool proxied = fault == u"netem";
        if (fault == u"etcd-leader" || fault == u"sigstop-leader") {
            QString members = qEnvironmentVariable("CLUSTERDECK_LAB_ETCD_MEMBERS");
            QStringList authorities;
            for (const QString &m : members.split(QLatin1Char(','), Qt::SkipEmptyParts))
                authorities.append(QUrl(m).authority());
            url = QStringLiteral("etcd://%1/cdchaos/%2-%3")
                      .arg(authorities.join(QLatin1Char(',')), tag, fault);
        } else if (fault == u"sqlite-full") {
            mountPoint = QDir(m_dir).filePath(QStringLiteral("full"));
            QDir().mkpath(mountPoint);
            if (::mount("tmpfs", mountPoint.toLocal8Bit().constData(), "tmpfs", 0, "size=8m") !=
                0) {
                tally.notes.append(QStringLiteral("cannot mount a tmpfs (root needed)"));
                ++tally.violations;
                continue;
            }
            url =
                QStringLiteral("sqlite://") + QDir(mountPoint).filePath(QStringLiteral("state.db"));
        } else {
            url = QStringLiteral("sqlite://") + QDir(m_dir).filePath(fault + QStringLiteral(".db"));
        }
        say(QStringLiteral("== %1 (%2)").arg(fault, url));
        auto bench = makeBench(fault, url, proxied, &error);
        if (!bench) {
            say(QStringLiteral("  cannot set up: ") + error);
            tally.notes.append(error);
            ++tally.violations;
            continue;
        }
        bench->mountPoint = mountPoint;
        for (int i = 0; i < m_trials; ++i) {
            ++tally.trials;
            say(QStringLiteral("- %1 trial %2/%3").arg(fault).arg(i + 1).arg(m_trials));
            QStringList problems;
            if (fault.startsWith(u"kill9-") && fault != u"kill9-controller")
                kill9Command(*bench, fault.mid(6), &problems);
            else if (fault == u"kill9-controller")
                kill9Controller(*bench, &problems);
            else if (fault == u"sigstop-host")
                sigstopHost(*bench, &problems);
            else if (fault == u"netem")
                netem(*bench, &problems);
            else if (fault == u"etcd-leader")
                etcdLeader(*bench, &problems);
            else if (fault == u"sqlite-full")
                sqliteFull(*bench, &problems);
            else if (fault == u"sigstop-leader")
                sigstopLeader(*bench, &problems);
            else if (fault == u"host-restart")
                hostRestart(*bench, &problems);
            else if (fault == u"console-and-cli")
                consoleAndCli(*bench, &problems);
            const Check c = settle(*bench, fault);
            for (const QString &p : std::as_const(problems))
                say(QStringLiteral("    problem: ") + p);
            if (!c.violations.isEmpty() || !problems.isEmpty())
                ++tally.violations;
            for (const QString &l : std::as_const(c.leftovers))
                tally.leftoverObjects.insert(l);
            tally.leftovers = int(tally.leftoverObjects.size());
            // Sessions that run are removed between trials, so each trial starts from a clean lab.
            cleanSessions(*bench);
        }
        tearDown(*bench, tally);
        say(QStringLiteral("== %1 done: %2 trials, %3 with violations, %4 leftovers")
                .arg(fault)
                .arg(tally.trials)
                .arg(tally.violations)
                .arg(tally.leftovers));
    }
}

int printTable(const QStringList &faults, const QMap<QString, Tally> &tallies)
{
    out() << "\n";
    QList<QStringList> rows{{QStringLiteral("fault"), QStringLiteral("trials"),
                             QStringLiteral("invariant violations"), QStringLiteral("leftovers")}};
    int bad = 0;
    for (const QString &fault : faults) {
        const Tally &t = tallies.value(fault);
        rows.append({fault, QString::number(t.trials), QString::number(t.violations),
                     QString::number(t.leftovers)});
        bad += t.violations + t.leftovers;
        for (const QString &n : t.notes)
            out() << fault << ": " << n << "\n";
    }
    QList<int> widths(4, 0);
    for (const QStringList &r : rows)
        for (int i = 0; i < 4; ++i)
            widths[i] = std::max(widths[i], int(r.at(i).size()));
    for (const QStringList &r : rows) {
        QString line;
        for (int i = 0; i < 4; ++i)
            line +=
                (i == 0 ? r.at(i).leftJustified(widths[i]) : r.at(i).rightJustified(widths[i])) +
                QStringLiteral("  ");
        out() << line.trimmed() << "\n";
    }
    out() << (bad == 0 ? "chaos: all invariants held\n" : "chaos: FAILED\n");
    out().flush();
    return bad == 0 ? 0 : 1;
}

} // namespace

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral("ClusterDeck chaos suite against the lab"));
    parser.addHelpOption();
    QCommandLineOption trials(QStringLiteral("trials"), QStringLiteral("trials per fault"),
                              QStringLiteral("N"), QStringLiteral("3"));
    QCommandLineOption killTrials(QStringLiteral("kill-trials"),
                                  QStringLiteral("trials per kill -9 fault (default: --trials)"),
                                  QStringLiteral("N"));
    QCommandLineOption faults(QStringLiteral("faults"),
                              QStringLiteral("comma-separated subset of: ") +
                                  kFaults.join(QLatin1Char(',')),
                              QStringLiteral("LIST"));
    QCommandLineOption seed(QStringLiteral("seed"), QStringLiteral("random seed"),
                            QStringLiteral("N"));
    QCommandLineOption ctl(QStringLiteral("ctl"), QStringLiteral("the clusterdeckctl to drive"),
                           QStringLiteral("PATH"));
    QCommandLineOption resync(QStringLiteral("resync"), QStringLiteral("controller resync seconds"),
                              QStringLiteral("S"), QStringLiteral("10"));
    QCommandLineOption driver(QStringLiteral("driver"),
                              QStringLiteral("multi-node network driver of the stores: vxlan "
                                             "(every new store's) or swarm"),
                              QStringLiteral("NAME"));
    parser.addOptions({trials, killTrials, faults, seed, resync, ctl, driver});
    parser.process(app);
    if (parser.isSet(ctl))
        g_ctl = parser.value(ctl);
    if (parser.isSet(driver)) {
        g_driver = parser.value(driver);
        if (g_driver != QLatin1String("vxlan") && g_driver != QLatin1String("swarm")) {
            std::fprintf(stderr, "chaos: --driver is vxlan or swarm, not %s\n",
                         qPrintable(g_driver));
            return 2;
        }
    }
    // The table is the output; the libraries' chatter is not (QT_LOGGING_RULES overrides).
    ClusterDeck::Logging::apply(ClusterDeck::Logging::Level::Warnings);

    QStringList chosen = parser.isSet(faults)
                             ? parser.value(faults).split(QLatin1Char(','), Qt::SkipEmptyParts)
                             : kFaults;
    for (const QString &f : std::as_const(chosen)) {
        if (!kFaults.contains(f)) {
            std::fprintf(stderr, "chaos: unknown fault %s\n", qPrintable(f));
            return 2;
        }
    }
    const quint64 s = parser.isSet(seed) ? parser.value(seed).toULongLong()
                                         : quint64(QDateTime::currentMSecsSinceEpoch());
    QTemporaryDir dir(QDir::tempPath() + QStringLiteral("/cdchaos-XXXXXX"));
    dir.setAutoRemove(true);
    const int n = parser.value(trials).toInt();
    const int kills = parser.isSet(killTrials) ? parser.value(killTrials).toInt() : n;
    // kill -9 faults may run more trials than the others (the long run: ≥ 100 of them).
    QStringList killFaults, otherFaults;
    for (const QString &f : std::as_const(chosen))
        (f.startsWith(u"kill9-") ? killFaults : otherFaults).append(f);
    QMap<QString, Tally> tallies;
    {
        QString error;
        Chaos chaos(kills, s, parser.value(resync).toInt(), dir.path());
        if (!chaos.setUp(&error)) {
            std::fprintf(stderr, "chaos: error: %s\n", qPrintable(error));
            return 1;
        }
        if (!killFaults.isEmpty())
            chaos.run(killFaults, tallies);
    }
    if (!otherFaults.isEmpty()) {
        QString error;
        Chaos chaos(n, s + 1, parser.value(resync).toInt(), dir.path());
        if (!chaos.setUp(&error)) {
            std::fprintf(stderr, "chaos: error: %s\n", qPrintable(error));
            return 1;
        }
        chaos.run(otherFaults, tallies);
    }
    const int rc = printTable(chosen, tallies);
    // The controllers' logs explain a failed run; they stay for whoever looks into it.
    if (rc != 0) {
        dir.setAutoRemove(false);
        out() << "chaos: logs kept in " << dir.path() << "\n";
    }
    return rc;
}
