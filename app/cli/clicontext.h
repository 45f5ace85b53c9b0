#pragma once

#include "common/error.h"

#include <QString>
#include <QStringList>
#include <QTextStream>

#include <memory>

namespace ClusterDeck {
class StateStore;
}

namespace ClusterDeck::Cli {

// What every command gets: output streams, the global options, and the store (opened lazily,
// so commands that need none — `template validate` — work without one).
class Context
{
public:
    explicit Context(QString storeOption);
    ~Context();

    QTextStream &out() { return m_out; }
    QTextStream &err() { return m_err; }

    // Opened from --store, then $CLUSTERDECK_STORE, then the config file, then the default path.
    Result<StateStore *> store();
    const QString &storeOption() const { return m_storeOption; }

    // Prints `error: …` (one line) and returns the exit status to use.
    int fail(const Error &error);
    int fail(const QString &message, int status = 1);
    // Usage mistakes exit with 2.
    int usage(const QString &message) { return fail(message, 2); }

private:
    QString m_storeOption;
    QTextStream m_out;
    QTextStream m_err;
    std::unique_ptr<StateStore> m_store;
};

// A command group's entry point: `args` starts after the group name (`host add …` → `add …`).
using CommandFunction = int (*)(Context &context, const QStringList &args);

} // namespace ClusterDeck::Cli
