#pragma once

#include "common/error.h"
#include "hostallocation.h"
#include "records.h"

#include <QHash>

#include <functional>
#include <optional>

namespace ClusterDeck {

// What an operation learned of one kernel since it last wrote it (see recordKernelProgress).
struct KernelProgress
{
    KernelRef kernel;
    QList<KernelStatusChange> changes; // each appended to the history; the last one's is the status
    std::optional<QString> containerId;
    std::optional<QList<PortBinding>> ports;
    QDateTime updatedAt;
    std::optional<DesiredState> desired;
};

// The kernels of the stored sessions (a StateStore role). Writers in several processes never
// lose each other's changes: every read-modify-write below is one transaction.
class KernelStore
{
public:
    virtual Result<void> updateKernel(const KernelRecord &kernel) = 0;
    // Several kernels (and optionally their session) in one transaction.
    virtual Result<void> updateKernels(const QList<KernelRecord> &kernels,
                                       const std::optional<SessionRecord> &session = {}) = 0;
    // Sets a kernel's status and appends it to its history, reading and writing in one
    // transaction.
    virtual Result<KernelRecord> updateKernelStatus(const QString &sessionId,
                                                    const QString &kernelId, KernelStatus status,
                                                    const QString &reason = {}) = 0;
    virtual Result<KernelRecord> kernel(const QString &sessionId,
                                        const QString &kernelId) const = 0;
    virtual Result<QList<KernelRecord>> kernels(const QString &sessionId) const = 0;
    virtual Result<QList<KernelRecord>> allKernels() const = 0;
    // What the kernels whose desired state is Running hold on each host (host name → sums): a
    // launch's placement reads it. By default summed from allKernels(); a backend may sum
    // without decoding every record.
    virtual Result<QHash<QString, HostAllocation>> allocationsByHost() const;
    // Read-modify-write of several kernels in one transaction: `change` gets each current record
    // and returns whether it changed it. Kernels that do not exist are skipped. Returns the
    // records that were changed, as written.
    using KernelChange = std::function<bool(KernelRecord &kernel)>;
    virtual Result<QList<KernelRecord>> modifyKernels(const QList<KernelRef> &kernels,
                                                      const KernelChange &change) = 0;
    // The progress of several kernels (statuses, containers, ports, desired state) in one
    // transaction, with `session` (whose kernels they must then be) if given; every other field
    // stays as stored (others' observations). Kernels that do not exist are skipped. By default
    // a modifyKernels() (with a session: a read, then updateKernels()); a backend may append to
    // the history without decoding it.
    virtual Result<void> recordKernelProgress(const QList<KernelProgress> &progress,
                                              const std::optional<SessionRecord> &session = {});

protected:
    ~KernelStore() = default; // owned as the StateStore it is part of
};

} // namespace ClusterDeck
