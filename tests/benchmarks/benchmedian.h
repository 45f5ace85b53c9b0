#pragma once

#include <QList>

#include <algorithm>

// The median of a benchmark's rounds (the mean of the middle two for an even count); 0 for none.
inline double median(QList<double> values)
{
    std::sort(values.begin(), values.end());
    const qsizetype n = values.size();
    return n == 0 ? 0.0 : n % 2 ? values.at(n / 2) : (values.at(n / 2 - 1) + values.at(n / 2)) / 2;
}

// The value at fraction `p` (0..1) of the sorted values, the nearest rank; 0 for none.
inline double percentile(QList<double> values, double p)
{
    if (values.isEmpty())
        return 0;
    std::sort(values.begin(), values.end());
    const qsizetype i = std::min(values.size() - 1, qsizetype(p * double(values.size() - 1) + 0.5));
    return values.at(i);
}
