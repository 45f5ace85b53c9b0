#include "usageaggregator.h"

namespace ClusterDeck {

void UsageAggregator::set(const KernelKey &key, const Docker::ResourceUsage &usage)
{
    m_kernels.insert(key.kernelId, Entry{key, usage});
}

void UsageAggregator::remove(const QString &kernelId)
{
    m_kernels.remove(kernelId);
}

void UsageAggregator::clear()
{
    m_kernels.clear();
}

std::optional<Docker::ResourceUsage> UsageAggregator::kernel(const QString &kernelId) const
{
    const auto it = m_kernels.constFind(kernelId);
    if (it == m_kernels.cend())
        return std::nullopt;
    return it->usage;
}

Docker::ResourceUsage UsageAggregator::role(const QString &sessionId, const QString &role) const
{
    Docker::ResourceUsage sum;
    for (const Entry &e : m_kernels) {
        if (e.key.sessionId == sessionId && e.key.role == role)
            sum = Docker::sumUsage(sum, e.usage);
    }
    return sum;
}

Docker::ResourceUsage UsageAggregator::session(const QString &sessionId) const
{
    Docker::ResourceUsage sum;
    for (const Entry &e : m_kernels) {
        if (e.key.sessionId == sessionId)
            sum = Docker::sumUsage(sum, e.usage);
    }
    return sum;
}

QHash<QString, Docker::ResourceUsage> UsageAggregator::byHost() const
{
    QHash<QString, Docker::ResourceUsage> sums;
    for (const Entry &e : m_kernels) {
        if (!e.key.host.isEmpty())
            sums[e.key.host] = Docker::sumUsage(sums.value(e.key.host), e.usage);
    }
    return sums;
}

} // namespace ClusterDeck
