#pragma once

#include "common/error.h"
#include "http/httptypes.h"
#include "store/records.h"

#include <QByteArray>
#include <QList>
#include <QString>
#include <QStringList>

#include <chrono>
#include <functional>
#include <optional>

namespace ClusterDeck {

class HostRegistry;

// Which kernels of a session a command runs in: one hostname, one role, or (both empty) all.
struct KernelSelection
{
    QString hostname;
    QString role;
};

struct KernelExecResult
{
    KernelRecord kernel;
    int exitCode = -1;     // -1: it did not run (error says why)
    QByteArray stdoutData; // the first BoundedBuffer::kDefaultMaxBytes of each
    QByteArray stderrData;
    qint64 droppedBytes = 0; // output beyond that: streamed to the sink, not kept
    std::optional<Error> error;
    qint64 elapsedMs = 0;
};

// A command fanned out over the kernels of a session (pdsh for one cluster session): Docker exec
// in every selected kernel at once, at most `parallel` at a time, output line by line as it
// comes. Blocking: call from a worker thread (or the CLI's main thread).
class SessionExec
{
public:
    // hostname, one line without its newline, from stderr?  Calls never overlap.
    using LineSink = std::function<void(const QString &hostname, const QByteArray &line, bool err)>;

    // What a kernel that could not run the command counts as, like ssh's 255.
    static constexpr int kUnreachableExitCode = 255;

    explicit SessionExec(HostRegistry *registry);

    // The selected kernels in rank order; an error names a hostname or role the session lacks.
    static Result<QList<KernelRecord>> select(const QList<KernelRecord> &kernels,
                                              const KernelSelection &selection);
    // The worst (highest) exit code; kUnreachableExitCode for a kernel that did not run it.
    static int worstExitCode(const QList<KernelExecResult> &results);

    // parallel <= 0: all at once. timeout 0: none. Results come in the order of `kernels`.
    QList<KernelExecResult> run(const QList<KernelRecord> &kernels, const QStringList &command,
                                int parallel, const LineSink &sink,
                                const CancelToken &cancel = {},
                                std::chrono::milliseconds timeout = std::chrono::milliseconds(0));

private:
    HostRegistry *m_registry;
};

} // namespace ClusterDeck
