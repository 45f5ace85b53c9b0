#pragma once

#include <QString>

// An address on the lab's own bridge subnet (taken from `scripts/lab.sh env`), so that tests which
// need an unused or a lab address never aim outside the lab, whichever CLUSTERDECK_LAB_ID runs.
inline QString labSubnetAddress(int lastOctet)
{
    const QString h1 = qEnvironmentVariable("CLUSTERDECK_LAB_H1_ADDR");
    return h1.section(QLatin1Char('.'), 0, 2) + QLatin1Char('.') + QString::number(lastOctet);
}
