#include "boundedbuffer.h"

#include <algorithm>

namespace ClusterDeck {

BoundedBuffer::BoundedBuffer(Keep keep, qsizetype maxBytes)
    : m_keep(keep)
    , m_maxBytes(std::max<qsizetype>(0, maxBytes))
{}

void BoundedBuffer::append(const QByteArray &data)
{
    if (m_keep == Keep::Head) {
        const qsizetype take = std::min(data.size(), m_maxBytes - m_data.size());
        m_data.append(data.constData(), take);
        m_dropped += data.size() - take;
        return;
    }
    if (data.size() >= m_maxBytes) {
        m_dropped += m_data.size() + data.size() - m_maxBytes;
        m_data = data.right(m_maxBytes);
        return;
    }
    const qsizetype over = m_data.size() + data.size() - m_maxBytes;
    if (over > 0) {
        m_data.remove(0, over);
        m_dropped += over;
    }
    m_data.append(data);
}

void BoundedBuffer::clear()
{
    m_data.clear();
    m_dropped = 0;
}

} // namespace ClusterDeck
