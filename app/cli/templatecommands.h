#pragma once

#include "clicontext.h"
#include "plan/imagedefaults.h"
#include "template/clustertemplate.h"

#include <QStringList>

#include <functional>

class QTextStream;

namespace ClusterDeck::Cli {

// `template validate FILE...` and `template render FILE [--count ROLE=N]... [--env K=V]...
// [--json]`. Neither needs a store nor Docker; when a store with registered hosts exists,
// render takes the images' defaults (ENV, service ports) from them, as a launch would.
// `args` starts after the word "template".
int templateCommand(Context &context, const QStringList &args);

// Image defaults for render; unset or empty: none (the plan shows the template alone).
using ImageDefaultsLookup = std::function<ImageDefaultsMap(const ClusterTemplate &t)>;

// The same on plain streams (used by templateCommand; handy in tests). Returns the exit status.
int runTemplateCommand(const QStringList &args, QTextStream &out, QTextStream &err,
                       const ImageDefaultsLookup &images = {});

} // namespace ClusterDeck::Cli
