#pragma once

#include "exportmodel.h"

namespace ClusterDeck {

// A template as a Compose file (compose-spec) for one Docker host: one service per kernel
// (master1, worker1, …) with its hostname, on one network, so the short hostnames the template
// uses resolve as they do in a session. Pure.
class ComposeExporter
{
public:
    static Result<ExportOutput> exportModel(const ExportModel &model);

    // The project name: lowercase letters, digits, '-' and '_', starting with a letter or digit.
    static QString projectName(const QString &templateName);
    // Compose interpolates `$VAR` and `${VAR}` from the host's environment: every `$` doubled,
    // so that the container gets `text` as written.
    static QString escapeDollars(const QString &text);
    // bytes as a Compose byte value: "64m", "16g", else the number of bytes.
    static QString memoryValue(qint64 bytes);

    // The one network every service is on.
    static constexpr auto kNetwork = "cluster";
};

} // namespace ClusterDeck
