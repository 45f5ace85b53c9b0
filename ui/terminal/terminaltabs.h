#pragma once

#include "docker/execstream.h"

#include <QTabWidget>

#include <functional>
#include <memory>

namespace ClusterDeck::Docker {
class DockerClient;
}

namespace ClusterDeck::Ui {

class DetachedWindow;
class TerminalSession;
class TerminalWidget;

// Several terminals at once, one tab each, titled `session/kernel`; a tab says when its process
// exits (and with which code) and closes with its close button. A tab's context menu opens it in a
// window of its own.
class TerminalTabs : public QTabWidget
{
    Q_OBJECT

public:
    explicit TerminalTabs(QWidget *parent = nullptr);
    ~TerminalTabs() override;

    // Opens a shell (or options.command) in the container and returns its widget.
    TerminalWidget *openTerminal(std::shared_ptr<const Docker::DockerClient> client,
                                 const QString &containerId, const QString &title,
                                 const Docker::ExecStream::Options &options = {});
    TerminalWidget *
    openTerminal(std::function<Result<std::shared_ptr<const Docker::DockerClient>>()> provider,
                 const QString &containerId, const QString &title,
                 const Docker::ExecStream::Options &options = {});
    TerminalSession *sessionOf(TerminalWidget *widget) const;
    TerminalWidget *terminalAt(int index) const;
    void closeTerminal(int index);
    // The terminal at `index` in a window of its own, beside the console; closing that window
    // brings it back as a tab. The shell goes on throughout.
    DetachedWindow *detachTerminal(int index);

Q_SIGNALS:
    void terminalFinished(ClusterDeck::Ui::TerminalWidget *widget, int exitCode);

protected:
    void tabInserted(int index) override;
    void tabRemoved(int index) override;

private:
    void updateTabBarFocus();
    void showTabMenu(const QPoint &position);
    // A terminal's title as its tab shows it, kept while it is in a window of its own.
    void setTitle(TerminalWidget *terminal, const QString &title);
};

} // namespace ClusterDeck::Ui
