#pragma once

#include "docker/pullprogress.h"

#include <QElapsedTimer>
#include <QMap>
#include <QString>
#include <QStringList>
#include <QTextStream>

#include <mutex>

namespace ClusterDeck::Cli {

// Shows pulls as they go, one progress bar per host (all of that host's images together),
// redrawn in place on a terminal; on anything else (a pipe, a log file) plain lines at the
// start, every quarter, and the end of each pull. Thread-safe: the pulls report from their
// own threads.
class PullProgressPrinter
{
public:
    PullProgressPrinter(QTextStream &out, bool terminal);

    void update(const QString &host, const QString &image, const Docker::PullProgress &progress);
    // A line of other output (kernel statuses): printed above the bars.
    void line(const QString &text);
    // Draws the final state and leaves the bars in place.
    void finish();

    // "[#########.........]  47%  25.1/53.6 MB  2 layers"
    static QString bar(double fraction, int width);

private:
    struct Pull
    {
        Docker::PullProgress progress;
        int lastQuarter = -1; // plain mode: the last quarter printed
        bool announced = false;
    };
    void redraw(bool force);
    QString hostLine(const QString &host) const;

    QTextStream &m_out;
    const bool m_terminal;
    std::mutex m_mutex;
    QMap<QString, QMap<QString, Pull>> m_pulls; // host → image → pull
    int m_drawnLines = 0;
    QElapsedTimer m_sinceDraw;
    QElapsedTimer m_sinceStart;
};

} // namespace ClusterDeck::Cli
