#pragma once

// A scripted Docker daemon peer at the HTTP level: a minimal HTTP/1.1 server on a unix socket
// (QLocalServer) on its own thread, answering every request with what a handler returns. For
// tests of DockerClient's request building, error mapping and streams (tst_dockerrequests) and any
// test that needs a real socket with scripted answers. For provisioning without HTTP, see
// fakedockerhost.h.

#include <QByteArray>
#include <QList>
#include <QMap>
#include <QString>
#include <QThread>
#include <QUrl>
#include <QUrlQuery>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>

class QLocalSocket;

namespace ClusterDeck::TestSupport {

struct FakeRequest
{
    QByteArray method;
    QString path;                         // decoded path
    QByteArray query;                     // raw, as sent
    QMap<QByteArray, QByteArray> headers; // lower-case names
    QByteArray body;

    QString queryItem(const QString &key) const
    {
        return QUrlQuery(QString::fromLatin1(query)).queryItemValue(key, QUrl::FullyDecoded);
    }
};

struct FakeResponse
{
    enum class End { Complete, Abort, KeepOpen };
    int status = 200;
    QByteArray body;
    QList<QPair<QByteArray, QByteArray>> headers;
    QByteArrayList chunks; // set: a chunked streaming response
    End end = End::Complete;
    bool silent = false; // never answer at all
    QByteArray raw;      // set: written verbatim (head included), then the connection closes
};

using Handler = std::function<FakeResponse(const FakeRequest &)>;

inline FakeResponse json(int status, const QByteArray &body)
{
    FakeResponse r;
    r.status = status;
    r.body = body;
    r.headers.append(qMakePair(QByteArray("Content-Type"), QByteArray("application/json")));
    return r;
}

inline FakeResponse ping(const QByteArray &apiVersion)
{
    FakeResponse r;
    r.body = "OK";
    if (!apiVersion.isEmpty())
        r.headers.append(qMakePair(QByteArray("Api-Version"), apiVersion));
    r.headers.append(qMakePair(QByteArray("Ostype"), QByteArray("linux")));
    return r;
}

// A minimal HTTP/1.1 server on a QLocalServer, living on its own thread.
class FakeDaemon : public QThread
{
public:
    explicit FakeDaemon(QString socketPath)
        : m_socketPath(std::move(socketPath))
    {}
    ~FakeDaemon() override
    {
        quit();
        wait();
    }

    void setHandler(Handler handler)
    {
        std::lock_guard lock(m_mutex);
        m_handler = std::move(handler);
    }
    QList<FakeRequest> requests() const
    {
        std::lock_guard lock(m_mutex);
        return m_requests;
    }
    int count(const QString &path) const
    {
        std::lock_guard lock(m_mutex);
        return int(std::count_if(m_requests.begin(), m_requests.end(),
                                 [&](const FakeRequest &r) { return r.path == path; }));
    }
    bool waitUntilListening()
    {
        std::unique_lock lock(m_mutex);
        return m_listening.wait_for(lock, std::chrono::seconds(5),
                                    [this] { return m_isListening; });
    }

protected:
    void run() override;

private:
    void serve(QLocalSocket *socket, QByteArray &buffer);

    QString m_socketPath;
    mutable std::mutex m_mutex;
    std::condition_variable m_listening;
    bool m_isListening = false;
    Handler m_handler;
    QList<FakeRequest> m_requests;
};

} // namespace ClusterDeck::TestSupport
