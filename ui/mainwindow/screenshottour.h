#pragma once

#include <QObject>
#include <QString>

namespace ClusterDeck::Ui {

class MainWindow;

// `clusterdeck --screenshot-dir DIR`: once the store and the hosts have loaded, shows each view of
// the real window (the session tree expanded, hosts, events, the launch dialog with its placement
// preview, the dark palette), saves it as a PNG in DIR and quits. With no host and no session in
// the store it saves the first-run view (first-run.png) only. Used by scripts/screenshots.sh.
class ScreenshotTour : public QObject
{
    Q_OBJECT

public:
    ScreenshotTour(MainWindow *window, const QString &directory, QObject *parent = nullptr);

    void start();

private:
    void run();
    bool save(QWidget *widget, const QString &name);

    MainWindow *m_window;
    QString m_directory;
    bool m_sessionsLoaded = false;
    bool m_hostsLoaded = false;
    bool m_done = false;
};

} // namespace ClusterDeck::Ui
