#include "dockerlogdemuxer.h"

namespace ClusterDeck::Docker {

namespace {
constexpr qsizetype kHeaderSize = 8;
} // namespace

Result<QList<LogFrame>> DockerLogDemuxer::feed(const QByteArray &chunk)
{
    if (m_failed)
        return fail(Error::Kind::Decode, QString(), QStringLiteral("log stream already failed"));
    m_buffer.append(chunk);

    QList<LogFrame> frames;
    while (m_buffer.size() - m_offset >= kHeaderSize) {
        const auto *h = reinterpret_cast<const uchar *>(m_buffer.constData() + m_offset);
        if (h[0] > 2 || h[1] != 0 || h[2] != 0 || h[3] != 0) {
            m_failed = true;
            return fail(Error::Kind::Decode, QString(),
                        QStringLiteral("malformed log frame header at byte %1 (stream %2): the "
                                       "stream is not multiplexed")
                            .arg(m_offset)
                            .arg(int(h[0])));
        }
        const quint32 size =
            (quint32(h[4]) << 24) | (quint32(h[5]) << 16) | (quint32(h[6]) << 8) | quint32(h[7]);
        if (m_buffer.size() - m_offset - kHeaderSize < qsizetype(size))
            break; // wait for the rest of the frame
        frames.append({LogFrame::Stream(h[0]), m_buffer.mid(m_offset + kHeaderSize, size)});
        m_offset += kHeaderSize + qsizetype(size);
    }
    // Compact once the consumed prefix dominates, so long streams do not grow the buffer.
    if (m_offset > 0 && m_offset * 2 >= m_buffer.size()) {
        m_buffer.remove(0, m_offset);
        m_offset = 0;
    }
    return frames;
}

Result<QList<LogFrame>> DockerLogDemuxer::demultiplex(const QByteArray &stream)
{
    DockerLogDemuxer demuxer;
    auto frames = demuxer.feed(stream);
    if (!frames)
        return frames;
    if (demuxer.pendingBytes() > 0)
        return fail(Error::Kind::Decode, QString(),
                    QStringLiteral("log stream ends inside a frame (%1 bytes left over)")
                        .arg(demuxer.pendingBytes()));
    return frames;
}

} // namespace ClusterDeck::Docker
