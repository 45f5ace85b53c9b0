#pragma once

#include "common/error.h"
#include "store/records.h"

#include <QList>
#include <QProcessEnvironment>
#include <QString>

namespace ClusterDeck {

// The Docker CLI's contexts (`docker context create gpu3 --docker host=…`), read from its context
// store and never written: $DOCKER_CONFIG (default ~/.docker)/contexts/meta/<sha256 of the name>/
// meta.json, and the TLS files the CLI copied beside it (contexts/tls/<sha256>/docker/*.pem). An
// admin's hosts are registered once, for the docker CLI; `host add --context`, `host
// import-contexts` and the console register them from there (issue 27, item 2).
class DockerContexts
{
public:
    struct Context
    {
        QString name;
        QString description;
        QString host; // the docker endpoint as the CLI has it: unix://…, tcp://…, ssh://…
        bool skipTlsVerify = false;
        QString tlsCa, tlsCert, tlsKey; // absolute paths of the files the CLI keeps; empty: none
        QString metaFile;
    };

    // $DOCKER_CONFIG, else ~/.docker.
    static QString
    configDir(const QProcessEnvironment &env = QProcessEnvironment::systemEnvironment());
    // Every context in the store, by name (none: an empty list). A meta.json that cannot be read
    // is an error naming the file.
    static Result<QList<Context>> list(const QString &configDir);
    static Result<Context> find(const QString &configDir, const QString &name);
    // The context the docker CLI would use: $DOCKER_CONTEXT, else config.json's currentContext,
    // else "default" (DOCKER_HOST or the local socket, which is no entry in the store).
    static QString
    current(const QString &configDir,
            const QProcessEnvironment &env = QProcessEnvironment::systemEnvironment());

    // The host record `name` for a context: unix:// as is, tcp:// with TLS files as tcp+tls://
    // with them, tcp:// without as tcp://. Refused, with what to do: ssh:// (not supported yet),
    // a context that turns TLS verification off, any other scheme.
    static Result<HostRecord> hostRecord(const Context &context, const QString &name);
};

} // namespace ClusterDeck
