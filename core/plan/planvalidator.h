#pragma once

#include "clusterplan.h"
#include "common/error.h"

namespace ClusterDeck {

// The rules a template's values obey, checked on a resolved plan: the one the resolver has just
// made and, the same way, one read back from the store (a spec in etcd is writable by anyone who
// can write to etcd; the controller recreates kernels from it). Pure: no I/O.
class PlanValidator
{
public:
    // `where` names the plan in the error ("session 5e55…", "template lab-basic").
    static Result<void> validate(const ClusterPlan &plan, const QString &where);
    // The host paths the plan's kernels mount, each once: "/srv/data (ro)", "/var/run/docker.sock
    // (rw)" — what `template render` and the launch dialog show before anything starts.
    static QStringList hostPaths(const ClusterPlan &plan);
};

} // namespace ClusterDeck
