#include "bytesize.h"

#include <QLocale>

namespace ClusterDeck {

QString formatBytes(qint64 bytes)
{
    return QLocale::c().formattedDataSize(std::max<qint64>(0, bytes), 1,
                                          QLocale::DataSizeIecFormat);
}

} // namespace ClusterDeck
