#include "statstypes.h"

namespace ClusterDeck::Docker {

ResourceUsage usageOf(const ContainerStats &s)
{
    ResourceUsage u;
    // Counters restart with the container: a negative delta means no usable previous sample.
    if (s.cpuTotal > s.preCpuTotal && s.systemCpu > s.preSystemCpu && s.preSystemCpu > 0) {
        const double cpuDelta = double(s.cpuTotal - s.preCpuTotal);
        const double systemDelta = double(s.systemCpu - s.preSystemCpu);
        u.cpuPercent = cpuDelta / systemDelta * double(std::max(1, s.onlineCpus)) * 100.0;
    }
    u.memoryUsed = s.memoryUsage > s.inactiveFile ? s.memoryUsage - s.inactiveFile : s.memoryUsage;
    u.memoryLimit = s.memoryLimit;
    u.rxBytes = s.rxBytes;
    u.txBytes = s.txBytes;
    u.blockRead = s.blockRead;
    u.blockWrite = s.blockWrite;
    u.pids = s.pids;
    u.kernels = 1;
    return u;
}

ResourceUsage sumUsage(const ResourceUsage &a, const ResourceUsage &b)
{
    ResourceUsage u;
    u.cpuPercent = a.cpuPercent + b.cpuPercent;
    u.memoryUsed = a.memoryUsed + b.memoryUsed;
    u.memoryLimit = a.memoryLimit + b.memoryLimit;
    u.rxBytes = a.rxBytes + b.rxBytes;
    u.txBytes = a.txBytes + b.txBytes;
    u.blockRead = a.blockRead + b.blockRead;
    u.blockWrite = a.blockWrite + b.blockWrite;
    u.pids = a.pids + b.pids;
    u.kernels = a.kernels + b.kernels;
    return u;
}

} // namespace ClusterDeck::Docker
