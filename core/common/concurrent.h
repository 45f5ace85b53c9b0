#pragma once

#include "boundedexecutor.h"

#include <QString>

#include <functional>

// Fan-out over the process's BoundedExecutor: at most 32 worker threads in all, whatever the
// number of items (a role may have 100,000 kernels), and per host at most `perHost` calls at once.
namespace ClusterDeck::Concurrent {

// Runs fn(0) … fn(n-1), a bounded number at once, and waits for all. Returns how many did not
// start (only after an exception, which is rethrown).
inline int forEach(int n, const std::function<void(int)> &fn)
{
    return BoundedExecutor::shared().forEach(n, fn);
}

// The same, with at most `perHost` items of one host (hostOf(i)) at once (0: the executor's
// limit, 8), and no item started once `cancel` is cancelled: returns how many did not start.
inline int forEachPerHost(int n, const std::function<QString(int)> &hostOf,
                          const std::function<void(int)> &fn, int perHost = 0,
                          const CancelToken &cancel = {})
{
    BoundedExecutor::Options options;
    options.keyOf = hostOf;
    options.perKey = perHost;
    options.cancel = cancel;
    return BoundedExecutor::shared().forEach(n, fn, options);
}

} // namespace ClusterDeck::Concurrent
