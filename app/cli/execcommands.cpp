#include "execcommands.h"

#include "args.h"
#include "commandsupport.h"
#include "docker/dockerclient.h"
#include "docker/execstream.h"
#include "host/hostregistry.h"
#include "provision/sessioncontroller.h"
#include "provision/sessionexec.h"
#include "rawterminal.h"
#include "store/statestore.h"

#include <QElapsedTimer>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <cerrno>
#include <poll.h>
#include <unistd.h>

namespace ClusterDeck::Cli {

using namespace std::chrono_literals;

namespace {

QJsonObject resultToJson(const KernelExecResult &r)
{
    QJsonObject o;
    o.insert(QLatin1String("hostname"), r.kernel.hostname);
    o.insert(QLatin1String("role"), r.kernel.role);
    o.insert(QLatin1String("local_rank"), r.kernel.localRank);
    o.insert(QLatin1String("host"), r.kernel.host);
    o.insert(QLatin1String("exit_code"), r.error ? SessionExec::kUnreachableExitCode : r.exitCode);
    o.insert(QLatin1String("stdout"), QString::fromUtf8(r.stdoutData));
    o.insert(QLatin1String("stderr"), QString::fromUtf8(r.stderrData));
    if (r.droppedBytes > 0) // printed as it came, but not kept beyond a fixed size
        o.insert(QLatin1String("output_dropped_bytes"), double(r.droppedBytes));
    o.insert(QLatin1String("duration_ms"), r.elapsedMs);
    if (r.error)
        o.insert(QLatin1String("error"), r.error->toString());
    return o;
}

bool writeAll(int fd, const QByteArray &data)
{
    qsizetype off = 0;
    while (off < data.size()) {
        const ssize_t n = ::write(fd, data.constData() + off, size_t(data.size() - off));
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return false;
        off += n;
    }
    return true;
}

} // namespace

int execCommand(Context &context, const QStringList &args)
{
    Args a;
    if (const auto stop = parseArgs(context, args, QStringLiteral("exec"), &a))
        return *stop;
    if (a.positional.size() < 2)
        return context.usage(QStringLiteral("exec takes SESSION and a command: exec SESSION "
                                            "[--kernel H | --role R | --all] -- CMD..."));
    KernelSelection selection{a.value(QStringLiteral("--kernel")),
                              a.value(QStringLiteral("--role"))};
    const int chosen = int(!selection.hostname.isEmpty()) + int(!selection.role.isEmpty()) +
                       int(a.has(QStringLiteral("--all")));
    if (chosen > 1)
        return context.usage(QStringLiteral("--kernel, --role and --all exclude each other"));
    bool ok = true;
    const int parallel = a.values.contains(QStringLiteral("--parallel"))
                             ? a.value(QStringLiteral("--parallel")).toInt(&ok)
                             : 0;
    if (!ok || parallel < 0)
        return context.usage(QStringLiteral("--parallel needs a number of kernels (0: all)"));
    const double timeoutSeconds = a.values.contains(QStringLiteral("--timeout"))
                                      ? a.value(QStringLiteral("--timeout")).toDouble(&ok)
                                      : 0;
    if (!ok || timeoutSeconds < 0)
        return context.usage(QStringLiteral("--timeout needs seconds"));

    auto env = openEnv(context);
    if (!env)
        return context.fail(env.error());
    auto s = SessionController::findSession(*env->store, a.positional.first());
    if (!s)
        return context.fail(s.error());
    auto kernels = env->store->kernels(s->id);
    if (!kernels)
        return context.fail(kernels.error());
    auto selected = SessionExec::select(*kernels, selection);
    if (!selected)
        return context.fail(
            selected.error().withContext(QStringLiteral("session %1").arg(s->name)));
    int width = 0;
    for (const KernelRecord &k : std::as_const(*selected))
        width = std::max(width, int(k.hostname.size()));

    const bool json = a.has(QStringLiteral("--json"));
    const QStringList command = a.positional.mid(1);
    QTextStream &out = context.out();
    QTextStream &err = context.err();
    InterruptScope interrupt;
    SessionExec exec(env->registry.get());
    QElapsedTimer timer;
    timer.start();
    const QList<KernelExecResult> results = exec.run(
        *selected, command, parallel,
        [&](const QString &hostname, const QByteArray &line, bool isErr) {
            if (json)
                return;
            QTextStream &stream = isErr ? err : out;
            stream << hostname.leftJustified(width) << " | " << QString::fromUtf8(line) << '\n';
            stream.flush();
        },
        interrupt.token(), std::chrono::milliseconds(qint64(timeoutSeconds * 1000)));
    const int worst = SessionExec::worstExitCode(results);
    if (json) {
        QJsonArray array;
        for (const KernelExecResult &r : results)
            array.append(resultToJson(r));
        QJsonObject o;
        o.insert(QLatin1String("session"), s->id);
        o.insert(QLatin1String("name"), s->name);
        o.insert(QLatin1String("command"), QJsonArray::fromStringList(command));
        o.insert(QLatin1String("exit_code"), worst);
        o.insert(QLatin1String("duration_ms"), timer.elapsed());
        o.insert(QLatin1String("kernels"), array);
        out << QJsonDocument(o).toJson(QJsonDocument::Indented);
    } else {
        for (const KernelExecResult &r : results) {
            if (r.error)
                err << r.kernel.hostname.leftJustified(width) << " | error: " << r.error->toString()
                    << '\n';
        }
    }
    out.flush();
    err.flush();
    if (interrupt.token().isCancelled())
        return context.fail(QStringLiteral("interrupted"), 130);
    return worst;
}

int shellCommand(Context &context, const QStringList &args)
{
    Args a;
    if (const auto stop = parseArgs(context, args, QStringLiteral("shell"), &a))
        return *stop;
    if (a.positional.isEmpty())
        return context.usage(QStringLiteral("shell takes SESSION: shell SESSION --kernel H "
                                            "[--user U] [-- CMD...]"));
    auto env = openEnv(context);
    if (!env)
        return context.fail(env.error());
    auto s = SessionController::findSession(*env->store, a.positional.first());
    if (!s)
        return context.fail(s.error());
    auto kernels = env->store->kernels(s->id);
    if (!kernels)
        return context.fail(kernels.error());
    const QString hostname = a.value(QStringLiteral("--kernel"));
    std::optional<KernelRecord> kernel;
    for (const KernelRecord &k : std::as_const(*kernels)) {
        if (hostname.isEmpty() ? k.primary : k.hostname == hostname)
            kernel = k;
    }
    if (!kernel)
        return context.fail(
            QStringLiteral("session %1 has no kernel '%2'")
                .arg(s->name, hostname.isEmpty() ? QStringLiteral("(primary)") : hostname));
    auto client = env->registry->client(kernel->host);
    if (!client)
        return context.fail(client.error());

    Docker::ExecStream::Options options;
    options.command = a.positional.mid(1);
    options.user = a.value(QStringLiteral("--user"));
    RawTerminal::size(STDIN_FILENO, options.rows, options.cols);
    auto exec = Docker::ExecStream::open(
        *client, kernel->containerId.isEmpty() ? kernel->containerName : kernel->containerId,
        options);
    if (!exec)
        return context.fail(
            exec.error().withContext(QStringLiteral("shell in %1").arg(kernel->hostname)));
    Docker::ExecStream &stream = **exec;

    std::optional<Error> failure;
    {
        RawTerminal terminal(STDIN_FILENO);
        bool stdinOpen = true;
        char buffer[8192];
        while (!stream.atEnd()) {
            // Whatever is already decoded goes out before waiting (TLS buffers inside curl).
            auto ready = stream.read(0ms);
            if (!ready) {
                failure = ready.error();
                break;
            }
            if (!ready->isEmpty()) {
                if (!writeAll(STDOUT_FILENO, *ready))
                    break;
                continue;
            }
            if (stream.atEnd())
                break;
            pollfd fds[3] = {{stream.socket(), POLLIN, 0},
                             {stdinOpen ? STDIN_FILENO : -1, POLLIN, 0},
                             {terminal.windowChanges(), POLLIN, 0}};
            if (::poll(fds, 3, 1000) < 0 && errno != EINTR) {
                failure = Error::make(Error::Kind::Io, QString(), QStringLiteral("poll failed"));
                break;
            }
            if (fds[2].revents & POLLIN) {
                while (::read(terminal.windowChanges(), buffer, sizeof buffer) > 0) {
                }
                int rows = 0, cols = 0;
                if (RawTerminal::size(STDIN_FILENO, rows, cols))
                    (void)stream.resize(rows, cols);
            }
            if (fds[1].revents & (POLLIN | POLLHUP)) {
                const ssize_t n = ::read(STDIN_FILENO, buffer, sizeof buffer);
                if (n > 0) {
                    if (auto w = stream.write(QByteArray(buffer, qsizetype(n))); !w) {
                        failure = w.error();
                        break;
                    }
                } else if (n == 0 || (errno != EINTR && errno != EAGAIN)) {
                    stdinOpen = false; // EOF: the shell sees ^D
                    (void)stream.write(QByteArray("\x04"));
                }
            }
        }
        terminal.restore();
    }
    if (failure)
        return context.fail(
            failure->withContext(QStringLiteral("shell in %1").arg(kernel->hostname)));
    auto code = stream.exitCode();
    if (!code)
        return context.fail(code.error());
    return *code;
}

} // namespace ClusterDeck::Cli
