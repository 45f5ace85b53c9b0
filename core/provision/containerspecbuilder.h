#pragma once

#include "common/error.h"
#include "docker/dockertypes.h"
#include "docker/tararchivebuilder.h"
#include "plan/clusterplan.h"
#include "store/records.h"

#include <QString>

namespace ClusterDeck {

class EnvStrings;

// What a planned kernel becomes on its host, as pure functions of the plan: the container's
// spec, the archive of its files, and the address its ports are published on.
class ContainerSpecBuilder
{
public:
    // The container a kernel becomes, joined to `network` with its hostname as alias and
    // labelled with `storeId`. Ports are published on `hostAddress` (the placed host's
    // registered address, as an IP) unless the kernel's bindAddress says otherwise. `shared`
    // (optional) joins the session-wide env values once for all of a launch's kernels.
    static Docker::ContainerSpec specFor(const KernelSpec &kernel, const QString &network,
                                         const QString &storeId, const QString &hostAddress = {},
                                         EnvStrings *shared = nullptr);
    // The files a kernel gets before it starts (bootstrap, hostfile, keys) as one tar archive.
    // `home` (default: Presets::homeOf(kernel.user)) and the folders above it get no entry of
    // their own: they exist in the image, and an entry would change their owner and mode.
    static Docker::TarArchiveBuilder filesArchiveFor(const KernelSpec &kernel,
                                                     const QString &home = {});
    // The address admins reach a host's published ports at: its registered address, else the
    // endpoint's host name, else loopback (a local socket).
    static QString publicAddressOf(const HostRecord &host);
    // The IP a host's published ports bind to by default: its registered (link) address, a
    // name resolved to its first address.
    static Result<QString> bindableAddressOf(const HostRecord &host);
};

} // namespace ClusterDeck
