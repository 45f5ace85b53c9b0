#include "imageinventoryjson.h"

#include <QJsonArray>

namespace ClusterDeck::Registry {

QJsonObject imageInventoryToJson(const ImageInventory &inventory)
{
    QJsonArray rows;
    for (const ImageRow &r : inventory.rows) {
        QJsonObject on;
        for (auto it = r.hosts.cbegin(); it != r.hosts.cend(); ++it)
            on.insert(it.key(), QJsonObject{{QStringLiteral("id"), it->id},
                                            {QStringLiteral("size"), double(it->size)},
                                            {QStringLiteral("created"), double(it->created)},
                                            {QStringLiteral("containers"), it->containers}});
        QJsonObject row{{QStringLiteral("image"), r.reference},
                        {QStringLiteral("digest"), r.digest},
                        {QStringLiteral("size"), double(r.size())},
                        {QStringLiteral("hosts"), on}};
        if (!r.oci.isEmpty()) {
            QJsonObject oci;
            for (auto it = r.oci.cbegin(); it != r.oci.cend(); ++it)
                oci.insert(it.key(), it.value());
            row.insert(QStringLiteral("oci"), oci);
        }
        rows.append(row);
    }
    QJsonObject errors;
    for (auto it = inventory.errors.cbegin(); it != inventory.errors.cend(); ++it)
        errors.insert(it.key(), it.value());
    return QJsonObject{{QStringLiteral("hosts"), QJsonArray::fromStringList(inventory.hosts)},
                       {QStringLiteral("images"), rows},
                       {QStringLiteral("errors"), errors}};
}

} // namespace ClusterDeck::Registry
