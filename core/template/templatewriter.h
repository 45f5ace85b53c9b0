#pragma once

#include "clustertemplate.h"
#include "common/error.h"

#include <QByteArray>
#include <QString>

namespace ClusterDeck {

// Writes templates back to YAML in a fixed, readable field order (the visual editor saves through
// here). Loading what was written gives an equal template. Roles that reference a task file keep
// the reference; that file is not rewritten.
class TemplateWriter
{
public:
    static QByteArray toYaml(const ClusterTemplate &t);
    static QByteArray toYaml(const TaskTemplate &task);

    // Atomic: the old file stays intact if writing fails.
    static Result<void> save(const ClusterTemplate &t, const QString &path);
    static Result<void> save(const TaskTemplate &task, const QString &path);
    // Saves YAML text as it is (a patched file), atomically as save() does.
    static Result<void> saveYaml(const QByteArray &yaml, const QString &path);
};

} // namespace ClusterDeck
