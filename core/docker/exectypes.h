#pragma once

// Exec instances of the Engine API: POST /containers/{id}/exec, /exec/{id}/start|resize|json.

#include <QString>
#include <QStringList>

#include <optional>

namespace ClusterDeck::Docker {

struct ExecSpec
{
    QStringList cmd;
    QStringList env; // "K=V"
    QString user;    // "" = the container's user
    QString workingDir;
    bool tty = false;
    bool attachStdin = false;
    bool attachStdout = true;
    bool attachStderr = true;
};

struct ExecInfo
{
    QString id;
    QString containerId;
    bool running = false;
    std::optional<int> exitCode; // null while it runs
    qint64 pid = 0;
};

} // namespace ClusterDeck::Docker
