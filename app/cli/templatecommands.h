#pragma once

#include "clicontext.h"

#include <QStringList>

class QTextStream;

namespace ClusterDeck::Cli {

// `template validate FILE...` and `template render FILE [--count ROLE=N]... [--env K=V]...
// [--json]`. Neither needs a store nor Docker. `args` starts after the word "template".
int templateCommand(Context &context, const QStringList &args);

// The same on plain streams (used by templateCommand; handy in tests). Returns the exit status.
int runTemplateCommand(const QStringList &args, QTextStream &out, QTextStream &err);

} // namespace ClusterDeck::Cli
