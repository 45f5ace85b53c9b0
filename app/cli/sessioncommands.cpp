#include "sessioncommands.h"

#include "args.h"
#include "columns.h"
#include "commandsupport.h"
#include "common/inerttext.h"
#include "docker/dockerclient.h"
#include "docker/dockereventstream.h"
#include "host/hostregistry.h"
#include "plan/launchvalues.h"
#include "provision/provisioner.h"
#include "common/labels.h"
#include "provision/sessioncontroller.h"
#include "provision/sessionjson.h"
#include "provision/sessionscaler.h"
#include "pullprogressprinter.h"
#include "store/statestore.h"
#include "template/templateloader.h"
#include "template/templatevalues.h"

#include <QCoreApplication>
#include <QDateTime>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QLoggingCategory>
#include <QProcess>

#include <condition_variable>
#include <csignal>
#include <deque>
#include <mutex>
#include <unistd.h>

namespace ClusterDeck::Cli {

namespace {

using namespace std::chrono_literals;

QString portsText(const KernelRecord &k)
{
    QStringList parts;
    for (const PortBinding &p : k.ports)
        parts.append(
            p.url.isEmpty()
                ? QStringLiteral("%1:%2->%3").arg(p.name).arg(p.hostPort).arg(p.containerPort)
                : QStringLiteral("%1 %2").arg(p.name, p.url));
    return parts.isEmpty() ? QStringLiteral("-") : parts.join(QStringLiteral(", "));
}

void printTable(QTextStream &out, const QList<QStringList> &rows)
{
    for (const QString &line : alignColumns(rows))
        out << line << '\n';
}

// The session as the console shows it: one branch per role, in template order, each kernel with
// its rank, host, status, container and service ports; the primary is marked with `*`.
void printKernelTree(QTextStream &out, const SessionRecord &s, const QList<KernelRecord> &kernels)
{
    QStringList roles;
    QHash<QString, QList<KernelRecord>> byRole;
    for (const KernelRecord &k : kernels) {
        if (!byRole.contains(k.role))
            roles.append(k.role);
        byRole[k.role].append(k);
    }
    QStringList counts;
    for (const QString &role : std::as_const(roles))
        counts.append(QStringLiteral("%1×%2").arg(role).arg(byRole.value(role).size()));
    out << s.name << "  " << toString(s.status) << "  " << kernels.size()
        << " kernels: " << counts.join(QStringLiteral(", ")) << '\n';

    QList<QStringList> cells; // one per kernel, in tree order
    for (const QString &role : std::as_const(roles)) {
        for (const KernelRecord &k : byRole.value(role))
            cells.append({k.hostname + (k.primary ? QStringLiteral("*") : QString()),
                          QStringLiteral("rank ") + QString::number(k.localRank),
                          k.host.isEmpty() ? QStringLiteral("-") : k.host, toString(k.status),
                          k.containerId.isEmpty() ? QStringLiteral("-") : k.containerId.left(12),
                          portsText(k)});
    }
    const QStringList lines = alignColumns(cells);
    int next = 0;
    for (int r = 0; r < roles.size(); ++r) {
        const bool lastRole = r + 1 == roles.size();
        const QList<KernelRecord> members = byRole.value(roles.at(r));
        out << (lastRole ? "└─ " : "├─ ") << roles.at(r) << " (" << members.size() << ")\n";
        for (int i = 0; i < members.size(); ++i, ++next) {
            out << (lastRole ? "   " : "│  ") << (i + 1 == members.size() ? "└─ " : "├─ ")
                << lines.at(next) << '\n';
        }
    }
}

void printSession(QTextStream &out, const SessionRecord &s, QList<KernelRecord> kernels)
{
    std::sort(kernels.begin(), kernels.end(), [](const KernelRecord &a, const KernelRecord &b) {
        return a.localRank < b.localRank;
    });
    out << "session   " << s.name << " (" << s.id << ")\n"
        << "template  " << s.templateName << '\n'
        << "mode      "
        << (s.mode == ClusterMode::Auto ? QStringLiteral("-") : modeName(s.mode))
        << '\n'
        << "status    " << toString(s.status) << " (desired " << toString(s.desired) << ")\n"
        << "network   " << s.networkName
        << (s.networkHost.isEmpty() ? QString() : QStringLiteral(" on ") + s.networkHost) << '\n'
        << "created   " << s.createdAt.toLocalTime().toString(QStringLiteral("yyyy-MM-dd HH:mm:ss"))
        << '\n';
    if (!s.lastError.isEmpty())
        out << "error     " << InertText::of(s.lastError) << '\n';
    out << '\n';
    printKernelTree(out, s, kernels);
}

int printSessionResult(Context &context, StateStore *store, const QString &sessionId, bool json)
{
    auto s = store->session(sessionId);
    if (!s)
        return context.fail(s.error());
    auto kernels = store->kernels(sessionId);
    if (!kernels)
        return context.fail(kernels.error());
    if (json)
        context.out()
            << QJsonDocument(SessionJson::toJson(*s, *kernels)).toJson(QJsonDocument::Indented);
    else
        printSession(context.out(), *s, *kernels);
    context.out().flush();
    return 0;
}

Result<SessionRecord> findWithKernel(StateStore *store, const Args &a, const QString &command)
{
    if (a.positional.size() != 1)
        return fail(Error::Kind::Invalid, QString(),
                    QStringLiteral("%1 takes one SESSION").arg(command));
    auto s = SessionController::findSession(*store, a.positional.first());
    if (!s)
        return s;
    const QString kernel = a.values.value(QStringLiteral("--kernel"));
    if (!kernel.isEmpty()) {
        auto kernels = store->kernels(s->id);
        if (!kernels)
            return fail(kernels.error());
        bool found = false;
        for (const KernelRecord &k : std::as_const(*kernels))
            found = found || k.hostname == kernel;
        if (!found)
            return fail(Error::Kind::NotFound, QString(),
                        QStringLiteral("session %1 has no kernel '%2'").arg(s->name, kernel));
    }
    return s;
}

// `--settle SECONDS` of launch and scale: unset when not given; false when it does not parse.
bool parseSettle(const Args &a, std::optional<std::chrono::milliseconds> *settle)
{
    if (!a.values.contains(QStringLiteral("--settle")))
        return true;
    bool ok = false;
    const double seconds = a.values.value(QStringLiteral("--settle")).toDouble(&ok);
    if (!ok || seconds < 0 || seconds > 600)
        return false;
    *settle = std::chrono::milliseconds(qint64(seconds * 1000));
    return true;
}

enum class WholeSession { Restart, Terminate };

// `restart` and `rm` alike: both act on the whole session (a --kernel only names it), under the
// session's lock, and leave the rest to the controller when interrupted.
int wholeSessionCommand(Context &context, const QStringList &args, WholeSession op)
{
    const bool restart = op == WholeSession::Restart;
    const QString command = restart ? QStringLiteral("restart") : QStringLiteral("rm");
    Args a;
    if (const auto stop = parseArgs(context, args, command, &a))
        return *stop;
    auto env = openEnv(context);
    if (!env)
        return context.fail(env.error());
    auto s = findWithKernel(env->store, a, command);
    if (!s)
        return context.fail(s.error());
    InterruptScope interrupt(
        restart ? "\ninterrupted: stopping the restart; the controller will finish it (interrupt "
                  "again to exit at once)\n"
                : "\ninterrupted: stopping; the session stays TERMINATING and the controller will "
                  "finish it (interrupt again to exit at once)\n",
        restart
            ? "\nerror: interrupted again: exiting now; the controller will finish the restart\n"
            : "\nerror: interrupted again: exiting now; the controller will finish the "
              "terminate\n");
    SessionController controller(env->store, env->registry.get());
    controller.setActor(actor());
    controller.setCancel(interrupt.token());
    const QString kernel = a.values.value(QStringLiteral("--kernel"));
    const QString noun = restart ? QStringLiteral("restart") : QStringLiteral("terminate");
    const QString reason =
        kernel.isEmpty()
            ? QStringLiteral("%1 requested").arg(noun)
            : QStringLiteral("%1 of %2 requested: the whole session %3")
                  .arg(noun, kernel, restart ? QStringLiteral("restarts") : QStringLiteral("ends"));
    auto done = restart ? controller.restart(s->id, reason) : controller.terminate(s->id, reason);
    if (!done)
        return context.fail(done.error());
    if (restart) {
        auto kernels = env->store->kernels(s->id);
        context.out() << "restarted " << s->name << " (" << (kernels ? kernels->size() : 0)
                      << " kernels)\n";
    } else {
        context.out() << "terminated " << s->name << '\n';
    }
    return 0;
}

} // namespace

int launchCommand(Context &context, const QStringList &args)
{
    Args a;
    if (const auto stop = parseArgs(context, args, QStringLiteral("launch"), &a))
        return *stop;
    if (a.positional.size() != 1)
        return context.usage(QStringLiteral("launch takes one template FILE"));
    const bool json = a.flags.contains(QStringLiteral("--json"));

    LaunchRequest request;
    request.actor = actor();
    LaunchOptions &opts = request.options;
    opts.name = a.values.value(QStringLiteral("--name"));
    if (auto values =
            LaunchValues::apply(opts, a.all(QStringLiteral("--count")),
                                a.all(QStringLiteral("--env")), a.all(QStringLiteral("--mount")));
        !values)
        return context.usage(values.error().toString());
    if (a.values.contains(QStringLiteral("--mode"))) {
        const QString mode = a.values.value(QStringLiteral("--mode"));
        const auto parsed = parseMode(mode);
        if (!parsed)
            return context.usage(
                QStringLiteral("--mode is single-node, multi-node or auto, not '%1'").arg(mode));
        opts.mode = *parsed;
    }
    if (a.values.contains(QStringLiteral("--strategy"))) {
        const auto s = placementStrategyFromString(a.values.value(QStringLiteral("--strategy")));
        if (!s)
            return context.usage(QStringLiteral("--strategy is spread or pack"));
        request.strategy = *s;
    }
    int perHostLimit = 8;
    if (a.values.contains(QStringLiteral("--per-host-limit"))) {
        bool ok = false;
        perHostLimit = a.values.value(QStringLiteral("--per-host-limit")).toInt(&ok);
        if (!ok || perHostLimit < 1 || perHostLimit > 256)
            return context.usage(QStringLiteral("--per-host-limit expects a number from 1 to 256"));
    }
    std::optional<std::chrono::milliseconds> settle;
    if (!parseSettle(a, &settle))
        return context.usage(
            QStringLiteral("--settle expects seconds from 0 to 600 (e.g. 2 or 0.5)"));

    const QString file = a.positional.first();
    TemplateLoader loader;
    auto t = loader.loadClusterFile(file);
    if (!t) {
        for (const TemplateDiagnostic &d : loader.diagnostics())
            context.err() << "error: " << d.toString() << '\n';
        context.err().flush();
        return 1;
    }
    request.clusterTemplate = *t;
    QFile source(file);
    if (source.open(QIODevice::ReadOnly))
        request.templateSource = QString::fromUtf8(source.readAll());

    auto env = openEnv(context);
    if (!env)
        return context.fail(env.error());

    Provisioner provisioner(env->store, env->registry.get());
    provisioner.setActor(actor());
    provisioner.setPerHostConcurrency(perHostLimit);
    if (settle)
        provisioner.setSettlePeriod(*settle);
    const bool live = !json && isatty(STDOUT_FILENO);
    // Pulls show as one bar per host on a terminal, as plain lines otherwise (never in --json).
    PullProgressPrinter pulls(context.out(), live);
    if (live) {
        provisioner.setProgressCallback([&](const KernelRecord &k) {
            pulls.line(QStringLiteral("  %1 %2 %3")
                           .arg(k.hostname.leftJustified(12), toString(k.status).leftJustified(11),
                                k.host));
        });
    }
    if (!json)
        provisioner.setPullProgressCallback(
            [&](const QString &host, const QString &image, const Docker::PullProgress &p) {
                pulls.update(host, image, p);
            });

    if (a.flags.contains(QStringLiteral("--dry-run"))) {
        // Plan and placement against the live hosts; nothing is written or created.
        auto spec = provisioner.preview(request);
        if (!spec)
            return context.fail(spec.error());
        const Placement &p = spec->placement;
        if (json) {
            QJsonObject kernels, unused;
            for (const KernelSpec &k : std::as_const(spec->plan.kernels))
                kernels.insert(k.hostname, p.hostOf.value(k.hostname));
            for (auto it = p.unused.cbegin(); it != p.unused.cend(); ++it)
                unused.insert(it.key(), it.value());
            const QJsonObject o{
                {QStringLiteral("name"), spec->plan.sessionName},
                {QStringLiteral("mode"), modeName(p.mode)},
                {QStringLiteral("hosts_used"), QJsonArray::fromStringList(p.hostsUsed)},
                {QStringLiteral("network_host"), p.networkHost},
                {QStringLiteral("kernels"), kernels},
                {QStringLiteral("unused_hosts"), unused}};
            context.out() << QJsonDocument(o).toJson(QJsonDocument::Indented);
            return 0;
        }
        context.out() << "would launch " << spec->plan.sessionName << ": "
                      << spec->plan.kernels.size() << " kernels, "
                      << modeName(p.mode) << " on "
                      << p.hostsUsed.join(QStringLiteral(", ")) << " (network on " << p.networkHost
                      << ")\n";
        QList<QStringList> rows;
        for (const KernelSpec &k : std::as_const(spec->plan.kernels))
            rows.append({QStringLiteral("  ") + k.hostname, k.role, p.hostOf.value(k.hostname)});
        printTable(context.out(), rows);
        for (auto it = p.unused.cbegin(); it != p.unused.cend(); ++it)
            context.out() << "not used: " << it.key() << ": " << it.value() << '\n';
        return 0;
    }

    if (a.flags.contains(QStringLiteral("--no-wait"))) {
        // Desired state only; a detached reconcile makes the hosts match it.
        opts.sessionId = QUuid::createUuid().toString(QUuid::WithoutBraces);
        auto spec = provisioner.prepare(request);
        if (!spec)
            return context.fail(spec.error());
        QStringList childArgs;
        if (!context.storeOption().isEmpty())
            childArgs << QStringLiteral("--store") << context.storeOption();
        childArgs << QStringLiteral("reconcile");
        QProcess::startDetached(QCoreApplication::applicationFilePath(), childArgs);
        if (!json) {
            context.out() << "launching " << spec->plan.sessionName << " (" << spec->plan.sessionId
                          << ") in the background; see: clusterdeckctl show "
                          << spec->plan.sessionId.left(8) << '\n';
            context.out().flush();
            return 0;
        }
        return printSessionResult(context, env->store, spec->plan.sessionId, true);
    }

    // First Ctrl-C / SIGTERM: cancel and roll back (bounded); a second one exits at once and
    // leaves the rollback to the controller (the desired state is TERMINATED by then).
    InterruptScope interrupt(
        "\ninterrupted: cancelling the launch and rolling back (interrupt again to leave the "
        "rollback to the controller)\n",
        "\nerror: interrupted again: exiting now; the controller will finish the rollback (a "
        "running `clusterdeckctl controller`, or `clusterdeckctl reconcile`)\n");
    if (live)
        context.out() << "launching " << t->name << " …\n";
    opts.sessionId = QUuid::createUuid().toString(QUuid::WithoutBraces);
    auto launched = provisioner.launch(request, interrupt.token());
    if (!launched) {
        if (json) {
            // The session exists (ERROR / CANCELLED) when the failure came after placement.
            if (env->store->session(opts.sessionId))
                printSessionResult(context, env->store, opts.sessionId, true);
        }
        return context.fail(launched.error());
    }
    if (live)
        context.out() << '\n';
    return printSessionResult(context, env->store, launched->id, json);
}

int lsCommand(Context &context, const QStringList &args)
{
    Args a;
    if (const auto stop = parseArgs(context, args, QStringLiteral("ls"), &a))
        return *stop;
    if (!a.positional.isEmpty())
        return context.usage(QStringLiteral("ls takes no arguments"));
    auto store = context.store();
    if (!store)
        return context.fail(store.error());
    auto sessions = (*store)->listSessions();
    if (!sessions)
        return context.fail(sessions.error());
    // One bad record must not hide the others: list them, and name it on stderr.
    for (const UndecodableRecord &r : std::as_const(sessions->undecodable))
        context.err() << "warning: cannot read session record " << r.toString() << '\n';
    auto kernels = (*store)->allKernels();
    if (!kernels)
        return context.fail(kernels.error());
    QList<SessionRecord> list = sessions->sessions;
    std::sort(list.begin(), list.end(), [](const SessionRecord &x, const SessionRecord &y) {
        return x.createdAt < y.createdAt;
    });
    QHash<QString, QList<KernelRecord>> bySession;
    for (const KernelRecord &k : std::as_const(*kernels))
        bySession[k.sessionId].append(k);
    if (a.flags.contains(QStringLiteral("--json"))) {
        QJsonArray array;
        for (const SessionRecord &s : std::as_const(list))
            array.append(SessionJson::toJson(s, bySession.value(s.id)));
        context.out() << QJsonDocument(array).toJson(QJsonDocument::Indented);
        return 0;
    }
    QList<QStringList> rows{{QStringLiteral("NAME"), QStringLiteral("ID"),
                             QStringLiteral("TEMPLATE"), QStringLiteral("MODE"),
                             QStringLiteral("STATUS"), QStringLiteral("KERNELS"),
                             QStringLiteral("HOSTS"), QStringLiteral("CREATED")}};
    for (const SessionRecord &s : std::as_const(list)) {
        const QList<KernelRecord> ks = bySession.value(s.id);
        QStringList hosts;
        int running = 0;
        for (const KernelRecord &k : ks) {
            if (!k.host.isEmpty() && !hosts.contains(k.host))
                hosts.append(k.host);
            running += k.status == KernelStatus::Running;
        }
        rows.append(
            {s.name, s.id.left(8), s.templateName,
             s.mode == ClusterMode::Auto ? QStringLiteral("-") : modeName(s.mode),
             toString(s.status), QStringLiteral("%1/%2").arg(running).arg(ks.size()),
             hosts.isEmpty() ? QStringLiteral("-") : hosts.join(QLatin1Char(',')),
             s.createdAt.toLocalTime().toString(QStringLiteral("yyyy-MM-dd HH:mm:ss"))});
    }
    printTable(context.out(), rows);
    return 0;
}

int showCommand(Context &context, const QStringList &args)
{
    Args a;
    if (const auto stop = parseArgs(context, args, QStringLiteral("show"), &a))
        return *stop;
    if (a.positional.size() != 1)
        return context.usage(QStringLiteral("show takes one SESSION"));
    auto store = context.store();
    if (!store)
        return context.fail(store.error());
    auto s = SessionController::findSession(**store, a.positional.first());
    if (!s)
        return context.fail(s.error());
    return printSessionResult(context, *store, s->id, a.flags.contains(QStringLiteral("--json")));
}

int restartCommand(Context &context, const QStringList &args)
{
    return wholeSessionCommand(context, args, WholeSession::Restart);
}

int scaleCommand(Context &context, const QStringList &args)
{
    Args a;
    if (const auto stop = parseArgs(context, args, QStringLiteral("scale"), &a))
        return *stop;
    if (a.positional.size() < 2)
        return context.usage(QStringLiteral("scale takes SESSION and at least one ROLE=N"));
    const auto counts = LaunchValues::parseRoleCounts(a.positional.mid(1));
    if (!counts)
        return context.usage(counts.error().toString());
    std::optional<std::chrono::milliseconds> settle;
    if (!parseSettle(a, &settle))
        return context.usage(
            QStringLiteral("--settle expects seconds from 0 to 600 (e.g. 2 or 0.5)"));
    auto env = openEnv(context);
    if (!env)
        return context.fail(env.error());
    auto s = SessionController::findSession(*env->store, a.positional.first());
    if (!s)
        return context.fail(s.error());
    InterruptScope interrupt;
    SessionScaler scaler(env->store, env->registry.get());
    scaler.setActor(actor());
    if (settle)
        scaler.setSettlePeriod(*settle);
    auto done = scaler.scale(s->id, *counts, interrupt.token());
    if (!done)
        return context.fail(done.error());
    for (const QString &w : std::as_const(done->warnings))
        context.err() << "warning: " << w << '\n';
    if (a.flags.contains(QStringLiteral("--json")))
        return printSessionResult(context, env->store, s->id, true);
    if (done->added.isEmpty() && done->removed.isEmpty()) {
        context.out() << s->name << ": nothing to change\n";
        return 0;
    }
    context.out() << "scaled " << s->name << ": added "
                  << (done->added.isEmpty() ? QStringLiteral("none")
                                            : done->added.join(QStringLiteral(", ")))
                  << "; removed "
                  << (done->removed.isEmpty() ? QStringLiteral("none")
                                              : done->removed.join(QStringLiteral(", ")))
                  << " (" << QString::number(double(done->elapsedMs) / 1000.0, 'f', 1) << " s)\n";
    return 0;
}

int rmCommand(Context &context, const QStringList &args)
{
    return wholeSessionCommand(context, args, WholeSession::Terminate);
}

int logsCommand(Context &context, const QStringList &args)
{
    Args a;
    if (const auto stop = parseArgs(context, args, QStringLiteral("logs"), &a))
        return *stop;
    // The last 1000 lines of each kernel unless told otherwise; they stream, nothing is held.
    const QString tail = a.values.value(QStringLiteral("--tail"), QStringLiteral("1000"));
    if (tail != QLatin1String("all")) {
        bool ok = false;
        const qint64 n = tail.toLongLong(&ok);
        if (!ok || n < 0)
            return context.usage(
                QStringLiteral("--tail takes a number of lines or 'all', not '%1'").arg(tail));
    }
    auto env = openEnv(context);
    if (!env)
        return context.fail(env.error());
    auto s = findWithKernel(env->store, a, QStringLiteral("logs"));
    if (!s)
        return context.fail(s.error());
    auto kernels = env->store->kernels(s->id);
    int width = 0;
    if (kernels) {
        for (const KernelRecord &k : std::as_const(*kernels))
            width = std::max(width, int(k.hostname.size()));
    }
    SessionController controller(env->store, env->registry.get());
    InterruptScope interrupt;
    QTextStream &out = context.out();
    QTextStream &err = context.err();
    auto ok = controller.logs(
        s->id, a.values.value(QStringLiteral("--kernel")),
        a.flags.contains(QStringLiteral("--follow")),
        [&](const QString &hostname, const QByteArray &line, bool isErr) {
            QTextStream &stream = isErr ? err : out;
            stream << hostname.leftJustified(width) << " | " << QString::fromUtf8(line) << '\n';
            stream.flush();
        },
        interrupt.token(), tail);
    if (!ok)
        return context.fail(ok.error());
    return 0;
}

} // namespace ClusterDeck::Cli
