#include "commandsupport.h"

#include "commandspec.h"
#include "host/hostregistry.h"
#include "store/statestore.h"

#include <unistd.h>

namespace ClusterDeck::Cli {

namespace {

CancelToken *g_interrupt = nullptr;
const char *g_firstNotice = nullptr;
const char *g_secondNotice = nullptr;
volatile sig_atomic_t g_signals = 0;

void writeNotice(const char *text)
{
    if (!text)
        return;
    size_t n = 0;
    while (text[n])
        ++n;
    [[maybe_unused]] const ssize_t written = ::write(STDERR_FILENO, text, n);
}

// Async-signal-safe: an atomic flag, write(2) and _exit(2) only.
extern "C" void onInterrupt(int)
{
    g_signals = g_signals + 1;
    if (g_signals >= 2) {
        writeNotice(g_secondNotice ? g_secondNotice
                                   : "\nerror: interrupted again: exiting now; the controller "
                                     "finishes what was under way\n");
        ::_exit(130);
    }
    writeNotice(g_firstNotice);
    if (g_interrupt)
        g_interrupt->cancel();
}

} // namespace

InterruptScope::InterruptScope(const char *firstNotice, const char *secondNotice)
{
    g_interrupt = &m_token;
    g_firstNotice = firstNotice;
    g_secondNotice = secondNotice;
    g_signals = 0;
    struct sigaction sa = {};
    sa.sa_handler = onInterrupt;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, &m_oldInt);
    sigaction(SIGTERM, &sa, &m_oldTerm);
}

InterruptScope::~InterruptScope()
{
    sigaction(SIGINT, &m_oldInt, nullptr);
    sigaction(SIGTERM, &m_oldTerm, nullptr);
    g_interrupt = nullptr;
}

int usageError(QTextStream &err, const QString &message, const QString &helpCommand)
{
    err << "error: " << message << " (see clusterdeckctl "
        << (helpCommand.isEmpty() ? QString() : helpCommand + QLatin1Char(' ')) << "--help)\n";
    err.flush();
    return 2;
}

int failWith(QTextStream &err, const QString &message)
{
    err << "error: " << message << '\n';
    err.flush();
    return 1;
}

QString actor()
{
    const QString user = qEnvironmentVariable("USER", QStringLiteral("admin"));
    return user + QStringLiteral("@cli");
}

Result<Env> openEnv(Context &context)
{
    auto store = context.store();
    if (!store)
        return fail(store.error());
    Env env;
    env.store = *store;
    env.registry = std::make_unique<HostRegistry>(*store);
    return env;
}

std::optional<int> parseArgs(Context &context, const QStringList &args, const QString &command,
                             Args *out)
{
    const CommandSpec &spec = commandSpec(command);
    *out = Args::parse(args, spec);
    if (out->helpRequested) {
        context.out() << helpText(spec);
        context.out().flush();
        return 0;
    }
    if (!out->error.isEmpty())
        return context.usage(
            QStringLiteral("%1 (see clusterdeckctl %2 --help)").arg(out->error, command));
    return std::nullopt;
}

} // namespace ClusterDeck::Cli
