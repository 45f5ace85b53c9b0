#pragma once

#include <QHash>
#include <QMap>
#include <QString>
#include <QStringList>

namespace ClusterDeck {

// What an image brings by itself (from `docker image inspect`): the lowest precedence level.
// Passed into the resolver so that it stays free of I/O.
struct ImageDefaults
{
    QMap<QString, QString> env;    // image ENV
    QMap<QString, QString> labels; // e.g. io.clusterdeck.service-ports="web:http:8080"
    QStringList entrypoint;
    QStringList command;
    QString workingDir;
    QString user;
};

// Keyed by the image reference exactly as written in the template.
using ImageDefaultsMap = QHash<QString, ImageDefaults>;

} // namespace ClusterDeck
