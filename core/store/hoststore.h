#pragma once

#include "common/error.h"
#include "records.h"

namespace ClusterDeck {

// The registered Docker hosts (a StateStore role).
class HostStore
{
public:
    virtual Result<void> putHost(const HostRecord &host) = 0;
    virtual Result<void> removeHost(const QString &name) = 0;
    virtual Result<QList<HostRecord>> hosts() const = 0;
    virtual Result<HostRecord> host(const QString &name) const = 0;

protected:
    ~HostStore() = default; // owned as the StateStore it is part of
};

} // namespace ClusterDeck
