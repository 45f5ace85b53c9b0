#pragma once

#include <QMainWindow>

class QTabWidget;

namespace ClusterDeck::Ui {

class MainWindow : public QMainWindow
{
    Q_OBJECT

public:
    explicit MainWindow(QWidget *parent = nullptr);

private:
    void setupMenus();

    QTabWidget *m_tabs = nullptr;
};

} // namespace ClusterDeck::Ui
