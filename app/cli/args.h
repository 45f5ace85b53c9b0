#pragma once

#include <QMultiMap>
#include <QSet>
#include <QString>
#include <QStringList>

namespace ClusterDeck::Cli {

// One subcommand's words: `--name X`, `--name=X`, flags, and positional arguments in order.
// Every subcommand names its valued options and its flags, so an unknown option is an error.
struct Args
{
    QStringList positional;
    QMultiMap<QString, QString> values;
    QSet<QString> flags;
    QString error; // set when the words do not parse; the command prints it as a usage error

    static Args parse(const QStringList &args, const QStringList &valued,
                      const QStringList &flagNames);

    // Every value given for `key`, in the order given.
    QStringList all(const QString &key) const;
    QString value(const QString &key) const { return values.value(key); }
    bool has(const QString &flag) const { return flags.contains(flag); }
};

} // namespace ClusterDeck::Cli
