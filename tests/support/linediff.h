#pragma once

#include <QList>

#include <algorithm>
#include <vector>

namespace ClusterDeck::Test {

// Which lines two texts do not share, by a longest common subsequence of lines (the texts the
// template tests compare are a few dozen lines): the 0-based lines of `before` that are gone and
// of `after` that are new.
struct LineDiff
{
    QList<int> removed;
    QList<int> added;
};

// `Lines` is a QStringList or a QByteArrayList.
template<typename Lines>
LineDiff diffLines(const Lines &before, const Lines &after)
{
    const qsizetype n = before.size(), m = after.size();
    std::vector<std::vector<int>> lcs(n + 1, std::vector<int>(m + 1, 0));
    for (qsizetype i = n - 1; i >= 0; --i)
        for (qsizetype j = m - 1; j >= 0; --j)
            lcs[i][j] = before[i] == after[j] ? lcs[i + 1][j + 1] + 1
                                              : std::max(lcs[i + 1][j], lcs[i][j + 1]);
    LineDiff d;
    qsizetype i = 0, j = 0;
    while (i < n || j < m) {
        if (i < n && j < m && before[i] == after[j]) {
            ++i;
            ++j;
        } else if (j < m && (i == n || lcs[i][j + 1] >= lcs[i + 1][j])) {
            d.added.append(int(j++));
        } else {
            d.removed.append(int(i++));
        }
    }
    return d;
}

} // namespace ClusterDeck::Test
