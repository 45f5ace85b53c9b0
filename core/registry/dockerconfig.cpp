#include "dockerconfig.h"

#include "common/logging.h"
#include "host/dockercontexts.h"
#include "imagereference.h"

#include <QDir>
#include <QFile>
#include <QJsonDocument>
#include <QProcess>
#include <QSaveFile>
#include <QStandardPaths>
#include <QSet>

#include <algorithm>

namespace ClusterDeck::Registry {

namespace {

constexpr auto kHelperPrefix = "docker-credential-";

QString where(const QString &file)
{
    return QStringLiteral("docker config %1").arg(file);
}

} // namespace

QString DockerConfig::defaultDirectory()
{
    return DockerContexts::configDir();
}

Result<DockerConfig> DockerConfig::load(const QString &directory)
{
    DockerConfig c;
    c.m_directory = directory.isEmpty() ? defaultDirectory() : directory;
    QFile file(c.filePath());
    if (!file.exists())
        return c;
    if (!file.open(QIODevice::ReadOnly))
        return fail(Error::Kind::Io, where(c.filePath()), file.errorString());
    const QByteArray bytes = file.readAll();
    if (bytes.trimmed().isEmpty())
        return c;
    QJsonParseError error;
    const QJsonDocument doc = QJsonDocument::fromJson(bytes, &error);
    if (error.error != QJsonParseError::NoError || !doc.isObject())
        return fail(Error::Kind::Decode, where(c.filePath()),
                    QStringLiteral("not a JSON object: %1 at offset %2")
                        .arg(error.errorString())
                        .arg(error.offset));
    c.m_json = doc.object();
    return c;
}

QString DockerConfig::filePath() const
{
    return m_directory + QStringLiteral("/config.json");
}

QString DockerConfig::helperFor(const QString &registryKey) const
{
    const QString key = normalizeRegistryKey(registryKey);
    const QJsonObject helpers = m_json.value(QLatin1String("credHelpers")).toObject();
    for (auto it = helpers.constBegin(); it != helpers.constEnd(); ++it) {
        if (normalizeRegistryKey(it.key()) == key)
            return it.value().toString();
    }
    return m_json.value(QLatin1String("credsStore")).toString();
}

QString DockerConfig::authsKeyFor(const QString &normalized) const
{
    const QJsonObject auths = m_json.value(QLatin1String("auths")).toObject();
    for (auto it = auths.constBegin(); it != auths.constEnd(); ++it) {
        if (normalizeRegistryKey(it.key()) == normalized)
            return it.key();
    }
    return {};
}

Result<QByteArray> DockerConfig::runHelper(const QString &helper, const QString &action,
                                           const QByteArray &input, bool *notFound) const
{
    const QString program = QLatin1String(kHelperPrefix) + helper;
    const QString context = QStringLiteral("credential helper %1 %2").arg(program, action);
    const QString path = QStandardPaths::findExecutable(program);
    if (path.isEmpty())
        return fail(Error::Kind::NotFound, where(filePath()),
                    QStringLiteral("%1 is configured but not found on PATH").arg(program));
    QProcess process;
    process.start(path, {action});
    if (!process.waitForStarted(int(m_helperTimeout.count())))
        return fail(Error::Kind::Io, context, process.errorString());
    process.write(input);
    process.closeWriteChannel();
    if (!process.waitForFinished(int(m_helperTimeout.count()))) {
        process.kill();
        process.waitForFinished(1000);
        return fail(Error::Kind::Timeout, context,
                    QStringLiteral("no answer within %1 s").arg(m_helperTimeout.count() / 1000));
    }
    const QByteArray out = process.readAllStandardOutput();
    if (process.exitStatus() != QProcess::NormalExit || process.exitCode() != 0) {
        // The helpers' protocol: "credentials not found in native keychain" on stdout.
        const QString said = QString::fromUtf8(out + process.readAllStandardError()).trimmed();
        if (notFound && said.contains(QLatin1String("credentials not found"))) {
            *notFound = true;
            return QByteArray();
        }
        return fail(Error::Kind::Io, context,
                    QStringLiteral("exit code %1: %2")
                        .arg(process.exitCode())
                        .arg(said.isEmpty() ? QStringLiteral("no message") : said.left(300)));
    }
    return out;
}

Result<std::optional<RegistryCredentials>> DockerConfig::credentials(const QString &registry) const
{
    const QString key = normalizeRegistryKey(registry);
    if (const QString helper = helperFor(key); !helper.isEmpty()) {
        bool notFound = false;
        auto out = runHelper(helper, QStringLiteral("get"), key.toUtf8(), &notFound);
        if (!out)
            return fail(out.error());
        if (!notFound) {
            const QJsonObject o = QJsonDocument::fromJson(*out).object();
            RegistryCredentials c;
            c.serverAddress = key;
            const QString user = o.value(QLatin1String("Username")).toString();
            const QString secret = o.value(QLatin1String("Secret")).toString();
            if (user == QLatin1String("<token>")) { // Docker's marker for an identity token
                c.identityToken = secret;
            } else {
                c.username = user;
                c.password = secret;
            }
            if (!c.isEmpty())
                return c;
        }
    }
    const QString authsKey = authsKeyFor(key);
    if (authsKey.isEmpty())
        return std::optional<RegistryCredentials>();
    const QJsonObject entry =
        m_json.value(QLatin1String("auths")).toObject().value(authsKey).toObject();
    RegistryCredentials c;
    c.serverAddress = key;
    c.identityToken = entry.value(QLatin1String("identitytoken")).toString();
    const QByteArray auth = QByteArray::fromBase64(
        entry.value(QLatin1String("auth")).toString().toLatin1());
    if (const qsizetype colon = auth.indexOf(':'); colon >= 0) {
        c.username = QString::fromUtf8(auth.left(colon));
        c.password = QString::fromUtf8(auth.mid(colon + 1));
    } else if (!auth.isEmpty()) {
        return fail(Error::Kind::Decode, where(filePath()),
                    QStringLiteral("auths.\"%1\".auth is not base64 of user:password").arg(authsKey));
    }
    if (c.isEmpty())
        return std::optional<RegistryCredentials>();
    return c;
}

Result<void> DockerConfig::store(const RegistryCredentials &credentials)
{
    const QString key = normalizeRegistryKey(credentials.serverAddress);
    QJsonObject auths = m_json.value(QLatin1String("auths")).toObject();
    if (const QString old = authsKeyFor(key); !old.isEmpty())
        auths.remove(old);
    QJsonObject entry;
    if (const QString helper = helperFor(key); !helper.isEmpty()) {
        const bool token = !credentials.identityToken.isEmpty();
        const QJsonObject input{
            {QStringLiteral("ServerURL"), key},
            {QStringLiteral("Username"), token ? QStringLiteral("<token>") : credentials.username},
            {QStringLiteral("Secret"), token ? credentials.identityToken : credentials.password},
        };
        auto out = runHelper(helper, QStringLiteral("store"),
                             QJsonDocument(input).toJson(QJsonDocument::Compact));
        if (!out)
            return fail(out.error());
        // Like the docker CLI: an empty entry says "logged in, ask the helper".
    } else {
        entry.insert(QStringLiteral("auth"), QString::fromLatin1(credentials.basicAuth()));
        if (!credentials.identityToken.isEmpty())
            entry.insert(QStringLiteral("identitytoken"), credentials.identityToken);
    }
    auths.insert(key, entry);
    m_json.insert(QStringLiteral("auths"), auths);
    return save();
}

Result<void> DockerConfig::erase(const QString &registry)
{
    const QString key = normalizeRegistryKey(registry);
    bool found = false;
    if (const QString helper = helperFor(key); !helper.isEmpty()) {
        bool notFound = false;
        auto out = runHelper(helper, QStringLiteral("erase"), key.toUtf8(), &notFound);
        if (!out)
            return fail(out.error());
        found = !notFound;
    }
    QJsonObject auths = m_json.value(QLatin1String("auths")).toObject();
    if (const QString old = authsKeyFor(key); !old.isEmpty()) {
        auths.remove(old);
        found = true;
        m_json.insert(QStringLiteral("auths"), auths);
    }
    if (!found)
        return fail(Error::Kind::NotFound, where(filePath()),
                    QStringLiteral("not logged in to %1").arg(key));
    return save();
}

Result<QList<DockerConfig::Login>> DockerConfig::logins() const
{
    QList<Login> out;
    QSet<QString> seen;
    // What helpers know (usernames, no secrets): `list` answers {"url": "username"}.
    QSet<QString> helpers;
    if (const QString s = m_json.value(QLatin1String("credsStore")).toString(); !s.isEmpty())
        helpers.insert(s);
    const QJsonObject perRegistry = m_json.value(QLatin1String("credHelpers")).toObject();
    for (auto it = perRegistry.constBegin(); it != perRegistry.constEnd(); ++it)
        helpers.insert(it.value().toString());
    QHash<QString, QString> helperUsers; // normalized key → username
    for (const QString &helper : std::as_const(helpers)) {
        auto listed = runHelper(helper, QStringLiteral("list"), {});
        if (!listed) {
            qCWarning(lcRegistry).noquote() << listed.error().toString();
            continue;
        }
        const QJsonObject o = QJsonDocument::fromJson(*listed).object();
        for (auto it = o.constBegin(); it != o.constEnd(); ++it) {
            const QString key = normalizeRegistryKey(it.key());
            if (helperFor(key) == helper)
                helperUsers.insert(key, it.value().toString());
        }
    }
    const QJsonObject auths = m_json.value(QLatin1String("auths")).toObject();
    for (auto it = auths.constBegin(); it != auths.constEnd(); ++it) {
        const QString key = normalizeRegistryKey(it.key());
        Login l;
        l.registry = key;
        const QString helper = helperFor(key);
        const QByteArray auth =
            QByteArray::fromBase64(it.value().toObject().value(QLatin1String("auth")).toString().toLatin1());
        if (!auth.isEmpty()) {
            l.username = QString::fromUtf8(auth.left(auth.indexOf(':')));
            l.store = QStringLiteral("config.json");
        } else if (!helper.isEmpty()) {
            l.username = helperUsers.value(key);
            l.store = QLatin1String(kHelperPrefix) + helper;
        } else {
            continue; // an empty entry with no helper: nothing to log in with
        }
        seen.insert(key);
        out.append(l);
    }
    for (auto it = helperUsers.constBegin(); it != helperUsers.constEnd(); ++it) {
        if (seen.contains(it.key()))
            continue;
        out.append({it.key(), it.value(), QLatin1String(kHelperPrefix) + helperFor(it.key())});
    }
    std::sort(out.begin(), out.end(),
              [](const Login &a, const Login &b) { return a.registry < b.registry; });
    return out;
}

Result<void> DockerConfig::save() const
{
    QDir dir(m_directory);
    if (!dir.exists()) {
        if (!QDir().mkpath(m_directory))
            return fail(Error::Kind::Io, where(filePath()), QStringLiteral("cannot create the folder"));
        QFile::setPermissions(m_directory, QFileDevice::ReadOwner | QFileDevice::WriteOwner |
                                               QFileDevice::ExeOwner);
    }
    QSaveFile file(filePath());
    if (!file.open(QIODevice::WriteOnly))
        return fail(Error::Kind::Io, where(filePath()), file.errorString());
    // The file holds secrets: only its owner reads it, from the first byte on.
    file.setPermissions(QFileDevice::ReadOwner | QFileDevice::WriteOwner);
    file.write(QJsonDocument(m_json).toJson(QJsonDocument::Indented));
    if (!file.commit())
        return fail(Error::Kind::Io, where(filePath()), file.errorString());
    return {};
}

} // namespace ClusterDeck::Registry
