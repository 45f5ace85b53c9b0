#pragma once

#include "common/error.h"
#include "hoststatus.h"

#include <QHash>
#include <QList>

#include <chrono>

namespace ClusterDeck {

class HostRegistry;

// Asks the daemons of registered hosts how they are. Every host is queried on its own thread
// with its own deadline, so one dead host costs its timeout once and delays no other host.
// Blocking: call it from a worker thread, never from the GUI thread.
class HostInspector
{
public:
    explicit HostInspector(HostRegistry *registry,
                           std::chrono::milliseconds timeout = std::chrono::milliseconds(5000));

    std::chrono::milliseconds timeout() const { return m_timeout; }
    void setTimeout(std::chrono::milliseconds timeout) { m_timeout = timeout; }
    // Image lists can be long; `host ls` does not need them.
    void setListImages(bool listImages) { m_listImages = listImages; }

    // Pure: what the kernels meant to run on `hostName` take of it.
    static HostAllocation allocationFor(const QString &hostName,
                                        const QList<KernelRecord> &kernels);

    // One host, with the kernels to account allocations from.
    HostStatus inspect(const HostRecord &host, const QList<KernelRecord> &kernels) const;
    // Looks the host and the kernels up in the store first.
    Result<HostStatus> inspect(const QString &name) const;
    // Several hosts in parallel, with what is allocated on each (host name → sums; a host not
    // in it has nothing); the result keeps the order of `hosts`.
    QList<HostStatus> inspectAll(const QList<HostRecord> &hosts,
                                 const QHash<QString, HostAllocation> &allocated) const;
    // Every registered host, in name order, with the store's sums (StateStore's
    // allocationsByHost: a launch surveys every host, and must not decode every kernel).
    Result<QList<HostStatus>> inspectAll() const;

private:
    HostStatus inspectWith(const HostRecord &host, const HostAllocation &allocated) const;

    HostRegistry *m_registry;
    std::chrono::milliseconds m_timeout;
    bool m_listImages = true;
};

} // namespace ClusterDeck
