#pragma once

#include <QString>

namespace ClusterDeck {

// Text that came from a kernel (its last log lines in an error, an event's detail) made safe to
// print on a terminal or show in a view: C0 controls but tab and newline, DEL and the C1
// controls become visible escapes ("\e", "\x07", "\u009b"), so an OSC 52 clipboard write, a
// cursor move or hidden text cannot act on the admin's terminal.
class InertText
{
public:
    static QString of(const QString &text);
    static bool isControl(char32_t c);
};

} // namespace ClusterDeck
