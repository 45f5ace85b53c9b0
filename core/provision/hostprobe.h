#pragma once

#include "common/error.h"
#include "http/httptypes.h"

#include <QMap>
#include <QStringList>

#include <chrono>

namespace ClusterDeck {

class HostRegistry;

// Which hosts answer right now: one ping to each, all at once, each bounded by `timeout`. For
// work that would rather wait for a host than fail half-way on it (a restart by the controller).
class HostProbe
{
public:
    // host → why, for each of `hosts` that did not answer (an unregistered host too).
    static QMap<QString, Error> unanswered(HostRegistry *registry, const QStringList &hosts,
                                           std::chrono::milliseconds timeout,
                                           const CancelToken &cancel = {});
    // One Unavailable error naming every host of `down` and why it did not answer.
    static Error describe(const QMap<QString, Error> &down);
};

} // namespace ClusterDeck
