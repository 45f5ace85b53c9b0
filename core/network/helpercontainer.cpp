#include "helpercontainer.h"

#include "common/labels.h"
#include "networklogging.h"

#include <QDateTime>

#include <chrono>

namespace ClusterDeck {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

namespace {

// What is left of one deadline, as the options of the next call.
class Deadline
{
public:
    explicit Deadline(const Docker::CallOptions &options)
        : m_options(options)
        , m_end(Clock::now() + options.timeout)
    {}
    std::optional<Docker::CallOptions> next() const
    {
        const auto left =
            std::chrono::duration_cast<std::chrono::milliseconds>(m_end - Clock::now());
        if (left <= 0ms || m_options.cancel.isCancelled())
            return std::nullopt;
        Docker::CallOptions o = m_options;
        o.timeout = left;
        return o;
    }
    // Clean-up gets a few seconds of its own even when the run used up its time or was
    // cancelled, and no more than `limit` of what it has left (CI of 12-07: a DELETE on a host
    // frozen after the script ended waited 59 s of a launch that had already failed).
    Docker::CallOptions cleanup(std::chrono::milliseconds limit) const
    {
        Docker::CallOptions o;
        o.timeout = std::min(limit, std::max(5000ms, next() ? next()->timeout : 0ms));
        return o;
    }
    bool cancelled() const { return m_options.cancel.isCancelled(); }

private:
    Docker::CallOptions m_options;
    Clock::time_point m_end;
};

bool carriesAll(const Docker::Labels &have, const Docker::Labels &want)
{
    for (auto it = want.cbegin(); it != want.cend(); ++it) {
        if (have.value(it.key()) != it.value())
            return false;
    }
    return true;
}

QStringList labelFilters(const Docker::Labels &labels)
{
    QStringList out;
    for (auto it = labels.cbegin(); it != labels.cend(); ++it)
        out.append(it.key() + QLatin1Char('=') + it.value());
    return out;
}

} // namespace

Docker::ContainerSpec HelperContainer::containerSpec(const Run &run)
{
    Docker::ContainerSpec spec;
    spec.name = run.name;
    spec.image = run.image;
    spec.labels = run.labels;
    spec.entrypoint = {QStringLiteral("/bin/sh"), QStringLiteral("-c")};
    spec.cmd = {run.script};
    spec.networkMode = QStringLiteral("host");
    // NET_ADMIN alone: enough for ip link and bridge fdb, nothing else of root's powers.
    spec.capDrop = {QStringLiteral("ALL")};
    spec.capAdd = {QStringLiteral("NET_ADMIN")};
    spec.autoRemove = false;
    return spec;
}

Result<HelperContainer::Outcome> HelperContainer::run(const Docker::DockerHost &host,
                                                      const Run &run,
                                                      const Docker::CallOptions &options,
                                                      const Hooks &hooks)
{
    const Deadline deadline(options);
    const QString where = host.displayName();
    auto outOfTime = [&](const QString &step) {
        return fail(deadline.cancelled() ? Error::Kind::Cancelled : Error::Kind::Timeout, where,
                    QStringLiteral("helper container %1: %2 %3")
                        .arg(run.name, step,
                             deadline.cancelled() ? QStringLiteral("cancelled")
                                                  : QStringLiteral("out of time")));
    };
    const Docker::ContainerSpec spec = containerSpec(run);
    Result<Docker::CreatedContainer> created = fail(Error::Kind::Invalid, where, QString());
    for (int attempt = 0; attempt < 2; ++attempt) {
        auto call = deadline.next();
        if (!call)
            return outOfTime(QStringLiteral("create"));
        created = host.createContainer(spec, *call);
        if (created || created.error().kind != Error::Kind::Conflict || attempt > 0)
            break;
        // A run killed before its removal left this name taken: only our own is removed.
        auto inspectCall = deadline.next();
        if (!inspectCall)
            return outOfTime(QStringLiteral("create"));
        auto leftover = host.inspectContainer(run.name, *inspectCall);
        if (!leftover) {
            if (leftover.error().isGone())
                continue;
            return fail(leftover.error());
        }
        if (!carriesAll(leftover->labels, run.labels))
            return fail(Error::Kind::Conflict, where,
                        QStringLiteral("a container named %1 exists and is not this store's "
                                       "helper: left alone")
                            .arg(run.name));
        qCInfo(lcNetwork) << "removing leftover helper" << run.name << "on" << where;
        auto removed =
            host.removeContainer(leftover->id, {true, false}, deadline.cleanup(run.cleanupLimit));
        if (!removed && !removed.error().isGone())
            return fail(removed.error().withContext(
                QStringLiteral("removing the leftover helper container %1").arg(run.name)));
    }
    if (!created)
        return fail(created.error().withContext(
            QStringLiteral("creating helper container %1").arg(run.name)));
    const QString id = created->id;
    auto finish = [&](Result<Outcome> result) -> Result<Outcome> {
        auto removed = host.removeContainer(id, {true, false}, deadline.cleanup(run.cleanupLimit));
        if (!removed && !removed.error().isGone()) {
            qCWarning(lcNetwork) << "helper container" << run.name << "on" << where
                                 << "not removed:" << removed.error().toString();
            if (result)
                return fail(removed.error().withContext(
                    QStringLiteral("removing helper container %1").arg(run.name)));
        }
        return result;
    };

    if (hooks.beforeStart) {
        if (auto ready = hooks.beforeStart(); !ready)
            return finish(fail(ready.error().withContext(
                QStringLiteral("helper container %1 not started").arg(run.name))));
    }
    auto call = deadline.next();
    if (!call)
        return finish(outOfTime(QStringLiteral("start")));
    auto started = host.startContainer(id, *call);
    if (hooks.afterStart)
        hooks.afterStart();
    if (!started)
        return finish(fail(started.error().withContext(
            QStringLiteral("starting helper container %1").arg(run.name))));
    Outcome outcome;
    call = deadline.next();
    if (!call)
        return finish(outOfTime(QStringLiteral("run")));
    Docker::LogOptions logs;
    logs.tty = false;
    // Returns when the script has exited (or the deadline passed).
    auto read = host.followLogs(
        id, logs,
        [&](const Docker::LogFrame &frame) {
            QByteArray &to =
                frame.stream == Docker::LogFrame::Stream::Stderr ? outcome.err : outcome.out;
            if (to.size() < Outcome::kMaxOutput)
                to.append(frame.data.left(Outcome::kMaxOutput - to.size()));
            return true;
        },
        *call);
    if (!read)
        return finish(fail(
            read.error().withContext(QStringLiteral("reading helper container %1").arg(run.name))));
    call = deadline.next();
    if (!call)
        return finish(outOfTime(QStringLiteral("run")));
    auto info = host.inspectContainer(id, *call);
    if (!info)
        return finish(fail(info.error()));
    if (info->state.running || info->state.status != ContainerStatus::Exited)
        return finish(outOfTime(QStringLiteral("run")));
    outcome.exitCode = info->state.exitCode;
    return finish(outcome);
}

Result<int> HelperContainer::removeLeftovers(const Docker::DockerHost &host,
                                             const Docker::Labels &labels, qint64 nowSeconds,
                                             qint64 minAgeSeconds,
                                             const Docker::CallOptions &options)
{
    const Deadline deadline(options);
    auto call = deadline.next();
    if (!call)
        return fail(Error::Kind::Timeout, host.displayName(),
                    QStringLiteral("listing helper containers: out of time"));
    Docker::ContainerListOptions list;
    list.all = true;
    list.labels = labelFilters(labels);
    auto found = host.listContainers(list, *call);
    if (!found)
        return fail(found.error().withContext(QStringLiteral("listing helper containers")));
    int removed = 0;
    for (const Docker::ContainerSummary &c : std::as_const(*found)) {
        // The daemon filtered already; checked again because removal is never by trust alone.
        if (!carriesAll(c.labels, labels) || !c.labels.contains(Labels::helper()))
            continue;
        const bool running = c.state == ContainerStatus::Running ||
                             c.state == ContainerStatus::Created ||
                             c.state == ContainerStatus::Restarting;
        if (running && nowSeconds - c.created < minAgeSeconds)
            continue; // a run in progress (another console of this store)
        call = deadline.next();
        if (!call)
            return fail(Error::Kind::Timeout, host.displayName(),
                        QStringLiteral("removing leftover helper containers: out of time"));
        auto ok = host.removeContainer(c.id, {true, false}, *call);
        if (!ok && !ok.error().isGone())
            return fail(ok.error().withContext(
                QStringLiteral("removing leftover helper container %1").arg(c.id.left(12))));
        if (ok)
            ++removed;
    }
    return removed;
}

} // namespace ClusterDeck
