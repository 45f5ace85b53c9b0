#include "sessionstore.h"

#include "common/logging.h"

namespace ClusterDeck {

Result<QList<SessionRecord>> SessionStore::sessions() const
{
    auto listing = listSessions();
    if (!listing)
        return fail(listing.error());
    for (const UndecodableRecord &r : std::as_const(listing->undecodable))
        qCWarning(lcStore).noquote() << "left out an undecodable session record:" << r.toString();
    return std::move(listing->sessions);
}

} // namespace ClusterDeck
