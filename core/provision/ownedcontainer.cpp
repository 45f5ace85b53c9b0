#include "ownedcontainer.h"

#include "docker/dockerhost.h"
#include "common/labels.h"

namespace ClusterDeck {

Result<QString> OwnedContainer::of(Docker::DockerHost &client, const KernelRecord &k,
                                   const StoreIdentity &self, const Docker::CallOptions &call)
{
    QString target = k.containerId.isEmpty() ? k.containerName : k.containerId;
    auto info = client.inspectContainer(target, call);
    // The recorded container is gone, but an interrupted restart may have made the kernel's
    // next one already (its id not recorded yet): it carries the same name.
    if (!info && info.error().kind == Error::Kind::NotFound && target != k.containerName &&
        !k.containerName.isEmpty()) {
        target = k.containerName;
        info = client.inspectContainer(target, call);
    }
    if (!info)
        return fail(info.error());
    if (!self.ownsSessionObject(info->labels, k.sessionId) ||
        info->labels.value(Labels::kernel()) != k.id ||
        !Labels::isKernelContainerName(info->name, info->labels))
        return fail(Error::Kind::Conflict, QStringLiteral("host %1").arg(k.host),
                    QStringLiteral("container %1 on host %2 is not kernel %3 of this store's "
                                   "session (its labels or name differ); left alone")
                        .arg(target, k.host, k.hostname));
    return info->id;
}

} // namespace ClusterDeck
