#pragma once

#include <termios.h>

namespace ClusterDeck::Cli {

// Puts a terminal in raw mode for as long as it lives (`shell`), and gives it back as it was on
// every way out: destruction, SIGTERM, SIGHUP, SIGQUIT (then the signal goes on), and exit().
// Also turns SIGWINCH into a readable byte on windowChanges() for a poll loop.
class RawTerminal
{
public:
    explicit RawTerminal(int fd);
    ~RawTerminal();
    RawTerminal(const RawTerminal &) = delete;
    RawTerminal &operator=(const RawTerminal &) = delete;

    bool isRaw() const { return m_raw; }
    // Readable when the window size changed (read and drop the bytes, then ask size()).
    int windowChanges() const;
    // rows, cols of the terminal (of `fd`, else of stdout); false when it is no terminal.
    static bool size(int fd, int &rows, int &cols);
    // Gives the terminal back now (idempotent).
    void restore();

private:
    bool m_raw = false;
};

} // namespace ClusterDeck::Cli
