#include "delayproxy.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

DelayProxy::DelayProxy(QString targetAddress, int targetPort)
    : m_targetAddress(std::move(targetAddress))
    , m_targetPort(targetPort)
{}

DelayProxy::~DelayProxy()
{
    m_stopping.store(true);
    if (m_listener >= 0)
        ::shutdown(m_listener, SHUT_RDWR);
    if (m_acceptor.joinable())
        m_acceptor.join();
    if (m_listener >= 0)
        ::close(m_listener);
    // The pumps poll m_stopping every 200 ms.
    while (m_active.load() > 0)
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
}

bool DelayProxy::start(QString *error)
{
    m_listener = ::socket(AF_INET, SOCK_STREAM, 0);
    int one = 1;
    ::setsockopt(m_listener, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    sockaddr_in addr = {};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    addr.sin_port = 0;
    if (::bind(m_listener, reinterpret_cast<sockaddr *>(&addr), sizeof addr) != 0 ||
        ::listen(m_listener, 128) != 0) {
        *error = QString::fromLocal8Bit(std::strerror(errno));
        return false;
    }
    socklen_t len = sizeof addr;
    ::getsockname(m_listener, reinterpret_cast<sockaddr *>(&addr), &len);
    m_port = ntohs(addr.sin_port);
    m_acceptor = std::thread([this] { acceptLoop(); });
    return true;
}

void DelayProxy::acceptLoop()
{
    while (!m_stopping.load()) {
        pollfd p = {m_listener, POLLIN, 0};
        if (::poll(&p, 1, 200) <= 0)
            continue;
        const int client = ::accept(m_listener, nullptr, nullptr);
        if (client < 0)
            continue;
        const int upstream = ::socket(AF_INET, SOCK_STREAM, 0);
        sockaddr_in to = {};
        to.sin_family = AF_INET;
        to.sin_port = htons(uint16_t(m_targetPort));
        ::inet_pton(AF_INET, m_targetAddress.toLatin1().constData(), &to.sin_addr);
        if (::connect(upstream, reinterpret_cast<sockaddr *>(&to), sizeof to) != 0) {
            ::close(upstream);
            ::close(client);
            continue;
        }
        int one = 1;
        ::setsockopt(client, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        ::setsockopt(upstream, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        // Each direction on its own thread; the connection ends when either side closes.
        ++m_active;
        std::thread([this, client, upstream] {
            std::thread back([this, client, upstream] { pump(upstream, client); });
            pump(client, upstream);
            ::shutdown(client, SHUT_RDWR);
            ::shutdown(upstream, SHUT_RDWR);
            back.join();
            ::close(client);
            ::close(upstream);
            --m_active;
        }).detach();
    }
}

void DelayProxy::pump(int from, int to)
{
    char buffer[65536];
    while (!m_stopping.load()) {
        pollfd p = {from, POLLIN, 0};
        const int ready = ::poll(&p, 1, 200);
        if (ready == 0)
            continue;
        if (ready < 0)
            return;
        const ssize_t n = ::read(from, buffer, sizeof buffer);
        if (n <= 0)
            break;
        if (const int delay = m_delayMs.load(); delay > 0)
            std::this_thread::sleep_for(std::chrono::milliseconds(delay));
        for (ssize_t sent = 0; sent < n;) {
            const ssize_t w = ::send(to, buffer + sent, size_t(n - sent), MSG_NOSIGNAL);
            if (w <= 0)
                return;
            sent += w;
        }
    }
    ::shutdown(to, SHUT_WR);
}
