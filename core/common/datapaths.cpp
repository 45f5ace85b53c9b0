#include "datapaths.h"

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>
#include <QStandardPaths>

namespace ClusterDeck {

QStringList sampleTemplateDirectories()
{
    QStringList candidates;
    if (const QString env = qEnvironmentVariable("CLUSTERDECK_TEMPLATES_DIR"); !env.isEmpty())
        candidates.append(env);
    if (QCoreApplication::instance()) {
        candidates.append(QCoreApplication::applicationDirPath()
                          + QStringLiteral("/../share/clusterdeck/templates"));
    }
    candidates.append(QStandardPaths::locateAll(QStandardPaths::GenericDataLocation,
                                                QStringLiteral("clusterdeck/templates"),
                                                QStandardPaths::LocateDirectory));
#ifdef CLUSTERDECK_SOURCE_TEMPLATES_DIR
    candidates.append(QStringLiteral(CLUSTERDECK_SOURCE_TEMPLATES_DIR));
#endif
    QStringList result;
    for (const QString &dir : std::as_const(candidates)) {
        const QFileInfo info(dir);
        const QString canonical = info.canonicalFilePath();
        if (info.isDir() && !result.contains(canonical))
            result.append(canonical);
    }
    return result;
}

QString userTemplateDirectory()
{
    return QStandardPaths::writableLocation(QStandardPaths::GenericDataLocation)
           + QStringLiteral("/clusterdeck/templates");
}

} // namespace ClusterDeck
