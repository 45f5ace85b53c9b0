#pragma once

#include "common/error.h"
#include "store/records.h"
#include "store/storeidentity.h"

namespace ClusterDeck {

namespace Docker {
class DockerHost;
struct CallOptions;
} // namespace Docker

// The container of a kernel, found so that nothing acts on another's container: by the recorded
// id (else the kernel's name, for an interrupted restart that made the next one already), and
// accepted only when its labels say it is this store's container of that kernel and its name is
// the one they give it. Restart, stop, exec and logs go through here.
class OwnedContainer
{
public:
    // Its id; Conflict (left alone, with why) when the container there is not the kernel's.
    static Result<QString> of(Docker::DockerHost &client, const KernelRecord &kernel,
                              const StoreIdentity &self, const Docker::CallOptions &call);
};

} // namespace ClusterDeck
