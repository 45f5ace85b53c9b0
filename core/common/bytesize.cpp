#include "bytesize.h"

#include <QLocale>

namespace ClusterDeck {

QString formatBytes(qint64 bytes)
{
    return QLocale::c().formattedDataSize(std::max<qint64>(0, bytes), 1,
                                          QLocale::DataSizeIecFormat);
}

QString formatBytesCompact(qint64 bytes)
{
    QString text = formatBytes(bytes);
    if (text.endsWith(QLatin1String(" bytes"))) {
        text.chop(5);
        text.append(u'B');
    }
    return text.remove(u' ');
}

} // namespace ClusterDeck
