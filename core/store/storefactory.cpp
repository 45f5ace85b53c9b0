#include "storefactory.h"

#include "etcdstore.h"
#include "sqlitestore.h"
#include "storeurl.h"

#include <QFileInfo>

namespace ClusterDeck {

Result<std::unique_ptr<StateStore>> openStore(const QString &url)
{
    auto parsed = StoreUrl::parse(url);
    if (!parsed)
        return fail(parsed.error());
    return openStore(*parsed);
}

Result<std::unique_ptr<StateStore>> openStore(const StoreUrl &url)
{
    switch (url.kind) {
    case StoreUrl::Kind::Sqlite: {
        auto store = SqliteStore::open(url.path);
        if (!store)
            return fail(store.error());
        return std::unique_ptr<StateStore>(std::move(*store));
    }
    case StoreUrl::Kind::Etcd: {
        Etcd::EtcdConfig config;
        config.endpoints = url.endpoints;
        config.username = url.username;
        config.password = url.password;
        config.caFile = url.caFile;
        config.certFile = url.certFile;
        config.keyFile = url.keyFile;
        for (const auto &[what, file] :
             {std::pair{QStringLiteral("CA file"), url.caFile},
              std::pair{QStringLiteral("client certificate"), url.certFile},
              std::pair{QStringLiteral("client key"), url.keyFile}}) {
            if (!file.isEmpty() && !QFileInfo(file).isReadable())
                return fail(
                    Error::Kind::Invalid, url.toDisplayString(),
                    QStringLiteral("the %1 %2 does not exist or is not readable").arg(what, file));
        }
        auto store = EtcdStore::open(config, url.prefix, url.toDisplayString());
        if (!store)
            return fail(store.error().withContext(
                QStringLiteral("opening the state store %1").arg(url.toDisplayString())));
        return std::unique_ptr<StateStore>(std::move(*store));
    }
    }
    return fail(Error::Kind::Invalid, url.toDisplayString(), QStringLiteral("unknown store kind"));
}

} // namespace ClusterDeck
