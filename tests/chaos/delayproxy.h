#pragma once

#include <QString>

#include <atomic>
#include <chrono>
#include <memory>
#include <thread>

// A TCP forwarder on 127.0.0.1 in front of one lab host's Docker TLS port, whose one-way delay
// can be switched on: the API's part of a slow link. (The lab kernel has no sch_netem, so
// `tc netem` cannot add the delay; the packet loss is iptables' `statistic` match instead.)
class DelayProxy
{
public:
    DelayProxy(QString targetAddress, int targetPort);
    ~DelayProxy();
    DelayProxy(const DelayProxy &) = delete;
    DelayProxy &operator=(const DelayProxy &) = delete;

    bool start(QString *error); // listens on an ephemeral port
    int port() const { return m_port; }
    // Each chunk waits this long before it is forwarded, in both directions (0: none).
    void setDelay(std::chrono::milliseconds oneWay) { m_delayMs.store(int(oneWay.count())); }

private:
    void acceptLoop();
    void pump(int from, int to);

    const QString m_targetAddress;
    const int m_targetPort;
    int m_listener = -1;
    int m_port = 0;
    std::atomic_int m_delayMs{0};
    std::atomic_bool m_stopping{false};
    std::atomic_int m_active{0}; // connections being forwarded (detached threads)
    std::thread m_acceptor;
};
