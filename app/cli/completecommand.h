#pragma once

#include "clicontext.h"

#include <QStringList>

#include <functional>

namespace ClusterDeck::Cli {

// `clusterdeckctl __complete WORD... CURRENT` (hidden; the bash and zsh completion scripts call
// it): the candidates for CURRENT, one per line, given the words before it (as typed after
// `clusterdeckctl`, global options included). Subcommands and flags come from the command specs,
// session, kernel, role and host names from the store (only one that exists: completing never
// creates a store), role names of `launch FILE --count` from the template. A line `:files` asks
// the shell to complete file names. Always exits 0 and prints nothing on stderr.
int completeCommand(Context &context, const QStringList &args);

// The same, as a function of the words and of where names come from (tests give their own).
struct CompletionNames
{
    // Each may be empty; the argument is the session the words named (id, short id or name).
    std::function<QStringList()> sessions;
    std::function<QStringList()> hosts;
    std::function<QStringList(const QString &session)> kernels; // hostnames
    std::function<QStringList(const QString &session)> roles;
    std::function<QStringList(const QString &templateFile)> templateRoles;
};
QStringList completions(const QStringList &words, const CompletionNames &names);

} // namespace ClusterDeck::Cli
