#pragma once

#include "exportmodel.h"

namespace ClusterDeck {

// A template as a Kubernetes JobSet (jobset.x-k8s.io/v1alpha2): one replicated job per role
// (replicas 1, an Indexed Job of `count` pods), the kernel hostnames as the JobSet's pod DNS
// names, the failure and success policies mapped to JobSet's. Pure.
class JobSetExporter
{
public:
    static Result<ExportOutput> exportModel(const ExportModel &model);

    // The JobSet's name: the template name as a DNS label ("batch_job" → "batch-job").
    static QString jobSetName(const QString &templateName);
    // The stable DNS name of kernel `role``idx` (idx from 1):
    // <jobset>-<role>-0-<idx-1>.<jobset> (jobIndex 0: one Job per role).
    static QString podDnsName(const QString &jobSet, const QString &role, int idx);
    // Kubernetes expands `$(VAR)` and `$$` in command, args and env values: the text with the `$`
    // that would be read so doubled, so that the container gets `text` as written.
    static QString escapeDollars(const QString &text);
    // cpus as a Kubernetes quantity: 2 → "2", 0.25 → "250m".
    static QString cpuQuantity(double cpus);
    // bytes as a Kubernetes quantity: "64Mi", "16Gi", else the number of bytes.
    static QString memoryQuantity(qint64 bytes);
};

} // namespace ClusterDeck
