#pragma once

#include "http/httptypes.h"

#include <QWidget>

class QLabel;
class QLineEdit;
class QListWidget;
class QProgressBar;
class QPushButton;
class QTableView;

namespace ClusterDeck::Ui {

class ConsoleController;
class ImagesModel;

// Which images are on which host (a host × image matrix with size and digest); pull an image to
// the checked hosts (all at once, with a progress bar), remove the selected image where no
// container uses it. Everything that talks to Docker runs off the GUI thread.
class ImagesView : public QWidget
{
    Q_OBJECT

public:
    explicit ImagesView(ConsoleController *controller, QWidget *parent = nullptr);
    ~ImagesView() override;

    ImagesModel *model() const { return m_model; }
    QTableView *table() const { return m_table; }
    QLineEdit *imageEdit() const { return m_image; }
    QListWidget *hostList() const { return m_hosts; }
    QProgressBar *progressBar() const { return m_bar; }
    QLabel *statusLabel() const { return m_status; }
    bool isBusy() const { return m_busy; }

public Q_SLOTS:
    void refresh();
    void pullToCheckedHosts();
    void cancelPull();
    void removeSelectedUnused();

Q_SIGNALS:
    void refreshed();
    void pullFinished(bool ok, const QString &message);

private:
    void updateHosts();
    void setBusy(bool busy);

    ConsoleController *m_controller;
    ImagesModel *m_model;
    QTableView *m_table;
    QLineEdit *m_image;
    QListWidget *m_hosts;
    QPushButton *m_pull;
    QPushButton *m_cancel;
    QPushButton *m_remove;
    QPushButton *m_refresh;
    QProgressBar *m_bar;
    QLabel *m_status;
    bool m_busy = false;
    CancelToken m_cancelToken;
};

} // namespace ClusterDeck::Ui
