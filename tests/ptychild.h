#pragma once
// A command run on a pseudo-terminal for tests of interactive CLI commands (`shell`): the test
// reads what it prints, types into it, and keeps the slave side open to look at its modes.

#include <QByteArray>
#include <QElapsedTimer>
#include <QList>
#include <QStringList>

#include <csignal>
#include <poll.h>
#include <pty.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>
#include <utmp.h>
#include <vector>

// A child process on a pseudo-terminal; the test keeps the slave side open to look at its modes.
struct PtyChild
{
    pid_t pid = -1;
    int master = -1;
    int slave = -1;
    QByteArray seen;

    bool start(const char *program, const QStringList &args, int rows, int cols)
    {
        struct winsize ws = {};
        ws.ws_row = (unsigned short)rows;
        ws.ws_col = (unsigned short)cols;
        if (openpty(&master, &slave, nullptr, nullptr, &ws) != 0)
            return false;
        QList<QByteArray> bytes;
        bytes.append(QByteArray(program));
        for (const QString &a : args)
            bytes.append(a.toLocal8Bit());
        pid = fork();
        if (pid == 0) {
            ::close(master);
            const int s = ::dup(slave);
            ::close(slave);
            login_tty(s);
            std::vector<char *> argv;
            for (QByteArray &b : bytes)
                argv.push_back(b.data());
            argv.push_back(nullptr);
            execv(argv[0], argv.data());
            _exit(127);
        }
        return pid > 0;
    }
    bool waitFor(const QByteArray &needle, int timeoutMs = 15000)
    {
        QElapsedTimer t;
        t.start();
        while (!seen.contains(needle) && t.elapsed() < timeoutMs) {
            pollfd p{master, POLLIN, 0};
            if (::poll(&p, 1, 100) > 0) {
                char buf[4096];
                const ssize_t n = ::read(master, buf, sizeof buf);
                if (n <= 0)
                    break;
                seen.append(buf, n);
            }
        }
        return seen.contains(needle);
    }
    void send(const QByteArray &bytes)
    {
        [[maybe_unused]] auto n = ::write(master, bytes.constData(), size_t(bytes.size()));
    }
    // The exit status, or -(signal) when a signal ended it.
    int wait(int timeoutMs = 15000)
    {
        QElapsedTimer t;
        t.start();
        int status = 0;
        while (t.elapsed() < timeoutMs) {
            char buf[4096];
            pollfd p{master, POLLIN, 0};
            if (::poll(&p, 1, 50) > 0 && ::read(master, buf, sizeof buf) > 0)
                continue; // keep the pty drained
            if (waitpid(pid, &status, WNOHANG) == pid) {
                pid = -1;
                return WIFEXITED(status) ? WEXITSTATUS(status) : -WTERMSIG(status);
            }
        }
        return -1000;
    }
    bool slaveIsCooked() const
    {
        struct termios t = {};
        return tcgetattr(slave, &t) == 0 && (t.c_lflag & ICANON) && (t.c_lflag & ECHO);
    }
    ~PtyChild()
    {
        if (pid > 0) {
            ::kill(pid, SIGKILL);
            waitpid(pid, nullptr, 0);
        }
        if (master >= 0)
            ::close(master);
        if (slave >= 0)
            ::close(slave);
    }
};
