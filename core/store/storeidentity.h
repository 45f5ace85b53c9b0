#pragma once

#include "common/labels.h"

#include <QMap>
#include <QString>
#include <QStringList>
#include <QUuid>

namespace ClusterDeck {

// Who a store is, as the io.clusterdeck.store label says it: a random UUID made when the store
// was created (never its URL: two stores at one path, or one store behind two URLs, would take
// each other's objects for their own). `legacyLabels` are the URL values that builds before the
// store id wrote; they count as this store's only for sessions the store knows (a session id is
// a UUID, so another store never knows it), never for objects of unknown sessions.
struct StoreIdentity
{
    QString id;
    QStringList legacyLabels;

    StoreIdentity(QString storeId = {}, QStringList legacy = {}) // NOLINT: implicit on purpose
        : id(std::move(storeId))
        , legacyLabels(std::move(legacy))
    {}

    // A store id is a UUID in its canonical form and nothing else: it names files (the store
    // key) and labels, so a tampered `meta/id` such as "../../x" must never be used.
    static bool isWellFormed(const QString &storeId)
    {
        const QUuid uuid = QUuid::fromString(storeId);
        return !uuid.isNull() && uuid.toString(QUuid::WithoutBraces) == storeId;
    }
    static QString malformed(const QString &storeId)
    {
        return QStringLiteral("the store id \"%1\" is not a UUID: something other than ClusterDeck "
                              "wrote it; refusing to use the store")
            .arg(storeId.left(80));
    }

    // Does an object with store label `label`, of a session the store knows (`knownSession`) or
    // not, belong to this store? An empty id owns nothing, not even an unlabelled object.
    bool owns(const QString &label, bool knownSession) const
    {
        if (id.isEmpty() || label.isEmpty())
            return false;
        return label == id || (knownSession && legacyLabels.contains(label));
    }

    // Is an object with these labels (a container's, network's or volume's) one of this store's
    // objects of session `sessionId`, a session the store knows? The one check before anything
    // of a known session is adopted or removed.
    bool ownsSessionObject(const QMap<QString, QString> &labels, const QString &sessionId) const
    {
        return !sessionId.isEmpty() && labels.value(Labels::session()) == sessionId &&
               owns(labels.value(Labels::store()), true);
    }
};

} // namespace ClusterDeck
