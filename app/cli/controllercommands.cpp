#include "controllercommands.h"

#include "args.h"
#include "commandsupport.h"
#include "common/inerttext.h"
#include "common/logging.h"
#include "control/controller.h"
#include "control/reconcilereport.h"
#include "host/hostregistry.h"
#include "store/statestore.h"

#include <QCoreApplication>
#include <QDateTime>
#include <QHash>
#include <QJsonDocument>
#include <QTimer>

#include <thread>

namespace ClusterDeck::Cli {

namespace {

using namespace std::chrono_literals;

QString localTime(const QDateTime &at)
{
    return at.toLocalTime().toString(QStringLiteral("yyyy-MM-dd HH:mm:ss"));
}

QString describeLeader(const LeaderRecord &l)
{
    return QStringLiteral("%1 (pid %2 on %3) since %4, term %5")
        .arg(l.actor)
        .arg(l.pid)
        .arg(l.hostname, localTime(l.since))
        .arg(l.term);
}

bool positiveSeconds(const Args &a, const QString &option, int fallback, int *seconds,
                     QString *error)
{
    *seconds = fallback;
    if (!a.values.contains(option))
        return true;
    bool ok = false;
    *seconds = a.value(option).toInt(&ok);
    if (!ok || *seconds <= 0) {
        *error = QStringLiteral("%1 needs a whole number of seconds above 0, not '%2'")
                     .arg(option, a.value(option));
        return false;
    }
    return true;
}

int printReport(Context &context, const ReconcileReport &report, bool json)
{
    if (json) {
        context.out() << QJsonDocument(report.toJson()).toJson(QJsonDocument::Indented);
        if (!report.refused.isEmpty())
            return context.fail(QStringLiteral("reconcile refused: ") + report.refused);
        return 0;
    }
    if (!report.refused.isEmpty())
        return context.fail(QStringLiteral("reconcile refused: ") + report.refused);
    for (const ReconcileReport::Applied &a : report.applied) {
        const ReconcileAction &x = a.action;
        context.out() << ReconcileAction::name(x.kind) << ' '
                      << (x.objectName.isEmpty() ? x.sessionId : x.objectName)
                      << (x.host.isEmpty() ? QString() : QStringLiteral(" on ") + x.host) << ": "
                      << (a.done ? QString() : QStringLiteral("skipped: ")) << a.outcome << " ("
                      << x.why << ")\n";
    }
    for (const QString &w : report.warnings)
        context.err() << "warning: " << w << '\n';
    if (report.applied.isEmpty())
        context.out() << "nothing to do: the hosts match the store\n";
    return 0;
}

// Quits the event loop on SIGTERM / SIGINT (the scope's token, polled).
void quitOnInterrupt(const InterruptScope &interrupt, QObject *context)
{
    auto *timer = new QTimer(context);
    timer->setInterval(100ms);
    QObject::connect(timer, &QTimer::timeout, context, [&interrupt] {
        if (interrupt.token().isCancelled())
            QCoreApplication::quit();
    });
    timer->start();
}

} // namespace

int controllerCommand(Context &context, const QStringList &args)
{
    Args a;
    if (const auto stop = parseArgs(context, args, QStringLiteral("controller"), &a))
        return *stop;
    if (!a.positional.isEmpty())
        return context.usage(QStringLiteral("controller takes no arguments"));
    int resync = 0, ttl = 0, grace = 0;
    QString error;
    if (!positiveSeconds(a, QStringLiteral("--resync"), 30, &resync, &error) ||
        !positiveSeconds(a, QStringLiteral("--lease-ttl"), 10, &ttl, &error) ||
        !positiveSeconds(a, QStringLiteral("--grace"), 60, &grace, &error))
        return context.usage(error);
    // Logs go to stderr: what the controller decides, not the libraries' chatter.
    Logging::apply(Logging::Level::Warnings, lcControl(), Logging::Level::Info);
    auto env = openEnv(context);
    if (!env)
        return context.fail(env.error());
    ControllerOptions options;
    options.resyncInterval = std::chrono::seconds(resync);
    options.leaseTtl = std::chrono::seconds(ttl);
    options.orphanGrace = std::chrono::seconds(grace);
    Controller controller(env->store, env->registry.get(), options);
    QObject::connect(&controller, &Controller::leadershipChanged, &controller,
                     [&context, &controller](bool leading) {
                         context.err()
                             << QDateTime::currentDateTime().toString(QStringLiteral("HH:mm:ss "))
                             << controller.candidate().actor
                             << (leading ? " leads" : " does not lead any more") << '\n';
                         context.err().flush();
                     });
    InterruptScope interrupt;
    quitOnInterrupt(interrupt, &controller);
    context.err() << "controller " << controller.candidate().actor << " on "
                  << env->store->describe() << ": campaigning (resync every " << resync
                  << " s, lease " << ttl << " s); SIGTERM or Ctrl-C resigns and exits\n";
    context.err().flush();
    controller.start();
    QCoreApplication::exec();
    controller.stop();
    context.err() << "controller stopped\n";
    return 0;
}

int reconcileCommand(Context &context, const QStringList &args)
{
    Args a;
    if (const auto stop = parseArgs(context, args, QStringLiteral("reconcile"), &a))
        return *stop;
    if (!a.positional.isEmpty())
        return context.usage(QStringLiteral("reconcile takes no arguments"));
    int timeout = 0;
    QString error;
    if (!positiveSeconds(a, QStringLiteral("--timeout"), 120, &timeout, &error))
        return context.usage(error);
    const bool json = a.has(QStringLiteral("--json"));
    auto env = openEnv(context);
    if (!env)
        return context.fail(env.error());

    auto leader = env->store->leader();
    if (!leader)
        return context.fail(leader.error());
    if (!*leader) {
        ControllerOptions options;
        options.actor = actor() + QStringLiteral(" (reconcile)");
        Controller controller(env->store, env->registry.get(), options);
        auto report = controller.runOnce();
        if (report)
            return printReport(context, *report, json);
        if (report.error().kind != Error::Kind::Conflict)
            return context.fail(report.error());
        leader = env->store->leader(); // someone was elected meanwhile: ask them
        if (!leader)
            return context.fail(leader.error());
        if (!*leader)
            return context.fail(report.error());
    }

    // A controller leads: ask it for a pass and wait for its report.
    if (!json)
        context.err() << "controller: " << describeLeader(**leader) << "; asking it for a pass\n";
    context.err().flush();
    auto before = env->store->controllerStatus();
    if (!before)
        return context.fail(before.error());
    const qint64 passesBefore = *before ? (*before)->passes : 0;
    const QString ownerBefore = *before ? (*before)->ownerId : QString();
    if (auto asked = env->store->requestControllerPass(); !asked)
        return context.fail(asked.error());
    InterruptScope interrupt;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(timeout);
    while (std::chrono::steady_clock::now() < deadline && !interrupt.token().isCancelled()) {
        std::this_thread::sleep_for(200ms);
        auto status = env->store->controllerStatus();
        if (!status)
            return context.fail(status.error());
        if (*status && ((*status)->passes > passesBefore || (*status)->ownerId != ownerBefore))
            return printReport(context, ReconcileReport::fromJson((*status)->lastReport), json);
    }
    if (interrupt.token().isCancelled())
        return context.fail(QStringLiteral("interrupted while waiting for the controller"));
    return context.fail(QStringLiteral("the controller (%1) did not report a pass within %2 s")
                            .arg((*leader)->actor)
                            .arg(timeout));
}

int watchCommand(Context &context, const QStringList &args)
{
    Args a;
    if (const auto stop = parseArgs(context, args, QStringLiteral("watch"), &a))
        return *stop;
    if (!a.positional.isEmpty())
        return context.usage(QStringLiteral("watch takes no arguments"));
    auto env = openEnv(context);
    if (!env)
        return context.fail(env.error());
    StateStore *store = env->store;
    auto now = [] {
        return QDateTime::currentDateTime().toString(QStringLiteral("HH:mm:ss"));
    };
    auto say = [&context](const QString &line) {
        context.out() << line << '\n';
        context.out().flush();
    };
    auto leader = store->leader();
    if (leader && *leader)
        say(QStringLiteral("controller: %1").arg(describeLeader(**leader)));
    else
        say(QStringLiteral("no controller — policies paused (start one: clusterdeckctl "
                           "controller)"));

    // What was last shown, so only changes are printed.
    QHash<QString, QString> sessionStatus;
    QHash<QString, QString> kernelStatus;
    QHash<QString, QString> sessionName;
    if (auto sessions = store->sessions(); sessions) {
        for (const SessionRecord &s : std::as_const(*sessions)) {
            sessionStatus.insert(s.id, toString(s.status));
            sessionName.insert(s.id, s.name);
        }
    }
    if (auto kernels = store->allKernels(); kernels) {
        for (const KernelRecord &k : std::as_const(*kernels))
            kernelStatus.insert(k.id,
                                toString(k.status) + u'/' + containerStatusName(k.observed.state));
    }
    qint64 lastSeq = 0;
    if (auto events = store->events(0, 0); events && !events->isEmpty())
        lastSeq = events->constLast().seq;

    QObject guard;
    auto showSession = [&](const QString &sid) {
        auto s = store->session(sid);
        if (!s)
            return;
        sessionName.insert(sid, s->name);
        const QString status = toString(s->status);
        if (sessionStatus.value(sid) == status)
            return;
        sessionStatus.insert(sid, status);
        say(QStringLiteral("%1 session %2 %3%4")
                .arg(now(), s->name, status,
                     s->history.isEmpty() || s->history.constLast().reason.isEmpty()
                         ? QString()
                         : QStringLiteral(" (%1)").arg(s->history.constLast().reason)));
    };
    QObject::connect(store, &StateStore::sessionAdded, &guard, showSession);
    QObject::connect(store, &StateStore::sessionChanged, &guard, showSession);
    QObject::connect(store, &StateStore::sessionRemoved, &guard, [&](const QString &sid) {
        say(QStringLiteral("%1 session %2 removed from the store")
                .arg(now(), sessionName.value(sid, sid)));
    });
    QObject::connect(
        store, &StateStore::kernelChanged, &guard, [&](const QString &sid, const QString &kid) {
            auto k = store->kernel(sid, kid);
            if (!k)
                return;
            const QString shown =
                toString(k->status) + u'/' + containerStatusName(k->observed.state);
            if (kernelStatus.value(kid) == shown)
                return;
            kernelStatus.insert(kid, shown);
            QString line = QStringLiteral("%1 kernel %2/%3 %4")
                               .arg(now(), sessionName.value(sid, sid.left(8)), k->hostname,
                                    toString(k->status));
            if (k->observed.state != ContainerStatus::None)
                line += QStringLiteral(" (container %1%2)")
                            .arg(containerStatusName(k->observed.state),
                                 k->observed.exitCode
                                     ? QStringLiteral(", exit %1").arg(*k->observed.exitCode)
                                     : QString());
            say(line);
        });
    QObject::connect(store, &StateStore::eventAppended, &guard, [&](qint64) {
        auto events = store->events(lastSeq, 100);
        if (!events)
            return;
        for (const EventRecord &e : std::as_const(*events)) {
            lastSeq = e.seq;
            say(QStringLiteral("%1 event %2 %3%4: %5")
                    .arg(e.at.toLocalTime().toString(QStringLiteral("HH:mm:ss")), e.actor, e.action,
                         e.sessionId.isEmpty() ? QString()
                                               : QStringLiteral(" %1").arg(sessionName.value(
                                                     e.sessionId, e.sessionId.left(8))),
                         InertText::of(e.detail)));
        }
    });
    QObject::connect(store, &StateStore::controllerChanged, &guard, [&] {
        static QString shown;
        auto l = store->leader();
        const QString line = l && *l ? QStringLiteral("controller: %1").arg(describeLeader(**l))
                                     : QStringLiteral("no controller — policies paused");
        if (line != shown) {
            shown = line;
            say(now() + u' ' + line);
        }
    });
    InterruptScope interrupt;
    quitOnInterrupt(interrupt, &guard);
    say(QStringLiteral("watching %1; Ctrl-C to stop").arg(store->describe()));
    QCoreApplication::exec();
    return 0;
}

} // namespace ClusterDeck::Cli
