#include "themeicon.h"

#include <QFile>

namespace ClusterDeck::Ui {

namespace {
QString fallbackPath(const QString &name)
{
    return QStringLiteral(":/clusterdeck/icons/%1.svg").arg(name);
}
} // namespace

QIcon themeIcon(const QString &name)
{
    const QString fallback = fallbackPath(name);
    if (!QFile::exists(fallback))
        return QIcon::fromTheme(name);
    return QIcon::fromTheme(name, QIcon(fallback));
}

bool hasFallbackIcon(const QString &name)
{
    return QFile::exists(fallbackPath(name));
}

} // namespace ClusterDeck::Ui
