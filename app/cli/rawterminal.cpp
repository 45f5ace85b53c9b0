#include "rawterminal.h"

#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <fcntl.h>
#include <sys/ioctl.h>
#include <unistd.h>

namespace ClusterDeck::Cli {

namespace {

// Signal handlers reach the saved state through these (one raw terminal per process).
int g_fd = -1;
bool g_saved = false;
struct termios g_original = {};
int g_winchPipe[2] = {-1, -1};
struct sigaction g_oldTerm = {}, g_oldHup = {}, g_oldQuit = {}, g_oldWinch = {};

void restoreNow()
{
    if (g_saved && g_fd >= 0) {
        tcsetattr(g_fd, TCSADRAIN, &g_original); // async-signal-safe
        g_saved = false;
    }
}

extern "C" void onFatalSignal(int sig)
{
    restoreNow();
    // Let the signal do what it would have done.
    signal(sig, SIG_DFL);
    raise(sig);
}

extern "C" void onWinch(int)
{
    const int saved = errno;
    if (g_winchPipe[1] >= 0) {
        const char b = 'w';
        [[maybe_unused]] const ssize_t n = ::write(g_winchPipe[1], &b, 1);
    }
    errno = saved;
}

extern "C" void restoreAtExit()
{
    restoreNow();
}

} // namespace

RawTerminal::RawTerminal(int fd)
{
    if (::pipe2(g_winchPipe, O_CLOEXEC | O_NONBLOCK) != 0)
        g_winchPipe[0] = g_winchPipe[1] = -1;
    struct sigaction sa = {};
    sigemptyset(&sa.sa_mask);
    sa.sa_handler = onWinch;
    sa.sa_flags = SA_RESTART;
    sigaction(SIGWINCH, &sa, &g_oldWinch);

    if (!isatty(fd) || tcgetattr(fd, &g_original) != 0)
        return;
    g_fd = fd;
    g_saved = true;
    static bool atExitRegistered = false;
    if (!atExitRegistered) {
        std::atexit(restoreAtExit);
        atExitRegistered = true;
    }
    sa.sa_handler = onFatalSignal;
    sa.sa_flags = 0;
    sigaction(SIGTERM, &sa, &g_oldTerm);
    sigaction(SIGHUP, &sa, &g_oldHup);
    sigaction(SIGQUIT, &sa, &g_oldQuit);

    struct termios raw = g_original;
    cfmakeraw(&raw);
    // TCSADRAIN, not TCSAFLUSH: what was typed ahead of the shell must reach it.
    m_raw = tcsetattr(fd, TCSADRAIN, &raw) == 0;
}

RawTerminal::~RawTerminal()
{
    restore();
    sigaction(SIGWINCH, &g_oldWinch, nullptr);
    for (int &end : g_winchPipe) {
        if (end >= 0)
            ::close(end);
        end = -1;
    }
}

void RawTerminal::restore()
{
    restoreNow();
    if (m_raw) {
        sigaction(SIGTERM, &g_oldTerm, nullptr);
        sigaction(SIGHUP, &g_oldHup, nullptr);
        sigaction(SIGQUIT, &g_oldQuit, nullptr);
        m_raw = false;
    }
}

int RawTerminal::windowChanges() const
{
    return g_winchPipe[0];
}

bool RawTerminal::size(int fd, int &rows, int &cols)
{
    struct winsize ws = {};
    if (ioctl(fd, TIOCGWINSZ, &ws) != 0 && ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) != 0)
        return false;
    if (ws.ws_row == 0 || ws.ws_col == 0)
        return false;
    rows = ws.ws_row;
    cols = ws.ws_col;
    return true;
}

} // namespace ClusterDeck::Cli
