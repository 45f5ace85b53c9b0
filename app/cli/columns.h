#pragma once

#include <QList>
#include <QStringList>

namespace ClusterDeck::Cli {

// The rows of a CLI table as lines: each column padded to its widest cell plus two spaces, the
// last one left as it is (no trailing blanks).
QStringList alignColumns(const QList<QStringList> &rows);

} // namespace ClusterDeck::Cli
