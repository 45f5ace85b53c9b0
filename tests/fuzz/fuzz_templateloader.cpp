// libFuzzer target: any bytes given to the template loader must give a template or a list of
// diagnostics — never a crash, a hang or a leak. Loads as a cluster template and as a task template;
// a loaded cluster template must also survive the writer.

#include "template/templateloader.h"
#include "template/templatewriter.h"

#include <QByteArray>
#include <QString>

#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const QByteArray yaml(reinterpret_cast<const char *>(data), qsizetype(size));
    // Task-file references resolve against a folder that does not exist, so no real file is read.
    const QString dir = QStringLiteral("/nonexistent-fuzz-dir");
    const QString name = dir + QStringLiteral("/fuzz.yaml");
    {
        ClusterDeck::TemplateLoader loader;
        if (auto cluster = loader.loadClusterFromData(yaml, name, dir))
            (void)ClusterDeck::TemplateWriter::toYaml(*cluster);
    }
    {
        ClusterDeck::TemplateLoader loader;
        (void)loader.loadTaskFromData(yaml, name, dir);
    }
    return 0;
}
