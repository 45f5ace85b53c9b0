#pragma once

#include "docker/statstypes.h"

#include <QHash>
#include <QString>

#include <optional>

namespace ClusterDeck {

// The latest usage of each kernel, summed per role and per session. Pure bookkeeping (no I/O);
// a kernel whose stream ended is removed, so sums cover the kernels that report.
class UsageAggregator
{
public:
    struct KernelKey
    {
        QString sessionId;
        QString role;
        QString kernelId;
        QString host; // where the kernel runs (for the Hosts view's sums); may be empty
    };

    void set(const KernelKey &key, const Docker::ResourceUsage &usage);
    void remove(const QString &kernelId);
    void clear();

    std::optional<Docker::ResourceUsage> kernel(const QString &kernelId) const;
    Docker::ResourceUsage role(const QString &sessionId, const QString &role) const;
    Docker::ResourceUsage session(const QString &sessionId) const;
    // Every reporting kernel's usage summed per host (kernels without a host are left out).
    QHash<QString, Docker::ResourceUsage> byHost() const;
    int size() const { return int(m_kernels.size()); }

private:
    struct Entry
    {
        KernelKey key;
        Docker::ResourceUsage usage;
    };
    QHash<QString, Entry> m_kernels;
};

} // namespace ClusterDeck
