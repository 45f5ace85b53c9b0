#include "dockercontexts.h"

#include "docker/dockerendpoint.h"

#include <QCryptographicHash>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>

#include <algorithm>

namespace ClusterDeck {

namespace {

const QString kWhere = QStringLiteral("docker contexts");

Result<QJsonObject> readObject(const QString &path)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return fail(Error::Kind::Io, path,
                    QStringLiteral("cannot read: %1").arg(file.errorString()));
    QJsonParseError error{};
    const QJsonDocument doc = QJsonDocument::fromJson(file.readAll(), &error);
    if (error.error != QJsonParseError::NoError || !doc.isObject())
        return fail(Error::Kind::Decode, path,
                    QStringLiteral("not a JSON object: %1 at byte %2")
                        .arg(error.errorString())
                        .arg(error.offset));
    return doc.object();
}

QString existing(const QString &path)
{
    return QFileInfo::exists(path) ? path : QString();
}

} // namespace

QString DockerContexts::configDir(const QProcessEnvironment &env)
{
    const QString dir = env.value(QStringLiteral("DOCKER_CONFIG"));
    if (!dir.isEmpty())
        return dir;
    return QDir::homePath() + QStringLiteral("/.docker");
}

Result<QList<DockerContexts::Context>> DockerContexts::list(const QString &configDir)
{
    QList<Context> contexts;
    const QDir meta(configDir + QStringLiteral("/contexts/meta"));
    if (!meta.exists())
        return contexts;
    const QStringList dirs = meta.entryList(QDir::Dirs | QDir::NoDotAndDotDot, QDir::Name);
    for (const QString &dir : dirs) {
        const QString file = meta.filePath(dir + QStringLiteral("/meta.json"));
        if (!QFileInfo::exists(file))
            continue; // the CLI's leftovers; it skips them too
        auto object = readObject(file);
        if (!object)
            return std::unexpected(object.error());
        Context c;
        c.metaFile = file;
        c.name = object->value(QLatin1String("Name")).toString();
        if (c.name.isEmpty())
            return fail(Error::Kind::Decode, file, QStringLiteral("the context has no Name"));
        c.description = object->value(QLatin1String("Metadata"))
                            .toObject()
                            .value(QLatin1String("Description"))
                            .toString();
        const QJsonObject docker = object->value(QLatin1String("Endpoints"))
                                       .toObject()
                                       .value(QLatin1String("docker"))
                                       .toObject();
        c.host = docker.value(QLatin1String("Host")).toString();
        c.skipTlsVerify = docker.value(QLatin1String("SkipTLSVerify")).toBool();
        // The TLS files live under the hash of the name, whatever the meta folder is called.
        const QString hash = QString::fromLatin1(
            QCryptographicHash::hash(c.name.toUtf8(), QCryptographicHash::Sha256).toHex());
        const QString tls = configDir + QStringLiteral("/contexts/tls/") + hash + u"/docker/";
        c.tlsCa = existing(tls + QStringLiteral("ca.pem"));
        c.tlsCert = existing(tls + QStringLiteral("cert.pem"));
        c.tlsKey = existing(tls + QStringLiteral("key.pem"));
        contexts.append(c);
    }
    std::sort(contexts.begin(), contexts.end(),
              [](const Context &a, const Context &b) { return a.name < b.name; });
    return contexts;
}

Result<DockerContexts::Context> DockerContexts::find(const QString &configDir, const QString &name)
{
    auto all = list(configDir);
    if (!all)
        return std::unexpected(all.error());
    for (const Context &c : std::as_const(*all))
        if (c.name == name)
            return c;
    QStringList names;
    for (const Context &c : std::as_const(*all))
        names.append(c.name);
    return fail(Error::Kind::NotFound, kWhere,
                QStringLiteral("no context \"%1\" in %2 (%3)")
                    .arg(name, configDir,
                         names.isEmpty() ? QStringLiteral("it has none")
                                         : QStringLiteral("it has: ") + names.join(u", ")));
}

QString DockerContexts::current(const QString &configDir, const QProcessEnvironment &env)
{
    const QString fromEnv = env.value(QStringLiteral("DOCKER_CONTEXT"));
    if (!fromEnv.isEmpty())
        return fromEnv;
    if (auto config = readObject(configDir + QStringLiteral("/config.json"))) {
        const QString name = config->value(QLatin1String("currentContext")).toString();
        if (!name.isEmpty())
            return name;
    }
    return QStringLiteral("default");
}

Result<HostRecord> DockerContexts::hostRecord(const Context &context, const QString &name)
{
    const QString where = QStringLiteral("docker context %1").arg(context.name);
    HostRecord host;
    host.name = name;
    // ssh://: the admin's own OpenSSH reaches it, as the docker CLI's context does.
    if (context.host.startsWith(QLatin1String("unix://")) ||
        context.host.startsWith(QLatin1String("ssh://"))) {
        host.endpoint = context.host;
        return host;
    }
    if (!context.host.startsWith(QLatin1String("tcp://")))
        return fail(
            Error::Kind::Invalid, where,
            QStringLiteral("%1: only unix://, ssh:// and tcp:// endpoints can be registered")
                .arg(context.host.isEmpty() ? QStringLiteral("no docker endpoint") : context.host));
    if (context.skipTlsVerify)
        return fail(Error::Kind::Invalid, where,
                    QStringLiteral("%1 turns TLS verification off (skip-tls-verify): ClusterDeck "
                                   "only talks to a daemon it can verify; give the context the "
                                   "daemon's CA (docker context update %2 --docker "
                                   "\"host=%1,ca=CA.pem,cert=…,key=…\")")
                        .arg(context.host, context.name));
    // DockerEndpoint's rule, as for `host add`: tcp:// with TLS files is tcp+tls://.
    const auto endpoint = Docker::DockerEndpoint::parse(
        context.host, Docker::TlsFiles{context.tlsCa, context.tlsCert, context.tlsKey});
    if (!endpoint)
        return fail(endpoint.error().withContext(where));
    host.endpoint = endpoint->url();
    host.tlsCa = context.tlsCa;
    host.tlsCert = context.tlsCert;
    host.tlsKey = context.tlsKey;
    return host;
}

} // namespace ClusterDeck
