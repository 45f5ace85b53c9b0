#pragma once

#include <QByteArray>

namespace ClusterDeck {

// Output kept in memory (an exec's stdout for --json, a kernel's last log lines) with a fixed
// ceiling: the first `maxBytes` (Keep::Head) or the last ones (Keep::Tail); what does not fit is
// only counted.
class BoundedBuffer
{
public:
    enum class Keep { Head, Tail };
    static constexpr qsizetype kDefaultMaxBytes = 1024 * 1024;

    explicit BoundedBuffer(Keep keep = Keep::Head, qsizetype maxBytes = kDefaultMaxBytes);

    void append(const QByteArray &data);
    const QByteArray &data() const { return m_data; }
    qint64 droppedBytes() const { return m_dropped; }
    bool isEmpty() const { return m_data.isEmpty(); }
    void clear();

private:
    Keep m_keep;
    qsizetype m_maxBytes;
    QByteArray m_data;
    qint64 m_dropped = 0;
};

} // namespace ClusterDeck
