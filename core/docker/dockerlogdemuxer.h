#pragma once

#include "common/error.h"
#include "dockertypes.h"

#include <QByteArray>
#include <QList>

namespace ClusterDeck::Docker {

// Splits the multiplexed log/attach stream of a non-TTY container into frames. Each frame is an
// 8-byte header {stream (0 stdin, 1 stdout, 2 stderr), 0, 0, 0, size as big-endian uint32}
// followed by `size` bytes. Feed chunks as they arrive. A frame of up to kMaxWholeFrameBytes is
// handed on whole once complete; a larger one (the header allows 4 GiB) is handed on in pieces as
// its bytes arrive, so the demuxer never holds more than that.
class DockerLogDemuxer
{
public:
    static constexpr qsizetype kMaxWholeFrameBytes = 1024 * 1024;

    // Returns the frames (or pieces of a large one) completed by `chunk`. Fails on a malformed
    // header; the demuxer is then unusable (the stream is not multiplexed, e.g. a TTY container).
    Result<QList<LogFrame>> feed(const QByteArray &chunk);

    // Bytes held for a frame not yet complete (at most kMaxWholeFrameBytes + a header).
    qsizetype pendingBytes() const { return m_header.size() + m_frame.size(); }
    // The stream stopped inside a frame (or its header).
    bool insideFrame() const { return m_inFrame || !m_header.isEmpty(); }
    bool hasFailed() const { return m_failed; }

    // Demultiplexes a whole stream at once; a truncated last frame is an error.
    static Result<QList<LogFrame>> demultiplex(const QByteArray &stream);

private:
    QByteArray m_header;
    QByteArray m_frame; // a whole frame being completed
    LogFrame::Stream m_stream = LogFrame::Stream::Stdout;
    qint64 m_remaining = 0; // bytes of the current frame still to come
    bool m_inFrame = false;
    bool m_whole = true;
    qint64 m_position = 0; // stream bytes consumed before the current header
    bool m_failed = false;
};

} // namespace ClusterDeck::Docker
