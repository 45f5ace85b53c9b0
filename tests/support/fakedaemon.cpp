#include "fakedaemon.h"

#include <QLocalServer>
#include <QLocalSocket>

namespace ClusterDeck::TestSupport {

void FakeDaemon::run()
{
    QLocalServer server;
    QLocalServer::removeServer(m_socketPath);
    if (!server.listen(m_socketPath))
        qFatal("fake daemon cannot listen on %s", qPrintable(m_socketPath));
    QObject::connect(&server, &QLocalServer::newConnection, &server, [&] {
        while (QLocalSocket *socket = server.nextPendingConnection()) {
            auto buffer = std::make_shared<QByteArray>();
            QObject::connect(socket, &QLocalSocket::disconnected, socket, &QObject::deleteLater);
            QObject::connect(socket, &QLocalSocket::readyRead, socket, [this, socket, buffer] {
                buffer->append(socket->readAll());
                serve(socket, *buffer);
            });
        }
    });
    {
        std::lock_guard lock(m_mutex);
        m_isListening = true;
    }
    m_listening.notify_all();
    exec();
}

void FakeDaemon::serve(QLocalSocket *socket, QByteArray &buffer)
{
    for (;;) {
        const qsizetype headerEnd = buffer.indexOf("\r\n\r\n");
        if (headerEnd < 0)
            return;
        const QByteArrayList lines = buffer.left(headerEnd).split('\n');
        FakeRequest request;
        const QByteArrayList first = lines.value(0).trimmed().split(' ');
        request.method = first.value(0);
        const QByteArray target = first.value(1);
        const qsizetype q = target.indexOf('?');
        request.path = QUrl::fromPercentEncoding(q < 0 ? target : target.left(q));
        request.query = q < 0 ? QByteArray() : target.mid(q + 1);
        for (qsizetype i = 1; i < lines.size(); ++i) {
            const qsizetype colon = lines.at(i).indexOf(':');
            if (colon > 0)
                request.headers.insert(lines.at(i).left(colon).trimmed().toLower(),
                                       lines.at(i).mid(colon + 1).trimmed());
        }
        const qsizetype length = request.headers.value("content-length").toLongLong();
        if (buffer.size() < headerEnd + 4 + length)
            return;
        request.body = buffer.mid(headerEnd + 4, length);
        buffer.remove(0, headerEnd + 4 + length);

        Handler handler;
        {
            std::lock_guard lock(m_mutex);
            m_requests.append(request);
            handler = m_handler;
        }
        const FakeResponse response = handler ? handler(request) : json(404, "{}");
        if (response.silent)
            return;
        if (!response.raw.isEmpty()) {
            // One write: the head, the stream and the close reach the client together.
            socket->write(response.raw);
            socket->flush();
            socket->disconnectFromServer();
            return;
        }
        QByteArray out = "HTTP/1.1 " + QByteArray::number(response.status) + " Fake\r\n";
        for (const auto &[name, value] : response.headers)
            out += name + ": " + value + "\r\n";
        if (response.chunks.isEmpty()) {
            out += "Content-Length: " + QByteArray::number(response.body.size()) + "\r\n\r\n";
            out += response.body;
            socket->write(out);
            socket->flush();
            continue;
        }
        out += "Transfer-Encoding: chunked\r\n\r\n";
        for (const QByteArray &chunk : response.chunks)
            out += QByteArray::number(chunk.size(), 16) + "\r\n" + chunk + "\r\n";
        if (response.end == FakeResponse::End::Complete)
            out += "0\r\n\r\n";
        socket->write(out);
        socket->flush();
        if (response.end == FakeResponse::End::Abort) {
            socket->waitForBytesWritten(1000);
            socket->abort(); // a dropped connection in the middle of the stream
        }
        return;
    }
}

} // namespace ClusterDeck::TestSupport
