#pragma once

#include <QMultiMap>
#include <QSet>
#include <QString>
#include <QStringList>

namespace ClusterDeck::Cli {

struct CommandSpec;

// The one parser of clusterdeckctl's subcommands: the words after the subcommand, read by the
// command's CommandSpec (commandspec.h), which is also what `--help` and shell completion read.
//
// Why not a QCommandLineParser per subcommand: it is made for one application (its help prints
// "Usage: clusterdeckctl [options]", process() exits with status 1 where the CLI contract says 2
// for usage errors, its error texts differ from the ones scripts already match), and it has no
// notion of what a value is (a session, a role, a file) that completion needs. One table of
// specs and this small reader give every subcommand the same syntax, help and completion.
//
// Syntax: `--name value`, `--name=value`, flags, short aliases where a spec names them ("-u"),
// positional words in order; everything after `--` is positional (a command to run). Values are
// kept under the option's canonical name (`-u x` → values["--username"]).
struct Args
{
    QStringList positional;
    QMultiMap<QString, QString> values;
    QSet<QString> flags;
    QString error;              // the words do not parse: the command prints it as a usage error
    bool helpRequested = false; // -h or --help before any `--`

    static Args parse(const QStringList &args, const CommandSpec &spec);

    // Every value given for `key`, in the order given.
    QStringList all(const QString &key) const;
    QString value(const QString &key) const { return values.value(key); }
    bool has(const QString &flag) const { return flags.contains(flag); }
};

} // namespace ClusterDeck::Cli
