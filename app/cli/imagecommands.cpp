#include "imagecommands.h"
#include "common/bytesize.h"
#include "common/shortid.h"

#include "args.h"
#include "columns.h"
#include "commandspec.h"
#include "commandsupport.h"
#include "common/concurrent.h"
#include "common/credentialpolicy.h"
#include "docker/dockerclient.h"
#include "host/hostregistry.h"
#include "pullprogressprinter.h"
#include "registry/dockerconfig.h"
#include "registry/imageinventory.h"
#include "registry/imageinventoryjson.h"
#include "registry/imagepuller.h"
#include "registry/imagereference.h"
#include "store/statestore.h"

#include <QElapsedTimer>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <cstdio>
#include <iostream>
#include <mutex>
#include <string>
#include <unistd.h>

namespace ClusterDeck::Cli {

namespace {

using namespace std::chrono_literals;

// --hosts h1,h2 (or every registered host), each with its client.
Result<QList<QPair<QString, std::shared_ptr<Docker::DockerClient>>>>
selectHosts(HostRegistry &registry, const QString &option)
{
    QStringList names;
    if (option.isEmpty()) {
        auto all = registry.list();
        if (!all)
            return fail(all.error());
        for (const HostRecord &h : std::as_const(*all))
            names.append(h.name);
        if (names.isEmpty())
            return fail(Error::Kind::Invalid, QString(),
                        QStringLiteral("no Docker host is registered (clusterdeckctl host add …)"));
    } else {
        for (const QString &n : option.split(QLatin1Char(','), Qt::SkipEmptyParts))
            names.append(n.trimmed());
        names.removeDuplicates();
    }
    QList<QPair<QString, std::shared_ptr<Docker::DockerClient>>> out;
    for (const QString &n : std::as_const(names)) {
        auto c = registry.client(n);
        if (!c)
            return fail(c.error());
        out.append({n, *c});
    }
    return out;
}

int imageLs(Context &context, const Args &a)
{
    auto env = openEnv(context);
    if (!env)
        return context.fail(env.error());
    auto hosts = selectHosts(*env->registry, a.value(QStringLiteral("--hosts")));
    if (!hosts)
        return context.fail(hosts.error());
    QStringList names;
    for (const auto &h : std::as_const(*hosts))
        names.append(h.first);
    auto inv = Registry::ImageInventory::survey(env->registry.get(), names);
    if (!inv)
        return context.fail(inv.error());
    if (a.has(QStringLiteral("--json"))) {
        context.out()
            << QJsonDocument(Registry::imageInventoryToJson(*inv)).toJson(QJsonDocument::Indented);
        context.out().flush();
        return inv->errors.isEmpty() ? 0 : 1;
    }
    // The matrix: one row per image, one column per host (its image id there, "-" when absent).
    QList<QStringList> table;
    QStringList header{QStringLiteral("IMAGE"), QStringLiteral("SIZE"), QStringLiteral("DIGEST")};
    header += inv->hosts;
    table.append(header);
    for (const Registry::ImageRow &r : std::as_const(inv->rows)) {
        QStringList row{r.reference, formatBytes(r.size()),
                        r.digest.isEmpty() ? QStringLiteral("-")
                                           : r.digest.section(QLatin1Char('@'), 1).left(19)};
        for (const QString &h : std::as_const(inv->hosts)) {
            if (!r.hosts.contains(h))
                row.append(inv->errors.contains(h) ? QStringLiteral("?") : QStringLiteral("-"));
            else
                row.append(shortId(r.hosts.value(h).id) +
                           (r.hosts.value(h).containers > 0 ? QStringLiteral("*") : QString()));
        }
        table.append(row);
    }
    for (const QString &line : alignColumns(table))
        context.out() << line << '\n';
    context.out() << "(host columns: image id there, * = used by a container, - = absent)\n";
    context.out().flush();
    for (auto it = inv->errors.cbegin(); it != inv->errors.cend(); ++it)
        context.err() << "error: " << it.value() << '\n';
    context.err().flush();
    return inv->errors.isEmpty() ? 0 : 1;
}

int imagePull(Context &context, const Args &a)
{
    if (a.positional.size() != 1)
        return context.usage(QStringLiteral("image pull takes one IMAGE"));
    const QString image = a.positional.first();
    if (auto ref = Registry::ImageReference::parse(image); !ref)
        return context.fail(ref.error());
    auto env = openEnv(context);
    if (!env)
        return context.fail(env.error());
    auto hosts = selectHosts(*env->registry, a.value(QStringLiteral("--hosts")));
    if (!hosts)
        return context.fail(hosts.error());
    const bool json = a.has(QStringLiteral("--json"));
    QList<Registry::PullTarget> targets;
    for (const auto &h : std::as_const(*hosts))
        targets.append({h.first, h.second, image, a.has(QStringLiteral("--if-not-present"))});

    PullProgressPrinter printer(context.out(), isatty(STDOUT_FILENO));
    Registry::ImagePuller puller;
    puller.setCredentialLookup(Registry::ImagePuller::dockerConfigLookup());
    // Each host on its own: one that fails does not stop the others.
    puller.setStopOnFirstFailure(false);
    if (!json)
        puller.setProgressCallback(
            [&](const Registry::PullTarget &t, const Docker::PullProgress &p) {
                printer.update(t.host, t.image, p);
            });
    InterruptScope interrupt;
    QElapsedTimer timer;
    timer.start();
    const QList<Registry::PullOutcome> outcomes = puller.run(targets, interrupt.token());
    const qint64 ms = timer.elapsed();
    if (!json)
        printer.finish();

    int failed = 0;
    QJsonArray results;
    QList<QStringList> table;
    for (const Registry::PullOutcome &o : outcomes) {
        if (o.error)
            ++failed;
        results.append(
            QJsonObject{{QStringLiteral("host"), o.host},
                        {QStringLiteral("image"), o.image},
                        {QStringLiteral("pulled"), o.pulled},
                        {QStringLiteral("bytes"), double(o.bytes)},
                        {QStringLiteral("digest"), o.repoDigest},
                        {QStringLiteral("id"), o.imageId},
                        {QStringLiteral("error"), o.error ? o.error->toString() : QString()}});
        table.append({o.host,
                      o.error ? QStringLiteral("FAILED")
                              : (o.pulled ? QStringLiteral("pulled") : QStringLiteral("present")),
                      o.error ? o.error->message
                              : QString(formatBytes(o.bytes) + QStringLiteral("  ") +
                                        (o.repoDigest.isEmpty() ? o.imageId : o.repoDigest))});
    }
    if (json) {
        context.out() << QJsonDocument(QJsonObject{{QStringLiteral("image"), image},
                                                   {QStringLiteral("elapsed_ms"), double(ms)},
                                                   {QStringLiteral("hosts"), results}})
                             .toJson(QJsonDocument::Indented);
    } else {
        for (const QString &line : alignColumns(table))
            context.out() << line << '\n';
        context.out() << image << " on " << (outcomes.size() - failed) << " of " << outcomes.size()
                      << " hosts in " << QString::number(double(ms) / 1000.0, 'f', 2) << " s\n";
    }
    context.out().flush();
    if (failed == 0)
        return 0;
    if (auto e = Registry::ImagePuller::firstError(outcomes))
        return context.fail(*e);
    return 1;
}

int imageRm(Context &context, const Args &a)
{
    if (a.positional.size() != 1)
        return context.usage(QStringLiteral("image rm takes one IMAGE"));
    const QString image = a.positional.first();
    auto env = openEnv(context);
    if (!env)
        return context.fail(env.error());
    auto hosts = selectHosts(*env->registry, a.value(QStringLiteral("--hosts")));
    if (!hosts)
        return context.fail(hosts.error());
    const bool force = a.has(QStringLiteral("--force"));
    std::mutex mutex;
    QMap<QString, QString> lines;
    QList<Error> errors;
    Concurrent::forEach(int(hosts->size()), [&](int i) {
        const auto &[name, client] = hosts->at(i);
        Docker::CallOptions call;
        call.timeout = 60s;
        auto removed = client->removeImage(image, force, call);
        std::lock_guard lock(mutex);
        if (removed)
            lines.insert(name, QStringLiteral("removed (%1 untagged, %2 deleted)")
                                   .arg(removed->untagged.size())
                                   .arg(removed->deleted.size()));
        else if (removed.error().kind == Error::Kind::NotFound)
            lines.insert(name, QStringLiteral("not present"));
        else {
            lines.insert(name, QStringLiteral("FAILED: ") + removed.error().message);
            errors.append(removed.error().withContext(QStringLiteral("removing %1").arg(image)));
        }
    });
    for (auto it = lines.cbegin(); it != lines.cend(); ++it)
        context.out() << it.key().leftJustified(10) << ' ' << it.value() << '\n';
    context.out().flush();
    if (!errors.isEmpty())
        return context.fail(errors.first());
    return 0;
}

// --- registry ------------------------------------------------------------------------------

QString readPasswordFromStdin()
{
    std::string all;
    for (std::string line; std::getline(std::cin, line);)
        all += line + '\n';
    QString s = QString::fromStdString(all);
    while (s.endsWith(QLatin1Char('\n')) || s.endsWith(QLatin1Char('\r')))
        s.chop(1);
    return s;
}

int registryLogin(Context &context, const Args &a)
{
    if (a.positional.size() > 1)
        return context.usage(QStringLiteral("login takes at most one SERVER"));
    const QString server = Registry::normalizeRegistryKey(
        a.positional.isEmpty() ? QStringLiteral("docker.io") : a.positional.first());
    const QString user = a.value(QStringLiteral("--username"));
    if (user.isEmpty())
        return context.usage(QStringLiteral("login needs -u USER"));
    QString password = a.value(QStringLiteral("--password"));
    if (a.has(QStringLiteral("--password-stdin"))) {
        if (!password.isEmpty())
            return context.usage(
                QStringLiteral("--password and --password-stdin exclude each other"));
        password = readPasswordFromStdin();
    } else if (!password.isEmpty()) {
        context.err() << "warning: a password on the command line stays in the shell history; "
                         "prefer --password-stdin\n";
        context.err().flush();
    }
    if (password.isEmpty())
        return context.usage(QStringLiteral("login needs a password (--password-stdin)"));

    Registry::RegistryCredentials creds{server, user, password, {}};
    if (!a.has(QStringLiteral("--no-verify"))) {
        // The daemons pull, so a daemon checks the login (its certs.d trust applies, as for the
        // pulls): the first registered host that answers.
        auto env = openEnv(context);
        if (!env)
            return context.fail(env.error());
        auto hosts = env->registry->list();
        if (!hosts)
            return context.fail(hosts.error());
        std::optional<Error> lastTransport;
        bool checked = false;
        QStringList plaintext; // hosts the password may not travel to (CredentialPolicy)
        for (const HostRecord &h : std::as_const(*hosts)) {
            if (h.endpoint.startsWith(QLatin1String("tcp://")) &&
                !CredentialPolicy::plaintextAllowed()) {
                plaintext.append(QStringLiteral("%1 (%2)").arg(h.name, h.endpoint));
                continue;
            }
            auto client = env->registry->client(h);
            if (!client)
                continue;
            Docker::CallOptions call;
            call.timeout = 30s;
            auto ok = (*client)->checkAuth(server, user, password, call);
            if (!ok && (ok.error().kind == Error::Kind::Transport ||
                        ok.error().kind == Error::Kind::Timeout)) {
                lastTransport = ok.error();
                continue;
            }
            if (!ok)
                return context.fail(
                    Error::make(ok.error().kind, QStringLiteral("registry %1").arg(server),
                                QStringLiteral("login refused (checked by host %1): %2")
                                    .arg(h.name, ok.error().message)));
            creds.identityToken = ok->identityToken;
            if (!creds.identityToken.isEmpty())
                creds.password.clear();
            checked = true;
            break;
        }
        if (!checked && !lastTransport && !plaintext.isEmpty())
            return context.fail(Error::make(
                Error::Kind::Invalid, QStringLiteral("registry %1").arg(server),
                CredentialPolicy::refusal(QStringLiteral("host(s) %1, the only ones to check the "
                                                         "login with,")
                                              .arg(plaintext.join(QStringLiteral(", ")))) +
                    QStringLiteral(" (or log in with --no-verify)")));
        if (!checked)
            return context.fail(
                lastTransport
                    ? lastTransport->withContext(QStringLiteral("no host could check the login"))
                    : Error::make(Error::Kind::Invalid, QString(),
                                  QStringLiteral("no Docker host is registered to check "
                                                 "the login (or use --no-verify)")));
    }
    auto config = Registry::DockerConfig::load();
    if (!config)
        return context.fail(config.error());
    if (auto ok = config->store(creds); !ok)
        return context.fail(ok.error());
    const QString helper = config->helperFor(server);
    context.out() << "Login Succeeded (" << server << ", stored in "
                  << (helper.isEmpty() ? config->filePath()
                                       : QString(QStringLiteral("docker-credential-") + helper))
                  << ")\n";
    context.out().flush();
    return 0;
}

int registryLogout(Context &context, const Args &a)
{
    if (a.positional.size() > 1)
        return context.usage(QStringLiteral("logout takes at most one SERVER"));
    const QString server = Registry::normalizeRegistryKey(
        a.positional.isEmpty() ? QStringLiteral("docker.io") : a.positional.first());
    auto config = Registry::DockerConfig::load();
    if (!config)
        return context.fail(config.error());
    if (auto ok = config->erase(server); !ok)
        return context.fail(ok.error());
    context.out() << "Removed login credentials for " << server << '\n';
    context.out().flush();
    return 0;
}

int registryLs(Context &context, const Args &a)
{
    auto config = Registry::DockerConfig::load();
    if (!config)
        return context.fail(config.error());
    auto logins = config->logins();
    if (!logins)
        return context.fail(logins.error());
    if (a.has(QStringLiteral("--json"))) {
        QJsonArray arr;
        for (const auto &l : std::as_const(*logins))
            arr.append(QJsonObject{{QStringLiteral("registry"), l.registry},
                                   {QStringLiteral("username"), l.username},
                                   {QStringLiteral("store"), l.store}});
        context.out() << QJsonDocument(arr).toJson(QJsonDocument::Indented);
    } else {
        QList<QStringList> table{
            {QStringLiteral("REGISTRY"), QStringLiteral("USER"), QStringLiteral("STORED IN")}};
        for (const auto &l : std::as_const(*logins))
            table.append(
                {l.registry, l.username.isEmpty() ? QStringLiteral("?") : l.username, l.store});
        for (const QString &line : alignColumns(table))
            context.out() << line << '\n';
    }
    context.out().flush();
    return 0;
}

// `image SUB …` and `registry SUB …`: the subcommand's own spec reads the words after it.
int groupCommand(Context &context, const QStringList &args, const QString &group,
                 const QList<QPair<QString, int (*)(Context &, const Args &)>> &subs)
{
    QStringList names;
    for (const auto &sub : subs)
        names.append(sub.first);
    if (args.isEmpty())
        return context.usage(QStringLiteral("%1 needs %2 (see clusterdeckctl %1 --help)")
                                 .arg(group, names.join(QStringLiteral(", "))));
    if (args.first() == QLatin1String("--help") || args.first() == QLatin1String("-h")) {
        context.out() << groupHelpText(group);
        return 0;
    }
    for (const auto &[name, run] : subs) {
        if (args.first() != name)
            continue;
        Args a;
        if (const auto stop = parseArgs(context, args.mid(1), group + u' ' + name, &a))
            return *stop;
        return run(context, a);
    }
    return context.usage(QStringLiteral("unknown %1 command '%2' (see clusterdeckctl %1 --help)")
                             .arg(group, args.first()));
}

int imageLsOnly(Context &context, const Args &a)
{
    return a.positional.isEmpty() ? imageLs(context, a)
                                  : context.usage(QStringLiteral("image ls takes no IMAGE"));
}

} // namespace

int imageCommand(Context &context, const QStringList &args)
{
    return groupCommand(context, args, QStringLiteral("image"),
                        {{QStringLiteral("ls"), imageLsOnly},
                         {QStringLiteral("pull"), imagePull},
                         {QStringLiteral("rm"), imageRm}});
}

int registryCommand(Context &context, const QStringList &args)
{
    return groupCommand(context, args, QStringLiteral("registry"),
                        {{QStringLiteral("login"), registryLogin},
                         {QStringLiteral("logout"), registryLogout},
                         {QStringLiteral("ls"), registryLs}});
}

} // namespace ClusterDeck::Cli
