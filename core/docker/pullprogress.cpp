#include "pullprogress.h"

#include <QJsonDocument>
#include <QJsonObject>

namespace ClusterDeck::Docker {

qint64 PullProgress::downloadedBytes() const
{
    qint64 sum = 0;
    for (const LayerProgress &l : layers)
        sum += l.downloaded;
    return sum;
}

qint64 PullProgress::totalBytes() const
{
    qint64 sum = 0;
    for (const LayerProgress &l : layers)
        sum += l.total;
    return sum;
}

int PullProgress::layersDone() const
{
    int n = 0;
    for (const LayerProgress &l : layers)
        n += l.isDone() ? 1 : 0;
    return n;
}

bool PullProgress::sizeKnown() const
{
    for (const LayerProgress &l : layers) {
        if (l.phase == LayerProgress::Phase::Waiting)
            return false;
    }
    return !layers.isEmpty();
}

double PullProgress::fraction() const
{
    if (finished)
        return 1.0;
    if (layers.isEmpty())
        return 0.0;
    qint64 total = totalBytes();
    if (total <= 0 || !sizeKnown())
        return double(layersDone()) / double(layers.size()) * 0.99;
    // Half for the bytes down, half for unpacking them, so a bar does not sit at 100 % while the
    // daemon extracts.
    qint64 done = 0;
    for (const LayerProgress &l : layers) {
        if (l.isDone())
            done += 2 * l.total;
        else if (l.phase == LayerProgress::Phase::Extracting)
            done += l.total + qMin(l.extracted, l.total);
        else
            done += l.downloaded;
    }
    total *= 2;
    const double f = double(done) / double(total);
    return qBound(0.0, f, 0.999);
}

LayerProgress &PullProgressDecoder::layer(const QString &id)
{
    for (LayerProgress &l : m_progress.layers) {
        if (l.id == id)
            return l;
    }
    m_progress.layers.append(LayerProgress{id});
    return m_progress.layers.last();
}

bool PullProgressDecoder::feed(const QByteArray &chunk)
{
    m_pending += chunk;
    bool changed = false;
    qsizetype start = 0;
    for (qsizetype nl = m_pending.indexOf('\n'); nl >= 0; nl = m_pending.indexOf('\n', start)) {
        changed |= decodeLine(m_pending.mid(start, nl - start).trimmed());
        start = nl + 1;
    }
    m_pending.remove(0, start);
    return changed;
}

bool PullProgressDecoder::finish()
{
    const QByteArray rest = m_pending.trimmed();
    m_pending.clear();
    return decodeLine(rest);
}

bool PullProgressDecoder::decodeLine(const QByteArray &line)
{
    if (line.isEmpty())
        return false;
    const QJsonObject o = QJsonDocument::fromJson(line).object();
    if (o.isEmpty())
        return false;
    if (o.contains(QLatin1String("error")) || o.contains(QLatin1String("errorDetail"))) {
        QString message =
            o.value(QLatin1String("errorDetail")).toObject().value(QLatin1String("message")).toString();
        if (message.isEmpty())
            message = o.value(QLatin1String("error")).toString();
        m_progress.error = message.isEmpty() ? QStringLiteral("the pull failed") : message;
        return true;
    }
    const QString status = o.value(QLatin1String("status")).toString();
    const QString id = o.value(QLatin1String("id")).toString();
    const QJsonObject detail = o.value(QLatin1String("progressDetail")).toObject();
    const qint64 current = qint64(detail.value(QLatin1String("current")).toDouble());
    const qint64 total = qint64(detail.value(QLatin1String("total")).toDouble());

    using Phase = LayerProgress::Phase;
    auto onLayer = [&](auto update) {
        update(layer(id));
        return true;
    };
    if (!id.isEmpty()) {
        if (status == QLatin1String("Pulling fs layer") || status == QLatin1String("Waiting"))
            return onLayer([](LayerProgress &) {});
        if (status == QLatin1String("Downloading"))
            return onLayer([&](LayerProgress &l) {
                l.phase = Phase::Downloading;
                l.downloaded = current;
                if (total > 0)
                    l.total = total;
            });
        if (status == QLatin1String("Verifying Checksum") ||
            status == QLatin1String("Download complete"))
            return onLayer([&](LayerProgress &l) {
                l.phase = Phase::Downloaded;
                if (l.total > 0)
                    l.downloaded = l.total;
            });
        if (status == QLatin1String("Extracting"))
            return onLayer([&](LayerProgress &l) {
                l.phase = Phase::Extracting;
                l.extracted = current;
                if (l.total <= 0 && total > 0)
                    l.total = total;
                l.downloaded = l.total;
            });
        if (status == QLatin1String("Pull complete"))
            return onLayer([&](LayerProgress &l) {
                l.phase = Phase::Complete;
                l.downloaded = l.total;
                l.extracted = l.total;
            });
        if (status == QLatin1String("Already exists"))
            return onLayer([&](LayerProgress &l) { l.phase = Phase::Existed; });
        if (status.startsWith(QLatin1String("Retrying")))
            return onLayer([&](LayerProgress &l) {
                l.phase = Phase::Waiting;
                l.downloaded = 0;
            });
    }
    if (status.startsWith(QLatin1String("Digest: "))) {
        m_progress.digest = status.mid(8).trimmed();
        return true;
    }
    if (status.startsWith(QLatin1String("Status: "))) {
        m_progress.finished = true;
        m_progress.upToDate = status.contains(QLatin1String("up to date"));
        m_progress.status = status.mid(8);
        return true;
    }
    if (!status.isEmpty()) {
        m_progress.status = id.isEmpty() ? status : status + QLatin1Char(' ') + id;
        return true;
    }
    return false;
}

} // namespace ClusterDeck::Docker
