#include "execstream.h"
#include "common/shortid.h"

#include "common/logging.h"
#include "dockerclient.h"
#include "http/rawstream.h"

#include <algorithm>

namespace ClusterDeck::Docker {

namespace {

using namespace std::chrono_literals;

// How long a shell may take to fail for want of its executable (the daemon reports it at once).
constexpr auto kShellProbe = 1500ms;

bool isMissingExecutable(int exitCode, const QByteArray &output)
{
    // 126/127: the runtime could not execute it; the message says why.
    return (exitCode == 126 || exitCode == 127) &&
           (output.contains("executable file not found") || output.contains("no such file") ||
            output.contains("not found"));
}

} // namespace

ExecStream::~ExecStream() = default;

int ExecStream::socket() const
{
    return m_stream ? m_stream->socket() : -1;
}

Result<std::unique_ptr<ExecStream>>
ExecStream::start(std::shared_ptr<const DockerClient> client, const QString &containerId,
                  const QStringList &command, const Options &options, const CallOptions &call)
{
    ExecSpec spec;
    spec.cmd = command;
    spec.user = options.user;
    spec.env = options.env;
    if (!std::any_of(spec.env.cbegin(), spec.env.cend(),
                     [](const QString &e) { return e.startsWith(QLatin1String("TERM=")); }))
        spec.env.append(QStringLiteral("TERM=xterm-256color"));
    spec.tty = true;
    spec.attachStdin = true;
    auto id = client->createExec(containerId, spec, call);
    if (!id)
        return fail(id.error());
    auto stream = client->startExec(*id, true, call);
    if (!stream)
        return fail(stream.error());
    std::unique_ptr<ExecStream> exec(new ExecStream);
    exec->m_client = std::move(client);
    exec->m_execId = *id;
    exec->m_command = command;
    exec->m_stream = std::move(*stream);
    // A process that failed to start has no TTY to resize: only a warning.
    if (auto resized = exec->resize(options.rows, options.cols); !resized)
        qCDebug(lcDocker).noquote()
            << "resizing exec" << shortId(*id) << resized.error().toString();
    return exec;
}

Result<std::unique_ptr<ExecStream>> ExecStream::open(std::shared_ptr<const DockerClient> client,
                                                     const QString &containerId,
                                                     const Options &options,
                                                     const CallOptions &call)
{
    if (!options.command.isEmpty())
        return start(std::move(client), containerId, options.command, options, call);

    // bash first; an image without it makes the runtime fail at once with 126/127 and a message
    // on the stream, and then sh runs instead. A shell that starts prints (a prompt) or waits.
    auto bash = start(client, containerId, {QStringLiteral("bash")}, options, call);
    if (!bash) {
        if (!bash.error().message.contains(QLatin1String("not found")))
            return bash;
    } else {
        ExecStream &b = **bash;
        const auto deadline = std::chrono::steady_clock::now() + kShellProbe;
        QByteArray seen;
        while (!b.m_stream->atEnd() && std::chrono::steady_clock::now() < deadline) {
            auto chunk = b.m_stream->read(100ms);
            if (!chunk)
                return fail(chunk.error());
            seen += *chunk;
            // Anything but the runtime's complaint means bash runs.
            if (!seen.isEmpty() && !seen.startsWith("OCI runtime") && !seen.contains("exec failed"))
                break;
        }
        if (!b.m_stream->atEnd()) {
            b.m_pending = seen;
            return bash;
        }
        auto code = b.exitCode();
        if (!code || !isMissingExecutable(*code, seen)) {
            b.m_pending = seen;
            return bash;
        }
        qCDebug(lcDocker).noquote() << "no bash in" << shortId(containerId) << "- using sh";
    }
    return start(std::move(client), containerId, {QStringLiteral("sh")}, options, call);
}

Result<QByteArray> ExecStream::read(std::chrono::milliseconds timeout)
{
    if (!m_pending.isEmpty())
        return std::exchange(m_pending, {});
    return m_stream->read(timeout);
}

Result<void> ExecStream::write(const QByteArray &data)
{
    return m_stream->write(data);
}

Result<void> ExecStream::resize(int rows, int cols)
{
    if (rows <= 0 || cols <= 0)
        return {};
    CallOptions call;
    call.timeout = 5s;
    return m_client->resizeExec(m_execId, rows, cols, call);
}

bool ExecStream::atEnd() const
{
    return m_pending.isEmpty() && m_stream->atEnd();
}

Result<int> ExecStream::exitCode() const
{
    return m_client->waitExecExit(m_execId);
}

} // namespace ClusterDeck::Docker
