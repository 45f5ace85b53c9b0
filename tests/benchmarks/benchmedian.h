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
