#include "terminalsession.h"

#include "docker/dockerclient.h"

#include <QThreadPool>

namespace ClusterDeck::Ui {

using namespace std::chrono_literals;

TerminalSession::TerminalSession(std::shared_ptr<const Docker::DockerClient> client,
                                 QString containerId, Docker::ExecStream::Options options,
                                 QObject *parent)
    : TerminalSession(
          [client = std::move(client)]() -> Result<std::shared_ptr<const Docker::DockerClient>> {
              return client;
          },
          std::move(containerId), std::move(options), parent)
{}

TerminalSession::TerminalSession(ClientProvider provider, QString containerId,
                                 Docker::ExecStream::Options options, QObject *parent)
    : QObject(parent)
    , m_provider(std::move(provider))
    , m_containerId(std::move(containerId))
    , m_options(std::move(options))
{}

TerminalSession::~TerminalSession()
{
    close();
}

void TerminalSession::start()
{
    if (m_thread.joinable())
        return;
    m_running = true;
    m_thread = std::thread([this] { run(); });
}

void TerminalSession::run()
{
    Docker::ExecStream::Options options = m_options;
    if (m_rows > 0 && m_cols > 0) {
        options.rows = m_rows;
        options.cols = m_cols;
    }
    auto client = m_provider();
    if (!client) {
        m_running = false;
        Q_EMIT failed(client.error().toString());
        return;
    }
    auto made = Docker::ExecStream::open(*client, m_containerId, options);
    if (!made) {
        m_running = false;
        Q_EMIT failed(made.error().toString());
        return;
    }
    std::shared_ptr<Docker::ExecStream> stream(std::move(*made));
    {
        std::lock_guard lock(m_mutex);
        m_stream = stream;
    }
    Q_EMIT opened(stream->command());
    // A resize asked for while opening.
    if (m_rows > 0 && (m_rows != options.rows || m_cols != options.cols))
        (void)stream->resize(m_rows, m_cols);
    while (!m_stop && !stream->atEnd()) {
        auto chunk = stream->read(100ms);
        if (!chunk) {
            m_running = false;
            if (!m_stop)
                Q_EMIT failed(chunk.error().toString());
            return;
        }
        if (!chunk->isEmpty())
            Q_EMIT received(*chunk);
    }
    m_running = false;
    if (m_stop)
        return;
    auto code = stream->exitCode();
    if (code)
        Q_EMIT finished(*code);
    else
        Q_EMIT failed(code.error().toString());
}

void TerminalSession::send(const QByteArray &bytes)
{
    std::shared_ptr<Docker::ExecStream> stream;
    {
        std::lock_guard lock(m_mutex);
        stream = m_stream;
    }
    if (stream && !stream->atEnd())
        (void)stream->write(bytes); // keystrokes: small, the socket takes them at once
}

void TerminalSession::resize(int rows, int cols)
{
    m_rows = rows;
    m_cols = cols;
    std::shared_ptr<Docker::ExecStream> stream;
    {
        std::lock_guard lock(m_mutex);
        stream = m_stream;
    }
    if (!stream)
        return;
    // An HTTP call: off the GUI thread.
    QThreadPool::globalInstance()->start(
        [stream, rows, cols] { (void)stream->resize(rows, cols); });
}

void TerminalSession::close()
{
    m_stop = true;
    if (m_thread.joinable())
        m_thread.join();
    std::lock_guard lock(m_mutex);
    m_stream.reset();
}

} // namespace ClusterDeck::Ui
