#include "kernelstore.h"

#include <QHash>

namespace ClusterDeck {

Result<QHash<QString, HostAllocation>> KernelStore::allocationsByHost() const
{
    auto kernels = allKernels();
    if (!kernels)
        return fail(kernels.error());
    return HostAllocation::byHost(*kernels);
}

Result<void> KernelStore::recordKernelProgress(const QList<KernelProgress> &progress,
                                               const std::optional<SessionRecord> &session)
{
    QList<KernelRef> refs;
    QHash<QString, const KernelProgress *> byId;
    refs.reserve(progress.size());
    for (const KernelProgress &p : progress) {
        refs.append(p.kernel);
        byId.insert(p.kernel.sessionId + u'/' + p.kernel.kernelId, &p);
    }
    const auto apply = [&byId](KernelRecord &k) {
        const KernelProgress *p = byId.value(k.sessionId + u'/' + k.id);
        if (!p)
            return false;
        for (const KernelStatusChange &change : p->changes) {
            k.status = change.status;
            k.history.append(change);
        }
        if (p->containerId)
            k.containerId = *p->containerId;
        if (p->ports)
            k.ports = *p->ports;
        if (p->desired)
            k.desired = *p->desired;
        k.updatedAt = p->updatedAt;
        return true;
    };
    if (session) {
        // With the session in the same transaction: updateKernels() is the one that takes both.
        auto current = kernels(session->id);
        if (!current)
            return fail(current.error());
        QList<KernelRecord> changed;
        for (KernelRecord &k : *current) {
            if (apply(k))
                changed.append(std::move(k));
        }
        return updateKernels(changed, session);
    }
    auto changed = modifyKernels(refs, apply);
    if (!changed)
        return fail(changed.error());
    return {};
}

} // namespace ClusterDeck
