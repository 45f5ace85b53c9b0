#pragma once

#include "common/error.h"
#include "dockertypes.h"

#include <QByteArray>
#include <QString>
#include <QStringList>

#include <chrono>
#include <memory>

namespace ClusterDeck::Http {
class RawStream;
}

namespace ClusterDeck::Docker {

class DockerClient;

// An interactive process in a container with a TTY: Docker exec started on a connection the
// daemon takes over, so keystrokes go in and the terminal's bytes come out as they are.
// read() and write() may be called from two different threads.
class ExecStream
{
public:
    struct Options
    {
        QStringList command; // empty: a login shell, bash if the image has it, else sh
        QString user;
        QStringList env; // "K=V"; TERM defaults to xterm-256color
        int rows = 24;
        int cols = 80;
    };

    ~ExecStream();
    ExecStream(const ExecStream &) = delete;
    ExecStream &operator=(const ExecStream &) = delete;

    static Result<std::unique_ptr<ExecStream>> open(std::shared_ptr<const DockerClient> client,
                                                    const QString &containerId,
                                                    const Options &options,
                                                    const CallOptions &call = {});

    QString execId() const { return m_execId; }
    QStringList command() const { return m_command; } // what runs: {"bash"}, {"sh"}, or asked
    int socket() const;

    // Bytes from the terminal, waiting up to `timeout` (empty on timeout or at the end).
    Result<QByteArray> read(std::chrono::milliseconds timeout);
    Result<void> write(const QByteArray &data);
    Result<void> resize(int rows, int cols);
    bool atEnd() const;
    // The process's exit code, once atEnd().
    Result<int> exitCode() const;

private:
    ExecStream() = default;
    static Result<std::unique_ptr<ExecStream>>
    start(std::shared_ptr<const DockerClient> client, const QString &containerId,
          const QStringList &command, const Options &options, const CallOptions &call);

    std::shared_ptr<const DockerClient> m_client;
    QString m_execId;
    QStringList m_command;
    std::unique_ptr<Http::RawStream> m_stream;
    QByteArray m_pending; // read while probing for the shell
};

} // namespace ClusterDeck::Docker
