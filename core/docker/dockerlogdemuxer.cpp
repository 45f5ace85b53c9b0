#include "dockerlogdemuxer.h"

#include <algorithm>

namespace ClusterDeck::Docker {

namespace {
constexpr qsizetype kHeaderSize = 8;
} // namespace

Result<QList<LogFrame>> DockerLogDemuxer::feed(const QByteArray &chunk)
{
    if (m_failed)
        return fail(Error::Kind::Decode, QString(), QStringLiteral("log stream already failed"));
    QList<LogFrame> frames;
    qsizetype at = 0;
    while (at < chunk.size()) {
        if (m_inFrame) {
            const qsizetype take = qsizetype(std::min<qint64>(m_remaining, chunk.size() - at));
            if (m_whole)
                m_frame.append(chunk.constData() + at, take);
            else
                frames.append({m_stream, chunk.mid(at, take)});
            at += take;
            m_remaining -= take;
            m_position += take;
            if (m_remaining == 0) {
                if (m_whole)
                    frames.append({m_stream, m_frame});
                m_frame.clear();
                m_inFrame = false;
            }
            continue;
        }
        const qsizetype take = std::min(kHeaderSize - m_header.size(), chunk.size() - at);
        m_header.append(chunk.constData() + at, take);
        at += take;
        if (m_header.size() < kHeaderSize)
            break;
        const auto *h = reinterpret_cast<const uchar *>(m_header.constData());
        if (h[0] > 2 || h[1] != 0 || h[2] != 0 || h[3] != 0) {
            m_failed = true;
            return fail(Error::Kind::Decode, QString(),
                        QStringLiteral("malformed log frame header at byte %1 (stream %2): the "
                                       "stream is not multiplexed")
                            .arg(m_position)
                            .arg(int(h[0])));
        }
        const quint32 size =
            (quint32(h[4]) << 24) | (quint32(h[5]) << 16) | (quint32(h[6]) << 8) | quint32(h[7]);
        m_stream = LogFrame::Stream(h[0]);
        m_header.clear();
        m_position += kHeaderSize;
        if (size == 0) {
            frames.append({m_stream, QByteArray()});
            continue;
        }
        m_remaining = size;
        m_whole = qint64(size) <= kMaxWholeFrameBytes;
        m_inFrame = true;
    }
    return frames;
}

Result<QList<LogFrame>> DockerLogDemuxer::demultiplex(const QByteArray &stream)
{
    DockerLogDemuxer demuxer;
    auto frames = demuxer.feed(stream);
    if (!frames)
        return frames;
    if (demuxer.insideFrame())
        return fail(Error::Kind::Decode, QString(),
                    QStringLiteral("log stream ends inside a frame (%1 bytes missing)")
                        .arg(demuxer.m_inFrame ? demuxer.m_remaining
                                               : kHeaderSize - demuxer.m_header.size()));
    return frames;
}

} // namespace ClusterDeck::Docker
