#include "pullprogressprinter.h"
#include "common/bytesize.h"

namespace ClusterDeck::Cli {

PullProgressPrinter::PullProgressPrinter(QTextStream &out, bool terminal)
    : m_out(out)
    , m_terminal(terminal)
{
    m_sinceStart.start();
}

QString PullProgressPrinter::bar(double fraction, int width)
{
    const int filled = qBound(0, int(fraction * width + 0.5), width);
    return QLatin1Char('[') + QString(filled, QLatin1Char('#')) +
           QString(width - filled, QLatin1Char('.')) + QLatin1Char(']');
}

QString PullProgressPrinter::hostLine(const QString &host) const
{
    const auto &images = m_pulls.value(host);
    qint64 down = 0, total = 0;
    int layers = 0, done = 0;
    double fraction = 0;
    QStringList errors;
    bool finished = true;
    for (auto it = images.cbegin(); it != images.cend(); ++it) {
        const Docker::PullProgress &p = it.value().progress;
        down += p.downloadedBytes();
        total += p.totalBytes();
        layers += int(p.layers.size());
        done += p.layersDone();
        fraction += p.fraction();
        finished = finished && p.finished;
        if (!p.error.isEmpty())
            errors.append(p.error);
    }
    if (!images.isEmpty())
        fraction /= double(images.size());
    QString text = QStringLiteral("%1 %2 %3%  %4/%5  %6/%7 layers")
                       .arg(host.leftJustified(10), bar(fraction, 30))
                       .arg(int(fraction * 100), 3)
                       .arg(formatBytes(down), formatBytes(total))
                       .arg(done)
                       .arg(layers);
    if (!errors.isEmpty())
        text += QStringLiteral("  failed: ") + errors.first();
    else if (finished)
        text += QStringLiteral("  done");
    return text;
}

void PullProgressPrinter::redraw(bool force)
{
    if (!force && m_sinceDraw.isValid() && m_sinceDraw.elapsed() < 100)
        return;
    m_sinceDraw.start();
    // Back to the first bar, then every bar again (erasing what was there).
    if (m_drawnLines > 0)
        m_out << "\x1b[" << m_drawnLines << 'F';
    for (auto it = m_pulls.cbegin(); it != m_pulls.cend(); ++it)
        m_out << "\x1b[2K" << hostLine(it.key()) << '\n';
    m_drawnLines = int(m_pulls.size());
    m_out.flush();
}

void PullProgressPrinter::update(const QString &host, const QString &image,
                                 const Docker::PullProgress &progress)
{
    std::lock_guard lock(m_mutex);
    Pull &pull = m_pulls[host][image];
    pull.progress = progress;
    if (m_terminal) {
        redraw(progress.finished || !progress.error.isEmpty());
        return;
    }
    // Plain lines: start, each quarter of the bytes, the end.
    const QString prefix = QStringLiteral("pull %1 %2: ").arg(host, image);
    if (!pull.announced) {
        pull.announced = true;
        m_out << prefix << "started\n";
    }
    if (!progress.error.isEmpty()) {
        m_out << prefix << "failed: " << progress.error << '\n';
    } else if (progress.finished) {
        m_out << prefix
              << (progress.upToDate ? QStringLiteral("up to date")
                                    : QStringLiteral("done, %1 in %2 layers")
                                          .arg(formatBytes(progress.downloadedBytes()))
                                          .arg(progress.layers.size()))
              << (progress.digest.isEmpty() ? QString() : QStringLiteral(" (%1)").arg(progress.digest))
              << '\n';
    } else if (progress.sizeKnown()) {
        const int quarter = int(progress.fraction() * 4);
        if (quarter > pull.lastQuarter && quarter > 0 && quarter < 4) {
            pull.lastQuarter = quarter;
            m_out << prefix << quarter * 25 << "% (" << formatBytes(progress.downloadedBytes())
                  << " of " << formatBytes(progress.totalBytes()) << ")\n";
        }
    }
    m_out.flush();
}

void PullProgressPrinter::line(const QString &text)
{
    std::lock_guard lock(m_mutex);
    if (m_terminal && m_drawnLines > 0) {
        m_out << "\x1b[" << m_drawnLines << 'F' << "\x1b[J";
        m_drawnLines = 0;
        m_out << text << '\n';
        redraw(true);
        return;
    }
    m_out << text << '\n';
    m_out.flush();
}

void PullProgressPrinter::finish()
{
    std::lock_guard lock(m_mutex);
    if (m_terminal && !m_pulls.isEmpty())
        redraw(true);
    m_out.flush();
}

} // namespace ClusterDeck::Cli
