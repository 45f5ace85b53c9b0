#include "storeurl.h"

#include <QDir>
#include <QFile>
#include <QUrl>
#include <QUrlQuery>

#include <yaml-cpp/yaml.h>

namespace ClusterDeck {

namespace {

const QString kForms = QStringLiteral(
    "use sqlite:///path/state.db, etcd://host:2379[,host2:2379]/prefix or etcds://… for TLS");

std::unexpected<Error> invalid(const QString &text, const QString &message)
{
    return fail(Error::Kind::Invalid, QStringLiteral("store URL \"%1\"").arg(text), message);
}

QString decode(const QString &part)
{
    return QUrl::fromPercentEncoding(part.toUtf8());
}

struct ConfigFile
{
    QString store;
    QString ca, cert, key, user, password;
};

Result<ConfigFile> readConfig(const QString &path)
{
    ConfigFile config;
    if (!QFile::exists(path))
        return config;
    try {
        const YAML::Node root = YAML::LoadFile(QFile::encodeName(path).toStdString());
        if (!root || root.IsNull())
            return config;
        if (!root.IsMap())
            return fail(Error::Kind::Invalid, path,
                        QStringLiteral("the config file must be a YAML mapping (store: URL)"));
        auto text = [](const YAML::Node &n) {
            return n && n.IsScalar() ? QString::fromStdString(n.as<std::string>()) : QString();
        };
        config.store = text(root["store"]);
        if (const YAML::Node etcd = root["etcd"]; etcd && etcd.IsMap()) {
            config.ca = text(etcd["ca"]);
            config.cert = text(etcd["cert"]);
            config.key = text(etcd["key"]);
            config.user = text(etcd["user"]);
            config.password = text(etcd["password"]);
        }
    } catch (const YAML::Exception &e) {
        return fail(
            Error::Kind::Invalid,
            QStringLiteral("%1:%2:%3").arg(path).arg(e.mark.line + 1).arg(e.mark.column + 1),
            QString::fromStdString(e.msg));
    }
    return config;
}

QString homePath(const QProcessEnvironment &env)
{
    const QString home = env.value(QStringLiteral("HOME"));
    return home.isEmpty() ? QDir::homePath() : home;
}

} // namespace

QString StoreUrl::configFilePath(const QProcessEnvironment &env)
{
    QString base = env.value(QStringLiteral("XDG_CONFIG_HOME"));
    if (base.isEmpty() || !QDir::isAbsolutePath(base))
        base = homePath(env) + QStringLiteral("/.config");
    return base + QStringLiteral("/clusterdeck/config.yaml");
}

QString StoreUrl::defaultSqlitePath(const QProcessEnvironment &env)
{
    QString base = env.value(QStringLiteral("XDG_DATA_HOME"));
    if (base.isEmpty() || !QDir::isAbsolutePath(base))
        base = homePath(env) + QStringLiteral("/.local/share");
    return base + QStringLiteral("/clusterdeck/state.db");
}

Result<StoreUrl> StoreUrl::parse(const QString &input)
{
    const QString text = input.trimmed();
    const qsizetype sep = text.indexOf(QStringLiteral("://"));
    if (text.isEmpty())
        return invalid(text, QStringLiteral("the store URL is empty; ") + kForms);
    if (sep <= 0)
        return invalid(text, QStringLiteral("not a URL; ") + kForms);
    const QString scheme = text.left(sep).toLower();
    const QString rest = text.mid(sep + 3);

    StoreUrl url;
    if (scheme == u"sqlite") {
        url.kind = Kind::Sqlite;
        QString path = decode(rest);
        if (path.startsWith(QStringLiteral("~/")))
            path = QDir::homePath() + path.mid(1);
        if (!path.startsWith(u'/'))
            return invalid(text, QStringLiteral("a SQLite store needs an absolute path, with "
                                                "three slashes: sqlite:///home/me/state.db"));
        if (path.endsWith(u'/'))
            return invalid(text, QStringLiteral("the path names a folder; add the file name, "
                                                "e.g. %1state.db")
                                     .arg(path));
        url.path = QDir::cleanPath(path);
        return url;
    }
    if (scheme != u"etcd" && scheme != u"etcds")
        return invalid(text, QStringLiteral("unknown scheme \"%1\"; ").arg(scheme) + kForms);

    url.kind = Kind::Etcd;
    url.tls = scheme == u"etcds";
    QString query;
    QString beforeQuery = rest;
    if (const qsizetype q = rest.indexOf(u'?'); q >= 0) {
        query = rest.mid(q + 1);
        beforeQuery = rest.left(q);
    }
    QString authority = beforeQuery;
    QString path;
    if (const qsizetype slash = beforeQuery.indexOf(u'/'); slash >= 0) {
        authority = beforeQuery.left(slash);
        path = beforeQuery.mid(slash);
    }
    if (const qsizetype at = authority.lastIndexOf(u'@'); at >= 0) {
        const QString userInfo = authority.left(at);
        authority = authority.mid(at + 1);
        const qsizetype colon = userInfo.indexOf(u':');
        url.username = decode(colon >= 0 ? userInfo.left(colon) : userInfo);
        if (colon >= 0)
            url.password = decode(userInfo.mid(colon + 1));
        if (url.username.isEmpty())
            return invalid(text, QStringLiteral("the user name before '@' is empty"));
    }
    if (authority.isEmpty())
        return invalid(text, QStringLiteral("no etcd endpoint given; ") + kForms);
    const QString httpScheme = url.tls ? QStringLiteral("https") : QStringLiteral("http");
    for (const QString &part : authority.split(u',')) {
        QString host = part.trimmed();
        int port = kDefaultEtcdPort;
        if (host.isEmpty())
            return invalid(text, QStringLiteral("an empty endpoint in the host list"));
        QString portText;
        if (host.startsWith(u'[')) { // [::1]:2379
            const qsizetype close = host.indexOf(u']');
            if (close < 0)
                return invalid(text, QStringLiteral("unclosed '[' in endpoint \"%1\"").arg(part));
            const QString after = host.mid(close + 1);
            if (!after.isEmpty() && !after.startsWith(u':'))
                return invalid(text, QStringLiteral("bad endpoint \"%1\"").arg(part));
            portText = after.mid(1);
            host = host.left(close + 1);
        } else if (const qsizetype colon = host.lastIndexOf(u':'); colon >= 0) {
            portText = host.mid(colon + 1);
            host = host.left(colon);
        }
        if (!portText.isNull() || part.endsWith(u':')) {
            bool ok = false;
            port = portText.toInt(&ok);
            if (!ok || port <= 0 || port > 65535)
                return invalid(
                    text, QStringLiteral("bad port \"%1\" in endpoint \"%2\"").arg(portText, part));
        }
        if (host.isEmpty() || host.contains(u' '))
            return invalid(text, QStringLiteral("bad host name in endpoint \"%1\"").arg(part));
        url.endpoints.append(QStringLiteral("%1://%2:%3").arg(httpScheme, host).arg(port));
    }

    path = decode(path);
    while (path.endsWith(u'/'))
        path.chop(1);
    if (path.contains(QStringLiteral("//")))
        return invalid(text,
                       QStringLiteral("the key prefix \"%1\" has an empty segment").arg(path));
    url.prefix = path.isEmpty() ? defaultPrefix() : path;

    const QUrlQuery items(query);
    for (const auto &[key, value] : items.queryItems(QUrl::FullyDecoded)) {
        if (key == u"ca")
            url.caFile = value;
        else if (key == u"cert")
            url.certFile = value;
        else if (key == u"key")
            url.keyFile = value;
        else
            return invalid(
                text, QStringLiteral("unknown parameter \"%1\" (known: ca, cert, key)").arg(key));
    }
    if (!url.tls && (!url.caFile.isEmpty() || !url.certFile.isEmpty() || !url.keyFile.isEmpty()))
        return invalid(text, QStringLiteral("TLS files were given for a plain etcd:// URL; use "
                                            "etcds://"));
    if (url.certFile.isEmpty() != url.keyFile.isEmpty())
        return invalid(text, QStringLiteral("a client certificate needs both cert= and key="));
    return url;
}

Result<StoreUrl> StoreUrl::resolve(const QString &option, const QProcessEnvironment &env)
{
    const QString configPath = configFilePath(env);
    auto config = readConfig(configPath);
    if (!config)
        return fail(config.error().withContext(QStringLiteral("reading the ClusterDeck config")));

    QString text;
    QString source;
    if (!option.trimmed().isEmpty()) {
        text = option;
        source = QStringLiteral("--store");
    } else if (const QString fromEnv = env.value(QStringLiteral("CLUSTERDECK_STORE"));
               !fromEnv.trimmed().isEmpty()) {
        text = fromEnv;
        source = QStringLiteral("$CLUSTERDECK_STORE");
    } else if (!config->store.trimmed().isEmpty()) {
        text = config->store;
        source = configPath;
    } else {
        text = QStringLiteral("sqlite://") + defaultSqlitePath(env);
        source = QStringLiteral("the default");
    }
    auto url = parse(text);
    if (!url) {
        Error e = url.error();
        e.where += QStringLiteral(" (from %1)").arg(source);
        return fail(e);
    }
    url->source = source;
    if (url->kind == Kind::Etcd) {
        if (url->tls) {
            if (url->caFile.isEmpty())
                url->caFile = config->ca;
            if (url->certFile.isEmpty() && url->keyFile.isEmpty()) {
                url->certFile = config->cert;
                url->keyFile = config->key;
            }
        }
        if (url->username.isEmpty()) {
            url->username = config->user;
            url->password = config->password;
        } else if (url->password.isEmpty() && url->username == config->user) {
            url->password = config->password;
        }
    }
    return url;
}

QString StoreUrl::toDisplayString() const
{
    if (kind == Kind::Sqlite)
        return QStringLiteral("sqlite://") + path;
    QStringList hosts;
    for (const QString &e : endpoints)
        hosts.append(e.mid(e.indexOf(QStringLiteral("://")) + 3));
    QString user;
    if (!username.isEmpty())
        user = username + (password.isEmpty() ? QString() : QStringLiteral(":***")) + u'@';
    return (tls ? QStringLiteral("etcds://") : QStringLiteral("etcd://")) + user +
           hosts.join(u',') + prefix;
}

} // namespace ClusterDeck
