#pragma once

// One sample of GET /containers/{id}/stats, and the figures an admin reads from it.

#include <QMetaType>
#include <QString>
#include <QtGlobal>

#include <algorithm>

namespace ClusterDeck::Docker {

// The raw counters of one stats sample (cgroup v1 or v2), as the daemon reports them.
struct ContainerStats
{
    qint64 readMsecs = 0; // when the daemon read the sample (unix ms)
    // CPU: total usage of the container and of the whole host, now and one sample before (ns).
    quint64 cpuTotal = 0;
    quint64 preCpuTotal = 0;
    quint64 systemCpu = 0;
    quint64 preSystemCpu = 0;
    int onlineCpus = 0;
    // Memory (bytes); `inactiveFile` is the page cache the kernel may drop, not counted as used.
    quint64 memoryUsage = 0;
    quint64 memoryLimit = 0;
    quint64 inactiveFile = 0;
    // Sums over every network interface and every block device.
    quint64 rxBytes = 0;
    quint64 txBytes = 0;
    quint64 blockRead = 0;
    quint64 blockWrite = 0;
    int pids = 0;
};

// What a kernel uses, as `docker stats` shows it; summed per role and per session.
struct ResourceUsage
{
    double cpuPercent = 0; // 100 = one core
    quint64 memoryUsed = 0;
    quint64 memoryLimit = 0;
    quint64 rxBytes = 0;
    quint64 txBytes = 0;
    quint64 blockRead = 0;
    quint64 blockWrite = 0;
    int pids = 0;
    int kernels = 0; // how many samples were summed (1 for one kernel)

    double memoryPercent() const
    {
        return memoryLimit ? 100.0 * double(memoryUsed) / double(memoryLimit) : 0.0;
    }
    bool operator==(const ResourceUsage &other) const = default;
};

// `docker stats`'s arithmetic: CPU % from the deltas to the previous sample, scaled to the
// online CPUs; memory without the inactive page cache. Pure.
ResourceUsage usageOf(const ContainerStats &stats);
// Sums usages (CPU % adds up, as for `docker stats` of several containers).
ResourceUsage sumUsage(const ResourceUsage &a, const ResourceUsage &b);

} // namespace ClusterDeck::Docker

Q_DECLARE_METATYPE(ClusterDeck::Docker::ResourceUsage)
