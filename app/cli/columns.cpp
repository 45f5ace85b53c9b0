#include "columns.h"

#include <algorithm>

namespace ClusterDeck::Cli {

QStringList alignColumns(const QList<QStringList> &rows)
{
    QList<qsizetype> widths;
    for (const QStringList &row : rows) {
        if (widths.size() < row.size())
            widths.resize(row.size(), 0);
        for (qsizetype c = 0; c < row.size(); ++c)
            widths[c] = std::max(widths[c], row.at(c).size());
    }
    QStringList lines;
    lines.reserve(rows.size());
    for (const QStringList &row : rows) {
        QString line;
        for (qsizetype c = 0; c < row.size(); ++c)
            line += c + 1 == row.size() ? row.at(c) : row.at(c).leftJustified(widths.at(c) + 2);
        lines.append(line);
    }
    return lines;
}

} // namespace ClusterDeck::Cli
