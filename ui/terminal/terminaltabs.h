#pragma once

#include "docker/execstream.h"

#include <QTabWidget>

#include <functional>
#include <memory>

namespace ClusterDeck::Docker {
class DockerClient;
}

namespace ClusterDeck::Ui {

class TerminalSession;
class TerminalWidget;

// Several terminals at once, one tab each, titled `session/kernel`; a tab says when its process
// exits (and with which code) and closes with its close button.
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

Q_SIGNALS:
    void terminalFinished(ClusterDeck::Ui::TerminalWidget *widget, int exitCode);

protected:
    void tabInserted(int index) override;
    void tabRemoved(int index) override;

private:
    void updateTabBarFocus();
};

} // namespace ClusterDeck::Ui
