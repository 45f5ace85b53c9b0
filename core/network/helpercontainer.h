#pragma once

#include "common/error.h"
#include "docker/dockerhost.h"

#include <QByteArray>
#include <QString>

#include <chrono>
#include <functional>

namespace ClusterDeck {

// A short-lived container that runs one shell script in a host's network namespace (host
// network, NET_ADMIN and no other capability) and is removed after its exit code and output are
// read (so not AutoRemove: that would race the read). A run killed with its caller (kill -9)
// leaves the container behind: the next run of the same name removes it, and removeLeftovers
// sweeps those of a store.
class HelperContainer
{
public:
    struct Run
    {
        QString image;
        QString name; // deterministic per session: a leftover is found by it
        QString script;
        Docker::Labels labels; // the store's, the session's and Labels::helper()
        // The removal after the run takes at most this long, whatever time the run has left:
        // a host that froze meanwhile must not hold the caller for the whole run's time (a
        // helper left so is removed with its session's objects, or by removeLeftovers).
        std::chrono::milliseconds cleanupLimit{10000};
    };
    // What a caller runs between the steps of run(): VxlanNetwork::prepare() creates a host's
    // helper before the bridge its script needs exists, and lets the kernels' creates (which
    // crowd the daemon) begin only once the helpers have started.
    struct Hooks
    {
        // Between create and start (may wait, within the run's time): an error removes the
        // container unstarted and is the run's.
        std::function<Result<void>()> beforeStart;
        // Once the start call returned (started or not), before the output is read.
        std::function<void()> afterStart;
    };
    struct Outcome
    {
        static constexpr qsizetype kMaxOutput = 1024 * 1024;
        int exitCode = -1;
        QByteArray out;
        QByteArray err;
    };

    // The container of `run` (pure).
    static Docker::ContainerSpec containerSpec(const Run &run);

    // Creates, starts, reads to the end and removes the container, all within options.timeout.
    // A leftover of the same name (checked by its labels) is removed first.
    static Result<Outcome> run(const Docker::DockerHost &host, const Run &run,
                               const Docker::CallOptions &options, const Hooks &hooks = {});

    // Removes the helper containers that carry all of `labels` and have exited, or were made
    // more than `minAgeSeconds` ago (a run never lasts that long): what killed runs left.
    // Returns how many were removed.
    static Result<int> removeLeftovers(const Docker::DockerHost &host, const Docker::Labels &labels,
                                       qint64 nowSeconds, qint64 minAgeSeconds,
                                       const Docker::CallOptions &options);
};

} // namespace ClusterDeck
