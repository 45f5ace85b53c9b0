#pragma once

#include <QByteArray>
#include <QList>
#include <QString>

namespace ClusterDeck::Docker {

// One layer of an image being pulled, as the daemon's progress stream tells it.
struct LayerProgress
{
    enum class Phase { Waiting, Downloading, Downloaded, Extracting, Complete, Existed };

    QString id; // short layer id, "5e977a948e75"
    Phase phase = Phase::Waiting;
    qint64 downloaded = 0; // bytes so far
    qint64 total = 0;      // 0 until the daemon knows the size
    qint64 extracted = 0;

    bool isDone() const { return phase == Phase::Complete || phase == Phase::Existed; }
    friend bool operator==(const LayerProgress &, const LayerProgress &) = default;
};

// Where one pull on one host stands: the sum of what its layers say.
struct PullProgress
{
    QList<LayerProgress> layers; // in the order the daemon first named them
    QString status;              // the last image-wide line: "Pulling from team/train"
    QString digest;              // "sha256:…" once the daemon says "Digest: …"
    QString error;               // the daemon's message when the pull failed mid-stream
    bool finished = false;       // "Status: Downloaded newer image" / "Image is up to date"
    bool upToDate = false;       // the host had it already

    qint64 downloadedBytes() const;
    qint64 totalBytes() const; // of the layers whose size is known
    int layersDone() const;
    bool sizeKnown() const; // every layer that needs downloading has announced its size
    // 0..1 of the bytes (layers that existed count as done).
    double fraction() const;
};

// Decodes the newline-separated JSON stream of POST /images/create into a PullProgress. Lines may
// be split across chunks. Pure: tested with recorded streams.
class PullProgressDecoder
{
public:
    // Returns true when the progress changed.
    bool feed(const QByteArray &chunk);
    // Decodes a last line that had no newline.
    bool finish();
    const PullProgress &progress() const { return m_progress; }

private:
    bool decodeLine(const QByteArray &line);
    LayerProgress &layer(const QString &id);

    QByteArray m_pending;
    PullProgress m_progress;
};

} // namespace ClusterDeck::Docker
