#include "sessionexec.h"

#include "common/boundedexecutor.h"
#include "common/boundedbuffer.h"
#include "common/linesplitter.h"
#include "docker/dockerhost.h"
#include "host/hostregistry.h"
#include "ownedcontainer.h"
#include "store/statestore.h"

#include <QElapsedTimer>

#include <algorithm>
#include <atomic>
#include <mutex>
#include <thread>
#include <vector>

namespace ClusterDeck {

SessionExec::SessionExec(HostRegistry *registry)
    : m_registry(registry)
{}

Result<QList<KernelRecord>> SessionExec::select(const QList<KernelRecord> &kernels,
                                                const KernelSelection &selection)
{
    QList<KernelRecord> chosen;
    for (const KernelRecord &k : kernels) {
        if (!selection.hostname.isEmpty() && k.hostname != selection.hostname)
            continue;
        if (!selection.role.isEmpty() && k.role != selection.role)
            continue;
        chosen.append(k);
    }
    if (chosen.isEmpty()) {
        if (!selection.hostname.isEmpty())
            return fail(Error::Kind::NotFound, QString(),
                        QStringLiteral("the session has no kernel '%1'").arg(selection.hostname));
        if (!selection.role.isEmpty())
            return fail(Error::Kind::NotFound, QString(),
                        QStringLiteral("the session has no role '%1'").arg(selection.role));
        return fail(Error::Kind::NotFound, QString(), QStringLiteral("the session has no kernels"));
    }
    std::sort(chosen.begin(), chosen.end(), [](const KernelRecord &a, const KernelRecord &b) {
        return a.localRank < b.localRank;
    });
    return chosen;
}

int SessionExec::worstExitCode(const QList<KernelExecResult> &results)
{
    int worst = 0;
    for (const KernelExecResult &r : results)
        worst = std::max(worst, r.error ? kUnreachableExitCode : r.exitCode);
    return worst;
}

QList<KernelExecResult> SessionExec::run(const QList<KernelRecord> &kernels,
                                         const QStringList &command, int parallel,
                                         const LineSink &sink, const CancelToken &cancel,
                                         std::chrono::milliseconds timeout)
{
    QList<KernelExecResult> results(kernels.size());
    std::mutex sinkMutex;
    auto emitLines = [&](const QString &hostname, const QList<QByteArray> &lines, bool err) {
        if (lines.isEmpty() || !sink)
            return;
        std::lock_guard lock(sinkMutex);
        for (const QByteArray &line : lines)
            sink(hostname, line, err);
    };

    auto runOne = [&](int i) {
        KernelExecResult &r = results[i];
        r.kernel = kernels.at(i);
        QElapsedTimer timer;
        timer.start();
        auto client = m_registry->dockerHost(r.kernel.host);
        if (!client) {
            r.error = client.error();
            return;
        }
        Docker::ExecSpec spec;
        spec.cmd = command;
        Docker::CallOptions call;
        call.cancel = cancel;
        call.timeout = timeout;
        // The kernel's own container: never a same-named container of another owner.
        Docker::CallOptions look = call;
        look.timeout = timeout.count() > 0 ? std::min(timeout, std::chrono::milliseconds(30000))
                                           : std::chrono::milliseconds(30000);
        auto owned = OwnedContainer::of(**client, r.kernel, m_registry->store()->identity(), look);
        if (!owned) {
            r.error = owned.error().withContext(QStringLiteral("in %1").arg(r.kernel.hostname));
            r.elapsedMs = timer.elapsed();
            return;
        }
        // Lines go on as they come (cut in pieces beyond LineSplitter's limit); what is kept for
        // the result is capped (BoundedBuffer), so `yes` in a kernel grows nothing.
        LineSplitter pending[2];
        BoundedBuffer kept[2];
        auto code = (*client)->runExec(
            *owned, spec,
            [&](const Docker::LogFrame &f) {
                const bool err = f.stream == Docker::LogFrame::Stream::Stderr;
                kept[err].append(f.data);
                emitLines(r.kernel.hostname, pending[err].feed(f.data), err);
                return true;
            },
            call);
        emitLines(r.kernel.hostname, pending[0].flush(), false);
        emitLines(r.kernel.hostname, pending[1].flush(), true);
        r.stdoutData = kept[0].data();
        r.stderrData = kept[1].data();
        r.droppedBytes = kept[0].droppedBytes() + kept[1].droppedBytes();
        r.elapsedMs = timer.elapsed();
        if (!code)
            r.error = code.error().withContext(QStringLiteral("in %1").arg(r.kernel.hostname));
        else
            r.exitCode = *code;
    };

    // On the process's bounded executor (at most 8 execs per host, 32 threads in all), not a
    // thread per kernel: `--parallel 0` over 1,000 kernels is not 1,000 threads.
    BoundedExecutor::Options options;
    options.keyOf = [&](int i) {
        return kernels.at(i).host;
    };
    options.maxAtOnce = parallel > 0 ? parallel : 0;
    options.cancel = cancel;
    BoundedExecutor::shared().forEach(int(kernels.size()), runOne, options);
    for (qsizetype i = 0; i < kernels.size(); ++i) {
        if (results[i].kernel.id.isEmpty()) { // never started: cancelled first
            results[i].kernel = kernels.at(i);
            results[i].error =
                Error::make(Error::Kind::Cancelled, QString(),
                            QStringLiteral("not run in %1: cancelled").arg(kernels.at(i).hostname));
        }
    }
    return results;
}

} // namespace ClusterDeck
