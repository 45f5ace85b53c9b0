#pragma once

#include "docker/execstream.h"

#include <QByteArray>
#include <QObject>
#include <QString>

#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>

namespace ClusterDeck::Docker {
class DockerClient;
}

namespace ClusterDeck::Ui {

// One exec TTY seen from the GUI thread: opened, read and waited for on a worker thread (the GUI
// never waits on the network), bytes delivered by the queued `received` signal.
class TerminalSession : public QObject
{
    Q_OBJECT

public:
    // Finds the client on the worker thread (a registry may ask its store).
    using ClientProvider = std::function<Result<std::shared_ptr<const Docker::DockerClient>>()>;

    TerminalSession(std::shared_ptr<const Docker::DockerClient> client, QString containerId,
                    Docker::ExecStream::Options options, QObject *parent = nullptr);
    TerminalSession(ClientProvider provider, QString containerId,
                    Docker::ExecStream::Options options, QObject *parent = nullptr);
    ~TerminalSession() override;

    void start();
    void send(const QByteArray &bytes);
    void resize(int rows, int cols);
    // Stops reading and drops the connection (the process gets SIGHUP from its TTY).
    void close();
    bool isRunning() const { return m_running.load(); }

Q_SIGNALS:
    void opened(const QStringList &command);
    void received(const QByteArray &bytes);
    void finished(int exitCode);
    void failed(const QString &message);

private:
    void run();

    ClientProvider m_provider;
    QString m_containerId;
    Docker::ExecStream::Options m_options;
    std::mutex m_mutex; // guards m_stream while it is made and dropped
    std::shared_ptr<Docker::ExecStream> m_stream;
    std::thread m_thread;
    std::atomic_bool m_stop{false};
    std::atomic_bool m_running{false};
    std::atomic_int m_rows{0};
    std::atomic_int m_cols{0};
};

} // namespace ClusterDeck::Ui
