#pragma once

#include "records.h"

#include <QHash>
#include <QList>
#include <QtGlobal>

#include <algorithm>
#include <limits>

namespace ClusterDeck {

// What ClusterDeck has placed on one host: kernels whose desired state is Running.
struct HostAllocation
{
    int kernels = 0;
    double cpus = 0;          // sum of the kernels' CPU limits (kernels without one count 0)
    qint64 memoryBytes = 0;   // sum of the kernels' memory limits
    int unlimitedKernels = 0; // kernels without a CPU or memory limit

    // Counts `kernel` in (whatever its host and desired state: the caller chooses).
    void add(const KernelRecord &kernel)
    {
        ++kernels;
        if (kernel.cpus)
            cpus += *kernel.cpus;
        // Saturating: records are input too, and a wrapped sum would make a full host look
        // empty.
        if (kernel.memoryBytes &&
            __builtin_add_overflow(memoryBytes, std::max<qint64>(0, *kernel.memoryBytes),
                                   &memoryBytes))
            memoryBytes = std::numeric_limits<qint64>::max();
        if (!kernel.cpus || !kernel.memoryBytes)
            ++unlimitedKernels;
    }
    // The kernels whose desired state is Running, summed per host (host name → sums).
    static QHash<QString, HostAllocation> byHost(const QList<KernelRecord> &all)
    {
        QHash<QString, HostAllocation> sums;
        for (const KernelRecord &kernel : all) {
            if (kernel.desired == DesiredState::Running)
                sums[kernel.host].add(kernel);
        }
        return sums;
    }
    friend bool operator==(const HostAllocation &, const HostAllocation &) = default;
};

} // namespace ClusterDeck
