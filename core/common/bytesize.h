#pragma once

#include <QString>

namespace ClusterDeck {

// A size as everything ClusterDeck prints it (CLI, console, errors): IEC units with one decimal,
// "512 bytes", "1.5 KiB", "2.0 GiB", in the C locale so that scripts and tests read the same
// text everywhere. Negative sizes print as 0.
QString formatBytes(qint64 bytes);
// The same in a table cell that scripts split on blanks: "512B", "1.5KiB", "2.0GiB".
QString formatBytesCompact(qint64 bytes);

} // namespace ClusterDeck
