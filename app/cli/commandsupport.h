#pragma once

#include "args.h"
#include "clicontext.h"
#include "http/httptypes.h"

#include <QString>
#include <QTextStream>

#include <csignal>
#include <memory>
#include <optional>

namespace ClusterDeck {
class HostRegistry;
class StateStore;
} // namespace ClusterDeck

namespace ClusterDeck::Cli {

// While alive, Ctrl-C and SIGTERM cancel `token()` (launch rolls back, logs/watch stop). A second
// one leaves the rest to the controller: it prints `secondNotice` and exits at once (status 130).
// The notices must be plain text; the handler writes them with write(2).
class InterruptScope
{
public:
    explicit InterruptScope(const char *firstNotice = nullptr, const char *secondNotice = nullptr);
    ~InterruptScope();
    InterruptScope(const InterruptScope &) = delete;
    InterruptScope &operator=(const InterruptScope &) = delete;

    const CancelToken &token() const { return m_token; }

private:
    CancelToken m_token;
    struct sigaction m_oldInt = {};
    struct sigaction m_oldTerm = {};
};

// Reads `args` (the words after the subcommand) by the spec named `command` into `*out`. Returns
// the exit status when the command stops here: 0 after printing its `--help`, 2 after a usage
// error (one line, pointing at the help); nothing when the command goes on.
std::optional<int> parseArgs(Context &context, const QStringList &args, const QString &command,
                             Args *out);

// For commands that write to streams rather than a Context (template, export): one `error:`
// line on `err`. A usage mistake points at `helpCommand`'s --help (empty: the tool's) and
// returns 2; a failure returns 1.
int usageError(QTextStream &err, const QString &message, const QString &helpCommand = {});
int failWith(QTextStream &err, const QString &message);

// Who acts, for the event log: "$USER@cli".
QString actor();

// The store and the hosts registered in it, as most commands need them.
struct Env
{
    StateStore *store = nullptr;
    std::unique_ptr<HostRegistry> registry;
};
Result<Env> openEnv(Context &context);

} // namespace ClusterDeck::Cli
