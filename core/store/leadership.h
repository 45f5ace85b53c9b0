#pragma once

#include "common/canceltoken.h"
#include "records.h"

namespace ClusterDeck {

// The controller's leadership of one store, held while this object lives (destruction resigns,
// so the next candidate leads at once instead of after the TTL). While it is alive, every write
// through the store object that granted it is fenced: conditioned, inside the store's own
// transaction, on this leadership still being the current one. Once lost, those writes fail
// with Error::Kind::Conflict and lostToken() is cancelled, so side effects stop too.
class Leadership
{
public:
    virtual ~Leadership() = default;
    virtual LeaderRecord record() const = 0;
    virtual bool isHeld() const = 0;
    virtual CancelToken lostToken() const = 0;
};

} // namespace ClusterDeck
