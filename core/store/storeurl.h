#pragma once

#include "common/error.h"

#include <QProcessEnvironment>
#include <QString>
#include <QStringList>

namespace ClusterDeck {

// Where the state lives, parsed from a store URL:
//   sqlite:///abs/path/state.db
//   etcd://[user:password@]host1:2379[,host2:2379…][/prefix]
//   etcds://…  (TLS; ?ca=FILE&cert=FILE&key=FILE, or the `etcd:` section of the config file)
class StoreUrl
{
public:
    enum class Kind { Sqlite, Etcd };

    Kind kind = Kind::Sqlite;
    QString path; // sqlite: absolute file path

    // etcd
    QStringList endpoints; // "http://h1:2379", "https://h2:2379"
    QString prefix;        // "/clusterdeck" unless given; no trailing slash
    bool tls = false;
    QString username;
    QString password;
    QString caFile;
    QString certFile;
    QString keyFile;

    QString source; // where the URL came from: "--store", "$CLUSTERDECK_STORE", the config file…

    static constexpr int kDefaultEtcdPort = 2379;
    static QString defaultPrefix() { return QStringLiteral("/clusterdeck"); }

    // Pure: parses one URL; errors say what is wrong and show the accepted forms.
    static Result<StoreUrl> parse(const QString &text);

    // The URL to use: `option` (--store) if set, then $CLUSTERDECK_STORE, then `store:` in
    // $XDG_CONFIG_HOME/clusterdeck/config.yaml, then sqlite://$XDG_DATA_HOME/clusterdeck/state.db
    // (~/.config and ~/.local/share when unset). TLS files and credentials missing from an etcd
    // URL are taken from the config file's `etcd:` section (ca, cert, key, user, password).
    static Result<StoreUrl>
    resolve(const QString &option,
            const QProcessEnvironment &env = QProcessEnvironment::systemEnvironment());
    static QString configFilePath(const QProcessEnvironment &env);
    static QString defaultSqlitePath(const QProcessEnvironment &env);

    // The URL again, with the password hidden: for messages and the status bar.
    QString toDisplayString() const;
};

} // namespace ClusterDeck
