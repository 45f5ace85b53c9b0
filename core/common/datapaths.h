#pragma once

#include <QStringList>

namespace ClusterDeck {

// Folders holding the shipped sample templates, most specific first: $CLUSTERDECK_TEMPLATES_DIR,
// the installed share/clusterdeck/templates (next to the binary, then the XDG data dirs), and in a
// development build the source tree's templates/. Only existing folders are returned.
QStringList sampleTemplateDirectories();

// Where the admin's own templates live: $XDG_DATA_HOME/clusterdeck/templates (created on demand).
QString userTemplateDirectory();

} // namespace ClusterDeck
