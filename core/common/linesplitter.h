#pragma once

#include <QByteArray>
#include <QList>

namespace ClusterDeck {

// Cuts a byte stream (a kernel's log or exec output) into lines as it arrives, holding at most
// one partial line of `maxLineBytes`: a line longer than that (`yes | tr -d '\n'`) is handed on in
// pieces of that size instead of growing without end.
class LineSplitter
{
public:
    static constexpr qsizetype kDefaultMaxLineBytes = 64 * 1024;

    explicit LineSplitter(qsizetype maxLineBytes = kDefaultMaxLineBytes);

    // The complete lines (without '\n') and full pieces `data` completes.
    QList<QByteArray> feed(const QByteArray &data);
    // What is left (a last line without '\n'); empty list when nothing is.
    QList<QByteArray> flush();

    qsizetype pendingBytes() const { return m_pending.size(); }
    // Lines handed on in pieces because they were longer than the limit.
    qsizetype cutLines() const { return m_cut; }

private:
    qsizetype m_maxLineBytes;
    QByteArray m_pending;
    qsizetype m_cut = 0;
    bool m_cutting = false; // the pending bytes continue a line already cut
};

} // namespace ClusterDeck
