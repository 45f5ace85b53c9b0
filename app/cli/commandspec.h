#pragma once

#include <QList>
#include <QString>
#include <QStringList>

namespace ClusterDeck::Cli {

// What a word on the command line stands for: shell completion offers candidates by it.
enum class ValueKind {
    None,      // a flag takes no value
    Text,      // anything: nothing to offer
    File,      // a path (the shell completes files)
    Session,   // a session of the store (name or id)
    Kernel,    // a kernel hostname of the session named before
    Role,      // a role of the session named before
    RoleCount, // ROLE=N, ROLE of the session (or template) named before
    Host,      // a registered host
    Choice,    // one of OptionSpec::choices
    Command,   // a command to run in a kernel (after --)
};

struct OptionSpec
{
    QString name;      // "--count"
    QString valueName; // "ROLE=N"; empty: a flag
    QString help;
    ValueKind kind = ValueKind::None;
    QStringList choices; // for ValueKind::Choice
    QStringList aliases; // other spellings: "-f", "-u", "--username"
    bool repeatable = false;

    bool takesValue() const { return !valueName.isEmpty(); }
};

// One subcommand ("launch", "host add"): its words, for parsing, `--help` and completion alike.
struct CommandSpec
{
    QString name;                 // "host add"
    QString synopsis;             // after the name: "NAME --docker ENDPOINT [--label K=V]..."
    QString summary;              // what it does, a line or two
    QList<OptionSpec> options;    // --help/-h is every command's and not listed here
    QList<ValueKind> positionals; // what each positional word is; the last one repeats
    bool hidden = false;          // not in the overview (__complete)

    const OptionSpec *option(const QString &nameOrAlias) const;
    ValueKind positionalKind(int index) const;
};

// Every subcommand of clusterdeckctl, in the order the overview lists them.
const QList<CommandSpec> &commandSpecs();
// The options that come before the command (`--store URL`, `--help`, `--version`): what the
// overview and the Markdown reference say of them (cli.cpp reads them).
const QList<OptionSpec> &globalOptions();
// The spec named `name` ("launch", "host add"); every caller names one that exists.
const CommandSpec &commandSpec(const QString &name);
// The longest spec name that `words` start with ("host add NAME…" → "host add"); nullptr if none.
// `*consumed` gets the number of words the name took.
const CommandSpec *findCommandSpec(const QStringList &words, int *consumed = nullptr);
// Group words ("host", "image", "store key") and the subcommands under each.
QStringList subcommandsOf(const QString &group);

// `clusterdeckctl NAME --help`: usage line, summary, options with their help.
QString helpText(const CommandSpec &spec);
// `clusterdeckctl GROUP --help` ("host", "image"): the usage lines of its subcommands.
QString groupHelpText(const QString &group);
// `clusterdeckctl --help`: every visible command's usage and summary, and the global options.
QString overviewText();
// `clusterdeckctl help --markdown`: the global options and every visible command (usage, summary,
// options) as Markdown, the CLI reference of docs/contracts.md (scripts/cli-reference.sh).
QString markdownReference();

} // namespace ClusterDeck::Cli
