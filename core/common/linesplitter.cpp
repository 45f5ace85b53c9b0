#include "linesplitter.h"

#include <algorithm>

namespace ClusterDeck {

LineSplitter::LineSplitter(qsizetype maxLineBytes)
    : m_maxLineBytes(std::max<qsizetype>(1, maxLineBytes))
{}

QList<QByteArray> LineSplitter::feed(const QByteArray &data)
{
    QList<QByteArray> lines;
    qsizetype start = 0;
    while (start < data.size()) {
        const qsizetype nl = data.indexOf('\n', start);
        const qsizetype end = nl < 0 ? data.size() : nl;
        // Take no more than fills the pending line up to the limit.
        const qsizetype room = m_maxLineBytes - m_pending.size();
        const qsizetype take = std::min(end - start, room);
        m_pending.append(data.constData() + start, take);
        start += take;
        if (m_pending.size() >= m_maxLineBytes && (start < end || nl < 0)) {
            if (!m_cutting)
                ++m_cut;
            m_cutting = true;
            lines.append(m_pending);
            m_pending.clear();
            continue;
        }
        if (nl >= 0 && start == nl) {
            // A line that was cut ends with an empty piece only if the cut fell on its end.
            if (!m_pending.isEmpty() || !m_cutting)
                lines.append(m_pending);
            m_pending.clear();
            m_cutting = false;
            start = nl + 1;
        }
    }
    return lines;
}

QList<QByteArray> LineSplitter::flush()
{
    QList<QByteArray> lines;
    if (!m_pending.isEmpty())
        lines.append(m_pending);
    m_pending.clear();
    m_cutting = false;
    return lines;
}

} // namespace ClusterDeck
