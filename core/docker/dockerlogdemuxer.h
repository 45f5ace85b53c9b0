#pragma once

#include "common/error.h"
#include "dockertypes.h"

#include <QByteArray>
#include <QList>

namespace ClusterDeck::Docker {

// Splits the multiplexed log/attach stream of a non-TTY container into frames. Each frame is an
// 8-byte header {stream (0 stdin, 1 stdout, 2 stderr), 0, 0, 0, size as big-endian uint32}
// followed by `size` bytes. Feed chunks as they arrive; a frame split across chunks is kept
// until it is complete.
class DockerLogDemuxer
{
public:
    // Appends `chunk` and returns the frames completed by it. Fails on a malformed header;
    // the demuxer is then unusable (the stream is not multiplexed, e.g. a TTY container).
    Result<QList<LogFrame>> feed(const QByteArray &chunk);

    // Bytes of an incomplete frame still waiting for the rest.
    qsizetype pendingBytes() const { return m_buffer.size() - m_offset; }
    bool hasFailed() const { return m_failed; }

    // Demultiplexes a whole stream at once; a truncated last frame is an error.
    static Result<QList<LogFrame>> demultiplex(const QByteArray &stream);

private:
    QByteArray m_buffer;
    qsizetype m_offset = 0;
    bool m_failed = false;
};

} // namespace ClusterDeck::Docker
