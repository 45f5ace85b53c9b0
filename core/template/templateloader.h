#pragma once

#include "clustertemplate.h"
#include "common/error.h"
#include "templatediagnostic.h"

#include <QByteArray>
#include <QString>

namespace ClusterDeck {

// Loads and validates task and cluster templates (YAML). Every problem of a file is collected in
// diagnostics(); the returned Error describes the first one and how many more there are.
class TemplateLoader
{
public:
    // Task files referenced by roles (`task: tasks/worker.yaml`) are resolved relative to the
    // folder of the cluster template.
    Result<ClusterTemplate> loadClusterFile(const QString &path);
    // `fileName` is only used in messages; task references are resolved relative to `baseDir`.
    Result<ClusterTemplate> loadClusterFromData(const QByteArray &yaml, const QString &fileName,
                                                const QString &baseDir = {});

    Result<TaskTemplate> loadTaskFile(const QString &path);
    Result<TaskTemplate> loadTaskFromData(const QByteArray &yaml, const QString &fileName,
                                          const QString &baseDir = {});

    // Problems found by the last load, in file order.
    const TemplateDiagnostics &diagnostics() const { return m_diagnostics; }

    // Every key the formats accept, per section; used for "did you mean" and by docs tests.
    static QStringList clusterKeys();
    static QStringList roleKeys();
    static QStringList taskKeys();

private:
    template<typename T>
    Result<T> finish(T value);

    TemplateDiagnostics m_diagnostics;
};

} // namespace ClusterDeck
